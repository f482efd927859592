// SPDX-License-Identifier: GPL-2.0
/* port_user.c - state of the user-space host hooks (see port_user.h). */
#include "ftl_port.h"

/* Set by tests that provoke errors on purpose, to keep their output clean. */
bool ftl_port_quiet;
