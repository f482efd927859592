// SPDX-License-Identifier: GPL-2.0
/*
 * ftlblk_conform - plays the filesystem's role of the 2008 discard design
 * ("Block layer discard requests", Woodhouse) against a block device, so a
 * guest test can check at the device (ftlblk's counters and tracepoint)
 * that each request arrived exactly as issued.
 *
 * Load it with the device and one check, e.g.
 *
 *   modprobe ftlblk_conform dev=/dev/ftlblk0 test=sync sector=2048 nr_sects=64
 *
 * The check runs at load time and reports TAP lines in the kernel log:
 * "ftlblk_conform: ok 1 - ..." / "not ok 1 - ...", then
 * "ftlblk_conform: done N checks, F failed" (after unloading for test=fire,
 * whose bios complete after the caller returned). The module stays loaded
 * until rmmod so the fire-and-forget bios can finish without a waiter.
 *
 * Checks (test=):
 *  sync   blkdev_issue_discard(bdev, sector, nr_sects, GFP_KERNEL) returns
 *         expect (0, or -95 for -EOPNOTSUPP).
 *  async  count discard bios of nr_sects sectors, stride apart, built with
 *         bio_alloc() and submitted with our own bi_end_io, inside one plug
 *         if plug=1: every callback runs exactly once with status expect.
 *         With wsector= set, a 4 KiB write (SZ_4K, whatever PAGE_SIZE is)
 *         of 0x5a bytes to sector wsector + 16k follows discard bio k,
 *         so the plug's most recent request is a write and plug merging
 *         cannot join two discards: what merges them then is the I/O
 *         scheduler inserting the plugged requests (mq-deadline's
 *         elv_attempt_insert_merge()). Writes still in flight after the
 *         timeout are waited for by rmmod, not by init.
 *  chain  the seed's blkdev_issue_discard(bdev, sector, nr, end_io): the
 *         bios of __blkdev_issue_discard() are chained, our end_io on the
 *         last runs exactly once when all of them completed.
 *  fire   fire-and-forget: count bios whose end_io puts the bio and drops
 *         an in-flight counter; init does not wait, exit waits for zero.
 *  order  write A, discard (waiting for completion), read back zeroes,
 *         write B, read back B: the filesystem's ordering rule of today.
 *  drv    a driver-private passthrough request (REQ_OP_DRV_IN, then
 *         REQ_OP_DRV_OUT), the one kind of operation the block layer
 *         hands to a driver without knowing whether it supports it: the
 *         driver must complete it with BLK_STS_NOTSUPP (-EOPNOTSUPP).
 *         User space cannot send one to ftlblk (no SG_IO, no ioctl).
 *  fua    count 4 KiB writes of 0x5a bytes with REQ_FUA and no flush, to
 *         sector, sector + 8, ..., each waited for: what a filesystem's
 *         write-through O_DSYNC direct write sends (iomap); a block
 *         device's O_DSYNC write from user space is followed by a flush.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "compat.h"

#define CONFORM_MAX_BIOS	100000
#define CONFORM_MAX_ORDER_SECTORS	256	/* 128 KiB of data for test=order */
#define CONFORM_TIMEOUT		(60 * HZ)

static char *dev;
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "Block device to discard on, e.g. /dev/ftlblk0 (required)");

static char *test = "sync";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "Check to run: sync, async, chain, fire, order, drv or fua. Default: sync");

static unsigned long sector;
module_param(sector, ulong, 0444);
MODULE_PARM_DESC(sector, "First sector (512 bytes). Default: 0");

static unsigned long nr_sects = 8;
module_param(nr_sects, ulong, 0444);
MODULE_PARM_DESC(nr_sects, "Sectors per discard (per bio for async and fire). Default: 8");

static unsigned int count = 1;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "Bios for async, fire and fua, 1..100000. Default: 1");

static unsigned long stride;
module_param(stride, ulong, 0444);
MODULE_PARM_DESC(stride, "Sectors from one bio's start to the next, 0 = nr_sects (contiguous). Default: 0");

static bool plug = true;
module_param(plug, bool, 0444);
MODULE_PARM_DESC(plug, "Submit the async bios inside one blk_start_plug()/blk_finish_plug(). Default: 1");

static bool reverse;
module_param(reverse, bool, 0444);
MODULE_PARM_DESC(reverse, "Submit the async bios from the last to the first. Default: 0");

static unsigned long wsector;
module_param(wsector, ulong, 0444);
MODULE_PARM_DESC(wsector, "async: after discard bio k write 4 KiB of 0x5a at wsector + 16k, 0 = no writes. Default: 0");

static int expect;
module_param(expect, int, 0444);
MODULE_PARM_DESC(expect, "Expected result as -errno: 0 or -95 (-EOPNOTSUPP). Default: 0");

static struct ftlblk_bdev_handle handle;
static struct block_device *bdev;
static unsigned int tap_n, tap_failed;

/* One TAP line in the kernel log. */
static __printf(2, 3) void tap(bool good, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	tap_n++;
	if (!good)
		tap_failed++;
	pr_info("%sok %u - %pV\n", good ? "" : "not ", tap_n, &vaf);
	va_end(args);
}

static void tap_done(void)
{
	pr_info("done %u checks, %u failed\n", tap_n, tap_failed);
}

static sector_t bio_start(unsigned int i)
{
	unsigned int k = reverse ? count - 1 - i : i;

	return sector + (sector_t)k * (stride ? stride : nr_sects);
}

static struct bio *alloc_discard_bio(sector_t start, sector_t len)
{
	/* No data pages: a discard bio only carries its sector range. */
	struct bio *bio = bio_alloc(bdev, 0, REQ_OP_DISCARD, GFP_KERNEL);

	bio->bi_iter.bi_sector = start;
	bio->bi_iter.bi_size = len << SECTOR_SHIFT;
	return bio;
}

/* ---- test=sync ---- */

static void check_sync(void)
{
	int ret = blkdev_issue_discard(bdev, sector, nr_sects, GFP_KERNEL);

	tap(ret == expect,
	    "blkdev_issue_discard(%s, sector=%lu, nr_sects=%lu, GFP_KERNEL) returned %d (expected %d)",
	    dev, sector, nr_sects, ret, expect);
}

/* ---- test=async and test=chain: end_io of bios the caller waits for ---- */

struct waited_bios {
	atomic_t pending;		/* bios whose end_io has not run yet */
	struct completion all_done;
	atomic_t *calls;		/* per bio: times its end_io ran */
	blk_status_t *status;		/* per bio: status its end_io saw */
	unsigned int n;
};

static struct waited_bios *waited_alloc(unsigned int n)
{
	struct waited_bios *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (!w)
		return NULL;
	w->calls = kvcalloc(n, sizeof(*w->calls), GFP_KERNEL);
	w->status = kvcalloc(n, sizeof(*w->status), GFP_KERNEL);
	if (!w->calls || !w->status) {
		kvfree(w->calls);
		kvfree(w->status);
		kfree(w);
		return NULL;
	}
	w->n = n;
	atomic_set(&w->pending, n);
	init_completion(&w->all_done);
	return w;
}

static void waited_free(struct waited_bios *w)
{
	kvfree(w->calls);
	kvfree(w->status);
	kfree(w);
}

/* bi_private is the bio's index; the bios array lives in the waiter. */
static struct waited_bios *cur_waited;

static void waited_end_io(struct bio *bio)
{
	struct waited_bios *w = cur_waited;
	unsigned long i = (unsigned long)bio->bi_private;

	w->status[i] = bio->bi_status;
	atomic_inc(&w->calls[i]);
	if (atomic_dec_and_test(&w->pending))
		complete(&w->all_done);
}

/*
 * After all_done: every end_io ran exactly once with status @want. A
 * second call of some end_io would have to come after all_done, so look
 * again a little later.
 */
static void waited_report(struct waited_bios *w, const char *what,
			  blk_status_t want)
{
	unsigned int i, once = 0, bad_status = 0, first_bad = 0;
	int first_err = 0;

	schedule_timeout_uninterruptible(HZ / 10);
	for (i = 0; i < w->n; i++) {
		if (atomic_read(&w->calls[i]) == 1)
			once++;
		if (w->status[i] != want && !bad_status++) {
			first_bad = i;
			first_err = blk_status_to_errno(w->status[i]);
		}
	}
	tap(once == w->n, "%s: end_io ran exactly once for %u of %u bios",
	    what, once, w->n);
	tap(!bad_status,
	    "%s: every end_io saw status %d (%u differ, first bio %u: %d)",
	    what, blk_status_to_errno(want), bad_status, first_bad, first_err);
}

static blk_status_t expected_status(void)
{
	return expect ? errno_to_blk_status(expect) : BLK_STS_OK;
}

/* test=async with wsector: the interleaved writes, waited for apart. */
static atomic_t wr_inflight = ATOMIC_INIT(0);
static atomic_t wr_errors = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(wr_wq);
/* The writes' page until they all completed (conform_exit() waits). */
static struct page *wr_page;

static void wr_end_io(struct bio *bio)
{
	if (bio->bi_status)
		atomic_inc(&wr_errors);
	bio_put(bio);
	if (atomic_dec_and_test(&wr_inflight))
		wake_up(&wr_wq);
}

/* The write bios for wsector (the first 4 KiB of @page), or NULL on failure. */
static struct bio **alloc_write_bios(struct page *page)
{
	struct bio **w = kvcalloc(count, sizeof(*w), GFP_KERNEL);
	unsigned int i;

	if (!w)
		return NULL;
	for (i = 0; i < count; i++) {
		w[i] = bio_alloc(bdev, 1, REQ_OP_WRITE, GFP_KERNEL);
		w[i]->bi_iter.bi_sector = wsector + (sector_t)i * 16;
		w[i]->bi_end_io = wr_end_io;
		__bio_add_page(w[i], page, SZ_4K, 0);
	}
	return w;
}

/* All writes completed: no end_io of ours still running; free the page. */
static void wr_finish(void)
{
	ftlblk_compat_drain_queue(bdev_get_queue(bdev));
	__free_page(wr_page);
	wr_page = NULL;
}

static void check_async(void)
{
	struct waited_bios *w = waited_alloc(count);
	struct bio **bios, **wbios = NULL;
	struct page *wpage = NULL;
	struct blk_plug p;
	unsigned long left;
	unsigned int i;

	bios = kvcalloc(count, sizeof(*bios), GFP_KERNEL);
	if (wsector) {
		wpage = alloc_page(GFP_KERNEL);
		if (wpage) {
			memset(page_address(wpage), 0x5a, SZ_4K);
			wbios = alloc_write_bios(wpage);
		}
	}
	if (!w || !bios || (wsector && !wbios)) {
		tap(false, "async: allocating %u bios", count);
		kvfree(bios);
		/* None was submitted: ours to put, not wr_end_io()'s. */
		for (i = 0; wbios && i < count; i++)
			bio_put(wbios[i]);
		kvfree(wbios);
		if (wpage)
			__free_page(wpage);
		if (w)
			waited_free(w);
		return;
	}
	cur_waited = w;
	for (i = 0; i < count; i++) {
		bios[i] = alloc_discard_bio(bio_start(i), nr_sects);
		bios[i]->bi_end_io = waited_end_io;
		bios[i]->bi_private = (void *)(unsigned long)i;
		/*
		 * waited_end_io() does not put the bio: the reference from
		 * bio_alloc() keeps it, and its bi_status, for the check.
		 */
	}
	if (wbios)
		atomic_set(&wr_inflight, count);
	/*
	 * Requests carry the submitting CPU's software queue; staying on
	 * one CPU keeps the plugged requests one list at the flush, so the
	 * scheduler sees all of them inserted before it dispatches one.
	 */
	migrate_disable();
	if (plug)
		blk_start_plug(&p);
	for (i = 0; i < count; i++) {
		submit_bio(bios[i]);
		if (wbios)
			submit_bio(wbios[i]);
	}
	if (plug)
		blk_finish_plug(&p);
	migrate_enable();
	left = wait_for_completion_timeout(&w->all_done, CONFORM_TIMEOUT);
	tap(left, "async: %u discard bios (%lu sectors, first at %lu, stride %lu%s%s%s) completed",
	    count, nr_sects, sector, stride ? stride : nr_sects,
	    plug ? ", plugged" : "", reverse ? ", reversed" : "",
	    wbios ? ", each followed by a write" : "");
	if (wbios) {
		/* wr_end_io() puts the write bios; only the array is ours. */
		kvfree(wbios);
		if (wait_event_timeout(wr_wq, !atomic_read(&wr_inflight),
				       CONFORM_TIMEOUT))
			tap(!atomic_read(&wr_errors),
			    "async: %u interleaved 4 KiB writes at %lu + 16k completed, %d with an error",
			    count, wsector, atomic_read(&wr_errors));
		else
			tap(false, "async: the interleaved writes completed (%d left)",
			    atomic_read(&wr_inflight));
		/*
		 * Our end_io must not run after the module is gone, but init
		 * must not hang on a write that never completes either:
		 * conform_exit() waits for what is left.
		 */
		wr_page = wpage;
		if (!atomic_read(&wr_inflight))
			wr_finish();
		else
			pr_err("async: %d writes never completed\n",
			       atomic_read(&wr_inflight));
	}
	if (!left) {
		/* Cannot free what may still complete; conform_exit() waits. */
		pr_err("async: %d bios never completed\n",
		       atomic_read(&w->pending));
		return;
	}
	waited_report(w, "async", expected_status());
	for (i = 0; i < count; i++) {
		if (bios[i]->bi_status != w->status[i])
			break;
		bio_put(bios[i]);
	}
	tap(i == count, "async: bi_status kept after end_io and bio_put() of all %u bios",
	    count);
	for (; i < count; i++)
		bio_put(bios[i]);
	kvfree(bios);
	waited_free(w);
	cur_waited = NULL;
}

static void check_chain(void)
{
	struct waited_bios *w = waited_alloc(1);
	struct bio *bio = NULL;
	unsigned long left;
	int ret;

	if (!w) {
		tap(false, "chain: allocation");
		return;
	}
	cur_waited = w;
	ret = ftlblk_compat_discard_chain(bdev, sector, nr_sects, &bio);
	tap(ret == expect,
	    "chain: __blkdev_issue_discard(sector=%lu, nr_sects=%lu) returned %d (expected %d)",
	    sector, nr_sects, ret, expect);
	if (ret || !bio) {
		tap(!bio, "chain: no bio built when it fails");
		waited_free(w);
		cur_waited = NULL;
		return;
	}
	/* The last bio of the chain completes after all the others. */
	bio->bi_end_io = waited_end_io;
	bio->bi_private = NULL;
	submit_bio(bio);
	left = wait_for_completion_timeout(&w->all_done, CONFORM_TIMEOUT);
	tap(left, "chain: the chain's end_io ran");
	if (!left) {
		/* conform_exit() waits for it before the module goes. */
		pr_err("chain: the discard never completed\n");
		return;
	}
	waited_report(w, "chain", expected_status());
	bio_put(bio);
	waited_free(w);
	cur_waited = NULL;
}

/* ---- test=fire: nobody waits; end_io cleans up ---- */

static atomic_t fire_inflight = ATOMIC_INIT(0);
static atomic_t fire_completed = ATOMIC_INIT(0);
static atomic_t fire_errors = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(fire_wq);
static unsigned int fire_submitted;

static void fire_end_io(struct bio *bio)
{
	if (bio->bi_status != expected_status())
		atomic_inc(&fire_errors);
	atomic_inc(&fire_completed);
	bio_put(bio);
	if (atomic_dec_and_test(&fire_inflight))
		wake_up(&fire_wq);
}

static void check_fire(void)
{
	struct blk_plug p;
	unsigned int i;

	blk_start_plug(&p);
	for (i = 0; i < count; i++) {
		struct bio *bio = alloc_discard_bio(bio_start(i), nr_sects);

		bio->bi_end_io = fire_end_io;
		atomic_inc(&fire_inflight);
		submit_bio(bio);
		fire_submitted++;
	}
	blk_finish_plug(&p);
	tap(fire_submitted == count,
	    "fire: %u discard bios submitted without waiting (%d done so far)",
	    fire_submitted, atomic_read(&fire_completed));
}

static void fire_finish(void)
{
	long left;

	left = wait_event_timeout(fire_wq, !atomic_read(&fire_inflight),
				  CONFORM_TIMEOUT);
	tap(left > 0, "fire: all %u bios completed by unload (%d in flight)",
	    fire_submitted, atomic_read(&fire_inflight));
	/* Our end_io must not run after the module is gone: keep waiting. */
	wait_event(fire_wq, !atomic_read(&fire_inflight));
	/*
	 * The last end_io may still be returning from wake_up(). A queue
	 * freeze waits until every request, and so every end_io it ran, has
	 * finished.
	 */
	ftlblk_compat_drain_queue(bdev_get_queue(bdev));
	tap(atomic_read(&fire_completed) == fire_submitted,
	    "fire: end_io ran %d times for %u bios",
	    atomic_read(&fire_completed), fire_submitted);
	tap(!atomic_read(&fire_errors), "fire: %d end_io calls saw a status other than %d",
	    atomic_read(&fire_errors), expect);
}

/* ---- test=order ---- */

static int rw_pages_at(sector_t at, blk_opf_t opf, struct page *page,
		       unsigned int bytes)
{
	struct bio *bio = bio_alloc(bdev, 1, opf, GFP_KERNEL);
	int ret;

	bio->bi_iter.bi_sector = at;
	if (bio_add_page(bio, page, bytes, 0) != bytes) {
		bio_put(bio);
		return -EIO;
	}
	ret = submit_bio_wait(bio);
	bio_put(bio);
	return ret;
}

static int rw_pages(enum req_op op, struct page *page, unsigned int bytes)
{
	return rw_pages_at(sector, op, page, bytes);
}

static bool filled_with(struct page *page, unsigned int bytes, u8 byte)
{
	return !memchr_inv(page_address(page), byte, bytes);
}

static void check_order(void)
{
	unsigned int bytes = nr_sects << SECTOR_SHIFT;
	struct page *page = NULL;
	int ret;

	if (nr_sects > CONFORM_MAX_ORDER_SECTORS || !nr_sects) {
		tap(false, "order: nr_sects must be 1..%d", CONFORM_MAX_ORDER_SECTORS);
		return;
	}
	page = alloc_pages(GFP_KERNEL, get_order(bytes));
	if (!page) {
		tap(false, "order: allocation");
		return;
	}
	memset(page_address(page), 0xa5, bytes);
	ret = rw_pages(REQ_OP_WRITE, page, bytes);
	tap(!ret, "order: write A (0xa5) to sectors %lu+%lu: %d", sector,
	    nr_sects, ret);
	memset(page_address(page), 0x11, bytes);
	ret = rw_pages(REQ_OP_READ, page, bytes);
	tap(!ret && filled_with(page, bytes, 0xa5), "order: read back A: %d", ret);

	ret = blkdev_issue_discard(bdev, sector, nr_sects, GFP_KERNEL);
	tap(!ret, "order: discard, completed before anything else is issued: %d",
	    ret);
	memset(page_address(page), 0x11, bytes);
	ret = rw_pages(REQ_OP_READ, page, bytes);
	tap(!ret && filled_with(page, bytes, 0), "order: the discarded range reads as zeroes: %d",
	    ret);

	memset(page_address(page), 0x5a, bytes);
	ret = rw_pages(REQ_OP_WRITE, page, bytes);
	tap(!ret, "order: write B (0x5a) after the discard completed: %d", ret);
	memset(page_address(page), 0x11, bytes);
	ret = rw_pages(REQ_OP_READ, page, bytes);
	tap(!ret && filled_with(page, bytes, 0x5a),
	    "order: read returns B, not A and not zeroes: %d", ret);
	__free_pages(page, get_order(bytes));
}

/* ---- test=fua ---- */

static void check_fua(void)
{
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned int i, failed = 0;
	int ret, first = 0;

	if (!page) {
		tap(false, "fua: allocation");
		return;
	}
	memset(page_address(page), 0x5a, SZ_4K);
	for (i = 0; i < count; i++) {
		ret = rw_pages_at(sector + (sector_t)i * (SZ_4K >> SECTOR_SHIFT),
				  REQ_OP_WRITE | REQ_FUA, page, SZ_4K);
		if (ret && !failed++)
			first = ret;
	}
	tap(!failed, "fua: %u 4 KiB writes with REQ_FUA from sector %lu: %u failed (first %d)",
	    count, sector, failed, first);
	__free_page(page);
}

/* ---- test=drv ---- */

static void check_drv_op(enum req_op op, const char *name)
{
	struct request *rq;
	blk_status_t sts;

	rq = blk_mq_alloc_request(bdev_get_queue(bdev), op, 0);
	if (IS_ERR(rq)) {
		tap(false, "%s request allocated (%ld)", name, PTR_ERR(rq));
		return;
	}
	sts = blk_execute_rq(rq, false);
	blk_mq_free_request(rq);
	tap(sts == BLK_STS_NOTSUPP,
	    "%s on %s completed with BLK_STS_NOTSUPP (got errno %d)", name,
	    dev, blk_status_to_errno(sts));
}

static void check_drv(void)
{
	check_drv_op(REQ_OP_DRV_IN, "REQ_OP_DRV_IN");
	check_drv_op(REQ_OP_DRV_OUT, "REQ_OP_DRV_OUT");
}

static int __init conform_init(void)
{
	bool fire = false;
	int err;

	if (!dev) {
		pr_err("dev= is required\n");
		return -EINVAL;
	}
	if (!count || count > CONFORM_MAX_BIOS || !nr_sects) {
		pr_err("count must be 1..%d and nr_sects > 0\n", CONFORM_MAX_BIOS);
		return -EINVAL;
	}
	err = ftlblk_compat_open_bdev(dev, &handle, &handle);
	if (err) {
		pr_err("%s: cannot open: %d\n", dev, err);
		return err;
	}
	bdev = handle.bdev;
	pr_info("test=%s dev=%s discard_max_bytes=%u\n", test, dev,
		bdev_max_discard_sectors(bdev) << SECTOR_SHIFT);
	if (!strcmp(test, "sync")) {
		check_sync();
	} else if (!strcmp(test, "async")) {
		check_async();
	} else if (!strcmp(test, "chain")) {
		check_chain();
	} else if (!strcmp(test, "fire")) {
		check_fire();
		fire = true;
	} else if (!strcmp(test, "order")) {
		check_order();
	} else if (!strcmp(test, "drv")) {
		check_drv();
	} else if (!strcmp(test, "fua")) {
		check_fua();
	} else {
		pr_err("unknown test=%s\n", test);
		ftlblk_compat_close_bdev(&handle);
		return -EINVAL;
	}
	if (!fire)
		tap_done();
	return 0;
}

static void __exit conform_exit(void)
{
	if (fire_submitted) {
		fire_finish();
		tap_done();
	}
	/* An async check whose writes timed out left them in flight. */
	if (wr_page) {
		wait_event(wr_wq, !atomic_read(&wr_inflight));
		wr_finish();
	}
	/* An async or chain check that timed out left bios in flight. */
	if (cur_waited) {
		wait_for_completion(&cur_waited->all_done);
		ftlblk_compat_drain_queue(bdev_get_queue(bdev));
	}
	ftlblk_compat_close_bdev(&handle);
}

module_init(conform_init);
module_exit(conform_exit);

MODULE_DESCRIPTION("Conformance checks of the 2008 discard design against a block device");
MODULE_LICENSE("GPL");
