// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: the raw flash image of each device and its map, under
 * /sys/kernel/debug/ftlblk/ftlblkN/ (docs/flash-image.md).
 *
 * flash: every physical page in physical order (the device's block 0 page
 * 0 first; shard 0's blocks, then shard 1's, ...), page_size bytes each,
 * as flash.c's ftlblk_flash_page() reads it: data (valid, or stale and
 * kept with remanence=1), 0xff erased, 0x00 dropped or failed.
 *
 * flash_map: one line per run of physical pages in the same state holding
 * consecutive logical pages (as a NAND spare area records them):
 *	<first ppn> <pages> <state> <first lpn, or ->
 * state: erased, valid, stale (data kept), dropped (stale, data given
 * back: remanence=0), failed (a program failed: no data), retired (a page
 * of a retired block that holds data, valid never). Page numbers are the
 * device's.
 *
 * Each page is read under its shard's lock, once: a page is consistent,
 * the image as a whole is not a snapshot (I/O goes on meanwhile).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ftlblk.h"

static struct dentry *ftlblk_debugfs_root;

static u64 physical_bytes(struct ftlblk_dev *dev)
{
	u64 pages = 0;
	unsigned int i;

	for (i = 0; i < dev->dealing.nr; i++)
		pages += dev->shards[i].physical_pages;
	return pages * ftlblk_page_bytes(dev);
}

/* The shard holding device physical page @ppn, and its own page number. */
static struct ftlblk_shard *ppn_shard(struct ftlblk_dev *dev, u64 ppn,
				      u32 *local)
{
	u64 first = 0;
	unsigned int i;

	for (i = 0; i < dev->dealing.nr; i++) {
		u64 pages = dev->shards[i].physical_pages;

		if (ppn < first + pages) {
			*local = ppn - first;
			return &dev->shards[i];
		}
		first += pages;
	}
	return NULL;
}

static ssize_t flash_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	struct ftlblk_dev *dev = file->private_data;
	unsigned int bytes = ftlblk_page_bytes(dev);
	struct ftlblk_page_info info;
	ssize_t done = 0;
	void *buf;

	if (*ppos < 0)
		return -EINVAL;
	buf = kmalloc(bytes, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	while ((size_t)done < count) {
		u64 ppn = div_u64(*ppos, bytes);
		u32 off = *ppos - ppn * bytes, local, n;
		struct ftlblk_shard *sh = ppn_shard(dev, ppn, &local);

		if (!sh)
			break;
		ftlblk_flash_page(sh, local, buf, &info);
		n = min_t(size_t, bytes - off, count - (size_t)done);
		if (copy_to_user(ubuf + done, buf + off, n)) {
			if (!done)
				done = -EFAULT;
			break;
		}
		done += n;
		*ppos += n;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	kfree(buf);
	return done;
}

static const struct file_operations flash_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = flash_read,
	.llseek = default_llseek,
};

/* One run of the map: pages [ppn, ppn + pages) */
struct map_run {
	u64 ppn;
	u64 pages;
	const char *state;
	u64 lpn;			/* U64_MAX: none */
};

static const char *page_state_name(const struct ftlblk_page_info *info)
{
	switch (info->state) {
	case FTL_PAGE_ERASED:
		return "erased";
	case FTL_PAGE_VALID:
		return "valid";
	case FTL_PAGE_STALE:
		if (!info->kept)
			return "dropped";
		return info->retired ? "retired" : "stale";
	default:
		return "failed";
	}
}

/* State and device logical page of device physical page @ppn. */
static bool map_page(struct ftlblk_dev *dev, u64 ppn, const char **state,
		     u64 *lpn)
{
	struct ftlblk_page_info info;
	struct ftlblk_shard *sh;
	u32 local;

	sh = ppn_shard(dev, ppn, &local);
	if (!sh)
		return false;
	ftlblk_flash_page(sh, local, NULL, &info);
	*state = page_state_name(&info);
	*lpn = info.lpn == FTL_UNMAPPED ? U64_MAX :
	       ftl_shard_host_lpn(&dev->dealing, sh - dev->shards, info.lpn);
	return true;
}

/* The run starting at @ppn, at most one erase block long. */
static bool map_run_at(struct ftlblk_dev *dev, u64 ppn, struct map_run *run)
{
	const char *state;
	u64 lpn, end;
	u32 in_block;

	/* pages_per_block need not be a power of two */
	div_u64_rem(ppn, dev->dealing.stripe, &in_block);
	end = ppn - in_block + dev->dealing.stripe;

	if (!map_page(dev, ppn, &run->state, &run->lpn))
		return false;
	run->ppn = ppn;
	run->pages = 1;
	while (ppn + run->pages < end &&
	       map_page(dev, ppn + run->pages, &state, &lpn) &&
	       state == run->state &&
	       (lpn == U64_MAX ? run->lpn == U64_MAX :
		run->lpn != U64_MAX && lpn == run->lpn + run->pages))
		run->pages++;
	return true;
}

/* seq_file's private data; its position is the next run's first ppn. */
struct map_iter {
	struct ftlblk_dev *dev;
	struct map_run run;
};

static void *map_start(struct seq_file *m, loff_t *pos)
{
	struct map_iter *it = m->private;

	return map_run_at(it->dev, *pos, &it->run) ? &it->run : NULL;
}

static void *map_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct map_iter *it = m->private;

	*pos = it->run.ppn + it->run.pages;
	return map_run_at(it->dev, *pos, &it->run) ? &it->run : NULL;
}

static void map_stop(struct seq_file *m, void *v)
{
}

static int map_show(struct seq_file *m, void *v)
{
	struct map_run *run = v;

	seq_printf(m, "%llu %llu %s ", run->ppn, run->pages, run->state);
	if (run->lpn == U64_MAX)
		seq_puts(m, "-\n");
	else
		seq_printf(m, "%llu\n", run->lpn);
	return 0;
}

static const struct seq_operations map_seq_ops = {
	.start = map_start,
	.next = map_next,
	.stop = map_stop,
	.show = map_show,
};

static int map_open(struct inode *inode, struct file *file)
{
	struct map_iter *it = __seq_open_private(file, &map_seq_ops,
						 sizeof(*it));

	if (!it)
		return -ENOMEM;
	it->dev = inode->i_private;
	return 0;
}

static const struct file_operations map_fops = {
	.owner = THIS_MODULE,
	.open = map_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release_private,
};

/**
 * ftlblk_debugfs_add() - a device's flash image and map
 * @dev: device just added
 *
 * debugfs is a debugging aid: failing to create it fails nothing.
 */
void ftlblk_debugfs_add(struct ftlblk_dev *dev)
{
	dev->debugfs = debugfs_create_dir(dev->disk->disk_name,
					  ftlblk_debugfs_root);
	debugfs_create_file_size("flash", 0400, dev->debugfs, dev, &flash_fops,
				 physical_bytes(dev));
	debugfs_create_file("flash_map", 0400, dev->debugfs, dev, &map_fops);
}

/**
 * ftlblk_debugfs_remove() - remove a device's files, waiting for readers
 * @dev: device being removed, its FTL still there
 */
void ftlblk_debugfs_remove(struct ftlblk_dev *dev)
{
	debugfs_remove(dev->debugfs);
	dev->debugfs = NULL;
}

/** ftlblk_debugfs_init() - /sys/kernel/debug/ftlblk */
void ftlblk_debugfs_init(void)
{
	ftlblk_debugfs_root = debugfs_create_dir("ftlblk", NULL);
}

/** ftlblk_debugfs_exit() - remove /sys/kernel/debug/ftlblk */
void ftlblk_debugfs_exit(void)
{
	debugfs_remove(ftlblk_debugfs_root);
}
