// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/block/ftlblkN/ftl/: one value per file, like zram's statistics.
 * Counters are reset by writing to reset_stats; the device state (valid
 * pages, free blocks, erase counts, memory) is not.
 */
#include <linux/device.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/sysfs.h>

#include "ftlblk.h"

/* Everything a show() may print (each shard's share taken under its lock). */
struct ftlblk_snapshot {
	struct ftl_stats ftl;
	struct ftl_geometry geo;
	struct ftlblk_counters ctr;
	struct ftl_timing_stats timing;
	u64 data_bytes;
	u64 pool_bytes;
	u64 metadata_bytes;
	u64 cached_pages;
};

static struct ftlblk_dev *to_ftlblk(struct device *d)
{
	return dev_to_disk(d)->private_data;
}

/* Add one CPU's request counters to the snapshot's. */
static void add_pcpu(struct ftlblk_snapshot *s,
		     const struct ftlblk_pcpu_stats *p)
{
	s->ftl.host_pages_read += p->v[FTLBLK_PC_HOST_PAGES_READ];
	s->ftl.unmapped_reads += p->v[FTLBLK_PC_UNMAPPED_READS];
	s->ctr.discard_requests += p->v[FTLBLK_PC_DISCARD_REQUESTS];
	s->ctr.discard_ranges += p->v[FTLBLK_PC_DISCARD_RANGES];
	s->ctr.discard_sectors += p->v[FTLBLK_PC_DISCARD_SECTORS];
	s->ctr.sectors_zeroed += p->v[FTLBLK_PC_SECTORS_ZEROED];
	s->ctr.write_zeroes_requests += p->v[FTLBLK_PC_WRITE_ZEROES_REQUESTS];
	s->ctr.flush_requests += p->v[FTLBLK_PC_FLUSH_REQUESTS];
	s->ctr.mem_limit_rejections += p->v[FTLBLK_PC_MEM_LIMIT_REJECTIONS];
	s->ctr.timeouts += p->v[FTLBLK_PC_TIMEOUTS];
	s->ctr.nomem_writes += p->v[FTLBLK_PC_NOMEM_WRITES];
	s->ctr.flushes_failed_after_cut +=
		p->v[FTLBLK_PC_FLUSHES_FAILED_AFTER_CUT];
}

/* Add one shard's data pages, memory and cache counters to the snapshot's. */
static void add_shard(struct ftlblk_snapshot *s, struct ftlblk_shard *sh)
{
	spin_lock(&sh->lock);
	s->ctr.cache_writebacks += sh->ctr.cache_writebacks;
	s->ctr.pages_lost_at_power_cut += sh->ctr.pages_lost_at_power_cut;
	s->data_bytes += sh->data_pages << (PAGE_SHIFT + sh->dev->page_order);
	s->metadata_bytes += ftl_metadata_bytes(sh->ftl);
	if (ftlblk_cache_on(sh->dev))
		s->metadata_bytes += ftl_cache_metadata_bytes(&sh->cache);
	s->cached_pages += sh->cache.entries;
	spin_unlock(&sh->lock);
}

static void take_snapshot(struct ftlblk_dev *dev, struct ftlblk_snapshot *s)
{
	unsigned int i;
	int cpu;

	ftlblk_ftl_stats(dev, &s->ftl, &s->geo);
	/* The per-CPU and per-shard counters are added below, to zeroes. */
	s->ctr = (struct ftlblk_counters) {
		.power_cuts = READ_ONCE(dev->power_cuts),
	};
	s->data_bytes = 0;
	s->cached_pages = 0;
	/* The page tables (data[]) and the device's own structures. */
	s->metadata_bytes = s->geo.logical_pages * sizeof(*dev->shards->data) +
			    sizeof(*dev) + dev->dealing.nr * sizeof(*dev->shards);
	for (i = 0; i < dev->dealing.nr; i++)
		add_shard(s, &dev->shards[i]);
	for_each_possible_cpu(cpu)
		add_pcpu(s, per_cpu_ptr(dev->pcpu, cpu));
	ftlblk_timing_stats(dev, &s->timing);
	spin_lock(&dev->pool_lock);
	s->pool_bytes = (u64)(dev->pool_pages + dev->limbo_pages +
			      atomic_long_read(&dev->limbo_rcu_pages)) <<
			(PAGE_SHIFT + dev->page_order);
	spin_unlock(&dev->pool_lock);
}

/* Thousandths as a decimal: 2481 -> "2.481". */
static ssize_t emit_milli(char *buf, u64 milli)
{
	u32 frac;
	u64 whole = div_u64_rem(milli, 1000, &frac);

	return sysfs_emit(buf, "%llu.%03u\n", whole, frac);
}

static ssize_t emit_u64(char *buf, u64 value)
{
	return sysfs_emit(buf, "%llu\n", value);
}

/* A read-only file printing @_expr of a snapshot s with @_emit. */
#define FTLBLK_ATTR(_name, _emit, _expr)				\
static ssize_t _name##_show(struct device *d,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct ftlblk_snapshot s;					\
									\
	take_snapshot(to_ftlblk(d), &s);				\
	return _emit(buf, _expr);					\
}									\
static DEVICE_ATTR_RO(_name)

#define FTLBLK_STAT_ATTR(_name, _expr)	FTLBLK_ATTR(_name, emit_u64, _expr)

FTLBLK_STAT_ATTR(host_pages_written, s.ftl.host_pages_written);
FTLBLK_STAT_ATTR(host_pages_read, s.ftl.host_pages_read);
FTLBLK_STAT_ATTR(nand_pages_written, s.ftl.nand_pages_written);
FTLBLK_STAT_ATTR(gc_relocations, s.ftl.gc_relocations);
FTLBLK_STAT_ATTR(gc_runs, s.ftl.gc_runs);
FTLBLK_STAT_ATTR(wl_relocations, s.ftl.wl_relocations);
FTLBLK_STAT_ATTR(wl_runs, s.ftl.wl_runs);
FTLBLK_STAT_ATTR(erases, s.ftl.erases);
FTLBLK_STAT_ATTR(erase_min, s.ftl.erase_min);
FTLBLK_STAT_ATTR(erase_max, s.ftl.erase_max);
FTLBLK_STAT_ATTR(discard_requests, s.ctr.discard_requests);
FTLBLK_STAT_ATTR(discard_ranges, s.ctr.discard_ranges);
FTLBLK_STAT_ATTR(discard_sectors, s.ctr.discard_sectors);
FTLBLK_STAT_ATTR(pages_discarded, s.ftl.pages_discarded);
FTLBLK_STAT_ATTR(valid_pages_discarded, s.ftl.valid_pages_discarded);
FTLBLK_STAT_ATTR(sectors_zeroed, s.ctr.sectors_zeroed);
FTLBLK_STAT_ATTR(write_zeroes_requests, s.ctr.write_zeroes_requests);
FTLBLK_STAT_ATTR(flush_requests, s.ctr.flush_requests);
FTLBLK_STAT_ATTR(flushes_failed_after_cut, s.ctr.flushes_failed_after_cut);
FTLBLK_STAT_ATTR(mem_limit_rejections, s.ctr.mem_limit_rejections);
FTLBLK_STAT_ATTR(power_cuts, s.ctr.power_cuts);
FTLBLK_STAT_ATTR(cache_writebacks, s.ctr.cache_writebacks);
FTLBLK_STAT_ATTR(pages_lost_at_power_cut, s.ctr.pages_lost_at_power_cut);
FTLBLK_STAT_ATTR(timeouts, s.ctr.timeouts);
FTLBLK_STAT_ATTR(nomem_writes, s.ctr.nomem_writes);
FTLBLK_STAT_ATTR(cached_pages, s.cached_pages);
FTLBLK_STAT_ATTR(unmapped_reads, s.ftl.unmapped_reads);
FTLBLK_STAT_ATTR(valid_pages, s.ftl.valid_pages);
FTLBLK_STAT_ATTR(free_blocks, s.ftl.free_blocks);
FTLBLK_STAT_ATTR(data_bytes, s.data_bytes);
FTLBLK_STAT_ATTR(pool_bytes, s.pool_bytes);
FTLBLK_STAT_ATTR(metadata_bytes, s.metadata_bytes);
FTLBLK_STAT_ATTR(logical_pages, s.geo.logical_pages);
FTLBLK_STAT_ATTR(physical_blocks, s.geo.physical_blocks);
FTLBLK_STAT_ATTR(spare_blocks, s.ftl.spare_blocks);
FTLBLK_STAT_ATTR(program_failures, s.ftl.program_failures);
FTLBLK_STAT_ATTR(erase_failures, s.ftl.erase_failures);
FTLBLK_STAT_ATTR(bad_blocks, s.ftl.bad_blocks);
FTLBLK_STAT_ATTR(read_only, !!s.ftl.read_only);
FTLBLK_STAT_ATTR(pages_per_block, s.geo.pages_per_block);

FTLBLK_STAT_ATTR(host_busy_ns, s.timing.host_read_ns +
		 s.timing.host_program_ns);
FTLBLK_STAT_ATTR(gc_busy_ns, s.timing.gc_read_ns + s.timing.gc_program_ns);
FTLBLK_STAT_ATTR(erase_busy_ns, s.timing.erase_ns);
FTLBLK_STAT_ATTR(channel_busy_ns, s.timing.channel_ns);
FTLBLK_STAT_ATTR(requests_timed, s.timing.requests);
FTLBLK_STAT_ATTR(latency_ns_total, s.timing.latency_ns_total);

FTLBLK_ATTR(waf, emit_milli, s.ftl.waf_milli);
FTLBLK_ATTR(erase_mean, emit_milli, s.ftl.erase_mean_milli);

static ssize_t gc_policy_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	struct ftlblk_dev *dev = to_ftlblk(d);

	return sysfs_emit(buf, "%s\n",
			  ftl_policy_name(dev->cfg.val[FTLBLK_GC_POLICY]));
}
static DEVICE_ATTR_RO(gc_policy);

/* A read-only file printing the frozen configuration value @_id. */
#define FTLBLK_CFG_ATTR(_name, _id)					\
static ssize_t _name##_show(struct device *d,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return emit_u64(buf, to_ftlblk(d)->cfg.val[_id]);		\
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

static struct attribute *ftlblk_stat_attrs[] = {
	&dev_attr_host_pages_written.attr,
	&dev_attr_host_pages_read.attr,
	&dev_attr_nand_pages_written.attr,
	&dev_attr_waf.attr,
	&dev_attr_gc_relocations.attr,
	&dev_attr_gc_runs.attr,
	&dev_attr_wl_relocations.attr,
	&dev_attr_wl_runs.attr,
	&dev_attr_erases.attr,
	&dev_attr_erase_min.attr,
	&dev_attr_erase_max.attr,
	&dev_attr_erase_mean.attr,
	&dev_attr_discard_requests.attr,
	&dev_attr_discard_ranges.attr,
	&dev_attr_discard_sectors.attr,
	&dev_attr_pages_discarded.attr,
	&dev_attr_valid_pages_discarded.attr,
	&dev_attr_sectors_zeroed.attr,
	&dev_attr_write_zeroes_requests.attr,
	&dev_attr_flush_requests.attr,
	&dev_attr_flushes_failed_after_cut.attr,
	&dev_attr_mem_limit_rejections.attr,
	&dev_attr_power_cuts.attr,
	&dev_attr_cache_writebacks.attr,
	&dev_attr_pages_lost_at_power_cut.attr,
	&dev_attr_timeouts.attr,
	&dev_attr_nomem_writes.attr,
	&dev_attr_cached_pages.attr,
	&dev_attr_write_cache.attr,
	&dev_attr_cache_mib.attr,
	&dev_attr_power_cut.attr,
	&dev_attr_power_cut_mode.attr,
	&dev_attr_unmapped_reads.attr,
	&dev_attr_valid_pages.attr,
	&dev_attr_free_blocks.attr,
	&dev_attr_data_bytes.attr,
	&dev_attr_pool_bytes.attr,
	&dev_attr_metadata_bytes.attr,
	&dev_attr_logical_pages.attr,
	&dev_attr_physical_blocks.attr,
	&dev_attr_spare_blocks.attr,
	&dev_attr_program_failures.attr,
	&dev_attr_erase_failures.attr,
	&dev_attr_bad_blocks.attr,
	&dev_attr_read_only.attr,
	&dev_attr_pages_per_block.attr,
	&dev_attr_gc_policy.attr,
	&dev_attr_host_busy_ns.attr,
	&dev_attr_gc_busy_ns.attr,
	&dev_attr_erase_busy_ns.attr,
	&dev_attr_channel_busy_ns.attr,
	&dev_attr_requests_timed.attr,
	&dev_attr_latency_ns_total.attr,
	&dev_attr_timing.attr,
	&dev_attr_channels.attr,
	&dev_attr_dies_per_channel.attr,
	&dev_attr_read_us.attr,
	&dev_attr_program_us.attr,
	&dev_attr_erase_us.attr,
	&dev_attr_channel_mbps.attr,
	&dev_attr_shards.attr,
	&dev_attr_reset_stats.attr,
	&dev_attr_badblocks.attr,
	NULL,
};

static const struct attribute_group ftlblk_stat_group = {
	.name = "ftl",
	.attrs = ftlblk_stat_attrs,
};

const struct attribute_group *ftlblk_disk_groups[] = {
	&ftlblk_stat_group,
	NULL,
};
