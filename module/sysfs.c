// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/block/ftlblkN/ftl/: one value per file, like zram's statistics,
 * and all of them at once in ftl/stat; the configuration the device was
 * made with, and the placement classes' counters (class_stats); the
 * controls (power_cut, power_cut_mode, reset_stats, badblocks). Counters
 * are reset by writing to reset_stats; the device state (valid pages,
 * free blocks, erase counts, memory) is not.
 */
#include <linux/device.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/sysfs.h>

#include "ftlblk.h"

static struct ftlblk_dev *to_ftlblk(struct device *d)
{
	return dev_to_disk(d)->private_data;
}

static ssize_t emit_u64(char *buf, u64 v)
{
	return sysfs_emit(buf, "%llu\n", v);
}

/* How a statistic prints. */
enum ftlblk_stat_kind {
	FTLBLK_U64,	/* an integer */
	FTLBLK_MILLI,	/* thousandths, as a decimal: 2481 -> "2.481" */
};

/**
 * struct ftlblk_stat_attr - one statistic: its file, and where its value
 * is in a snapshot (struct ftlblk_snapshot, stats.c)
 * @attr: the file ftl/NAME
 * @offset: of its u64 in struct ftlblk_snapshot (a u64: the snapshot
 *	copies u32 fields of the geometry into u64 ones for this)
 * @kind: how it prints (enum ftlblk_stat_kind)
 */
struct ftlblk_stat_attr {
	struct device_attribute attr;
	size_t offset;
	u8 kind;
};

static ssize_t stat_file_show(struct device *d, struct device_attribute *attr,
			      char *buf);

#define FTLBLK_STAT(_name, _field, _kind) {				\
	.attr = __ATTR(_name, 0444, stat_file_show, NULL),		\
	.offset = offsetof(struct ftlblk_snapshot, _field),		\
	.kind = FTLBLK_##_kind,						\
}

/*
 * Every statistic, once, in docs/statistics.md's order: both its
 * one-value file and its line in ftl/stat come from here, so a statistic
 * added here appears in both.
 */
static struct ftlblk_stat_attr ftlblk_stats[] = {
	FTLBLK_STAT(host_pages_written, ftl.host_pages_written, U64),
	FTLBLK_STAT(host_pages_read, ftl.host_pages_read, U64),
	FTLBLK_STAT(nand_pages_written, ftl.nand_pages_written, U64),
	FTLBLK_STAT(waf, ftl.waf_milli, MILLI),
	FTLBLK_STAT(gc_relocations, ftl.gc_relocations, U64),
	FTLBLK_STAT(gc_runs, ftl.gc_runs, U64),
	FTLBLK_STAT(wl_relocations, ftl.wl_relocations, U64),
	FTLBLK_STAT(wl_runs, ftl.wl_runs, U64),
	FTLBLK_STAT(erases, ftl.erases, U64),
	FTLBLK_STAT(erase_min, ftl.erase_min, U64),
	FTLBLK_STAT(erase_max, ftl.erase_max, U64),
	FTLBLK_STAT(erase_mean, ftl.erase_mean_milli, MILLI),
	FTLBLK_STAT(discard_requests, ctr.discard_requests, U64),
	FTLBLK_STAT(discard_ranges, ctr.discard_ranges, U64),
	FTLBLK_STAT(discard_sectors, ctr.discard_sectors, U64),
	FTLBLK_STAT(pages_discarded, ftl.pages_discarded, U64),
	FTLBLK_STAT(valid_pages_discarded, ftl.valid_pages_discarded, U64),
	FTLBLK_STAT(sectors_zeroed, ctr.sectors_zeroed, U64),
	FTLBLK_STAT(write_zeroes_requests, ctr.write_zeroes_requests, U64),
	FTLBLK_STAT(flush_requests, ctr.flush_requests, U64),
	FTLBLK_STAT(secure_erase_requests, ctr.secure_erase_requests, U64),
	FTLBLK_STAT(secure_erase_blocks, ftl.secure_erase_blocks, U64),
	FTLBLK_STAT(secure_erase_relocations, ftl.secure_erase_relocations, U64),
	FTLBLK_STAT(secure_erase_pages_left, ftl.secure_erase_pages_left, U64),
	FTLBLK_STAT(unmapped_reads, ftl.unmapped_reads, U64),
	FTLBLK_STAT(valid_pages, ftl.valid_pages, U64),
	FTLBLK_STAT(pages_stale, ftl.pages_stale, U64),
	FTLBLK_STAT(free_blocks, ftl.free_blocks, U64),
	FTLBLK_STAT(data_bytes, data_bytes, U64),
	FTLBLK_STAT(pool_bytes, pool_bytes, U64),
	FTLBLK_STAT(metadata_bytes, metadata_bytes, U64),
	FTLBLK_STAT(logical_pages, geo.logical_pages, U64),
	FTLBLK_STAT(physical_blocks, physical_blocks, U64),
	FTLBLK_STAT(pages_per_block, pages_per_block, U64),
	FTLBLK_STAT(spare_blocks, ftl.spare_blocks, U64),
	FTLBLK_STAT(program_failures, ftl.program_failures, U64),
	FTLBLK_STAT(erase_failures, ftl.erase_failures, U64),
	FTLBLK_STAT(bad_blocks, ftl.bad_blocks, U64),
	FTLBLK_STAT(read_only, read_only, U64),
	FTLBLK_STAT(mem_limit_rejections, ctr.mem_limit_rejections, U64),
	FTLBLK_STAT(host_busy_ns, host_busy_ns, U64),
	FTLBLK_STAT(gc_busy_ns, gc_busy_ns, U64),
	FTLBLK_STAT(erase_busy_ns, timing.erase_ns, U64),
	FTLBLK_STAT(channel_busy_ns, timing.channel_ns, U64),
	FTLBLK_STAT(requests_timed, timing.requests, U64),
	FTLBLK_STAT(latency_ns_total, timing.latency_ns_total, U64),
	FTLBLK_STAT(cached_pages, cached_pages, U64),
	FTLBLK_STAT(cache_writebacks, ctr.cache_writebacks, U64),
	FTLBLK_STAT(power_cuts, ctr.power_cuts, U64),
	FTLBLK_STAT(pages_lost_at_power_cut, ctr.pages_lost_at_power_cut, U64),
	FTLBLK_STAT(atomic_writes, ctr.atomic_writes, U64),
	FTLBLK_STAT(atomic_writes_lost_at_power_cut,
		    ctr.atomic_writes_lost_at_power_cut, U64),
	FTLBLK_STAT(flushes_failed_after_cut, ctr.flushes_failed_after_cut, U64),
	FTLBLK_STAT(nomem_writes, ctr.nomem_writes, U64),
	FTLBLK_STAT(timeouts, ctr.timeouts, U64),
};

/* Print statistic @st of snapshot @s at @at of @buf, with a newline. */
static int emit_stat(char *buf, int at, const struct ftlblk_stat_attr *st,
		     const struct ftlblk_snapshot *s)
{
	u64 v = *(const u64 *)((const char *)s + st->offset);
	u32 frac;

	if (st->kind == FTLBLK_U64)
		return sysfs_emit_at(buf, at, "%llu\n", v);
	v = div_u64_rem(v, 1000, &frac);
	return sysfs_emit_at(buf, at, "%llu.%03u\n", v, frac);
}

/* ftl/NAME: one statistic, from a fresh snapshot. */
static ssize_t stat_file_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	struct ftlblk_snapshot s;

	ftlblk_snapshot(to_ftlblk(d), &s);
	return emit_stat(buf, 0, container_of(attr, struct ftlblk_stat_attr,
					      attr), &s);
}

/*
 * ftl/stat: every statistic as a "name value" line, all from one
 * snapshot, so that counters that belong together agree.
 */
static ssize_t stat_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	struct ftlblk_snapshot s;
	unsigned int i;
	int len = 0;

	ftlblk_snapshot(to_ftlblk(d), &s);
	for (i = 0; i < ARRAY_SIZE(ftlblk_stats); i++) {
		len += sysfs_emit_at(buf, len, "%s ",
				     ftlblk_stats[i].attr.attr.name);
		len += emit_stat(buf, len, &ftlblk_stats[i], &s);
	}
	return len;
}
static DEVICE_ATTR_RO(stat);

static ssize_t gc_policy_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	struct ftlblk_dev *dev = to_ftlblk(d);

	return sysfs_emit(buf, "%s\n",
			  ftl_policy_name(dev->cfg.val[FTLBLK_GC_POLICY]));
}
static DEVICE_ATTR_RO(gc_policy);

static ssize_t placement_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	struct ftlblk_dev *dev = to_ftlblk(d);

	return sysfs_emit(buf, "%s\n",
			  ftlblk_field_value_name(FTLBLK_PLACEMENT,
						  dev->cfg.val[FTLBLK_PLACEMENT]));
}
static DEVICE_ATTR_RO(placement);

/* One class's counters, summed over the shards (each under its lock). */
static void class_stats_sum(struct ftlblk_dev *dev, u32 cls,
			    struct ftl_class_stats *sum)
{
	struct ftl_class_stats one;
	unsigned int i;

	*sum = (struct ftl_class_stats){ 0 };
	for (i = 0; i < dev->dealing.nr; i++) {
		spin_lock(&dev->shards[i].lock);
		ftl_get_class_stats(dev->shards[i].ftl, cls, &one);
		spin_unlock(&dev->shards[i].lock);
		sum->pages_written += one.pages_written;
		sum->blocks_filled += one.blocks_filled;
	}
}

/* "CLASS PAGES_WRITTEN BLOCKS_FILLED", one line per placement class. */
static ssize_t class_stats_show(struct device *d,
				struct device_attribute *attr, char *buf)
{
	struct ftlblk_dev *dev = to_ftlblk(d);
	struct ftl_class_stats s;
	struct ftl_config fcfg;
	int len = 0;
	u32 c;

	ftlblk_config_to_ftl(&dev->cfg, &fcfg);
	for (c = 0; c < max(fcfg.placement_classes, 1U); c++) {
		class_stats_sum(dev, c, &s);
		len += sysfs_emit_at(buf, len, "%u %llu %llu\n", c,
				     s.pages_written, s.blocks_filled);
	}
	return len;
}
static DEVICE_ATTR_RO(class_stats);

/* A read-only file printing the frozen configuration value @_id. */
#define FTLBLK_CFG_ATTR(_name, _id)					\
static ssize_t _name##_show(struct device *d,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return emit_u64(buf, to_ftlblk(d)->cfg.val[_id]);	\
}									\
static DEVICE_ATTR_RO(_name)

FTLBLK_CFG_ATTR(write_cache, FTLBLK_WRITE_CACHE);
FTLBLK_CFG_ATTR(cache_mib, FTLBLK_CACHE_MIB);
FTLBLK_CFG_ATTR(timing, FTLBLK_TIMING);
FTLBLK_CFG_ATTR(channels, FTLBLK_CHANNELS);
FTLBLK_CFG_ATTR(dies_per_channel, FTLBLK_DIES_PER_CHANNEL);
FTLBLK_CFG_ATTR(read_us, FTLBLK_READ_US);
FTLBLK_CFG_ATTR(program_us, FTLBLK_PROGRAM_US);
FTLBLK_CFG_ATTR(erase_us, FTLBLK_ERASE_US);
FTLBLK_CFG_ATTR(channel_mbps, FTLBLK_CHANNEL_MBPS);
FTLBLK_CFG_ATTR(shards, FTLBLK_SHARDS);
FTLBLK_CFG_ATTR(remanence, FTLBLK_REMANENCE);
FTLBLK_CFG_ATTR(secure_erase, FTLBLK_SECURE_ERASE);
FTLBLK_CFG_ATTR(write_streams, FTLBLK_WRITE_STREAMS);

/* The largest atomic write the device serves, as capped (0 = none). */
static ssize_t atomic_write_max_kib_show(struct device *d,
					 struct device_attribute *attr,
					 char *buf)
{
	struct ftlblk_dev *dev = to_ftlblk(d);

	return emit_u64(buf, ftlblk_atomic_bytes(&dev->cfg) >> 10);
}
static DEVICE_ATTR_RO(atomic_write_max_kib);

static ssize_t power_cut_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	return emit_u64(buf, READ_ONCE(to_ftlblk(d)->power_off));
}

static ssize_t power_cut_store(struct device *d, struct device_attribute *attr,
			       const char *buf, size_t len)
{
	struct ftlblk_dev *dev = to_ftlblk(d);
	int err = ftlblk_power_store(dev, dev->disk->disk_name, buf);

	return err ? err : len;
}
static DEVICE_ATTR_RW(power_cut);

static ssize_t power_cut_mode_show(struct device *d,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  ftlblk_cut_mode_name(READ_ONCE(to_ftlblk(d)->cut_mode)));
}

static ssize_t power_cut_mode_store(struct device *d,
				    struct device_attribute *attr,
				    const char *buf, size_t len)
{
	struct ftlblk_dev *dev = to_ftlblk(d);
	int mode = ftlblk_cut_mode_parse(dev->disk->disk_name, buf);

	if (mode < 0)
		return mode;
	WRITE_ONCE(dev->cut_mode, mode);
	return len;
}
static DEVICE_ATTR_RW(power_cut_mode);

static ssize_t reset_stats_store(struct device *d,
				 struct device_attribute *attr,
				 const char *buf, size_t len)
{
	struct ftlblk_dev *dev = to_ftlblk(d);
	unsigned int i;
	int cpu;

	for (i = 0; i < dev->dealing.nr; i++) {
		struct ftlblk_shard *sh = &dev->shards[i];

		spin_lock(&sh->lock);
		ftl_reset_stats(sh->ftl);
		memset(&sh->ctr, 0, sizeof(sh->ctr));
		spin_unlock(&sh->lock);
	}
	mutex_lock(&dev->power_mutex);
	WRITE_ONCE(dev->power_cuts, 0);
	mutex_unlock(&dev->power_mutex);
	ftlblk_timing_reset_stats(dev);
	/* Requests running now may add to the old values: a reset is a moment. */
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(dev->pcpu, cpu), 0,
		       sizeof(struct ftlblk_pcpu_stats));
	return len;
}
static DEVICE_ATTR_WO(reset_stats);

/*
 * The files of ftl/: the statistics' (ftlblk_stats[], filled in by
 * ftlblk_sysfs_init()), then these.
 */
static struct attribute *ftlblk_other_attrs[] = {
	&dev_attr_stat.attr,
	&dev_attr_gc_policy.attr,
	&dev_attr_placement.attr,
	&dev_attr_write_streams.attr,
	&dev_attr_class_stats.attr,
	&dev_attr_atomic_write_max_kib.attr,
	&dev_attr_write_cache.attr,
	&dev_attr_cache_mib.attr,
	&dev_attr_power_cut.attr,
	&dev_attr_power_cut_mode.attr,
	&dev_attr_timing.attr,
	&dev_attr_channels.attr,
	&dev_attr_dies_per_channel.attr,
	&dev_attr_read_us.attr,
	&dev_attr_program_us.attr,
	&dev_attr_erase_us.attr,
	&dev_attr_channel_mbps.attr,
	&dev_attr_shards.attr,
	&dev_attr_remanence.attr,
	&dev_attr_secure_erase.attr,
	&dev_attr_reset_stats.attr,
	&dev_attr_badblocks.attr,
	NULL,
};

static struct attribute *ftlblk_stat_attrs[ARRAY_SIZE(ftlblk_stats) +
					   ARRAY_SIZE(ftlblk_other_attrs)];

static const struct attribute_group ftlblk_stat_group = {
	.name = "ftl",
	.attrs = ftlblk_stat_attrs,
};

/**
 * ftlblk_sysfs_init() - list the files of ftl/, before any device exists
 */
void ftlblk_sysfs_init(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(ftlblk_stats); i++)
		ftlblk_stat_attrs[n++] = &ftlblk_stats[i].attr.attr;
	/* ftlblk_other_attrs[] ends with its NULL, and so does this. */
	for (i = 0; i < ARRAY_SIZE(ftlblk_other_attrs); i++)
		ftlblk_stat_attrs[n++] = ftlblk_other_attrs[i];
}

const struct attribute_group *ftlblk_disk_groups[] = {
	&ftlblk_stat_group,
	NULL,
};
