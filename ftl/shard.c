// SPDX-License-Identifier: GPL-2.0
/*
 * shard.c - configuration and statistics of a device made of independent
 * FTL instances; the routing itself is inline in shard.h.
 */
#include "shard.h"

/* Logical pages of shard @shard among @total dealt by @s. */
static u64 shard_pages(const struct ftl_shards *s, u64 total, u32 shard)
{
	u64 round = (u64)s->nr * s->stripe;
	u64 full = ftl_div_u64(total, round);
	u64 rest = total - full * round;
	u64 first = (u64)shard * s->stripe;
	u64 pages = full * s->stripe;

	if (rest > first)
		pages += rest - first < s->stripe ? rest - first : s->stripe;
	return pages;
}

int ftl_shard_config(const struct ftl_config *whole,
		     const struct ftl_shards *s, u32 shard,
		     struct ftl_config *part)
{
	*part = *whole;
	part->logical_pages = shard_pages(s, whole->logical_pages, shard);
	part->fault_seed = whole->fault_seed + shard;
	return part->logical_pages ? 0 : -EINVAL;
}

int ftl_shard_check(const struct ftl_config *whole,
		    const struct ftl_shards *s, const char **why)
{
	struct ftl_geometry geo;
	struct ftl_config part;
	u64 pages = 0;
	u32 i;

	for (i = 0; i < s->nr; i++) {
		if (ftl_shard_config(whole, s, i, &part)) {
			*why = "a shard would hold no logical page: more shards than erase blocks";
			return -EINVAL;
		}
		if (ftl_config_check(&part, &geo, why))
			return -EINVAL;
		pages += geo.physical_pages;
	}
	if (pages >= U32_MAX) {
		*why = "physical capacity must be below 2^32 pages";
		return -EINVAL;
	}
	return 0;
}

void ftl_shard_stats_add(struct ftl_stats *sum, u64 *blocks,
			 const struct ftl_stats *part, u32 part_blocks)
{
	u64 mean_sum = sum->erase_mean_milli * *blocks +
		       part->erase_mean_milli * part_blocks;
	bool first = *blocks == 0;

	sum->host_pages_written += part->host_pages_written;
	sum->host_pages_read += part->host_pages_read;
	sum->nand_pages_written += part->nand_pages_written;
	sum->gc_relocations += part->gc_relocations;
	sum->gc_runs += part->gc_runs;
	sum->wl_relocations += part->wl_relocations;
	sum->wl_runs += part->wl_runs;
	sum->erases += part->erases;
	sum->secure_erases += part->secure_erases;
	sum->secure_erase_blocks += part->secure_erase_blocks;
	sum->secure_erase_relocations += part->secure_erase_relocations;
	sum->secure_erase_pages_left += part->secure_erase_pages_left;
	sum->discard_calls += part->discard_calls;
	sum->pages_discarded += part->pages_discarded;
	sum->valid_pages_discarded += part->valid_pages_discarded;
	sum->unmapped_reads += part->unmapped_reads;
	sum->program_failures += part->program_failures;
	sum->atomic_writes += part->atomic_writes;
	sum->atomic_pages_abandoned += part->atomic_pages_abandoned;
	sum->erase_failures += part->erase_failures;
	sum->valid_pages += part->valid_pages;
	sum->pages_stale += part->pages_stale;
	sum->free_blocks += part->free_blocks;
	sum->bad_blocks += part->bad_blocks;
	sum->spare_blocks += part->spare_blocks;
	if (part->read_only > sum->read_only)
		sum->read_only = part->read_only;
	if (first || part->erase_min < sum->erase_min)
		sum->erase_min = part->erase_min;
	if (part->erase_max > sum->erase_max)
		sum->erase_max = part->erase_max;
	*blocks += part_blocks;
	sum->erase_mean_milli = ftl_div_u64(mean_sum, *blocks);
	sum->waf_milli = sum->host_pages_written ?
		ftl_div_u64(sum->nand_pages_written * 1000,
			    sum->host_pages_written) : 0;
}

void ftl_shard_geometry_add(struct ftl_geometry *sum,
			    const struct ftl_geometry *part)
{
	sum->logical_pages += part->logical_pages;
	sum->pages_per_block = part->pages_per_block;
	sum->logical_blocks += part->logical_blocks;
	sum->spare_blocks += part->spare_blocks;
	sum->physical_blocks += part->physical_blocks;
	sum->physical_pages += part->physical_pages;
	sum->open_blocks += part->open_blocks;
	sum->gc_low_blocks = part->gc_low_blocks;
	sum->gc_high_blocks = part->gc_high_blocks;
}
