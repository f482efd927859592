// SPDX-License-Identifier: GPL-2.0
/*
 * Completing requests: every request ends in ftlblk_end_request(), at
 * once, or with timing=1 no earlier than the flash the portable NAND model
 * (../ftl/timing.c) describes would complete it, so garbage collection
 * costs the host time, as on a real SSD.
 *
 * The model's clock is ktime (CLOCK_MONOTONIC, ns). queue_rq stamps each
 * request's arrival; the request then runs as it does with timing=0 (in
 * RAM, at once), and every flash operation it causes - its reads and
 * programs, and the relocations and erases of the GC it triggers - is
 * charged to the dies and channels of the model in the order the FTL
 * issues it. If the modeled completion lies in the future, an hrtimer
 * ends the request then (as null_blk's irqmode=2), else it ends now. On a
 * poll queue (poll_queues) the submitter polls instead (io_uring IOPOLL):
 * the request waits on its queue's list and ftlblk_poll() ends it once
 * its time has come, so no interrupt and no wake-up adds to its latency.
 *
 * With timing=0 none of this runs: each hook is one test of
 * dev->timing_on.
 *
 * Modeled times are bounded by what the host waits for, not by the model:
 * a power cut abandons the flash's pending work (ftl_timing_abort()) and
 * fails the requests waiting for it at once, removal ends them at once
 * (their work is done; only the wait is cut short), and a request still
 * waiting when blk-mq's timeout (queue/io_timeout, 30 s by default)
 * expires ends with BLK_STS_TIMEOUT, as a host gives up on a slow disk.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/spinlock.h>

#include "ftlblk.h"
#include "trace.h"

/**
 * ftlblk_timing_init() - set up the model of a device being created
 * @dev: device; dev->cfg set, the FTL not created yet
 *
 * Return: 0 or -ENOMEM (the configuration was checked before).
 */
int ftlblk_timing_init(struct ftlblk_dev *dev)
{
	const unsigned int *v = dev->cfg.val;
	struct ftl_timing_config tcfg = {
		.channels = v[FTLBLK_CHANNELS],
		.dies_per_channel = v[FTLBLK_DIES_PER_CHANNEL],
		.read_us = v[FTLBLK_READ_US],
		.program_us = v[FTLBLK_PROGRAM_US],
		.erase_us = v[FTLBLK_ERASE_US],
		.channel_mbps = v[FTLBLK_CHANNEL_MBPS],
		.page_size = v[FTLBLK_PAGE_SIZE],
		.pages_per_block = v[FTLBLK_PAGES_PER_BLOCK],
	};

	spin_lock_init(&dev->timing_lock);
	dev->timing_on = v[FTLBLK_TIMING];
	if (!dev->timing_on)
		return 0;
	return ftl_timing_init(&dev->timing, &tcfg);
}

/**
 * ftlblk_timing_exit() - free the model
 * @dev: device that takes no more requests
 */
void ftlblk_timing_exit(struct ftlblk_dev *dev)
{
	if (dev->timing_on)
		ftl_timing_free(&dev->timing);
}

/* Ends a request whose modeled completion time has come (hard irq). */
static enum hrtimer_restart ftlblk_timer_expired(struct hrtimer *timer)
{
	struct ftlblk_cmd *cmd = container_of(timer, struct ftlblk_cmd, timer);
	struct request *rq = blk_mq_rq_from_pdu(cmd);
	struct ftlblk_dev *dev = rq->q->queuedata;

	blk_mq_end_request(rq, ftlblk_final_status(dev, rq, cmd->sts));
	return HRTIMER_NORESTART;
}

/**
 * ftlblk_timing_init_cmd() - prepare a request's timer once
 * @cmd: the request's PDU
 */
void ftlblk_timing_init_cmd(struct ftlblk_cmd *cmd)
{
	ftlblk_compat_hrtimer_setup(&cmd->timer, ftlblk_timer_expired,
				    CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	INIT_LIST_HEAD(&cmd->poll_entry);
	cmd->poll_waiting = false;
}

/* @rq waits on its poll queue until ftlblk_poll() finds it due. */
static void poll_wait(struct request *rq)
{
	struct ftlblk_pollq *pq = rq->mq_hctx->driver_data;
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);

	spin_lock(&pq->lock);
	list_add_tail(&cmd->poll_entry, &pq->list);
	cmd->poll_waiting = true;
	spin_unlock(&pq->lock);
}

/*
 * Take @rq from whatever would end it at its modeled time (its timer, or
 * its poll queue). Return: true if it was waiting there: the caller ends
 * it now.
 */
static bool stop_waiting(struct request *rq)
{
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct ftlblk_pollq *pq;
	bool waiting;

	if (rq->mq_hctx->type != HCTX_TYPE_POLL)
		return hrtimer_try_to_cancel(&cmd->timer) == 1;
	pq = rq->mq_hctx->driver_data;
	spin_lock(&pq->lock);
	waiting = cmd->poll_waiting;
	if (waiting) {
		list_del_init(&cmd->poll_entry);
		cmd->poll_waiting = false;
	}
	spin_unlock(&pq->lock);
	return waiting;
}

/**
 * ftlblk_poll() - end the requests of a poll queue whose time has come
 * @hctx: a poll queue (HCTX_TYPE_POLL)
 * @iob: completion batch (not used: each request ends on its own)
 *
 * Called by blk-mq for a submitter that polls (io_uring IOPOLL), in its
 * task, over and over until something completes. Only timed requests
 * wait on the list: with timing=0 it is always empty (requests end in
 * queue_rq or on ftlblk_wq).
 *
 * Return: how many requests it ended.
 */
int ftlblk_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct ftlblk_dev *dev = hctx->queue->queuedata;
	struct ftlblk_pollq *pq = hctx->driver_data;
	struct ftlblk_cmd *cmd, *next;
	LIST_HEAD(due);
	int nr = 0;
	u64 now;

	/* A stale answer only defers a request to the next poll. */
	if (list_empty_careful(&pq->list))
		return 0;
	now = ktime_get_ns();
	spin_lock(&pq->lock);
	list_for_each_entry_safe(cmd, next, &pq->list, poll_entry) {
		if (cmd->treq.done > now)
			continue;
		list_move_tail(&cmd->poll_entry, &due);
		cmd->poll_waiting = false;
	}
	spin_unlock(&pq->lock);
	list_for_each_entry_safe(cmd, next, &due, poll_entry) {
		struct request *rq = blk_mq_rq_from_pdu(cmd);

		list_del_init(&cmd->poll_entry);
		blk_mq_end_request(rq, ftlblk_final_status(dev, rq, cmd->sts));
		nr++;
	}
	return nr;
}

/**
 * ftlblk_timing_start() - the request arrives now
 * @dev: device
 * @rq: request, just started
 */
void ftlblk_timing_start(struct ftlblk_dev *dev, struct request *rq)
{
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);

	if (dev->timing_on)
		ftl_timing_req_start(&cmd->treq, ktime_get_ns());
}

/**
 * ftlblk_timing_reads() - charge host reads of @n mapped pages
 * @dev: device, no shard's lock needed
 * @treq: the reading request
 * @ppns: physical pages read
 * @n: entries in @ppns
 */
void ftlblk_timing_reads(struct ftlblk_dev *dev, struct ftl_timing_req *treq,
			 const u32 *ppns, unsigned int n)
{
	unsigned int i;

	if (!dev->timing_on || !n)
		return;
	spin_lock(&dev->timing_lock);
	for (i = 0; i < n; i++)
		ftl_timing_host_read(&dev->timing, treq, ppns[i]);
	spin_unlock(&dev->timing_lock);
}

/**
 * ftlblk_timing_program() - charge the host program of @ppn
 * @dev: device, the shard's lock held
 * @treq: the writing request
 * @ppn: physical page ftl_write() chose, in the device's numbering
 */
void ftlblk_timing_program(struct ftlblk_dev *dev,
			   struct ftl_timing_req *treq, u32 ppn)
{
	if (!dev->timing_on)
		return;
	spin_lock(&dev->timing_lock);
	ftl_timing_host_program(&dev->timing, treq, ppn);
	spin_unlock(&dev->timing_lock);
}

/*
 * GC with no request to charge (ftlblk_reclaim_stale() at mem_limit_mib
 * with remanence=1) still occupies the dies, from now, as background GC.
 */
static struct ftl_timing_req *gc_request(struct ftl_timing_req *treq,
					 struct ftl_timing_req *spare)
{
	if (treq)
		return treq;
	ftl_timing_req_start(spare, ktime_get_ns());
	return spare;
}

/**
 * ftlblk_timing_relocate() - charge a GC or wear-leveling page copy to
 * the request that triggered it (FTL move callback)
 * @dev: device, the shard's lock held
 * @treq: the request whose write runs under it (&ftlblk_shard.treq), or
 *	NULL
 * @from: page read, in the device's numbering
 * @to: page programmed, in the device's numbering
 */
void ftlblk_timing_relocate(struct ftlblk_dev *dev,
			    struct ftl_timing_req *treq, u32 from, u32 to)
{
	struct ftl_timing_req spare;

	if (!dev->timing_on)
		return;
	spin_lock(&dev->timing_lock);
	ftl_timing_relocate(&dev->timing, gc_request(treq, &spare), from, to);
	spin_unlock(&dev->timing_lock);
}

/**
 * ftlblk_timing_erase() - charge a block erase (FTL erased callback)
 * @dev: device, the shard's lock held
 * @treq: as for ftlblk_timing_relocate()
 * @block: the block, in the device's numbering
 */
void ftlblk_timing_erase(struct ftlblk_dev *dev, struct ftl_timing_req *treq,
			 u32 block)
{
	struct ftl_timing_req spare;

	if (!dev->timing_on)
		return;
	spin_lock(&dev->timing_lock);
	ftl_timing_erase(&dev->timing, gc_request(treq, &spare), block);
	spin_unlock(&dev->timing_lock);
}

/* Flash pages a request's sectors touch. */
static unsigned int rq_flash_pages(struct ftlblk_dev *dev, struct request *rq)
{
	u64 first, last;

	if (!blk_rq_bytes(rq))
		return 0;
	first = div_u64(blk_rq_pos(rq), dev->sectors_per_page);
	last = div_u64(blk_rq_pos(rq) + blk_rq_sectors(rq) - 1,
		       dev->sectors_per_page);
	return last - first + 1;
}

/* The ftlblk_complete tracepoint; counting the flash pages is for it alone. */
static void ftlblk_trace_complete(struct ftlblk_dev *dev, struct request *rq,
				  u64 latency)
{
	if (trace_ftlblk_complete_enabled())
		trace_ftlblk_complete(dev->disk, rq, rq_flash_pages(dev, rq),
				      latency);
}

/**
 * ftlblk_end_request() - end a request now, or at its modeled completion
 * @dev: device
 * @rq: the request, fully served (its data copied, the FTL updated)
 * @sts: its status
 *
 * Any context that may end a request; does not sleep.
 */
void ftlblk_end_request(struct ftlblk_dev *dev, struct request *rq,
			blk_status_t sts)
{
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	bool wait;

	if (!dev->timing_on) {
		blk_mq_end_request(rq, ftlblk_final_status(dev, rq, sts));
		return;
	}
	/*
	 * Decide and arm under timing_lock, which ftlblk_timing_end_pending()
	 * takes after setting power_off or timers_cut: either it finds the
	 * timer armed (or the request on its poll queue), or this sees its
	 * flag. Once armed, the timer or the poller owns the request (it may
	 * end it, and the tag be reused, at once): nothing here touches it
	 * after.
	 */
	spin_lock(&dev->timing_lock);
	ftlblk_trace_complete(dev, rq,
			      ftl_timing_req_end(&dev->timing, &cmd->treq));
	wait = cmd->treq.done > ktime_get_ns() &&
	       !READ_ONCE(dev->power_off) && !dev->timers_cut;
	if (wait) {
		cmd->sts = sts;
		if (rq->mq_hctx->type == HCTX_TYPE_POLL)
			poll_wait(rq);
		else
			hrtimer_start(&cmd->timer, ns_to_ktime(cmd->treq.done),
				      HRTIMER_MODE_ABS);
	}
	spin_unlock(&dev->timing_lock);
	if (!wait)
		blk_mq_end_request(rq, ftlblk_final_status(dev, rq, sts));
}

/* Ends @rq at once if it waits for its modeled completion (tag iterator). */
static bool end_if_waiting(struct request *rq, void *data)
{
	struct ftlblk_dev *dev = data;
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);

	if (stop_waiting(rq))
		blk_mq_end_request(rq, ftlblk_final_status(dev, rq, cmd->sts));
	return true;
}

/**
 * ftlblk_timing_end_pending() - end every request waiting for the model
 * @dev: device whose power was just cut (power_off set), or that is being
 *	removed
 * @cut: a power cut: the flash's pending and booked work is abandoned too
 *
 * After a cut the waiting requests fail (ftlblk_final_status()); at
 * removal they complete with their status now, and so does every later
 * one. Process context.
 */
void ftlblk_timing_end_pending(struct ftlblk_dev *dev, bool cut)
{
	if (!dev->timing_on)
		return;
	/* Pairs with ftlblk_end_request(): see there. */
	spin_lock(&dev->timing_lock);
	if (cut)
		ftl_timing_abort(&dev->timing, ktime_get_ns());
	else
		dev->timers_cut = true;
	spin_unlock(&dev->timing_lock);
	blk_mq_tagset_busy_iter(&dev->tag_set, end_if_waiting, dev);
}

/**
 * ftlblk_timing_timeout() - blk-mq's timeout for @rq expired
 * @rq: request started longer ago than the queue's io_timeout
 *
 * A request waiting for its modeled completion ends now with
 * BLK_STS_TIMEOUT (its work is done, but the host gave up on it) and is
 * counted in ftl/timeouts. One whose modeled time has already come (on a
 * poll queue, its submitter has not polled since) was not late: it ends
 * with its own status. One still being served (a long discard on the
 * workqueue) or completing right now gets more time.
 *
 * Return: BLK_EH_DONE if @rq was ended, else BLK_EH_RESET_TIMER.
 */
enum blk_eh_timer_return ftlblk_timing_timeout(struct request *rq)
{
	struct ftlblk_dev *dev = rq->q->queuedata;
	struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);

	if (!dev->timing_on || !stop_waiting(rq))
		return BLK_EH_RESET_TIMER;
	if (cmd->treq.done <= ktime_get_ns()) {
		blk_mq_end_request(rq, ftlblk_final_status(dev, rq, cmd->sts));
		return BLK_EH_DONE;
	}
	ftlblk_count(dev, FTLBLK_PC_TIMEOUTS, 1);
	pr_warn_ratelimited("%s: request at sector %llu timed out waiting %llu ms for the modeled flash\n",
			    dev->disk->disk_name, (u64)blk_rq_pos(rq),
			    div_u64(cmd->treq.done - cmd->treq.arrival,
				    NSEC_PER_MSEC));
	blk_mq_end_request(rq, ftlblk_final_status(dev, rq, BLK_STS_TIMEOUT));
	return BLK_EH_DONE;
}

/**
 * ftlblk_timing_stats() - snapshot the model's counters
 * @dev: device
 * @st: filled in; all zero with timing=0
 */
void ftlblk_timing_stats(struct ftlblk_dev *dev, struct ftl_timing_stats *st)
{
	if (!dev->timing_on) {
		memset(st, 0, sizeof(*st));
		return;
	}
	spin_lock(&dev->timing_lock);
	*st = dev->timing.st;
	spin_unlock(&dev->timing_lock);
}

/**
 * ftlblk_timing_reset_stats() - zero the counters (not the dies' state)
 * @dev: device
 */
void ftlblk_timing_reset_stats(struct ftlblk_dev *dev)
{
	u64 last;

	if (!dev->timing_on)
		return;
	spin_lock(&dev->timing_lock);
	last = dev->timing.st.last_done_ns;
	memset(&dev->timing.st, 0, sizeof(dev->timing.st));
	dev->timing.st.last_done_ns = last;
	spin_unlock(&dev->timing_lock);
}
