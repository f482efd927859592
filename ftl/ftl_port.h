/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftl_port.h - everything the portable FTL core needs from its host.
 *
 * The core (ftl.c, blocks.c, gc.c, wear.c, and beside it timing.c,
 * cache.c, shard.c) makes no kernel or libc calls of its own. It uses the
 * kernel's integer types (u8, u32, u64), errno constants, and these hooks:
 *
 *   ftl_zalloc(bytes)      zeroed allocation that may be large, or NULL
 *   ftl_free(ptr)          free what ftl_zalloc returned (NULL allowed)
 *   ftl_div_u64(a, b)      64-bit by 64-bit division
 *   FTL_WARN_ON(cond)      report a broken internal invariant, evaluate
 *                          to cond (like WARN_ON)
 *   ftl_err(fmt, ...)      one line of error text, no trailing newline
 *   FTL_READ_ONCE(x)       a load / store of a map entry that the host may
 *   FTL_WRITE_ONCE(x, v)   read without its lock (ftl_lookup_unlocked()):
 *                          one untorn access the compiler keeps as written
 *   FTL_LOAD_ACQUIRE(x)    the same with acquire / release ordering, for
 *   FTL_STORE_RELEASE(x, v) the write cache's entries (cache.h)
 *
 * The kernel implementation is port_kernel.h, the user-space one
 * port_user.h. Allocation only happens where an object is made
 * (ftl_create(), ftl_timing_init(), ftl_cache_init()); every other call
 * is allocation-free, so the core is safe to call under a spinlock.
 */
#ifndef FTL_PORT_H
#define FTL_PORT_H

#ifdef __KERNEL__
#include "port_kernel.h"
#else
#include "port_user.h"
#endif

#endif /* FTL_PORT_H */
