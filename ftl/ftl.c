// SPDX-License-Identifier: GPL-2.0
/*
 * ftl.c - the portable page-mapped FTL: its configuration and life cycle,
 * the page map, and what the host does to it (the API of ftl.h).
 *
 * The map: l2p[lpn] is the physical page holding logical page lpn's
 * current copy, or FTL_UNMAPPED; p2l[ppn], the reverse map, is the logical
 * page whose current copy physical page ppn holds, or FTL_UNMAPPED once it
 * is superseded (GC reads it in block order; with ftl_ops.read_oob the
 * caller keeps it instead, as NAND keeps the lpn in a page's spare area).
 * A host write programs the next page of its placement class's open block
 * (its write frontier) and
 * invalidates the old copy (ftl_write_atomic() programs all of its pages
 * first and maps them together); a discard or unmap invalidates without
 * programming; a read only looks up. Every change of a page's data is told
 * to the caller through struct ftl_ops (release, move).
 *
 * Making room for a host page is where the rest runs: garbage collection
 * (gc.c) when the free pool is short, static wear leveling (wear.c) when
 * the erase counts have spread; the blocks themselves are in blocks.c.
 * Work per call is bounded: no path walks every block.
 *
 * All state is owned by the caller's lock; see ftl.h.
 */
#include "ftl_impl.h"

/*
 * Make room for one host page of class @cls. The host may only take a
 * free block while another stays behind for the GC frontier (GC reclaims by
 * relocating, so it needs a destination); GC keeps at least gc_low_blocks
 * >= 2 free. Between the watermarks, each new host block continues the GC
 * run a little.
 */
static int prepare_host_page(struct ftl *ftl, u32 cls)
{
	u32 f = FTL_FRONTIER_HOST(cls);
	int err;

	if (ftl_frontier_has_room(ftl, f))
		return 0;
	if (ftl->open[f] != FTL_NONE) {
		ftl->classes[cls].blocks_filled++;
		ftl_close_open_block(ftl, f);
	}
	if (ftl->free.nr < ftl->geo.gc_low_blocks || ftl->gc_active ||
	    ftl->failing.len) {
		err = ftl_gc_run(ftl);
		if (err)
			return err;
	}
	if (ftl_wear_level_due(ftl)) {
		err = ftl_wear_level(ftl);
		if (err)
			return err;
	}
	if (ftl->free.nr < 2)
		return ftl_out_of_blocks(ftl);
	ftl_open_free_block(ftl, f, false);
	return 0;
}

/* log2(@n) for a power of two, else FTL_NO_SHIFT. */
static u32 pow2_shift(u32 n)
{
	u32 shift = 0;

	if (!n || (n & (n - 1)))
		return FTL_NO_SHIFT;
	while ((1u << shift) < n)
		shift++;
	return shift;
}

void ftl_config_init(struct ftl_config *cfg, u64 logical_pages)
{
	*cfg = (struct ftl_config) {
		.page_size = FTL_DEFAULT_PAGE_SIZE,
		.pages_per_block = FTL_DEFAULT_PAGES_PER_BLOCK,
		.logical_pages = logical_pages,
		.op_percent = FTL_DEFAULT_OP_PERCENT,
		.gc_policy = FTL_GC_GREEDY,
		.wl_threshold = FTL_DEFAULT_WL_THRESHOLD,
		.fault_seed = FTL_DEFAULT_FAULT_SEED,
	};
}

/* GC needs its two open blocks plus the free-block watermark (2). */
#define FTL_TOO_FEW_SPARE \
	"too few spare blocks for garbage collection (at least 4 with default watermarks, two more per placement class beyond the first): raise over-provisioning or capacity"

static int config_fail(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return -EINVAL;
}

int ftl_config_check(const struct ftl_config *cfg, struct ftl_geometry *geo,
		     const char **why)
{
	struct ftl_geometry g = { 0 };
	u64 ppb = cfg->pages_per_block, spare, logical_blocks;

	if (cfg->page_size < FTL_MIN_PAGE_SIZE ||
	    cfg->page_size > FTL_MAX_PAGE_SIZE ||
	    (cfg->page_size & (cfg->page_size - 1)))
		return config_fail(why, "page size must be 4096, 8192 or 16384");
	if (ppb < FTL_MIN_PAGES_PER_BLOCK || ppb > FTL_MAX_PAGES_PER_BLOCK)
		return config_fail(why, "pages per block must be 2 to 4096");
	if (cfg->op_percent < FTL_MIN_OP_PERCENT ||
	    cfg->op_percent > FTL_MAX_OP_PERCENT)
		return config_fail(why, "over-provisioning must be 1 to 100 percent");
	if ((unsigned int)cfg->gc_policy >= FTL_GC_NR_POLICIES)
		return config_fail(why, "unknown GC policy");
	if (cfg->program_fail_ppm > FTL_MAX_FAIL_PPM ||
	    cfg->erase_fail_ppm > FTL_MAX_FAIL_PPM)
		return config_fail(why, "fault rates must be 0 to 100000 per million");
	if (cfg->endurance > FTL_MAX_ENDURANCE)
		return config_fail(why, "endurance must be 0 (unlimited) to 100000000 erases");
	if (cfg->remanence > 1)
		return config_fail(why, "remanence must be 0 or 1");
	if (cfg->logical_pages == 0)
		return config_fail(why, "logical capacity must be at least one page");
	if (cfg->logical_pages > FTL_MAX_LOGICAL_PAGES)
		return config_fail(why, "logical capacity must be below 2^31 pages");

	logical_blocks = ftl_div_u64(cfg->logical_pages + ppb - 1, ppb);
	spare = ftl_div_u64(cfg->logical_pages * cfg->op_percent + 100 * ppb - 1,
			    100 * ppb);
	g.logical_pages = cfg->logical_pages;
	g.pages_per_block = cfg->pages_per_block;
	if (cfg->placement_classes > FTL_MAX_CLASSES)
		return config_fail(why, "placement classes must be 0 to 17");
	g.open_blocks = 2 * (cfg->placement_classes ? cfg->placement_classes : 1);
	g.gc_low_blocks = cfg->gc_low_blocks ? cfg->gc_low_blocks : 2;
	g.gc_high_blocks = cfg->gc_high_blocks ? cfg->gc_high_blocks :
			   g.gc_low_blocks;
	if (g.gc_low_blocks < 2 || g.gc_high_blocks < g.gc_low_blocks)
		return config_fail(why, "GC watermarks must satisfy 2 <= low <= high");
	/*
	 * A failed program needs a new block at once, possibly while GC is
	 * already using the last free one, and a failed erase gains GC nothing
	 * for the relocations it paid: keep a reserve for both when flash can
	 * fail, or one fault at the low watermark would look like the end of
	 * life.
	 */
	if (cfg->program_fail_ppm || cfg->erase_fail_ppm || cfg->endurance) {
		g.gc_low_blocks += FTL_FAULT_RESERVE_BLOCKS;
		if (g.gc_high_blocks < g.gc_low_blocks)
			g.gc_high_blocks = g.gc_low_blocks;
	}
	/*
	 * Progress: with at most gc_high - 1 blocks free and every frontier's
	 * block open, the closed blocks must hold more pages than there are
	 * logical pages, so that one of them has an invalid page to reclaim.
	 */
	if (spare < (u64)g.gc_high_blocks + g.open_blocks)
		return config_fail(why, FTL_TOO_FEW_SPARE);
	if ((logical_blocks + spare) * ppb >= U32_MAX)
		return config_fail(why, "physical capacity must be below 2^32 pages");
	g.logical_blocks = logical_blocks;
	g.spare_blocks = spare;
	g.physical_blocks = logical_blocks + spare;
	g.physical_pages = (u64)g.physical_blocks * ppb;
	if (geo)
		*geo = g;
	return 0;
}

static void *ftl_alloc_array(struct ftl *ftl, u64 nmemb, u64 size)
{
	ftl->metadata_bytes += nmemb * size;
	return ftl_zalloc(nmemb * size);
}

struct ftl *ftl_create(const struct ftl_config *cfg, const struct ftl_ops *ops,
		       void *ctx, int *err)
{
	struct ftl_geometry geo;
	const char *why = NULL;
	struct ftl *ftl;
	u64 i;

	*err = ftl_config_check(cfg, &geo, &why);
	if (*err) {
		ftl_err("invalid geometry: %s", why);
		return NULL;
	}
	*err = -ENOMEM;
	ftl = ftl_zalloc(sizeof(*ftl));
	if (!ftl)
		return NULL;
	ftl->cfg = *cfg;
	ftl->geo = geo;
	ftl->ppb_shift = pow2_shift(geo.pages_per_block);
	ftl->ops = ops;
	ftl->ctx = ctx;
	ftl->metadata_bytes = sizeof(*ftl);
	ftl->l2p = ftl_alloc_array(ftl, geo.logical_pages, sizeof(u32));
	if (!ops || !ops->read_oob)
		ftl->p2l = ftl_alloc_array(ftl, geo.physical_pages,
					   sizeof(u32));
	ftl->blocks = ftl_alloc_array(ftl, geo.physical_blocks,
				      sizeof(struct ftl_block));
	ftl->buckets = ftl_alloc_array(ftl, geo.pages_per_block + 1,
				       sizeof(struct ftl_list));
	ftl->bucket_links = ftl_alloc_array(ftl, geo.physical_blocks,
					    sizeof(struct ftl_link));
	ftl->closed_links = ftl_alloc_array(ftl, geo.physical_blocks,
					    sizeof(struct ftl_link));
	ftl->free.slots = ftl_alloc_array(ftl, geo.physical_blocks,
					  sizeof(u32));
	ftl->worn.slots = ftl_alloc_array(ftl, geo.physical_blocks,
					  sizeof(u32));
	if (cfg->placement_classes > 1)
		ftl->lpn_class = ftl_alloc_array(ftl, geo.logical_pages, 1);
	if (!ftl->l2p || (!ftl->p2l && !(ops && ops->read_oob)) ||
	    !ftl->blocks || !ftl->buckets || !ftl->bucket_links ||
	    !ftl->closed_links || !ftl->free.slots || !ftl->worn.slots ||
	    (cfg->placement_classes > 1 && !ftl->lpn_class)) {
		ftl_destroy(ftl);
		return NULL;
	}

	for (i = 0; i < geo.logical_pages; i++)
		ftl->l2p[i] = FTL_UNMAPPED;
	for (i = 0; ftl->p2l && i < geo.physical_pages; i++)
		ftl->p2l[i] = FTL_UNMAPPED;
	for (i = 0; i <= geo.pages_per_block; i++)
		ftl_blist_init(&ftl->buckets[i]);
	ftl_blist_init(&ftl->closed);
	ftl_blist_init(&ftl->failing);
	for (i = 0; i < geo.physical_blocks; i++) {
		ftl->bucket_links[i] = (struct ftl_link){ FTL_NONE, FTL_NONE };
		ftl->closed_links[i] = (struct ftl_link){ FTL_NONE, FTL_NONE };
		ftl_free_push(ftl, i);
	}
	for (i = 0; i < FTL_MAX_FRONTIERS; i++)
		ftl->open[i] = FTL_NONE;
	ftl->nr_frontiers = geo.open_blocks;
	ftl->fault_state = cfg->fault_seed;
	ftl->ready = true;
	*err = 0;
	return ftl;
}

void ftl_destroy(struct ftl *ftl)
{
	u64 lpn;

	if (!ftl)
		return;
	/* A half-created FTL holds no data (and its maps are all zeroes). */
	if (ftl->ready && ftl->ops && ftl->ops->release)
		for (lpn = 0; lpn < ftl->geo.logical_pages; lpn++)
			if (ftl->l2p[lpn] != FTL_UNMAPPED)
				ftl->ops->release(ftl->ctx, lpn,
						 ftl->l2p[lpn]);
	ftl_free(ftl->l2p);
	ftl_free(ftl->p2l);
	ftl_free(ftl->blocks);
	ftl_free(ftl->buckets);
	ftl_free(ftl->bucket_links);
	ftl_free(ftl->closed_links);
	ftl_free(ftl->free.slots);
	ftl_free(ftl->worn.slots);
	ftl_free(ftl->lpn_class);
	ftl_free(ftl);
}

int ftl_write(struct ftl *ftl, u64 lpn, u32 *ppn)
{
	return ftl_write_class(ftl, lpn, 0, ppn);
}

void ftl_prefetch_write(const struct ftl *ftl, u64 lpn, bool deep)
{
	u32 ppn;

	if (lpn >= ftl->geo.logical_pages)
		return;
	if (!deep) {
		ftl_prefetch(&ftl->l2p[lpn]);
		return;
	}
	ppn = FTL_READ_ONCE(ftl->l2p[lpn]);
	if (ppn == FTL_UNMAPPED)
		return;
	if (ftl->p2l)
		ftl_prefetch(&ftl->p2l[ppn]);
	ftl_prefetch(&ftl->blocks[ppn_block(ftl, ppn)]);
}

/*
 * @lpn's current copy, if any, is superseded: released. Read the mapping
 * only now: GC may just have moved it.
 */
static void supersede(struct ftl *ftl, u64 lpn)
{
	u32 old = ftl->l2p[lpn];

	if (old != FTL_UNMAPPED) {
		ftl_invalidate_ppn(ftl, old);
		if (ftl->ops && ftl->ops->release)
			ftl->ops->release(ftl->ctx, lpn, old);
	} else {
		ftl->valid_pages++;
	}
}

/* @lpn was written by the host in class @cls. */
static void count_host_page(struct ftl *ftl, u64 lpn, u32 cls)
{
	if (ftl->lpn_class)
		ftl->lpn_class[lpn] = (u8)cls;
	ftl->counters.host_pages_written++;
	ftl->classes[cls].pages_written++;
}

static int check_host_write(const struct ftl *ftl, u64 lpn, u64 n, u32 cls)
{
	if (FTL_FRONTIER_HOST(cls) >= ftl->nr_frontiers)
		return -EINVAL;
	if (lpn >= ftl->geo.logical_pages || n > ftl->geo.logical_pages - lpn)
		return -ERANGE;
	if (ftl->read_only)
		return -EROFS;
	return 0;
}

int ftl_write_class(struct ftl *ftl, u64 lpn, u32 cls, u32 *ppn)
{
	u32 f = FTL_FRONTIER_HOST(cls);
	int err = check_host_write(ftl, lpn, 1, cls);

	if (err)
		return err;
	do {
		err = prepare_host_page(ftl, cls);
		if (err)
			return err;
	} while (ftl_program_fails(ftl, f));
	supersede(ftl, lpn);
	*ppn = ftl_program_page(ftl, f, lpn);
	count_host_page(ftl, lpn, cls);
	return 0;
}

/*
 * Make room for @n host pages of class @cls, programmed with no GC in
 * between: the open block, and if it has fewer than @n pages left, a
 * free block to follow it that the host may take (another stays behind
 * for GC, as prepare_host_page() keeps).
 */
static int prepare_atomic(struct ftl *ftl, u32 cls, u32 n)
{
	u32 f = FTL_FRONTIER_HOST(cls);
	int err = prepare_host_page(ftl, cls);

	if (err || ftl_frontier_room(ftl, f) >= n)
		return err;
	if (ftl->free.nr < ftl->geo.gc_low_blocks || ftl->gc_active ||
	    ftl->failing.len) {
		err = ftl_gc_run(ftl);
		if (err)
			return err;
	}
	return ftl->free.nr < 2 ? ftl_out_of_blocks(ftl) : 0;
}

/*
 * Program @n pages into class @cls's frontier, unmapped, into @ppns. When
 * the open block fills, the rest go to a free block, and the full one is
 * left in *@full, to be closed (and sorted by its valid pages) only after
 * the pages are mapped or abandoned.
 * Return: false if a program failed (the pages so far are abandoned).
 */
static bool program_atomic(struct ftl *ftl, u32 cls, u32 n, u32 *ppns,
			   u32 *full)
{
	u32 f = FTL_FRONTIER_HOST(cls), i;

	for (i = 0; i < n; i++) {
		if (!ftl_frontier_room(ftl, f)) {
			*full = ftl->open[f];
			ftl_open_free_block(ftl, f, false);
		}
		if (ftl_program_fails(ftl, f)) {
			ftl->counters.atomic_pages_abandoned += i;
			return false;
		}
		ppns[i] = ftl_program_next(ftl, f);
	}
	return true;
}

/* The block an atomic write filled, once its pages are settled. */
static void close_full(struct ftl *ftl, u32 cls, u32 *full)
{
	if (*full == FTL_NONE)
		return;
	ftl->classes[cls].blocks_filled++;
	ftl_close_block(ftl, *full);
	*full = FTL_NONE;
}

int ftl_write_atomic(struct ftl *ftl, u64 lpn, u32 n, u32 cls, u32 *ppns)
{
	int err = check_host_write(ftl, lpn, n, cls);
	u32 full = FTL_NONE, i;

	if (err)
		return err;
	if (!n || n > ftl->geo.pages_per_block)
		return -EINVAL;
	for (;;) {
		err = prepare_atomic(ftl, cls, n);
		if (err)
			return err;
		if (program_atomic(ftl, cls, n, ppns, &full))
			break;
		close_full(ftl, cls, &full);
	}
	for (i = 0; i < n; i++) {
		supersede(ftl, lpn + i);
		ftl_map_programmed(ftl, ppns[i], lpn + i);
		count_host_page(ftl, lpn + i, cls);
	}
	close_full(ftl, cls, &full);
	ftl->counters.atomic_writes++;
	return 0;
}

void ftl_get_class_stats(const struct ftl *ftl, u32 cls,
			 struct ftl_class_stats *out)
{
	*out = cls < FTL_MAX_CLASSES ? ftl->classes[cls] :
	       (struct ftl_class_stats){ 0 };
}

int ftl_read(struct ftl *ftl, u64 lpn, u32 *ppn)
{
	if (lpn >= ftl->geo.logical_pages)
		return -ERANGE;
	*ppn = ftl->l2p[lpn];
	ftl->counters.host_pages_read++;
	if (*ppn == FTL_UNMAPPED)
		ftl->counters.unmapped_reads++;
	return 0;
}

u32 ftl_lookup(const struct ftl *ftl, u64 lpn)
{
	if (FTL_WARN_ON(lpn >= ftl->geo.logical_pages))
		return FTL_UNMAPPED;
	return ftl->l2p[lpn];
}

u32 ftl_lookup_unlocked(const struct ftl *ftl, u64 lpn)
{
	if (lpn >= ftl->geo.logical_pages)
		return FTL_UNMAPPED;
	return FTL_READ_ONCE(ftl->l2p[lpn]);
}

static s64 unmap_range(struct ftl *ftl, u64 lpn, u64 count)
{
	u64 end = lpn + count, i;
	s64 unmapped = 0;

	if (lpn > ftl->geo.logical_pages ||
	    count > ftl->geo.logical_pages - lpn)
		return -ERANGE;
	if (ftl->read_only)
		return -EROFS;
	for (i = lpn; i < end; i++) {
		u32 ppn = ftl->l2p[i];

		if (ppn == FTL_UNMAPPED)
			continue;
		ftl_invalidate_ppn(ftl, ppn);
		FTL_WRITE_ONCE(ftl->l2p[i], FTL_UNMAPPED);
		ftl->valid_pages--;
		unmapped++;
		if (ftl->ops && ftl->ops->release)
			ftl->ops->release(ftl->ctx, i, ppn);
	}
	return unmapped;
}

s64 ftl_discard(struct ftl *ftl, u64 lpn, u64 count)
{
	s64 unmapped = unmap_range(ftl, lpn, count);

	if (unmapped < 0)
		return unmapped;
	ftl->counters.discard_calls++;
	ftl->counters.pages_discarded += count;
	ftl->counters.valid_pages_discarded += unmapped;
	return unmapped;
}

s64 ftl_unmap(struct ftl *ftl, u64 lpn, u64 count)
{
	return unmap_range(ftl, lpn, count);
}

void ftl_get_stats(const struct ftl *ftl, struct ftl_stats *stats)
{
	*stats = ftl->counters;
	stats->valid_pages = ftl->valid_pages;
	stats->pages_stale = ftl->cfg.remanence ? ftl->stale_pages : 0;
	stats->free_blocks = ftl->free.nr;
	stats->erase_min = erase_min(ftl);
	stats->bad_blocks = ftl->bad_blocks;
	stats->spare_blocks = ftl_spare_now(ftl);
	stats->read_only = ftl->read_only;
	stats->erase_max = ftl->erase_max;
	stats->erase_mean_milli = ftl_div_u64(ftl->erase_sum * 1000,
					      ftl->geo.physical_blocks);
	stats->waf_milli = stats->host_pages_written ?
		ftl_div_u64(stats->nand_pages_written * 1000,
			    stats->host_pages_written) : 0;
}

void ftl_reset_stats(struct ftl *ftl)
{
	u32 c;

	ftl->counters = (struct ftl_stats){ 0 };
	for (c = 0; c < FTL_MAX_CLASSES; c++)
		ftl->classes[c] = (struct ftl_class_stats){ 0 };
}

void ftl_get_geometry(const struct ftl *ftl, struct ftl_geometry *geo)
{
	*geo = ftl->geo;
}

u32 ftl_block_erase_count(const struct ftl *ftl, u32 block)
{
	if (FTL_WARN_ON(block >= ftl->geo.physical_blocks))
		return 0;
	return ftl->blocks[block].erase_count;
}

enum ftl_read_only ftl_read_only(const struct ftl *ftl)
{
	return ftl->read_only;
}

u64 ftl_metadata_bytes(const struct ftl *ftl)
{
	return ftl->metadata_bytes;
}
