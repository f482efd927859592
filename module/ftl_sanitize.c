// SPDX-License-Identifier: GPL-2.0
/*
 * The portable FTL core's secure erase (../ftl/sanitize.c, found through
 * ccflags -I) compiled as part of this module, as ftl_core.c is.
 */
#include "sanitize.c"
