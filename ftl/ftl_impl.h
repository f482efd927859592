/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftl_impl.h - the layout of struct ftl and what the core's files offer
 * each other: private to the core (ftl.c: the map and the API; blocks.c:
 * the erase blocks; gc.c: garbage collection; wear.c: static wear
 * leveling; sanitize.c: secure erase) and its invariant checker
 * (check.c). Nothing else may include it. The core's files call downwards
 * only: sanitize.c -> ftl.c -> wear.c -> gc.c -> blocks.c
 * (scripts/callgraph checks it).
 */
#ifndef FTL_IMPL_H
#define FTL_IMPL_H

#include "ftl.h"

#define FTL_NONE		U32_MAX
/*
 * In the reverse map, a physical page that no longer holds the current
 * copy of its logical page keeps that lpn with this bit set, until its
 * block is erased (then FTL_UNMAPPED), as NAND keeps a superseded page's
 * data and spare area: what a secure erase must find. Logical pages stay
 * below 2^31 (ftl_config_check()), so the bit is free.
 */
#define FTL_STALE		0x80000000u
/* Erases between static wear-leveling checks. */
#define FTL_WL_CHECK_INTERVAL	4
/*
 * Free blocks one GC call may gain over what it found, on the way from
 * the low to the high watermark: one for the host block about to open,
 * one ahead. That bounds the work of one write to about twice what
 * keeping up with the host costs, and still reaches the high watermark.
 */
#define FTL_GC_GAIN_PER_CALL	2
/* Extra free blocks GC keeps when flash can fail (see ftl_config_check). */
#define FTL_FAULT_RESERVE_BLOCKS	2

/*
 * Write frontiers, the open blocks pages are programmed into: host writes
 * of placement class c fill FTL_FRONTIER_HOST(c), relocations of class c's
 * pages by GC, wear leveling and secure erase FTL_FRONTIER_GC(c): a class
 * stays apart from the others after a GC too, and what survived a GC apart
 * from fresh data. ("Frontier", not "stream": the host's write streams are
 * placement classes here.)
 */
#define FTL_FRONTIER_GC(c)	(2u * (c))
#define FTL_FRONTIER_HOST(c)	(2u * (c) + 1u)
#define FTL_MAX_FRONTIERS	(2 * FTL_MAX_CLASSES)

enum ftl_block_state {
	FTL_BLOCK_FREE,
	FTL_BLOCK_OPEN,
	FTL_BLOCK_CLOSED,
	FTL_BLOCK_VICTIM,	/* being relocated, on no list */
	FTL_BLOCK_FAILING,	/* a program failed: relocate, then retire */
	FTL_BLOCK_BAD,		/* retired, never used again */
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

/* A binary min-heap of block numbers on (erase count, block number). */
struct ftl_heap {
	u32 *slots;
	u32 nr;
};

struct ftl_block {
	u32 valid;		/* pages holding the current copy of an lpn */
	u32 erase_count;
	u32 write_ptr;		/* next page to program */
	u32 heap_pos;		/* index in free or worn, FTL_NONE if neither */
	u64 changed_at;		/* ftl->now when closed or valid last dropped */
	u8 state;		/* enum ftl_block_state */
	/* pages superseded since the erase; fills the padding after state */
	u32 stale;
};

/* ftl.ppb_shift when pages_per_block is not a power of two */
#define FTL_NO_SHIFT		U32_MAX

struct ftl {
	struct ftl_config cfg;
	struct ftl_geometry geo;
	u32 ppb_shift;			/* log2(pages_per_block) or FTL_NO_SHIFT */
	const struct ftl_ops *ops;
	void *ctx;

	u32 *l2p;			/* lpn -> ppn or FTL_UNMAPPED */
	u32 *p2l;			/* ppn -> lpn, NULL with ops->read_oob */
	bool ready;			/* ftl_create() finished */
	struct ftl_block *blocks;

	/* closed blocks by valid count: buckets[0 .. pages_per_block] */
	struct ftl_list *buckets;
	struct ftl_link *bucket_links;
	/* no bucket below it holds a block: where victim picks start */
	u32 bucket_low;
	/* closed blocks, oldest first; failing blocks on their own list */
	struct ftl_list closed;
	struct ftl_list failing;
	struct ftl_link *closed_links;	/* links of closed or failing */

	struct ftl_heap free;		/* free blocks */
	struct ftl_heap worn;		/* closed and failing blocks */
	u32 open[FTL_MAX_FRONTIERS];	/* FTL_NONE when not open */
	u32 nr_frontiers;		/* 2 x placement classes */
	/* the class of each lpn's last write; NULL with one class */
	u8 *lpn_class;
	bool gc_active;			/* between the low and high watermark */

	u64 valid_pages;
	u64 erase_sum;
	u32 erase_max;
	u64 now;			/* NAND programs since creation */
	u32 erases_since_wl_check;
	u64 metadata_bytes;

	u64 fault_state;		/* generator behind the fault rates */
	u32 bad_blocks;
	u64 stale_pages;		/* sum of blocks[].stale */
	enum ftl_read_only read_only;

	struct ftl_stats counters;	/* event counters only */
	struct ftl_class_stats classes[FTL_MAX_CLASSES];
};

static inline bool heap_less(const struct ftl *ftl, u32 a, u32 b)
{
	u32 ea = ftl->blocks[a].erase_count, eb = ftl->blocks[b].erase_count;

	return ea < eb || (ea == eb && a < b);
}

static inline u32 heap_min_count(const struct ftl *ftl,
				 const struct ftl_heap *heap)
{
	return heap->nr ? ftl->blocks[heap->slots[0]].erase_count : U32_MAX;
}

/*
 * The block of a physical page: a shift when pages_per_block is a power of
 * two (the common geometry), as every host write and relocation asks.
 */
static inline u32 ppn_block(const struct ftl *ftl, u32 ppn)
{
	if (ftl->ppb_shift != FTL_NO_SHIFT)
		return ppn >> ftl->ppb_shift;
	return ppn / ftl->geo.pages_per_block;
}

/*
 * The lpn recorded with @ppn, valid or stale (without FTL_STALE), or
 * FTL_UNMAPPED for an erased page: the reverse map, or the page's spare
 * area.
 */
static inline u32 ppn_recorded_lpn(const struct ftl *ftl, u32 ppn)
{
	u32 v = ftl->p2l ? ftl->p2l[ppn] : ftl->ops->read_oob(ftl->ctx, ppn);

	return v == FTL_UNMAPPED ? v : v & ~FTL_STALE;
}

/*
 * The lpn whose current copy @ppn holds, or FTL_UNMAPPED. The reverse map
 * marks a page stale as soon as it stops being valid (ftl_check() verifies
 * that every entry without the mark maps back), so it answers alone, from
 * an array GC reads in order. A spare area keeps its lpn after the page is
 * superseded, so then only the forward map says whether the page is
 * still valid.
 */
static inline u32 ppn_owner(const struct ftl *ftl, u32 ppn)
{
	u32 lpn;

	if (ftl->p2l)
		return ftl->p2l[ppn] & FTL_STALE ? FTL_UNMAPPED : ftl->p2l[ppn];
	lpn = ftl->ops->read_oob(ftl->ctx, ppn);
	if (lpn >= ftl->geo.logical_pages || ftl->l2p[lpn] != ppn)
		return FTL_UNMAPPED;
	return lpn;
}

/*
 * The lowest erase count of any block in service. Every such block is
 * free, open, closed or failing between calls, so the two heap roots and
 * the open blocks hold it: O(1), no scan.
 */
static inline u32 erase_min(const struct ftl *ftl)
{
	u32 min = heap_min_count(ftl, &ftl->free), s;

	if (heap_min_count(ftl, &ftl->worn) < min)
		min = heap_min_count(ftl, &ftl->worn);
	for (s = 0; s < ftl->nr_frontiers; s++)
		if (ftl->open[s] != FTL_NONE &&
		    ftl->blocks[ftl->open[s]].erase_count < min)
			min = ftl->blocks[ftl->open[s]].erase_count;
	return min == U32_MAX ? 0 : min;
}

/* blocks.c: lists, the free pool, closed and failing blocks */
void ftl_blist_init(struct ftl_list *list);
void ftl_free_push(struct ftl *ftl, u32 b);
void ftl_closed_insert(struct ftl *ftl, u32 b);
void ftl_closed_remove(struct ftl *ftl, u32 b);
void ftl_failing_insert(struct ftl *ftl, u32 b);
void ftl_failing_remove(struct ftl *ftl, u32 b);
/* blocks.c: the end of life */
u32 ftl_spare_now(const struct ftl *ftl);
bool ftl_broken(struct ftl *ftl, bool cond);
int ftl_out_of_blocks(struct ftl *ftl);
void ftl_retire_block(struct ftl *ftl, u32 b);
/* blocks.c: pages, open blocks, programs and erases */
void ftl_invalidate_ppn(struct ftl *ftl, u32 ppn);
void ftl_close_open_block(struct ftl *ftl, u32 frontier);
void ftl_open_free_block(struct ftl *ftl, u32 frontier, bool most_worn);
bool ftl_program_fault(struct ftl *ftl, u32 frontier);
void ftl_close_block(struct ftl *ftl, u32 b);
void ftl_erase_block(struct ftl *ftl, u32 b);

/*
 * Programming pages: inline, as every host write and every relocation
 * runs them (a call each costs as much as their work).
 */
static inline void ftl_set_recorded_lpn(struct ftl *ftl, u32 ppn, u32 lpn)
{
	if (ftl->p2l)
		ftl->p2l[ppn] = lpn;
}

/* @ppn's data is superseded: it stays in the page, stale, until erased. */
static inline void ftl_mark_stale(struct ftl *ftl, u32 ppn)
{
	if (ftl->p2l)
		ftl->p2l[ppn] |= FTL_STALE;
	ftl->blocks[ppn_block(ftl, ppn)].stale++;
	ftl->stale_pages++;
}

static inline bool ftl_frontier_has_room(const struct ftl *ftl, u32 frontier)
{
	u32 b = ftl->open[frontier];

	return b != FTL_NONE &&
	       ftl->blocks[b].write_ptr < ftl->geo.pages_per_block;
}

/* Pages a frontier's open block can still take, 0 without one. */
static inline u32 ftl_frontier_room(const struct ftl *ftl, u32 frontier)
{
	u32 b = ftl->open[frontier];

	return b == FTL_NONE ? 0 :
	       ftl->geo.pages_per_block - ftl->blocks[b].write_ptr;
}

/*
 * Whether the next program of @frontier's open block fails (then the block
 * is failing and the frontier has none): the dice only when flash can fail.
 */
static inline bool ftl_program_fails(struct ftl *ftl, u32 frontier)
{
	return ftl->cfg.program_fail_ppm && ftl_program_fault(ftl, frontier);
}

/*
 * Program the next page of a frontier's open block, not yet mapped: it
 * holds no logical page's data until ftl_map_programmed() (an atomic
 * write maps its pages together, or none).
 */
static inline u32 ftl_program_next(struct ftl *ftl, u32 frontier)
{
	u32 b = ftl->open[frontier];
	u32 ppn = b * ftl->geo.pages_per_block + ftl->blocks[b].write_ptr++;

	ftl->now++;
	ftl->counters.nand_pages_written++;
	return ppn;
}

/* @ppn, just programmed, becomes @lpn's current copy. */
static inline void ftl_map_programmed(struct ftl *ftl, u32 ppn, u32 lpn)
{
	ftl_set_recorded_lpn(ftl, ppn, lpn);
	FTL_WRITE_ONCE(ftl->l2p[lpn], ppn);
	ftl->blocks[ppn_block(ftl, ppn)].valid++;
}

/* Program the next page of a frontier's open block with @lpn. */
static inline u32 ftl_program_page(struct ftl *ftl, u32 frontier, u32 lpn)
{
	u32 ppn = ftl_program_next(ftl, frontier);

	ftl_map_programmed(ftl, ppn, lpn);
	return ppn;
}

/* gc.c */
int ftl_collect_block(struct ftl *ftl, u32 b, enum ftl_collect_reason why);
int ftl_gc_run(struct ftl *ftl);

/* wear.c */
int ftl_wear_level(struct ftl *ftl);
bool ftl_wear_level_due(const struct ftl *ftl);

#endif /* FTL_IMPL_H */
