// SPDX-License-Identifier: GPL-2.0
/*
 * End of life seen from the block device: the FTL core fails programs and
 * erases (program_fail_ppm, erase_fail_ppm, endurance), retires blocks and
 * at last turns read-only; this file turns that into what a worn-out SSD
 * shows the host. The disk is marked read-only (set_disk_ro,
 * so mount and BLKROGET see it), one kernel log line names the device and
 * says why, and from then on every write, discard and write-zeroes fails
 * with BLK_STS_IOERR (-EIO, what ext4 and XFS handle as a device error)
 * while reads return every acknowledged write.
 */
#include <linux/blkdev.h>
#include <linux/printk.h>
#include <linux/workqueue.h>

#include "ftlblk.h"
#include "trace.h"

/* Process context: set_disk_ro() sends a uevent, which allocates. */
static void ftlblk_read_only_work(struct work_struct *work)
{
	struct ftlblk_dev *dev = container_of(work, struct ftlblk_dev,
					      ro_work);
	struct ftl_stats st;

	ftlblk_ftl_stats(dev, &st, NULL);
	set_disk_ro(dev->disk, true);
	if (st.read_only == FTL_READ_ONLY_WORN_OUT)
		pr_err("%s: flash worn out, device is now read-only: %llu bad blocks, %llu spare blocks left, %llu free; data stays readable\n",
		       dev->disk->disk_name, st.bad_blocks, st.spare_blocks,
		       st.free_blocks);
	else
		pr_err("%s: FTL invariant broken, device is now read-only to protect its data\n",
		       dev->disk->disk_name);
}

/**
 * ftlblk_wearout_check() - act once on a shard's FTL turning read-only:
 * the whole device is then (an SSD is worn out when one of its parts is)
 * @sh: shard, its lock held (after an ftl_write())
 */
void ftlblk_wearout_check(struct ftlblk_shard *sh)
{
	struct ftlblk_dev *dev = sh->dev;

	lockdep_assert_held(&sh->lock);
	if (likely(!ftl_read_only(sh->ftl)) || atomic_read(&dev->read_only_noted))
		return;
	/* Shards check under their own locks: only one may schedule. */
	if (atomic_xchg(&dev->read_only_noted, 1))
		return;
	schedule_work(&dev->ro_work);
}

/**
 * ftlblk_block_retired() - the FTL retired a block (ftl_ops.retired)
 * @ctx: the shard
 * @block: physical block in the shard
 * @erase_count: its erase count
 */
void ftlblk_block_retired(void *ctx, u32 block, u32 erase_count)
{
	struct ftlblk_shard *sh = ctx;

	trace_ftlblk_bad_block(sh->dev->disk, sh->first_block + block,
			       erase_count);
}

/**
 * ftlblk_wearout_init() - prepare a new device
 * @dev: device
 */
void ftlblk_wearout_init(struct ftlblk_dev *dev)
{
	INIT_WORK(&dev->ro_work, ftlblk_read_only_work);
}

/**
 * ftlblk_wearout_exit() - wait for the read-only work; no request runs now
 * @dev: device
 */
void ftlblk_wearout_exit(struct ftlblk_dev *dev)
{
	cancel_work_sync(&dev->ro_work);
}
