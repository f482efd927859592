// SPDX-License-Identifier: GPL-2.0
/* shadow.c - reference data store around one FTL (see shadow.h). */
#include <stdarg.h>
#include <string.h>

#include "shadow.h"

bool shadow_fail(struct shadow *sh, const char *fmt, ...)
{
	va_list ap;

	if (sh->failed)
		return false;
	sh->failed = true;
	va_start(ap, fmt);
	vsnprintf(sh->err, sizeof(sh->err), fmt, ap);
	va_end(ap);
	return false;
}

static void op_begin(struct shadow *sh, bool may_move, u64 rel_lo, u64 rel_hi)
{
	sh->may_move = may_move;
	sh->may_erase = may_move;
	sh->rel_lo = rel_lo;
	sh->rel_hi = rel_hi;
}

static void op_end(struct shadow *sh)
{
	op_begin(sh, false, 0, 0);
}

static bool page_ok(struct shadow *sh, const char *what, u32 ppn)
{
	if (ppn == FTL_UNMAPPED || ppn >= sh->geo.physical_pages)
		return shadow_fail(sh, "%s: ppn %u out of range (physical_pages %llu)",
				   what, ppn,
				   (unsigned long long)sh->geo.physical_pages);
	return true;
}

static void cb_release(void *ctx, u64 released_lpn, u32 ppn)
{
	struct shadow *sh = ctx;
	u64 lpn;

	if (!page_ok(sh, "release", ppn))
		return;
	lpn = sh->p2l[ppn];
	if (lpn == SHADOW_NONE || !sh->content[ppn]) {
		shadow_fail(sh, "release of ppn %u that holds no valid data (double release?)",
			    ppn);
		return;
	}
	if (released_lpn != lpn) {
		shadow_fail(sh, "release of ppn %u names lpn %llu, but it holds lpn %llu",
			    ppn, (unsigned long long)released_lpn,
			    (unsigned long long)lpn);
		return;
	}
	if (lpn < sh->rel_lo || lpn >= sh->rel_hi) {
		shadow_fail(sh, "release of ppn %u (lpn %llu) outside the operation's range [%llu, %llu)",
			    ppn, (unsigned long long)lpn,
			    (unsigned long long)sh->rel_lo,
			    (unsigned long long)sh->rel_hi);
		return;
	}
	if (sh->l2p[lpn] != ppn) {
		shadow_fail(sh, "release of ppn %u: lpn %llu is mapped to %u",
			    ppn, (unsigned long long)lpn, sh->l2p[lpn]);
		return;
	}
	sh->content[ppn] = 0;
	sh->p2l[ppn] = SHADOW_NONE;
	sh->l2p[lpn] = FTL_UNMAPPED;
	sh->n.releases++;
	sh->releases_total++;
	sh->last_released = ppn;
}

/*
 * Placement: the block of @ppn, about to be programmed for @what, holds
 * only pages of class @cls (SHADOW_GC_CLASS(): relocations of a class)
 * since its erase.
 */
static bool block_class_ok(struct shadow *sh, const char *what, u32 ppn,
			   u32 cls)
{
	u32 b = ppn / sh->geo.pages_per_block;

	if (sh->block_class[b] == SHADOW_NO_CLASS)
		sh->block_class[b] = (u8)cls;
	if (sh->block_class[b] != cls)
		return shadow_fail(sh, "%s ppn %u: class %u into block %u of class %u",
				   what, ppn, cls, b, sh->block_class[b]);
	return true;
}

static void cb_move(void *ctx, u32 from, u32 to)
{
	struct shadow *sh = ctx;
	u64 lpn;

	if (!page_ok(sh, "move from", from) || !page_ok(sh, "move to", to))
		return;
	if (!sh->may_move) {
		shadow_fail(sh, "move %u -> %u outside a write", from, to);
		return;
	}
	lpn = sh->p2l[from];
	if (lpn == SHADOW_NONE || !sh->content[from]) {
		shadow_fail(sh, "move %u -> %u: source holds no valid data (discarded, overwritten or moved)",
			    from, to);
		return;
	}
	if (sh->l2p[lpn] != from) {
		shadow_fail(sh, "move %u -> %u: lpn %llu is mapped to %u",
			    from, to, (unsigned long long)lpn, sh->l2p[lpn]);
		return;
	}
	if (sh->bad[to / sh->geo.pages_per_block]) {
		shadow_fail(sh, "move %u -> %u: destination block is bad", from, to);
		return;
	}
	if (sh->p2l[to] != SHADOW_NONE || sh->content[to] || sh->programmed[to]) {
		shadow_fail(sh, "move %u -> %u: destination programmed since its erase",
			    from, to);
		return;
	}
	if (!block_class_ok(sh, "move to", to,
			    SHADOW_GC_CLASS(sh->lpn_class[lpn])))
		return;
	sh->content[to] = sh->content[from];
	sh->p2l[to] = lpn;
	sh->written[to] = (u32)lpn;
	sh->l2p[lpn] = to;
	sh->programmed[to] = 1;
	sh->content[from] = 0;
	sh->p2l[from] = SHADOW_NONE;
	sh->pending_moves[from / sh->geo.pages_per_block]++;
	sh->n.moves++;
	sh->moves_total++;
	sh->last_moved_from = from;
}

static void cb_erased(void *ctx, u32 block, u32 erase_count)
{
	struct shadow *sh = ctx;
	u32 ppb = sh->geo.pages_per_block;
	u64 p;

	if (block >= sh->geo.physical_blocks || sh->bad[block]) {
		shadow_fail(sh, "erased block %u out of range or bad", block);
		return;
	}
	if (sh->in_init) {
		sh->init_erases++;
		sh->erase_count[block] = erase_count;
		return;
	}
	if (!sh->may_erase) {
		shadow_fail(sh, "erase of block %u outside a write", block);
		return;
	}
	for (p = (u64)block * ppb; p < (u64)(block + 1) * ppb; p++)
		if (sh->p2l[p] != SHADOW_NONE || sh->content[p]) {
			shadow_fail(sh, "erase of block %u destroys valid ppn %llu (lpn %llu)",
				    block, (unsigned long long)p,
				    (unsigned long long)sh->p2l[p]);
			return;
		}
	if (erase_count != sh->erase_count[block] + 1) {
		shadow_fail(sh, "block %u erase count %u after %u",
			    block, erase_count, sh->erase_count[block]);
		return;
	}
	sh->erase_count[block] = erase_count;
	memset(sh->programmed + (u64)block * ppb, 0, ppb);
	sh->block_class[block] = SHADOW_NO_CLASS;
	for (p = (u64)block * ppb; p < (u64)(block + 1) * ppb; p++)
		sh->written[p] = FTL_UNMAPPED;
	sh->pending_moves[block] = 0;
	sh->n.erases++;
	sh->erases_total++;
}

/* A block left service: empty, never retired before, never used again. */
static void cb_retired(void *ctx, u32 block, u32 erase_count)
{
	struct shadow *sh = ctx;
	u32 ppb = sh->geo.pages_per_block;
	u64 p;

	if (block >= sh->geo.physical_blocks || sh->bad[block]) {
		shadow_fail(sh, "retired block %u out of range or already bad", block);
		return;
	}
	if (!sh->may_erase) {
		shadow_fail(sh, "block %u retired outside a write", block);
		return;
	}
	for (p = (u64)block * ppb; p < (u64)(block + 1) * ppb; p++)
		if (sh->p2l[p] != SHADOW_NONE || sh->content[p]) {
			shadow_fail(sh, "retiring block %u loses valid ppn %llu (lpn %llu)",
				    block, (unsigned long long)p,
				    (unsigned long long)sh->p2l[p]);
			return;
		}
	if (erase_count != sh->erase_count[block]) {
		shadow_fail(sh, "block %u retired at erase count %u, had %u",
			    block, erase_count, sh->erase_count[block]);
		return;
	}
	sh->bad[block] = 1;
	sh->pending_moves[block] = 0;
	sh->n.retired++;
}

static void cb_collected(void *ctx, u32 block, u32 relocated,
			 enum ftl_collect_reason reason)
{
	struct shadow *sh = ctx;
	u32 ppb = sh->geo.pages_per_block;
	u64 p;

	if (block >= sh->geo.physical_blocks) {
		shadow_fail(sh, "collected block %u out of range", block);
		return;
	}
	if (!sh->may_move) {
		shadow_fail(sh, "collection of block %u outside a write", block);
		return;
	}
	for (p = (u64)block * ppb; p < (u64)(block + 1) * ppb; p++)
		if (sh->p2l[p] != SHADOW_NONE) {
			shadow_fail(sh, "block %u collected with valid ppn %llu left",
				    block, (unsigned long long)p);
			return;
		}
	if (relocated != sh->pending_moves[block]) {
		shadow_fail(sh, "block %u collected: reports %u relocated, %u moves seen",
			    block, relocated, sh->pending_moves[block]);
		return;
	}
	if (!sh->collected_total++) {
		sh->first_collected = block;
		sh->first_relocated = relocated;
	}
	switch (reason) {
	case FTL_COLLECT_WEAR_LEVELING:
		sh->n.wl_runs++;
		sh->n.wl_moves += relocated;
		break;
	case FTL_COLLECT_SECURE_ERASE:
		sh->n.se_moves += relocated;
		break;
	default:
		sh->n.gc_runs++;
		sh->n.gc_moves += relocated;
	}
}

/*
 * The page's spare area: the lpn the store wrote with it, until its block
 * is erased (a released page keeps it, as NAND does).
 */
static u32 cb_read_oob(void *ctx, u32 ppn)
{
	struct shadow *sh = ctx;

	if (!page_ok(sh, "read_oob", ppn))
		return FTL_UNMAPPED;
	return sh->written[ppn];
}

const struct ftl_ops shadow_ops = {
	.release = cb_release,
	.move = cb_move,
	.erased = cb_erased,
	.collected = cb_collected,
	.retired = cb_retired,
};

const struct ftl_ops shadow_oob_ops = {
	.release = cb_release,
	.move = cb_move,
	.erased = cb_erased,
	.collected = cb_collected,
	.retired = cb_retired,
	.read_oob = cb_read_oob,
};

int shadow_init(struct shadow *sh, const struct ftl_config *cfg)
{
	return shadow_init_mode(sh, cfg, false);
}

int shadow_init_mode(struct shadow *sh, const struct ftl_config *cfg,
		     bool oob)
{
	struct ftl_geometry geo;
	const char *why = NULL;
	int err;
	u64 i;

	memset(sh, 0, sizeof(*sh));
	sh->cfg = *cfg;
	err = ftl_config_check(cfg, &geo, &why);
	if (err)
		return err;
	sh->geo = geo;
	sh->ref = calloc(geo.logical_pages, sizeof(*sh->ref));
	sh->l2p = calloc(geo.logical_pages, sizeof(*sh->l2p));
	sh->content = calloc(geo.physical_pages, sizeof(*sh->content));
	sh->p2l = calloc(geo.physical_pages, sizeof(*sh->p2l));
	sh->programmed = calloc(geo.physical_pages, 1);
	sh->written = calloc(geo.physical_pages, sizeof(*sh->written));
	sh->erase_count = calloc(geo.physical_blocks, sizeof(u32));
	sh->pending_moves = calloc(geo.physical_blocks, sizeof(u32));
	sh->bad = calloc(geo.physical_blocks, 1);
	sh->block_class = malloc(geo.physical_blocks);
	sh->lpn_class = calloc(geo.logical_pages, 1);
	if (!sh->ref || !sh->l2p || !sh->content || !sh->p2l ||
	    !sh->programmed || !sh->written || !sh->erase_count ||
	    !sh->pending_moves || !sh->bad || !sh->block_class ||
	    !sh->lpn_class) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < geo.logical_pages; i++)
		sh->l2p[i] = FTL_UNMAPPED;
	memset(sh->block_class, SHADOW_NO_CLASS, geo.physical_blocks);
	for (i = 0; i < geo.physical_pages; i++) {
		sh->p2l[i] = SHADOW_NONE;
		sh->written[i] = FTL_UNMAPPED;
	}

	sh->in_init = true;
	sh->ftl = ftl_create(cfg, oob ? &shadow_oob_ops : &shadow_ops, sh,
			     &err);
	sh->in_init = false;
	if (!sh->ftl)
		goto fail;
	/* every block starts erased once with erase count 0 */
	for (i = 0; i < geo.physical_blocks; i++) {
		u32 ec = ftl_block_erase_count(sh->ftl, i);

		if (ec != 0 || sh->erase_count[i] != 0)
			shadow_fail(sh, "fresh block %llu has erase count %u (callback said %u)",
				    (unsigned long long)i, ec, sh->erase_count[i]);
	}
	return 0;
fail:
	free(sh->ref);
	free(sh->l2p);
	free(sh->content);
	free(sh->p2l);
	free(sh->programmed);
	free(sh->written);
	free(sh->erase_count);
	free(sh->pending_moves);
	free(sh->bad);
	free(sh->block_class);
	free(sh->lpn_class);
	memset(sh, 0, sizeof(*sh));
	return err;
}

bool shadow_fini(struct shadow *sh)
{
	u64 before = sh->releases_total, moves = sh->moves_total;
	u64 erases = sh->erases_total, i;
	u64 mapped = sh->mapped;

	op_begin(sh, false, 0, sh->geo.logical_pages);
	ftl_destroy(sh->ftl);
	op_end(sh);
	sh->ftl = NULL;
	if (sh->releases_total - before != mapped)
		shadow_fail(sh, "destroy released %llu pages, %llu were valid",
			    (unsigned long long)(sh->releases_total - before),
			    (unsigned long long)mapped);
	if (sh->moves_total != moves || sh->erases_total != erases)
		shadow_fail(sh, "destroy moved or erased pages");
	for (i = 0; i < sh->geo.physical_pages; i++)
		if (sh->content[i]) {
			shadow_fail(sh, "destroy left ppn %llu unreleased",
				    (unsigned long long)i);
			break;
		}
	free(sh->ref);
	free(sh->l2p);
	free(sh->content);
	free(sh->p2l);
	free(sh->programmed);
	free(sh->written);
	free(sh->erase_count);
	free(sh->pending_moves);
	free(sh->bad);
	free(sh->block_class);
	free(sh->lpn_class);
	sh->block_class = NULL;
	sh->lpn_class = NULL;
	sh->written = NULL;
	sh->bad = NULL;
	sh->ref = NULL;
	sh->l2p = NULL;
	sh->content = NULL;
	sh->p2l = NULL;
	sh->programmed = NULL;
	sh->erase_count = NULL;
	sh->pending_moves = NULL;
	return !sh->failed;
}

bool shadow_write(struct shadow *sh, u64 lpn)
{
	return shadow_write_class(sh, lpn, 0);
}

/* The core programmed @lpn's new data into @ppn, class @cls: record it. */
static bool took_page(struct shadow *sh, u64 lpn, u32 cls, u32 ppn)
{
	bool was_mapped = sh->ref[lpn] != 0;

	if (!page_ok(sh, "write", ppn))
		return false;
	if (sh->bad[ppn / sh->geo.pages_per_block])
		return shadow_fail(sh, "write lpn %llu got ppn %u in a bad block",
				   (unsigned long long)lpn, ppn);
	if (sh->programmed[ppn] || sh->content[ppn] ||
	    sh->p2l[ppn] != SHADOW_NONE)
		return shadow_fail(sh, "write lpn %llu got ppn %u, programmed since its erase",
				   (unsigned long long)lpn, ppn);
	if (!block_class_ok(sh, "write", ppn, cls))
		return false;
	sh->lpn_class[lpn] = (u8)cls;
	sh->programmed[ppn] = 1;
	sh->written[ppn] = (u32)lpn;
	sh->content[ppn] = (++sh->generation << 32) | (lpn & 0xffffffffULL);
	sh->p2l[ppn] = lpn;
	sh->l2p[lpn] = ppn;
	sh->ref[lpn] = sh->content[ppn];
	if (!was_mapped)
		sh->mapped++;
	sh->n.host_written++;
	if (ftl_lookup(sh->ftl, lpn) != ppn)
		return shadow_fail(sh, "write lpn %llu -> ppn %u, lookup says %u",
				   (unsigned long long)lpn, ppn,
				   ftl_lookup(sh->ftl, lpn));
	return true;
}

/* Pages of [@lpn, @lpn + @n) holding data. */
static u64 mapped_in(const struct shadow *sh, u64 lpn, u64 n)
{
	u64 i, mapped = 0;

	for (i = 0; i < n; i++)
		mapped += sh->ref[lpn + i] != 0;
	return mapped;
}

/*
 * A write the worn-out FTL refused (-EROFS) changed none of its pages:
 * no release, every lookup as before.
 */
static bool refused_unchanged(struct shadow *sh, u64 lpn, u64 n, u64 rel)
{
	u64 i;

	sh->read_only = true;
	if (sh->releases_total != rel)
		return shadow_fail(sh, "refused write of lpns %llu+%llu released a page",
				   (unsigned long long)lpn, (unsigned long long)n);
	for (i = 0; i < n; i++)
		if (ftl_lookup(sh->ftl, lpn + i) != sh->l2p[lpn + i])
			return shadow_fail(sh, "refused write of lpns %llu+%llu changed lpn %llu",
					   (unsigned long long)lpn,
					   (unsigned long long)n,
					   (unsigned long long)(lpn + i));
	return true;
}

bool shadow_write_class(struct shadow *sh, u64 lpn, u32 cls)
{
	u64 rel = sh->releases_total;
	bool was_mapped = sh->ref[lpn] != 0;
	u32 ppn = FTL_UNMAPPED;
	int rc;

	op_begin(sh, true, lpn, lpn + 1);
	rc = ftl_write_class(sh->ftl, lpn, cls, &ppn);
	op_end(sh);
	sh->last_rc = rc;
	if (sh->failed)
		return false;
	if (rc == -EROFS && ftl_read_only(sh->ftl) == FTL_READ_ONLY_WORN_OUT)
		return refused_unchanged(sh, lpn, 1, rel);
	if (rc)
		return shadow_fail(sh, "write lpn %llu: error %d",
				   (unsigned long long)lpn, rc);
	if (sh->releases_total - rel != (was_mapped ? 1 : 0))
		return shadow_fail(sh, "write lpn %llu: %llu releases, expected %d",
				   (unsigned long long)lpn,
				   (unsigned long long)(sh->releases_total - rel),
				   was_mapped);
	return took_page(sh, lpn, cls, ppn);
}

bool shadow_write_atomic(struct shadow *sh, u64 lpn, u32 n, u32 cls)
{
	u64 rel = sh->releases_total, was_mapped = mapped_in(sh, lpn, n), i;
	struct ftl_stats before, after;
	u32 ppns[FTL_SHADOW_MAX_ATOMIC];
	int rc;

	if (n > FTL_SHADOW_MAX_ATOMIC)
		return shadow_fail(sh, "atomic write of %u pages: test limit %u",
				   n, FTL_SHADOW_MAX_ATOMIC);
	ftl_get_stats(sh->ftl, &before);
	op_begin(sh, true, lpn, lpn + n);
	rc = ftl_write_atomic(sh->ftl, lpn, n, cls, ppns);
	op_end(sh);
	ftl_get_stats(sh->ftl, &after);
	sh->last_rc = rc;
	if (sh->failed)
		return false;
	/* Pages abandoned only by a program failure, fewer than @n each. */
	sh->n.abandoned += after.atomic_pages_abandoned -
			   before.atomic_pages_abandoned;
	if (after.atomic_pages_abandoned - before.atomic_pages_abandoned >
	    (after.program_failures - before.program_failures) * (n - 1))
		return shadow_fail(sh, "atomic write of lpns %llu+%u abandoned %llu pages after %llu program failures",
				   (unsigned long long)lpn, n,
				   (unsigned long long)(after.atomic_pages_abandoned -
							before.atomic_pages_abandoned),
				   (unsigned long long)(after.program_failures -
							before.program_failures));
	if (rc == -EROFS && ftl_read_only(sh->ftl) == FTL_READ_ONLY_WORN_OUT)
		return refused_unchanged(sh, lpn, n, rel);
	if (rc)
		return shadow_fail(sh, "atomic write of lpns %llu+%u: error %d",
				   (unsigned long long)lpn, n, rc);
	if (sh->releases_total - rel != was_mapped)
		return shadow_fail(sh, "atomic write of lpns %llu+%u: %llu releases, expected %llu",
				   (unsigned long long)lpn, n,
				   (unsigned long long)(sh->releases_total - rel),
				   (unsigned long long)was_mapped);
	sh->n.atomic_writes++;
	for (i = 0; i < n; i++)
		if (!took_page(sh, lpn + i, cls, ppns[i]))
			return false;
	return true;
}

bool shadow_read(struct shadow *sh, u64 lpn)
{
	u32 ppn = 0;
	int rc;

	op_begin(sh, false, 0, 0);
	rc = ftl_read(sh->ftl, lpn, &ppn);
	op_end(sh);
	if (sh->failed)
		return false;
	if (rc)
		return shadow_fail(sh, "read lpn %llu: error %d",
				   (unsigned long long)lpn, rc);
	sh->n.host_read++;
	if (!sh->ref[lpn]) {
		sh->n.unmapped_reads++;
		if (ppn != FTL_UNMAPPED)
			return shadow_fail(sh, "read lpn %llu (unwritten/discarded) gave ppn %u",
					   (unsigned long long)lpn, ppn);
		return true;
	}
	if (!page_ok(sh, "read", ppn))
		return false;
	if (sh->content[ppn] != sh->ref[lpn])
		return shadow_fail(sh, "read lpn %llu: ppn %u holds %#llx, expected %#llx",
				   (unsigned long long)lpn, ppn,
				   (unsigned long long)sh->content[ppn],
				   (unsigned long long)sh->ref[lpn]);
	return true;
}

bool shadow_discard(struct shadow *sh, u64 lpn, u64 count, bool unmap)
{
	u64 rel = sh->releases_total, expect = 0, i;
	s64 ret;

	for (i = lpn; i < lpn + count; i++)
		expect += sh->ref[i] != 0;
	op_begin(sh, true, lpn, lpn + count);
	sh->may_move = false;	/* discards never relocate */
	ret = unmap ? ftl_unmap(sh->ftl, lpn, count) :
		      ftl_discard(sh->ftl, lpn, count);
	op_end(sh);
	sh->last_rc = ret < 0 ? (int)ret : 0;
	if (sh->failed)
		return false;
	if (ret == -EROFS && ftl_read_only(sh->ftl)) {
		sh->read_only = true;
		if (sh->releases_total != rel)
			return shadow_fail(sh, "refused discard released pages");
		return true;
	}
	if (ret != (s64)expect)
		return shadow_fail(sh, "%s [%llu, +%llu): returned %lld, %llu pages held data",
				   unmap ? "unmap" : "discard",
				   (unsigned long long)lpn,
				   (unsigned long long)count, (long long)ret,
				   (unsigned long long)expect);
	if (sh->releases_total - rel != expect)
		return shadow_fail(sh, "%s [%llu, +%llu): %llu releases for %llu valid pages",
				   unmap ? "unmap" : "discard",
				   (unsigned long long)lpn,
				   (unsigned long long)count,
				   (unsigned long long)(sh->releases_total - rel),
				   (unsigned long long)expect);
	for (i = lpn; i < lpn + count; i++) {
		sh->ref[i] = 0;
		if (sh->l2p[i] != FTL_UNMAPPED ||
		    ftl_lookup(sh->ftl, i) != FTL_UNMAPPED)
			return shadow_fail(sh, "lpn %llu still mapped after discard",
					   (unsigned long long)i);
	}
	sh->mapped -= expect;
	if (!unmap) {
		sh->n.discard_calls++;
		sh->n.pages_discarded += count;
		sh->n.valid_pages_discarded += expect;
	}
	return true;
}

u64 shadow_copies(const struct shadow *sh, u64 lpn, u64 count)
{
	u64 p, n = 0;

	for (p = 0; p < sh->geo.physical_pages; p++)
		n += !sh->bad[p / sh->geo.pages_per_block] &&
		     sh->written[p] != FTL_UNMAPPED &&
		     (u64)sh->written[p] - lpn < count;
	return n;
}

/* Pages in bad blocks that hold data [@lpn, +@count) ever wrote. */
static u64 copies_in_bad_blocks(const struct shadow *sh, u64 lpn, u64 count)
{
	u64 p, n = 0;

	for (p = 0; p < sh->geo.physical_pages; p++)
		n += sh->bad[p / sh->geo.pages_per_block] &&
		     sh->written[p] != FTL_UNMAPPED &&
		     (u64)sh->written[p] - lpn < count;
	return n;
}

/* ftl_secure_erase() as a caller bounding its lock holds does it. */
static s64 secure_erase_windows(struct shadow *sh, u64 lpn, u64 count,
				struct ftl_sanitize *res)
{
	struct ftl_sanitize r = { 0 };
	s64 unmapped = ftl_unmap(sh->ftl, lpn, count);
	u32 b;
	int err;

	if (unmapped < 0)
		return unmapped;
	for (b = 0; b < sh->geo.physical_blocks; b += sh->se_window) {
		err = ftl_secure_erase_blocks(sh->ftl, lpn, count, b,
					      sh->se_window, &r);
		if (err)
			return err;
	}
	if (res)
		*res = r;
	return unmapped;
}

bool shadow_secure_erase(struct shadow *sh, u64 lpn, u64 count,
			 struct ftl_sanitize *res)
{
	u64 rel = sh->releases_total, expect = 0, left, i;
	s64 ret;

	for (i = lpn; i < lpn + count; i++)
		expect += sh->ref[i] != 0;
	op_begin(sh, true, lpn, lpn + count);
	ret = sh->se_window ? secure_erase_windows(sh, lpn, count, res) :
	      ftl_secure_erase(sh->ftl, lpn, count, res);
	op_end(sh);
	sh->last_rc = ret < 0 ? (int)ret : 0;
	if (sh->failed)
		return false;
	if (ret == -EROFS && ftl_read_only(sh->ftl)) {
		sh->read_only = true;
		/* The FTL may have turned read-only after unmapping the range. */
		for (i = lpn; i < lpn + count; i++)
			if (sh->ref[i] && ftl_lookup(sh->ftl, i) == FTL_UNMAPPED) {
				sh->ref[i] = 0;
				sh->mapped--;
			}
		return true;
	}
	if (ret != (s64)expect)
		return shadow_fail(sh, "secure erase [%llu, +%llu): returned %lld, %llu pages held data",
				   (unsigned long long)lpn,
				   (unsigned long long)count, (long long)ret,
				   (unsigned long long)expect);
	if (sh->releases_total - rel != expect)
		return shadow_fail(sh, "secure erase [%llu, +%llu): %llu releases for %llu valid pages",
				   (unsigned long long)lpn,
				   (unsigned long long)count,
				   (unsigned long long)(sh->releases_total - rel),
				   (unsigned long long)expect);
	for (i = lpn; i < lpn + count; i++) {
		sh->ref[i] = 0;
		if (sh->l2p[i] != FTL_UNMAPPED ||
		    ftl_lookup(sh->ftl, i) != FTL_UNMAPPED)
			return shadow_fail(sh, "lpn %llu still mapped after secure erase",
					   (unsigned long long)i);
	}
	sh->mapped -= expect;
	if (shadow_copies(sh, lpn, count))
		return shadow_fail(sh, "secure erase [%llu, +%llu): %llu pages outside bad blocks still hold its data",
				   (unsigned long long)lpn,
				   (unsigned long long)count,
				   (unsigned long long)shadow_copies(sh, lpn, count));
	left = copies_in_bad_blocks(sh, lpn, count);
	if (res && res->pages_left != left)
		return shadow_fail(sh, "secure erase [%llu, +%llu): reports %llu pages left, %llu are in bad blocks",
				   (unsigned long long)lpn,
				   (unsigned long long)count,
				   (unsigned long long)res->pages_left,
				   (unsigned long long)left);
	return true;
}

bool shadow_reclaim_stale(struct shadow *sh, s64 *erased)
{
	op_begin(sh, true, 0, 0);
	*erased = ftl_reclaim_stale(sh->ftl);
	op_end(sh);
	/* Cut short by the end of life: the per-reason counts may differ. */
	if (*erased == -EROFS && ftl_read_only(sh->ftl))
		sh->read_only = true;
	return !sh->failed;
}

bool shadow_discard_bad(struct shadow *sh, u64 lpn, u64 count, bool unmap)
{
	struct ftl_stats before, after;
	u64 rel = sh->releases_total, moves = sh->moves_total;
	u64 erases = sh->erases_total;
	s64 ret;

	ftl_get_stats(sh->ftl, &before);
	op_begin(sh, false, 0, 0);
	ret = unmap ? ftl_unmap(sh->ftl, lpn, count) :
		      ftl_discard(sh->ftl, lpn, count);
	op_end(sh);
	if (sh->failed)
		return false;
	ftl_get_stats(sh->ftl, &after);
	if (ret != -ERANGE)
		return shadow_fail(sh, "%s [%llu, +%llu) beyond %llu pages returned %lld, not -ERANGE",
				   unmap ? "unmap" : "discard",
				   (unsigned long long)lpn,
				   (unsigned long long)count,
				   (unsigned long long)sh->geo.logical_pages,
				   (long long)ret);
	if (sh->releases_total != rel || sh->moves_total != moves ||
	    sh->erases_total != erases || memcmp(&before, &after, sizeof(before)))
		return shadow_fail(sh, "%s [%llu, +%llu) failed but changed state",
				   unmap ? "unmap" : "discard",
				   (unsigned long long)lpn,
				   (unsigned long long)count);
	return true;
}

void shadow_totals(const struct shadow *sh, struct shadow_counts *t)
{
	const u64 *a = (const u64 *)&sh->before_reset;
	const u64 *b = (const u64 *)&sh->n;
	u64 *out = (u64 *)t;
	size_t i;

	for (i = 0; i < sizeof(*t) / sizeof(u64); i++)
		out[i] = a[i] + b[i];
}

void shadow_reset_stats(struct shadow *sh)
{
	op_begin(sh, false, 0, 0);
	ftl_reset_stats(sh->ftl);
	op_end(sh);
	shadow_totals(sh, &sh->before_reset);
	memset(&sh->n, 0, sizeof(sh->n));
}

#define EQ(field, want) do {						\
	if ((u64)(s.field) != (u64)(want))				\
		return shadow_fail(sh, "stats." #field " = %llu, expected %llu", \
				   (unsigned long long)(s.field),	\
				   (unsigned long long)(want));		\
} while (0)

bool shadow_check_stats(struct shadow *sh)
{
	struct ftl_stats s;
	struct shadow_counts t;
	u64 min = U64_MAX, max = 0, sum = 0, mean, waf, b;

	if (sh->failed)
		return false;
	ftl_get_stats(sh->ftl, &s);
	EQ(host_pages_written, sh->n.host_written);
	EQ(host_pages_read, sh->n.host_read);
	EQ(unmapped_reads, sh->n.unmapped_reads);
	EQ(discard_calls, sh->n.discard_calls);
	EQ(pages_discarded, sh->n.pages_discarded);
	EQ(valid_pages_discarded, sh->n.valid_pages_discarded);
	EQ(nand_pages_written, sh->n.host_written + sh->n.moves +
	   sh->n.abandoned);
	EQ(atomic_pages_abandoned, sh->n.abandoned);
	EQ(atomic_writes, sh->n.atomic_writes);
	/*
	 * The end of life can cut a collection short: its relocations count,
	 * but no collected() callback says whether GC or WL made them.
	 */
	if (!sh->read_only) {
		EQ(gc_relocations, sh->n.gc_moves);
		EQ(wl_relocations, sh->n.wl_moves);
		EQ(secure_erase_relocations, sh->n.se_moves);
	}
	EQ(gc_relocations + s.wl_relocations + s.secure_erase_relocations,
	   sh->n.moves);
	EQ(gc_runs, sh->n.gc_runs);
	EQ(wl_runs, sh->n.wl_runs);
	EQ(erases, sh->n.erases);
	EQ(valid_pages, sh->mapped);
	shadow_totals(sh, &t);
	EQ(bad_blocks, t.retired);
	EQ(spare_blocks, t.retired < sh->geo.spare_blocks ?
	   sh->geo.spare_blocks - t.retired : 0);
	if (!s.read_only && sh->read_only)
		return shadow_fail(sh, "a change was refused, but the FTL is writable");
	if (s.free_blocks > sh->geo.physical_blocks)
		return shadow_fail(sh, "stats.free_blocks %llu > %u blocks",
				   (unsigned long long)s.free_blocks,
				   sh->geo.physical_blocks);
	for (b = 0; b < sh->geo.physical_blocks; b++) {
		u64 ec = sh->erase_count[b];

		if (!sh->bad[b])
			min = ec < min ? ec : min;
		max = ec > max ? ec : max;
		sum += ec;
	}
	EQ(erase_min, min);
	EQ(erase_max, max);
	mean = sum * 1000 / sh->geo.physical_blocks;
	if (s.erase_mean_milli + 1 < mean || s.erase_mean_milli > mean + 1)
		return shadow_fail(sh, "stats.erase_mean_milli = %llu, expected %llu",
				   (unsigned long long)s.erase_mean_milli,
				   (unsigned long long)mean);
	waf = s.host_pages_written ?
		s.nand_pages_written * 1000 / s.host_pages_written : 0;
	if (s.waf_milli + 1 < waf || s.waf_milli > waf + 1)
		return shadow_fail(sh, "stats.waf_milli = %llu, expected %llu",
				   (unsigned long long)s.waf_milli,
				   (unsigned long long)waf);
	return true;
}

/*
 * With remanence, pages_stale is every page programmed since its erase
 * whose data no lpn maps, bad blocks' included; without, 0.
 */
static bool stale_ok(struct shadow *sh)
{
	struct ftl_stats st;
	u64 p, stale = 0;

	for (p = 0; p < sh->geo.physical_pages; p++)
		stale += sh->written[p] != FTL_UNMAPPED &&
			 sh->l2p[sh->written[p]] != p;
	ftl_get_stats(sh->ftl, &st);
	if (st.pages_stale != (sh->cfg.remanence ? stale : 0))
		return shadow_fail(sh, "pages_stale %llu, the spare areas show %llu (remanence %u)",
				   (unsigned long long)st.pages_stale,
				   (unsigned long long)stale, sh->cfg.remanence);
	return true;
}

bool shadow_verify(struct shadow *sh)
{
	u64 i, mapped = 0;

	if (!shadow_check_stats(sh))
		return false;
	if (ftl_check(sh->ftl))
		return shadow_fail(sh, "ftl_check() failed");
	if (!stale_ok(sh))
		return false;
	for (i = 0; i < sh->geo.logical_pages; i++) {
		u32 ppn = ftl_lookup(sh->ftl, i);

		if (ppn != sh->l2p[i])
			return shadow_fail(sh, "lookup lpn %llu = %u, shadow map says %u",
					   (unsigned long long)i, ppn, sh->l2p[i]);
		if (!sh->ref[i]) {
			if (ppn != FTL_UNMAPPED)
				return shadow_fail(sh, "lpn %llu should be unmapped, maps to %u",
						   (unsigned long long)i, ppn);
			continue;
		}
		mapped++;
		if (!page_ok(sh, "lookup", ppn))
			return false;
		if (sh->content[ppn] != sh->ref[i] || sh->p2l[ppn] != i)
			return shadow_fail(sh, "lpn %llu -> ppn %u holds %#llx, expected %#llx",
					   (unsigned long long)i, ppn,
					   (unsigned long long)sh->content[ppn],
					   (unsigned long long)sh->ref[i]);
	}
	if (mapped != sh->mapped)
		return shadow_fail(sh, "%llu pages mapped, shadow counted %llu",
				   (unsigned long long)mapped,
				   (unsigned long long)sh->mapped);
	for (i = 0; i < sh->geo.physical_pages; i++) {
		u64 lpn = sh->p2l[i];

		if (lpn == SHADOW_NONE) {
			if (sh->content[i])
				return shadow_fail(sh, "ppn %llu holds content but no lpn",
						   (unsigned long long)i);
			continue;
		}
		if (lpn >= sh->geo.logical_pages || sh->l2p[lpn] != i)
			return shadow_fail(sh, "ppn %llu claims lpn %llu, which maps elsewhere",
					   (unsigned long long)i,
					   (unsigned long long)lpn);
	}
	for (i = 0; i < sh->geo.physical_blocks; i++)
		if (ftl_block_erase_count(sh->ftl, i) != sh->erase_count[i])
			return shadow_fail(sh, "block %llu erase count %u, callbacks said %u",
					   (unsigned long long)i,
					   ftl_block_erase_count(sh->ftl, i),
					   sh->erase_count[i]);
	return true;
}
