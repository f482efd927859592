// SPDX-License-Identifier: GPL-2.0
/* port_user.c - state of the user-space host hooks (see port_user.h). */
#include "ftl_port.h"

/* Set by tests that provoke errors on purpose, to keep their output clean. */
bool ftl_port_quiet;
unsigned long ftl_port_fail_alloc_in;
bool ftl_port_warn_continues;
unsigned long ftl_port_warnings;

void *ftl_port_zalloc(size_t bytes)
{
	if (ftl_port_fail_alloc_in && --ftl_port_fail_alloc_in == 0)
		return NULL;
	return calloc(1, bytes);
}
