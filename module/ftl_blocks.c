// SPDX-License-Identifier: GPL-2.0
/*
 * The portable FTL core's erase blocks (../ftl/blocks.c, found through
 * ccflags -I) compiled as part of this module, as ftl_core.c is.
 */
#include "blocks.c"
