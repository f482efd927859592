/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay.h - apply trace requests to the FTL core exactly as the ftlblk
 * module applies block requests to it (module/rw.c: ftlblk_rw(),
 * write_batch(); module/discard.c: zero_range(), zero_partial_page(),
 * write_zero_pages(), unmap_pages(); module/secure_erase.c:
 * ftlblk_secure_erase()).
 */
#ifndef FTLSIM_REPLAY_H
#define FTLSIM_REPLAY_H

#include "device.h"
#include "tracefile.h"

/*
 * Long discards are unmapped in batches, as the module does (its
 * FTLBLK_UNMAP_BATCH is 256 pages, 128 with the write cache): the size
 * changes only how many ftl_discard() calls a discard makes
 * (ftl_stats.discard_calls, which ftlsim's JSON shows and sysfs does not),
 * never what is unmapped or any counter the two compare.
 */
#define REPLAY_UNMAP_BATCH	1024

/*
 * Blocks a secure erase scans per call of ftl_secure_erase_blocks(), as
 * the module's FTLBLK_SE_WINDOW (one hold of a shard's lock). The windows
 * give the same result as one call over all blocks; ftlsim keeps them so
 * that the calls are the module's, one by one.
 */
#define REPLAY_SE_WINDOW	8

/**
 * struct replay - the module's view of a device, without data
 * @ftl: the device (one FTL core or its shards)
 * @sectors_per_page: flash page size / 512, at most 32
 * @capacity: device size in sectors
 * @nonzero: per logical page, a bit per sector that may hold non-zero
 *	data (every written sector is assumed to); 0 for unmapped pages.
 *	It decides, like the module's memchr_inv(), whether a partial
 *	discard leaves a page all zeroes (then it is unmapped)
 * @read_requests: requests replayed, by type
 * @write_requests: see @read_requests
 * @discard_requests: see @read_requests (one range each)
 * @write_zeroes_requests: see @read_requests, with or without unmap
 * @secure_erase_requests: see @read_requests
 * @read_sectors: sectors, by type
 * @write_sectors: see @read_sectors
 * @discard_sectors: see @read_sectors
 * @write_zeroes_sectors: see @read_sectors
 * @secure_erase_sectors: see @read_sectors
 * @sectors_zeroed: sectors of partly covered pages zeroed by discards
 *	(not by write-zeroes or secure erases), as the module's
 *	sectors_zeroed
 * @rmw_pages: page programs of partial pages (writes, discards,
 *	write-zeroes and secure erases)
 *
 * @discard_requests, @write_zeroes_requests, @secure_erase_requests,
 * @discard_sectors and @sectors_zeroed count what the module's sysfs files
 * of those names count.
 */
struct replay {
	struct simdev *ftl;
	u32 sectors_per_page;
	u64 capacity;
	u32 *nonzero;
	u64 read_requests, write_requests, discard_requests;
	u64 write_zeroes_requests, secure_erase_requests;
	u64 read_sectors, write_sectors, discard_sectors;
	u64 write_zeroes_sectors, secure_erase_sectors;
	u64 sectors_zeroed;
	u64 rmw_pages;
};

/* Requests replayed, of every type. */
static inline u64 replay_requests(const struct replay *r)
{
	return r->read_requests + r->write_requests + r->discard_requests +
	       r->write_zeroes_requests + r->secure_erase_requests;
}

/**
 * replay_init() - set up a replay on @ftl
 * @r: replay to set up
 * @ftl: device, freshly created (every page unmapped)
 * @page_size: flash page size in bytes, 512..16384, a power of two
 * @logical_pages: as configured
 *
 * Return: 0 or -ENOMEM.
 */
int replay_init(struct replay *r, struct simdev *ftl, u32 page_size,
		u64 logical_pages);
void replay_destroy(struct replay *r);

/* Write every logical page once (ftlsim --fill); counters are not reset. */
int replay_fill(struct replay *r);

/**
 * replay_req() - apply one request
 * @r: replay
 * @req: request
 * @why: receives a static reason on error
 *
 * Return: 0, or -ERANGE (beyond the device, nothing done) or the core's
 * error.
 */
int replay_req(struct replay *r, const struct trace_req *req,
	       const char **why);

#endif /* FTLSIM_REPLAY_H */
