/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A charge against a limit that many CPUs take and give back at once
 * (mem_limit_mib, pages.c). Plain C over atomic_long_t and nothing else,
 * so that tests/user/ races it between threads in user space, as
 * tools/testing/radix-tree tests kernel code.
 */
#ifndef FTLBLK_CHARGE_H
#define FTLBLK_CHARGE_H

#include <linux/atomic.h>
#include <linux/types.h>

/**
 * ftlblk_charge() - add @n to *@used if the sum stays within @limit
 * @used: what is charged now
 * @n: what to add, > 0
 * @limit: the largest value *@used may take by this charge (*@used may
 *	already be above it: then nothing more fits)
 *
 * A compare-and-swap loop, so *@used never passes @limit by a charge
 * that does not fit, not even for a moment: a concurrent charge that
 * fits is never refused because of one that does not. (Adding first
 * and taking back a refused charge would let a large refused request
 * refuse a small one beside it.)
 *
 * Return: true if @n was charged.
 */
static inline bool ftlblk_charge(atomic_long_t *used, long n, long limit)
{
	long old = atomic_long_read(used);

	do {
		if (old > limit - n)
			return false;
	} while (!atomic_long_try_cmpxchg(used, &old, old + n));
	return true;
}

#endif /* FTLBLK_CHARGE_H */
