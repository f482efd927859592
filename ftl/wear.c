// SPDX-License-Identifier: GPL-2.0
/*
 * wear.c - static wear leveling of the portable FTL.
 *
 * Dynamic wear leveling is the free pool's order (blocks.c): the least
 * worn free block is opened next. That cannot help a block whose data is
 * never rewritten: it stays closed at a low erase count while the blocks
 * of hot data wear out. Static wear leveling moves such data: every
 * FTL_WL_CHECK_INTERVAL erases, when the spread (erase_max - erase_min)
 * passes wl_threshold, the data of the least erased closed block (the
 * root of the worn heap) is relocated onto the most worn free block, and
 * the block rejoins the free pool, where dynamic wear leveling hands it
 * out first. A new scheme replaces the two functions here.
 *
 * All state is owned by the caller's lock; see ftl.h.
 */
#include "ftl_impl.h"

/*
 * Data that is never rewritten pins its block at a low erase count while
 * hot blocks wear out. When the spread exceeds the threshold, move the
 * data off the least-erased closed block (the root of the worn heap) so
 * that block re-enters the free pool, where dynamic wear leveling hands
 * it out first. Returns -EROFS if its erase retired the last spare block,
 * as GC does, so that the write it ran for fails too.
 */
int ftl_wear_level(struct ftl *ftl)
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
	err = ftl_collect_block(ftl, coldest, FTL_COLLECT_WEAR_LEVELING);
	/* Relocations may have filled the GC block; stay above reserve. */
	if (!err && ftl->free.nr < ftl->geo.gc_low_blocks)
		err = ftl_gc_run(ftl);
	if (!err && ftl->read_only)
		err = -EROFS;
	return err;
}

bool ftl_wear_level_due(const struct ftl *ftl)
{
	return ftl->cfg.wl_threshold &&
	       ftl->erases_since_wl_check >= FTL_WL_CHECK_INTERVAL &&
	       ftl->erase_max - erase_min(ftl) > ftl->cfg.wl_threshold &&
	       ftl->free.nr >= ftl->geo.gc_low_blocks;
}
