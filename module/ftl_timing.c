// SPDX-License-Identifier: GPL-2.0
/*
 * The portable NAND timing model (../ftl/timing.c, found through ccflags
 * -I) compiled as part of this module, as ftl_core.c does for the core.
 */
#include "../ftl/timing.c"
