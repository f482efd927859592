// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - ftl_check(), the FTL core's invariant checker: O(physical
 * pages), for the tests, the fuzzers and ftlsim --check. Built for user
 * space only; the kernel module does not carry it.
 */
#include "ftl_impl.h"

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
		u32 l = ppn_recorded_lpn(ftl, ppn), owner = ppn_owner(ftl, ppn);
		const struct ftl_block *blk = &ftl->blocks[ppn_block(ftl, ppn)];

		/* Erased, or skipped after a failed program. */
		if (l == FTL_UNMAPPED)
			continue;
		if (!FTL_INVARIANT(l < ftl->geo.logical_pages,
				   "ppn %llu records lpn %u beyond the end",
				   (unsigned long long)ppn, l))
			return -EIO;
		/* Also rules out one lpn owning two physical pages. */
		if (!FTL_INVARIANT(owner == FTL_UNMAPPED || ftl->l2p[l] == ppn,
				   "ppn %llu claims lpn %u which maps elsewhere",
				   (unsigned long long)ppn, l))
			return -EIO;
		/* A stale page never is the current copy. */
		if (!FTL_INVARIANT(owner != FTL_UNMAPPED || ftl->l2p[l] != ppn,
				   "ppn %llu is stale but lpn %u maps to it",
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
		      const struct ftl_link *links, u8 state, s64 valid)
{
	u32 b, prev = FTL_NONE, len = 0;
	u64 changed_at = 0;

	for (b = list->head; b != FTL_NONE; b = links[b].next) {
		if (!FTL_INVARIANT(++len <= ftl->geo.physical_blocks, "block list loops"))
			return -EIO;
		if (!FTL_INVARIANT(links[b].prev == prev, "block %u: bad back link", b))
			return -EIO;
		if (!FTL_INVARIANT(ftl->blocks[b].state == state,
				   "block %u listed in state %u but in state %u", b,
				   state, ftl->blocks[b].state))
			return -EIO;
		if (valid < 0)
			goto next;
		if (!FTL_INVARIANT(ftl->blocks[b].valid == valid,
				   "block %u in bucket %lld has %u valid pages", b, valid,
				   ftl->blocks[b].valid))
			return -EIO;
		/* Cost-benefit relies on it: the head of a bucket is its oldest. */
		if (!FTL_INVARIANT(ftl->blocks[b].changed_at >= changed_at,
				   "bucket %lld out of age order at block %u", valid, b))
			return -EIO;
		changed_at = ftl->blocks[b].changed_at;
next:
		prev = b;
	}
	if (!FTL_INVARIANT(list->tail == prev && list->len == len, "list tail/len wrong"))
		return -EIO;
	return 0;
}

/* Heap order, and every member knows its position. */
static int check_heap(const struct ftl *ftl, const struct ftl_heap *heap,
		      const char *name)
{
	u32 i;

	for (i = 0; i < heap->nr; i++) {
		u32 b = heap->slots[i];

		if (!FTL_INVARIANT(b < ftl->geo.physical_blocks &&
				   ftl->blocks[b].heap_pos == i,
				   "%s heap slot %u: block %u does not point back", name, i, b))
			return -EIO;
		if (!FTL_INVARIANT(i == 0 || !heap_less(ftl, b, heap->slots[(i - 1) / 2]),
				   "%s heap order broken at %u", name, i))
			return -EIO;
	}
	return 0;
}

/* Per-state counts of one pass over the blocks. */
struct ftl_census {
	u32 by_state[FTL_BLOCK_BAD + 1];
	u64 erase_sum;
	u64 stale;
	u32 erase_max;
	u32 erase_min;
};

/* The frontier whose open block is @b (the first), or FTL_NONE. */
static u32 frontier_of(const struct ftl *ftl, u32 b)
{
	u32 f;

	for (f = 0; f < ftl->nr_frontiers; f++)
		if (ftl->open[f] == b)
			return f;
	return FTL_NONE;
}

/* Every frontier writes an open block of its own, or none. */
static int check_frontiers(const struct ftl *ftl)
{
	u32 f, g, b;

	for (f = 0; f < FTL_MAX_FRONTIERS; f++) {
		b = ftl->open[f];
		if (b == FTL_NONE)
			continue;
		if (!FTL_INVARIANT(f < ftl->nr_frontiers,
				   "frontier %u of %u writes block %u", f,
				   ftl->nr_frontiers, b) ||
		    !FTL_INVARIANT(b < ftl->geo.physical_blocks &&
				   ftl->blocks[b].state == FTL_BLOCK_OPEN,
				   "frontier %u writes block %u, which is not open",
				   f, b))
			return -EIO;
		for (g = 0; g < f; g++)
			if (!FTL_INVARIANT(ftl->open[g] != b,
					   "frontiers %u and %u write block %u",
					   g, f, b))
				return -EIO;
	}
	return 0;
}

static int check_block(const struct ftl *ftl, u32 b, struct ftl_census *c)
{
	const struct ftl_block *blk = &ftl->blocks[b];
	u32 ppb = ftl->geo.pages_per_block, valid = 0, stale = 0, i;
	u32 cls = FTL_NONE;
	bool in_heap, positioned;

	for (i = 0; i < ppb; i++) {
		u32 ppn = b * ppb + i, owner = ppn_owner(ftl, ppn);

		valid += owner != FTL_UNMAPPED;
		stale += owner == FTL_UNMAPPED && i < blk->write_ptr &&
			 ppn_recorded_lpn(ftl, ppn) != FTL_UNMAPPED;
		/* GC relocates a victim's pages as one class (gc.c) */
		if (owner == FTL_UNMAPPED || !ftl->lpn_class)
			continue;
		if (cls == FTL_NONE)
			cls = ftl->lpn_class[owner];
		if (!FTL_INVARIANT(ftl->lpn_class[owner] == cls,
				   "block %u holds valid pages of classes %u and %u",
				   b, cls, ftl->lpn_class[owner]))
			return -EIO;
	}
	if (!FTL_INVARIANT(valid == blk->valid, "block %u: %u valid pages, %u counted",
			   b, valid, blk->valid))
		return -EIO;
	if (!FTL_INVARIANT(stale == blk->stale, "block %u: %u stale pages, %u counted",
			   b, stale, blk->stale))
		return -EIO;
	c->stale += stale;
	if (!FTL_INVARIANT(blk->write_ptr <= ppb, "block %u: write pointer %u", b,
			   blk->write_ptr))
		return -EIO;
	if (!FTL_INVARIANT(blk->state <= FTL_BLOCK_BAD && blk->state != FTL_BLOCK_VICTIM,
			   "block %u in state %u between calls", b, blk->state))
		return -EIO;
	c->by_state[blk->state]++;
	c->erase_sum += blk->erase_count;
	if (blk->erase_count > c->erase_max)
		c->erase_max = blk->erase_count;
	if (blk->state != FTL_BLOCK_BAD && blk->erase_count < c->erase_min)
		c->erase_min = blk->erase_count;
	in_heap = blk->state == FTL_BLOCK_FREE || blk->state == FTL_BLOCK_CLOSED ||
		  blk->state == FTL_BLOCK_FAILING;
	positioned = blk->heap_pos != FTL_NONE;
	if (!FTL_INVARIANT(in_heap == positioned,
			   "block %u in state %u: heap position %u", b, blk->state,
			   blk->heap_pos))
		return -EIO;
	switch (blk->state) {
	case FTL_BLOCK_FREE:
		if (!FTL_INVARIANT(blk->write_ptr == 0, "free block %u not erased", b))
			return -EIO;
		if (!FTL_INVARIANT(blk->heap_pos < ftl->free.nr &&
				   ftl->free.slots[blk->heap_pos] == b,
				   "free block %u not in the free pool", b))
			return -EIO;
		break;
	case FTL_BLOCK_OPEN:
		if (!FTL_INVARIANT(frontier_of(ftl, b) != FTL_NONE,
				   "block %u open but no frontier writes it", b))
			return -EIO;
		break;
	case FTL_BLOCK_CLOSED:
	case FTL_BLOCK_FAILING:
		if (!FTL_INVARIANT(blk->write_ptr == ppb, "closed block %u not full", b))
			return -EIO;
		if (!FTL_INVARIANT(blk->heap_pos < ftl->worn.nr &&
				   ftl->worn.slots[blk->heap_pos] == b,
				   "block %u with data not in the worn heap", b))
			return -EIO;
		break;
	default:	/* bad */
		if (!FTL_INVARIANT(blk->valid == 0, "bad block %u holds data", b))
			return -EIO;
	}
	return 0;
}

static int check_blocks(const struct ftl *ftl)
{
	struct ftl_census c = { .erase_min = U32_MAX };
	u32 ppb = ftl->geo.pages_per_block, b, i;
	u64 bucketed = 0;
	int err;

	for (b = 0; b < ftl->geo.physical_blocks; b++) {
		err = check_block(ftl, b, &c);
		if (err)
			return err;
	}
	if (!FTL_INVARIANT(c.by_state[FTL_BLOCK_FREE] == ftl->free.nr &&
			   c.by_state[FTL_BLOCK_CLOSED] + c.by_state[FTL_BLOCK_FAILING] ==
			   ftl->worn.nr,
			   "%u free, %u closed and %u failing blocks; heaps hold %u and %u",
			   c.by_state[FTL_BLOCK_FREE], c.by_state[FTL_BLOCK_CLOSED],
			   c.by_state[FTL_BLOCK_FAILING], ftl->free.nr, ftl->worn.nr))
		return -EIO;
	if (!FTL_INVARIANT(c.stale == ftl->stale_pages, "%llu stale pages, %llu counted",
			   (unsigned long long)c.stale,
			   (unsigned long long)ftl->stale_pages))
		return -EIO;
	if (!FTL_INVARIANT(c.by_state[FTL_BLOCK_BAD] == ftl->bad_blocks,
			   "%u bad blocks, %u counted", c.by_state[FTL_BLOCK_BAD],
			   ftl->bad_blocks))
		return -EIO;
	if (check_heap(ftl, &ftl->free, "free") || check_heap(ftl, &ftl->worn, "worn"))
		return -EIO;
	if (!FTL_INVARIANT(c.erase_sum == ftl->erase_sum && c.erase_max == ftl->erase_max,
			   "erase count totals drifted"))
		return -EIO;
	if (!FTL_INVARIANT(c.erase_min == U32_MAX || c.erase_min == erase_min(ftl),
			   "smallest erase count %u, derived %u", c.erase_min,
			   erase_min(ftl)))
		return -EIO;
	if (check_frontiers(ftl))
		return -EIO;
	err = check_list(ftl, &ftl->closed, ftl->closed_links, FTL_BLOCK_CLOSED, -1);
	if (!err)
		err = check_list(ftl, &ftl->failing, ftl->closed_links,
				 FTL_BLOCK_FAILING, -1);
	if (err)
		return err;
	if (!FTL_INVARIANT(ftl->closed.len == c.by_state[FTL_BLOCK_CLOSED] &&
			   ftl->failing.len == c.by_state[FTL_BLOCK_FAILING],
			   "%u closed and %u failing blocks, %u and %u listed",
			   c.by_state[FTL_BLOCK_CLOSED], c.by_state[FTL_BLOCK_FAILING],
			   ftl->closed.len, ftl->failing.len))
		return -EIO;
	for (i = 0; i <= ppb; i++) {
		err = check_list(ftl, &ftl->buckets[i], ftl->bucket_links,
				 FTL_BLOCK_CLOSED, i);
		if (err)
			return err;
		bucketed += ftl->buckets[i].len;
		if (!FTL_INVARIANT(i >= ftl->bucket_low || !ftl->buckets[i].len,
				   "bucket %u holds a block, below bucket_low %u",
				   i, ftl->bucket_low))
			return -EIO;
	}
	if (!FTL_INVARIANT(bucketed == c.by_state[FTL_BLOCK_CLOSED],
			   "%u closed blocks, %llu in buckets",
			   c.by_state[FTL_BLOCK_CLOSED], (unsigned long long)bucketed))
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
			   c->gc_relocations + c->wl_relocations +
			   c->secure_erase_relocations + c->atomic_pages_abandoned,
			   "NAND programs != host + GC + WL + secure-erase + abandoned programs"))
		return -EIO;
	return 0;
}
