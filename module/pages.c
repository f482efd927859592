// SPDX-License-Identifier: GPL-2.0
/*
 * Data pages: where ftlblk gets the memory a flash page's data lives in,
 * where it goes when the flash page stops holding valid data, and the FTL
 * core's callbacks that move, free and read them (ftlblk_ftl_ops: GC
 * moves a page by moving its pointer in data[]).
 *
 * A write never overwrites in place, so in steady state every programmed
 * page releases one: a small pool recycles them, and a write costs no page
 * allocation and no free. The pool holds at most FTLBLK_POOL_MAX_BYTES
 * (two largest requests' worth); everything beyond goes back to the page
 * allocator at once, so a discard returns its memory to the system.
 *
 * Pages are handed around in plain arrays (a request's PDU, a batch on the
 * stack), not lists: the hot path touches each page pointer a few times
 * and nothing else.
 *
 * The FTL's release callback runs under dev->lock; it appends the page to
 * the array the lock holder set up with ftlblk_lock() (dev->rel), and
 * ftlblk_unlock() recycles or frees them after dropping the lock.
 *
 * mem_limit_mib caps the memory a device holds: every data page taken from
 * the page allocator is charged to dev->mem_pages until it goes back, so
 * pooled pages and those of requests in flight count as much as mapped
 * ones. A request is charged once, for the pages the pool cannot supply;
 * if they would pass the limit it gets -ENOSPC with nothing taken, and
 * with no limit nothing is counted at all. An overwrite of pages the
 * device holds may pass the limit by those pages, since it gives as many
 * back when it is stored (they are freed then, not pooled): a full
 * filesystem on a device at its limit can still rewrite its journal.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ftlblk.h"
#include "trace.h"

static struct page *alloc_data_page(struct ftlblk_dev *dev, gfp_t gfp)
{
	/* Compound, so that get_page()/put_page() cover all of a 16 KiB page. */
	struct page *page = alloc_pages(gfp | __GFP_NOWARN | __GFP_COMP,
					dev->page_order);

	/* Checked at load, but memory hot-plugged later may lie beyond. */
	if (page && page_to_pfn(page) >= FTLBLK_MAX_FRAME) {
		put_page(page);
		return NULL;
	}
	return page;
}

/*
 * Charge @n pages to mem_limit_mib, which they may pass by @over (pages
 * that replace ones given back as soon as they are stored).
 * Return: false if they would pass it.
 */
static bool mem_charge(struct ftlblk_dev *dev, unsigned int n,
		       unsigned int over)
{
	if (!dev->mem_limit_pages || !n)
		return true;
	if (atomic_long_add_return(n, &dev->mem_pages) <=
	    (long)(dev->mem_limit_pages + over))
		return true;
	atomic_long_sub(n, &dev->mem_pages);
	return false;
}

/* @n charged pages went back to the page allocator. */
static void mem_uncharge(struct ftlblk_dev *dev, unsigned int n)
{
	if (dev->mem_limit_pages && n)
		atomic_long_sub(n, &dev->mem_pages);
}

/**
 * ftlblk_pages_get() - take @n data pages, all or none
 * @dev: device
 * @pages: receives the pages
 * @n: how many
 * @gfp: for the pages the pool cannot supply: GFP_NOWAIT from queue_rq,
 *	GFP_NOIO from the worker
 * @over: how many of them may pass mem_limit_mib: those that replace a
 *	page the device holds and gives back when the new one is stored (an
 *	overwrite does not make the device hold more)
 *
 * The pages hold stale data; the caller overwrites every byte. Pages
 * from the pool are already charged to mem_limit_mib; the others are
 * charged here, all at once.
 *
 * Return: 0; -ENOSPC if the pages would pass mem_limit_mib, or -ENOMEM;
 * then no page is taken (those taken so far are back in the pool), so the
 * caller can fail before touching the FTL (ftlblk_pages_status()).
 */
int ftlblk_pages_get(struct ftlblk_dev *dev, struct page **pages,
		     unsigned int n, gfp_t gfp, unsigned int over)
{
	unsigned int pooled, i;

	spin_lock(&dev->pool_lock);
	pooled = min(n, dev->pool_pages);
	dev->pool_pages -= pooled;
	memcpy(pages, dev->pool + dev->pool_pages, pooled * sizeof(*pages));
	spin_unlock(&dev->pool_lock);
	if (!mem_charge(dev, n - pooled, over)) {
		ftlblk_pages_put(dev, pages, pooled);
		return -ENOSPC;
	}
	for (i = pooled; i < n; i++) {
		pages[i] = alloc_data_page(dev, gfp);
		if (!pages[i]) {
			mem_uncharge(dev, n - i);
			ftlblk_pages_put(dev, pages, i);
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * ftlblk_pages_status() - end of a request that found no pages
 * @dev: device
 * @err: the error of its last ftlblk_pages_get()
 *
 * A request refused at mem_limit_mib is counted in mem_limit_rejections
 * (here, not in ftlblk_pages_get(): a write may try again with the pages
 * it replaces).
 *
 * Return: BLK_STS_NOSPC for -ENOSPC (not retried), else BLK_STS_RESOURCE.
 */
blk_status_t ftlblk_pages_status(struct ftlblk_dev *dev, int err)
{
	if (err != -ENOSPC)
		return BLK_STS_RESOURCE;
	spin_lock(&dev->lock);
	dev->ctr.mem_limit_rejections++;
	spin_unlock(&dev->lock);
	return BLK_STS_NOSPC;
}

/**
 * ftlblk_pages_put() - give back pages nobody maps any more
 * @dev: device
 * @pages: the pages (the array is reordered)
 * @n: how many
 *
 * A page a reader still holds a reference to is only released (the reader
 * frees it); readers take references under dev->lock while the page is
 * mapped, so a page with no other reference here can get none later.
 */
void ftlblk_pages_put(struct ftlblk_dev *dev, struct page **pages,
		      unsigned int n)
{
	unsigned int i, spill = 0;
	long excess;

	/*
	 * Pairs with the full barrier of get_page_unless_zero() in a reader
	 * without the lock (rw.c): either it sees the page unmapped and lets
	 * go, or we see its reference and do not recycle the page.
	 */
	smp_mb();
	/* Above the limit (an overwrite passed it), free, do not pool. */
	excess = dev->mem_limit_pages ? atomic_long_read(&dev->mem_pages) -
					(long)dev->mem_limit_pages : 0;
	spin_lock(&dev->pool_lock);
	for (i = 0; i < n; i++) {
		if (page_ref_count(pages[i]) == 1 && excess <= 0 &&
		    dev->pool_pages < dev->pool_max) {
			dev->pool[dev->pool_pages++] = pages[i];
		} else {
			pages[spill++] = pages[i];
			excess--;
		}
	}
	spin_unlock(&dev->pool_lock);
	for (i = 0; i < spill; i++)
		put_page(pages[i]);
	mem_uncharge(dev, spill);
}

/**
 * ftlblk_lock() - take dev->lock, collecting released pages in @rel
 * @dev: device
 * @rel: empty array for the pages the FTL releases during this hold
 */
void ftlblk_lock(struct ftlblk_dev *dev, struct ftlblk_released *rel)
	__acquires(&dev->lock)
{
	spin_lock(&dev->lock);
	rel->nr = 0;
	dev->rel = rel;
}

/**
 * ftlblk_unlock() - drop dev->lock, then recycle what the FTL released
 * @dev: device whose lock is held (taken with ftlblk_lock())
 */
void ftlblk_unlock(struct ftlblk_dev *dev)
	__releases(&dev->lock)
{
	struct ftlblk_released *rel = dev->rel;

	dev->rel = NULL;
	spin_unlock(&dev->lock);
	if (rel->nr)
		ftlblk_pages_put(dev, rel->pages, rel->nr);
}

/**
 * ftlblk_release_page() - a page the FTL no longer maps, under dev->lock
 * @dev: device
 * @page: the page
 *
 * Kept for after the lock if the holder made room, else freed now (which
 * does not sleep): ftl_destroy() and holds that release more than they
 * expected.
 */
void ftlblk_release_page(struct ftlblk_dev *dev, struct page *page)
{
	struct ftlblk_released *rel = dev->rel;

	if (rel && rel->nr < rel->max) {
		rel->pages[rel->nr++] = page;
	} else {
		put_page(page);
		mem_uncharge(dev, 1);
	}
}

/**
 * ftlblk_pool_init() - an empty pool for @dev, and its memory limit
 * @dev: device; dev->page_order must be set
 *
 * Return: 0 or -ENOMEM.
 */
int ftlblk_pool_init(struct ftlblk_dev *dev)
{
	/* mem_limit_mib in data pages; 1 MiB holds 64 of the largest. */
	dev->mem_limit_pages = (unsigned long)dev->cfg.val[FTLBLK_MEM_LIMIT_MIB]
			       << (20 - PAGE_SHIFT - dev->page_order);
	atomic_long_set(&dev->mem_pages, 0);
	spin_lock_init(&dev->pool_lock);
	dev->pool_pages = 0;
	dev->pool_max = FTLBLK_POOL_MAX_BYTES >> (PAGE_SHIFT + dev->page_order);
	dev->pool = kcalloc(dev->pool_max, sizeof(*dev->pool), GFP_KERNEL);
	return dev->pool ? 0 : -ENOMEM;
}

/**
 * ftlblk_pool_free() - free every pooled page and the pool
 * @dev: device that no longer takes requests
 */
void ftlblk_pool_free(struct ftlblk_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->pool_pages; i++)
		put_page(dev->pool[i]);
	mem_uncharge(dev, dev->pool_pages);
	kfree(dev->pool);
	dev->pool = NULL;
	dev->pool_pages = 0;
}

/* ---- FTL callbacks (struct ftl_ops): run under dev->lock ---- */

static void ftlblk_release(void *ctx, u32 ppn)
{
	struct ftlblk_dev *dev = ctx;
	struct page *page = ftlblk_data(dev, ppn);

	if (page) {
		/*
		 * Unpublish first: once released, the page may be freed
		 * (a full release array frees it at once) or reused, and a
		 * lock-free reader must not find it through data[] then.
		 */
		ftlblk_set_data(dev, ppn, NULL);
		dev->data_pages--;
		set_page_private(page, 0);
		ftlblk_release_page(dev, page);
	}
}

static void ftlblk_move_page(void *ctx, u32 from, u32 to)
{
	struct ftlblk_dev *dev = ctx;

	WRITE_ONCE(dev->data[to], dev->data[from]);
	WRITE_ONCE(dev->data[from], 0);
	ftlblk_timing_relocate(dev, from, to);
}

/* The lpn stored with the data page: the NAND page's spare area. */
static u32 ftlblk_read_oob(void *ctx, u32 ppn)
{
	struct ftlblk_dev *dev = ctx;
	struct page *page = ftlblk_data(dev, ppn);

	return page ? page_private(page) : FTL_UNMAPPED;
}

static void ftlblk_erased(void *ctx, u32 block, u32 erase_count)
{
	struct ftlblk_dev *dev = ctx;

	trace_ftlblk_erase(dev->disk, block, erase_count);
	ftlblk_timing_erase(dev, block);
}

static void ftlblk_collected(void *ctx, u32 block, u32 relocated,
			     bool wear_leveling)
{
	struct ftlblk_dev *dev = ctx;

	trace_ftlblk_gc(dev->disk, block, relocated, wear_leveling);
}

/* How the FTL core moves, frees and reads the data pages (ftl_ops). */
const struct ftl_ops ftlblk_ftl_ops = {
	.release = ftlblk_release,
	.move = ftlblk_move_page,
	.erased = ftlblk_erased,
	.collected = ftlblk_collected,
	.retired = ftlblk_block_retired,
	.read_oob = ftlblk_read_oob,
};
