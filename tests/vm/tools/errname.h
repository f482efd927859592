/* SPDX-License-Identifier: GPL-2.0 */
/*
 * errno_name(): the symbolic name of an errno ("EINVAL"), as the guest
 * tests compare it, for the guest tools that report a call's outcome;
 * strerror() text for any other value.
 */
#ifndef FTLBLK_TOOLS_ERRNAME_H
#define FTLBLK_TOOLS_ERRNAME_H

#include <errno.h>
#include <string.h>

static inline const char *errno_name(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EBUSY: return "EBUSY";
	case EIO: return "EIO";
	case ENOSPC: return "ENOSPC";
	case ENXIO: return "ENXIO";
	case EBADF: return "EBADF";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENODEV: return "ENODEV";
	case ENOTTY: return "ENOTTY";
	case EFBIG: return "EFBIG";
	case ENOENT: return "ENOENT";
	case ENOMEM: return "ENOMEM";
	case ERANGE: return "ERANGE";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ECANCELED: return "ECANCELED";
	default: return strerror(e);
	}
}

#endif
