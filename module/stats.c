// SPDX-License-Identifier: GPL-2.0
/*
 * The device's statistics as one snapshot: every shard's FTL counters,
 * geometry, cache counters and memory taken in one hold of that shard's
 * lock, added up as one FTL's would read (ftl/shard.h says how each field
 * adds), then the per-CPU request counters, the timing model's and the
 * pool's. Counters that belong together (nand_pages_written and
 * host_pages_written, waf) come from one hold, so they agree; the shards
 * are taken one after the other, never two at once, so the sum over them
 * is not one moment's, as with the per-CPU counters.
 */
#include <linux/percpu.h>

#include "ftlblk.h"

/**
 * ftlblk_ftl_stats() - the FTL counters and geometry of the whole device
 * @dev: device
 * @st: receives the summed statistics
 * @geo: if not NULL, receives the summed geometry
 *
 * Takes each shard's lock in turn (never two at once).
 */
void ftlblk_ftl_stats(struct ftlblk_dev *dev, struct ftl_stats *st,
		      struct ftl_geometry *geo)
{
	struct ftl_geometry part_geo, sum_geo = { };
	struct ftl_stats part;
	u64 blocks = 0;
	unsigned int i;

	*st = (struct ftl_stats){ };
	for (i = 0; i < dev->dealing.nr; i++) {
		struct ftlblk_shard *sh = &dev->shards[i];

		spin_lock(&sh->lock);
		ftl_get_stats(sh->ftl, &part);
		ftl_get_geometry(sh->ftl, &part_geo);
		spin_unlock(&sh->lock);
		ftl_shard_stats_add(st, &blocks, &part, part_geo.physical_blocks);
		ftl_shard_geometry_add(&sum_geo, &part_geo);
	}
	if (geo)
		*geo = sum_geo;
}

/* Add one CPU's request counters. */
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
	s->ctr.flushes_failed_after_cut +=
		p->v[FTLBLK_PC_FLUSHES_FAILED_AFTER_CUT];
	s->ctr.secure_erase_requests += p->v[FTLBLK_PC_SECURE_ERASE_REQUESTS];
	s->ctr.atomic_writes += p->v[FTLBLK_PC_ATOMIC_WRITES];
	s->ctr.mem_limit_rejections += p->v[FTLBLK_PC_MEM_LIMIT_REJECTIONS];
	s->ctr.timeouts += p->v[FTLBLK_PC_TIMEOUTS];
	s->ctr.nomem_writes += p->v[FTLBLK_PC_NOMEM_WRITES];
}

/* One shard's share, all in one hold of its lock. */
static void add_shard(struct ftlblk_snapshot *s, struct ftlblk_shard *sh,
		      u64 *blocks)
{
	struct ftl_geometry geo;
	struct ftl_stats st;

	spin_lock(&sh->lock);
	ftl_get_stats(sh->ftl, &st);
	ftl_get_geometry(sh->ftl, &geo);
	s->ctr.cache_writebacks += sh->ctr.cache_writebacks;
	s->ctr.pages_lost_at_power_cut += sh->ctr.pages_lost_at_power_cut;
	s->ctr.atomic_writes_lost_at_power_cut +=
		sh->ctr.atomic_writes_lost_at_power_cut;
	s->data_bytes += (sh->data_pages + sh->stale_pages) <<
			 (PAGE_SHIFT + sh->dev->page_order);
	s->metadata_bytes += ftl_metadata_bytes(sh->ftl);
	if (sh->stale)
		s->metadata_bytes += geo.physical_pages * sizeof(*sh->stale);
	if (ftlblk_cache_on(sh->dev))
		s->metadata_bytes += ftl_cache_metadata_bytes(&sh->cache);
	s->cached_pages += sh->cache.entries;
	spin_unlock(&sh->lock);
	ftl_shard_stats_add(&s->ftl, blocks, &st, geo.physical_blocks);
	ftl_shard_geometry_add(&s->geo, &geo);
}

/**
 * ftlblk_snapshot() - every statistic of a device, from one snapshot
 * @dev: device
 * @s: receives them
 *
 * Takes each shard's lock once (never two at once), then timing_lock and
 * pool_lock, each once.
 */
void ftlblk_snapshot(struct ftlblk_dev *dev, struct ftlblk_snapshot *s)
{
	u64 blocks = 0;
	unsigned int i;
	int cpu;

	*s = (struct ftlblk_snapshot) {
		.ctr.power_cuts = READ_ONCE(dev->power_cuts),
	};
	for (i = 0; i < dev->dealing.nr; i++)
		add_shard(s, &dev->shards[i], &blocks);
	/* The page tables (data[]) and the device's own structures. */
	s->metadata_bytes += s->geo.logical_pages * sizeof(*dev->shards->data) +
			     sizeof(*dev) + dev->dealing.nr * sizeof(*dev->shards);
	for_each_possible_cpu(cpu)
		add_pcpu(s, per_cpu_ptr(dev->pcpu, cpu));
	ftlblk_timing_stats(dev, &s->timing);
	s->host_busy_ns = s->timing.host_read_ns + s->timing.host_program_ns;
	s->gc_busy_ns = s->timing.gc_read_ns + s->timing.gc_program_ns;
	s->read_only = !!s->ftl.read_only;
	s->physical_blocks = s->geo.physical_blocks;
	s->pages_per_block = s->geo.pages_per_block;
	spin_lock(&dev->pool_lock);
	s->pool_bytes = (u64)(dev->pool_pages + dev->limbo_pages +
			      atomic_long_read(&dev->limbo_rcu_pages)) <<
			(PAGE_SHIFT + dev->page_order);
	spin_unlock(&dev->pool_lock);
}
