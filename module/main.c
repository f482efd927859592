// SPDX-License-Identifier: GPL-2.0
/*
 * ftlblk - a RAM-backed flash SSD whose flash translation layer consumes
 * discard requests.
 *
 * Data lives in pages allocated on first write, one (or 2^page_order)
 * per physical flash page, indexed by physical page number. The FTL core
 * decides where each logical page goes; when it garbage-collects it hands
 * the data page over to the new physical page (a pointer move), and when
 * a physical page stops holding valid data (overwrite, discard, erase) its
 * memory goes back to the pool or the system (pages.c).
 *
 * This file: the tunables, the device life cycle and queue_rq (the file
 * map is in docs/design.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/idr.h>
#include <linux/log2.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "ftlblk.h"

#define FTLBLK_MINORS		16
#define FTLBLK_MAX_SIZE_MIB	65536

static const unsigned int ftlblk_block_sizes[] = { 512, 4096, 0 };
static const unsigned int ftlblk_page_sizes[] = { 4096, 8192, 16384, 0 };

/* .zero_ok: 0 is also allowed (it means "the default"). */
const struct ftlblk_field ftlblk_fields[FTLBLK_NR_FIELDS] = {
	[FTLBLK_SIZE] = { .name = "size", .min = 1,
			  .max = FTLBLK_MAX_SIZE_MIB,
			  .help = "1..65536 (MiB)" },
	[FTLBLK_BLOCKSIZE] = { .name = "blocksize",
			       .choices = ftlblk_block_sizes,
			       .help = "512 or 4096 (bytes)" },
	[FTLBLK_PAGE_SIZE] = { .name = "page_size",
			       .choices = ftlblk_page_sizes,
			       .help = "4096, 8192 or 16384 (bytes)" },
	[FTLBLK_PAGES_PER_BLOCK] = { .name = "pages_per_block",
				     .min = FTL_MIN_PAGES_PER_BLOCK,
				     .max = FTL_MAX_PAGES_PER_BLOCK,
				     .help = "2..4096 (flash pages per erase block)" },
	[FTLBLK_OP_PERCENT] = { .name = "op_percent",
				.min = FTL_MIN_OP_PERCENT,
				.max = FTL_MAX_OP_PERCENT,
				.help = "1..100 (percent of the logical capacity)" },
	[FTLBLK_GC_POLICY] = { .name = "gc_policy", .min = 0,
			       .max = FTL_GC_NR_POLICIES - 1,
			       .help = "greedy, fifo or cost-benefit" },
	[FTLBLK_WL_THRESHOLD] = { .name = "wl_threshold", .min = 0,
				  .max = 1000000,
				  .help = "0..1000000 (erase-count spread, 0 = off)" },
	[FTLBLK_GC_LOW_BLOCKS] = { .name = "gc_low_blocks", .min = 2,
				   .max = 1024, .zero_ok = true,
				   .help = "0 (default 2) or 2..1024 (free blocks)" },
	[FTLBLK_GC_HIGH_BLOCKS] = { .name = "gc_high_blocks", .min = 2,
				    .max = 1024, .zero_ok = true,
				    .help = "0 (= gc_low_blocks) or 2..1024 (free blocks)" },
	[FTLBLK_DISCARD] = { .name = "discard", .min = 0, .max = 1,
			     .help = "0 or 1" },
	[FTLBLK_MAX_DISCARD_SEGMENTS] = { .name = "max_discard_segments",
					  .min = 1, .max = 256,
					  .help = "1..256 (ranges per request)" },
	[FTLBLK_MAX_DISCARD_SECTORS] = { .name = "max_discard_sectors",
					 .min = 1,
					 .max = UINT_MAX >> SECTOR_SHIFT,
					 .zero_ok = true,
					 .help = "0 (unlimited) or 1..8388607 (512-byte sectors)" },
	[FTLBLK_SUBMIT_QUEUES] = { .name = "submit_queues", .min = 1,
				   .max = 256, .zero_ok = true,
				   .help = "0 (one per CPU) or 1..256 (hardware queues)" },
	[FTLBLK_HW_QUEUE_DEPTH] = { .name = "hw_queue_depth", .min = 1,
				    .max = 4096,
				    .help = "1..4096 (requests per queue)" },
	[FTLBLK_WRITE_CACHE] = { .name = "write_cache", .min = 0, .max = 1,
				 .help = "0 or 1" },
	[FTLBLK_CACHE_MIB] = { .name = "cache_mib", .min = 0,
			       .max = FTLBLK_MAX_SIZE_MIB,
			       .help = "0 (as large as the device) or 1..65536 (MiB)" },
	[FTLBLK_PROGRAM_FAIL_PPM] = { .name = "program_fail_ppm", .min = 0,
				      .max = FTL_MAX_FAIL_PPM,
				      .help = "0..100000 (failed page programs per million)" },
	[FTLBLK_ERASE_FAIL_PPM] = { .name = "erase_fail_ppm", .min = 0,
				    .max = FTL_MAX_FAIL_PPM,
				    .help = "0..100000 (failed block erases per million)" },
	[FTLBLK_FAULT_SEED] = { .name = "fault_seed", .min = 0,
				.max = UINT_MAX,
				.help = "0..4294967295 (seed of the fault generator)" },
	[FTLBLK_ENDURANCE] = { .name = "endurance", .min = 0,
			       .max = FTL_MAX_ENDURANCE,
			       .help = "0 (unlimited) or 1..100000000 (erases a block survives)" },
	[FTLBLK_MEM_LIMIT_MIB] = { .name = "mem_limit_mib", .min = 0,
				   .max = 4 * FTLBLK_MAX_SIZE_MIB,
				   .help = "0 (no limit) or 1..262144 (MiB of data pages)" },
	[FTLBLK_TIMING] = { .name = "timing", .min = 0, .max = 1,
			    .help = "0 (RAM speed) or 1 (NAND timing model)" },
	[FTLBLK_CHANNELS] = { .name = "channels", .min = 1,
			      .max = FTL_TIMING_MAX_CHANNELS,
			      .help = "1..64 (flash channels)" },
	[FTLBLK_DIES_PER_CHANNEL] = { .name = "dies_per_channel", .min = 1,
				      .max = FTL_TIMING_MAX_DIES_PER_CHANNEL,
				      .help = "1..64 (dies on each channel)" },
	[FTLBLK_READ_US] = { .name = "read_us", .min = 1,
			     .max = FTL_TIMING_MAX_US,
			     .help = "1..1000000 (microseconds, page read tR)" },
	[FTLBLK_PROGRAM_US] = { .name = "program_us", .min = 1,
				.max = FTL_TIMING_MAX_US,
				.help = "1..1000000 (microseconds, page program tPROG)" },
	[FTLBLK_ERASE_US] = { .name = "erase_us", .min = 1,
			      .max = FTL_TIMING_MAX_US,
			      .help = "1..1000000 (microseconds, block erase tBERS)" },
	[FTLBLK_POLL_QUEUES] = { .name = "poll_queues", .min = 0,
				 .max = 256,
				 .help = "0..256 (polled hardware queues)" },
	[FTLBLK_CHANNEL_MBPS] = { .name = "channel_mbps", .min = 1,
				  .max = FTL_TIMING_MAX_MBPS,
				  .help = "1..100000 (MB/s per channel)" },
	[FTLBLK_SHARDS] = { .name = "shards", .min = 1, .max = FTL_MAX_SHARDS,
			    .help = "1..64 (independent FTL instances)" },
};

/* Defaults for new devices; the module parameters below write into it. */
struct ftlblk_config ftlblk_defaults = { .val = {
	[FTLBLK_SIZE] = 256,
	[FTLBLK_BLOCKSIZE] = 512,
	[FTLBLK_PAGE_SIZE] = FTL_DEFAULT_PAGE_SIZE,
	[FTLBLK_PAGES_PER_BLOCK] = FTL_DEFAULT_PAGES_PER_BLOCK,
	[FTLBLK_OP_PERCENT] = FTL_DEFAULT_OP_PERCENT,
	[FTLBLK_GC_POLICY] = FTL_GC_GREEDY,
	[FTLBLK_WL_THRESHOLD] = FTL_DEFAULT_WL_THRESHOLD,
	[FTLBLK_DISCARD] = 1,
	[FTLBLK_MAX_DISCARD_SEGMENTS] = 64,
	[FTLBLK_HW_QUEUE_DEPTH] = 64,
	[FTLBLK_FAULT_SEED] = 1,
	[FTLBLK_CHANNELS] = FTL_TIMING_DEFAULT_CHANNELS,
	[FTLBLK_DIES_PER_CHANNEL] = FTL_TIMING_DEFAULT_DIES_PER_CHANNEL,
	[FTLBLK_READ_US] = FTL_TIMING_DEFAULT_READ_US,
	[FTLBLK_PROGRAM_US] = FTL_TIMING_DEFAULT_PROGRAM_US,
	[FTLBLK_ERASE_US] = FTL_TIMING_DEFAULT_ERASE_US,
	[FTLBLK_CHANNEL_MBPS] = FTL_TIMING_DEFAULT_CHANNEL_MBPS,
	[FTLBLK_SHARDS] = 1,
} };

/*
 * A field's module parameter: the default of new devices. MODULE_INFO
 * is MODULE_PARM_DESC spelled so that the name is used once.
 */
#define FTLBLK_FIELD_PARAM(_name, _id, _desc)				\
	module_param_named(_name, ftlblk_defaults.val[_id], uint, 0444);	\
	MODULE_INFO(parm, #_name ":" _desc)

FTLBLK_FIELD_PARAM(size, FTLBLK_SIZE, "Logical capacity in MiB, 1..65536. Default: 256");
FTLBLK_FIELD_PARAM(blocksize, FTLBLK_BLOCKSIZE,
		   "Logical block size in bytes, 512 or 4096. Default: 512");
FTLBLK_FIELD_PARAM(page_size, FTLBLK_PAGE_SIZE,
		   "Flash page size and discard granularity in bytes, 4096, 8192 or 16384. Default: 4096");
FTLBLK_FIELD_PARAM(pages_per_block, FTLBLK_PAGES_PER_BLOCK,
		   "Flash pages per erase block, 2..4096. Default: 256");
FTLBLK_FIELD_PARAM(op_percent, FTLBLK_OP_PERCENT,
		   "Over-provisioning in percent of the logical capacity, 1..100. Default: 7");
FTLBLK_FIELD_PARAM(wl_threshold, FTLBLK_WL_THRESHOLD,
		   "Static wear leveling above this erase-count spread, 0 = off. Default: 64");
FTLBLK_FIELD_PARAM(gc_low_blocks, FTLBLK_GC_LOW_BLOCKS,
		   "GC starts below this many free blocks, 0 = default (2)");
FTLBLK_FIELD_PARAM(gc_high_blocks, FTLBLK_GC_HIGH_BLOCKS,
		   "GC stops at this many free blocks, 0 = gc_low_blocks");
FTLBLK_FIELD_PARAM(discard, FTLBLK_DISCARD, "Accept discard requests, 0 or 1. Default: 1");
FTLBLK_FIELD_PARAM(max_discard_segments, FTLBLK_MAX_DISCARD_SEGMENTS,
		   "Discard ranges per request, 1..256. Default: 64");
FTLBLK_FIELD_PARAM(max_discard_sectors, FTLBLK_MAX_DISCARD_SECTORS,
		   "Largest discard in 512-byte sectors, 0 = unlimited. Default: 0");
FTLBLK_FIELD_PARAM(submit_queues, FTLBLK_SUBMIT_QUEUES,
		   "Hardware queues, 0 = one per CPU, 1..256. Default: 0");
FTLBLK_FIELD_PARAM(hw_queue_depth, FTLBLK_HW_QUEUE_DEPTH,
		   "Requests per hardware queue, 1..4096. Default: 64");
FTLBLK_FIELD_PARAM(write_cache, FTLBLK_WRITE_CACHE,
		   "Volatile write cache: completed writes and discards are durable only after a flush or FUA, 0 or 1. Default: 0");
FTLBLK_FIELD_PARAM(cache_mib, FTLBLK_CACHE_MIB,
		   "Write cache capacity in MiB, 0 = as large as the device, 1..65536. Default: 0");
FTLBLK_FIELD_PARAM(program_fail_ppm, FTLBLK_PROGRAM_FAIL_PPM,
		   "Page programs that fail, per million, 0..100000. Default: 0");
FTLBLK_FIELD_PARAM(erase_fail_ppm, FTLBLK_ERASE_FAIL_PPM,
		   "Block erases that fail, per million, 0..100000. Default: 0");
FTLBLK_FIELD_PARAM(fault_seed, FTLBLK_FAULT_SEED,
		   "Seed of the flash fault generator, 0..4294967295. Default: 1");
FTLBLK_FIELD_PARAM(endurance, FTLBLK_ENDURANCE,
		   "Erases a block survives, its next erase fails; 0 = unlimited, 1..100000000. Default: 0");
FTLBLK_FIELD_PARAM(mem_limit_mib, FTLBLK_MEM_LIMIT_MIB,
		   "Most data memory in MiB, writes beyond it fail with ENOSPC; 0 = no limit, 1..262144. Default: 0");
FTLBLK_FIELD_PARAM(timing, FTLBLK_TIMING,
		   "Complete requests when the modeled NAND flash would, 0 or 1. Default: 0 (RAM speed)");
FTLBLK_FIELD_PARAM(channels, FTLBLK_CHANNELS,
		   "Flash channels of the timing model, 1..64. Default: 4");
FTLBLK_FIELD_PARAM(dies_per_channel, FTLBLK_DIES_PER_CHANNEL,
		   "Dies on each channel, 1..64. Default: 2");
FTLBLK_FIELD_PARAM(read_us, FTLBLK_READ_US,
		   "Page read time tR in microseconds, 1..1000000. Default: 50");
FTLBLK_FIELD_PARAM(program_us, FTLBLK_PROGRAM_US,
		   "Page program time tPROG in microseconds, 1..1000000. Default: 600");
FTLBLK_FIELD_PARAM(erase_us, FTLBLK_ERASE_US,
		   "Block erase time tBERS in microseconds, 1..1000000. Default: 2000");
FTLBLK_FIELD_PARAM(channel_mbps, FTLBLK_CHANNEL_MBPS,
		   "Channel bandwidth in MB/s, 1..100000. Default: 200");
FTLBLK_FIELD_PARAM(poll_queues, FTLBLK_POLL_QUEUES,
		   "Polled hardware queues (io_uring IOPOLL, REQ_POLLED), 0..256. Default: 0");
FTLBLK_FIELD_PARAM(shards, FTLBLK_SHARDS,
		   "Independent FTL instances, each with its own lock, blocks and GC, dealt erase-block stripes of the logical pages, 1..64. Default: 1");

static char *gc_policy = "greedy";
module_param(gc_policy, charp, 0444);
MODULE_PARM_DESC(gc_policy, "GC victim policy: greedy, fifo or cost-benefit. Default: greedy");

static unsigned int nr_devices = 1;
module_param(nr_devices, uint, 0444);
MODULE_PARM_DESC(nr_devices, "Devices to create at load time, named ftlblk0.. (0 allowed; more via configfs). Default: 1");

static char *power_cut_mode = "all";
module_param(power_cut_mode, charp, 0444);
MODULE_PARM_DESC(power_cut_mode, "What a power cut does to cached updates: all (lost) or random (each kept or lost). Default: all");
unsigned int ftlblk_default_cut_mode;

static int ftlblk_major;
static DEFINE_IDA(ftlblk_indexes);
/* Devices created from nr_devices; only module init and exit touch it. */
static struct ftlblk_dev **param_devs;

/**
 * ftlblk_field_check() - validate one tunable
 * @id: which
 * @value: proposed value
 * @who: prefix for the error line, e.g. "module parameter" or a device name
 *
 * Return: 0, or -EINVAL after one pr_err() line naming the field and the
 * allowed values.
 */
int ftlblk_field_check(enum ftlblk_field_id id, unsigned int value,
		       const char *who)
{
	const struct ftlblk_field *f = &ftlblk_fields[id];
	const unsigned int *choice;

	if (f->choices) {
		for (choice = f->choices; *choice; choice++)
			if (value == *choice)
				return 0;
	} else if ((value >= f->min && value <= f->max) ||
		   (f->zero_ok && value == 0)) {
		return 0;
	}
	pr_err("%s: invalid %s %u: allowed %s\n", who, f->name, value, f->help);
	return -EINVAL;
}

static blk_status_t ftlblk_queue_rq(struct blk_mq_hw_ctx *hctx,
				    const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct ftlblk_dev *dev = hctx->queue->queuedata;
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	blk_status_t sts;

	blk_mq_start_request(rq);
	ftlblk_timing_start(dev, rq);
	cmd->gen = READ_ONCE(dev->cuts_seen);
	/*
	 * The power cycle, then power_off (a cut sets them the other way
	 * round, with smp_wmb()): a request that finds the power on has
	 * the cycle it runs in, or an older one, which only fails it.
	 */
	smp_rmb();
	/* Power cut: a disconnected disk answers nothing. */
	if (READ_ONCE(dev->power_off) || ftlblk_bad_sectors(dev, rq)) {
		blk_mq_end_request(rq, ftlblk_final_status(dev, rq,
							   BLK_STS_IOERR));
		return BLK_STS_OK;
	}
	switch (req_op(rq)) {
	case REQ_OP_READ:
		sts = ftlblk_rw(dev, rq, false, GFP_NOWAIT);
		break;
	case REQ_OP_WRITE:
		sts = ftlblk_rw(dev, rq, true, GFP_NOWAIT);
		/*
		 * No memory without waiting, nothing written: the worker
		 * (WQ_MEM_RECLAIM, so it runs under memory pressure too)
		 * may wait for reclaim, which swap on ftlblk needs (at
		 * mem_limit_mib it is BLK_STS_NOSPC, ended below).
		 */
		if (sts == BLK_STS_RESOURCE) {
			ftlblk_count(dev, FTLBLK_PC_NOMEM_WRITES, 1);
			ftlblk_queue_work(cmd);
			return BLK_STS_OK;
		}
		break;
	case REQ_OP_FLUSH:
		/* Writing back the cache may take long: on the workqueue. */
		if (ftlblk_cache_flush_needed(dev)) {
			ftlblk_queue_work(cmd);
			return BLK_STS_OK;
		}
		sts = BLK_STS_OK;
		break;
	case REQ_OP_DISCARD:
		if (!ftlblk_discard_is_quick(dev, rq)) {
			ftlblk_queue_work(cmd);
			return BLK_STS_OK;
		}
		sts = ftlblk_discard(dev, rq);
		break;
	case REQ_OP_WRITE_ZEROES:
		ftlblk_queue_work(cmd);
		return BLK_STS_OK;
	default:
		sts = BLK_STS_NOTSUPP;
		break;
	}
	ftlblk_end_request(dev, rq, sts);
	return BLK_STS_OK;
}

static int ftlblk_init_request(struct blk_mq_tag_set *set, struct request *rq,
			       unsigned int hctx_idx, ftlblk_numa_node_t numa_node)
{
	ftlblk_init_cmd(blk_mq_rq_to_pdu(rq));
	ftlblk_timing_init_cmd(blk_mq_rq_to_pdu(rq));
	return 0;
}

/* Each hardware queue's poll list (used on the poll queues only). */
static int ftlblk_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			    unsigned int hctx_idx)
{
	struct ftlblk_dev *dev = data;

	hctx->driver_data = dev->pollqs ? &dev->pollqs[hctx_idx] : NULL;
	return 0;
}

/*
 * submit_queues default queues, then poll_queues poll queues (as
 * null_blk maps them); no separate read queues.
 */
static void ftlblk_map_queues(struct blk_mq_tag_set *set)
{
	struct ftlblk_dev *dev = set->driver_data;
	unsigned int poll = dev->cfg.val[FTLBLK_POLL_QUEUES];
	unsigned int i, offset = 0;

	for (i = 0; i < set->nr_maps; i++) {
		struct blk_mq_queue_map *map = &set->map[i];

		if (i == HCTX_TYPE_DEFAULT)
			map->nr_queues = set->nr_hw_queues - poll;
		else
			map->nr_queues = i == HCTX_TYPE_POLL ? poll : 0;
		if (!map->nr_queues)
			continue;
		map->queue_offset = offset;
		offset += map->nr_queues;
		blk_mq_map_queues(map);
	}
}

static const struct blk_mq_ops ftlblk_mq_ops = {
	.queue_rq = ftlblk_queue_rq,
	.init_request = ftlblk_init_request,
	.init_hctx = ftlblk_init_hctx,
	.map_queues = ftlblk_map_queues,
	.poll = ftlblk_poll,
	.timeout = ftlblk_timing_timeout,
};

/* ---- block device ---- */

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

static void ftlblk_config_to_ftl(const struct ftlblk_config *cfg,
				 struct ftl_config *fcfg)
{
	const unsigned int *v = cfg->val;

	ftl_config_init(fcfg, ((u64)v[FTLBLK_SIZE] << 20) / v[FTLBLK_PAGE_SIZE]);
	fcfg->page_size = v[FTLBLK_PAGE_SIZE];
	fcfg->pages_per_block = v[FTLBLK_PAGES_PER_BLOCK];
	fcfg->op_percent = v[FTLBLK_OP_PERCENT];
	fcfg->gc_policy = v[FTLBLK_GC_POLICY];
	fcfg->wl_threshold = v[FTLBLK_WL_THRESHOLD];
	fcfg->gc_low_blocks = v[FTLBLK_GC_LOW_BLOCKS];
	fcfg->gc_high_blocks = v[FTLBLK_GC_HIGH_BLOCKS];
	fcfg->program_fail_ppm = v[FTLBLK_PROGRAM_FAIL_PPM];
	fcfg->erase_fail_ppm = v[FTLBLK_ERASE_FAIL_PPM];
	fcfg->fault_seed = v[FTLBLK_FAULT_SEED];
	fcfg->endurance = v[FTLBLK_ENDURANCE];
}

/* How @cfg deals its logical pages to shards. */
static struct ftl_shards ftlblk_dealing(const struct ftlblk_config *cfg)
{
	return (struct ftl_shards){ .nr = cfg->val[FTLBLK_SHARDS],
				    .stripe = cfg->val[FTLBLK_PAGES_PER_BLOCK] };
}

/* Every shard of @cfg must be a working FTL, and all of them addressable. */
static int ftlblk_shards_check(const struct ftlblk_config *cfg,
			       const struct ftl_config *fcfg, const char *who)
{
	struct ftl_shards dealing = ftlblk_dealing(cfg);
	const char *why = NULL;
	int err = ftl_shard_check(fcfg, &dealing, &why);

	if (err)
		pr_err("%s: invalid shards %u: allowed 1..%u shards that each keep a working FTL; with these: %s\n",
		       who, dealing.nr, FTL_MAX_SHARDS, why);
	return err;
}

static int ftlblk_config_check(const struct ftlblk_config *cfg,
			       const char *who)
{
	struct ftl_config fcfg;
	unsigned int spp;
	const char *why;
	int i, err;

	for (i = 0; i < FTLBLK_NR_FIELDS; i++) {
		err = ftlblk_field_check(i, cfg->val[i], who);
		if (err)
			return err;
	}
	ftlblk_config_to_ftl(cfg, &fcfg);
	/*
	 * The block layer rounds max_discard_sectors down to the discard
	 * granularity, so anything else would end up smaller, or 0 (which
	 * it takes as "no discard splitting" rather than as a limit).
	 */
	spp = cfg->val[FTLBLK_PAGE_SIZE] >> SECTOR_SHIFT;
	if (cfg->val[FTLBLK_MAX_DISCARD_SECTORS] % spp) {
		pr_err("%s: invalid max_discard_sectors %u: allowed 0 (unlimited) or a multiple of %u (page_size %u in 512-byte sectors)\n",
		       who, cfg->val[FTLBLK_MAX_DISCARD_SECTORS], spp,
		       cfg->val[FTLBLK_PAGE_SIZE]);
		return -EINVAL;
	}
	if (cfg->val[FTLBLK_SHARDS] == 1) {
		err = ftl_config_check(&fcfg, NULL, &why);
		if (err)
			pr_err("%s: invalid geometry: %s\n", who, why);
		return err;
	}
	return ftlblk_shards_check(cfg, &fcfg, who);
}

/* The queue's limits, as struct queue_limits (compat.h applies them). */
static void ftlblk_fill_limits(const struct ftlblk_dev *dev,
			       struct queue_limits *lim)
{
	const unsigned int *v = dev->cfg.val;
	unsigned int max_discard = v[FTLBLK_MAX_DISCARD_SECTORS];

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
	/* discard off: discard_max_bytes 0, the block layer refuses discards. */
	if (!v[FTLBLK_DISCARD])
		return;
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
		sh->data = kvcalloc(geo.logical_pages, sizeof(*sh->data),
				    GFP_KERNEL);
		if (!sh->data)
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

	for (i = 0; dev->shards && i < dev->dealing.nr; i++) {
		struct ftlblk_shard *sh = &dev->shards[i];

		if (sh->ftl && sh->data) {
			ftl_get_geometry(sh->ftl, &geo);
			ftlblk_pages_free_mapped(sh, geo.logical_pages);
		}
		ftl_destroy(sh->ftl);
		WARN_ON(sh->data_pages);
		kvfree(sh->data);
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
 *
 * Return: 0, or -EBUSY if the device is open (mounted, held by a
 * process) and @force is false; the device is untouched then.
 */
int ftlblk_remove(struct ftlblk_dev *dev, bool force)
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

	/* Requests waiting for the modeled flash need not wait any more. */
	ftlblk_timing_end_pending(dev, false);
	/* After this no request runs and none will be queued. */
	del_gendisk(disk);
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

/* data[] stores 32-bit page frame numbers: all RAM must lie below them. */
static int __init ftlblk_check_memory(void)
{
	unsigned long end = 0;
	int nid;

	for_each_online_node(nid)
		end = max(end, node_end_pfn(nid));
	if (end > FTLBLK_MAX_FRAME) {
		pr_err("RAM ends at page frame %lu: allowed up to %lu (16 TiB), data pages are addressed by 32-bit frame numbers\n",
		       end, FTLBLK_MAX_FRAME);
		return -EINVAL;
	}
	return 0;
}

static int __init ftlblk_check_params(void)
{
	int policy = ftl_policy_parse(gc_policy);

	if (policy < 0) {
		pr_err("module parameter: invalid gc_policy '%s': allowed %s\n",
		       gc_policy, ftlblk_fields[FTLBLK_GC_POLICY].help);
		return -EINVAL;
	}
	ftlblk_defaults.val[FTLBLK_GC_POLICY] = policy;
	policy = ftlblk_cut_mode_parse("module parameter", power_cut_mode);
	if (policy < 0)
		return policy;
	ftlblk_default_cut_mode = policy;
	if (nr_devices > 64) {
		pr_err("module parameter: invalid nr_devices %u: allowed 0..64\n",
		       nr_devices);
		return -EINVAL;
	}
	return ftlblk_config_check(&ftlblk_defaults, "module parameter");
}

static void ftlblk_remove_param_devs(void)
{
	unsigned int i;

	for (i = 0; param_devs && i < nr_devices; i++)
		if (param_devs[i])
			ftlblk_remove(param_devs[i], true);
	kfree(param_devs);
	param_devs = NULL;
}

static int __init ftlblk_init(void)
{
	unsigned int i;
	int err;

	err = ftlblk_check_params() ?: ftlblk_check_memory();
	if (err)
		return err;
	err = ftlblk_worker_init();
	if (err)
		return err;
	ftlblk_major = register_blkdev(0, "ftlblk");
	if (ftlblk_major < 0) {
		err = ftlblk_major;
		goto free_wq;
	}
	param_devs = kcalloc(max(nr_devices, 1U), sizeof(*param_devs),
			     GFP_KERNEL);
	if (!param_devs) {
		err = -ENOMEM;
		goto unregister;
	}
	for (i = 0; i < nr_devices; i++) {
		err = ftlblk_create(&ftlblk_defaults, NULL, ftlblk_default_cut_mode,
				    "module parameter",
				    &param_devs[i]);
		if (err)
			goto remove;
	}
	err = ftlblk_configfs_init();
	if (err)
		goto remove;
	pr_info("module loaded: %u device(s)\n", nr_devices);
	return 0;

remove:
	ftlblk_remove_param_devs();
unregister:
	unregister_blkdev(ftlblk_major, "ftlblk");
free_wq:
	ftlblk_worker_exit();
	return err;
}

static void __exit ftlblk_exit(void)
{
	/* configfs devices pin the module, so only ours are left. */
	ftlblk_configfs_exit();
	ftlblk_remove_param_devs();
	unregister_blkdev(ftlblk_major, "ftlblk");
	ftlblk_worker_exit();
}

module_init(ftlblk_init);
module_exit(ftlblk_exit);

MODULE_DESCRIPTION("RAM-backed flash SSD with a flash translation layer that consumes discards");
MODULE_LICENSE("GPL");
