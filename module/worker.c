// SPDX-License-Identifier: GPL-2.0
/*
 * ftlblk_wq: the requests queue_rq must not serve itself, because they may
 * sleep or take long: discards beyond one unmap batch or of partial pages
 * and every write-zeroes (discard.c), every secure erase (secure_erase.c),
 * a flush with cached updates to write back (power.c), and a write that
 * found no memory without waiting (rw.c). They may allocate with GFP_NOIO
 * and reschedule between batches, so reads and writes keep flowing beside
 * them. ftlblk_wq is WQ_MEM_RECLAIM: under memory pressure its rescuer
 * still runs it, which a device holding swap needs, and GFP_NOIO lets it
 * wait for reclaim without recursing into block I/O.
 */
#include <linux/blk-mq.h>
#include <linux/workqueue.h>

#include "ftlblk.h"

/* Delay before a request requeued for memory runs again, ms. */
#define FTLBLK_REQUEUE_MS	3

static struct workqueue_struct *ftlblk_wq;

/* Serve a request queued on ftlblk_wq, or requeue it for memory. */
static void ftlblk_work(struct work_struct *work)
{
	struct ftlblk_cmd *cmd = container_of(work, struct ftlblk_cmd, work);
	struct request *rq = blk_mq_rq_from_pdu(cmd);
	struct ftlblk_dev *dev = rq->q->queuedata;
	blk_status_t sts;

	if (req_op(rq) == REQ_OP_DISCARD)
		sts = ftlblk_discard(dev, rq);
	else if (req_op(rq) == REQ_OP_FLUSH)
		sts = ftlblk_cache_flush(dev, rq);
	else if (req_op(rq) == REQ_OP_WRITE)
		sts = ftlblk_rw(dev, rq, true, GFP_NOIO);
	else if (req_op(rq) == REQ_OP_SECURE_ERASE)
		sts = ftlblk_secure_erase(dev, rq);
	else
		sts = ftlblk_write_zeroes(dev, rq);
	/*
	 * No memory even after reclaim: let blk-mq try again a little later
	 * (at once could spin while the shortage lasts).
	 */
	if (sts == BLK_STS_RESOURCE) {
		blk_mq_requeue_request(rq, false);
		blk_mq_delay_kick_requeue_list(rq->q, FTLBLK_REQUEUE_MS);
	} else {
		ftlblk_end_request(dev, rq, sts);
	}
}

/**
 * ftlblk_queue_work() - serve a started request on ftlblk_wq
 * @cmd: its PDU; a discard, write-zeroes, secure erase or flush, or a write
 *	that found no memory without waiting
 */
void ftlblk_queue_work(struct ftlblk_cmd *cmd)
{
	queue_work(ftlblk_wq, &cmd->work);
}

/**
 * ftlblk_flush_work() - wait for every work item queued so far to finish
 */
void ftlblk_flush_work(void)
{
	flush_workqueue(ftlblk_wq);
}

/**
 * ftlblk_init_cmd() - prepare a request's driver data once
 * @cmd: the request's PDU
 */
void ftlblk_init_cmd(struct ftlblk_cmd *cmd)
{
	INIT_WORK(&cmd->work, ftlblk_work);
}

/**
 * ftlblk_worker_init() - create ftlblk_wq
 *
 * WQ_MEM_RECLAIM: a device that may hold swap must make progress when
 * the system is short of memory.
 *
 * Return: 0 or -ENOMEM.
 */
int ftlblk_worker_init(void)
{
	ftlblk_wq = alloc_workqueue("ftlblk", WQ_MEM_RECLAIM | FTLBLK_WQ_PERCPU, 0);
	return ftlblk_wq ? 0 : -ENOMEM;
}

/** ftlblk_worker_exit() - destroy ftlblk_wq (no device is left) */
void ftlblk_worker_exit(void)
{
	destroy_workqueue(ftlblk_wq);
}
