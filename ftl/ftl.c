// SPDX-License-Identifier: GPL-2.0
/*
 * ftl.c - a portable page-mapped flash translation layer.
 *
 * Blocks move through these states:
 *
 *   FREE --(opened for a write stream)--> OPEN --(last page programmed)-->
 *   CLOSED --(chosen as victim, valid pages relocated, erased)--> FREE
 *
 *   OPEN --(a program fails)--> FAILING --(valid pages relocated)--> BAD
 *   VICTIM --(the erase fails, or the block reached its endurance)--> BAD
 *
 * Free blocks sit in a min-heap keyed by erase count, so the least worn
 * block is always opened next (dynamic wear leveling). Closed blocks sit
 * on two lists and a heap at once: a list per valid-page count, in the
 * order the blocks entered it (greedy picks the head of the lowest
 * non-empty one, cost-benefit compares the heads of all of them: O(pages
 * per block)), a list in closing order (FIFO picks its head), and a
 * min-heap by erase count shared with failing blocks (static wear leveling
 * takes its root). Host writes and relocations fill separate open blocks,
 * so data that survived a GC is kept apart from fresh data (hot/cold
 * separation).
 *
 * Work per call is bounded: no path walks every block. Garbage collection
 * does what the next host block needs, plus one block towards the high
 * watermark; the writes that open the next host blocks continue from
 * there.
 *
 * All state is owned by the caller's lock; see ftl.h.
 */
#include "ftl_impl.h"

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

/* ---- heaps on (erase_count, block number) ---- */

static void heap_place(struct ftl *ftl, struct ftl_heap *heap, u32 pos, u32 b)
{
	heap->slots[pos] = b;
	ftl->blocks[b].heap_pos = pos;
}

static void heap_sift_up(struct ftl *ftl, struct ftl_heap *heap, u32 pos)
{
	u32 b = heap->slots[pos];

	while (pos > 0) {
		u32 parent = (pos - 1) / 2;

		if (!heap_less(ftl, b, heap->slots[parent]))
			break;
		heap_place(ftl, heap, pos, heap->slots[parent]);
		pos = parent;
	}
	heap_place(ftl, heap, pos, b);
}

static void heap_sift_down(struct ftl *ftl, struct ftl_heap *heap, u32 pos)
{
	u32 b = heap->slots[pos];

	for (;;) {
		u32 child = 2 * pos + 1;

		if (child >= heap->nr)
			break;
		if (child + 1 < heap->nr &&
		    heap_less(ftl, heap->slots[child + 1], heap->slots[child]))
			child++;
		if (!heap_less(ftl, heap->slots[child], b))
			break;
		heap_place(ftl, heap, pos, heap->slots[child]);
		pos = child;
	}
	heap_place(ftl, heap, pos, b);
}

static void heap_push(struct ftl *ftl, struct ftl_heap *heap, u32 b)
{
	heap_place(ftl, heap, heap->nr++, b);
	heap_sift_up(ftl, heap, heap->nr - 1);
}

/* Remove block @b, which is in @heap. */
static void heap_remove(struct ftl *ftl, struct ftl_heap *heap, u32 b)
{
	u32 pos = ftl->blocks[b].heap_pos;

	heap->nr--;
	if (pos < heap->nr) {
		u32 last = heap->slots[heap->nr];

		heap_place(ftl, heap, pos, last);
		heap_sift_down(ftl, heap, pos);
		heap_sift_up(ftl, heap, ftl->blocks[last].heap_pos);
	}
	ftl->blocks[b].heap_pos = FTL_NONE;
}

static void free_push(struct ftl *ftl, u32 b)
{
	ftl->blocks[b].state = FTL_BLOCK_FREE;
	heap_push(ftl, &ftl->free, b);
}

/*
 * The most worn free block: where static wear leveling parks cold data.
 * A scan, but of the free pool only, which holds at most gc_high_blocks
 * plus a few blocks once any block has been erased (before that, wear
 * leveling has nothing to level).
 */
static u32 free_most_worn(const struct ftl *ftl)
{
	u32 pos, best = 0;

	for (pos = 1; pos < ftl->free.nr; pos++)
		if (ftl->blocks[ftl->free.slots[pos]].erase_count >
		    ftl->blocks[ftl->free.slots[best]].erase_count)
			best = pos;
	return ftl->free.slots[best];
}

/* ---- closed and failing blocks ---- */

static void closed_insert(struct ftl *ftl, u32 b)
{
	ftl->blocks[b].state = FTL_BLOCK_CLOSED;
	blist_add_tail(&ftl->buckets[ftl->blocks[b].valid],
		       ftl->bucket_links, b);
	blist_add_tail(&ftl->closed, ftl->closed_links, b);
	heap_push(ftl, &ftl->worn, b);
}

static void closed_remove(struct ftl *ftl, u32 b)
{
	blist_del(&ftl->buckets[ftl->blocks[b].valid], ftl->bucket_links, b);
	blist_del(&ftl->closed, ftl->closed_links, b);
	heap_remove(ftl, &ftl->worn, b);
}

static void failing_insert(struct ftl *ftl, u32 b)
{
	ftl->blocks[b].state = FTL_BLOCK_FAILING;
	blist_add_tail(&ftl->failing, ftl->closed_links, b);
	heap_push(ftl, &ftl->worn, b);
}

static void failing_remove(struct ftl *ftl, u32 b)
{
	blist_del(&ftl->failing, ftl->closed_links, b);
	heap_remove(ftl, &ftl->worn, b);
}

/* ---- read-only end of life ---- */

/* Spare blocks left after retiring the bad ones. */
static u32 spare_now(const struct ftl *ftl)
{
	return ftl->bad_blocks < ftl->geo.spare_blocks ?
	       ftl->geo.spare_blocks - ftl->bad_blocks : 0;
}

/*
 * From now on the FTL refuses every change and keeps serving reads: what
 * a worn-out SSD does, and the safe answer to a broken invariant (going
 * on could overwrite data that is still mapped).
 */
static void enter_read_only(struct ftl *ftl, enum ftl_read_only why)
{
	if (ftl->read_only == FTL_WRITABLE)
		ftl->read_only = why;
}

/* An internal invariant failed: report it once and stop changing data. */
static bool ftl_broken(struct ftl *ftl, bool cond)
{
	if (FTL_WARN_ON(cond)) {
		enter_read_only(ftl, FTL_READ_ONLY_BROKEN);
		return true;
	}
	return false;
}

/*
 * No free block where one is needed. On a healthy device the geometry
 * check rules that out; once blocks have gone bad it is the end of life
 * arriving between two spare-block checks.
 */
static int out_of_blocks(struct ftl *ftl)
{
	if (ftl->bad_blocks || ftl->failing.len) {
		enter_read_only(ftl, FTL_READ_ONLY_WORN_OUT);
		return -EROFS;
	}
	ftl_broken(ftl, true);
	return -ENOSPC;
}

/* ---- flash faults ---- */

/* splitmix64: small, fast, and the same sequence on every host. */
static u64 fault_next(struct ftl *ftl)
{
	u64 z = (ftl->fault_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* True with probability @ppm per million (multiply-shift, no division). */
static bool fault_happens(struct ftl *ftl, u32 ppm)
{
	if (!ppm)
		return false;
	return ((fault_next(ftl) >> 32) * 1000000ULL) >> 32 < ppm;
}

/*
 * A block leaves service for good: the spare pool shrinks by one, so
 * write amplification rises as the device ages. When fewer spares remain
 * than garbage collection needs to make progress, the device turns
 * read-only.
 */
static void retire_block(struct ftl *ftl, u32 b)
{
	ftl->blocks[b].state = FTL_BLOCK_BAD;
	ftl->bad_blocks++;
	if (ftl->ops && ftl->ops->retired)
		ftl->ops->retired(ftl->ctx, b, ftl->blocks[b].erase_count);
	if (spare_now(ftl) < ftl->geo.gc_high_blocks + FTL_NR_STREAMS)
		enter_read_only(ftl, FTL_READ_ONLY_WORN_OUT);
}

/* ---- pages ---- */

static void set_recorded_lpn(struct ftl *ftl, u32 ppn, u32 lpn)
{
	if (ftl->p2l)
		ftl->p2l[ppn] = lpn;
}

/*
 * The physical page no longer holds the current copy of its logical page.
 * A closed block moves to the tail of the next lower valid-count bucket,
 * which is what lets greedy GC prefer it from now on and keeps every
 * bucket ordered by changed_at.
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
	if (closed) {
		blk->changed_at = ftl->now;
		blist_add_tail(&ftl->buckets[blk->valid], ftl->bucket_links, b);
	}
}

static void close_open_block(struct ftl *ftl, enum ftl_stream stream)
{
	u32 b = ftl->open[stream];

	ftl->blocks[b].changed_at = ftl->now;
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
	u32 b = most_worn ? free_most_worn(ftl) : ftl->free.slots[0];

	heap_remove(ftl, &ftl->free, b);
	ftl->blocks[b].state = FTL_BLOCK_OPEN;
	ftl->open[stream] = b;
}

static bool stream_has_room(const struct ftl *ftl, enum ftl_stream stream)
{
	u32 b = ftl->open[stream];

	return b != FTL_NONE &&
	       ftl->blocks[b].write_ptr < ftl->geo.pages_per_block;
}

/*
 * Roll the dice for the next program of @stream's open block. A failed
 * program leaves the page unusable, and the block is not trusted with
 * another: it stops taking writes (the rest of its pages are skipped) and
 * waits, still readable, until GC has relocated its valid pages and
 * retires it. The caller programs the data elsewhere.
 */
static bool program_fails(struct ftl *ftl, enum ftl_stream stream)
{
	u32 b = ftl->open[stream];

	if (!fault_happens(ftl, ftl->cfg.program_fail_ppm))
		return false;
	ftl->counters.program_failures++;
	ftl->blocks[b].write_ptr = ftl->geo.pages_per_block;
	ftl->blocks[b].changed_at = ftl->now;
	failing_insert(ftl, b);
	ftl->open[stream] = FTL_NONE;
	return true;
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

/*
 * An erase fails at random (erase_fail_ppm) or because the block has
 * reached its endurance; then the block is retired instead of freed.
 */
static bool erase_fails(struct ftl *ftl, const struct ftl_block *blk)
{
	if (ftl->cfg.endurance && blk->erase_count >= ftl->cfg.endurance)
		return true;
	return fault_happens(ftl, ftl->cfg.erase_fail_ppm);
}

static void erase_block(struct ftl *ftl, u32 b)
{
	struct ftl_block *blk = &ftl->blocks[b];

	/* Erasing would destroy mapped data: keep the block, stop writing. */
	if (ftl_broken(ftl, blk->valid != 0)) {
		closed_insert(ftl, b);
		return;
	}
	if (erase_fails(ftl, blk)) {
		ftl->counters.erase_failures++;
		retire_block(ftl, b);
		return;
	}
	blk->erase_count++;
	blk->write_ptr = 0;
	ftl->erase_sum++;
	if (blk->erase_count > ftl->erase_max)
		ftl->erase_max = blk->erase_count;
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
 * block is free to take. The age of a block is the time since its valid
 * count last changed (it closed, or a page of it was overwritten or
 * discarded): data that has stopped dying is cold. Each bucket is ordered
 * by that time, so only the bucket heads compete: O(pages per block).
 */
static u32 pick_cost_benefit(const struct ftl *ftl)
{
	u32 ppb = ftl->geo.pages_per_block;
	u32 valid, best = FTL_NONE;
	u64 best_score = 0;

	if (ftl->buckets[0].head != FTL_NONE)
		return ftl->buckets[0].head;
	for (valid = 1; valid < ppb; valid++) {
		u32 b = ftl->buckets[valid].head;
		u64 age, score;

		if (b == FTL_NONE)
			continue;
		age = ftl->now - ftl->blocks[b].changed_at + 1;
		score = ftl_div_u64(age * (ppb - valid), ppb + valid);
		if (best == FTL_NONE || score > best_score) {
			best = b;
			best_score = score;
		}
	}
	/* Only full blocks: nothing to gain, but FIFO-like progress. */
	return best != FTL_NONE ? best : ftl->buckets[ppb].head;
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
 * Make the GC stream ready to program one page: open a free block if its
 * block is full (the most worn one for wear leveling), and try again in a
 * new block whenever a program fails.
 */
static int prepare_gc_page(struct ftl *ftl, bool wear_leveling)
{
	for (;;) {
		if (!stream_has_room(ftl, FTL_STREAM_GC)) {
			if (ftl->open[FTL_STREAM_GC] != FTL_NONE)
				close_open_block(ftl, FTL_STREAM_GC);
			if (!ftl->free.nr)
				return out_of_blocks(ftl);
			open_free_block(ftl, FTL_STREAM_GC, wear_leveling);
		}
		if (!program_fails(ftl, FTL_STREAM_GC))
			return 0;
	}
}

/* Relocations count as they happen, runs only when a block was done. */
static void count_collection(struct ftl *ftl, u32 relocated,
			     bool wear_leveling, bool done)
{
	if (wear_leveling) {
		ftl->counters.wl_relocations += relocated;
		ftl->counters.wl_runs += done;
	} else {
		ftl->counters.gc_relocations += relocated;
		ftl->counters.gc_runs += done;
	}
}

/* Put a victim back where it came from: it still holds data. */
static void victim_restore(struct ftl *ftl, u32 b, bool failing)
{
	if (failing)
		failing_insert(ftl, b);
	else
		closed_insert(ftl, b);
}

/*
 * Relocate every valid page of closed or failing block @b into the GC
 * stream, then erase a closed block or retire a failing one. Relocations
 * only ever come from pages that are still mapped, so discarded or
 * overwritten data is never copied.
 */
static int collect_block(struct ftl *ftl, u32 b, bool wear_leveling)
{
	struct ftl_block *blk = &ftl->blocks[b];
	bool failing = blk->state == FTL_BLOCK_FAILING;
	u32 ppb = ftl->geo.pages_per_block;
	u32 first = b * ppb, i, relocated = 0;
	int err;

	if (failing)
		failing_remove(ftl, b);
	else
		closed_remove(ftl, b);
	blk->state = FTL_BLOCK_VICTIM;
	for (i = 0; i < ppb && blk->valid; i++) {
		u32 from = first + i, lpn = ppn_owner(ftl, from), to;

		if (lpn == FTL_UNMAPPED)
			continue;
		err = prepare_gc_page(ftl, wear_leveling);
		if (err) {
			count_collection(ftl, relocated, wear_leveling, false);
			victim_restore(ftl, b, failing);
			return err;
		}
		set_recorded_lpn(ftl, from, FTL_UNMAPPED);
		blk->valid--;
		to = program_page(ftl, FTL_STREAM_GC, lpn);
		if (ftl->ops && ftl->ops->move)
			ftl->ops->move(ftl->ctx, from, to);
		relocated++;
	}
	count_collection(ftl, relocated, wear_leveling, true);
	if (ftl->ops && ftl->ops->collected)
		ftl->ops->collected(ftl->ctx, b, relocated, wear_leveling);
	if (failing)
		retire_block(ftl, b);
	else
		erase_block(ftl, b);
	return 0;
}

/*
 * The next block to collect: failing blocks first (their data sits in a
 * block that is known bad), then victims until the free pool is back at
 * @target.
 *
 * Return: false when this call has done enough, else true with *@victim
 * set (FTL_NONE if no block can be collected).
 */
static bool next_victim(struct ftl *ftl, u32 target, u32 *victim)
{
	if (ftl->failing.len) {
		*victim = ftl->failing.head;
		return true;
	}
	if (ftl->free.nr >= ftl->geo.gc_high_blocks) {
		ftl->gc_active = false;
		return false;
	}
	if (ftl->free.nr >= target)
		return false;
	*victim = pick_victim(ftl);
	return true;
}

/*
 * Collect until the free pool reaches the low watermark (the host needs
 * that now), or FTL_GC_GAIN_PER_CALL blocks more than it found, up to the
 * high watermark. A block full of valid data gains nothing (FIFO may
 * still pick one), so give up only after a whole pass over the closed
 * blocks freed no page: the geometry check makes that impossible, hence
 * the warning.
 */
static int gc_run(struct ftl *ftl)
{
	u32 target = ftl->free.nr + FTL_GC_GAIN_PER_CALL, fruitless = 0;

	if (target < ftl->geo.gc_low_blocks)
		target = ftl->geo.gc_low_blocks;
	ftl->gc_active = true;
	for (;;) {
		u32 victim;
		int err;

		if (ftl->read_only)
			return -EROFS;
		if (!next_victim(ftl, target, &victim))
			return 0;
		if (ftl_broken(ftl, victim == FTL_NONE))
			return -ENOSPC;
		if (ftl->blocks[victim].valid == ftl->geo.pages_per_block &&
		    ftl->blocks[victim].state == FTL_BLOCK_CLOSED) {
			if (ftl_broken(ftl, ++fruitless > ftl->closed.len))
				return -ENOSPC;
		} else {
			fruitless = 0;
		}
		err = collect_block(ftl, victim, false);
		if (err)
			return err;
	}
}

/* ---- static wear leveling ---- */

/*
 * Data that is never rewritten pins its block at a low erase count while
 * hot blocks wear out. When the spread exceeds the threshold, move the
 * data off the least-erased closed block (the root of the worn heap) so
 * that block re-enters the free pool, where dynamic wear leveling hands
 * it out first.
 */
static int wear_level(struct ftl *ftl)
{
	u32 coldest;
	int err;

	ftl->erases_since_wl_check = 0;
	if (!ftl->worn.nr)
		return 0;
	coldest = ftl->worn.slots[0];
	/* A failing block is GC's to relocate, and leaves service anyway. */
	if (ftl->blocks[coldest].state != FTL_BLOCK_CLOSED ||
	    ftl->erase_max - ftl->blocks[coldest].erase_count <=
	    ftl->cfg.wl_threshold)
		return 0;
	err = collect_block(ftl, coldest, true);
	/* Relocations may have filled the GC block; stay above reserve. */
	if (!err && ftl->free.nr < ftl->geo.gc_low_blocks)
		err = gc_run(ftl);
	return err;
}

static bool wear_level_due(const struct ftl *ftl)
{
	return ftl->cfg.wl_threshold &&
	       ftl->erases_since_wl_check >= FTL_WL_CHECK_INTERVAL &&
	       ftl->erase_max - erase_min(ftl) > ftl->cfg.wl_threshold &&
	       ftl->free.nr >= ftl->geo.gc_low_blocks;
}

/*
 * Make room for one host page. The host may only take a free block while
 * another stays behind for the GC stream (GC reclaims by relocating, so it
 * needs a destination); GC keeps at least gc_low_blocks >= 2 free. Between
 * the watermarks, each new host block continues the GC run a little.
 */
static int prepare_host_page(struct ftl *ftl)
{
	int err;

	if (stream_has_room(ftl, FTL_STREAM_HOST))
		return 0;
	if (ftl->open[FTL_STREAM_HOST] != FTL_NONE)
		close_open_block(ftl, FTL_STREAM_HOST);
	if (ftl->free.nr < ftl->geo.gc_low_blocks || ftl->gc_active ||
	    ftl->failing.len) {
		err = gc_run(ftl);
		if (err)
			return err;
	}
	if (wear_level_due(ftl)) {
		err = wear_level(ftl);
		if (err)
			return err;
	}
	if (ftl->free.nr < 2)
		return out_of_blocks(ftl);
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
		.fault_seed = FTL_DEFAULT_FAULT_SEED,
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
	if (cfg->program_fail_ppm > FTL_MAX_FAIL_PPM ||
	    cfg->erase_fail_ppm > FTL_MAX_FAIL_PPM)
		return config_fail(why, "fault rates must be 0 to 100000 per million");
	if (cfg->endurance > FTL_MAX_ENDURANCE)
		return config_fail(why, "endurance must be 0 (unlimited) to 100000000 erases");
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
	ftl->free.slots = ftl_alloc_array(ftl, geo.physical_blocks,
					  sizeof(u32));
	ftl->worn.slots = ftl_alloc_array(ftl, geo.physical_blocks,
					  sizeof(u32));
	if (!ftl->l2p || (!ftl->p2l && !(ops && ops->read_oob)) ||
	    !ftl->blocks || !ftl->buckets || !ftl->bucket_links ||
	    !ftl->closed_links || !ftl->free.slots || !ftl->worn.slots) {
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
	blist_init(&ftl->failing);
	for (i = 0; i < geo.physical_blocks; i++) {
		ftl->bucket_links[i] = (struct ftl_link){ FTL_NONE, FTL_NONE };
		ftl->closed_links[i] = (struct ftl_link){ FTL_NONE, FTL_NONE };
		free_push(ftl, i);
	}
	ftl->open[FTL_STREAM_HOST] = FTL_NONE;
	ftl->open[FTL_STREAM_GC] = FTL_NONE;
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
	ftl_free(ftl);
}

int ftl_write(struct ftl *ftl, u64 lpn, u32 *ppn)
{
	u32 old;
	int err;

	if (lpn >= ftl->geo.logical_pages)
		return -ERANGE;
	if (ftl->read_only)
		return -EROFS;
	do {
		err = prepare_host_page(ftl);
		if (err)
			return err;
	} while (program_fails(ftl, FTL_STREAM_HOST));
	/* Read the mapping only now: GC may just have moved the old copy. */
	old = ftl->l2p[lpn];
	if (old != FTL_UNMAPPED) {
		invalidate_ppn(ftl, old);
		if (ftl->ops && ftl->ops->release)
			ftl->ops->release(ftl->ctx, lpn, old);
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
	if (ftl->read_only)
		return -EROFS;
	for (i = lpn; i < end; i++) {
		u32 ppn = ftl->l2p[i];

		if (ppn == FTL_UNMAPPED)
			continue;
		invalidate_ppn(ftl, ppn);
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
	stats->free_blocks = ftl->free.nr;
	stats->erase_min = erase_min(ftl);
	stats->bad_blocks = ftl->bad_blocks;
	stats->spare_blocks = spare_now(ftl);
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

enum ftl_read_only ftl_read_only(const struct ftl *ftl)
{
	return ftl->read_only;
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
