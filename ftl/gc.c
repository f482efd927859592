// SPDX-License-Identifier: GPL-2.0
/*
 * gc.c - garbage collection of the portable FTL: which closed block to
 * reclaim (the victim policy), and reclaiming it: its valid pages are
 * relocated into the GC frontier's open block, then it is erased (or, if
 * its block failed, retired).
 *
 * A host write that needs a new block runs it (ftl_gc_run()):
 *
 *          fewer than gc_low_blocks free, or a block failing
 *   IDLE ----------------------------------------------------> ACTIVE
 *     ^                                                          |
 *     +----------------- gc_high_blocks free <-------------------+
 *
 * While ACTIVE, each new host block collects until gc_low_blocks are free,
 * or FTL_GC_GAIN_PER_CALL more than were, so no single write does the
 * whole climb from the low to the high watermark.
 *
 * Failing blocks are collected first: their data sits in a block known to
 * be bad. Victim policies, each O(pages per block) with no scan of the
 * blocks: greedy (the fewest valid pages: the head of the lowest non-empty
 * bucket), fifo (the oldest closed block) and cost-benefit (Rosenblum &
 * Ousterhout; the bucket heads compete). A new policy is a pick function
 * here, its name in ftl_policy_names[] and its value in enum
 * ftl_gc_policy (ftl.h).
 *
 * Relocations only ever come from pages that are still mapped, so
 * discarded or overwritten data is never copied. All state is owned by
 * the caller's lock; see ftl.h.
 */
#include "ftl_impl.h"

static const char * const ftl_policy_names[FTL_GC_NR_POLICIES] = {
	[FTL_GC_GREEDY] = "greedy",
	[FTL_GC_FIFO] = "fifo",
	[FTL_GC_COST_BENEFIT] = "cost-benefit",
};

/*
 * The fewest valid pages: the lowest non-empty bucket, found from
 * bucket_low up (a victim holds about as many valid pages as the last
 * one, so that is a step or two, not pages_per_block), which it raises
 * to what it found.
 */
static u32 pick_greedy(struct ftl *ftl)
{
	u32 valid;

	for (valid = ftl->bucket_low; valid <= ftl->geo.pages_per_block; valid++)
		if (ftl->buckets[valid].head != FTL_NONE) {
			ftl->bucket_low = valid;
			return ftl->buckets[valid].head;
		}
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
static u32 pick_cost_benefit(struct ftl *ftl)
{
	u32 ppb = ftl->geo.pages_per_block;
	u32 valid, best = FTL_NONE;
	u64 best_score = 0;

	if (ftl->buckets[0].head != FTL_NONE)
		return ftl->buckets[0].head;
	/* no bucket below bucket_low holds a block */
	for (valid = ftl->bucket_low ? ftl->bucket_low : 1; valid < ppb;
	     valid++) {
		u32 b = ftl->buckets[valid].head;
		u64 age, score;

		if (b == FTL_NONE)
			continue;
		if (best == FTL_NONE)	/* the lowest bucket holding a block */
			ftl->bucket_low = valid;
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

static u32 pick_victim(struct ftl *ftl)
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
 * Make GC frontier @f ready to program one page: open a free block if its
 * block is full (the most worn one for wear leveling), and try again in a
 * new block whenever a program fails.
 */
static int prepare_gc_page(struct ftl *ftl, u32 f, bool most_worn)
{
	for (;;) {
		if (!ftl_frontier_has_room(ftl, f)) {
			if (ftl->open[f] != FTL_NONE)
				ftl_close_open_block(ftl, f);
			if (!ftl->free.nr)
				return ftl_out_of_blocks(ftl);
			ftl_open_free_block(ftl, f, most_worn);
		}
		if (!ftl_program_fails(ftl, f))
			return 0;
	}
}

/* The GC frontier of @lpn's placement class. */
static u32 gc_frontier(const struct ftl *ftl, u32 lpn)
{
	return FTL_FRONTIER_GC(ftl->lpn_class ? ftl->lpn_class[lpn] : 0);
}

/*
 * Relocations count as they happen, runs only when a block was done (a
 * secure erase counts its blocks itself: sanitize.c).
 */
static void count_collection(struct ftl *ftl, u32 relocated,
			     enum ftl_collect_reason why, bool done)
{
	switch (why) {
	case FTL_COLLECT_WEAR_LEVELING:
		ftl->counters.wl_relocations += relocated;
		ftl->counters.wl_runs += done;
		break;
	case FTL_COLLECT_SECURE_ERASE:
		ftl->counters.secure_erase_relocations += relocated;
		break;
	default:
		ftl->counters.gc_relocations += relocated;
		ftl->counters.gc_runs += done;
	}
}

/*
 * Put a victim back where it came from: it still holds data. As a closed
 * block it goes to the tail of its bucket, so it takes the time of now
 * (relocations may have changed its valid count).
 */
static void victim_restore(struct ftl *ftl, u32 b, bool failing)
{
	if (failing)
		ftl_failing_insert(ftl, b);
	else
		ftl_close_block(ftl, b);
}

/* A run of relocations from a victim into one GC frontier's block. */
struct relocation {
	u32 *p2l;
	u32 *l2p;
	u32 from;		/* the victim's first page */
	u32 to;			/* the next page to program */
	u32 room;		/* pages the frontier's block can take */
	u32 left;		/* valid pages left in the victim */
	u32 moved;
};

/*
 * Relocate from page @i of the victim on, while it has valid pages and the
 * frontier's block has room. Inlined twice, with and without @move, so that
 * the loop without a callback keeps everything in registers.
 * Return: the first page not looked at.
 */
static __always_inline u32 relocate_pages(struct relocation *r, u32 i,
					  u32 ppb, void *ctx,
					  void (*move)(void *, u32, u32))
{
	for (; i < ppb && r->left && r->moved < r->room; i++) {
		u32 lpn = r->p2l[r->from + i];

		/* stale, or never programmed (FTL_UNMAPPED has the bit) */
		if (lpn & FTL_STALE)
			continue;
		r->p2l[r->from + i] = lpn | FTL_STALE;
		r->p2l[r->to + r->moved] = lpn;
		FTL_WRITE_ONCE(r->l2p[lpn], r->to + r->moved);
		if (move)
			move(ctx, r->from + i, r->to + r->moved);
		r->moved++;
		r->left--;
	}
	return i;
}

/*
 * Relocate page @i of victim @b, @lpn's current copy, into GC frontier
 * @f, which has room and has passed the dice; then, where the reverse map
 * answers and flash cannot fail, the victim's next valid pages while @f's
 * block has room: most of a GC's pages, in one loop on locals (struct
 * relocation: nothing in it reloads the maps or the counts after each
 * store to a map) that settles the blocks' counts after it. The victim's
 * valid pages are all of @f's class: a block only ever takes pages of one
 * class (host writes and relocations alike), and a page rewritten in
 * another class is stale here (ftl_check() verifies it).
 *
 * Return: pages relocated; *@next receives the first page not looked at.
 */
static u32 relocate_run(struct ftl *ftl, u32 b, u32 i, u32 lpn, u32 f,
			u32 *next)
{
	void (*move)(void *ctx, u32 from, u32 to) = ftl->ops ? ftl->ops->move :
						      NULL;
	u32 ppb = ftl->geo.pages_per_block;
	struct ftl_block *victim = &ftl->blocks[b];
	struct ftl_block *dest = &ftl->blocks[ftl->open[f]];
	struct relocation r = {
		.p2l = ftl->p2l, .l2p = ftl->l2p, .from = b * ppb,
		.to = ftl->open[f] * ppb + dest->write_ptr,
		.room = ppb - dest->write_ptr, .left = victim->valid,
	};

	if (!r.p2l || ftl->cfg.program_fail_ppm) {
		ftl_mark_stale(ftl, r.from + i);
		victim->valid--;
		r.to = ftl_program_page(ftl, f, lpn);
		if (move)
			move(ftl->ctx, r.from + i, r.to);
		*next = i + 1;
		return 1;
	}
	if (move)
		*next = relocate_pages(&r, i, ppb, ftl->ctx, move);
	else
		*next = relocate_pages(&r, i, ppb, ftl->ctx, NULL);
	victim->valid = r.left;
	victim->stale += r.moved;
	ftl->stale_pages += r.moved;
	dest->valid += r.moved;
	dest->write_ptr += r.moved;
	ftl->now += r.moved;
	ftl->counters.nand_pages_written += r.moved;
	return r.moved;
}

/*
 * Relocate every valid page of closed or failing block @b into the GC
 * frontier, then erase a closed block or retire a failing one. Relocations
 * only ever come from pages that are still mapped, so discarded or
 * overwritten data is never copied.
 */
int ftl_collect_block(struct ftl *ftl, u32 b, enum ftl_collect_reason why)
{
	struct ftl_block *blk = &ftl->blocks[b];
	bool failing = blk->state == FTL_BLOCK_FAILING;
	u32 ppb = ftl->geo.pages_per_block;
	u32 first = b * ppb, i = 0, relocated = 0;
	int err;

	if (failing)
		ftl_failing_remove(ftl, b);
	else
		ftl_closed_remove(ftl, b);
	blk->state = FTL_BLOCK_VICTIM;
	while (i < ppb && blk->valid) {
		u32 lpn = ppn_owner(ftl, first + i), f;

		if (lpn == FTL_UNMAPPED) {
			i++;
			continue;
		}
		f = gc_frontier(ftl, lpn);
		/* Static wear leveling parks cold data on the most worn block. */
		err = prepare_gc_page(ftl, f, why == FTL_COLLECT_WEAR_LEVELING);
		if (err) {
			count_collection(ftl, relocated, why, false);
			victim_restore(ftl, b, failing);
			return err;
		}
		relocated += relocate_run(ftl, b, i, lpn, f, &i);
	}
	count_collection(ftl, relocated, why, true);
	if (ftl->ops && ftl->ops->collected)
		ftl->ops->collected(ftl->ctx, b, relocated, why);
	if (failing)
		ftl_retire_block(ftl, b);
	else
		ftl_erase_block(ftl, b);
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
int ftl_gc_run(struct ftl *ftl)
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
		err = ftl_collect_block(ftl, victim, FTL_COLLECT_GC);
		if (err)
			return err;
	}
}

s64 ftl_reclaim_stale(struct ftl *ftl)
{
	u64 before = ftl->stale_pages;
	u32 victim;
	int err;

	if (ftl->read_only)
		return -EROFS;
	if (ftl->free.nr < ftl->geo.gc_low_blocks) {
		err = ftl_gc_run(ftl);
		if (err)
			return err;
	}
	/* Fewest valid pages: in a full closed block, the most stale ones. */
	victim = pick_greedy(ftl);
	if (victim != FTL_NONE && ftl->blocks[victim].stale) {
		err = ftl_collect_block(ftl, victim, FTL_COLLECT_GC);
		if (err)
			return err;
	}
	/* A failed erase retires its block: the data stays, uncounted. */
	return before > ftl->stale_pages ? before - ftl->stale_pages : 0;
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
