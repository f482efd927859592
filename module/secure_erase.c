// SPDX-License-Identifier: GPL-2.0
/*
 * Secure erase (REQ_OP_SECURE_ERASE: BLKSECDISCARD, blkdiscard -s), with
 * secure_erase=1.
 *
 * Contract: afterwards the range reads zeroes and no physical page holds
 * data ever written to it - its current copies and every stale one an
 * overwrite, discard, write-zeroes or relocation left, whatever remanence
 * says (with remanence=0 the device dropped the stale data, but the pages
 * still count as programmed until their erase). Only an erase removes data
 * from flash, so every erase block holding such a page has its other valid
 * pages relocated and is erased (ftl_secure_erase_blocks()). A block that
 * cannot be erased (retired, or its erase fails now) keeps its data: the
 * pages are counted in secure_erase_pages_left and shown in the flash map,
 * and the request still succeeds, as the command's effect on every other
 * block is done and durable (a drive reports such blocks in its sanitize
 * log, not by failing the command).
 *
 * The sectors of a partly covered first or last page are zeroed (the page
 * read-modify-written), and that page's old copies erased as well: they
 * held data of the range. Cached updates of the range are made durable or
 * replaced first: with the write cache, the whole cache is written back
 * after the range is zeroed, so the range's unmapping is on flash before a
 * block is erased, and a power cut after completion cannot undo it.
 *
 * One request, one pass: the blocks are scanned once per shard, by
 * windows of FTLBLK_SE_WINDOW blocks per lock hold (O(window * pages per
 * block) plus its relocations and erases), rescheduling between windows.
 * Runs on ftlblk_wq.
 */
#include <linux/blk-mq.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "ftlblk.h"

/* Blocks scanned per hold of a shard's lock. */
#define FTLBLK_SE_WINDOW	8

/* A shard's part of the range: its logical pages [lo, hi]. */
struct se_part {
	u64 lo;
	u64 hi;
	bool any;
};

/*
 * The device's logical pages [@first, @last] fall into each shard as one
 * run of consecutive logical pages (the dealing hands out whole stripes
 * in turn): find each shard's ends.
 */
static void split_by_shard(struct ftlblk_dev *dev, u64 first, u64 last,
			   struct se_part *parts)
{
	u64 lpn = first;

	while (lpn <= last) {
		u64 n = min(ftl_shard_run(&dev->dealing, lpn), last - lpn + 1);
		struct se_part *p;
		u64 local;

		p = &parts[ftl_shard_of(&dev->dealing, lpn, &local)];
		if (!p->any)
			p->lo = local;
		p->any = true;
		p->hi = local + n - 1;
		lpn += n;
	}
}

/* Erase every block of @sh holding a copy of its pages [lo, hi]. */
static int erase_shard_copies(struct ftlblk_shard *sh, struct ftlblk_cmd *cmd,
			      const struct se_part *p)
{
	struct ftlblk_released rel = { cmd->pages, FTLBLK_MAX_RQ_PAGES };
	struct ftl_sanitize res = { 0 };
	u32 nr_blocks = sh->physical_pages / sh->dev->dealing.stripe, b;
	int err = 0;

	for (b = 0; b < nr_blocks && !err; b += FTLBLK_SE_WINDOW) {
		ftlblk_lock(sh, &rel);
		if (READ_ONCE(sh->dev->power_off) ||
		    READ_ONCE(sh->dev->cuts_seen) != cmd->gen) {
			err = -EIO;
		} else {
			sh->treq = &cmd->treq;
			err = ftl_secure_erase_blocks(sh->ftl, p->lo,
						      p->hi - p->lo + 1, b,
						      FTLBLK_SE_WINDOW, &res);
			sh->treq = NULL;
			ftlblk_wearout_check(sh);
		}
		ftlblk_unlock(sh);
		cond_resched();
	}
	return err;
}

/**
 * ftlblk_secure_erase() - serve a secure erase request, on ftlblk_wq
 * @dev: device with secure_erase=1
 * @rq: REQ_OP_SECURE_ERASE: one contiguous range
 *
 * Return: BLK_STS_OK; BLK_STS_RESOURCE or BLK_STS_NOSPC if a partial page
 * found no memory (nothing erased yet); BLK_STS_IOERR if the power is or
 * was cut meanwhile, or the FTL failed (read-only).
 */
blk_status_t ftlblk_secure_erase(struct ftlblk_dev *dev, struct request *rq)
{
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	u64 sector = blk_rq_pos(rq), nr = blk_rq_sectors(rq);
	unsigned int spp = dev->sectors_per_page, i;
	struct se_part *parts;
	blk_status_t sts;
	int err = 0;

	ftlblk_count(dev, FTLBLK_PC_SECURE_ERASE_REQUESTS, 1);
	if (!nr)
		return BLK_STS_OK;
	/* Zeroes over the range: whole pages unmapped, partial ones zeroed. */
	sts = ftlblk_zero_sectors(dev, rq, sector, nr);
	if (sts)
		return sts;
	if (ftlblk_cache_on(dev)) {
		sts = ftlblk_cache_flush(dev, rq);
		if (sts)
			return sts;
	}
	parts = kcalloc(dev->dealing.nr, sizeof(*parts), GFP_NOIO);
	if (!parts)
		return BLK_STS_RESOURCE;
	split_by_shard(dev, div_u64(sector, spp),
		       div_u64(sector + nr - 1, spp), parts);
	for (i = 0; i < dev->dealing.nr && !err; i++)
		if (parts[i].any)
			err = erase_shard_copies(&dev->shards[i], cmd,
						 &parts[i]);
	kfree(parts);
	return err ? BLK_STS_IOERR : BLK_STS_OK;
}
