// SPDX-License-Identifier: GPL-2.0
/* Instantiates the ftlblk tracepoints declared in trace.h. */
#define CREATE_TRACE_POINTS
#include "trace.h"

/* ftlblk_request and ftlblk_complete print these operations by number. */
static_assert((__force unsigned int)REQ_OP_READ == 0);
static_assert((__force unsigned int)REQ_OP_WRITE == 1);
static_assert((__force unsigned int)REQ_OP_FLUSH == 2);
static_assert((__force unsigned int)REQ_OP_DISCARD == 3);
static_assert((__force unsigned int)REQ_OP_SECURE_ERASE == 5);
static_assert((__force unsigned int)REQ_OP_WRITE_ZEROES == 9);
