// SPDX-License-Identifier: GPL-2.0
/*
 * blocks.c - the erase blocks of the portable FTL: where each block is in
 * its life, and programming and erasing them.
 *
 *   FREE --(opened for a frontier)--> OPEN --(last page programmed)-->
 *   CLOSED --(chosen as victim: VICTIM, valid pages relocated, erased)--> FREE
 *
 *   OPEN --(a program fails)--> FAILING --(valid pages relocated)--> BAD
 *   VICTIM --(the erase fails, or the block reached its endurance)--> BAD
 *
 * Free blocks sit in a min-heap keyed by erase count, so the least worn
 * block is opened next (dynamic wear leveling; static wear leveling,
 * wear.c, parks cold data on the most worn one instead). Closed blocks sit
 * on two lists and a heap at once: a list per valid-page count, each in the
 * order its blocks last changed (greedy and cost-benefit pick from their
 * heads, gc.c), a list in closing order (FIFO picks its head), and a
 * min-heap by erase count shared with failing blocks (static wear leveling
 * takes its root). Each open block belongs to a write frontier: host
 * writes (one frontier per placement class) and GC relocations fill
 * separate ones, so data that survived a GC is kept apart from fresh data
 * (hot/cold separation), and data of one class from another's.
 *
 * Flash faults come from a seeded generator (program_fail_ppm,
 * erase_fail_ppm; endurance caps the erases): a failed program or erase
 * retires its block, shrinking the spare pool, and when fewer spares are
 * left than garbage collection needs the FTL turns read-only - the end of
 * life, and also the answer to a broken internal invariant.
 *
 * Every call is O(1) or O(log blocks), except free_most_worn() (a scan of
 * the free pool, a few blocks). All state is owned by the caller's lock;
 * see ftl.h.
 */
#include "ftl_impl.h"

void ftl_blist_init(struct ftl_list *list)
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

/*
 * Block @b, closed, joins the bucket of its valid count. Victim picks scan
 * the buckets up from bucket_low; only an addition can lower it.
 */
static void bucket_add(struct ftl *ftl, u32 b)
{
	u32 valid = ftl->blocks[b].valid;

	blist_add_tail(&ftl->buckets[valid], ftl->bucket_links, b);
	if (valid < ftl->bucket_low)
		ftl->bucket_low = valid;
}

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

void ftl_free_push(struct ftl *ftl, u32 b)
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

void ftl_closed_insert(struct ftl *ftl, u32 b)
{
	ftl->blocks[b].state = FTL_BLOCK_CLOSED;
	bucket_add(ftl, b);
	blist_add_tail(&ftl->closed, ftl->closed_links, b);
	heap_push(ftl, &ftl->worn, b);
}

void ftl_closed_remove(struct ftl *ftl, u32 b)
{
	blist_del(&ftl->buckets[ftl->blocks[b].valid], ftl->bucket_links, b);
	blist_del(&ftl->closed, ftl->closed_links, b);
	heap_remove(ftl, &ftl->worn, b);
}

void ftl_failing_insert(struct ftl *ftl, u32 b)
{
	ftl->blocks[b].state = FTL_BLOCK_FAILING;
	blist_add_tail(&ftl->failing, ftl->closed_links, b);
	heap_push(ftl, &ftl->worn, b);
}

void ftl_failing_remove(struct ftl *ftl, u32 b)
{
	blist_del(&ftl->failing, ftl->closed_links, b);
	heap_remove(ftl, &ftl->worn, b);
}

/* Spare blocks left after retiring the bad ones. */
u32 ftl_spare_now(const struct ftl *ftl)
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
bool ftl_broken(struct ftl *ftl, bool cond)
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
int ftl_out_of_blocks(struct ftl *ftl)
{
	if (ftl->bad_blocks || ftl->failing.len) {
		enter_read_only(ftl, FTL_READ_ONLY_WORN_OUT);
		return -EROFS;
	}
	ftl_broken(ftl, true);
	return -ENOSPC;
}

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
void ftl_retire_block(struct ftl *ftl, u32 b)
{
	ftl->blocks[b].state = FTL_BLOCK_BAD;
	ftl->bad_blocks++;
	if (ftl->ops && ftl->ops->retired)
		ftl->ops->retired(ftl->ctx, b, ftl->blocks[b].erase_count);
	if (ftl_spare_now(ftl) < ftl->geo.gc_high_blocks + ftl->geo.open_blocks)
		enter_read_only(ftl, FTL_READ_ONLY_WORN_OUT);
}

/*
 * The physical page no longer holds the current copy of its logical page.
 * A closed block moves to the tail of the next lower valid-count bucket,
 * which is what lets greedy GC prefer it from now on and keeps every
 * bucket ordered by changed_at.
 */
void ftl_invalidate_ppn(struct ftl *ftl, u32 ppn)
{
	u32 b = ppn_block(ftl, ppn);
	struct ftl_block *blk = &ftl->blocks[b];
	bool closed = blk->state == FTL_BLOCK_CLOSED;

	if (closed)
		blist_del(&ftl->buckets[blk->valid], ftl->bucket_links, b);
	ftl_mark_stale(ftl, ppn);
	blk->valid--;
	if (closed) {
		blk->changed_at = ftl->now;
		bucket_add(ftl, b);
	}
}

/* A full block, or one whose pages are all programmed or skipped. */
void ftl_close_block(struct ftl *ftl, u32 b)
{
	ftl->blocks[b].changed_at = ftl->now;
	ftl_closed_insert(ftl, b);
}

void ftl_close_open_block(struct ftl *ftl, u32 frontier)
{
	ftl_close_block(ftl, ftl->open[frontier]);
	ftl->open[frontier] = FTL_NONE;
}

/*
 * Dynamic wear leveling: open the least worn free block, except for data
 * that static wear leveling moves because it is cold: that goes to the
 * most worn one, which it will then keep from wearing further.
 */
void ftl_open_free_block(struct ftl *ftl, u32 frontier, bool most_worn)
{
	u32 b = most_worn ? free_most_worn(ftl) : ftl->free.slots[0];

	heap_remove(ftl, &ftl->free, b);
	ftl->blocks[b].state = FTL_BLOCK_OPEN;
	ftl->open[frontier] = b;
}

/*
 * The dice for the next program of @frontier's open block, rolled only
 * when flash can fail (ftl_program_fails()). A failed program leaves the
 * page unusable, and the block is not trusted with another: it stops
 * taking writes (the rest of its pages are skipped) and waits, still
 * readable, until GC has relocated its valid pages and retires it. The
 * caller programs the data elsewhere.
 */
bool ftl_program_fault(struct ftl *ftl, u32 frontier)
{
	u32 b = ftl->open[frontier];

	if (!fault_happens(ftl, ftl->cfg.program_fail_ppm))
		return false;
	ftl->counters.program_failures++;
	ftl->blocks[b].write_ptr = ftl->geo.pages_per_block;
	ftl->blocks[b].changed_at = ftl->now;
	ftl_failing_insert(ftl, b);
	ftl->open[frontier] = FTL_NONE;
	return true;
}

/*
 * The reverse map of an erased block's @n programmed pages, @p2l on: a loop
 * on locals, which the compiler turns into a fill.
 */
static void forget_pages(u32 *p2l, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		p2l[i] = FTL_UNMAPPED;
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

void ftl_erase_block(struct ftl *ftl, u32 b)
{
	struct ftl_block *blk = &ftl->blocks[b];

	/* Erasing would destroy mapped data: keep the block, stop writing. */
	if (ftl_broken(ftl, blk->valid != 0)) {
		ftl_close_block(ftl, b);
		return;
	}
	if (erase_fails(ftl, blk)) {
		ftl->counters.erase_failures++;
		ftl_retire_block(ftl, b);
		return;
	}
	/* The stale pages' data is gone with the erase. */
	if (ftl->p2l)
		forget_pages(ftl->p2l + b * ftl->geo.pages_per_block,
			     blk->write_ptr);
	ftl->stale_pages -= blk->stale;
	blk->stale = 0;
	blk->erase_count++;
	blk->write_ptr = 0;
	ftl->erase_sum++;
	if (blk->erase_count > ftl->erase_max)
		ftl->erase_max = blk->erase_count;
	ftl->counters.erases++;
	ftl->erases_since_wl_check++;
	ftl_free_push(ftl, b);
	if (ftl->ops && ftl->ops->erased)
		ftl->ops->erased(ftl->ctx, b, blk->erase_count);
}

enum ftl_page_state ftl_page_state(const struct ftl *ftl, u32 ppn, u32 *lpn,
				   bool *retired)
{
	const struct ftl_block *blk = &ftl->blocks[ppn_block(ftl, ppn)];
	u32 recorded;

	*lpn = FTL_UNMAPPED;
	*retired = blk->state == FTL_BLOCK_BAD;
	if (blk->state == FTL_BLOCK_FREE ||
	    ppn % ftl->geo.pages_per_block >= blk->write_ptr)
		return FTL_PAGE_ERASED;
	recorded = ppn_recorded_lpn(ftl, ppn);
	if (recorded == FTL_UNMAPPED)
		return FTL_PAGE_FAILED;
	*lpn = recorded;
	return ppn_owner(ftl, ppn) == recorded ? FTL_PAGE_VALID :
	       FTL_PAGE_STALE;
}
