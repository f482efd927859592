/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/types.h>: what module/charge.h uses. */
#ifndef SHIM_LINUX_TYPES_H
#define SHIM_LINUX_TYPES_H
#include <stdbool.h>
#include <stdint.h>
#endif
