// SPDX-License-Identifier: GPL-2.0
/*
 * Reads and writes: moving bytes between a request and flash pages.
 *
 * This is the hot path, so it runs in queue_rq without sleeping and takes
 * a shard's lock once per batch of FTLBLK_BATCH_PAGES flash pages, never
 * per page, and never while copying a whole page; a batch never crosses
 * from one shard (struct ftlblk_shard) to another, so writers of
 * different shards run side by side:
 *
 * - A write takes every data page it needs before touching the FTL (from
 *   the pool of recycled pages, else GFP_NOWAIT), so a memory shortage
 *   fails the request before anything is applied; queue_rq hands it to
 *   ftlblk_wq, which may wait for memory, and blk-mq retries it
 *   (BLK_STS_RESOURCE) only if the worker finds none either. The host's
 *   bytes are copied into the new pages outside the lock; under it the FTL
 *   maps them, and for a partly written flash page the bytes around the
 *   written ones are copied in from the current copy (read-modify-write
 *   under one lock hold, so concurrent partial writes to one page cannot
 *   lose each other).
 * - Like NAND, a data page is never modified once programmed: writes go
 *   to a new page and GC only moves the pointer. So a read only needs to
 *   find the page, and it finds and copies it under rcu_read_lock() with
 *   no lock and no reference, as brd does: a page the FTL releases
 *   (overwrite, discard, erase) is reused or freed only after a grace
 *   period (pages.c), so its memory outlives every reader that may have
 *   found it. Only a read that races with a change of its own page looks
 *   up under the lock.
 * - With the write cache a page's latest data may be a cached page
 *   (store.c): readers look there first, and writes store a new page in
 *   its place (or, FUA, program it and drop the cached copy).
 * - An atomic write (REQ_ATOMIC) is one batch: the block layer keeps it
 *   within atomic_write_max_bytes and one boundary (at most
 *   FTLBLK_ATOMIC_MAX_PAGES pages of one shard's stripe), and it is
 *   stored in one lock hold, all of it or none (ftlblk_store_atomic()).
 *   A read racing with it may see part of it: the guarantee is what
 *   stays after a power cut or an error, as Linux's atomic writes state.
 */
#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>

#include "ftlblk.h"

/* Flash pages per hold of a shard's lock: bounds the hold and the stack. */
#define FTLBLK_BATCH_PAGES	16

/* A position in a request's data, which may span several bios. */
struct ftlblk_cursor {
	struct bio *bio;
	struct bvec_iter iter;
};

static void cursor_init(struct ftlblk_cursor *c, struct request *rq)
{
	c->bio = rq->bio;
	c->iter = c->bio->bi_iter;
}

/*
 * Copy @len bytes at the cursor into @buf (@to_rq false) or from @buf into
 * the request (@to_rq true, @buf NULL means zeroes), and advance.
 */
static void cursor_copy(struct ftlblk_cursor *c, void *buf, unsigned int len,
			bool to_rq)
{
	while (len) {
		struct bio_vec bv;
		unsigned int n;
		void *addr;

		while (!c->iter.bi_size) {
			c->bio = c->bio->bi_next;
			c->iter = c->bio->bi_iter;
		}
		bv = bio_iter_iovec(c->bio, c->iter);
		n = min(len, bv.bv_len);
		addr = kmap_local_page(bv.bv_page) + bv.bv_offset;
		if (!to_rq)
			memcpy(buf, addr, n);
		else if (buf)
			memcpy(addr, buf, n);
		else
			memset(addr, 0, n);
		kunmap_local(addr);
		if (to_rq)
			flush_dcache_page(bv.bv_page);
		bio_advance_iter_single(c->bio, &c->iter, n);
		if (buf)
			buf += n;
		len -= n;
	}
}

/* One flash page's share of a request. */
struct ftlblk_chunk {
	u64 lpn;		/* in its shard */
	unsigned int off;	/* first byte of the page the request covers */
	unsigned int len;	/* bytes covered */
	struct page *page;
	u32 ppn;		/* a read's physical page, for timing */
};

/*
 * Split the next up to FTLBLK_BATCH_PAGES flash pages of [*pos, *pos +
 * *left), all in one shard (*@shp), into @chunks and advance.
 * Return: chunks filled.
 */
static unsigned int next_batch(struct ftlblk_dev *dev, u64 *pos,
			       unsigned int *left, struct ftlblk_chunk *chunks,
			       struct ftlblk_shard **shp)
{
	unsigned int page_size = ftlblk_page_bytes(dev), n = 0;
	u64 lpn = *pos >> dev->page_shift, local;
	u64 max = min_t(u64, FTLBLK_BATCH_PAGES,
			ftl_shard_run(&dev->dealing, lpn));

	*shp = ftlblk_shard(dev, lpn, &local);
	while (*left && n < max) {
		struct ftlblk_chunk *ch = &chunks[n];

		ch->lpn = local + n++;
		ch->off = *pos & (page_size - 1);
		ch->len = min(*left, page_size - ch->off);
		ch->page = NULL;
		*pos += ch->len;
		*left -= ch->len;
	}
	return n;
}

/* A host read of one page that the FTL does not count (see find_locked()). */
static void count_read(struct ftlblk_dev *dev, const struct page *page)
{
	ftlblk_count(dev, FTLBLK_PC_HOST_PAGES_READ, 1);
	if (!page)
		ftlblk_count(dev, FTLBLK_PC_UNMAPPED_READS, 1);
}

/*
 * Find the page holding the shard's @lpn's data without its lock, under
 * rcu_read_lock(). data[lpn] only ever holds @lpn's own data, and a page
 * it held stays unmodified until a grace period after it was replaced, so
 * a page found is @lpn's data (current, or replaced since, which a read
 * racing with a write may return) until the caller leaves the read-side
 * section. Counts the read. *@ppnp is the physical page, for timing only.
 *
 * Return: false if @lpn has no page but the map has one: an overwrite
 * between dropping the old page and storing the new (ftlblk_release());
 * the caller looks up under the lock then.
 */
static bool find_unlocked(struct ftlblk_shard *sh, u64 lpn, struct page **pagep,
			  u32 *ppnp)
{
	struct ftlblk_dev *dev = sh->dev;
	u32 frame;

	*ppnp = FTL_UNMAPPED;	/* a cache hit reads no flash */
	if (ftlblk_cache_on(dev) && ftlblk_cached_page_unlocked(sh, lpn, pagep))
		goto count;
	/* Pairs with ftlblk_set_data(): the frame brings its data. */
	frame = smp_load_acquire(&sh->data[lpn]);
	if (frame) {
		*pagep = pfn_to_page(frame - 1);
		if (dev->timing_on)
			*ppnp = ftl_lookup_unlocked(sh->ftl, lpn);
		goto count;
	}
	/* A discard unmaps before it drops the page: unmapped is zeroes. */
	if (ftl_lookup_unlocked(sh->ftl, lpn) != FTL_UNMAPPED)
		return false;
	*pagep = NULL;
count:
	count_read(dev, *pagep);
	return true;
}

/*
 * The slow path of find_unlocked(), still inside its RCU read-side
 * section: a flash read is counted by the FTL (ftl_read()), a cache hit
 * like find_unlocked()'s.
 */
static int find_locked(struct ftlblk_shard *sh, u64 lpn, struct page **pagep,
		       u32 *ppnp)
{
	u32 ppn = FTL_UNMAPPED;
	int err = 0;

	spin_lock(&sh->lock);
	if (ftlblk_cache_on(sh->dev) && ftlblk_cached_page(sh, lpn, pagep)) {
		count_read(sh->dev, *pagep);
	} else {
		err = ftl_read(sh->ftl, lpn, &ppn);
		*pagep = err || ppn == FTL_UNMAPPED ? NULL :
			 ftlblk_data(sh, lpn);
	}
	*ppnp = ppn;
	spin_unlock(&sh->lock);
	return err;
}

/* With timing: the flash reads of the pages that hold data on flash. */
static void time_reads(struct ftlblk_shard *sh, struct ftl_timing_req *treq,
		       const struct ftlblk_chunk *chunks, unsigned int n)
{
	u32 ppns[FTLBLK_BATCH_PAGES];
	unsigned int i, mapped = 0;

	if (!sh->dev->timing_on)
		return;
	for (i = 0; i < n; i++)
		if (chunks[i].page && chunks[i].ppn != FTL_UNMAPPED)
			ppns[mapped++] = ftlblk_device_ppn(sh, chunks[i].ppn);
	ftlblk_timing_reads(sh->dev, treq, ppns, mapped);
}

static blk_status_t read_batch(struct ftlblk_shard *sh, struct ftlblk_cursor *c,
			       struct ftlblk_chunk *chunks, unsigned int n,
			       struct ftl_timing_req *treq)
{
	blk_status_t sts = BLK_STS_OK;
	unsigned long retry = 0;	/* chunks find_unlocked() failed */
	unsigned int i;

	BUILD_BUG_ON(FTLBLK_BATCH_PAGES > BITS_PER_LONG);
	/* Every page found stays ours until the copy is done (pages.c). */
	rcu_read_lock();
	for (i = 0; i < n; i++)
		if (!find_unlocked(sh, chunks[i].lpn, &chunks[i].page,
				   &chunks[i].ppn))
			retry |= BIT(i);
	for (i = 0; i < n && sts == BLK_STS_OK; i++)
		if ((retry & BIT(i)) &&
		    find_locked(sh, chunks[i].lpn, &chunks[i].page,
				&chunks[i].ppn))
			sts = BLK_STS_IOERR;
	if (sts == BLK_STS_OK) {
		time_reads(sh, treq, chunks, n);
		for (i = 0; i < n; i++) {
			struct page *page = chunks[i].page;

			cursor_copy(c, page ? page_address(page) +
				    chunks[i].off : NULL, chunks[i].len, true);
		}
	}
	rcu_read_unlock();
	return sts;
}

static blk_status_t ftlblk_read(struct ftlblk_dev *dev, struct request *rq)
{
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct ftlblk_chunk chunks[FTLBLK_BATCH_PAGES];
	u64 pos = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	unsigned int left = blk_rq_bytes(rq), n;
	struct ftlblk_shard *sh;
	struct ftlblk_cursor c;
	blk_status_t sts = BLK_STS_OK;

	cursor_init(&c, rq);
	while (left && sts == BLK_STS_OK) {
		n = next_batch(dev, &pos, &left, chunks, &sh);
		sts = read_batch(sh, &c, chunks, n, &cmd->treq);
	}
	return sts;
}

/* The request's bytes of @n chunks into their new pages @pages, in order. */
static void copy_in(struct ftlblk_cursor *c, struct ftlblk_chunk *chunks,
		    unsigned int n, struct page **pages)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		chunks[i].page = pages[i];
		cursor_copy(c, page_address(pages[i]) + chunks[i].off,
			    chunks[i].len, false);
	}
}

/*
 * Under the shard's lock: a chunk that covers part of its page gets the
 * rest of the page from the current copy (read-modify-write).
 */
static void fill_around_locked(struct ftlblk_shard *sh,
			       const struct ftlblk_chunk *ch)
{
	if (ch->len != ftlblk_page_bytes(sh->dev))
		ftlblk_copy_page_locked(sh, ch->lpn, page_address(ch->page),
					ch->off, ch->len);
}

/* Program @n chunks with the new pages @pages (the request's, in order). */
static blk_status_t write_batch(struct ftlblk_shard *sh,
				struct ftlblk_cursor *c,
				struct ftlblk_chunk *chunks, unsigned int n,
				struct page **pages, struct ftl_timing_req *treq,
				u8 cls, bool fua)
{
	/*
	 * Room for the usual releases: the page each one replaces and, with
	 * the cache, the flash page a write-back replaces (or, FUA, the
	 * cached copy). More (an atomic unit written back whole, a GC erase
	 * with remanence=1) are deferred one by one (ftlblk_release_page()).
	 */
	struct page *released[2 * FTLBLK_BATCH_PAGES];
	struct ftlblk_released rel = { released, ARRAY_SIZE(released) };
	unsigned int i;
	int err = 0;

	copy_in(c, chunks, n, pages);
	ftlblk_lock(sh, &rel);
	for (i = 0; i < n && !err; i++) {
		struct ftlblk_chunk *ch = &chunks[i];

		fill_around_locked(sh, ch);
		err = ftlblk_store_page(sh, ch->lpn, cls, ch->page, treq, fua);
		if (!err)
			ch->page = NULL;
	}
	ftlblk_unlock(sh);
	/*
	 * After an error (a power cut between batches, a worn-out device,
	 * the FTL out of blocks): give back the pages not stored.
	 */
	for (i = 0; i < n; i++)
		if (chunks[i].page)
			ftlblk_pages_put(sh->dev, &chunks[i].page, 1);
	return err ? BLK_STS_IOERR : BLK_STS_OK;
}

/*
 * Store an atomic write's @n chunks, all in one shard, with the new pages
 * @pages in one lock hold: all of them, or (an error) none.
 */
static blk_status_t write_atomic(struct ftlblk_shard *sh,
				 struct ftlblk_cursor *c,
				 struct ftlblk_chunk *chunks, unsigned int n,
				 struct page **pages, struct ftl_timing_req *treq,
				 u8 cls, bool fua)
{
	struct page *released[2 * FTLBLK_BATCH_PAGES];
	struct ftlblk_released rel = { released, ARRAY_SIZE(released) };
	unsigned int i;
	int err;

	copy_in(c, chunks, n, pages);
	ftlblk_lock(sh, &rel);
	for (i = 0; i < n; i++)
		fill_around_locked(sh, &chunks[i]);
	err = ftlblk_store_atomic(sh, chunks[0].lpn, n, cls, pages, treq, fua);
	ftlblk_unlock(sh);
	if (err) {
		ftlblk_pages_put(sh->dev, pages, n);
		return BLK_STS_IOERR;
	}
	ftlblk_count(sh->dev, FTLBLK_PC_ATOMIC_WRITES, 1);
	return BLK_STS_OK;
}

/*
 * Does an atomic write of @nr_pages flash pages from @first fit in one
 * batch? The block layer's limits make it (device.c); a write that does
 * not is refused whole rather than torn.
 */
static bool atomic_fits(struct ftlblk_dev *dev, u64 first,
			unsigned int nr_pages)
{
	return nr_pages <= dev->atomic_pages &&
	       ftl_shard_run(&dev->dealing, first) >= nr_pages;
}

/*
 * Pages of [@first, @first + @n) whose current data a write gives back as
 * it stores the new: at most FTLBLK_MAX_RQ_PAGES lookups under the locks
 * of their shards, only when a write meets mem_limit_mib.
 */
static unsigned int replaced_pages(struct ftlblk_dev *dev, u64 first,
				   unsigned int n, bool fua)
{
	unsigned int replaced = 0;
	u64 end = first + n, run, local, i;

	for (; first < end; first += run) {
		struct ftlblk_shard *sh = ftlblk_shard(dev, first, &local);

		run = min(end - first, ftl_shard_run(&dev->dealing, first));
		spin_lock(&sh->lock);
		for (i = 0; i < run; i++)
			replaced += ftlblk_store_replaces(sh, local + i, fua);
		spin_unlock(&sh->lock);
	}
	return replaced;
}

static blk_status_t ftlblk_write(struct ftlblk_dev *dev, struct request *rq,
				 gfp_t gfp)
{
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct ftlblk_chunk chunks[FTLBLK_BATCH_PAGES];
	u64 pos = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	unsigned int left = blk_rq_bytes(rq), n, used = 0, over;
	u64 first = pos >> dev->page_shift;
	unsigned int nr_pages = ((pos + left - 1) >> dev->page_shift) - first + 1;
	bool atomic = ftlblk_rq_atomic(rq);
	struct ftlblk_shard *sh;
	struct ftlblk_cursor c;
	blk_status_t sts = BLK_STS_OK;
	u8 cls;
	int err;

	BUILD_BUG_ON(FTLBLK_ATOMIC_MAX_PAGES > FTLBLK_BATCH_PAGES);
	if (atomic && !atomic_fits(dev, first, nr_pages))
		return FTLBLK_STS_ATOMIC_TOO_BIG;
	err = ftlblk_pages_get(dev, cmd->pages, nr_pages, gfp, 0);
	/* At mem_limit_mib an overwrite still fits: it gives as much back. */
	if (err == -ENOSPC) {
		over = replaced_pages(dev, first, nr_pages,
				      rq->cmd_flags & REQ_FUA);
		if (over)
			err = ftlblk_pages_get(dev, cmd->pages, nr_pages, gfp,
					       over);
	}
	/*
	 * Nothing applied: at mem_limit_mib it fails, else the caller
	 * retries, on the worker where it may wait for memory.
	 */
	if (err)
		return ftlblk_pages_status(dev, err);
	cursor_init(&c, rq);
	cls = ftlblk_rq_class(dev, rq);
	if (atomic) {
		n = next_batch(dev, &pos, &left, chunks, &sh);
		return write_atomic(sh, &c, chunks, n, cmd->pages, &cmd->treq,
				    cls, rq->cmd_flags & REQ_FUA);
	}
	while (left && sts == BLK_STS_OK) {
		n = next_batch(dev, &pos, &left, chunks, &sh);
		sts = write_batch(sh, &c, chunks, n, cmd->pages + used,
				  &cmd->treq, cls, rq->cmd_flags & REQ_FUA);
		used += n;
	}
	if (used < nr_pages)
		ftlblk_pages_put(dev, cmd->pages + used, nr_pages - used);
	return sts;
}

/**
 * ftlblk_rw() - serve a read or write request
 * @dev: device
 * @rq: the request, at most FTLBLK_MAX_HW_SECTORS long
 * @write: true for REQ_OP_WRITE
 * @gfp: for a write's new data pages: GFP_NOWAIT from queue_rq, which
 *	does not sleep; GFP_NOIO from ftlblk_wq, which may wait for memory
 *
 * Return: BLK_STS_OK; BLK_STS_RESOURCE if a write found no memory (nothing
 * was written: retry); BLK_STS_NOSPC if it would pass mem_limit_mib
 * (nothing was written); BLK_STS_INVAL for an atomic write larger than
 * the device's atomic limits (nothing written); BLK_STS_IOERR if the
 * request lies beyond the capacity, or a write finds the power off, the
 * device worn out or the FTL failing (a broken invariant, no block left).
 * queue_rq fails every request while the power is off, before this.
 */
blk_status_t ftlblk_rw(struct ftlblk_dev *dev, struct request *rq, bool write,
		       gfp_t gfp)
{
	if (!blk_rq_bytes(rq))
		return BLK_STS_OK;
	/* The block layer checks this; a bug there must not corrupt us. */
	if (blk_rq_pos(rq) + blk_rq_sectors(rq) > get_capacity(dev->disk))
		return BLK_STS_IOERR;
	return write ? ftlblk_write(dev, rq, gfp) : ftlblk_read(dev, rq);
}
