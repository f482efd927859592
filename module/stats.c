// SPDX-License-Identifier: GPL-2.0
/*
 * The device's FTL statistics: its shards' (struct ftlblk_shard) added up,
 * as one FTL's would read (ftl/shard.h says how each field adds).
 */
#include "ftlblk.h"

/**
 * ftlblk_ftl_stats() - the FTL counters and geometry of the whole device
 * @dev: device
 * @st: receives the summed statistics
 * @geo: if not NULL, receives the summed geometry
 *
 * Takes each shard's lock in turn (never two at once), so the sum is
 * not one moment's, as with the per-CPU counters.
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
