// SPDX-License-Identifier: GPL-2.0
/*
 * sanitize.c - secure erase in the portable FTL: which blocks hold any
 * copy of a logical range, and erasing them.
 *
 * A discard, an overwrite or a relocation only leaves a page stale: its
 * data stays in the flash until its block is erased, which GC may never
 * do (Wei et al., FAST'11, read overwritten and "sanitized" data back from
 * real SSDs). A secure erase unmaps the range, then finds every block that
 * still holds a page the range wrote - the reverse map keeps a stale
 * page's lpn until the erase (blocks.c), a store with read_oob keeps it in
 * the spare area - relocates the block's other valid pages and erases it.
 * Blocks that cannot be erased (retired, or whose erase fails now) keep
 * their data, and the result says so.
 *
 * All state is owned by the caller's lock; see ftl.h.
 */
#include "ftl_impl.h"

/*
 * Stale pages of block @b that hold data of [@lpn, @lpn + @count). The
 * range is unmapped before the scan, so a valid page of it is newer than
 * the request (a partial page's rewrite, holding zeroes where the range
 * was, or a write that raced it) and holds none of the data to erase.
 */
static u32 copies_in_block(const struct ftl *ftl, u32 b, u64 lpn, u64 count)
{
	const struct ftl_block *blk = &ftl->blocks[b];
	u32 first = b * ftl->geo.pages_per_block, i, n = 0;

	for (i = 0; i < blk->write_ptr; i++) {
		u32 l = ppn_recorded_lpn(ftl, first + i);

		n += l != FTL_UNMAPPED && (u64)l - lpn < count &&
		     ppn_owner(ftl, first + i) == FTL_UNMAPPED;
	}
	return n;
}

/*
 * Erase block @b, which holds @held pages of the range: close it if it is
 * open, keep free blocks for its relocations (GC may then take it
 * itself), relocate its valid pages and erase it, or count what stays. A
 * read-only FTL (worn out, possibly by the last block's erase) changes
 * nothing more.
 */
static int erase_copies(struct ftl *ftl, u32 b, u32 held, u64 lpn, u64 count,
			struct ftl_sanitize *r)
{
	struct ftl_block *blk = &ftl->blocks[b];
	u32 valid, s;
	int err;

	if (ftl->read_only)
		return -EROFS;
	if (blk->state == FTL_BLOCK_BAD) {
		r->pages_left += held;
		return 0;
	}
	for (s = 0; s < ftl->nr_frontiers; s++)
		if (ftl->open[s] == b)
			ftl_close_open_block(ftl, s);
	if (ftl->free.nr < ftl->geo.gc_low_blocks) {
		err = ftl_gc_run(ftl);
		if (err) {
			/*
			 * Read-only now: a block closed above before it was
			 * full keeps the rest of its pages unused, as one
			 * whose program failed.
			 */
			if (blk->state == FTL_BLOCK_CLOSED)
				blk->write_ptr = ftl->geo.pages_per_block;
			return err;
		}
	}
	if (blk->state == FTL_BLOCK_CLOSED || blk->state == FTL_BLOCK_FAILING) {
		valid = blk->valid;
		err = ftl_collect_block(ftl, b, FTL_COLLECT_SECURE_ERASE);
		if (err)
			return err;
		r->pages_relocated += valid;
	}
	if (blk->state == FTL_BLOCK_FREE)
		r->blocks_erased++;
	else	/* retired: its erase failed, or it was failing */
		r->pages_left += copies_in_block(ftl, b, lpn, count);
	return 0;
}

int ftl_secure_erase_blocks(struct ftl *ftl, u64 lpn, u64 count,
			    u32 first_block, u32 nr_blocks,
			    struct ftl_sanitize *res)
{
	u32 end = ftl->geo.physical_blocks, b, held;
	struct ftl_sanitize r = { 0 };
	int err = 0;

	if (first_block < end && nr_blocks < end - first_block)
		end = first_block + nr_blocks;
	for (b = first_block; b < end && !err; b++) {
		held = copies_in_block(ftl, b, lpn, count);
		if (held)
			err = erase_copies(ftl, b, held, lpn, count, &r);
	}
	ftl->counters.secure_erase_blocks += r.blocks_erased;
	ftl->counters.secure_erase_pages_left += r.pages_left;
	ftl->counters.secure_erases += !err && end == ftl->geo.physical_blocks;
	res->blocks_erased += r.blocks_erased;
	res->pages_relocated += r.pages_relocated;
	res->pages_left += r.pages_left;
	return err;
}

s64 ftl_secure_erase(struct ftl *ftl, u64 lpn, u64 count,
		     struct ftl_sanitize *res)
{
	struct ftl_sanitize r = { 0 };
	s64 unmapped = ftl_unmap(ftl, lpn, count);
	int err;

	if (unmapped < 0)
		return unmapped;
	err = ftl_secure_erase_blocks(ftl, lpn, count, 0,
				      ftl->geo.physical_blocks, &r);
	if (res)
		*res = r;
	return err ? err : unmapped;
}
