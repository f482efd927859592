// SPDX-License-Identifier: GPL-2.0
/*
 * Discard and write-zeroes.
 *
 * Discard contract: logical pages fully covered by a discard are unmapped
 * (memory freed, never copied by GC again); the covered sectors of a
 * partly covered page are zeroed by a read-modify-write of that page (and
 * the page is unmapped if it is then all zeroes). Every discarded sector
 * reads back as zeroes.
 *
 * queue_rq must not sleep, but a discard of the whole device or a
 * write-zeroes of gigabytes is a lot of work, and partial pages need
 * memory. So only quick discards (every range whole flash pages, at most
 * one unmap batch in all: FTLBLK_UNMAP_BATCH pages, half that with the
 * write cache; what fstrim and filesystems send) run in queue_rq; the
 * others, and every write-zeroes, run on ftlblk_wq (worker.c).
 *
 * Every change goes through ftlblk_store_page() and ftlblk_store_unmap()
 * (store.c): into the write cache if it is on, else to the FTL.
 */
#include <linux/blk-mq.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ftlblk.h"
#include "trace.h"

/*
 * Pages unmapped per hold of a shard's lock, so I/O is not stalled for
 * long; the pages they usually release fit in the request's page array
 * (more, from an atomic unit written back whole or a GC erase with
 * remanence=1, are deferred one by one: ftlblk_release_page()).
 */
#define FTLBLK_UNMAP_BATCH	(FTLBLK_MAX_RQ_PAGES - 1)

/*
 * Zero sectors [@first, @first + @count) of logical page @lpn. Unmapped
 * pages already read as zeroes; a page left all zeroes is unmapped rather
 * than programmed, unless @keep_mapped (write-zeroes with REQ_NOUNMAP, or
 * any write-zeroes with discard=0).
 * Runs on ftlblk_wq: it may sleep for memory.
 */
static blk_status_t zero_partial_page(struct ftlblk_dev *dev,
				      struct ftl_timing_req *treq, u64 lpn,
				      unsigned int first, unsigned int count,
				      bool discard, bool keep_mapped)
{
	/* Replacing a cached page may also write back another. */
	struct page *page, *released[2];
	struct ftlblk_released rel = { released, ARRAY_SIZE(released) };
	/* From here on @lpn is the shard's logical page. */
	struct ftlblk_shard *sh = ftlblk_shard(dev, lpn, &lpn);
	bool holds_data, replaces;
	void *buf;
	int err = 0;

	if (discard)
		ftlblk_count(dev, FTLBLK_PC_SECTORS_ZEROED, count);
	spin_lock(&sh->lock);
	holds_data = ftlblk_lpn_has_data(sh, lpn);
	replaces = ftlblk_store_replaces(sh, lpn, false);
	spin_unlock(&sh->lock);
	/* fstrim re-discards free space: most partial pages hold nothing. */
	if (!keep_mapped && !holds_data)
		return BLK_STS_OK;

	/*
	 * A page for a page: at mem_limit_mib this passes where an
	 * overwrite would (ftlblk_pages_get()'s @over). The page may be
	 * discarded before the store below; then the device holds one page
	 * more than the limit until it is overwritten or discarded (as an
	 * overwrite racing a discard, rw.c).
	 */
	err = ftlblk_pages_get(dev, &page, 1, GFP_NOIO, replaces);
	if (err)
		return ftlblk_pages_status(dev, err);
	buf = page_address(page);
	ftlblk_lock(sh, &rel);
	/* The page may have been discarded meanwhile; then it reads zero. */
	if (keep_mapped || ftlblk_lpn_has_data(sh, lpn)) {
		ftlblk_copy_page_locked(sh, lpn, buf, 0, 0);
		memset(buf + (first << SECTOR_SHIFT), 0, count << SECTOR_SHIFT);
		if (keep_mapped || memchr_inv(buf, 0, ftlblk_page_bytes(dev))) {
			err = ftlblk_store_page(sh, lpn, 0, page, treq, false);
			page = err ? page : NULL;
		} else {
			err = ftlblk_store_unmap(sh, lpn, 1, false, treq);
		}
	}
	ftlblk_unlock(sh);
	if (page)
		ftlblk_pages_put(dev, &page, 1);
	return err ? BLK_STS_IOERR : BLK_STS_OK;
}

/* Would programming zeroes for @lpn give its current page back? */
static bool zeroes_replace(struct ftlblk_shard *sh, u64 lpn)
{
	bool replaces;

	spin_lock(&sh->lock);
	replaces = ftlblk_store_replaces(sh, lpn, false);
	spin_unlock(&sh->lock);
	return replaces;
}

/*
 * Write-zeroes with REQ_NOUNMAP: the pages must stay allocated. At
 * mem_limit_mib zeroes over held data fit, as an overwrite does: the
 * allowance is every page this request replaced so far, whose old copies
 * may still wait in limbo for their grace period (a page-sized allowance
 * would wait for one grace period per page).
 */
static blk_status_t write_zero_pages(struct ftlblk_dev *dev,
				     struct ftl_timing_req *treq, u64 lpn,
				     u64 count)
{
	unsigned int replaced = 0;

	for (; count; lpn++, count--) {
		struct page *page, *released[2];
		struct ftlblk_released rel = { released, ARRAY_SIZE(released) };
		struct ftlblk_shard *sh;
		bool replaces = false;
		u64 local;
		int err;

		sh = ftlblk_shard(dev, lpn, &local);
		if (dev->mem_limit_pages)
			replaces = zeroes_replace(sh, local);
		err = ftlblk_pages_get(dev, &page, 1, GFP_NOIO,
				       replaced + replaces);
		if (err)
			return ftlblk_pages_status(dev, err);
		if (replaces && replaced < UINT_MAX - 1)
			replaced++;
		memset(page_address(page), 0, ftlblk_page_bytes(dev));
		ftlblk_lock(sh, &rel);
		err = ftlblk_store_page(sh, local, 0, page, treq, false);
		ftlblk_unlock(sh);
		if (err) {
			ftlblk_pages_put(dev, &page, 1);
			return BLK_STS_IOERR;
		}
		cond_resched();
	}
	return BLK_STS_OK;
}

/* Pages unmapped per hold: with the cache each may release two pages. */
static u64 unmap_batch(struct ftlblk_dev *dev)
{
	return ftlblk_cache_on(dev) ? FTLBLK_UNMAP_BATCH / 2 :
	       FTLBLK_UNMAP_BATCH;
}

/*
 * One lock hold per batch, or per piece of the range in one shard.
 * Reschedules only after a whole batch's worth of pages, so a range of at
 * most one batch (a quick discard, run from queue_rq) never sleeps, in
 * however many shards it lies. The request's page array holds what one
 * hold releases.
 */
static blk_status_t unmap_pages(struct ftlblk_dev *dev, struct ftlblk_cmd *cmd,
				u64 lpn, u64 count, bool discard)
{
	struct ftlblk_released rel = { cmd->pages, FTLBLK_UNMAP_BATCH };
	u64 batch = unmap_batch(dev), since_resched = 0;

	while (count) {
		u64 n = min3(count, batch, ftl_shard_run(&dev->dealing, lpn));
		struct ftlblk_shard *sh;
		u64 local;
		int err;

		sh = ftlblk_shard(dev, lpn, &local);
		ftlblk_lock(sh, &rel);
		/* Page counts add up over holds; ctr counts requests. */
		err = ftlblk_store_unmap(sh, local, n, discard, &cmd->treq);
		ftlblk_unlock(sh);
		if (err)
			return BLK_STS_IOERR;
		lpn += n;
		count -= n;
		since_resched += n;
		if (count && since_resched >= batch) {
			since_resched = 0;
			cond_resched();
		}
	}
	return BLK_STS_OK;
}

/* What zero_range() does of a range: its whole pages, its partial ones. */
#define ZERO_WHOLE	BIT(0)
#define ZERO_PARTIAL	BIT(1)
#define ZERO_ALL	(ZERO_WHOLE | ZERO_PARTIAL)

/*
 * Zero a sector range, or the @parts of it: whole flash pages are unmapped
 * (or, for write-zeroes with @nounmap, programmed with zeroes), the partly
 * covered first and last pages are read-modify-written. The whole pages
 * come first: unmapping them needs no memory and frees some, which the
 * partial pages then need (when memory or mem_limit_mib is short, the
 * other order would fail, and fail again on every retry, before freeing
 * anything).
 */
static blk_status_t zero_range(struct ftlblk_dev *dev, struct ftlblk_cmd *cmd,
			       sector_t sector, u64 nr_sects, bool discard,
			       bool nounmap, unsigned int parts)
{
	unsigned int spp = dev->sectors_per_page;
	u64 end = sector + nr_sects, lpn, last, first_whole, last_whole;
	unsigned int head, tail;
	blk_status_t sts = BLK_STS_OK;

	if (!nr_sects)
		return BLK_STS_OK;
	if (end > get_capacity(dev->disk) || end < sector)
		return BLK_STS_IOERR;
	lpn = div_u64_rem(sector, spp, &head);
	last = div_u64_rem(end - 1, spp, &tail);
	tail++;		/* sectors of the last page covered */

	if (lpn == last && (head || tail != spp))
		return parts & ZERO_PARTIAL ?
		       zero_partial_page(dev, &cmd->treq, lpn, head,
					 tail - head, discard, nounmap) :
		       BLK_STS_OK;
	first_whole = head ? lpn + 1 : lpn;
	last_whole = tail != spp ? last - 1 : last;
	if ((parts & ZERO_WHOLE) && first_whole <= last_whole)
		sts = nounmap ? write_zero_pages(dev, &cmd->treq, first_whole,
						 last_whole - first_whole + 1) :
		      unmap_pages(dev, cmd, first_whole,
				  last_whole - first_whole + 1, discard);
	if (!(parts & ZERO_PARTIAL))
		return sts;
	if (!sts && head)
		sts = zero_partial_page(dev, &cmd->treq, lpn, head, spp - head,
					discard, nounmap);
	if (!sts && tail != spp)
		sts = zero_partial_page(dev, &cmd->treq, last, 0, tail, discard,
					nounmap);
	return sts;
}

/* The pass that does the whole pages (or all) counts and traces the range. */
static blk_status_t discard_range(struct ftlblk_dev *dev,
				  struct ftlblk_cmd *cmd, sector_t sector,
				  u64 nr_sects, unsigned int parts)
{
	if (parts & ZERO_WHOLE) {
		trace_ftlblk_discard(dev->disk, sector, nr_sects);
		ftlblk_count(dev, FTLBLK_PC_DISCARD_RANGES, 1);
		ftlblk_count(dev, FTLBLK_PC_DISCARD_SECTORS, nr_sects);
	}
	return zero_range(dev, cmd, sector, nr_sects, true, false, parts);
}

/*
 * With one discard segment a request is one contiguous range, however
 * many bios were merged into it. With several, the block layer merges
 * discontiguous bios and each bio is one range (as virtio-blk and NVMe
 * send them to the device).
 */
/**
 * ftlblk_discard() - serve a discard request
 * @dev: device
 * @rq: REQ_OP_DISCARD; in queue_rq only if ftlblk_discard_is_quick()
 *
 * Return: BLK_STS_OK, BLK_STS_RESOURCE or BLK_STS_NOSPC (no memory for a
 * partial page: nothing of it changed), or BLK_STS_IOERR.
 */
blk_status_t ftlblk_discard(struct ftlblk_dev *dev, struct request *rq)
{
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	blk_status_t sts = BLK_STS_OK;
	struct bio *bio;

	ftlblk_count(dev, FTLBLK_PC_DISCARD_REQUESTS, 1);
	if (queue_max_discard_segments(rq->q) == 1)
		return discard_range(dev, cmd, blk_rq_pos(rq),
				     blk_rq_sectors(rq), ZERO_ALL);
	/*
	 * The whole pages of every range first, as in zero_range(): the
	 * block layer sends the partial first page of an unaligned discard
	 * as a range of its own (bio_discard_limit()), merged into the same
	 * request.
	 */
	__rq_for_each_bio(bio, rq) {
		sts = discard_range(dev, cmd, bio->bi_iter.bi_sector,
				    bio_sectors(bio), ZERO_WHOLE);
		if (sts)
			return sts;
	}
	__rq_for_each_bio(bio, rq) {
		sts = discard_range(dev, cmd, bio->bi_iter.bi_sector,
				    bio_sectors(bio), ZERO_PARTIAL);
		if (sts)
			break;
	}
	return sts;
}

/**
 * ftlblk_write_zeroes() - serve a write-zeroes request, on ftlblk_wq
 * @dev: device
 * @rq: REQ_OP_WRITE_ZEROES
 *
 * With discard=0 the device deallocates nothing, as a drive without
 * deallocate support: write-zeroes programs zeroes as with REQ_NOUNMAP.
 *
 * Return: as ftlblk_discard().
 */
blk_status_t ftlblk_write_zeroes(struct ftlblk_dev *dev, struct request *rq)
{
	bool nounmap = !ftlblk_zeroes_unmap(dev, rq);

	ftlblk_count(dev, FTLBLK_PC_WRITE_ZEROES_REQUESTS, 1);
	return zero_range(dev, blk_mq_rq_to_pdu(rq), blk_rq_pos(rq),
			  blk_rq_sectors(rq), false, nounmap, ZERO_ALL);
}

/**
 * ftlblk_zero_sectors() - make a sector range read zeroes, deallocating
 * @dev: device
 * @rq: the request charged with the work (its page array is used)
 * @sector: first sector
 * @nr_sects: sectors
 *
 * As a write-zeroes without REQ_NOUNMAP, whatever discard says: whole
 * pages unmapped, partial ones read-modify-written. On ftlblk_wq.
 *
 * Return: as ftlblk_discard().
 */
blk_status_t ftlblk_zero_sectors(struct ftlblk_dev *dev, struct request *rq,
				 sector_t sector, u64 nr_sects)
{
	return zero_range(dev, blk_mq_rq_to_pdu(rq), sector, nr_sects, false,
			  false, ZERO_ALL);
}

static bool range_is_whole_pages(struct ftlblk_dev *dev, sector_t sector,
				 u64 nr_sects)
{
	u64 mask = dev->sectors_per_page - 1;

	return !(sector & mask) && !(nr_sects & mask);
}

/**
 * ftlblk_discard_is_quick() - may queue_rq serve this discard itself?
 * @dev: device
 * @rq: REQ_OP_DISCARD
 *
 * Return: true for whole flash pages only, one unmap batch at most: no
 * memory, no sleep.
 */
bool ftlblk_discard_is_quick(struct ftlblk_dev *dev, struct request *rq)
{
	struct bio *bio;
	u64 sectors = 0;

	if (queue_max_discard_segments(rq->q) == 1)
		return range_is_whole_pages(dev, blk_rq_pos(rq),
					    blk_rq_sectors(rq)) &&
		       blk_rq_sectors(rq) <=
		       unmap_batch(dev) * dev->sectors_per_page;
	__rq_for_each_bio(bio, rq) {
		if (!range_is_whole_pages(dev, bio->bi_iter.bi_sector,
					  bio_sectors(bio)))
			return false;
		sectors += bio_sectors(bio);
	}
	return sectors <= unmap_batch(dev) * dev->sectors_per_page;
}
