// SPDX-License-Identifier: GPL-2.0
/*
 * The write cache index of the portable FTL core (../ftl/cache.c), built into
 * the module.
 */
#include "../ftl/cache.c"
