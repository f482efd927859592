/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces that changed between the kernels ftlblk supports
 * (6.1 LTS, and 6.12 up to the newest tested 7.x), in one place: the rest of
 * the driver is written against the current interface. Each change names
 * the release that made it. Kernels 6.2 to 6.11 are refused: they are in no
 * supported Debian release and nothing here is tested on them.
 */
#ifndef FTLBLK_COMPAT_H
#define FTLBLK_COMPAT_H

#include <linux/badblocks.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/version.h>
#include <linux/workqueue.h>

#define FTLBLK_KERNEL_NEW (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0) || \
	(!FTLBLK_KERNEL_NEW && LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0))
#error "ftlblk supports Linux 6.1 and 6.12 or newer"
#endif

/*
 * Queue limits: since 6.9 a driver fills one struct queue_limits and
 * passes it to blk_mq_alloc_disk(); 6.11 moved the write cache, FUA and
 * the rotational flag into its features (a queue is non-rotational unless
 * it says otherwise, and adds no entropy). On 6.1 the same values go in
 * through the setters of that time.
 */
static inline struct gendisk *
ftlblk_compat_alloc_disk(struct blk_mq_tag_set *set,
			 struct queue_limits *lim, bool write_cache, void *data)
{
#if FTLBLK_KERNEL_NEW
	if (write_cache)
		lim->features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
	return blk_mq_alloc_disk(set, lim, data);
#else
	struct gendisk *disk = blk_mq_alloc_disk(set, data);
	struct request_queue *q;

	if (IS_ERR(disk))
		return disk;
	q = disk->queue;
	blk_queue_logical_block_size(q, lim->logical_block_size);
	blk_queue_physical_block_size(q, lim->physical_block_size);
	blk_queue_io_min(q, lim->io_min);
	blk_queue_io_opt(q, lim->io_opt);
	blk_queue_max_hw_sectors(q, lim->max_hw_sectors);
	blk_queue_max_segments(q, lim->max_segments);
	blk_queue_max_segment_size(q, lim->max_segment_size);
	blk_queue_max_write_zeroes_sectors(q, lim->max_write_zeroes_sectors);
	blk_queue_max_secure_erase_sectors(q, lim->max_secure_erase_sectors);
	q->limits.discard_granularity = lim->discard_granularity;
	blk_queue_max_discard_sectors(q, lim->max_hw_discard_sectors);
	if (lim->max_discard_segments)
		blk_queue_max_discard_segments(q, lim->max_discard_segments);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);
	blk_queue_write_cache(q, write_cache, write_cache);
	return disk;
#endif
}

/*
 * 6.17 (0c40d7cb5ef3): write-zeroes that may deallocate is advertised on
 * its own, and must equal max_write_zeroes_sectors; before, the kernel
 * has no such limit (FALLOC_FL_WRITE_ZEROES does not exist).
 */
static inline void ftlblk_compat_wzeroes_unmap(struct queue_limits *lim)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	lim->max_hw_wzeroes_unmap_sectors = lim->max_write_zeroes_sectors;
#endif
}

/*
 * Data placement: 6.9 (449813515d3e) gives bios a write lifetime hint
 * again (bi_write_hint, from F_SET_RW_HINT on the file); 6.16 adds write
 * streams (bi_write_stream, queue limit max_write_streams). A kernel
 * without them never tells the driver, so the placement that needs them
 * is refused (config.c).
 */
#define FTLBLK_HAVE_WRITE_HINTS (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0))
#define FTLBLK_HAVE_WRITE_STREAMS \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0))

/* @rq's write lifetime hint (RWH_WRITE_LIFE_*), 0 where bios have none. */
static inline unsigned int ftlblk_rq_write_hint(struct request *rq)
{
#if FTLBLK_HAVE_WRITE_HINTS
	return rq->bio ? rq->bio->bi_write_hint : 0;
#else
	return 0;
#endif
}

/* @rq's write stream, 0 for none or where the kernel has no streams. */
static inline unsigned int ftlblk_rq_write_stream(struct request *rq)
{
#if FTLBLK_HAVE_WRITE_STREAMS
	return rq->bio ? rq->bio->bi_write_stream : 0;
#else
	return 0;
#endif
}

/* Advertise @streams write streams of @granularity bytes (6.16+). */
static inline void ftlblk_compat_write_streams(struct queue_limits *lim,
					       unsigned int streams,
					       unsigned int granularity)
{
#if FTLBLK_HAVE_WRITE_STREAMS
	lim->max_write_streams = streams;
	lim->write_stream_granularity = streams ? granularity : 0;
#endif
}

/*
 * Atomic writes: 6.11 (9da3d1e912f3) gives the queue limits
 * atomic_write_hw_* and requests REQ_ATOMIC; from 6.14 (6a7e17b22062) the
 * limits count only with BLK_FEAT_ATOMIC_WRITES (else the block layer
 * zeroes them). An older kernel never sends an atomic write: a non-zero
 * atomic_write_max_kib is refused there (config.c), and the default is 0.
 */
#define FTLBLK_HAVE_ATOMIC_WRITES \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0))
#define FTLBLK_ATOMIC_DEFAULT_KIB	(FTLBLK_HAVE_ATOMIC_WRITES ? 64 : 0)

/* An atomic write the device cannot take whole (EINVAL; 6.11). */
#ifdef BLK_STS_INVAL
#define FTLBLK_STS_ATOMIC_TOO_BIG	BLK_STS_INVAL
#else
#define FTLBLK_STS_ATOMIC_TOO_BIG	BLK_STS_IOERR
#endif

/* Is @rq an atomic write (REQ_ATOMIC)? Never before 6.11. */
static inline bool ftlblk_rq_atomic(struct request *rq)
{
#if FTLBLK_HAVE_ATOMIC_WRITES
	return rq->cmd_flags & REQ_ATOMIC;
#else
	return false;
#endif
}

/*
 * Advertise atomic writes of one logical block (@unit_min bytes) up to
 * @max bytes, none crossing a multiple of @boundary bytes; @max 0 = none.
 */
static inline void ftlblk_compat_atomic_writes(struct queue_limits *lim,
					       unsigned int max,
					       unsigned int unit_min,
					       unsigned int boundary)
{
#if FTLBLK_HAVE_ATOMIC_WRITES
	if (!max)
		return;
	lim->atomic_write_hw_max = max;
	lim->atomic_write_hw_unit_min = unit_min;
	lim->atomic_write_hw_unit_max = max;
	lim->atomic_write_hw_boundary = boundary;
#ifdef BLK_FEAT_ATOMIC_WRITES
	lim->features |= BLK_FEAT_ATOMIC_WRITES;
#endif
#endif
}

/*
 * 6.5: block_device_operations.open takes the disk and a blk_mode_t;
 * FTLBLK_OPEN_DISK(arg) is the disk of its first argument.
 */
#if FTLBLK_KERNEL_NEW
#define ftlblk_open_arg_t struct gendisk
#define ftlblk_open_mode_t blk_mode_t
#define FTLBLK_OPEN_DISK(arg) (arg)
#else
#define ftlblk_open_arg_t struct block_device
#define ftlblk_open_mode_t fmode_t
#define FTLBLK_OPEN_DISK(arg) ((arg)->bd_disk)
#endif

/* 6.10: __assign_str() takes the source from the __string() field. */
#if FTLBLK_KERNEL_NEW
#define ftlblk_assign_str(dst, src) __assign_str(dst)
#else
#define ftlblk_assign_str(dst, src) __assign_str(dst, src)
#endif

/* 6.14: blk-mq merges bios for every queue; the flag is gone. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#define FTLBLK_MQ_F_MERGE 0
#else
#define FTLBLK_MQ_F_MERGE BLK_MQ_F_SHOULD_MERGE
#endif

/* 7.2: init_request's NUMA node is an int (NUMA_NO_NODE is -1). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
#define ftlblk_numa_node_t int
#else
#define ftlblk_numa_node_t unsigned int
#endif

/* 6.13: hrtimer_setup() sets the callback; 6.15 removed hrtimer_init(). */
static inline void
ftlblk_compat_hrtimer_setup(struct hrtimer *timer,
			    enum hrtimer_restart (*fn)(struct hrtimer *),
			    clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * Opening a block device exclusively (ftlblk_conform): 6.9 returns a
 * struct file (bdev_file_open_by_path()); 6.1 took an fmode_t and returned
 * the block_device.
 */
struct ftlblk_bdev_handle {
	struct block_device *bdev;
#if FTLBLK_KERNEL_NEW
	struct file *file;
#endif
};

static inline int ftlblk_compat_open_bdev(const char *path, void *holder,
					  struct ftlblk_bdev_handle *h)
{
#if FTLBLK_KERNEL_NEW
	h->file = bdev_file_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE,
					 holder, NULL);
	if (IS_ERR(h->file))
		return PTR_ERR(h->file);
	h->bdev = file_bdev(h->file);
#else
	h->bdev = blkdev_get_by_path(path, FMODE_READ | FMODE_WRITE |
				     FMODE_EXCL, holder);
	if (IS_ERR(h->bdev))
		return PTR_ERR(h->bdev);
#endif
	return 0;
}

static inline void ftlblk_compat_close_bdev(struct ftlblk_bdev_handle *h)
{
#if FTLBLK_KERNEL_NEW
	fput(h->file);
#else
	blkdev_put(h->bdev, FMODE_READ | FMODE_WRITE | FMODE_EXCL);
#endif
}

/* Waits for every request in flight; 6.14 returns the freeze's memflags. */
static inline void ftlblk_compat_drain_queue(struct request_queue *q)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
	unsigned int memflags = blk_mq_freeze_queue(q);

	blk_mq_unfreeze_queue(q, memflags);
#else
	blk_mq_freeze_queue(q);
	blk_mq_unfreeze_queue(q);
#endif
}

/*
 * 6.14: the badblocks functions take sector_t lengths, and set/clear return
 * true on success (before: 0 on success).
 */
static inline bool ftlblk_compat_bb_check(struct badblocks *bb, sector_t s,
					  sector_t sectors)
{
	sector_t first_bad;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
	sector_t bad_sectors;
#else
	int bad_sectors;
#endif

	return badblocks_check(bb, s, sectors, &first_bad, &bad_sectors) != 0;
}

static inline bool ftlblk_compat_bb_update(struct badblocks *bb, sector_t s,
					   sector_t sectors, bool set)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
	return set ? badblocks_set(bb, s, sectors, 1) :
		     badblocks_clear(bb, s, sectors);
#else
	return !(set ? badblocks_set(bb, s, sectors, 1) :
		       badblocks_clear(bb, s, sectors));
#endif
}

/*
 * __blkdev_issue_discard() builds the chain of discard bios. It has returned
 * 0 whatever happened since 6.10 (no bio at all for a device without
 * discard), and returns void since 6.19; on 6.1 it returned -EOPNOTSUPP for
 * such a device. The result the kernel gives is what ftlblk_conform checks.
 */
static inline int ftlblk_compat_discard_chain(struct block_device *bdev,
					      sector_t sector, sector_t nr_sects,
					      struct bio **biop)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 19, 0)
	__blkdev_issue_discard(bdev, sector, nr_sects, GFP_KERNEL, biop);
	return 0;
#else
	return __blkdev_issue_discard(bdev, sector, nr_sects, GFP_KERNEL, biop);
#endif
}

/*
 * Workqueues: 6.17 added WQ_PERCPU for what was the default, and later
 * kernels warn when a workqueue names neither it nor WQ_UNBOUND.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define FTLBLK_WQ_PERCPU WQ_PERCPU
#else
#define FTLBLK_WQ_PERCPU 0
#endif

#endif
