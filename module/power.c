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
 * power loss; seeded by fault_seed and the cut's number), an atomic
 * write's pages together. Each shard has
 * its own cache (cache_mib divided among them). A cut sets power_off,
 * then takes each shard's lock once: a lock hold that found the power on
 * is applied, and from then on no change is (each checks power_off under
 * its shard's lock); every request, and every completion, fails with
 * BLK_STS_IOERR, as on a disconnected disk, until power is restored. The
 * caches are emptied in batches after the cut, by the writer of
 * power_cut: nothing else may change them while the power is off. A cut
 * that dropped cached updates fails the first flush sent after it, once
 * (ftlblk_flush_status()): a flush vouches for the writes completed before
 * it, and some of those are gone.
 *
 * Locking: a shard's cache index and counters are protected by its lock
 * (readers without it use ftl_cache_peek(), see store.c); every call
 * under it is O(1) amortized and steps past at most FTL_CACHE_SKIP_MAX
 * stale ring slots, and write-backs are bounded per hold
 * (FTLBLK_FLUSH_BATCH, FTLBLK_CUT_BATCH pages or calls, and with atomic
 * units one unit more).
 * power_mutex serializes the writers of power_cut and protects
 * power_off, cuts_seen and power_cuts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ftlblk.h"

/*
 * Pages written back per hold of a shard's lock when flushing: with one
 * release each (the last write-back may be an atomic unit) they fit the
 * request's array; more (a GC erase with remanence=1) are deferred one by
 * one (ftlblk_release_page()).
 */
#define FTLBLK_FLUSH_BATCH	(FTLBLK_MAX_RQ_PAGES - FTLBLK_ATOMIC_MAX_PAGES)
/* Pages dropped or written back per hold at a power cut (the same). */
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
	bool work = false;
	unsigned int i;

	ftlblk_count(dev, FTLBLK_PC_FLUSH_REQUESTS, 1);
	if (!ftlblk_cache_on(dev))
		return false;
	for (i = 0; i < dev->dealing.nr && !work; i++) {
		struct ftlblk_shard *sh = &dev->shards[i];

		spin_lock(&sh->lock);
		work = sh->cache.entries;
		spin_unlock(&sh->lock);
	}
	return work;
}

/* Write back what @sh cached before now; -EIO if a cut came meanwhile. */
static int flush_shard(struct ftlblk_shard *sh, struct ftlblk_cmd *cmd)
{
	struct ftlblk_released rel = { cmd->pages, FTLBLK_MAX_RQ_PAGES };
	struct ftlblk_dev *dev = sh->dev;
	unsigned int n;
	bool done;
	u64 mark;
	int err = 0, w;

	spin_lock(&sh->lock);
	mark = ftl_cache_mark(&sh->cache);
	spin_unlock(&sh->lock);
	do {
		ftlblk_lock(sh, &rel);
		/*
		 * A cut since the flush came may have dropped updates it must
		 * make durable (then the mark has "passed" with nothing
		 * written back): fail it, or fsync reports lost data as safe.
		 */
		if (READ_ONCE(dev->power_off) ||
		    READ_ONCE(dev->cuts_seen) != cmd->gen)
			err = -EIO;
		for (n = 0; !err && n < FTLBLK_FLUSH_BATCH &&
		     !ftl_cache_passed(&sh->cache, mark); n += max(w, 1)) {
			w = ftlblk_writeback_oldest(sh, &cmd->treq);
			err = min(w, 0);
		}
		done = err || ftl_cache_passed(&sh->cache, mark);
		ftlblk_unlock(sh);
		if (!done)
			cond_resched();
	} while (!done);
	return err;
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
	unsigned int i;
	int err = 0;

	/*
	 * A shard's mark, taken when the flush reaches it, covers every
	 * update it cached before the flush came (and perhaps some since).
	 */
	for (i = 0; i < dev->dealing.nr && !err; i++)
		err = flush_shard(&dev->shards[i], cmd);
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
 * Return: the cached updates lost.
 */
static u64 drop_cache(struct ftlblk_shard *sh, struct rnd_state *rnd)
{
	struct page *released[FTLBLK_CUT_BATCH + FTLBLK_ATOMIC_MAX_PAGES];
	struct ftlblk_released rel = { released, ARRAY_SIZE(released) };
	struct ftl_timing_req treq;
	unsigned int n, got;
	bool empty;
	u64 lost = 0;

	do {
		ftl_timing_req_start(&treq, ktime_get_ns());
		ftlblk_lock(sh, &rel);
		for (n = 0, got = 1; got && n < FTLBLK_CUT_BATCH; n += got)
			got = ftlblk_cut_oldest(sh, cut_keeps(sh->dev, rnd),
						&treq, &lost);
		empty = !sh->cache.entries;
		ftlblk_unlock(sh);
		cond_resched();
	} while (!empty);
	return lost;
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
	unsigned int i;
	u64 lost = 0;
	bool cut;

	mutex_lock(&dev->power_mutex);
	cut = !on && !dev->power_off;
	if (cut) {
		WRITE_ONCE(dev->power_cuts, dev->power_cuts + 1);
		/* Each cut of a device tears its cache differently, reproducibly. */
		prandom_seed_state(&rnd, ((u64)dev->cuts_seen << 32) |
				   dev->cfg.val[FTLBLK_FAULT_SEED]);
		WRITE_ONCE(dev->cuts_seen, dev->cuts_seen + 1);
	}
	/* Pairs with queue_rq's smp_rmb(): the cycle before power_off. */
	smp_wmb();
	WRITE_ONCE(dev->power_off, !on);
	/*
	 * Wait for the lock holds that found the power on: after this, no
	 * change is applied until power returns.
	 */
	for (i = 0; i < dev->dealing.nr; i++) {
		spin_lock(&dev->shards[i].lock);
		spin_unlock(&dev->shards[i].lock);
	}
	if (cut) {
		/* Nothing waits for flash work the cut abandoned. */
		ftlblk_timing_end_pending(dev, true);
		for (i = 0; ftlblk_cache_on(dev) && i < dev->dealing.nr; i++)
			lost += drop_cache(&dev->shards[i], &rnd);
		/*
		 * Some of them were acknowledged (an update of a write still in
		 * flight fails that write too): the next flush must say so
		 * (ftlblk_flush_status()). Written before the power returns.
		 */
		if (lost)
			WRITE_ONCE(dev->lost_cycle, dev->cuts_seen);
	}
	mutex_unlock(&dev->power_mutex);
}

/**
 * ftlblk_parse_switch() - "0" or "1", as power and power_cut take them
 * @text: the written text (a trailing newline is allowed)
 * @on: receives true for 1
 *
 * Stricter than kstrtobool(), which looks at the first character only and
 * so would take "1junk", "yes" or "0x1" (as 0).
 *
 * Return: 0, or -EINVAL for anything else (the caller reports it).
 */
int ftlblk_parse_switch(const char *text, bool *on)
{
	unsigned int value;

	if (kstrtouint(text, 10, &value) || value > 1)
		return -EINVAL;
	*on = value;
	return 0;
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

	if (ftlblk_parse_switch(buf, &cut)) {
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
	unsigned int i;
	u64 pages;
	int err = 0;

	mutex_init(&dev->power_mutex);
	if (!dev->cfg.val[FTLBLK_WRITE_CACHE])
		return 0;
	/* cache_mib divided among the shards (0 keeps the default). */
	pages = DIV_ROUND_UP(((u64)dev->cfg.val[FTLBLK_CACHE_MIB] << 20) >>
			     dev->page_shift, dev->dealing.nr);
	for (i = 0; i < dev->dealing.nr && !err; i++) {
		ftl_get_geometry(dev->shards[i].ftl, &geo);
		err = ftl_cache_init(&dev->shards[i].cache, geo.logical_pages,
				     pages);
	}
	/* The caches made so far are freed by ftlblk_cache_exit(). */
	dev->cache_on = true;
	if (err)
		ftlblk_cache_exit(dev);
	return err;
}

/*
 * Free a shard's cache (if made) and the data it holds, of a device no
 * reader can reach: the pages go back at once (no grace period), a batch
 * at a time.
 */
static void shard_cache_exit(struct ftlblk_shard *sh)
{
	struct page *batch[64], *page;
	unsigned int n = 0;
	u64 lpn;

	if (!sh->cache.slot)
		return;
	for (lpn = 0; lpn < sh->cache.nr_lpns; lpn++) {
		page = ftlblk_cache_entry_page(ftl_cache_remove(&sh->cache, lpn));
		if (page)
			batch[n++] = page;
		if (n == ARRAY_SIZE(batch) || !(lpn % 4096)) {
			ftlblk_pages_put(sh->dev, batch, n);
			n = 0;
			cond_resched();
		}
	}
	ftlblk_pages_put(sh->dev, batch, n);
	ftl_cache_free(&sh->cache);
}

/**
 * ftlblk_cache_exit() - free the cache and the data it holds
 * @dev: device that takes no more requests and no reader can reach
 *	(after del_gendisk()), or that never took one
 */
void ftlblk_cache_exit(struct ftlblk_dev *dev)
{
	unsigned int i;

	if (!ftlblk_cache_on(dev))
		return;
	for (i = 0; i < dev->dealing.nr; i++)
		shard_cache_exit(&dev->shards[i]);
	dev->cache_on = false;
}
