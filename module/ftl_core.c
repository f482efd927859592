// SPDX-License-Identifier: GPL-2.0
/*
 * The portable FTL core's map and API (../ftl/ftl.c, found through
 * ccflags -I) compiled as part of this module, so that Kbuild keeps every
 * object under M=.
 */
#include "ftl.c"
