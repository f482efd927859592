/* SPDX-License-Identifier: GPL-2.0 */
/*
 * device.h - the simulated device: one FTL core, or several shards of one
 * (--shards, ../../ftl/shard.h) dealt logical pages exactly as the ftlblk
 * module deals them (shards=N), so that a trace replayed on both touches
 * the same pages of the same shards. Each call mirrors the ftl_*() call of
 * the same name, in device logical pages and device physical pages (a
 * shard's blocks follow the previous shards').
 */
#ifndef FTLSIM_DEVICE_H
#define FTLSIM_DEVICE_H

#include "../../ftl/shard.h"

/**
 * struct simdev - a device of one or more FTL instances
 * @dealing: how logical pages are dealt to @shard
 * @shard: the instances
 * @first_ppn: each instance's page 0 in the device's numbering
 * @logical_pages: the device's
 * @classes: placement classes every shard has, at least 1
 */
struct simdev {
	struct ftl_shards dealing;
	u64 logical_pages;
	u32 classes;
	struct ftl *shard[FTL_MAX_SHARDS];
	u32 first_ppn[FTL_MAX_SHARDS];
};

/*
 * Create @nr shards of @cfg (@ops, @ctx only with one). Return: the
 * device, or NULL with *@err and *@why (a static sentence) set.
 */
struct simdev *simdev_create(const struct ftl_config *cfg, u32 nr,
			     const struct ftl_ops *ops, void *ctx, int *err,
			     const char **why);
void simdev_destroy(struct simdev *d);

static inline int simdev_write(struct simdev *d, u64 lpn, u32 *ppn)
{
	u64 local;
	u32 i = ftl_shard_of(&d->dealing, lpn, &local);
	int err = ftl_write(d->shard[i], local, ppn);

	if (!err)
		*ppn += d->first_ppn[i];
	return err;
}

/* ftl_prefetch_write() in the page's shard. */
static inline void simdev_prefetch_write(struct simdev *d, u64 lpn, bool deep)
{
	u64 local;
	u32 i = ftl_shard_of(&d->dealing, lpn, &local);

	ftl_prefetch_write(d->shard[i], local, deep);
}

/* ftl_write_class(): the page's shard writes it into class @cls's block. */
static inline int simdev_write_class(struct simdev *d, u64 lpn, u32 cls,
				     u32 *ppn)
{
	u64 local;
	u32 i = ftl_shard_of(&d->dealing, lpn, &local);
	int err = ftl_write_class(d->shard[i], local, cls, ppn);

	if (!err)
		*ppn += d->first_ppn[i];
	return err;
}

/*
 * ftl_write_atomic(): @n pages from @lpn, all in one shard (the module's
 * atomic write boundary keeps a request in one stripe); -EINVAL if not.
 */
static inline int simdev_write_atomic(struct simdev *d, u64 lpn, u32 n,
				      u32 cls, u32 *ppns)
{
	u64 local;
	u32 i = ftl_shard_of(&d->dealing, lpn, &local), k;
	int err;

	if (ftl_shard_run(&d->dealing, lpn) < n)
		return -EINVAL;
	err = ftl_write_atomic(d->shard[i], local, n, cls, ppns);
	for (k = 0; !err && k < n; k++)
		ppns[k] += d->first_ppn[i];
	return err;
}

static inline int simdev_read(struct simdev *d, u64 lpn, u32 *ppn)
{
	u64 local;
	u32 i = ftl_shard_of(&d->dealing, lpn, &local);
	int err = ftl_read(d->shard[i], local, ppn);

	if (!err && *ppn != FTL_UNMAPPED)
		*ppn += d->first_ppn[i];
	return err;
}

static inline bool simdev_mapped(struct simdev *d, u64 lpn)
{
	u64 local;
	u32 i = ftl_shard_of(&d->dealing, lpn, &local);

	return ftl_lookup(d->shard[i], local) != FTL_UNMAPPED;
}

/* ftl_discard() (or ftl_unmap(), @unmap) of a range, shard by shard. */
s64 simdev_discard(struct simdev *d, u64 lpn, u64 count, bool unmap);

/*
 * ftl_secure_erase_blocks() for device logical pages [@first, @last],
 * already unmapped, as the module's ftlblk_secure_erase() calls it: shard
 * by shard in order, each shard holding some of the pages over its own
 * run of them (the dealing gives each shard one run of consecutive local
 * pages), across all its blocks in windows of @window blocks.
 */
int simdev_secure_erase_blocks(struct simdev *d, u64 first, u64 last,
			       u32 window);

/* The first shard's read-only state that is not FTL_WRITABLE. */
enum ftl_read_only simdev_read_only(const struct simdev *d);
void simdev_get_stats(const struct simdev *d, struct ftl_stats *st);
void simdev_get_geometry(const struct simdev *d, struct ftl_geometry *geo);
void simdev_reset_stats(struct simdev *d);
/* ftl_get_class_stats() summed over the shards (reset with the others). */
void simdev_get_class_stats(const struct simdev *d, u32 cls,
			    struct ftl_class_stats *out);
u64 simdev_metadata_bytes(const struct simdev *d);
/* Block @block of the device (the shards' in order). */
u32 simdev_block_erase_count(const struct simdev *d, u32 block);
int simdev_check(const struct simdev *d);

#endif /* FTLSIM_DEVICE_H */
