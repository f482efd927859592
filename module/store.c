// SPDX-License-Identifier: GPL-2.0
/*
 * The contents of each logical page: where its current copy is (the write
 * cache, else flash) and storing new contents (into the cache, or
 * programmed to flash). Reads, writes, discards, write-backs and power
 * cuts all come through here; this file calls only down (the cache index,
 * the FTL core, pages.c, timing).
 *
 * With the cache (write_cache=1), its index (../ftl/cache.c) holds the
 * latest update of each cached logical page: a data page (the request's
 * new page, moved in without a copy) or a pending deallocation, and reads
 * see it before the FTL. A write-back hands the cached data page to the
 * FTL (a pointer move) or applies the deallocation, so durable state is
 * always exactly what the FTL maps. A page is programmed into the open
 * block of its placement class (placement=hint|stream), and a cached
 * update remembers its class (cached_class) for its write-back.
 *
 * An atomic write (REQ_ATOMIC, at most FTLBLK_ATOMIC_MAX_PAGES pages of
 * one shard) is stored in one lock hold, so a power cut finds all of it
 * or none, and reaches the FTL as one ftl_write_atomic(), which maps all
 * its pages or none. Cached, it stays one unit (cached_unit): whatever
 * would take one of its pages out of the cache alone - an overwrite, a
 * FUA write, a deallocation, the write-back of its oldest page - writes
 * the whole unit back first, and a power cut keeps or drops it whole.
 *
 * Everything here works on one shard (struct ftlblk_shard: an FTL, its
 * data pages and its cache) in the shard's logical page numbers.
 *
 * Locking: everything here runs under the shard's lock, except
 * ftlblk_cached_page_unlocked() (rw.c's lock-free read). Storing a page
 * costs O(1) amortized plus its program, and with the cache the
 * write-backs it causes: the cached atomic unit it falls into (each unit
 * is written back once, so the stores of a batch of k pages settle at
 * most k + 2 x (FTLBLK_ATOMIC_MAX_PAGES - 1) pages) and one for room (a
 * call writes back at most one unit and frees at least one ring slot, but
 * a unit's slots may lie apart in the ring, since its pages cached before
 * keep theirs, so k stores make room with at most k x
 * FTLBLK_ATOMIC_MAX_PAGES programs): for a hold of 16 pages at most about
 * 300 programs, 16 without atomic units.
 */
#include <linux/blk-mq.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>

#include "ftlblk.h"

/* A cached data page's handle: its frame number + 1 (never NONE). */
static u32 page_handle(struct page *page)
{
	return page_to_pfn(page) + 1;
}

static struct page *handle_page(u32 v)
{
	return pfn_to_page(v - 1);
}

/**
 * ftlblk_cache_entry_page() - the data page of a cache entry
 * @v: the cache entry (ftl_cache_*() value)
 *
 * Return: its data page, or NULL for a pending deallocation or no entry.
 */
struct page *ftlblk_cache_entry_page(u32 v)
{
	return ftl_cache_is_handle(v) ? handle_page(v) : NULL;
}

/**
 * ftlblk_release_cached() - the cache replaced or dropped @v: free its data
 * page, if any
 * @sh: shard, its lock held
 * @v: the cache entry (ftl_cache_*() value)
 */
void ftlblk_release_cached(struct ftlblk_shard *sh, u32 v)
{
	if (ftl_cache_is_handle(v))
		ftlblk_release_page(sh, handle_page(v));
}

/**
 * ftlblk_program_page() - program @page, holding @lpn's new data, to flash
 * @sh: shard, its lock held
 * @lpn: logical page
 * @cls: its placement class (ftlblk_rq_class())
 * @page: data page, now owned by the device
 * @treq: the request writing it, charged with the program and the GC it
 *	triggers when timing is on
 *
 * Return: 0 or the ftl_write() error (@page is still the caller's then).
 */
static int ftlblk_program_page(struct ftlblk_shard *sh, u64 lpn, u8 cls,
			       struct page *page, struct ftl_timing_req *treq)
{
	u32 ppn;
	int err;

	lockdep_assert_held(&sh->lock);
	sh->treq = treq;
	err = ftl_write_class(sh->ftl, lpn, cls, &ppn);
	sh->treq = NULL;
	/* The write, or the GC it ran, may have worn the device out. */
	ftlblk_wearout_check(sh);
	if (err)
		return err;
	ftlblk_timing_program(sh->dev, treq, ftlblk_device_ppn(sh, ppn));
	/* ftl_write() released the old copy: a reader meanwhile locks. */
	ftlblk_set_data(sh, lpn, page);
	sh->data_pages++;
	return 0;
}

/*
 * Program @n pages of new data of @lpn.. as one atomic write of class
 * @cls: all mapped, or (error) none, and @pages still the caller's.
 */
static int ftlblk_program_atomic(struct ftlblk_shard *sh, u64 lpn,
				 unsigned int n, u8 cls, struct page **pages,
				 struct ftl_timing_req *treq)
{
	u32 ppns[FTLBLK_ATOMIC_MAX_PAGES];
	unsigned int i;
	int err;

	lockdep_assert_held(&sh->lock);
	if (WARN_ON_ONCE(n > FTLBLK_ATOMIC_MAX_PAGES))
		return -EINVAL;
	sh->treq = treq;
	err = ftl_write_atomic(sh->ftl, lpn, n, cls, ppns);
	sh->treq = NULL;
	ftlblk_wearout_check(sh);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		ftlblk_timing_program(sh->dev, treq,
				      ftlblk_device_ppn(sh, ppns[i]));
		ftlblk_set_data(sh, lpn + i, pages[i]);
	}
	sh->data_pages += n;
	return 0;
}

static int ftl_deallocate(struct ftlblk_shard *sh, u64 lpn, u64 count,
			  bool discard)
{
	s64 ret = discard ? ftl_discard(sh->ftl, lpn, count) :
			    ftl_unmap(sh->ftl, lpn, count);

	return ret < 0 ? ret : 0;
}

/* The placement class @lpn's cached update was written with. */
static u8 cached_class(struct ftlblk_shard *sh, u64 lpn)
{
	return sh->cached_class ? sh->cached_class[lpn] : 0;
}

/*
 * The cached atomic unit @lpn's update belongs to: its first page in
 * *@first. Return: its pages, 0 if @lpn's update is in none.
 */
static unsigned int cached_unit_of(struct ftlblk_shard *sh, u64 lpn,
				   u64 *first)
{
	u8 pos = sh->cached_unit ? sh->cached_unit[lpn] : 0;
	unsigned int n = 0;

	if (!pos)
		return 0;
	*first = lpn - (pos - 1);
	while (n < FTLBLK_ATOMIC_MAX_PAGES && *first + n < sh->cache.nr_lpns &&
	       sh->cached_unit[*first + n] == n + 1)
		n++;
	return n;
}

/* Write the cached unit of @n pages from @first back in one atomic write. */
static int writeback_unit(struct ftlblk_shard *sh, u64 first, unsigned int n,
			  struct ftl_timing_req *treq)
{
	struct page *pages[FTLBLK_ATOMIC_MAX_PAGES];
	unsigned int i;
	int err;

	for (i = 0; i < n; i++)
		pages[i] = handle_page(ftl_cache_peek(&sh->cache, first + i));
	err = ftlblk_program_atomic(sh, first, n, cached_class(sh, first),
				    pages, treq);
	if (err)
		return err;
	/* After the FTL has them: a reader without the lock finds them. */
	for (i = 0; i < n; i++) {
		ftl_cache_remove(&sh->cache, first + i);
		sh->cached_unit[first + i] = 0;
	}
	sh->ctr.cache_writebacks += n;
	return 0;
}

/*
 * @lpn's cached update is about to be replaced or dropped: if it belongs
 * to an atomic unit, write the whole unit back first.
 */
static int settle_unit(struct ftlblk_shard *sh, u64 lpn,
		       struct ftl_timing_req *treq)
{
	u64 first;
	unsigned int n = cached_unit_of(sh, lpn, &first);

	return n ? writeback_unit(sh, first, n, treq) : 0;
}

/**
 * ftlblk_writeback_oldest() - write the oldest cached update back to the
 * FTL: it is durable then
 * @sh: shard, its lock held
 * @treq: the request charged with the flash work
 *
 * An atomic unit is written back whole: up to FTLBLK_ATOMIC_MAX_PAGES.
 *
 * Return: the cached pages written back; 0 if none was, the cache being
 * empty or this call having stepped past FTL_CACHE_SKIP_MAX stale ring
 * slots only (ftl_cache_oldest(): the ring has room for as many entries
 * more); or the FTL's error (nothing written back then).
 */
int ftlblk_writeback_oldest(struct ftlblk_shard *sh, struct ftl_timing_req *treq)
{
	u64 lpn, first;
	u32 v = ftl_cache_oldest(&sh->cache, &lpn);
	unsigned int n;
	int err;

	if (v == FTL_CACHE_NONE)
		return 0;
	n = cached_unit_of(sh, lpn, &first);
	if (n) {
		err = writeback_unit(sh, first, n, treq);
		if (err)
			return err;
		/* Step past the ring slots it left, as a pop would. */
		ftl_cache_oldest(&sh->cache, &lpn);
		return n;
	}
	if (ftl_cache_is_handle(v))
		err = ftlblk_program_page(sh, lpn, cached_class(sh, lpn),
					  handle_page(v), treq);
	else
		err = ftl_deallocate(sh, lpn, 1, v == FTL_CACHE_DISCARD);
	if (err)
		return err;
	/* After the FTL has it: a reader without the lock finds one. */
	ftl_cache_pop(&sh->cache);
	sh->ctr.cache_writebacks++;
	return 1;
}

/**
 * ftlblk_cut_oldest() - a power cut's fate for the oldest cached update
 * @sh: shard, its lock held, the power off
 * @keep: write it back (random mode's coin); a refused write-back (worn
 *	out) loses it
 * @treq: charged with the write-back
 * @lost: increased by the cached pages lost
 *
 * An atomic unit shares one fate: written back whole or lost whole.
 *
 * Return: the cached pages written back or lost; 0 if the cache is empty,
 * or if this call stepped past FTL_CACHE_SKIP_MAX stale ring slots only.
 */
unsigned int ftlblk_cut_oldest(struct ftlblk_shard *sh, bool keep,
			       struct ftl_timing_req *treq, u64 *lost)
{
	u64 lpn, first;
	u32 v = ftl_cache_oldest(&sh->cache, &lpn);
	unsigned int n, i;
	int kept;

	if (v == FTL_CACHE_NONE)
		return 0;
	kept = keep ? ftlblk_writeback_oldest(sh, treq) : -1;
	if (kept > 0)
		return kept;
	n = cached_unit_of(sh, lpn, &first);
	if (!n) {
		ftl_cache_pop(&sh->cache);
		ftlblk_release_cached(sh, v);
		n = 1;
	} else {
		for (i = 0; i < n; i++) {
			ftlblk_release_cached(sh, ftl_cache_remove(&sh->cache,
								   first + i));
			sh->cached_unit[first + i] = 0;
		}
		sh->ctr.atomic_writes_lost_at_power_cut++;
	}
	sh->ctr.pages_lost_at_power_cut += n;
	*lost += n;
	return n;
}

/*
 * Room for @lpn's entry: at most one write-back (the cache is full), or
 * none if the call steps past stale ring slots, which frees ring slots.
 */
static int make_room(struct ftlblk_shard *sh, u64 lpn,
		     struct ftl_timing_req *treq)
{
	if (ftl_cache_peek(&sh->cache, lpn) != FTL_CACHE_NONE ||
	    !ftl_cache_full(&sh->cache))
		return 0;
	return min(ftlblk_writeback_oldest(sh, treq), 0);
}

/* Can the device take an update now? Under sh->lock. */
static int check_writable(struct ftlblk_shard *sh)
{
	if (READ_ONCE(sh->dev->power_off))
		return -EIO;
	/*
	 * A worn-out device refuses writes, cached or not: once one shard
	 * is worn out, so is the device.
	 */
	if (ftl_read_only(sh->ftl) || atomic_read(&sh->dev->read_only_noted))
		return -EROFS;
	return 0;
}

/**
 * ftlblk_store_page() - @page holds @lpn's new data: cache or program it
 * @sh: shard, its lock held
 * @lpn: logical page
 * @cls: its placement class (ftlblk_rq_class()), kept with a cached
 *	update for its write-back
 * @page: data page, the device's if this succeeds
 * @treq: the request, charged with the flash work this causes
 * @fua: durable on return (REQ_FUA), not only cached
 *
 * Without the cache (or with @fua) the page is programmed now.
 *
 * Return: 0; -EIO if the power is off; -EROFS or another ftl_write() error
 * (@page is still the caller's then).
 */
int ftlblk_store_page(struct ftlblk_shard *sh, u64 lpn, u8 cls,
		      struct page *page, struct ftl_timing_req *treq, bool fua)
{
	int err = check_writable(sh);

	if (err)
		return err;
	if (!ftlblk_cache_on(sh->dev))
		return ftlblk_program_page(sh, lpn, cls, page, treq);
	err = settle_unit(sh, lpn, treq);
	if (err)
		return err;
	if (fua) {
		err = ftlblk_program_page(sh, lpn, cls, page, treq);
		if (!err)
			ftlblk_release_cached(sh, ftl_cache_remove(&sh->cache, lpn));
		return err;
	}
	err = make_room(sh, lpn, treq);
	if (err)
		return err;
	if (sh->cached_class)
		sh->cached_class[lpn] = cls;
	ftlblk_release_cached(sh, ftl_cache_store(&sh->cache, lpn,
						  page_handle(page)));
	return 0;
}

/*
 * Room in the cache for @n entries from @lpn: write back the oldest until
 * the ring has a slot for each page not cached yet. Each call of
 * ftlblk_writeback_oldest() frees at least one ring slot, so at most @n
 * calls.
 */
static int make_room_for(struct ftlblk_shard *sh, u64 lpn, unsigned int n,
			 struct ftl_timing_req *treq)
{
	struct ftl_cache *c = &sh->cache;
	unsigned int i, needed;
	int err;

	for (;;) {
		for (i = 0, needed = 0; i < n; i++)
			needed += ftl_cache_peek(c, lpn + i) == FTL_CACHE_NONE;
		if (c->capacity - (c->tail - c->head) >= needed)
			return 0;
		err = ftlblk_writeback_oldest(sh, treq);
		if (err < 0)
			return err;
	}
}

/**
 * ftlblk_store_atomic() - an atomic write's new data: cache or program it,
 * all of it or none
 * @sh: shard, its lock held
 * @lpn: first logical page
 * @n: pages, at most FTLBLK_ATOMIC_MAX_PAGES and the cache's capacity
 * @cls: their placement class
 * @pages: the data pages, in order; the device's if this succeeds
 * @treq: the request, charged with the flash work this causes
 * @fua: durable on return
 *
 * Cached, the pages form one unit (cached_unit); cached atomic units they
 * overlap are written back first, whole.
 *
 * Return: 0; or as ftlblk_store_page(), with none of @pages stored (some
 * older cached updates may have been written back).
 */
int ftlblk_store_atomic(struct ftlblk_shard *sh, u64 lpn, unsigned int n,
			u8 cls, struct page **pages,
			struct ftl_timing_req *treq, bool fua)
{
	int err = check_writable(sh);
	unsigned int i;

	if (err)
		return err;
	if (!ftlblk_cache_on(sh->dev))
		return ftlblk_program_atomic(sh, lpn, n, cls, pages, treq);
	for (i = 0; i < n && !err; i++)
		err = settle_unit(sh, lpn + i, treq);
	if (err)
		return err;
	if (fua) {
		err = ftlblk_program_atomic(sh, lpn, n, cls, pages, treq);
		for (i = 0; i < n && !err; i++)
			ftlblk_release_cached(sh, ftl_cache_remove(&sh->cache,
								   lpn + i));
		return err;
	}
	err = make_room_for(sh, lpn, n, treq);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (sh->cached_class)
			sh->cached_class[lpn + i] = cls;
		sh->cached_unit[lpn + i] = i + 1;
		ftlblk_release_cached(sh, ftl_cache_store(&sh->cache, lpn + i,
							  page_handle(pages[i])));
	}
	return 0;
}

/**
 * ftlblk_store_unmap() - deallocate whole logical pages, in the cache or
 * the FTL
 * @sh: shard, its lock held
 * @lpn: first logical page
 * @count: pages; with the cache, at most half the caller's release array
 *	(each page may release a cached page and, by a write-back, a flash
 *	page)
 * @discard: a discard (counted as one by the FTL), else write-zeroes
 * @treq: the request, charged with the write-backs this causes
 *
 * A page that holds nothing, in the cache or on flash, needs no entry.
 *
 * Return: 0, -EIO if the power is off, or the FTL's error.
 */
int ftlblk_store_unmap(struct ftlblk_shard *sh, u64 lpn, u64 count,
		       bool discard, struct ftl_timing_req *treq)
{
	u32 mark = discard ? FTL_CACHE_DISCARD : FTL_CACHE_UNMAP;
	int err = check_writable(sh);

	if (err)
		return err;
	if (!ftlblk_cache_on(sh->dev))
		return ftl_deallocate(sh, lpn, count, discard);
	for (; count; lpn++, count--) {
		if (ftl_cache_peek(&sh->cache, lpn) == FTL_CACHE_NONE &&
		    ftl_lookup(sh->ftl, lpn) == FTL_UNMAPPED)
			continue;
		err = settle_unit(sh, lpn, treq);
		if (!err)
			err = make_room(sh, lpn, treq);
		if (err)
			return err;
		ftlblk_release_cached(sh, ftl_cache_store(&sh->cache, lpn, mark));
	}
	return 0;
}

/**
 * ftlblk_store_replaces() - would storing @lpn's new data give a page back?
 * @sh: shard, its lock held
 * @lpn: logical page
 * @fua: the store is FUA (programmed at once)
 *
 * Return: true if ftlblk_store_page() would release the page holding
 * @lpn's current data (the cached one, or without the cache or with @fua
 * the flash one) when it stores the new one.
 */
bool ftlblk_store_replaces(struct ftlblk_shard *sh, u64 lpn, bool fua)
{
	lockdep_assert_held(&sh->lock);
	if (ftlblk_cache_on(sh->dev) &&
	    ftl_cache_is_handle(ftl_cache_peek(&sh->cache, lpn)))
		return true;
	/* With remanence the flash copy stays, stale, until its erase. */
	return (!ftlblk_cache_on(sh->dev) || fua) && !sh->stale &&
	       ftl_lookup(sh->ftl, lpn) != FTL_UNMAPPED;
}

/**
 * ftlblk_cached_page() - what the cache holds for @lpn, under sh->lock
 * @sh: shard of a device with the cache on
 * @lpn: logical page
 * @pagep: receives the cached data page, NULL for a pending deallocation
 *
 * Return: true if @lpn is cached (then *@pagep is its current data).
 */
bool ftlblk_cached_page(struct ftlblk_shard *sh, u64 lpn, struct page **pagep)
{
	u32 v = ftl_cache_peek(&sh->cache, lpn);

	lockdep_assert_held(&sh->lock);
	*pagep = ftl_cache_is_handle(v) ? handle_page(v) : NULL;
	return v != FTL_CACHE_NONE;
}

/**
 * ftlblk_cached_page_unlocked() - what the cache holds for @lpn, without
 * sh->lock (rw.c's lock-free read)
 * @sh: shard of a device with the cache on
 * @lpn: logical page
 * @pagep: receives the cached data page, NULL if @lpn reads as zeroes
 *
 * Under rcu_read_lock(): a cached page replaced or written back after the
 * lookup is reused only after a grace period (pages.c), so *@pagep holds
 * @lpn's data until the caller leaves the read-side section.
 *
 * Return: true if @lpn is cached (*@pagep set), false if not (look in the
 * FTL).
 */
bool ftlblk_cached_page_unlocked(struct ftlblk_shard *sh, u64 lpn,
				 struct page **pagep)
{
	u32 v = ftl_cache_peek(&sh->cache, lpn);

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "ftlblk: cache read without RCU");
	*pagep = ftl_cache_is_handle(v) ? handle_page(v) : NULL;
	return v != FTL_CACHE_NONE;
}

/* Under sh->lock: the page with @lpn's latest data, NULL for zeroes. */
static struct page *current_page_locked(struct ftlblk_shard *sh, u64 lpn)
{
	struct page *page;
	u32 ppn;

	lockdep_assert_held(&sh->lock);
	if (ftlblk_cache_on(sh->dev) && ftlblk_cached_page(sh, lpn, &page))
		return page;
	ppn = ftl_lookup(sh->ftl, lpn);
	return ppn == FTL_UNMAPPED ? NULL : ftlblk_data(sh, lpn);
}

/**
 * ftlblk_copy_page_locked() - the current contents of a logical page
 * @sh: shard, its lock held
 * @lpn: logical page
 * @buf: receives the page; bytes [@keep_off, @keep_off + @keep_len) are
 *	left as they are (0, 0 copies all)
 * @keep_off: first byte to keep
 * @keep_len: bytes to keep
 */
void ftlblk_copy_page_locked(struct ftlblk_shard *sh, u64 lpn, void *buf,
			     unsigned int keep_off, unsigned int keep_len)
{
	unsigned int page_size = ftlblk_page_bytes(sh->dev);
	unsigned int keep_end = keep_off + keep_len;
	struct page *page = current_page_locked(sh, lpn);
	void *src;

	if (!page) {
		memset(buf, 0, keep_off);
		memset(buf + keep_end, 0, page_size - keep_end);
		return;
	}
	src = page_address(page);
	memcpy(buf, src, keep_off);
	memcpy(buf + keep_end, src + keep_end, page_size - keep_end);
}

/**
 * ftlblk_lpn_has_data() - does @lpn hold data, cached or on flash?
 * @sh: shard, its lock held
 * @lpn: logical page
 *
 * Return: false if it reads as zeroes without being stored.
 */
bool ftlblk_lpn_has_data(struct ftlblk_shard *sh, u64 lpn)
{
	return current_page_locked(sh, lpn);
}
