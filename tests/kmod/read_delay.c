// SPDX-License-Identifier: GPL-2.0
/*
 * ftlblk_read_delay - a test module that widens a race window of ftlblk's
 * lock-free read path, so that a guest test can hit it on purpose.
 *
 * A read finds a batch of up to 16 flash pages without a lock, under
 * rcu_read_lock() only, and then copies them into the request one after
 * the other (module/rw.c, read_batch()). A page a reader may still copy
 * must not be reused by the page pool and filled with another write's
 * data before the RCU grace period. On a healthy driver the window
 * between finding and copying is a few page copies long, too short for a
 * test to hit a bug in it reliably under QEMU TCG. While this module is
 * loaded, every copy of a flash page into a read request (cursor_copy()
 * with a page and to_rq true) first waits delay_us, so the i-th page of a
 * batch is copied i * delay_us later and concurrent writes overwrite and
 * refill pages inside the window.
 * Copies for writes and zero fills are not delayed.
 *
 *   modprobe ftlblk_read_delay delay_us=200
 *   ... race reads against writes (discard-race) ...
 *   rmmod ftlblk_read_delay
 *
 * It hooks ftlblk:cursor_copy with a kprobe (the arguments read with
 * regs_get_kernel_argument()), so ftlblk must be loaded
 * first; the number of delayed copies is in /sys/module/ftlblk_read_delay/
 * parameters/delayed (read-only).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>

#define READ_DELAY_MAX_US	10000

static unsigned int delay_us = 200;
module_param(delay_us, uint, 0444);
MODULE_PARM_DESC(delay_us, "Wait before each read copy, microseconds, 1..10000. Default: 200");

static atomic_long_t delayed_copies = ATOMIC_LONG_INIT(0);

static int delayed_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&delayed_copies));
}

static const struct kernel_param_ops delayed_ops = {
	.get = delayed_get,
};
module_param_cb(delayed, &delayed_ops, NULL, 0444);
MODULE_PARM_DESC(delayed, "Read copies delayed so far (read-only)");

/* cursor_copy(c, buf, len, to_rq): delay copies of a page into a read. */
static int read_delay_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (regs_get_kernel_argument(regs, 1) &&
	    (u8)regs_get_kernel_argument(regs, 3)) {
		atomic_long_inc(&delayed_copies);
		udelay(delay_us);
	}
	return 0;
}

static struct kprobe read_delay_probe = {
	.symbol_name = "ftlblk:cursor_copy",
	.pre_handler = read_delay_pre,
};

static int __init read_delay_init(void)
{
	int err;

	if (delay_us < 1 || delay_us > READ_DELAY_MAX_US) {
		pr_err("invalid delay_us %u: allowed 1..%u (microseconds)\n",
		       delay_us, READ_DELAY_MAX_US);
		return -EINVAL;
	}
	err = register_kprobe(&read_delay_probe);
	if (err)
		pr_err("cannot probe %s (is ftlblk loaded?): %d\n",
		       read_delay_probe.symbol_name, err);
	return err;
}

static void __exit read_delay_exit(void)
{
	unregister_kprobe(&read_delay_probe);
}

module_init(read_delay_init);
module_exit(read_delay_exit);
MODULE_DESCRIPTION("ftlblk test: widen the find-to-copy window of lock-free reads");
MODULE_LICENSE("GPL");
