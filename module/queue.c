// SPDX-License-Identifier: GPL-2.0
/*
 * blk-mq's side of a device: queue_rq, which traces each request it
 * accepts (ftlblk_request, when enabled) and serves it or hands it to the
 * worker (worker.c), never sleeping; each request's driver data;
 * and the queue maps (the default queues, then the poll queues).
 *
 * What runs where: reads, writes and quick discards (whole flash pages,
 * one unmap batch at most) in queue_rq, in the submitter's task; a write
 * that finds no memory without waiting, every write-zeroes, a discard with
 * partial pages or more than a batch, and a flush with cached updates to
 * write back on ftlblk_wq; completions at once or at the modeled NAND time
 * (complete.c).
 */
#include <linux/blk-mq.h>

#include "ftlblk.h"
#include "trace.h"

/* ftlblk_request: what the device was asked to do, as it will do it. */
static void trace_request(struct ftlblk_dev *dev, struct request *rq)
{
	unsigned int flags = 0;

	if (rq->cmd_flags & REQ_FUA)
		flags |= FTLBLK_TRACE_FUA;
	if (rq->cmd_flags & REQ_PREFLUSH)
		flags |= FTLBLK_TRACE_PREFLUSH;
	if (req_op(rq) == REQ_OP_WRITE_ZEROES && ftlblk_zeroes_unmap(dev, rq))
		flags |= FTLBLK_TRACE_UNMAP;
	if (ftlblk_rq_atomic(rq))
		flags |= FTLBLK_TRACE_ATOMIC;
	trace_ftlblk_request(dev->disk, rq, flags,
			     req_op(rq) == REQ_OP_WRITE ?
			     ftlblk_rq_class(dev, rq) : 0);
}

static blk_status_t ftlblk_queue_rq(struct blk_mq_hw_ctx *hctx,
				    const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct ftlblk_dev *dev = hctx->queue->queuedata;
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	blk_status_t sts;

	blk_mq_start_request(rq);
	ftlblk_timing_start(dev, rq);
	cmd->gen = READ_ONCE(dev->cuts_seen);
	/*
	 * The power cycle, then power_off (a cut sets them the other way
	 * round, with smp_wmb()): a request that finds the power on has
	 * the cycle it runs in, or an older one, which only fails it.
	 */
	smp_rmb();
	/* Power cut: a disconnected disk answers nothing. */
	if (READ_ONCE(dev->power_off) || ftlblk_bad_sectors(dev, rq)) {
		blk_mq_end_request(rq, ftlblk_final_status(dev, rq,
							   BLK_STS_IOERR));
		return BLK_STS_OK;
	}
	if (trace_ftlblk_request_enabled())
		trace_request(dev, rq);
	switch (req_op(rq)) {
	case REQ_OP_READ:
		sts = ftlblk_rw(dev, rq, false, GFP_NOWAIT);
		break;
	case REQ_OP_WRITE:
		sts = ftlblk_rw(dev, rq, true, GFP_NOWAIT);
		/*
		 * No memory without waiting, nothing written: the worker
		 * (WQ_MEM_RECLAIM, so it runs under memory pressure too)
		 * may wait for reclaim, which swap on ftlblk needs (at
		 * mem_limit_mib it is BLK_STS_NOSPC, ended below).
		 */
		if (sts == BLK_STS_RESOURCE) {
			ftlblk_count(dev, FTLBLK_PC_NOMEM_WRITES, 1);
			ftlblk_queue_work(cmd);
			return BLK_STS_OK;
		}
		break;
	case REQ_OP_FLUSH:
		/* Writing back the cache may take long: on the workqueue. */
		if (ftlblk_cache_flush_needed(dev)) {
			ftlblk_queue_work(cmd);
			return BLK_STS_OK;
		}
		sts = BLK_STS_OK;
		break;
	case REQ_OP_DISCARD:
		if (!ftlblk_discard_is_quick(dev, rq)) {
			ftlblk_queue_work(cmd);
			return BLK_STS_OK;
		}
		sts = ftlblk_discard(dev, rq);
		break;
	case REQ_OP_WRITE_ZEROES:
		ftlblk_queue_work(cmd);
		return BLK_STS_OK;
	case REQ_OP_SECURE_ERASE:
		/* Advertised only with secure_erase=1. */
		if (!dev->cfg.val[FTLBLK_SECURE_ERASE]) {
			sts = BLK_STS_NOTSUPP;
			break;
		}
		ftlblk_queue_work(cmd);
		return BLK_STS_OK;
	default:
		sts = BLK_STS_NOTSUPP;
		break;
	}
	ftlblk_end_request(dev, rq, sts);
	return BLK_STS_OK;
}

static int ftlblk_init_request(struct blk_mq_tag_set *set, struct request *rq,
			       unsigned int hctx_idx, ftlblk_numa_node_t numa_node)
{
	ftlblk_init_cmd(blk_mq_rq_to_pdu(rq));
	ftlblk_timing_init_cmd(blk_mq_rq_to_pdu(rq));
	return 0;
}

/* Each hardware queue's poll list (used on the poll queues only). */
static int ftlblk_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			    unsigned int hctx_idx)
{
	struct ftlblk_dev *dev = data;

	hctx->driver_data = dev->pollqs ? &dev->pollqs[hctx_idx] : NULL;
	return 0;
}

/*
 * submit_queues default queues, then poll_queues poll queues (as
 * null_blk maps them); no separate read queues.
 */
static void ftlblk_map_queues(struct blk_mq_tag_set *set)
{
	struct ftlblk_dev *dev = set->driver_data;
	unsigned int poll = dev->cfg.val[FTLBLK_POLL_QUEUES];
	unsigned int i, offset = 0;

	for (i = 0; i < set->nr_maps; i++) {
		struct blk_mq_queue_map *map = &set->map[i];

		if (i == HCTX_TYPE_DEFAULT)
			map->nr_queues = set->nr_hw_queues - poll;
		else
			map->nr_queues = i == HCTX_TYPE_POLL ? poll : 0;
		if (!map->nr_queues)
			continue;
		map->queue_offset = offset;
		offset += map->nr_queues;
		blk_mq_map_queues(map);
	}
}

/* What blk-mq calls for a device (device.c sets it in the tag set). */
const struct blk_mq_ops ftlblk_mq_ops = {
	.queue_rq = ftlblk_queue_rq,
	.init_request = ftlblk_init_request,
	.init_hctx = ftlblk_init_hctx,
	.map_queues = ftlblk_map_queues,
	.poll = ftlblk_poll,
	.timeout = ftlblk_timing_timeout,
};
