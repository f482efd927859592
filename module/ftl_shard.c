// SPDX-License-Identifier: GPL-2.0
/*
 * The shard helpers of the portable FTL core (../ftl/shard.c), built into
 * the module.
 */
#include "../ftl/shard.c"
