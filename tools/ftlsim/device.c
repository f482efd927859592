// SPDX-License-Identifier: GPL-2.0
/* device.c - the simulated device's shards (device.h). */
#include <stdlib.h>

#include "device.h"

struct simdev *simdev_create(const struct ftl_config *cfg, u32 nr,
			     const struct ftl_ops *ops, void *ctx, int *err,
			     const char **why)
{
	struct simdev *d = calloc(1, sizeof(*d));
	struct ftl_geometry geo;
	struct ftl_config part;
	u32 i, pages = 0;

	*err = -ENOMEM;
	*why = "out of memory";
	if (!d)
		return NULL;
	d->dealing = (struct ftl_shards){ .nr = nr,
					  .stripe = cfg->pages_per_block };
	d->logical_pages = cfg->logical_pages;
	d->classes = cfg->placement_classes ? cfg->placement_classes : 1;
	*err = ftl_shard_check(cfg, &d->dealing, why);
	if (*err)
		goto fail;
	for (i = 0; i < nr; i++) {
		ftl_shard_config(cfg, &d->dealing, i, &part);
		d->first_ppn[i] = pages;
		d->shard[i] = ftl_create(&part, ops, ctx, err);
		if (!d->shard[i]) {
			*why = "out of memory";
			goto fail;
		}
		ftl_get_geometry(d->shard[i], &geo);
		pages += geo.physical_pages;
	}
	*err = 0;
	return d;
fail:
	simdev_destroy(d);
	return NULL;
}

void simdev_destroy(struct simdev *d)
{
	u32 i;

	if (!d)
		return;
	for (i = 0; i < d->dealing.nr; i++)
		ftl_destroy(d->shard[i]);
	free(d);
}

s64 simdev_discard(struct simdev *d, u64 lpn, u64 count, bool unmap)
{
	s64 sum = 0, ret;
	u64 local, piece;
	u32 i;

	/* A range that does not fit changes nothing (as ftl_discard()). */
	if (d->dealing.nr > 1 && (lpn + count < lpn ||
				  lpn + count > d->logical_pages))
		return -ERANGE;
	while (count) {
		piece = ftl_shard_run(&d->dealing, lpn);
		piece = piece < count ? piece : count;
		i = ftl_shard_of(&d->dealing, lpn, &local);
		ret = unmap ? ftl_unmap(d->shard[i], local, piece) :
			      ftl_discard(d->shard[i], local, piece);
		if (ret < 0)
			return ret;
		sum += ret;
		lpn += piece;
		count -= piece;
	}
	return sum;
}

/* A shard's part of a device range: its logical pages [lo, hi]. */
struct simdev_part {
	u64 lo;
	u64 hi;
	bool any;
};

/* The module's split_by_shard() (secure_erase.c). */
static void simdev_split(const struct simdev *d, u64 first, u64 last,
			 struct simdev_part *parts)
{
	u64 lpn = first;

	while (lpn <= last) {
		u64 n = ftl_shard_run(&d->dealing, lpn), local;
		struct simdev_part *p;

		n = n < last - lpn + 1 ? n : last - lpn + 1;
		p = &parts[ftl_shard_of(&d->dealing, lpn, &local)];
		if (!p->any)
			p->lo = local;
		p->any = true;
		p->hi = local + n - 1;
		lpn += n;
	}
}

/* The module's erase_shard_copies(): every block, a window per call. */
static int simdev_erase_copies(struct ftl *ftl, const struct simdev_part *p,
			       u32 window)
{
	struct ftl_sanitize res = { 0 };
	struct ftl_geometry geo;
	int err = 0;
	u32 b;

	ftl_get_geometry(ftl, &geo);
	for (b = 0; b < geo.physical_blocks && !err; b += window)
		err = ftl_secure_erase_blocks(ftl, p->lo, p->hi - p->lo + 1, b,
					      window, &res);
	return err;
}

int simdev_secure_erase_blocks(struct simdev *d, u64 first, u64 last,
			       u32 window)
{
	struct simdev_part parts[FTL_MAX_SHARDS] = { 0 };
	int err = 0;
	u32 i;

	simdev_split(d, first, last, parts);
	for (i = 0; i < d->dealing.nr && !err; i++)
		if (parts[i].any)
			err = simdev_erase_copies(d->shard[i], &parts[i],
						  window);
	return err;
}

enum ftl_read_only simdev_read_only(const struct simdev *d)
{
	enum ftl_read_only ro;
	u32 i;

	for (i = 0; i < d->dealing.nr; i++) {
		ro = ftl_read_only(d->shard[i]);
		if (ro != FTL_WRITABLE)
			return ro;
	}
	return FTL_WRITABLE;
}

void simdev_get_stats(const struct simdev *d, struct ftl_stats *st)
{
	struct ftl_geometry geo;
	struct ftl_stats part;
	u64 blocks = 0;
	u32 i;

	*st = (struct ftl_stats){ 0 };
	for (i = 0; i < d->dealing.nr; i++) {
		ftl_get_stats(d->shard[i], &part);
		ftl_get_geometry(d->shard[i], &geo);
		ftl_shard_stats_add(st, &blocks, &part, geo.physical_blocks);
	}
}

void simdev_get_geometry(const struct simdev *d, struct ftl_geometry *geo)
{
	struct ftl_geometry part;
	u32 i;

	*geo = (struct ftl_geometry){ 0 };
	for (i = 0; i < d->dealing.nr; i++) {
		ftl_get_geometry(d->shard[i], &part);
		ftl_shard_geometry_add(geo, &part);
	}
}

void simdev_reset_stats(struct simdev *d)
{
	u32 i;

	for (i = 0; i < d->dealing.nr; i++)
		ftl_reset_stats(d->shard[i]);
}

void simdev_get_class_stats(const struct simdev *d, u32 cls,
			    struct ftl_class_stats *out)
{
	struct ftl_class_stats part;
	u32 i;

	*out = (struct ftl_class_stats){ 0 };
	for (i = 0; i < d->dealing.nr; i++) {
		ftl_get_class_stats(d->shard[i], cls, &part);
		out->pages_written += part.pages_written;
		out->blocks_filled += part.blocks_filled;
	}
}

u64 simdev_metadata_bytes(const struct simdev *d)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < d->dealing.nr; i++)
		sum += ftl_metadata_bytes(d->shard[i]);
	return sum;
}

u32 simdev_block_erase_count(const struct simdev *d, u32 block)
{
	struct ftl_geometry geo;
	u32 i;

	for (i = 0; i < d->dealing.nr; i++) {
		ftl_get_geometry(d->shard[i], &geo);
		if (block < geo.physical_blocks)
			return ftl_block_erase_count(d->shard[i], block);
		block -= geo.physical_blocks;
	}
	return 0;
}

int simdev_check(const struct simdev *d)
{
	u32 i;

	for (i = 0; i < d->dealing.nr; i++)
		if (ftl_check(d->shard[i]))
			return -EIO;
	return 0;
}
