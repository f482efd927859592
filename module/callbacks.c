// SPDX-License-Identifier: GPL-2.0
/*
 * The FTL core's callbacks (struct ftl_ops): what it tells the data store
 * about the flash pages. ctx is the shard, under its lock.
 *
 * data[] is indexed by logical page, so GC's relocations leave it alone: a
 * released page's memory goes back (pages.c), or with remanence=1 stays
 * with its physical page until the erase (flash.c); relocations, erases
 * and retirements reach the timing model, the tracepoints and the wear-out
 * bookkeeping.
 */
#include <linux/mm.h>

#include "ftlblk.h"
#include "trace.h"

static void ftlblk_release(void *ctx, u64 lpn, u32 ppn)
{
	struct ftlblk_shard *sh = ctx;
	struct page *page = ftlblk_data(sh, lpn);

	if (page) {
		/*
		 * Unpublish first: the grace period that lets the page be
		 * reused waits only for readers that could find it, those
		 * that started before this. An overwrite stores the new page
		 * after this (ftlblk_program_page()).
		 */
		ftlblk_set_data(sh, lpn, NULL);
		sh->data_pages--;
		/* The flash page keeps it until the erase, or drops it. */
		if (sh->stale)
			ftlblk_stale_keep(sh, ppn, page);
		else
			ftlblk_release_page(sh, page);
	}
}

/*
 * A relocation moves no data here: data[] is indexed by logical page. It
 * costs flash time, so only a timed device (ftlblk_ftl_timed_ops) hears of
 * it.
 */
static void ftlblk_move_page(void *ctx, u32 from, u32 to)
{
	struct ftlblk_shard *sh = ctx;

	ftlblk_timing_relocate(sh->dev, sh->treq, ftlblk_device_ppn(sh, from),
			       ftlblk_device_ppn(sh, to));
}

static void ftlblk_erased(void *ctx, u32 block, u32 erase_count)
{
	struct ftlblk_shard *sh = ctx;

	trace_ftlblk_erase(sh->dev->disk, sh->first_block + block, erase_count);
	ftlblk_stale_erased(sh, block);
	ftlblk_timing_erase(sh->dev, sh->treq, sh->first_block + block);
}

static void ftlblk_collected(void *ctx, u32 block, u32 relocated,
			     enum ftl_collect_reason reason)
{
	struct ftlblk_shard *sh = ctx;

	trace_ftlblk_gc(sh->dev->disk, sh->first_block + block, relocated,
			reason);
}

static void ftlblk_retired(void *ctx, u32 block, u32 erase_count)
{
	struct ftlblk_shard *sh = ctx;

	ftlblk_stale_retired(sh, block);
	ftlblk_block_retired(sh, block, erase_count);
}

/* What the FTL core tells the data pages (ftl_ops), timing=0. */
const struct ftl_ops ftlblk_ftl_ops = {
	.release = ftlblk_release,
	.erased = ftlblk_erased,
	.collected = ftlblk_collected,
	.retired = ftlblk_retired,
};

/* The same with timing=1: relocations cost flash time. */
const struct ftl_ops ftlblk_ftl_timed_ops = {
	.release = ftlblk_release,
	.move = ftlblk_move_page,
	.erased = ftlblk_erased,
	.collected = ftlblk_collected,
	.retired = ftlblk_retired,
};
