/* SPDX-License-Identifier: GPL-2.0 */
/* port_kernel.h - the FTL core's host hooks inside the Linux kernel. */
#ifndef FTL_PORT_KERNEL_H
#define FTL_PORT_KERNEL_H

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <asm/barrier.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/prefetch.h>
#include <linux/printk.h>

/* ftl_create() runs in process context (configfs write, module init). */
#define ftl_zalloc(bytes)	kvzalloc(bytes, GFP_KERNEL)
#define ftl_free(ptr)		kvfree(ptr)
#define ftl_div_u64(a, b)	div64_u64(a, b)
#define FTL_WARN_ON(cond)	WARN_ON_ONCE(cond)
#define ftl_err(fmt, ...)	pr_err("ftl: " fmt "\n", ##__VA_ARGS__)
#define ftl_prefetch(addr)	prefetchw(addr)
#define FTL_READ_ONCE(x)	READ_ONCE(x)
#define FTL_WRITE_ONCE(x, v)	WRITE_ONCE(x, v)
/*
 * The write cache's entries (cache.h): a reader without the host's lock
 * that loads an entry (acquire) sees what was stored before it (release).
 */
#define FTL_LOAD_ACQUIRE(x)	smp_load_acquire(&(x))	/* pairs with below */
#define FTL_STORE_RELEASE(x, v)	smp_store_release(&(x), v)	/* see above */

#endif /* FTL_PORT_KERNEL_H */
