// SPDX-License-Identifier: GPL-2.0
/*
 * The test module ftlblk_widen (../tests/kmod/widen.c), compiled here so
 * that Kbuild keeps every object under M=. Not part of ftlblk.ko and not
 * packaged by DKMS.
 */
#include "../tests/kmod/widen.c"
