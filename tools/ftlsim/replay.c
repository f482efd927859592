// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - trace requests onto the FTL core, page by page as ftlblk does.
 *
 * The module (module/rw.c, discard.c, secure_erase.c), for a request of
 * sectors [s, s + n):
 *  - READ: per flash page touched, ftl_read() (host_pages_read, and
 *    unmapped_reads for a page without data);
 *  - WRITE: per flash page touched, ftl_write_class() with the write's
 *    placement class (0 unless the trace gives one): a whole page is
 *    programmed, a partial one read-modify-written (one program either
 *    way, host_pages_written + 1); an atomic write (REQ_ATOMIC) is one
 *    ftl_write_atomic() of all its pages;
 *  - DISCARD (one range), zero_range(discard): whole pages go to
 *    ftl_discard() first, in batches (pages_discarded,
 *    valid_pages_discarded); then the partly covered first and last pages
 *    are zero_partial_page()d: nothing if unmapped; else the covered
 *    sectors are zeroed and the page is programmed again
 *    (host_pages_written), or unmapped with ftl_unmap() (not counted as a
 *    discard) if it is now all zeroes; every sector of them counts in
 *    sectors_zeroed either way. (The block layer sends the partial head
 *    of an unaligned discard as a range of its own in the same request;
 *    the module does the whole pages of all ranges first, which comes to
 *    the same order.)
 *  - WRITE ZEROES with unmap, zero_range(!discard, !nounmap): the same
 *    with ftl_unmap() for the whole pages, and no sectors_zeroed;
 *  - WRITE ZEROES without unmap (REQ_NOUNMAP, or discard=0),
 *    zero_range(!discard, nounmap): every page of the range programmed
 *    with ftl_write(), whole ones first, partial ones read-modify-written
 *    whether mapped or not; every page stays mapped, even all zeroes;
 *  - SECURE ERASE: a write-zeroes with unmap, then, shard by shard,
 *    ftl_secure_erase_blocks() over every block in windows: each block
 *    holding a stale copy of a page of the range (the partial ones too)
 *    has its valid pages relocated and is erased.
 * A page is "all zeroes" here when none of its sectors was written since
 * it was last unmapped, or all that were have been zeroed since: the
 * simulator holds no data and takes every written sector as holding
 * some non-zero byte (iolog-replay writes such data). A trace that
 * writes sectors of zeroes can leave a page mapped here that the module
 * unmaps.
 */
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* tracefile.c is plain C without the core's headers: one bound for both. */
_Static_assert(TRACE_MAX_CLASSES == FTL_MAX_CLASSES,
	       "TRACE_MAX_CLASSES must be FTL_MAX_CLASSES");

int replay_init(struct replay *r, struct simdev *ftl, u32 page_size,
		u64 logical_pages)
{
	memset(r, 0, sizeof(*r));
	r->ftl = ftl;
	r->sectors_per_page = page_size / 512;
	r->capacity = logical_pages * r->sectors_per_page;
	r->nonzero = calloc(logical_pages ? logical_pages : 1, sizeof(u32));
	return r->nonzero ? 0 : -ENOMEM;
}

void replay_destroy(struct replay *r)
{
	free(r->nonzero);
	r->nonzero = NULL;
}

static u32 sector_bits(u32 first, u32 count)
{
	u64 m = ((1ULL << count) - 1) << first;

	return (u32)m;
}

static u32 all_bits(const struct replay *r)
{
	return sector_bits(0, r->sectors_per_page);
}

int replay_fill(struct replay *r)
{
	u64 lpn, n = r->capacity / r->sectors_per_page;
	u32 ppn;
	int err;

	for (lpn = 0; lpn < n; lpn++) {
		err = simdev_write(r->ftl, lpn, &ppn);
		if (err)
			return err;
		r->nonzero[lpn] = all_bits(r);
	}
	return 0;
}

/*
 * The module's zero_partial_page(): zero sectors [@first, @first + @count)
 * of page @lpn. An unmapped page already reads zeroes; a page left all
 * zeroes is unmapped (not a discard), unless @keep_mapped: then the page
 * is programmed, mapped or not.
 */
static int zero_partial(struct replay *r, u64 lpn, u32 first, u32 count,
			bool discard, bool keep_mapped)
{
	u32 ppn;
	s64 ret;
	int err;

	if (discard)
		r->sectors_zeroed += count;
	if (!keep_mapped && !simdev_mapped(r->ftl, lpn))
		return 0;
	r->nonzero[lpn] &= ~sector_bits(first, count);
	if (!keep_mapped && !r->nonzero[lpn]) {
		ret = simdev_discard(r->ftl, lpn, 1, true);
		return ret < 0 ? (int)ret : 0;
	}
	err = simdev_write(r->ftl, lpn, &ppn);
	if (!err)
		r->rmw_pages++;
	return err;
}

/* The module's write_zero_pages(): zeroes programmed, page by page. */
static int write_zero_pages(struct replay *r, u64 lpn, u64 count)
{
	u32 ppn;
	int err;

	for (; count; lpn++, count--) {
		err = simdev_write(r->ftl, lpn, &ppn);
		if (err)
			return err;
		r->nonzero[lpn] = 0;
	}
	return 0;
}

/*
 * The module's unmap_pages(): ftl_discard(), or ftl_unmap() for a
 * write-zeroes, in batches that each stay in one shard (the module holds
 * one shard's lock at a time).
 */
static int unmap_pages(struct replay *r, u64 lpn, u64 count, bool discard)
{
	while (count) {
		u64 n = count < REPLAY_UNMAP_BATCH ? count : REPLAY_UNMAP_BATCH;
		s64 ret;

		if (n > ftl_shard_run(&r->ftl->dealing, lpn))
			n = ftl_shard_run(&r->ftl->dealing, lpn);
		ret = simdev_discard(r->ftl, lpn, n, !discard);
		if (ret < 0)
			return (int)ret;
		memset(&r->nonzero[lpn], 0, n * sizeof(*r->nonzero));
		lpn += n;
		count -= n;
	}
	return 0;
}

/*
 * The module's zero_range(): the whole pages first (unmapped, or with
 * @nounmap programmed with zeroes), then the partly covered first and
 * last pages; the module keeps that order because unmapping frees the
 * memory a partial page needs, and the order decides where GC strikes.
 * @discard: a discard (counted as one; sectors_zeroed).
 */
static int zero_range(struct replay *r, u64 sector, u64 nr, bool discard,
		      bool nounmap)
{
	u32 spp = r->sectors_per_page;
	u64 end = sector + nr, lpn = sector / spp, last = (end - 1) / spp;
	u32 head = (u32)(sector % spp), tail = (u32)((end - 1) % spp) + 1;
	u64 first_whole = head ? lpn + 1 : lpn;
	u64 last_whole = tail != spp ? last - 1 : last;
	int err = 0;

	if (lpn == last && (head || tail != spp))
		return zero_partial(r, lpn, head, tail - head, discard,
				    nounmap);
	if (first_whole <= last_whole)
		err = nounmap ? write_zero_pages(r, first_whole,
						 last_whole - first_whole + 1) :
		      unmap_pages(r, first_whole, last_whole - first_whole + 1,
				  discard);
	if (!err && head)
		err = zero_partial(r, lpn, head, spp - head, discard, nounmap);
	if (!err && tail != spp)
		err = zero_partial(r, last, 0, tail, discard, nounmap);
	return err;
}

/*
 * The module's ftlblk_secure_erase(): zeroes over the range as a
 * write-zeroes with unmap (ftlblk_zero_sectors()), then every old copy of
 * its pages, the partial first and last included, erased (the module
 * writes its cache back in between; ftlsim models none).
 */
static int secure_erase(struct replay *r, u64 sector, u64 nr)
{
	u32 spp = r->sectors_per_page;
	int err = zero_range(r, sector, nr, false, false);

	if (err)
		return err;
	return simdev_secure_erase_blocks(r->ftl, sector / spp,
					  (sector + nr - 1) / spp,
					  REPLAY_SE_WINDOW);
}

/* A discard, write-zeroes or secure erase: the range reads zeroes. */
static int zeroes(struct replay *r, const struct trace_req *req)
{
	u64 pos = req->sector, nr = req->nr_sects;

	switch (req->zero) {
	case TRACE_ZERO_DISCARD:
		r->discard_requests++;
		r->discard_sectors += nr;
		return zero_range(r, pos, nr, true, false);
	case TRACE_ZERO_UNMAP:
	case TRACE_ZERO_PROGRAM:
		r->write_zeroes_requests++;
		r->write_zeroes_sectors += nr;
		return zero_range(r, pos, nr, false,
				  req->zero == TRACE_ZERO_PROGRAM);
	case TRACE_ZERO_SECURE:
		r->secure_erase_requests++;
		r->secure_erase_sectors += nr;
		return secure_erase(r, pos, nr);
	}
	return -EINVAL;
}

/* The module's ftlblk_rw() for a read: one ftl_read() per page. */
static int read_pages(struct replay *r, u64 pos, u64 left)
{
	u32 spp = r->sectors_per_page;
	u32 ppn;
	int err;

	r->read_requests++;
	r->read_sectors += left;
	while (left) {
		u32 off = (u32)(pos % spp);
		u64 len = spp - off < left ? spp - off : left;

		err = simdev_read(r->ftl, pos / spp, &ppn);
		if (err)
			return err;
		pos += len;
		left -= len;
	}
	return 0;
}

/* Largest atomic write replayed, in pages: the module's limit is 16. */
#define FTL_MAX_ATOMIC_REPLAY	256

/*
 * ... and for a write: one ftl_write() per page, partial ones too, into
 * the open block of the write's placement class (ftl_write_class()).
 */
static int write_pages(struct replay *r, u64 pos, u64 left, u32 cls,
		       bool atomic)
{
	u32 spp = r->sectors_per_page;
	u64 first = pos / spp, pages = (pos + left - 1) / spp - first + 1;
	u32 ppn, ppns[FTL_MAX_ATOMIC_REPLAY];
	int err;

	r->write_requests++;
	r->write_sectors += left;
	if (atomic) {
		if (pages > FTL_MAX_ATOMIC_REPLAY)
			return -EINVAL;
		err = simdev_write_atomic(r->ftl, first, (u32)pages, cls, ppns);
		if (err)
			return err;
	}
	while (left) {
		u32 off = (u32)(pos % spp);
		u64 len = spp - off < left ? spp - off : left;
		u64 lpn = pos / spp;

		err = atomic ? 0 : simdev_write_class(r->ftl, lpn, cls, &ppn);
		if (err)
			return err;
		if (len != spp)
			r->rmw_pages++;
		/* an unmapped page read as zeroes before the write */
		r->nonzero[lpn] |= sector_bits(off, (u32)len);
		pos += len;
		left -= len;
	}
	return 0;
}

int replay_req(struct replay *r, const struct trace_req *req,
	       const char **why)
{
	u64 pos = req->sector, left = req->nr_sects;
	int err;

	if (!left)
		return 0;
	if (pos >= r->capacity || left > r->capacity - pos) {
		*why = "request beyond the end of the device (give --size)";
		return -ERANGE;
	}
	switch (req->op) {
	case TRACE_DISCARD:
		if ((unsigned int)req->zero > TRACE_ZERO_SECURE) {
			*why = "unknown request type";
			return -EINVAL;
		}
		err = zeroes(r, req);
		break;
	case TRACE_READ:
		err = read_pages(r, pos, left);
		break;
	case TRACE_WRITE:
		if (req->cls >= r->ftl->classes) {
			*why = "placement class not configured "
			       "(--placement-classes must be above it)";
			return -EINVAL;
		}
		err = write_pages(r, pos, left, req->cls, req->atomic);
		break;
	default:
		*why = "unknown request type";
		return -EINVAL;
	}
	if (err)
		*why = "the FTL core refused the request";
	return err;
}
