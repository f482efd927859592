/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftlblk - a RAM-backed flash SSD with a real flash translation layer.
 *
 * main.c     module parameters, device life cycle, blk-mq request handling
 * configfs.c /sys/kernel/config/ftlblk/<name>/ device interface
 * sysfs.c    /sys/block/ftlblkN/ftl/ statistics
 * trace.c    ftlblk:* tracepoints (trace.h)
 * ../ftl/    the portable FTL core
 */
#ifndef FTLBLK_H
#define FTLBLK_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "ftl.h"

/*
 * Every tunable is an unsigned int field of struct ftlblk_config, described
 * once in ftlblk_fields[] (main.c) with its name and allowed range, so the
 * module parameters and configfs validate and report errors the same way.
 */
enum ftlblk_field_id {
	FTLBLK_SIZE,
	FTLBLK_BLOCKSIZE,
	FTLBLK_PAGE_SIZE,
	FTLBLK_PAGES_PER_BLOCK,
	FTLBLK_OP_PERCENT,
	FTLBLK_GC_POLICY,
	FTLBLK_WL_THRESHOLD,
	FTLBLK_GC_LOW_BLOCKS,
	FTLBLK_GC_HIGH_BLOCKS,
	FTLBLK_DISCARD,
	FTLBLK_MAX_DISCARD_SEGMENTS,
	FTLBLK_MAX_DISCARD_SECTORS,
	FTLBLK_SUBMIT_QUEUES,
	FTLBLK_HW_QUEUE_DEPTH,
	FTLBLK_WRITE_CACHE,
	FTLBLK_NR_FIELDS,
};

struct ftlblk_config {
	unsigned int val[FTLBLK_NR_FIELDS];
};

/**
 * struct ftlblk_field - one tunable
 * @name: configfs attribute and module parameter name
 * @min: smallest allowed value
 * @max: largest allowed value
 * @zero_ok: 0 is allowed too and means "the default"
 * @choices: if not NULL, the only allowed values (0-terminated); then
 *	@min and @max are not used
 * @help: allowed values and unit, for error messages
 */
struct ftlblk_field {
	const char *name;
	unsigned int min;
	unsigned int max;
	bool zero_ok;
	const unsigned int *choices;
	const char *help;
};

extern const struct ftlblk_field ftlblk_fields[FTLBLK_NR_FIELDS];

/* Device-level counters the FTL core does not keep (it sees whole pages). */
struct ftlblk_counters {
	u64 discard_requests;	/* REQ_OP_DISCARD requests received */
	u64 discard_ranges;	/* ranges in them */
	u64 discard_sectors;	/* sectors covered by those ranges */
	u64 sectors_zeroed;	/* by discards of partial flash pages */
	u64 write_zeroes_requests;
	u64 flush_requests;
};

struct ftlblk_dev {
	struct ftlblk_config cfg;	/* frozen at power-on */
	int index;			/* N of /dev/ftlblkN */
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;
	unsigned int sectors_per_page;
	unsigned int page_shift;	/* log2 of the flash page size */
	unsigned int page_order;	/* data pages are 2^page_order pages */
	/*
	 * Set under disk->open_mutex once removal has started; open() checks
	 * it under the same mutex, so no opener slips in between the -EBUSY
	 * check and del_gendisk().
	 */
	bool removing;

	/*
	 * lock protects ftl (maps, GC, counters), data[], data_pages and ctr.
	 * It is taken from queue_rq (process context: the queue is
	 * BLK_MQ_F_BLOCKING) and from sysfs, never from interrupts. Nothing
	 * under it sleeps or allocates: data pages are allocated before it is
	 * taken and freed (which does not sleep) from the FTL's callbacks.
	 */
	spinlock_t lock;
	struct ftl *ftl;
	struct page **data;		/* physical page -> data, or NULL */
	u64 data_pages;
	struct ftlblk_counters ctr;
};

/* main.c */
extern struct ftlblk_config ftlblk_defaults;
int ftlblk_field_check(enum ftlblk_field_id id, unsigned int value,
		       const char *who);
int ftlblk_create(const struct ftlblk_config *cfg, const char *who,
		  struct ftlblk_dev **devp);
int ftlblk_remove(struct ftlblk_dev *dev, bool force);

/* configfs.c */
int ftlblk_configfs_init(void);
void ftlblk_configfs_exit(void);

/* sysfs.c */
extern const struct attribute_group *ftlblk_disk_groups[];

#endif /* FTLBLK_H */
