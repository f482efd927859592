// SPDX-License-Identifier: GPL-2.0
/*
 * Data pages: where ftlblk gets the memory a flash page's data lives in,
 * and where it goes when the flash page stops holding valid data.
 *
 * A write never overwrites in place, so in steady state every programmed
 * page releases one, and the released pages feed later writes: a write
 * costs no page allocation and no free. The pool holds at most
 * FTLBLK_POOL_MAX_BYTES (two largest requests' worth) of free pages.
 *
 * Pages are handed around in plain arrays (a request's PDU, a batch on the
 * stack, limbo's carriers): the hot path touches each page pointer a few
 * times and never a page's struct page.
 *
 * Readers copy from data pages without a reference, under
 * rcu_read_lock() only (rw.c), so a page the FTL releases (overwritten,
 * discarded, erased by GC) must not be reused or freed before every
 * reader that may have found it is done: an RCU grace period. Released
 * pages wait in dev->limbo, oldest first, in carriers that also hold the
 * grace-period cookie of their pages' release (get_state_synchronize_rcu());
 * a grace period is asked for once per cookie (limbo_kick()). Should no
 * page be free for a carrier, released pages are freed by call_rcu()
 * instead (memory pressure). A write whose pool is short takes limbo's
 * ripe pages (their grace period is over), oldest first; so under steady
 * overwriting limbo holds what the device released in about one grace
 * period, and nothing is allocated or freed. Every FTLBLK_LIMBO_SCAN_MS
 * the limbo work frees the ripe pages the writers did not need in the
 * last interval (an idle device, a discard of many pages): memory goes
 * back to the system within tens of milliseconds. No one waits for a
 * grace period on the I/O path, except work on ftlblk_wq (a write, or the
 * partial pages of a discard or write-zeroes) that needs limbo's pages to
 * stay within mem_limit_mib.
 *
 * The FTL's release callback runs under its shard's lock; it appends the
 * page to the array the lock holder set up with ftlblk_lock() (sh->rel),
 * and ftlblk_unlock() sends them to limbo after it.
 *
 * mem_limit_mib caps the memory a device holds: every data page taken from
 * the page allocator is charged to dev->mem_pages until it goes back, so
 * pooled pages, pages in limbo and those of requests in flight count as
 * much as mapped ones. A request is charged once, for the pages the pool
 * cannot supply, only if they fit (ftlblk_charge(): a request that does
 * not fit never makes one that does fail); if they would pass the limit it
 * gets -ENOSPC with nothing taken, and with no limit nothing is counted at
 * all. An overwrite of pages the device holds may pass the limit by
 * those pages, since it gives as many back when it is stored (they are
 * freed after their grace period, not pooled): a full filesystem on a
 * device at its limit can still rewrite its journal.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "charge.h"
#include "ftlblk.h"
#include "trace.h"

/* Limbo pages one call frees at most: bounds a pool_lock hold. */
#define LIMBO_BATCH	64

static struct page *alloc_data_page(struct ftlblk_dev *dev, gfp_t gfp)
{
	/* Compound, so that put_page() frees all of a 16 KiB page. */
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
	return ftlblk_charge(&dev->mem_pages, n,
			     (long)(dev->mem_limit_pages + over));
}

/* @n charged pages went back to the page allocator. */
static void mem_uncharge(struct ftlblk_dev *dev, unsigned int n)
{
	if (dev->mem_limit_pages && n)
		atomic_long_sub(n, &dev->mem_pages);
}

/*
 * Pages over mem_limit_mib (an overwrite passed it): these go back to the
 * page allocator rather than the pool. Under pool_lock.
 */
static long mem_excess(struct ftlblk_dev *dev)
{
	return dev->mem_limit_pages ? atomic_long_read(&dev->mem_pages) -
				      (long)dev->mem_limit_pages : 0;
}

/*
 * Limbo is a list of carriers, oldest first: a carrier is a free data page
 * (nobody reads it: it came from the pool or the page allocator) that
 * holds the pointers of up to carrier_cap released pages and the
 * grace-period cookie of the newest of them. Releases with the same cookie
 * fill the newest carrier, so limbo costs a memcpy of pointers per
 * release and per reuse, and one poll of RCU's state per carrier, and
 * never touches a released page's struct page. The carrier's own page
 * leaves last, with its last pointer.
 */
struct ftlblk_carrier {
	struct list_head node;		/* in dev->limbo */
	unsigned long cookie;		/* get_state_synchronize_rcu() */
	unsigned int nr;		/* pages[] in use */
	struct page *pages[];
};

static struct ftlblk_carrier *carrier_of(struct page *page)
{
	return page_address(page);
}

static unsigned int carrier_cap(const struct ftlblk_dev *dev)
{
	return ((PAGE_SIZE << dev->page_order) -
		sizeof(struct ftlblk_carrier)) / sizeof(struct page *);
}

/*
 * Take ripe pages (their grace period has passed) from the head of limbo:
 * up to @want into the pool while it has room and the device is within
 * mem_limit_mib; then, if @spill is given, into @spill (at most
 * LIMBO_BATCH) while limbo holds more than @keep pages or the device is
 * over its limit, for the caller to free after the lock. Under pool_lock:
 * at most @want + LIMBO_BATCH pages.
 * Return: pages put in @spill.
 */
static unsigned int limbo_reclaim(struct ftlblk_dev *dev, unsigned int want,
				  struct page **spill, unsigned long keep)
{
	unsigned int pooled = 0, nr_spill = 0;
	long excess = mem_excess(dev);
	struct ftlblk_carrier *ripe = NULL;

	lockdep_assert_held(&dev->pool_lock);
	while (dev->limbo_pages) {
		struct ftlblk_carrier *c = list_first_entry(&dev->limbo,
						struct ftlblk_carrier, node);
		/* A page taken for use adds no memory: only trims heed the limit. */
		bool to_pool = pooled < want && (!spill || excess <= 0) &&
			       dev->pool_pages < dev->pool_max;
		struct page *page;

		if (!to_pool && (!spill || nr_spill == LIMBO_BATCH ||
				 (dev->limbo_pages <= keep && excess <= 0)))
			break;
		if (c != ripe) {
			if (!poll_state_synchronize_rcu(c->cookie))
				break;
			ripe = c;
		}
		if (c->nr) {
			page = c->pages[--c->nr];
		} else {
			list_del(&c->node);
			page = virt_to_page(c);
		}
		dev->limbo_pages--;
		if (to_pool) {
			dev->pool[dev->pool_pages++] = page;
			pooled++;
		} else {
			spill[nr_spill++] = page;
			excess--;
		}
	}
	return nr_spill;
}

/* Give @n pages nobody can reach back to the page allocator. */
static void free_data_pages(struct ftlblk_dev *dev, struct page **pages,
			    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		put_page(pages[i]);
	mem_uncharge(dev, n);
}

/*
 * Fill the pool from limbo's ripe pages, and free the ripe pages beyond
 * @keep (limbo's own pages) and beyond mem_limit_mib.
 */
static void limbo_trim(struct ftlblk_dev *dev, unsigned long keep)
{
	struct page *spill[LIMBO_BATCH];
	unsigned int n, pooled;

	do {
		spin_lock(&dev->pool_lock);
		pooled = dev->pool_pages;
		n = limbo_reclaim(dev, LIMBO_BATCH, spill, keep);
		pooled = dev->pool_pages - pooled;
		spin_unlock(&dev->pool_lock);
		free_data_pages(dev, spill, n);
		cond_resched();
	} while (n == LIMBO_BATCH || pooled == LIMBO_BATCH);
}

/*
 * Grace periods start when someone needs one: ask for one when limbo has
 * pages whose grace period has not been asked for yet (at most once per
 * grace period, so writers do not queue on RCU's locks).
 */
static void limbo_kick(struct ftlblk_dev *dev, unsigned long cookie)
{
	if (READ_ONCE(dev->limbo_kicked) == cookie)
		return;
	WRITE_ONCE(dev->limbo_kicked, cookie);
	start_poll_synchronize_rcu();
}

/*
 * Every FTLBLK_LIMBO_SCAN_MS while limbo holds pages: writers take ripe
 * pages from limbo as they need them (pool_take()), so what they took in
 * the last interval is what they will need in the next; ripe pages beyond
 * that are not needed (the device went idle, or a discard released many
 * pages at once) and go back to the system.
 */
static void limbo_work_fn(struct work_struct *work)
{
	struct ftlblk_dev *dev = container_of(to_delayed_work(work),
					      struct ftlblk_dev, limbo_work);
	unsigned long keep;
	bool again;

	spin_lock(&dev->pool_lock);
	keep = dev->limbo_took;
	dev->limbo_took = 0;
	spin_unlock(&dev->pool_lock);
	limbo_trim(dev, keep);
	spin_lock(&dev->pool_lock);
	again = dev->limbo_pages;
	dev->limbo_work_armed = again;
	spin_unlock(&dev->pool_lock);
	if (again) {
		limbo_kick(dev, get_state_synchronize_rcu());
		schedule_delayed_work(&dev->limbo_work,
				      msecs_to_jiffies(FTLBLK_LIMBO_SCAN_MS));
	}
}

/*
 * Append up to @n released pages to limbo, in the newest carrier if it
 * has @cookie and room, else in a new one made of *@spare (then NULL) or a
 * pooled page. Under pool_lock: O(@n).
 * Return: pages appended; fewer than @n if no page was left for a carrier.
 */
static unsigned int limbo_append(struct ftlblk_dev *dev, struct page **pages,
				 unsigned int n, unsigned long cookie,
				 struct page **spare)
{
	unsigned int done = 0, k;

	lockdep_assert_held(&dev->pool_lock);
	while (done < n) {
		struct ftlblk_carrier *c = list_empty(&dev->limbo) ? NULL :
			list_last_entry(&dev->limbo, struct ftlblk_carrier, node);
		struct page *page;

		if (!c || c->cookie != cookie || c->nr == carrier_cap(dev)) {
			if (*spare) {
				page = *spare;
				*spare = NULL;
			} else if (dev->pool_pages) {
				page = dev->pool[--dev->pool_pages];
			} else {
				break;
			}
			c = carrier_of(page);
			c->cookie = cookie;
			c->nr = 0;
			list_add_tail(&c->node, &dev->limbo);
			dev->limbo_pages++;
		}
		k = min(n - done, carrier_cap(dev) - c->nr);
		memcpy(c->pages + c->nr, pages + done, k * sizeof(*pages));
		c->nr += k;
		done += k;
		dev->limbo_pages += k;
	}
	return done;
}

/* The rare way out of limbo: freed, not reused, after a grace period. */
static void free_after_grace_period(struct rcu_head *head)
{
	struct page *page = container_of(head, struct page, rcu_head);
	struct ftlblk_dev *dev = (struct ftlblk_dev *)page_private(page);

	set_page_private(page, 0);
	put_page(page);
	mem_uncharge(dev, 1);
	atomic_long_dec(&dev->limbo_rcu_pages);
}

/*
 * No memory for a carrier (the pool is empty, the page allocator has
 * nothing without waiting, or mem_limit_mib is reached): free the pages
 * after a grace period instead, each with its own call_rcu() in its
 * struct page.
 */
static void pages_free_deferred(struct ftlblk_dev *dev, struct page **pages,
				unsigned int n)
{
	unsigned int i;

	atomic_long_add(n, &dev->limbo_rcu_pages);
	for (i = 0; i < n; i++) {
		set_page_private(pages[i], (unsigned long)dev);
		call_rcu(&pages[i]->rcu_head, free_after_grace_period);
	}
}

/*
 * Pages the FTL released: reusable once readers that may have found them
 * are done. O(@n) under pool_lock. Allocates a page for a carrier only if
 * @may_alloc (not under a shard's lock: a page too few there frees the
 * released pages by call_rcu() instead).
 */
static void pages_defer(struct ftlblk_dev *dev, struct page **pages,
			unsigned int n, bool may_alloc)
{
	/* Has a full barrier: the cookie comes after the unpublishing. */
	unsigned long cookie = get_state_synchronize_rcu();
	struct page *spare = NULL;
	unsigned int done = 0;
	bool arm = false;

	for (;;) {
		spin_lock(&dev->pool_lock);
		done += limbo_append(dev, pages + done, n - done, cookie,
				     &spare);
		arm |= !dev->limbo_work_armed;
		dev->limbo_work_armed = true;
		spin_unlock(&dev->pool_lock);
		if (done == n || spare || !may_alloc)
			break;
		/* The pool had no page to carry the rest: allocate one. */
		if (mem_charge(dev, 1, 0)) {
			spare = alloc_data_page(dev, GFP_NOWAIT);
			if (!spare)
				mem_uncharge(dev, 1);
		}
		if (!spare)
			break;
	}
	if (spare)		/* another release made room meanwhile */
		ftlblk_pages_put(dev, &spare, 1);
	if (done < n)
		pages_free_deferred(dev, pages + done, n - done);
	limbo_kick(dev, cookie);
	if (arm)
		schedule_delayed_work(&dev->limbo_work,
				      msecs_to_jiffies(FTLBLK_LIMBO_SCAN_MS));
}

/*
 * Take up to @n pooled pages into @pages, first moving ripe limbo pages
 * to the pool if it is short. Return: how many.
 */
static unsigned int pool_take(struct ftlblk_dev *dev, struct page **pages,
			      unsigned int n)
{
	unsigned int pooled, before;

	spin_lock(&dev->pool_lock);
	if (dev->pool_pages < n && dev->limbo_pages) {
		before = dev->pool_pages;
		limbo_reclaim(dev, n - dev->pool_pages, NULL, 0);
		dev->limbo_took += dev->pool_pages - before;
	}
	pooled = min(n, dev->pool_pages);
	dev->pool_pages -= pooled;
	memcpy(pages, dev->pool + dev->pool_pages, pooled * sizeof(*pages));
	spin_unlock(&dev->pool_lock);
	return pooled;
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
 * charged here, all at once. At the limit with pages in limbo, a caller
 * that may sleep (@gfp) waits for their grace period and tries again;
 * one that may not gets -ENOMEM, so that it retries on the worker. With
 * remanence=1 a caller that may sleep has stale data erased first
 * (dev->reclaim), one that may not (queue_rq, or under a shard's lock)
 * gets -ENOMEM.
 *
 * Return: 0; -ENOSPC if the pages would pass mem_limit_mib, or -ENOMEM;
 * then no page is taken (those taken so far are back in the pool), so the
 * caller can fail before touching the FTL (ftlblk_pages_status()).
 */
int ftlblk_pages_get(struct ftlblk_dev *dev, struct page **pages,
		     unsigned int n, gfp_t gfp, unsigned int over)
{
	unsigned int pooled, i, waits = 0;
	bool repooled = false;

again:
	pooled = pool_take(dev, pages, n);
	if (!mem_charge(dev, n - pooled, over)) {
		ftlblk_pages_put(dev, pages, pooled);
		/* The limbo work may have filled the pool meanwhile. */
		if (!READ_ONCE(dev->limbo_pages) &&
		    !atomic_long_read(&dev->limbo_rcu_pages)) {
			/*
			 * Stale data (remanence) goes only by an erase, which
			 * takes shard locks: on the worker, never under one.
			 */
			if (dev->reclaim) {
				if (!gfpflags_allow_blocking(gfp))
					return -ENOMEM;
				if (dev->reclaim(dev, n - pooled))
					goto again;
			}
			if (repooled || READ_ONCE(dev->pool_pages) <= pooled)
				return -ENOSPC;
			repooled = true;
			goto again;
		}
		if (!gfpflags_allow_blocking(gfp))
			return -ENOMEM;
		/*
		 * Concurrent overwrites keep adding to limbo what they give
		 * back: a few grace periods let enough of it go.
		 */
		if (waits++ == FTLBLK_LIMBO_MAX_WAITS)
			return -ENOSPC;
		synchronize_rcu();
		/* Pages that found no carrier are freed by RCU callbacks. */
		if (atomic_long_read(&dev->limbo_rcu_pages))
			rcu_barrier();
		limbo_trim(dev, 0);
		goto again;
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
	ftlblk_count(dev, FTLBLK_PC_MEM_LIMIT_REJECTIONS, 1);
	return BLK_STS_NOSPC;
}

/**
 * ftlblk_pages_put() - give back pages that were never published
 * @dev: device
 * @pages: the pages, which no reader can have found (a request's own
 *	pages it did not store, or any page of a device being removed); the
 *	array is reordered
 * @n: how many
 *
 * They go to the pool at once, or to the page allocator if it is full or
 * the device is over mem_limit_mib.
 */
void ftlblk_pages_put(struct ftlblk_dev *dev, struct page **pages,
		      unsigned int n)
{
	unsigned int i, spill = 0;
	long excess;

	spin_lock(&dev->pool_lock);
	excess = mem_excess(dev);
	for (i = 0; i < n; i++) {
		if (excess <= 0 && dev->pool_pages < dev->pool_max) {
			dev->pool[dev->pool_pages++] = pages[i];
		} else {
			pages[spill++] = pages[i];
			excess--;
		}
	}
	spin_unlock(&dev->pool_lock);
	free_data_pages(dev, pages, spill);
}

/**
 * ftlblk_pages_free_table() - free every data page of a table of frames,
 * at removal
 * @dev: device that no reader can reach any more (after del_gendisk(): no
 *	request runs, none is queued)
 * @table: page frame number + 1 per entry, 0 for none (a shard's data[]
 *	or stale[]); emptied
 * @n: its entries
 *
 * With no reader left, no page needs a grace period: they go back at
 * once, a batch per pool_lock hold, rescheduling between batches, rather
 * than each by its own RCU callback through ftl_destroy()'s releases
 * (which then find data[] empty). Sleeps.
 *
 * Return: how many pages it freed.
 */
u64 ftlblk_pages_free_table(struct ftlblk_dev *dev, u32 *table, u64 n)
{
	struct page *batch[LIMBO_BATCH];
	unsigned int in_batch = 0;
	u64 i, freed = 0;

	for (i = 0; i < n; i++) {
		if (!table[i])
			continue;
		batch[in_batch++] = pfn_to_page(table[i] - 1);
		table[i] = 0;
		freed++;
		if (in_batch == ARRAY_SIZE(batch)) {
			ftlblk_pages_put(dev, batch, in_batch);
			in_batch = 0;
			cond_resched();
		}
	}
	ftlblk_pages_put(dev, batch, in_batch);
	return freed;
}

/**
 * ftlblk_lock() - take a shard's lock, collecting released pages in @rel
 * @sh: shard
 * @rel: empty array for the pages the FTL releases during this hold
 */
void ftlblk_lock(struct ftlblk_shard *sh, struct ftlblk_released *rel)
	__acquires(&sh->lock)
{
	spin_lock(&sh->lock);
	rel->nr = 0;
	sh->rel = rel;
}

/**
 * ftlblk_unlock() - drop a shard's lock, then send what the FTL released
 * to limbo (reused after a grace period)
 * @sh: shard whose lock is held (taken with ftlblk_lock())
 */
void ftlblk_unlock(struct ftlblk_shard *sh)
	__releases(&sh->lock)
{
	struct ftlblk_released *rel = sh->rel;

	sh->rel = NULL;
	spin_unlock(&sh->lock);
	if (rel->nr)
		pages_defer(sh->dev, rel->pages, rel->nr, true);
}

/**
 * ftlblk_release_page() - a page the FTL no longer maps, under sh->lock
 * @sh: shard
 * @page: the page, unpublished (no new reader finds it)
 *
 * Kept for after the lock if the holder made room, else sent to limbo now
 * (pool_lock nests inside the shard's lock): ftl_destroy() and holds that
 * release more than they expected.
 */
void ftlblk_release_page(struct ftlblk_shard *sh, struct page *page)
{
	struct ftlblk_released *rel = sh->rel;

	if (rel && rel->nr < rel->max)
		rel->pages[rel->nr++] = page;
	else
		pages_defer(sh->dev, &page, 1, false);
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
	INIT_LIST_HEAD(&dev->limbo);
	dev->limbo_pages = 0;
	atomic_long_set(&dev->limbo_rcu_pages, 0);
	dev->limbo_took = 0;
	dev->limbo_kicked = 0;
	dev->limbo_work_armed = false;
	INIT_DELAYED_WORK(&dev->limbo_work, limbo_work_fn);
	dev->pool = kcalloc(dev->pool_max, sizeof(*dev->pool), GFP_KERNEL);
	return dev->pool ? 0 : -ENOMEM;
}

/**
 * ftlblk_pool_free() - free every pooled page, limbo and the pool
 * @dev: device that no longer takes requests and maps no page
 *
 * Sleeps: waits for the grace period of the last released pages, then
 * cancels the limbo work (cancel_delayed_work_sync() also stops it from
 * queueing itself again), waits for the RCU callbacks that free pages
 * without a carrier (they use @dev) and frees limbo, all ripe by then.
 */
void ftlblk_pool_free(struct ftlblk_dev *dev)
{
	unsigned int i;

	synchronize_rcu();
	cancel_delayed_work_sync(&dev->limbo_work);
	rcu_barrier();
	WARN_ON(atomic_long_read(&dev->limbo_rcu_pages));
	limbo_trim(dev, 0);
	WARN_ON(dev->limbo_pages);
	for (i = 0; i < dev->pool_pages; i++)
		put_page(dev->pool[i]);
	mem_uncharge(dev, dev->pool_pages);
	kfree(dev->pool);
	dev->pool = NULL;
	dev->pool_pages = 0;
}
