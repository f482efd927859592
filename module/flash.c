// SPDX-License-Identifier: GPL-2.0
/*
 * The physical view of the flash: what each physical page holds.
 *
 * data[] (store.c) keeps a logical page's current data; the FTL core knows
 * where it lies and which physical pages hold superseded copies. With
 * remanence=1 those copies keep their data too, as on flash, until their
 * block is erased: stale[ppn] holds the page a release gave up (an
 * overwrite, discard, write-zeroes or secure erase unmapped it), and the
 * erase frees it. A relocation needs no copy (GC erases the source block
 * right after), except when that erase fails: a retired block keeps its
 * data, so its relocated pages are copied then (or read as dropped if no
 * memory is at hand). With remanence=0 stale[] does not exist and a
 * superseded page's memory goes back at once.
 *
 * Stale pages count against mem_limit_mib: at the limit, ftlblk_pages_get()
 * has the stalest block of each shard erased (ftl_reclaim_stale()), as an
 * SSD's GC would free blocks, before it refuses a write.
 *
 * Locking: stale[] and stale_pages are the shard's, under its lock, as
 * data[]; nothing here sleeps except ftlblk_reclaim_stale().
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ftlblk.h"

/* Stale pages one reclaim hold hands to limbo in one go (the rest singly). */
#define LIMBO_RECLAIM_BATCH	64

static struct page *frame_page(u32 v)
{
	return v ? pfn_to_page(v - 1) : NULL;
}

/**
 * ftlblk_stale_keep() - a released page keeps its data until its erase
 * @sh: shard of a device with remanence=1, its lock held
 * @ppn: the shard's physical page that held it
 * @page: its data page, unpublished from data[]
 */
void ftlblk_stale_keep(struct ftlblk_shard *sh, u32 ppn, struct page *page)
{
	lockdep_assert_held(&sh->lock);
	/* A page is released once per program: the slot is empty. */
	if (WARN_ON_ONCE(sh->stale[ppn])) {
		ftlblk_release_page(sh, page);
		return;
	}
	sh->stale[ppn] = page_to_pfn(page) + 1;
	sh->stale_pages++;
}

/**
 * ftlblk_stale_erased() - block @block was erased: its stale data is gone
 * @sh: shard, its lock held
 * @block: the shard's block
 */
void ftlblk_stale_erased(struct ftlblk_shard *sh, u32 block)
{
	u32 ppb = sh->dev->dealing.stripe, ppn = block * ppb, end = ppn + ppb;

	if (!sh->stale)
		return;
	for (; ppn < end; ppn++) {
		struct page *page = frame_page(sh->stale[ppn]);

		if (!page)
			continue;
		sh->stale[ppn] = 0;
		sh->stale_pages--;
		ftlblk_release_page(sh, page);
	}
}

/**
 * ftlblk_stale_retired() - block @block was retired: it keeps its data
 * @sh: shard, its lock held
 * @block: the shard's block
 *
 * Its pages relocated just before (GC of a failing block, or an erase that
 * failed) have no stale[] entry: their data is their logical page's
 * current copy, which is copied now, without waiting for memory.
 */
void ftlblk_stale_retired(struct ftlblk_shard *sh, u32 block)
{
	u32 ppb = sh->dev->dealing.stripe, ppn = block * ppb, end = ppn + ppb;
	unsigned int bytes = ftlblk_page_bytes(sh->dev);

	if (!sh->stale)
		return;
	for (; ppn < end; ppn++) {
		struct page *src, *copy;
		bool retired;
		u32 lpn;

		if (sh->stale[ppn] ||
		    ftl_page_state(sh->ftl, ppn, &lpn, &retired) !=
		    FTL_PAGE_STALE)
			continue;
		src = ftlblk_data(sh, lpn);
		if (!src || ftlblk_pages_get(sh->dev, &copy, 1, GFP_NOWAIT, 1))
			continue;	/* dropped: the map says so */
		memcpy(page_address(copy), page_address(src), bytes);
		sh->stale[ppn] = page_to_pfn(copy) + 1;
		sh->stale_pages++;
	}
}

/**
 * ftlblk_reclaim_stale() - erase stale blocks until @want pages are freed
 * @dev: device
 * @want: data pages the caller is short of
 *
 * Called at mem_limit_mib by ftlblk_pages_get() on the worker, never under
 * a shard's lock; does nothing while the power is off. Takes the shards
 * in turn, one block (the stalest closed one, ftl_reclaim_stale()) per
 * lock hold, until @want stale pages are freed or a whole round freed
 * none. The pages go to limbo, reusable after
 * a grace period. With timing=1 the relocations and erases are charged to
 * no request (as background GC).
 *
 * Return: true if it gave back the memory of any stale page.
 */
bool ftlblk_reclaim_stale(struct ftlblk_dev *dev, unsigned long want)
{
	unsigned long freed = 0, round;
	unsigned int i;

	if (!dev->shards)
		return false;
	do {
		round = 0;
		for (i = 0; i < dev->dealing.nr && freed + round < want; i++) {
			struct ftlblk_shard *sh = &dev->shards[i];
			struct page *pages[LIMBO_RECLAIM_BATCH];
			struct ftlblk_released rel = { pages, ARRAY_SIZE(pages) };
			u64 before;

			if (!READ_ONCE(sh->stale_pages))
				continue;
			ftlblk_lock(sh, &rel);
			before = sh->stale_pages;
			/* Nothing changes in the flash while the power is off. */
			if (!READ_ONCE(dev->power_off)) {
				ftl_reclaim_stale(sh->ftl);
				ftlblk_wearout_check(sh);
			}
			/* The memory given back, not the core's page count. */
			if (sh->stale_pages < before)
				round += before - sh->stale_pages;
			ftlblk_unlock(sh);
			cond_resched();
		}
		freed += round;
	} while (round && freed < want);
	return freed > 0;
}

/**
 * ftlblk_flash_page() - what a physical page of the flash holds
 * @sh: shard
 * @ppn: the shard's physical page
 * @buf: receives its page_size bytes: its data if programmed (valid, or
 *	stale and kept), 0xff if erased, 0x00 if its data was dropped
 *	(remanence=0) or its program failed; NULL for @info alone
 * @info: receives the page's state and logical page
 *
 * One lock hold and one page copy: a reader of the whole image stalls no
 * request for longer than that.
 */
void ftlblk_flash_page(struct ftlblk_shard *sh, u32 ppn, void *buf,
		       struct ftlblk_page_info *info)
{
	unsigned int bytes = ftlblk_page_bytes(sh->dev);
	struct page *page = NULL;

	spin_lock(&sh->lock);
	info->state = ftl_page_state(sh->ftl, ppn, &info->lpn, &info->retired);
	info->kept = false;
	if (info->state == FTL_PAGE_VALID) {
		page = ftlblk_data(sh, info->lpn);
	} else if (info->state == FTL_PAGE_STALE && sh->stale) {
		page = frame_page(sh->stale[ppn]);
		info->kept = page;
	}
	if (buf && page)
		memcpy(buf, page_address(page), bytes);
	else if (buf)
		memset(buf, info->state == FTL_PAGE_ERASED ? 0xff : 0, bytes);
	spin_unlock(&sh->lock);
}
