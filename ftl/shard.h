/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shard.h - a device made of independent FTL instances (shards).
 *
 * Two host writers serialize on one FTL: every call on a struct ftl is
 * made under one lock. A multi-core SSD controller avoids that by giving
 * each core its own FTL over its own share of the flash; so does a
 * sharded device here. The logical pages are dealt to the shards in
 * stripes of one erase block's worth: stripe k (pages [k * stripe,
 * (k + 1) * stripe)) belongs to shard k mod nr, where it is the shard's
 * stripe k / nr. Each shard is a complete FTL (ftl_create()) with its own
 * blocks, over-provisioning, open blocks, GC and wear leveling; its
 * physical blocks follow the previous shards' in the device's numbering.
 *
 * The price is over-provisioning: every shard keeps its own two open
 * blocks and its own free-block reserve, so a device of N shards holds N
 * times as many blocks out of the GC's reach, and its WAF at a small
 * over-provisioning is higher than one FTL's (measured in
 * docs/performance.md). A single shard (nr = 1) is exactly one FTL.
 *
 * The ftlblk module and ftlsim both route through these functions, so a
 * trace replayed on both lands on the same shards and pages.
 */
#ifndef FTL_SHARD_H
#define FTL_SHARD_H

#include "ftl.h"

#define FTL_MAX_SHARDS		64

/**
 * struct ftl_shards - how logical pages are dealt to shards
 * @nr: number of shards, [1, FTL_MAX_SHARDS]
 * @stripe: consecutive logical pages a shard takes before the next one
 *	does (the FTL's pages_per_block)
 */
struct ftl_shards {
	u32 nr;
	u32 stripe;
};

/**
 * ftl_shard_of() - the shard that holds a logical page
 * @s: the dealing
 * @lpn: device logical page
 * @local: receives its logical page number inside the shard
 *
 * Return: the shard, below @s->nr.
 */
static inline u32 ftl_shard_of(const struct ftl_shards *s, u64 lpn,
			       u64 *local)
{
	u64 stripe_nr, round;
	u32 in_stripe;

	if (s->nr == 1) {
		*local = lpn;
		return 0;
	}
	stripe_nr = ftl_div_u64(lpn, s->stripe);
	in_stripe = lpn - stripe_nr * s->stripe;
	round = ftl_div_u64(stripe_nr, s->nr);
	*local = round * s->stripe + in_stripe;
	return stripe_nr - round * s->nr;
}

/**
 * ftl_shard_run() - logical pages from @lpn on that stay in its shard
 * @s: the dealing
 * @lpn: device logical page
 *
 * They are consecutive in the shard too.
 *
 * Return: at least 1; U64_MAX with one shard.
 */
static inline u64 ftl_shard_run(const struct ftl_shards *s, u64 lpn)
{
	if (s->nr == 1)
		return U64_MAX;
	return s->stripe - (lpn - ftl_div_u64(lpn, s->stripe) * s->stripe);
}

/**
 * ftl_shard_host_lpn() - ftl_shard_of() backwards
 * @s: the dealing
 * @shard: shard
 * @local: logical page inside it
 *
 * Return: the device logical page.
 */
static inline u64 ftl_shard_host_lpn(const struct ftl_shards *s, u32 shard,
				     u64 local)
{
	u64 round;

	if (s->nr == 1)
		return local;
	round = ftl_div_u64(local, s->stripe);
	return (round * s->nr + shard) * s->stripe +
	       (local - round * s->stripe);
}

/**
 * ftl_shard_config() - the configuration of one shard of a device
 * @whole: the device's configuration (logical_pages: the whole device)
 * @s: the dealing (@s->stripe must be @whole->pages_per_block)
 * @shard: which shard
 * @part: receives the shard's configuration: its share of the logical
 *	pages and its own fault seed (@whole's plus @shard, so that shards
 *	do not fail in lockstep; shard 0 keeps @whole's)
 *
 * Return: 0, or -EINVAL if the shard would hold no logical page.
 */
int ftl_shard_config(const struct ftl_config *whole,
		     const struct ftl_shards *s, u32 shard,
		     struct ftl_config *part);

/**
 * ftl_shard_check() - can every shard of a device be a working FTL?
 * @whole: the device's configuration
 * @s: the dealing (@s->stripe must be @whole->pages_per_block)
 * @why: receives a static sentence saying what is wrong
 *
 * Return: 0, or -EINVAL: a shard would hold no logical page, fails
 * ftl_config_check(), or the shards together pass 2^32 physical pages.
 */
int ftl_shard_check(const struct ftl_config *whole,
		    const struct ftl_shards *s, const char **why);

/**
 * ftl_shard_stats_add() - add one shard's statistics to a device's
 * @sum: the device's so far (zeroed before the first shard)
 * @blocks: the device's physical blocks so far (0 before the first)
 * @part: the shard's (ftl_get_stats())
 * @part_blocks: the shard's physical blocks
 *
 * Counters and state counts add up; erase_min and erase_max are the
 * extremes, read_only the worst (any shard read-only makes the device
 * so), erase_mean_milli the mean over all blocks and waf_milli the
 * device's. *@blocks grows by @part_blocks.
 */
void ftl_shard_stats_add(struct ftl_stats *sum, u64 *blocks,
			 const struct ftl_stats *part, u32 part_blocks);

/**
 * ftl_shard_geometry_add() - add one shard's geometry to a device's
 * @sum: the device's so far (zeroed before the first shard)
 * @part: the shard's (ftl_get_geometry())
 *
 * Page and block counts add up; pages_per_block and the GC watermarks
 * are per shard and the same in every one.
 */
void ftl_shard_geometry_add(struct ftl_geometry *sum,
			    const struct ftl_geometry *part);

#endif /* FTL_SHARD_H */
