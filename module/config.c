// SPDX-License-Identifier: GPL-2.0
/*
 * The tunables: every field of struct ftlblk_config described once
 * (ftlblk_fields[]: name, allowed values, unit), the defaults of new
 * devices and the module parameters that set them, and the checks of one
 * field and of a whole configuration, which the module parameters and
 * configfs share, so both report a bad value the same way: EINVAL and one
 * line naming the field and the allowed values.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "ftlblk.h"

/* Largest logical capacity (MiB); also bounds cache_mib and mem_limit_mib. */
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
	[FTLBLK_REMANENCE] = { .name = "remanence", .min = 0, .max = 1,
			       .help = "0 or 1" },
	[FTLBLK_SECURE_ERASE] = { .name = "secure_erase", .min = 0, .max = 1,
				  .help = "0 or 1" },
	[FTLBLK_PLACEMENT] = { .name = "placement", .min = 0,
			       .max = FTLBLK_NR_PLACEMENTS - 1,
			       .help = "none, hint (Linux 6.9+) or stream (Linux 6.16+)" },
	[FTLBLK_WRITE_STREAMS] = { .name = "write_streams", .min = 0,
				   .max = FTLBLK_MAX_WRITE_STREAMS,
				   .help = "0..16 (write streams, 0 unless placement=stream)" },
	[FTLBLK_ATOMIC_WRITE_MAX_KIB] = {
		.name = "atomic_write_max_kib", .min = 0, .max = 1024,
		.help = "0 or a power of two 1..1024 >= blocksize (KiB; Linux 6.11+)" },
};

static const char *const ftlblk_placement_names[FTLBLK_NR_PLACEMENTS] = {
	[FTLBLK_PLACE_NONE] = "none",
	[FTLBLK_PLACE_HINT] = "hint",
	[FTLBLK_PLACE_STREAM] = "stream",
};

/**
 * ftlblk_field_value_name() - the name of a named field's value
 * @id: field
 * @value: its value
 *
 * Return: "greedy", "hint"...; NULL for a numeric field.
 */
const char *ftlblk_field_value_name(enum ftlblk_field_id id,
				    unsigned int value)
{
	if (id == FTLBLK_GC_POLICY)
		return ftl_policy_name(value);
	if (id == FTLBLK_PLACEMENT)
		return value < FTLBLK_NR_PLACEMENTS ?
		       ftlblk_placement_names[value] : "?";
	return NULL;
}

/**
 * ftlblk_field_parse() - a field's value from its text
 * @id: field
 * @text: a number, or for a named field a name (a trailing newline is
 *	allowed)
 * @value: receives the value
 *
 * Return: 0 or a negative errno (the caller reports it).
 */
int ftlblk_field_parse(enum ftlblk_field_id id, const char *text,
		       unsigned int *value)
{
	int ret;

	if (id == FTLBLK_GC_POLICY)
		ret = ftl_policy_parse(text);
	else if (id == FTLBLK_PLACEMENT)
		ret = sysfs_match_string(ftlblk_placement_names, text);
	else
		return kstrtouint(text, 0, value);
	if (ret >= 0)
		*value = ret;
	return ret < 0 ? ret : 0;
}

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
	[FTLBLK_ATOMIC_WRITE_MAX_KIB] = FTLBLK_ATOMIC_DEFAULT_KIB,
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
FTLBLK_FIELD_PARAM(remanence, FTLBLK_REMANENCE,
		   "Keep a superseded page's data until its erase block is erased, as flash does, 0 or 1. Default: 0");
FTLBLK_FIELD_PARAM(secure_erase, FTLBLK_SECURE_ERASE,
		   "Serve secure erase (BLKSECDISCARD): every copy of the range erased, 0 or 1. Default: 0");
FTLBLK_FIELD_PARAM(write_streams, FTLBLK_WRITE_STREAMS,
		   "Write streams advertised with placement=stream, 1..16 (0 otherwise). Default: 0");
FTLBLK_FIELD_PARAM(atomic_write_max_kib, FTLBLK_ATOMIC_WRITE_MAX_KIB,
		   "Largest atomic write (RWF_ATOMIC) in KiB, 0 = none or a power of two up to 1024, capped at 16 flash pages, an erase block and a shard's cache (Linux 6.11+). Default: 64 (0 before 6.11)");

static char *placement = "none";
module_param(placement, charp, 0444);
MODULE_PARM_DESC(placement, "What chooses a write's open erase block: none, hint (its write lifetime hint, Linux 6.9+) or stream (its write stream, Linux 6.16+). Default: none");

static char *gc_policy = "greedy";
module_param(gc_policy, charp, 0444);
MODULE_PARM_DESC(gc_policy, "GC victim policy: greedy, fifo or cost-benefit. Default: greedy");

static char *power_cut_mode = "all";
module_param(power_cut_mode, charp, 0444);
MODULE_PARM_DESC(power_cut_mode, "What a power cut does to cached updates: all (lost) or random (each kept or lost). Default: all");
unsigned int ftlblk_default_cut_mode;

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

/**
 * ftlblk_config_to_ftl() - the FTL core's configuration of a device
 * @cfg: the device's tunables
 * @fcfg: receives the whole device's FTL configuration (one shard's is cut
 *	from it by ftl_shard_config())
 */
void ftlblk_config_to_ftl(const struct ftlblk_config *cfg,
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
	fcfg->remanence = v[FTLBLK_REMANENCE];
	if (v[FTLBLK_PLACEMENT] == FTLBLK_PLACE_HINT)
		fcfg->placement_classes = FTLBLK_HINT_CLASSES;
	else if (v[FTLBLK_PLACEMENT] == FTLBLK_PLACE_STREAM)
		fcfg->placement_classes = v[FTLBLK_WRITE_STREAMS] + 1;
}

/*
 * Placement needs what the running kernel tells a driver: a refused value
 * names the kernel that would have it, so nobody measures a placement
 * that cannot happen. write_streams goes with placement=stream only.
 */
static int ftlblk_placement_check(const struct ftlblk_config *cfg,
				  const char *who)
{
	unsigned int p = cfg->val[FTLBLK_PLACEMENT];
	bool streams = cfg->val[FTLBLK_WRITE_STREAMS] > 0;
	bool stream_placement = p == FTLBLK_PLACE_STREAM;

	if (p == FTLBLK_PLACE_HINT && !FTLBLK_HAVE_WRITE_HINTS) {
		pr_err("%s: invalid placement hint: allowed none on this kernel (bios carry write hints from Linux 6.9)\n",
		       who);
		return -EINVAL;
	}
	if (p == FTLBLK_PLACE_STREAM && !FTLBLK_HAVE_WRITE_STREAMS) {
		pr_err("%s: invalid placement stream: allowed %s on this kernel (write streams from Linux 6.16)\n",
		       who, FTLBLK_HAVE_WRITE_HINTS ? "none or hint" : "none");
		return -EINVAL;
	}
	if (streams != stream_placement) {
		pr_err("%s: invalid write_streams %u: allowed 1..16 with placement=stream, 0 otherwise\n",
		       who, cfg->val[FTLBLK_WRITE_STREAMS]);
		return -EINVAL;
	}
	return 0;
}

/*
 * Atomic writes need a kernel that sends them (6.11); the largest is a
 * power of two, at least one logical block.
 */
static int ftlblk_atomic_check(const struct ftlblk_config *cfg,
			       const char *who)
{
	unsigned int kib = cfg->val[FTLBLK_ATOMIC_WRITE_MAX_KIB];

	if (kib && !FTLBLK_HAVE_ATOMIC_WRITES) {
		pr_err("%s: invalid atomic_write_max_kib %u: allowed 0 on this kernel (atomic writes from Linux 6.11)\n",
		       who, kib);
		return -EINVAL;
	}
	if (kib && (!is_power_of_2(kib) ||
		    (u64)kib << 10 < cfg->val[FTLBLK_BLOCKSIZE])) {
		pr_err("%s: invalid atomic_write_max_kib %u: allowed %s\n",
		       who, kib, ftlblk_fields[FTLBLK_ATOMIC_WRITE_MAX_KIB].help);
		return -EINVAL;
	}
	return 0;
}

/**
 * ftlblk_atomic_bytes() - a device's largest atomic write, which is also
 * its atomic write boundary
 * @cfg: the device's tunables
 *
 * atomic_write_max_kib capped at FTLBLK_ATOMIC_MAX_PAGES flash pages, at
 * the largest power of two that divides a shard's stripe and at a shard's
 * cache (cache_mib), rounded down to a power of two. As the boundary (the
 * block layer merges atomic writes up to the maximum, never across it) it
 * keeps every atomic request in one aligned window of this size: inside
 * one stripe, so one shard, and at most DIV_ROUND_UP(bytes, page_size)
 * flash pages, one lock hold's batch.
 *
 * Return: bytes, 0 for none.
 */
unsigned int ftlblk_atomic_bytes(const struct ftlblk_config *cfg)
{
	const unsigned int *v = cfg->val;
	u64 pages = FTLBLK_ATOMIC_MAX_PAGES, cache;

	pages = min_t(u64, pages, (1U << __ffs(v[FTLBLK_PAGES_PER_BLOCK])));
	if (v[FTLBLK_WRITE_CACHE] && v[FTLBLK_CACHE_MIB]) {
		cache = DIV_ROUND_UP(((u64)v[FTLBLK_CACHE_MIB] << 20) /
				     v[FTLBLK_PAGE_SIZE], v[FTLBLK_SHARDS]);
		pages = min(pages, cache);
	}
	pages = rounddown_pow_of_two(pages);
	return min_t(u64, (u64)v[FTLBLK_ATOMIC_WRITE_MAX_KIB] << 10,
		     pages * v[FTLBLK_PAGE_SIZE]);
}

/**
 * ftlblk_dealing() - how a device deals its logical pages to shards
 * @cfg: the device's tunables
 *
 * Return: shards=N of them, a stripe of one erase block each.
 */
struct ftl_shards ftlblk_dealing(const struct ftlblk_config *cfg)
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

/**
 * ftlblk_config_check() - check a whole configuration
 * @cfg: the tunables of a device to be made
 * @who: prefix for the error line (a device or "module parameter")
 *
 * Every field in its range, and together a geometry every shard can work
 * with.
 *
 * Return: 0, or -EINVAL after one pr_err() line naming the field and the
 * allowed values.
 */
int ftlblk_config_check(const struct ftlblk_config *cfg, const char *who)
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
	err = ftlblk_placement_check(cfg, who);
	if (!err)
		err = ftlblk_atomic_check(cfg, who);
	if (err)
		return err;
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

/* A named field's module parameter @text into the defaults. */
static int __init named_param(enum ftlblk_field_id id, const char *text)
{
	if (!ftlblk_field_parse(id, text, &ftlblk_defaults.val[id]))
		return 0;
	pr_err("module parameter: invalid %s '%s': allowed %s\n",
	       ftlblk_fields[id].name, text, ftlblk_fields[id].help);
	return -EINVAL;
}

/**
 * ftlblk_params_check() - check the module parameters, and turn the
 * named ones (gc_policy, placement, power_cut_mode) into the defaults'
 * values
 *
 * Return: 0, or -EINVAL after one pr_err() line naming the parameter and
 * the allowed values.
 */
int __init ftlblk_params_check(void)
{
	int policy;

	if (named_param(FTLBLK_GC_POLICY, gc_policy) ||
	    named_param(FTLBLK_PLACEMENT, placement))
		return -EINVAL;
	policy = ftlblk_cut_mode_parse("module parameter", power_cut_mode);
	if (policy < 0)
		return policy;
	ftlblk_default_cut_mode = policy;
	return ftlblk_config_check(&ftlblk_defaults, "module parameter");
}
