/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftlblk tracepoints: what the flash translation layer does with each
 * discard range, garbage-collection victim and erase, and with timing=1
 * each request's modeled latency. Usable through
 * tracefs (events/ftlblk/) and perf (-e 'ftlblk:*').
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ftlblk

#if !defined(_TRACE_FTLBLK_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_FTLBLK_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/tracepoint.h>

#include "compat.h"
#include "ftl.h"

TRACE_EVENT(ftlblk_discard,
	    TP_PROTO(struct gendisk *disk, sector_t sector, u64 nr_sectors),
	    TP_ARGS(disk, sector, nr_sectors),
	    TP_STRUCT__entry(__string(disk, disk->disk_name)
			     __field(sector_t, sector)
			     __field(u64, nr_sectors)),
	    TP_fast_assign(ftlblk_assign_str(disk, disk->disk_name);
			   __entry->sector = sector;
			   __entry->nr_sectors = nr_sectors;),
	    TP_printk("%s sector=%llu nr_sectors=%llu", __get_str(disk),
		      (unsigned long long)__entry->sector, __entry->nr_sectors)
);

TRACE_DEFINE_ENUM(FTL_COLLECT_GC);
TRACE_DEFINE_ENUM(FTL_COLLECT_WEAR_LEVELING);
TRACE_DEFINE_ENUM(FTL_COLLECT_SECURE_ERASE);

/* A block reclaimed: why (enum ftl_collect_reason), pages relocated. */
TRACE_EVENT(ftlblk_gc,
	    TP_PROTO(struct gendisk *disk, u32 block, u32 relocated,
		     unsigned int reason),
	    TP_ARGS(disk, block, relocated, reason),
	    TP_STRUCT__entry(__string(disk, disk->disk_name)
			     __field(u32, block)
			     __field(u32, relocated)
			     __field(u8, reason)),
	    TP_fast_assign(ftlblk_assign_str(disk, disk->disk_name);
			   __entry->block = block;
			   __entry->relocated = relocated;
			   __entry->reason = reason;),
	    TP_printk("%s block=%u relocated=%u reason=%s", __get_str(disk),
		      __entry->block, __entry->relocated,
		      __print_symbolic(__entry->reason,
				       { FTL_COLLECT_GC, "gc" },
				       { FTL_COLLECT_WEAR_LEVELING, "wear-leveling" },
				       { FTL_COLLECT_SECURE_ERASE, "secure-erase" }))
);

/* A block and its erase count: after an erase, or as it is retired. */
DECLARE_EVENT_CLASS(ftlblk_block,
		    TP_PROTO(struct gendisk *disk, u32 block, u32 erase_count),
		    TP_ARGS(disk, block, erase_count),
		    TP_STRUCT__entry(__string(disk, disk->disk_name)
				     __field(u32, block)
				     __field(u32, erase_count)),
		    TP_fast_assign(ftlblk_assign_str(disk, disk->disk_name);
				   __entry->block = block;
				   __entry->erase_count = erase_count;),
		    TP_printk("%s block=%u erase_count=%u", __get_str(disk),
			      __entry->block, __entry->erase_count)
);

DEFINE_EVENT(ftlblk_block, ftlblk_erase,
	     TP_PROTO(struct gendisk *disk, u32 block, u32 erase_count),
	     TP_ARGS(disk, block, erase_count));

DEFINE_EVENT(ftlblk_block, ftlblk_bad_block,
	     TP_PROTO(struct gendisk *disk, u32 block, u32 erase_count),
	     TP_ARGS(disk, block, erase_count));

/* Flags of ftlblk_request, in its "flags=" field. */
#define FTLBLK_TRACE_FUA	0x1	/* REQ_FUA */
#define FTLBLK_TRACE_PREFLUSH	0x2	/* REQ_PREFLUSH */
#define FTLBLK_TRACE_UNMAP	0x4	/* write-zeroes served by unmapping */
#define FTLBLK_TRACE_ATOMIC	0x8	/* REQ_ATOMIC: all of it or none */

/*
 * Every request the device accepts (the power on, the range good), in
 * queue_rq's order, as the device sees it: its own op names, so a
 * write-zeroes or a secure erase is not a write or a discard as in
 * blktrace (which before 7.0 shows write-zeroes as a write and from 7.0
 * drops it from version-1 traces), and a write's placement class (0
 * for every other request). ftlsim replays it (--trace-format ftlblk).
 */
TRACE_EVENT(ftlblk_request,
	    TP_PROTO(struct gendisk *disk, struct request *rq,
		     unsigned int flags, unsigned int cls),
	    TP_ARGS(disk, rq, flags, cls),
	    TP_STRUCT__entry(__string(disk, disk->disk_name)
			     __field(sector_t, sector)
			     __field(unsigned int, nr_sectors)
			     __field(unsigned int, op)
			     __field(unsigned int, flags)
			     __field(unsigned int, cls)),
	    TP_fast_assign(ftlblk_assign_str(disk, disk->disk_name);
			   __entry->sector = blk_rq_pos(rq);
			   __entry->nr_sectors = blk_rq_sectors(rq);
			   __entry->op = (__force unsigned int)req_op(rq);
			   __entry->flags = flags;
			   __entry->cls = cls;),
	    TP_printk("%s op=%s sector=%llu nr_sectors=%u flags=%s class=%u",
		      __get_str(disk),
		      __print_symbolic(__entry->op, { 0, "read" },
				       { 1, "write" }, { 2, "flush" },
				       { 3, "discard" }, { 5, "secure-erase" },
				       { 9, "write-zeroes" }),
		      (unsigned long long)__entry->sector, __entry->nr_sectors,
		      __print_flags(__entry->flags, "|",
				    { FTLBLK_TRACE_FUA, "fua" },
				    { FTLBLK_TRACE_PREFLUSH, "preflush" },
				    { FTLBLK_TRACE_UNMAP, "unmap" },
				    { FTLBLK_TRACE_ATOMIC, "atomic" }),
		      __entry->cls)
);

/*
 * With timing=1: a request's modeled latency, from queue_rq to the
 * completion of its last flash operation (the request ends then, or at
 * once if that time has passed).
 */
TRACE_EVENT(ftlblk_complete,
	    TP_PROTO(struct gendisk *disk, struct request *rq,
		     unsigned int pages, u64 latency_ns),
	    TP_ARGS(disk, rq, pages, latency_ns),
	    TP_STRUCT__entry(__string(disk, disk->disk_name)
			     __field(sector_t, sector)
			     __field(unsigned int, nr_sectors)
			     __field(unsigned int, op)
			     __field(unsigned int, pages)
			     __field(u64, latency_ns)),
	    TP_fast_assign(ftlblk_assign_str(disk, disk->disk_name);
			   __entry->sector = blk_rq_pos(rq);
			   __entry->nr_sectors = blk_rq_sectors(rq);
			   __entry->op = (__force unsigned int)req_op(rq);
			   __entry->pages = pages;
			   __entry->latency_ns = latency_ns;),
	    TP_printk("%s op=%s sector=%llu nr_sectors=%u pages=%u latency_ns=%llu",
		      __get_str(disk),
		      /* REQ_OP_* as numbers, which perf can decode */
		      __print_symbolic(__entry->op, { 0, "read" },
				       { 1, "write" }, { 2, "flush" },
				       { 3, "discard" }, { 9, "write-zeroes" }),
		      (unsigned long long)__entry->sector, __entry->nr_sectors,
		      __entry->pages, __entry->latency_ns)
);

#endif /* _TRACE_FTLBLK_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace

/* This part must be outside protection */
#include <trace/define_trace.h>
