// SPDX-License-Identifier: GPL-2.0
/*
 * The volatile write cache's life (write_cache=1): made at power-on, made
 * durable by REQ_OP_FLUSH, lost by a power cut. With the cache, a write,
 * write-zeroes or discard that completes is cached, not yet on flash
 * (store.c); updates reach the FTL - become durable - when they are
 * written back: oldest first when the cache is full (cache_mib), all of
 * those completed before a REQ_OP_FLUSH when it runs, and at once for a
 * FUA write.
 *
 * A power cut (ftl/power_cut) drops the cache, which is the device's only
 * volatile state: in power_cut_mode "all" every cached update is lost, in
 * "random" each is independently written back or lost (a cache torn by
 * power loss; seeded by fault_seed and the cut's number). It happens
 * under dev->lock, so a request's batches before it are applied and none
 * after it; from then on every request, and every completion, fails with
 * BLK_STS_IOERR, as on a disconnected disk, until power is restored. The
 * cache is emptied in batches after the cut, by the writer of power_cut:
 * nothing else may change it while the power is off.
 *
 * Locking: the cache index, power_off and the counters are protected by
 * dev->lock (readers without it use ftl_cache_peek(), see store.c); every
 * call under it is O(1) amortized, except write-backs, which a hold
 * bounds (FTLBLK_FLUSH_BATCH, FTLBLK_CUT_BATCH, one per stored page).
 * power_mutex serializes the writers of power_cut.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ftlblk.h"

/* Write-backs per hold of dev->lock when flushing: one release each. */
#define FTLBLK_FLUSH_BATCH	(FTLBLK_MAX_RQ_PAGES - 1)
/* Entries dropped or written back per hold at a power cut. */
#define FTLBLK_CUT_BATCH	32

static const char * const cut_mode_names[] = {
	[FTLBLK_CUT_ALL] = "all",
	[FTLBLK_CUT_RANDOM] = "random",
};

/**
 * ftlblk_cache_flush_needed() - count a flush; does it have work?
 * @dev: device
 *
 * Return: true if cached updates wait: run ftlblk_cache_flush() on the
 * workqueue; false if the flush may complete now.
 */
bool ftlblk_cache_flush_needed(struct ftlblk_dev *dev)
{
	bool work;

	ftlblk_count(dev, FTLBLK_PC_FLUSH_REQUESTS, 1);
	if (!ftlblk_cache_on(dev))
		return false;
	spin_lock(&dev->lock);
	work = dev->cache.entries;
	spin_unlock(&dev->lock);
	return work;
}

/**
 * ftlblk_cache_flush() - make every update cached before now durable
 * @dev: device
 * @rq: the REQ_OP_FLUSH request, charged with the write-backs
 *
 * Runs on ftlblk_wq: reschedules between batches.
 *
 * Return: BLK_STS_OK, or BLK_STS_IOERR if the power is off, a power cut
 * came since the flush was queued, or the FTL refused a write-back (what
 * is not written back stays cached).
 */
blk_status_t ftlblk_cache_flush(struct ftlblk_dev *dev, struct request *rq)
{
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct ftlblk_released rel = { cmd->pages, FTLBLK_MAX_RQ_PAGES };
	unsigned int n;
	bool done;
	u64 mark;
	int err = 0;

	spin_lock(&dev->lock);
	mark = ftl_cache_mark(&dev->cache);
	spin_unlock(&dev->lock);
	do {
		ftlblk_lock(dev, &rel);
		/*
		 * A cut since the flush came may have dropped updates it must
		 * make durable (then the mark has "passed" with nothing
		 * written back): fail it, or fsync reports lost data as safe.
		 */
		if (dev->power_off || dev->cuts_seen != cmd->gen)
			err = -EIO;
		for (n = 0; !err && n < FTLBLK_FLUSH_BATCH &&
		     !ftl_cache_passed(&dev->cache, mark); n++)
			err = ftlblk_writeback_oldest(dev, &cmd->treq);
		done = err || ftl_cache_passed(&dev->cache, mark);
		ftlblk_unlock(dev);
		if (!done)
			cond_resched();
	} while (!done);
	return err ? BLK_STS_IOERR : BLK_STS_OK;
}

/* Random mode: keep (write back) or lose the oldest entry. */
static bool cut_keeps(struct ftlblk_dev *dev, struct rnd_state *rnd)
{
	return dev->cut_mode == FTLBLK_CUT_RANDOM && (prandom_u32_state(rnd) & 1);
}

/*
 * Empty the cache after a cut, in batches. The power is off, so no
 * request changes it meanwhile, and what a batch writes back is never
 * seen by one before power returns.
 */
static void drop_cache(struct ftlblk_dev *dev, struct rnd_state *rnd)
{
	struct page *released[2 * FTLBLK_CUT_BATCH];
	struct ftlblk_released rel = { released, ARRAY_SIZE(released) };
	struct ftl_timing_req treq;
	unsigned int n;
	bool empty;
	u32 v;
	u64 lpn;

	do {
		ftl_timing_req_start(&treq, ktime_get_ns());
		ftlblk_lock(dev, &rel);
		for (n = 0; n < FTLBLK_CUT_BATCH; n++) {
			v = ftl_cache_oldest(&dev->cache, &lpn);
			if (v == FTL_CACHE_NONE)
				break;
			/* A refused write-back (worn out) is a lost one. */
			if (cut_keeps(dev, rnd) &&
			    !ftlblk_writeback_oldest(dev, &treq))
				continue;
			ftl_cache_pop(&dev->cache);
			ftlblk_release_cached(dev, v);
			dev->ctr.pages_lost_at_power_cut++;
		}
		empty = !dev->cache.entries;
		ftlblk_unlock(dev);
		cond_resched();
	} while (!empty);
}

/**
 * ftlblk_set_power() - cut the power, or restore it
 * @dev: device
 * @on: false cuts it (volatile state dropped, every request fails from
 *	now), true restores it (the device serves its durable contents)
 *
 * Process context. Cutting a device that is off, or restoring one that
 * is on, changes nothing.
 */
static void ftlblk_set_power(struct ftlblk_dev *dev, bool on)
{
	struct rnd_state rnd;
	bool cut;

	mutex_lock(&dev->power_mutex);
	spin_lock(&dev->lock);
	cut = !on && !dev->power_off;
	if (cut) {
		dev->ctr.power_cuts++;
		/* Each cut of a device tears its cache differently, reproducibly. */
		prandom_seed_state(&rnd, ((u64)dev->cuts_seen << 32) |
				   dev->cfg.val[FTLBLK_FAULT_SEED]);
		WRITE_ONCE(dev->cuts_seen, dev->cuts_seen + 1);
	}
	WRITE_ONCE(dev->power_off, !on);
	spin_unlock(&dev->lock);
	if (cut) {
		/* Nothing waits for flash work the cut abandoned. */
		ftlblk_timing_end_pending(dev, true);
		if (ftlblk_cache_on(dev))
			drop_cache(dev, &rnd);
	}
	mutex_unlock(&dev->power_mutex);
}

/**
 * ftlblk_power_store() - parse a write to power_cut and act on it
 * @dev: device
 * @who: names the device in the error message
 * @buf: "1" (cut) or "0" (restore)
 *
 * Return: 0, or -EINVAL after one pr_err() line.
 */
int ftlblk_power_store(struct ftlblk_dev *dev, const char *who,
		       const char *buf)
{
	bool cut;

	if (kstrtobool(buf, &cut)) {
		pr_err("%s: invalid power_cut '%.*s': allowed 1 (cut the power) or 0 (restore it)\n",
		       who, (int)strcspn(buf, "\n"), buf);
		return -EINVAL;
	}
	ftlblk_set_power(dev, !cut);
	return 0;
}

/**
 * ftlblk_cut_mode_parse() - "all" or "random" to enum ftlblk_cut_mode
 * @who: names the device in the error message
 * @buf: the written value (a trailing newline is allowed)
 *
 * Return: the mode, or -EINVAL after one pr_err() line.
 */
int ftlblk_cut_mode_parse(const char *who, const char *buf)
{
	int mode = sysfs_match_string(cut_mode_names, buf);

	if (mode < 0)
		pr_err("%s: invalid power_cut_mode '%.*s': allowed all or random\n",
		       who, (int)strcspn(buf, "\n"), buf);
	return mode < 0 ? -EINVAL : mode;
}

/**
 * ftlblk_cut_mode_name() - the name of a power cut mode
 * @mode: enum ftlblk_cut_mode
 *
 * Return: "all" or "random".
 */
const char *ftlblk_cut_mode_name(unsigned int mode)
{
	return cut_mode_names[mode == FTLBLK_CUT_RANDOM];
}

/**
 * ftlblk_cache_init() - the cache of a new device, with write_cache=1
 * @dev: device whose FTL exists
 *
 * Return: 0 or -ENOMEM.
 */
int ftlblk_cache_init(struct ftlblk_dev *dev)
{
	struct ftl_geometry geo;
	u64 pages;
	int err;

	mutex_init(&dev->power_mutex);
	if (!dev->cfg.val[FTLBLK_WRITE_CACHE])
		return 0;
	ftl_get_geometry(dev->ftl, &geo);
	pages = ((u64)dev->cfg.val[FTLBLK_CACHE_MIB] << 20) >>
		dev->page_shift;
	err = ftl_cache_init(&dev->cache, geo.logical_pages, pages);
	dev->cache_on = !err;
	return err;
}

/**
 * ftlblk_cache_exit() - free the cache and the data it holds
 * @dev: device that takes no more requests
 */
void ftlblk_cache_exit(struct ftlblk_dev *dev)
{
	u64 lpn;

	if (!ftlblk_cache_on(dev))
		return;
	for (lpn = 0; lpn < dev->cache.nr_lpns; lpn++) {
		ftlblk_release_cached(dev, ftl_cache_remove(&dev->cache, lpn));
		if (!(lpn % 4096))
			cond_resched();
	}
	ftl_cache_free(&dev->cache);
	dev->cache_on = false;
}
