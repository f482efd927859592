// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - trace requests onto the FTL core, page by page as ftlblk does.
 *
 * The module (module/rw.c, discard.c), for a request of sectors [s, s + n):
 *  - READ: per flash page touched, ftl_read() (host_pages_read, and
 *    unmapped_reads for a page without data);
 *  - WRITE: per flash page touched, ftl_write(): a whole page is
 *    programmed, a partial one read-modify-written (one program either
 *    way, host_pages_written + 1);
 *  - DISCARD (one range): whole pages go to ftl_discard() first, in
 *    batches (pages_discarded, valid_pages_discarded); then
 *    the partly covered first and last pages are zero_partial_page()d:
 *    nothing if unmapped; else the covered sectors are zeroed and the page
 *    is programmed again (host_pages_written), or unmapped with
 *    ftl_unmap() (not counted as a discard) if it is now all zeroes; every
 *    sector of them counts in sectors_zeroed either way. (The block layer
 *    sends the partial head of an unaligned discard as a range of its own
 *    in the same request; the module does the whole pages of all ranges
 *    first, which comes to the same order.)
 * A page is "all zeroes" here when none of its sectors was written since
 * it was last unmapped, or all that were have been zeroed by discards:
 * the simulator holds no data and takes every written sector as holding
 * some non-zero byte (iolog-replay writes such data). A trace that
 * writes sectors of zeroes can leave a page mapped here that the module
 * unmaps.
 */
#include <stdlib.h>
#include <string.h>

#include "replay.h"

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

/* The module's zero_partial_page() for a discard. */
static int zero_partial(struct replay *r, u64 lpn, u32 first, u32 count)
{
	u32 ppn;
	int err;

	r->sectors_zeroed += count;
	if (!simdev_mapped(r->ftl, lpn))
		return 0;
	r->nonzero[lpn] &= ~sector_bits(first, count);
	if (r->nonzero[lpn]) {
		err = simdev_write(r->ftl, lpn, &ppn);
		if (err)
			return err;
		r->rmw_pages++;
	} else {
		simdev_discard(r->ftl, lpn, 1, true);
	}
	return 0;
}

/* The module's zero_range() with discard set, nounmap clear. */
static int discard(struct replay *r, u64 sector, u64 nr)
{
	u32 spp = r->sectors_per_page;
	u64 end = sector + nr, lpn = sector / spp, last = (end - 1) / spp;
	u32 head = (u32)(sector % spp), tail = (u32)((end - 1) % spp) + 1;
	u64 first_whole = head ? lpn + 1 : lpn;
	u64 last_whole = tail != spp ? last - 1 : last;
	int err;

	if (lpn == last && (head || tail != spp))
		return zero_partial(r, lpn, head, tail - head);
	/* Whole pages first: they free memory the partial ones may need. */
	while (first_whole <= last_whole && last_whole != U64_MAX) {
		u64 n = last_whole - first_whole + 1;
		s64 ret;

		if (n > REPLAY_UNMAP_BATCH)
			n = REPLAY_UNMAP_BATCH;
		/* The module holds one shard's lock at a time. */
		if (n > ftl_shard_run(&r->ftl->dealing, first_whole))
			n = ftl_shard_run(&r->ftl->dealing, first_whole);
		ret = simdev_discard(r->ftl, first_whole, n, false);
		if (ret < 0)
			return (int)ret;
		for (u64 i = first_whole; i < first_whole + n; i++)
			r->nonzero[i] = 0;
		first_whole += n;
	}
	if (head) {
		err = zero_partial(r, lpn, head, spp - head);
		if (err)
			return err;
	}
	if (tail != spp)
		return zero_partial(r, last, 0, tail);
	return 0;
}

int replay_req(struct replay *r, const struct trace_req *req,
	       const char **why)
{
	u32 spp = r->sectors_per_page;
	u64 pos = req->sector, left = req->nr_sects;
	int err = 0;

	if (!left)
		return 0;
	if (pos >= r->capacity || left > r->capacity - pos) {
		*why = "request beyond the end of the device (give --size)";
		return -ERANGE;
	}
	switch (req->op) {
	case TRACE_DISCARD:
		r->discard_requests++;
		r->discard_sectors += left;
		err = discard(r, pos, left);
		break;
	case TRACE_READ:
		r->read_requests++;
		r->read_sectors += left;
		while (left) {
			u32 off = (u32)(pos % spp);
			u64 len = spp - off < left ? spp - off : left;
			u32 ppn;

			err = simdev_read(r->ftl, pos / spp, &ppn);
			if (err)
				break;
			pos += len;
			left -= len;
		}
		break;
	case TRACE_WRITE:
		r->write_requests++;
		r->write_sectors += left;
		while (left) {
			u32 off = (u32)(pos % spp);
			u64 len = spp - off < left ? spp - off : left;
			u64 lpn = pos / spp;
			u32 ppn;

			err = simdev_write(r->ftl, lpn, &ppn);
			if (err)
				break;
			if (len != spp)
				r->rmw_pages++;
			/* an unmapped page read as zeroes before the write */
			r->nonzero[lpn] |= sector_bits(off, (u32)len);
			pos += len;
			left -= len;
		}
		break;
	default:
		*why = "unknown request type";
		return -EINVAL;
	}
	if (err)
		*why = "the FTL core refused the request";
	return err;
}
