// SPDX-License-Identifier: GPL-2.0
/*
 * ftl.c - a portable page-mapped flash translation layer.
 *
 * Blocks move through three states:
 *
 *   FREE --(opened for a write stream)--> OPEN --(last page programmed)-->
 *   CLOSED --(chosen as victim, valid pages relocated, erased)--> FREE
 *
 * Free blocks sit in a min-heap keyed by erase count, so the least worn
 * block is always opened next (dynamic wear leveling). Closed blocks sit on
 * two lists at once: a list per valid-page count (greedy picks from the
 * lowest non-empty one in O(pages_per_block)) and a list in closing order
 * (FIFO picks the head; cost-benefit walks it). Host writes and relocations
 * fill separate open blocks, so data that survived a GC is kept apart from
 * fresh data (hot/cold separation).
 *
 * All state is owned by the caller's lock; see ftl.h.
 */
#include "ftl.h"

#define FTL_NONE		U32_MAX
/* Erases between static wear-leveling checks (each an O(blocks) scan). */
#define FTL_WL_CHECK_INTERVAL	4

enum ftl_stream {
	FTL_STREAM_HOST,
	FTL_STREAM_GC,
	FTL_NR_STREAMS,
};

enum ftl_block_state {
	FTL_BLOCK_FREE,
	FTL_BLOCK_OPEN,
	FTL_BLOCK_CLOSED,
	FTL_BLOCK_VICTIM,	/* being relocated, on no list */
};

/* A link in a doubly linked list of blocks, by block number. */
struct ftl_link {
	u32 prev;
	u32 next;
};

struct ftl_list {
	u32 head;
	u32 tail;
	u32 len;
};

struct ftl_block {
	u32 valid;		/* pages holding the current copy of an lpn */
	u32 erase_count;
	u32 write_ptr;		/* next page to program */
	u32 heap_pos;		/* index in free_heap while FREE */
	u64 closed_at;		/* ftl->now when the block was closed */
	u8 state;		/* enum ftl_block_state */
};

struct ftl {
	struct ftl_config cfg;
	struct ftl_geometry geo;
	const struct ftl_ops *ops;
	void *ctx;

	u32 *l2p;			/* lpn -> ppn or FTL_UNMAPPED */
	u32 *p2l;			/* ppn -> lpn, NULL with ops->read_oob */
	bool ready;			/* ftl_create() finished */
	struct ftl_block *blocks;

	/* closed blocks by valid count: buckets[0 .. pages_per_block] */
	struct ftl_list *buckets;
	struct ftl_link *bucket_links;
	/* closed blocks, oldest first */
	struct ftl_list closed;
	struct ftl_link *closed_links;

	u32 *free_heap;			/* min-heap of free blocks */
	u32 nr_free;
	u32 open[FTL_NR_STREAMS];	/* FTL_NONE when not open */

	u64 valid_pages;
	u64 erase_sum;
	u32 erase_max;
	u64 now;			/* NAND programs since creation */
	u32 erases_since_wl_check;
	/*
	 * The smallest erase count and how many blocks have it. Counts only
	 * grow by one, so the minimum moves only when its last block is
	 * erased; then one O(blocks) scan finds the next, which amortizes to
	 * O(1) per erase and keeps statistics and the wear-leveling trigger
	 * free of scans.
	 */
	u32 erase_min;
	u32 nr_at_erase_min;
	u64 metadata_bytes;

	struct ftl_stats counters;	/* event counters only */
};

static const char * const ftl_policy_names[FTL_GC_NR_POLICIES] = {
	[FTL_GC_GREEDY] = "greedy",
	[FTL_GC_FIFO] = "fifo",
	[FTL_GC_COST_BENEFIT] = "cost-benefit",
};

/* ---- block lists ---- */

static void blist_init(struct ftl_list *list)
{
	list->head = FTL_NONE;
	list->tail = FTL_NONE;
	list->len = 0;
}

static void blist_add_tail(struct ftl_list *list, struct ftl_link *links,
			   u32 b)
{
	links[b].prev = list->tail;
	links[b].next = FTL_NONE;
	if (list->tail == FTL_NONE)
		list->head = b;
	else
		links[list->tail].next = b;
	list->tail = b;
	list->len++;
}

static void blist_del(struct ftl_list *list, struct ftl_link *links, u32 b)
{
	u32 prev = links[b].prev, next = links[b].next;

	if (prev == FTL_NONE)
		list->head = next;
	else
		links[prev].next = next;
	if (next == FTL_NONE)
		list->tail = prev;
	else
		links[next].prev = prev;
	links[b].prev = FTL_NONE;
	links[b].next = FTL_NONE;
	list->len--;
}

static void closed_insert(struct ftl *ftl, u32 b)
{
	blist_add_tail(&ftl->buckets[ftl->blocks[b].valid],
		       ftl->bucket_links, b);
	blist_add_tail(&ftl->closed, ftl->closed_links, b);
}

static void closed_remove(struct ftl *ftl, u32 b)
{
	blist_del(&ftl->buckets[ftl->blocks[b].valid], ftl->bucket_links, b);
	blist_del(&ftl->closed, ftl->closed_links, b);
}

/* ---- free pool: min-heap on (erase_count, block number) ---- */

static bool heap_less(const struct ftl *ftl, u32 a, u32 b)
{
	u32 ea = ftl->blocks[a].erase_count, eb = ftl->blocks[b].erase_count;

	return ea < eb || (ea == eb && a < b);
}

static void heap_place(struct ftl *ftl, u32 pos, u32 b)
{
	ftl->free_heap[pos] = b;
	ftl->blocks[b].heap_pos = pos;
}

static void heap_sift_up(struct ftl *ftl, u32 pos)
{
	u32 b = ftl->free_heap[pos];

	while (pos > 0) {
		u32 parent = (pos - 1) / 2;

		if (!heap_less(ftl, b, ftl->free_heap[parent]))
			break;
		heap_place(ftl, pos, ftl->free_heap[parent]);
		pos = parent;
	}
	heap_place(ftl, pos, b);
}

static void heap_sift_down(struct ftl *ftl, u32 pos)
{
	u32 b = ftl->free_heap[pos];

	for (;;) {
		u32 child = 2 * pos + 1;

		if (child >= ftl->nr_free)
			break;
		if (child + 1 < ftl->nr_free &&
		    heap_less(ftl, ftl->free_heap[child + 1],
			      ftl->free_heap[child]))
			child++;
		if (!heap_less(ftl, ftl->free_heap[child], b))
			break;
		heap_place(ftl, pos, ftl->free_heap[child]);
		pos = child;
	}
	heap_place(ftl, pos, b);
}

static void free_push(struct ftl *ftl, u32 b)
{
	ftl->blocks[b].state = FTL_BLOCK_FREE;
	heap_place(ftl, ftl->nr_free++, b);
	heap_sift_up(ftl, ftl->nr_free - 1);
}

static u32 free_take(struct ftl *ftl, u32 pos)
{
	u32 b = ftl->free_heap[pos];

	ftl->nr_free--;
	if (pos < ftl->nr_free) {
		u32 last = ftl->free_heap[ftl->nr_free];

		heap_place(ftl, pos, last);
		heap_sift_down(ftl, pos);
		heap_sift_up(ftl, ftl->blocks[last].heap_pos);
	}
	ftl->blocks[b].heap_pos = FTL_NONE;
	return b;
}

/* The most worn free block: where static wear leveling parks cold data. */
static u32 free_most_worn_pos(const struct ftl *ftl)
{
	u32 pos, best = 0;

	for (pos = 1; pos < ftl->nr_free; pos++)
		if (ftl->blocks[ftl->free_heap[pos]].erase_count >
		    ftl->blocks[ftl->free_heap[best]].erase_count)
			best = pos;
	return best;
}

/* ---- pages ---- */

static u32 ppn_block(const struct ftl *ftl, u32 ppn)
{
	return ppn / ftl->geo.pages_per_block;
}

/* The lpn recorded with @ppn: the reverse map, or the page's spare area. */
static u32 ppn_recorded_lpn(const struct ftl *ftl, u32 ppn)
{
	return ftl->p2l ? ftl->p2l[ppn] : ftl->ops->read_oob(ftl->ctx, ppn);
}

/*
 * The lpn whose current copy @ppn holds, or FTL_UNMAPPED. A spare area
 * keeps its lpn after the page is superseded, so only the forward map
 * says whether the page is still valid.
 */
static u32 ppn_owner(const struct ftl *ftl, u32 ppn)
{
	u32 lpn = ppn_recorded_lpn(ftl, ppn);

	if (lpn >= ftl->geo.logical_pages || ftl->l2p[lpn] != ppn)
		return FTL_UNMAPPED;
	return lpn;
}

static void set_recorded_lpn(struct ftl *ftl, u32 ppn, u32 lpn)
{
	if (ftl->p2l)
		ftl->p2l[ppn] = lpn;
}

/*
 * The physical page no longer holds the current copy of its logical page.
 * A closed block changes valid-count bucket, which is what lets greedy GC
 * prefer it from now on.
 */
static void invalidate_ppn(struct ftl *ftl, u32 ppn)
{
	u32 b = ppn_block(ftl, ppn);
	struct ftl_block *blk = &ftl->blocks[b];
	bool closed = blk->state == FTL_BLOCK_CLOSED;

	if (closed)
		blist_del(&ftl->buckets[blk->valid], ftl->bucket_links, b);
	set_recorded_lpn(ftl, ppn, FTL_UNMAPPED);
	blk->valid--;
	if (closed)
		blist_add_tail(&ftl->buckets[blk->valid], ftl->bucket_links, b);
}

static void close_open_block(struct ftl *ftl, enum ftl_stream stream)
{
	u32 b = ftl->open[stream];

	ftl->blocks[b].state = FTL_BLOCK_CLOSED;
	ftl->blocks[b].closed_at = ftl->now;
	closed_insert(ftl, b);
	ftl->open[stream] = FTL_NONE;
}

/*
 * Dynamic wear leveling: open the least worn free block, except for data
 * that static wear leveling moves because it is cold: that goes to the
 * most worn one, which it will then keep from wearing further.
 */
static void open_free_block(struct ftl *ftl, enum ftl_stream stream,
			    bool most_worn)
{
	u32 b = free_take(ftl, most_worn ? free_most_worn_pos(ftl) : 0);

	ftl->blocks[b].state = FTL_BLOCK_OPEN;
	ftl->open[stream] = b;
}

static bool stream_has_room(const struct ftl *ftl, enum ftl_stream stream)
{
	u32 b = ftl->open[stream];

	return b != FTL_NONE &&
	       ftl->blocks[b].write_ptr < ftl->geo.pages_per_block;
}

/* Program the next page of a stream's open block with @lpn. */
static u32 program_page(struct ftl *ftl, enum ftl_stream stream, u32 lpn)
{
	u32 b = ftl->open[stream];
	struct ftl_block *blk = &ftl->blocks[b];
	u32 ppn = b * ftl->geo.pages_per_block + blk->write_ptr++;

	set_recorded_lpn(ftl, ppn, lpn);
	FTL_WRITE_ONCE(ftl->l2p[lpn], ppn);
	blk->valid++;
	ftl->now++;
	ftl->counters.nand_pages_written++;
	return ppn;
}

static void find_erase_min(struct ftl *ftl)
{
	u32 b, count;

	ftl->erase_min = U32_MAX;
	ftl->nr_at_erase_min = 0;
	for (b = 0; b < ftl->geo.physical_blocks; b++) {
		count = ftl->blocks[b].erase_count;
		if (count < ftl->erase_min) {
			ftl->erase_min = count;
			ftl->nr_at_erase_min = 0;
		}
		if (count == ftl->erase_min)
			ftl->nr_at_erase_min++;
	}
}

static void erase_block(struct ftl *ftl, u32 b)
{
	struct ftl_block *blk = &ftl->blocks[b];

	FTL_WARN_ON(blk->valid != 0);
	blk->erase_count++;
	blk->write_ptr = 0;
	ftl->erase_sum++;
	if (blk->erase_count > ftl->erase_max)
		ftl->erase_max = blk->erase_count;
	if (blk->erase_count - 1 == ftl->erase_min &&
	    --ftl->nr_at_erase_min == 0)
		find_erase_min(ftl);
	ftl->counters.erases++;
	ftl->erases_since_wl_check++;
	free_push(ftl, b);
	if (ftl->ops && ftl->ops->erased)
		ftl->ops->erased(ftl->ctx, b, blk->erase_count);
}

/* ---- garbage collection ---- */

static u32 pick_greedy(const struct ftl *ftl)
{
	u32 valid;

	for (valid = 0; valid <= ftl->geo.pages_per_block; valid++)
		if (ftl->buckets[valid].head != FTL_NONE)
			return ftl->buckets[valid].head;
	return FTL_NONE;
}

/*
 * Rosenblum & Ousterhout: benefit / cost = (1 - u) * age / (1 + u). With
 * u = valid / ppb that is (ppb - valid) * age / (ppb + valid); an empty
 * block is free to take.
 */
static u32 pick_cost_benefit(const struct ftl *ftl)
{
	u32 ppb = ftl->geo.pages_per_block;
	u32 b, best = FTL_NONE;
	u64 best_score = 0;

	for (b = ftl->closed.head; b != FTL_NONE;
	     b = ftl->closed_links[b].next) {
		const struct ftl_block *blk = &ftl->blocks[b];
		u64 age = ftl->now - blk->closed_at + 1;
		u64 score;

		if (blk->valid == 0)
			return b;
		score = ftl_div_u64(age * (ppb - blk->valid), ppb + blk->valid);
		if (best == FTL_NONE || score > best_score) {
			best = b;
			best_score = score;
		}
	}
	return best;
}

static u32 pick_victim(const struct ftl *ftl)
{
	switch (ftl->cfg.gc_policy) {
	case FTL_GC_FIFO:
		return ftl->closed.head;
	case FTL_GC_COST_BENEFIT:
		return pick_cost_benefit(ftl);
	default:
		return pick_greedy(ftl);
	}
}

/*
 * Relocate every valid page of closed block @b into the GC stream and
 * erase it. Relocations only ever come from pages that are still mapped,
 * so discarded or overwritten data is never copied.
 */
static int collect_block(struct ftl *ftl, u32 b, bool wear_leveling)
{
	struct ftl_block *blk = &ftl->blocks[b];
	u32 ppb = ftl->geo.pages_per_block;
	u32 first = b * ppb, i, relocated = 0;

	closed_remove(ftl, b);
	blk->state = FTL_BLOCK_VICTIM;
	for (i = 0; i < ppb && blk->valid; i++) {
		u32 from = first + i, lpn = ppn_owner(ftl, from), to;

		if (lpn == FTL_UNMAPPED)
			continue;
		if (!stream_has_room(ftl, FTL_STREAM_GC)) {
			if (ftl->open[FTL_STREAM_GC] != FTL_NONE)
				close_open_block(ftl, FTL_STREAM_GC);
			if (FTL_WARN_ON(ftl->nr_free == 0)) {
				/* Back on the lists: the block still holds data. */
				blk->state = FTL_BLOCK_CLOSED;
				closed_insert(ftl, b);
				return -ENOSPC;
			}
			open_free_block(ftl, FTL_STREAM_GC, wear_leveling);
		}
		set_recorded_lpn(ftl, from, FTL_UNMAPPED);
		blk->valid--;
		to = program_page(ftl, FTL_STREAM_GC, lpn);
		if (ftl->ops && ftl->ops->move)
			ftl->ops->move(ftl->ctx, from, to);
		relocated++;
	}
	if (wear_leveling) {
		ftl->counters.wl_relocations += relocated;
		ftl->counters.wl_runs++;
	} else {
		ftl->counters.gc_relocations += relocated;
		ftl->counters.gc_runs++;
	}
	if (ftl->ops && ftl->ops->collected)
		ftl->ops->collected(ftl->ctx, b, relocated, wear_leveling);
	erase_block(ftl, b);
	return 0;
}

/*
 * Collect victims until the free pool reaches the high watermark. A block
 * full of valid data gains nothing (FIFO may still pick one), so give up
 * only after a whole pass over the closed blocks freed no page: the
 * geometry check makes that impossible, hence the warning.
 */
static int gc_run(struct ftl *ftl)
{
	u32 fruitless = 0;

	while (ftl->nr_free < ftl->geo.gc_high_blocks) {
		u32 victim = pick_victim(ftl);
		int err;

		if (FTL_WARN_ON(victim == FTL_NONE))
			return -ENOSPC;
		if (ftl->blocks[victim].valid == ftl->geo.pages_per_block) {
			if (FTL_WARN_ON(++fruitless > ftl->closed.len))
				return -ENOSPC;
		} else {
			fruitless = 0;
		}
		err = collect_block(ftl, victim, false);
		if (err)
			return err;
	}
	return 0;
}

/* ---- static wear leveling ---- */

/*
 * Data that is never rewritten pins its block at a low erase count while
 * hot blocks wear out. When the spread exceeds the threshold, move the
 * data off the least-erased closed block so that block re-enters the free
 * pool, where dynamic wear leveling hands it out first.
 */
static int wear_level(struct ftl *ftl)
{
	u32 b, coldest = FTL_NONE;
	int err;

	ftl->erases_since_wl_check = 0;
	for (b = ftl->closed.head; b != FTL_NONE;
	     b = ftl->closed_links[b].next)
		if (coldest == FTL_NONE ||
		    ftl->blocks[b].erase_count < ftl->blocks[coldest].erase_count)
			coldest = b;
	if (coldest == FTL_NONE ||
	    ftl->erase_max - ftl->blocks[coldest].erase_count <=
	    ftl->cfg.wl_threshold)
		return 0;
	err = collect_block(ftl, coldest, true);
	/* Relocations may have filled the GC block; stay above reserve. */
	if (!err && ftl->nr_free < ftl->geo.gc_low_blocks)
		err = gc_run(ftl);
	return err;
}

static bool wear_level_due(const struct ftl *ftl)
{
	return ftl->cfg.wl_threshold &&
	       ftl->erases_since_wl_check >= FTL_WL_CHECK_INTERVAL &&
	       ftl->erase_max - ftl->erase_min > ftl->cfg.wl_threshold &&
	       ftl->nr_free >= ftl->geo.gc_low_blocks;
}

/*
 * Make room for one host page. The host may only take a free block while
 * another stays behind for the GC stream (GC reclaims by relocating, so it
 * needs a destination); GC keeps at least gc_high_blocks >= 2 free.
 */
static int prepare_host_page(struct ftl *ftl)
{
	int err;

	if (stream_has_room(ftl, FTL_STREAM_HOST))
		return 0;
	if (ftl->open[FTL_STREAM_HOST] != FTL_NONE)
		close_open_block(ftl, FTL_STREAM_HOST);
	if (ftl->nr_free < ftl->geo.gc_low_blocks) {
		err = gc_run(ftl);
		if (err)
			return err;
	}
	if (wear_level_due(ftl)) {
		err = wear_level(ftl);
		if (err)
			return err;
	}
	if (FTL_WARN_ON(ftl->nr_free < 2))
		return -ENOSPC;
	open_free_block(ftl, FTL_STREAM_HOST, false);
	return 0;
}

/* ---- public API ---- */

void ftl_config_init(struct ftl_config *cfg, u64 logical_pages)
{
	*cfg = (struct ftl_config) {
		.page_size = FTL_DEFAULT_PAGE_SIZE,
		.pages_per_block = FTL_DEFAULT_PAGES_PER_BLOCK,
		.logical_pages = logical_pages,
		.op_percent = FTL_DEFAULT_OP_PERCENT,
		.gc_policy = FTL_GC_GREEDY,
		.wl_threshold = FTL_DEFAULT_WL_THRESHOLD,
	};
}

/* GC needs its two open blocks plus the free-block watermark (2). */
#define FTL_TOO_FEW_SPARE \
	"too few spare blocks for garbage collection (at least 4 with default watermarks): raise over-provisioning or capacity"

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
	if (cfg->logical_pages == 0)
		return config_fail(why, "logical capacity must be at least one page");
	if (cfg->logical_pages >= U32_MAX)
		return config_fail(why, "logical capacity must be below 2^32 pages");

	logical_blocks = ftl_div_u64(cfg->logical_pages + ppb - 1, ppb);
	spare = ftl_div_u64(cfg->logical_pages * cfg->op_percent + 100 * ppb - 1,
			    100 * ppb);
	g.logical_pages = cfg->logical_pages;
	g.pages_per_block = cfg->pages_per_block;
	g.open_blocks = FTL_NR_STREAMS;
	g.gc_low_blocks = cfg->gc_low_blocks ? cfg->gc_low_blocks : 2;
	g.gc_high_blocks = cfg->gc_high_blocks ? cfg->gc_high_blocks :
			   g.gc_low_blocks;
	if (g.gc_low_blocks < 2 || g.gc_high_blocks < g.gc_low_blocks)
		return config_fail(why, "GC watermarks must satisfy 2 <= low <= high");
	/*
	 * Progress: with at most gc_high - 1 blocks free and two open, the
	 * closed blocks must hold more pages than there are logical pages, so
	 * that one of them has an invalid page to reclaim.
	 */
	if (spare < (u64)g.gc_high_blocks + FTL_NR_STREAMS)
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
	ftl->free_heap = ftl_alloc_array(ftl, geo.physical_blocks, sizeof(u32));
	if (!ftl->l2p || (!ftl->p2l && !(ops && ops->read_oob)) ||
	    !ftl->blocks || !ftl->buckets ||
	    !ftl->bucket_links || !ftl->closed_links || !ftl->free_heap) {
		ftl_destroy(ftl);
		return NULL;
	}

	for (i = 0; i < geo.logical_pages; i++)
		ftl->l2p[i] = FTL_UNMAPPED;
	for (i = 0; ftl->p2l && i < geo.physical_pages; i++)
		ftl->p2l[i] = FTL_UNMAPPED;
	for (i = 0; i <= geo.pages_per_block; i++)
		blist_init(&ftl->buckets[i]);
	blist_init(&ftl->closed);
	for (i = 0; i < geo.physical_blocks; i++) {
		ftl->bucket_links[i] = (struct ftl_link){ FTL_NONE, FTL_NONE };
		ftl->closed_links[i] = (struct ftl_link){ FTL_NONE, FTL_NONE };
		free_push(ftl, i);
	}
	ftl->open[FTL_STREAM_HOST] = FTL_NONE;
	ftl->open[FTL_STREAM_GC] = FTL_NONE;
	ftl->nr_at_erase_min = geo.physical_blocks;	/* all 0 */
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
				ftl->ops->release(ftl->ctx, ftl->l2p[lpn]);
	ftl_free(ftl->l2p);
	ftl_free(ftl->p2l);
	ftl_free(ftl->blocks);
	ftl_free(ftl->buckets);
	ftl_free(ftl->bucket_links);
	ftl_free(ftl->closed_links);
	ftl_free(ftl->free_heap);
	ftl_free(ftl);
}

int ftl_write(struct ftl *ftl, u64 lpn, u32 *ppn)
{
	u32 old;
	int err;

	if (lpn >= ftl->geo.logical_pages)
		return -ERANGE;
	err = prepare_host_page(ftl);
	if (err)
		return err;
	/* Read the mapping only now: GC may just have moved the old copy. */
	old = ftl->l2p[lpn];
	if (old != FTL_UNMAPPED) {
		invalidate_ppn(ftl, old);
		if (ftl->ops && ftl->ops->release)
			ftl->ops->release(ftl->ctx, old);
	} else {
		ftl->valid_pages++;
	}
	*ppn = program_page(ftl, FTL_STREAM_HOST, lpn);
	ftl->counters.host_pages_written++;
	return 0;
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
	for (i = lpn; i < end; i++) {
		u32 ppn = ftl->l2p[i];

		if (ppn == FTL_UNMAPPED)
			continue;
		invalidate_ppn(ftl, ppn);
		FTL_WRITE_ONCE(ftl->l2p[i], FTL_UNMAPPED);
		ftl->valid_pages--;
		unmapped++;
		if (ftl->ops && ftl->ops->release)
			ftl->ops->release(ftl->ctx, ppn);
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
	stats->free_blocks = ftl->nr_free;
	stats->erase_min = ftl->erase_min;
	stats->erase_max = ftl->erase_max;
	stats->erase_mean_milli = ftl_div_u64(ftl->erase_sum * 1000,
					      ftl->geo.physical_blocks);
	stats->waf_milli = stats->host_pages_written ?
		ftl_div_u64(stats->nand_pages_written * 1000,
			    stats->host_pages_written) : 0;
}

void ftl_reset_stats(struct ftl *ftl)
{
	ftl->counters = (struct ftl_stats){ 0 };
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

u64 ftl_metadata_bytes(const struct ftl *ftl)
{
	return ftl->metadata_bytes;
}

const char *ftl_policy_name(enum ftl_gc_policy policy)
{
	if ((unsigned int)policy >= FTL_GC_NR_POLICIES)
		return NULL;
	return ftl_policy_names[policy];
}

/* Equal, allowing one trailing newline in @input (sysfs writes have one). */
static bool name_matches(const char *input, const char *name)
{
	while (*name && *input == *name) {
		input++;
		name++;
	}
	return !*name && (!*input || (input[0] == '\n' && !input[1]));
}

int ftl_policy_parse(const char *name)
{
	int policy;

	for (policy = 0; policy < FTL_GC_NR_POLICIES; policy++)
		if (name_matches(name, ftl_policy_names[policy]))
			return policy;
	return -EINVAL;
}

/* ---- invariant checker ---- */

/* Evaluates to @cond; logs the violation when it is false. */
#define FTL_INVARIANT(cond, fmt, ...) ({				\
	bool __held = !!(cond);						\
	if (!__held)							\
		ftl_err("ftl_check: " fmt, ##__VA_ARGS__);		\
	__held;								\
})

static int check_maps(const struct ftl *ftl)
{
	u64 lpn, ppn, mapped = 0;

	for (lpn = 0; lpn < ftl->geo.logical_pages; lpn++) {
		u32 p = ftl->l2p[lpn];

		if (p == FTL_UNMAPPED)
			continue;
		if (!FTL_INVARIANT(p < ftl->geo.physical_pages, "lpn %llu maps beyond the end",
				   (unsigned long long)lpn))
			return -EIO;
		if (!FTL_INVARIANT(ppn_recorded_lpn(ftl, p) == lpn,
				   "lpn %llu -> ppn %u -> lpn %u",
				   (unsigned long long)lpn, p,
				   ppn_recorded_lpn(ftl, p)))
			return -EIO;
		mapped++;
	}
	if (!FTL_INVARIANT(mapped == ftl->valid_pages, "%llu pages mapped, %llu counted",
			   (unsigned long long)mapped,
			   (unsigned long long)ftl->valid_pages))
		return -EIO;
	for (ppn = 0; ppn < ftl->geo.physical_pages; ppn++) {
		u32 l = ppn_recorded_lpn(ftl, ppn);
		const struct ftl_block *blk = &ftl->blocks[ppn_block(ftl, ppn)];

		if (l == FTL_UNMAPPED)
			continue;
		/* Also rules out one lpn owning two physical pages. */
		if (!FTL_INVARIANT(l < ftl->geo.logical_pages && ftl->l2p[l] == ppn,
				   "ppn %llu claims lpn %u which maps elsewhere",
				   (unsigned long long)ppn, l))
			return -EIO;
		if (!FTL_INVARIANT(ppn % ftl->geo.pages_per_block < blk->write_ptr,
				   "ppn %llu holds data but was never programmed",
				   (unsigned long long)ppn))
			return -EIO;
	}
	return 0;
}

static int check_list(const struct ftl *ftl, const struct ftl_list *list,
		      const struct ftl_link *links, s64 valid)
{
	u32 b, prev = FTL_NONE, len = 0;

	for (b = list->head; b != FTL_NONE; b = links[b].next) {
		if (!FTL_INVARIANT(++len <= ftl->geo.physical_blocks, "block list loops"))
			return -EIO;
		if (!FTL_INVARIANT(links[b].prev == prev, "block %u: bad back link", b))
			return -EIO;
		if (!FTL_INVARIANT(ftl->blocks[b].state == FTL_BLOCK_CLOSED,
				   "block %u on a victim list but not closed", b))
			return -EIO;
		if (!FTL_INVARIANT(valid < 0 || ftl->blocks[b].valid == valid,
				   "block %u in bucket %lld has %u valid pages", b, valid,
				   ftl->blocks[b].valid))
			return -EIO;
		prev = b;
	}
	if (!FTL_INVARIANT(list->tail == prev && list->len == len, "list tail/len wrong"))
		return -EIO;
	return 0;
}

static int check_blocks(const struct ftl *ftl)
{
	u32 ppb = ftl->geo.pages_per_block, b, i, nr_open = 0, nr_closed = 0;
	u64 erase_sum = 0, erase_max = 0, bucketed = 0;
	u32 erase_min = U32_MAX, nr_at_erase_min = 0;
	int err;

	for (b = 0; b < ftl->geo.physical_blocks; b++) {
		const struct ftl_block *blk = &ftl->blocks[b];
		u32 valid = 0;

		for (i = 0; i < ppb; i++)
			valid += ppn_owner(ftl, b * ppb + i) != FTL_UNMAPPED;
		if (!FTL_INVARIANT(valid == blk->valid, "block %u: %u valid pages, %u counted",
				   b, valid, blk->valid))
			return -EIO;
		if (!FTL_INVARIANT(blk->write_ptr <= ppb, "block %u: write pointer %u", b,
				   blk->write_ptr))
			return -EIO;
		erase_sum += blk->erase_count;
		if (blk->erase_count > erase_max)
			erase_max = blk->erase_count;
		if (blk->erase_count < erase_min) {
			erase_min = blk->erase_count;
			nr_at_erase_min = 0;
		}
		nr_at_erase_min += blk->erase_count == erase_min;
		switch (blk->state) {
		case FTL_BLOCK_FREE:
			if (!FTL_INVARIANT(blk->write_ptr == 0, "free block %u not erased", b))
				return -EIO;
			if (!FTL_INVARIANT(blk->heap_pos < ftl->nr_free &&
					   ftl->free_heap[blk->heap_pos] == b,
					   "free block %u not in the free pool", b))
				return -EIO;
			break;
		case FTL_BLOCK_OPEN:
			if (!FTL_INVARIANT(ftl->open[FTL_STREAM_HOST] == b ||
					   ftl->open[FTL_STREAM_GC] == b,
					   "block %u open but no stream writes it", b))
				return -EIO;
			nr_open++;
			break;
		case FTL_BLOCK_CLOSED:
			if (!FTL_INVARIANT(blk->write_ptr == ppb, "closed block %u not full", b))
				return -EIO;
			nr_closed++;
			break;
		default:
			if (!FTL_INVARIANT(0, "block %u in state %u between calls", b,
					   blk->state))
				return -EIO;
		}
	}
	if (!FTL_INVARIANT(nr_open + nr_closed + ftl->nr_free == ftl->geo.physical_blocks,
			   "%u open + %u closed + %u free != %u blocks", nr_open, nr_closed,
			   ftl->nr_free, ftl->geo.physical_blocks))
		return -EIO;
	for (i = 1; i < ftl->nr_free; i++)
		if (!FTL_INVARIANT(!heap_less(ftl, ftl->free_heap[i],
					      ftl->free_heap[(i - 1) / 2]),
				   "free pool heap order broken at %u", i))
			return -EIO;
	if (!FTL_INVARIANT(erase_sum == ftl->erase_sum && erase_max == ftl->erase_max,
			   "erase count totals drifted"))
		return -EIO;
	if (!FTL_INVARIANT(erase_min == ftl->erase_min &&
			   nr_at_erase_min == ftl->nr_at_erase_min,
			   "smallest erase count %u (%u blocks), tracked %u (%u)",
			   erase_min, nr_at_erase_min, ftl->erase_min,
			   ftl->nr_at_erase_min))
		return -EIO;
	for (i = 0; i < FTL_NR_STREAMS; i++)
		if (ftl->open[i] != FTL_NONE &&
		    !FTL_INVARIANT(ftl->open[i] < ftl->geo.physical_blocks &&
				   ftl->blocks[ftl->open[i]].state == FTL_BLOCK_OPEN,
				   "stream %u writes block %u, which is not open",
				   i, ftl->open[i]))
			return -EIO;
	if (!FTL_INVARIANT(ftl->open[FTL_STREAM_HOST] == FTL_NONE ||
			   ftl->open[FTL_STREAM_HOST] != ftl->open[FTL_STREAM_GC],
			   "both streams write block %u", ftl->open[FTL_STREAM_HOST]))
		return -EIO;
	err = check_list(ftl, &ftl->closed, ftl->closed_links, -1);
	if (err)
		return err;
	if (!FTL_INVARIANT(ftl->closed.len == nr_closed, "%u closed blocks, %u listed",
			   nr_closed, ftl->closed.len))
		return -EIO;
	for (i = 0; i <= ppb; i++) {
		err = check_list(ftl, &ftl->buckets[i], ftl->bucket_links, i);
		if (err)
			return err;
		bucketed += ftl->buckets[i].len;
	}
	if (!FTL_INVARIANT(bucketed == nr_closed, "%u closed blocks, %llu in buckets",
			   nr_closed, (unsigned long long)bucketed))
		return -EIO;
	return 0;
}

int ftl_check(const struct ftl *ftl)
{
	const struct ftl_stats *c = &ftl->counters;
	int err;

	err = check_maps(ftl);
	if (err)
		return err;
	err = check_blocks(ftl);
	if (err)
		return err;
	if (!FTL_INVARIANT(c->nand_pages_written == c->host_pages_written +
			   c->gc_relocations + c->wl_relocations,
			   "NAND programs != host + GC + wear-leveling programs"))
		return -EIO;
	return 0;
}
