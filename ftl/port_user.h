/* SPDX-License-Identifier: GPL-2.0 */
/*
 * port_user.h - the FTL core's host hooks in user space (tests, ftlsim,
 * fuzzer). An invariant failure aborts, so sanitizers and the fuzzer see
 * it; ftl_err() prints to stderr unless ftl_port_quiet is set (tests that
 * provoke errors on purpose set it).
 */
#ifndef FTL_PORT_USER_H
#define FTL_PORT_USER_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef uint8_t u8;
typedef uint32_t u32;
/* Same types as the kernel so one printk format works in both. */
typedef unsigned long long u64;
typedef long long s64;

#ifndef U32_MAX
#define U32_MAX		((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX		((u64)~0ULL)
#endif

extern bool ftl_port_quiet;
/* Allocation failure injection: the Nth ftl_zalloc() from now fails. */
extern unsigned long ftl_port_fail_alloc_in;
/*
 * Tests of the broken-invariant path set this: FTL_WARN_ON then counts
 * in ftl_port_warnings instead of aborting.
 */
extern bool ftl_port_warn_continues;
extern unsigned long ftl_port_warnings;

void *ftl_port_zalloc(size_t bytes);

#define ftl_zalloc(bytes)	ftl_port_zalloc(bytes)
#define ftl_free(ptr)		free(ptr)
#define ftl_div_u64(a, b)	((u64)(a) / (u64)(b))

#define FTL_WARN_ON(cond) ({						\
	bool __ftl_bad = !!(cond);					\
	if (__ftl_bad && ftl_port_warn_continues) {			\
		ftl_port_warnings++;					\
	} else if (__ftl_bad) {						\
		fprintf(stderr, "%s:%d: FTL invariant broken: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
	__ftl_bad;							\
})

#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define ftl_prefetch(addr)	__builtin_prefetch(addr, 1)
#define FTL_READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define FTL_WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define FTL_LOAD_ACQUIRE(x)	__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define FTL_STORE_RELEASE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

#define ftl_err(fmt, ...) do {						\
	if (!ftl_port_quiet)						\
		fprintf(stderr, "ftl: " fmt "\n", ##__VA_ARGS__);	\
} while (0)

#endif /* FTL_PORT_USER_H */
