/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/atomic.h>: atomic_long_t with the
 * kernel's ordering (value-returning and cmpxchg operations fully
 * ordered, read and plain sub relaxed), on the compiler's __atomic
 * builtins.
 */
#ifndef SHIM_LINUX_ATOMIC_H
#define SHIM_LINUX_ATOMIC_H
#include <stdbool.h>

typedef struct {
	long counter;
} atomic_long_t;

static inline long atomic_long_read(const atomic_long_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_long_set(atomic_long_t *v, long i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline long atomic_long_add_return(long i, atomic_long_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}

static inline void atomic_long_sub(long i, atomic_long_t *v)
{
	__atomic_sub_fetch(&v->counter, i, __ATOMIC_RELAXED);
}

static inline bool atomic_long_try_cmpxchg(atomic_long_t *v, long *old,
					   long new)
{
	return __atomic_compare_exchange_n(&v->counter, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}
#endif
