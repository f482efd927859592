// SPDX-License-Identifier: GPL-2.0
/*
 * Host-visible bad sectors, as null_blk's badblocks: sectors the host can
 * no longer read or write, the way a disk reports a medium error.
 *
 *   echo +START-END > /sys/block/ftlblkN/ftl/badblocks    mark bad
 *   echo -START-END > /sys/block/ftlblkN/ftl/badblocks    mark good again
 *   cat /sys/block/ftlblkN/ftl/badblocks                  "START LENGTH" lines
 *
 * in 512-byte sectors, START and END inclusive; a configfs device has the
 * same file as its attribute badblocks (writable while powered off and on,
 * kept across power cycles). Reads, writes and write-zeroes that touch a
 * bad sector fail with BLK_STS_IOERR before they change anything; discards
 * are served (a bad sector stays bad and keeps failing reads).
 *
 * The list is the block layer's <linux/badblocks.h>: a sorted table in one
 * page under a seqlock, so a request checks it without taking a lock, and
 * one with an empty list only reads its count.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/badblocks.h>
#include <linux/blk-mq.h>
#include <linux/device.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ftlblk.h"

/*
 * Sectors of the largest device (FTLBLK_MAX_SIZE_MIB): a range fits in the
 * int badblocks_set() takes, and its end in the table's 54-bit sectors.
 */
#define FTLBLK_BB_MAX_SECTOR	(65536ULL << (20 - SECTOR_SHIFT))

/*
 * Serializes the writers of every list: an update copies a list, changes
 * the copy and puts it back.
 */
static DEFINE_MUTEX(ftlblk_bb_mutex);

static const char ftlblk_bb_help[] =
	"+START-END or -START-END (512-byte sectors, START <= END < 134217728)";

/**
 * ftlblk_bb_init() - an empty bad sector list
 * @bb: the list
 *
 * Return: 0 or -ENOMEM.
 */
int ftlblk_bb_init(struct badblocks *bb)
{
	return badblocks_init(bb, 1);
}

/**
 * ftlblk_bb_exit() - free a list set up by ftlblk_bb_init()
 * @bb: the list
 */
void ftlblk_bb_exit(struct badblocks *bb)
{
	badblocks_exit(bb);
}

/**
 * ftlblk_bb_attach() - give @dev its bad sector list
 * @dev: new device, not yet visible
 * @bb: a configfs item's list, which outlives the device, or NULL for a
 *	list of the device's own (module parameter devices)
 *
 * Return: 0 or -ENOMEM.
 */
int ftlblk_bb_attach(struct ftlblk_dev *dev, struct badblocks *bb)
{
	int err;

	if (bb) {
		dev->bb = bb;
		return 0;
	}
	err = ftlblk_bb_init(&dev->bb_own);
	if (!err)
		dev->bb = &dev->bb_own;
	return err;
}

/**
 * ftlblk_bb_detach() - drop @dev's list once no request or sysfs file uses it
 * @dev: device after del_gendisk(), or one never added
 */
void ftlblk_bb_detach(struct ftlblk_dev *dev)
{
	if (dev->bb == &dev->bb_own)
		ftlblk_bb_exit(&dev->bb_own);
	dev->bb = NULL;
}

/**
 * ftlblk_bb_show() - the bad ranges, one "START LENGTH" line each
 * @bb: the list
 * @page: sysfs/configfs buffer
 *
 * Return: bytes written.
 */
ssize_t ftlblk_bb_show(struct badblocks *bb, char *page)
{
	return badblocks_show(bb, page, 0);
}

/*
 * Sectors of [@s, @s + @n) that @bb lists as bad; the caller keeps the
 * list from changing (ftlblk_bb_mutex). At most MAX_BADBLOCKS entries.
 */
static u64 bb_covered(struct badblocks *bb, u64 s, u64 n)
{
	u64 covered = 0, lo, hi;
	int i;

	for (i = 0; i < bb->count; i++) {
		lo = max_t(u64, BB_OFFSET(bb->page[i]), s);
		hi = min_t(u64, BB_OFFSET(bb->page[i]) + BB_LEN(bb->page[i]),
			   s + n);
		if (lo < hi)
			covered += hi - lo;
	}
	return covered;
}

/* @dst's table becomes @src's; the caller keeps readers of @dst out. */
static void bb_copy(struct badblocks *dst, const struct badblocks *src)
{
	memcpy(dst->page, src->page, PAGE_SIZE);
	dst->count = src->count;
	dst->shift = src->shift;
	dst->changed = src->changed;
	dst->unacked_exist = src->unacked_exist;
}

/*
 * Add or remove a range; an update that could not be made whole changes
 * nothing, not even for a moment. The kernel's may stop half done: 6.1's
 * badblocks_set() fills the table with the first part of a range and
 * reports failure, 6.7's rewrite fills it and reports success (6.12), each
 * after releasing the list's seqlock, so requests would see the part. So
 * the update is made on a private copy, checked against the range, and a
 * whole one copied into the list under its seqlock (which readers retry on).
 * Return: 0 (*@done tells whether the update was made) or -ENOMEM.
 */
static int bb_update(struct badblocks *bb, u64 start, u64 sectors, bool set,
		     bool *done)
{
	struct badblocks *copy;

	copy = kzalloc(sizeof(*copy), GFP_KERNEL);
	if (!copy || badblocks_init(copy, 1)) {
		kfree(copy);
		return -ENOMEM;
	}
	mutex_lock(&ftlblk_bb_mutex);
	bb_copy(copy, bb);
	*done = ftlblk_compat_bb_update(copy, start, sectors, set) &&
		bb_covered(copy, start, sectors) == (set ? sectors : 0);
	if (*done) {
		write_seqlock_irq(&bb->lock);
		bb_copy(bb, copy);
		write_sequnlock_irq(&bb->lock);
	}
	mutex_unlock(&ftlblk_bb_mutex);
	badblocks_exit(copy);
	kfree(copy);
	return 0;
}

/**
 * ftlblk_bb_store() - add ("+START-END") or remove ("-START-END") a range
 * @bb: the list
 * @who: names the device or configfs item in error messages
 * @buf: the written text, a trailing newline allowed
 * @count: its length
 *
 * Return: @count; -EINVAL after one pr_err() line naming the attribute and
 * the format; -ENOSPC (logged) if the table is full; -ENOMEM. On error the
 * list is as it was.
 */
ssize_t ftlblk_bb_store(struct badblocks *bb, const char *who,
			const char *buf, size_t count)
{
	int len = count && buf[count - 1] == '\n' ? count - 1 : count;
	char *copy, *text, *dash;
	u64 start, end;
	bool done, set;
	int ret;

	copy = kstrndup(buf, count, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	text = strstrip(copy);
	dash = text[0] ? strchr(text + 1, '-') : NULL;
	if ((text[0] != '+' && text[0] != '-') || !dash) {
		ret = -EINVAL;
	} else {
		*dash = '\0';
		ret = kstrtou64(text + 1, 10, &start) ?:
		      kstrtou64(dash + 1, 10, &end);
		if (!ret && (start > end || end >= FTLBLK_BB_MAX_SECTOR))
			ret = -EINVAL;
	}
	if (ret) {
		pr_err("%s: invalid badblocks '%.*s': allowed %s\n", who, len,
		       buf, ftlblk_bb_help);
		kfree(copy);
		return -EINVAL;
	}
	set = text[0] == '+';
	kfree(copy);
	ret = bb_update(bb, start, end - start + 1, set, &done);
	if (ret)
		return ret;
	if (!done) {
		/* The table holds 512 pieces of up to 512 sectors each. */
		pr_err("%s: badblocks '%.*s': too many bad ranges\n", who, len,
		       buf);
		return -ENOSPC;
	}
	return count;
}

/**
 * ftlblk_bad_sectors() - does @rq touch a bad sector?
 * @dev: device
 * @rq: started request
 *
 * Reads, writes and write-zeroes are checked; they must then fail with
 * nothing changed. The common case, no bad sector at all, reads one int.
 *
 * Return: true if @rq must fail with BLK_STS_IOERR.
 */
bool ftlblk_bad_sectors(struct ftlblk_dev *dev, struct request *rq)
{
	/* A range added before this request was submitted is seen here. */
	if (!READ_ONCE(dev->bb->count))
		return false;
	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
	case REQ_OP_WRITE_ZEROES:
		break;
	default:
		return false;
	}
	return ftlblk_compat_bb_check(dev->bb, blk_rq_pos(rq),
				      blk_rq_sectors(rq));
}

static ssize_t bb_sysfs_show(struct device *d, struct device_attribute *attr,
			     char *buf)
{
	struct ftlblk_dev *dev = dev_to_disk(d)->private_data;

	return ftlblk_bb_show(dev->bb, buf);
}

static ssize_t bb_sysfs_store(struct device *d, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct gendisk *disk = dev_to_disk(d);
	struct ftlblk_dev *dev = disk->private_data;

	return ftlblk_bb_store(dev->bb, disk->disk_name, buf, count);
}

/* Not DEVICE_ATTR_RW(): badblocks_show() is the block layer's. */
struct device_attribute dev_attr_badblocks =
	__ATTR(badblocks, 0644, bb_sysfs_show, bb_sysfs_store);
