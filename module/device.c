// SPDX-License-Identifier: GPL-2.0
/*
 * A device's life: ftlblk_create() makes one from a checked configuration
 * (its FTL shards and page tables, the data page pool, the timing model,
 * the write cache, then the disk with its queue limits and its ftl/
 * attributes), ftlblk_remove() takes it apart again. Module parameters
 * (main.c) and configfs (configfs.c) both make devices here.
 *
 * Data lives in pages allocated on first write, one (or 2^page_order)
 * per flash page, found through each shard's page table data[], indexed
 * by logical page (pages.c); the FTL core decides which physical page
 * holds each logical page, and its GC moves only its own maps. With
 * remanence=1 a second table, stale[], by physical page, keeps superseded
 * data until the erase (flash.c). A device's debugfs files (debugfs.c)
 * are added after the disk and removed first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/idr.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "ftlblk.h"

/* Minor numbers per disk (partitions). */
#define FTLBLK_MINORS		16

static int ftlblk_major;
static DEFINE_IDA(ftlblk_indexes);

static int ftlblk_open(ftlblk_open_arg_t *arg, ftlblk_open_mode_t mode)
{
	struct ftlblk_dev *dev = FTLBLK_OPEN_DISK(arg)->private_data;

	/* Called under disk->open_mutex, which ftlblk_remove() also takes. */
	return dev->removing ? -ENXIO : 0;
}

/* The last reference to the disk is gone: nobody can reach dev now. */
static void ftlblk_free_disk(struct gendisk *disk)
{
	struct ftlblk_dev *dev = disk->private_data;

	ida_free(&ftlblk_indexes, dev->index);
	kfree(dev->pollqs);
	kfree(dev);
}

static const struct block_device_operations ftlblk_fops = {
	.owner = THIS_MODULE,
	.open = ftlblk_open,
	.free_disk = ftlblk_free_disk,
};

/* The queue's limits, as struct queue_limits (compat.h applies them). */
static void ftlblk_fill_limits(const struct ftlblk_dev *dev,
			       struct queue_limits *lim)
{
	const unsigned int *v = dev->cfg.val;
	unsigned int max_discard = v[FTLBLK_MAX_DISCARD_SECTORS];
	unsigned int atomic;

	lim->logical_block_size = v[FTLBLK_BLOCKSIZE];
	lim->physical_block_size = v[FTLBLK_PAGE_SIZE];
	/* The flash page, as NVMe's NPWG: smaller writes are read-modify-write. */
	lim->io_min = v[FTLBLK_PAGE_SIZE];
	/*
	 * No optimal size, as null_blk and an NVMe SSD without NOWS: the FTL
	 * remaps every page, so the host gains nothing by aligning to an
	 * erase block, while readahead (2 x io_opt) and mkfs (a RAID stripe
	 * width) would take one at its word.
	 */
	lim->io_opt = 0;
	lim->max_hw_sectors = FTLBLK_MAX_HW_SECTORS;
	lim->max_segments = USHRT_MAX;
	lim->max_segment_size = UINT_MAX;
	/*
	 * Whole flash pages: the block layer splits a large write-zeroes or
	 * discard at these limits, and a piece ending inside a page would
	 * make the page at the split read-modify-write twice.
	 */
	lim->max_write_zeroes_sectors = rounddown(UINT_MAX >> SECTOR_SHIFT,
						  dev->sectors_per_page);
	/*
	 * As large as write-zeroes (4 GiB less a page): a secure erase up to
	 * that is one request, its blocks scanned and erased once
	 * (secure_erase.c); a larger one is a request per 4 GiB.
	 */
	if (v[FTLBLK_SECURE_ERASE])
		lim->max_secure_erase_sectors = lim->max_write_zeroes_sectors;
	/*
	 * Atomic writes of whole logical blocks, each inside one aligned
	 * window of the largest (ftlblk_atomic_bytes()): one shard, one lock
	 * hold's batch.
	 */
	atomic = ftlblk_atomic_bytes(&dev->cfg);
	ftlblk_compat_atomic_writes(lim, atomic, v[FTLBLK_BLOCKSIZE], atomic);
	/* Each stream an erase block of its own, as an FDP reclaim unit. */
	ftlblk_compat_write_streams(lim, v[FTLBLK_WRITE_STREAMS],
				    v[FTLBLK_PAGE_SIZE] *
				    v[FTLBLK_PAGES_PER_BLOCK]);
	/* discard off: discard_max_bytes 0, the block layer refuses discards. */
	if (!v[FTLBLK_DISCARD])
		return;
	/* Without discard, write-zeroes programs zeroes: no unmap then. */
	ftlblk_compat_wzeroes_unmap(lim);
	lim->discard_granularity = v[FTLBLK_PAGE_SIZE];
	lim->max_hw_discard_sectors = max_discard ? max_discard :
		rounddown(UINT_MAX >> SECTOR_SHIFT, dev->sectors_per_page);
	lim->max_discard_segments = v[FTLBLK_MAX_DISCARD_SEGMENTS];
}

/* Create the shards' FTL instances and page tables. */
static int ftlblk_alloc_shards(struct ftlblk_dev *dev,
			       const struct ftl_config *fcfg)
{
	const struct ftl_ops *ops = dev->timing_on ? &ftlblk_ftl_timed_ops :
				    &ftlblk_ftl_ops;
	struct ftl_geometry geo;
	struct ftl_config part;
	u32 first_block = 0;
	unsigned int i;
	int err;

	dev->dealing = ftlblk_dealing(&dev->cfg);
	dev->shards = kcalloc(dev->dealing.nr, sizeof(*dev->shards),
			      GFP_KERNEL);
	if (!dev->shards)
		return -ENOMEM;
	for (i = 0; i < dev->dealing.nr; i++) {
		struct ftlblk_shard *sh = &dev->shards[i];

		sh->dev = dev;
		spin_lock_init(&sh->lock);
		sh->first_block = first_block;
		/* Checked by ftlblk_config_check(). */
		err = ftl_shard_config(fcfg, &dev->dealing, i, &part);
		if (err)
			return err;
		sh->ftl = ftl_create(&part, ops, sh, &err);
		if (!sh->ftl)
			return err;
		ftl_get_geometry(sh->ftl, &geo);
		first_block += geo.physical_blocks;
		sh->physical_pages = geo.physical_pages;
		sh->data = kvcalloc(geo.logical_pages, sizeof(*sh->data),
				    GFP_KERNEL);
		if (!sh->data)
			return -ENOMEM;
		/* A cached update is written back into its class's block. */
		if (fcfg->placement_classes && dev->cfg.val[FTLBLK_WRITE_CACHE]) {
			sh->cached_class = kvcalloc(geo.logical_pages, 1,
						    GFP_KERNEL);
			if (!sh->cached_class)
				return -ENOMEM;
		}
		/* A cached atomic write stays one unit (store.c). */
		if (dev->atomic_pages && dev->cfg.val[FTLBLK_WRITE_CACHE]) {
			sh->cached_unit = kvcalloc(geo.logical_pages, 1,
						   GFP_KERNEL);
			if (!sh->cached_unit)
				return -ENOMEM;
		}
		if (!fcfg->remanence)
			continue;
		dev->reclaim = ftlblk_reclaim_stale;
		sh->stale = kvcalloc(geo.physical_pages, sizeof(*sh->stale),
				     GFP_KERNEL);
		if (!sh->stale)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Destroy what ftlblk_alloc_shards() made, of a device that no longer
 * takes requests and no reader can reach: its data pages are freed at
 * once, then the FTLs.
 */
static void ftlblk_free_shards(struct ftlblk_dev *dev)
{
	struct ftl_geometry geo;
	unsigned int i;
	u64 freed;

	for (i = 0; dev->shards && i < dev->dealing.nr; i++) {
		struct ftlblk_shard *sh = &dev->shards[i];

		if (sh->ftl && sh->data) {
			ftl_get_geometry(sh->ftl, &geo);
			freed = ftlblk_pages_free_table(dev, sh->data, geo.logical_pages);
			sh->data_pages -= freed;
			if (sh->stale)
				sh->stale_pages -= ftlblk_pages_free_table(dev, sh->stale,
									   geo.physical_pages);
		}
		ftl_destroy(sh->ftl);
		WARN_ON(sh->data_pages || sh->stale_pages);
		kvfree(sh->data);
		kvfree(sh->stale);
		kvfree(sh->cached_class);
		kvfree(sh->cached_unit);
	}
	kfree(dev->shards);
	dev->shards = NULL;
}

static int ftlblk_alloc_ftl(struct ftlblk_dev *dev)
{
	struct ftl_config fcfg;
	int err;

	ftlblk_config_to_ftl(&dev->cfg, &fcfg);
	dev->sectors_per_page = fcfg.page_size >> SECTOR_SHIFT;
	dev->page_shift = ilog2(fcfg.page_size);
	/* A write of less than a page still takes a page (and one hold). */
	dev->atomic_pages = DIV_ROUND_UP(ftlblk_atomic_bytes(&dev->cfg),
					 fcfg.page_size);
	dev->page_order = get_order(fcfg.page_size);
	dev->pcpu = alloc_percpu(struct ftlblk_pcpu_stats);
	if (!dev->pcpu)
		return -ENOMEM;
	err = ftlblk_pool_init(dev);
	if (err)
		goto free_pcpu;
	err = ftlblk_timing_init(dev);
	if (err)
		goto free_pool;
	err = ftlblk_alloc_shards(dev, &fcfg);
	if (err)
		goto free_shards;
	err = ftlblk_cache_init(dev);
	if (err)
		goto free_shards;
	return 0;

free_shards:
	ftlblk_free_shards(dev);
	ftlblk_timing_exit(dev);
free_pool:
	ftlblk_pool_free(dev);
free_pcpu:
	free_percpu(dev->pcpu);
	dev->pcpu = NULL;
	return err;
}

static void ftlblk_free_ftl(struct ftlblk_dev *dev)
{
	ftlblk_cache_exit(dev);
	ftlblk_free_shards(dev);
	ftlblk_timing_exit(dev);
	ftlblk_pool_free(dev);
	free_percpu(dev->pcpu);
	dev->pcpu = NULL;
}

static int ftlblk_alloc_disk(struct ftlblk_dev *dev)
{
	struct blk_mq_tag_set *set = &dev->tag_set;
	struct queue_limits lim = { };
	struct gendisk *disk;
	int err;

	unsigned int poll = dev->cfg.val[FTLBLK_POLL_QUEUES], i;

	set->ops = &ftlblk_mq_ops;
	set->driver_data = dev;
	set->nr_hw_queues = (dev->cfg.val[FTLBLK_SUBMIT_QUEUES] ?:
			     num_possible_cpus()) + poll;
	set->nr_maps = poll ? HCTX_MAX_TYPES : 1;
	set->queue_depth = dev->cfg.val[FTLBLK_HW_QUEUE_DEPTH];
	set->numa_node = NUMA_NO_NODE;
	set->cmd_size = sizeof(struct ftlblk_cmd);
	/*
	 * queue_rq never sleeps (rw.c, discard.c), so blk-mq calls it from
	 * the submitting task instead of a kworker; a RAM device gains
	 * nothing from an I/O scheduler, and users can still choose one.
	 */
	set->flags = FTLBLK_MQ_F_MERGE | BLK_MQ_F_NO_SCHED_BY_DEFAULT;
	if (poll) {
		dev->pollqs = kcalloc(set->nr_hw_queues, sizeof(*dev->pollqs),
				      GFP_KERNEL);
		if (!dev->pollqs)
			return -ENOMEM;
	}
	for (i = 0; poll && i < set->nr_hw_queues; i++) {
		spin_lock_init(&dev->pollqs[i].lock);
		INIT_LIST_HEAD(&dev->pollqs[i].list);
	}
	err = blk_mq_alloc_tag_set(set);
	if (err)
		goto free_pollqs;
	ftlblk_fill_limits(dev, &lim);
	/* With the cache, flushes and FUA writes reach us (power.c). */
	disk = ftlblk_compat_alloc_disk(set, &lim,
					dev->cfg.val[FTLBLK_WRITE_CACHE], dev);
	if (IS_ERR(disk)) {
		blk_mq_free_tag_set(set);
		err = PTR_ERR(disk);
		goto free_pollqs;
	}
	dev->disk = disk;
	disk->major = ftlblk_major;
	disk->first_minor = dev->index * FTLBLK_MINORS;
	disk->minors = FTLBLK_MINORS;
	disk->fops = &ftlblk_fops;
	disk->private_data = dev;
	snprintf(disk->disk_name, DISK_NAME_LEN, "ftlblk%d", dev->index);
	set_capacity(disk, (sector_t)dev->cfg.val[FTLBLK_SIZE] <<
		     (20 - SECTOR_SHIFT));
	return 0;

free_pollqs:
	kfree(dev->pollqs);
	dev->pollqs = NULL;
	return err;
}

/**
 * ftlblk_create() - create and register /dev/ftlblkN
 * @cfg: configuration, checked here
 * @bb: bad sector list that outlives the device (a configfs item's), or
 *	NULL for one of its own
 * @cut_mode: power_cut_mode (enum ftlblk_cut_mode), set before the disk
 *	and its ftl/power_cut_mode appear
 * @who: names the device in error messages
 * @devp: receives the device
 *
 * Return: 0, -EINVAL (after a pr_err() line saying why), -ENOMEM, -ENOSPC.
 */
int ftlblk_create(const struct ftlblk_config *cfg, struct badblocks *bb,
		  unsigned int cut_mode, const char *who,
		  struct ftlblk_dev **devp)
{
	struct ftlblk_dev *dev;
	int err;

	err = ftlblk_config_check(cfg, who);
	if (err)
		return err;
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->cfg = *cfg;
	dev->cut_mode = cut_mode;
	ftlblk_wearout_init(dev);
	err = ftlblk_bb_attach(dev, bb);
	if (err)
		goto free_dev;
	dev->index = ida_alloc_max(&ftlblk_indexes,
				   (MINORMASK + 1) / FTLBLK_MINORS - 1,
				   GFP_KERNEL);
	if (dev->index < 0) {
		err = dev->index;
		goto free_dev;
	}
	err = ftlblk_alloc_ftl(dev);
	if (err)
		goto free_index;
	err = ftlblk_alloc_disk(dev);
	if (err)
		goto free_ftl;
	err = device_add_disk(NULL, dev->disk, ftlblk_disk_groups);
	if (err)
		goto free_disk;
	ftlblk_debugfs_add(dev);
	*devp = dev;
	return 0;

free_disk:
	/* Not added: put_disk() does not call free_disk, we free dev. */
	put_disk(dev->disk);
	blk_mq_free_tag_set(&dev->tag_set);
	kfree(dev->pollqs);
free_ftl:
	ftlblk_free_ftl(dev);
free_index:
	if (dev->index >= 0)
		ida_free(&ftlblk_indexes, dev->index);
free_dev:
	ftlblk_bb_detach(dev);
	kfree(dev);
	return err;
}

/**
 * ftlblk_remove() - unregister a device and free its memory
 * @dev: device
 * @force: remove even if open (configfs rmdir, which cannot fail)
 * @cut_mode: if not NULL, receives the device's last power_cut_mode, read
 *	once no ftl/power_cut_mode write can come any more
 *
 * Return: 0, or -EBUSY if the device is open (mounted, held by a
 * process) and @force is false; the device is untouched then.
 */
int ftlblk_remove(struct ftlblk_dev *dev, bool force, unsigned int *cut_mode)
{
	struct gendisk *disk = dev->disk;

	mutex_lock(&disk->open_mutex);
	if (disk_openers(disk) && !force) {
		mutex_unlock(&disk->open_mutex);
		pr_err("%s: cannot remove: device is open or mounted\n",
		       disk->disk_name);
		return -EBUSY;
	}
	dev->removing = true;
	mutex_unlock(&disk->open_mutex);
	/* Its readers use the FTL: gone (waited for) before it goes. */
	ftlblk_debugfs_remove(dev);

	/* Requests waiting for the modeled flash need not wait any more. */
	ftlblk_timing_end_pending(dev, false);
	/* After this no request runs and none will be queued. */
	del_gendisk(disk);
	/* ... and no sysfs store: the mode is the last one written. */
	if (cut_mode)
		*cut_mode = READ_ONCE(dev->cut_mode);
	/*
	 * A work item may still be returning from a request it handed to
	 * its completion timer: the device must outlive it.
	 */
	ftlblk_flush_work();
	ftlblk_wearout_exit(dev);
	ftlblk_free_ftl(dev);
	ftlblk_bb_detach(dev);
	/* del_gendisk() has exited the queue, so the tags can go first. */
	blk_mq_free_tag_set(&dev->tag_set);
	/* Frees dev (free_disk) now, or when the last opener lets go. */
	put_disk(disk);
	return 0;
}

/**
 * ftlblk_devices_init() - register the block major all devices share
 *
 * Return: 0 or a register_blkdev() error.
 */
int ftlblk_devices_init(void)
{
	ftlblk_major = register_blkdev(0, "ftlblk");
	return ftlblk_major < 0 ? ftlblk_major : 0;
}

/**
 * ftlblk_devices_exit() - unregister it, once every device is removed
 */
void ftlblk_devices_exit(void)
{
	unregister_blkdev(ftlblk_major, "ftlblk");
}
