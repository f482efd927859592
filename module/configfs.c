// SPDX-License-Identifier: GPL-2.0
/*
 * configfs interface, the way null_blk does it:
 *
 *   mkdir /sys/kernel/config/ftlblk/<name>      a powered-off device
 *   echo 1024 > .../<name>/size                 set attributes (MiB, ...)
 *   echo 1 > .../<name>/power                   create /dev/ftlblkN
 *   cat .../<name>/index                        N
 *   echo 0 > .../<name>/power                   remove it (-EBUSY if open)
 *   rmdir .../<name>                            remove it even if open
 *
 * /sys/kernel/config/ftlblk/features lists every attribute.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ftlblk.h"

struct ftlblk_item {
	struct config_item item;
	struct ftlblk_config cfg;
	struct ftlblk_dev *dev;		/* non-NULL while powered on */
	/*
	 * Bad sectors (badblocks.c), kept across power cycles and shared
	 * with the powered device's ftl/badblocks; its own seqlock protects
	 * it, so it may change while powered on.
	 */
	struct badblocks bb;
	/*
	 * power_cut_mode while powered off: the powered device's own
	 * (dev->cut_mode, also written through its ftl/power_cut_mode) is
	 * the only copy while it exists, and is kept here at power off.
	 */
	unsigned int cut_mode;
};

/*
 * Protects cfg and dev of every item, so that an attribute write cannot
 * race with power on/off and two power writes cannot race each other.
 */
static DEFINE_MUTEX(ftlblk_cfg_lock);

static struct ftlblk_item *to_ftlblk_item(struct config_item *item)
{
	return container_of(item, struct ftlblk_item, item);
}

/* The written value without its trailing newline, for error messages. */
static int value_len(const char *page, size_t count)
{
	return count && page[count - 1] == '\n' ? count - 1 : count;
}

static ssize_t field_show(struct config_item *item, enum ftlblk_field_id id,
			  char *page)
{
	struct ftlblk_item *fi = to_ftlblk_item(item);
	unsigned int value;

	mutex_lock(&ftlblk_cfg_lock);
	value = fi->cfg.val[id];
	mutex_unlock(&ftlblk_cfg_lock);
	if (ftlblk_field_value_name(id, value))
		return sysfs_emit(page, "%s\n", ftlblk_field_value_name(id, value));
	return sysfs_emit(page, "%u\n", value);
}

static int field_parse(struct config_item *item, enum ftlblk_field_id id,
		       const char *page, size_t count, unsigned int *value)
{
	int ret = ftlblk_field_parse(id, page, value);

	if (ret < 0) {
		pr_err("%s: invalid %s '%.*s': allowed %s\n",
		       config_item_name(item), ftlblk_fields[id].name,
		       value_len(page, count), page, ftlblk_fields[id].help);
		return -EINVAL;
	}
	return 0;
}

static ssize_t field_store(struct config_item *item, enum ftlblk_field_id id,
			   const char *page, size_t count)
{
	struct ftlblk_item *fi = to_ftlblk_item(item);
	unsigned int value;
	int err;

	err = field_parse(item, id, page, count, &value);
	if (err)
		return err;
	mutex_lock(&ftlblk_cfg_lock);
	if (fi->dev) {
		pr_err("%s: cannot change %s while powered on\n",
		       config_item_name(item), ftlblk_fields[id].name);
		err = -EBUSY;
	} else {
		err = ftlblk_field_check(id, value, config_item_name(item));
		if (!err)
			fi->cfg.val[id] = value;
	}
	mutex_unlock(&ftlblk_cfg_lock);
	return err ? err : count;
}

#define FTLBLK_FIELD_ATTR(_name, _id)					\
static const enum ftlblk_field_id ftlblk_item_##_name##_id = _id;	\
static ssize_t ftlblk_item_##_name##_show(struct config_item *item,	\
					  char *page)			\
{									\
	return field_show(item, ftlblk_item_##_name##_id, page);				\
}									\
static ssize_t ftlblk_item_##_name##_store(struct config_item *item,	\
					   const char *page,		\
					   size_t count)		\
{									\
	return field_store(item, ftlblk_item_##_name##_id, page, count);			\
}									\
CONFIGFS_ATTR(ftlblk_item_, _name)

FTLBLK_FIELD_ATTR(size, FTLBLK_SIZE);
FTLBLK_FIELD_ATTR(blocksize, FTLBLK_BLOCKSIZE);
FTLBLK_FIELD_ATTR(page_size, FTLBLK_PAGE_SIZE);
FTLBLK_FIELD_ATTR(pages_per_block, FTLBLK_PAGES_PER_BLOCK);
FTLBLK_FIELD_ATTR(op_percent, FTLBLK_OP_PERCENT);
FTLBLK_FIELD_ATTR(gc_policy, FTLBLK_GC_POLICY);
FTLBLK_FIELD_ATTR(wl_threshold, FTLBLK_WL_THRESHOLD);
FTLBLK_FIELD_ATTR(gc_low_blocks, FTLBLK_GC_LOW_BLOCKS);
FTLBLK_FIELD_ATTR(gc_high_blocks, FTLBLK_GC_HIGH_BLOCKS);
FTLBLK_FIELD_ATTR(discard, FTLBLK_DISCARD);
FTLBLK_FIELD_ATTR(max_discard_segments, FTLBLK_MAX_DISCARD_SEGMENTS);
FTLBLK_FIELD_ATTR(max_discard_sectors, FTLBLK_MAX_DISCARD_SECTORS);
FTLBLK_FIELD_ATTR(submit_queues, FTLBLK_SUBMIT_QUEUES);
FTLBLK_FIELD_ATTR(hw_queue_depth, FTLBLK_HW_QUEUE_DEPTH);
FTLBLK_FIELD_ATTR(write_cache, FTLBLK_WRITE_CACHE);
FTLBLK_FIELD_ATTR(cache_mib, FTLBLK_CACHE_MIB);
FTLBLK_FIELD_ATTR(program_fail_ppm, FTLBLK_PROGRAM_FAIL_PPM);
FTLBLK_FIELD_ATTR(erase_fail_ppm, FTLBLK_ERASE_FAIL_PPM);
FTLBLK_FIELD_ATTR(fault_seed, FTLBLK_FAULT_SEED);
FTLBLK_FIELD_ATTR(endurance, FTLBLK_ENDURANCE);
FTLBLK_FIELD_ATTR(mem_limit_mib, FTLBLK_MEM_LIMIT_MIB);
FTLBLK_FIELD_ATTR(timing, FTLBLK_TIMING);
FTLBLK_FIELD_ATTR(channels, FTLBLK_CHANNELS);
FTLBLK_FIELD_ATTR(dies_per_channel, FTLBLK_DIES_PER_CHANNEL);
FTLBLK_FIELD_ATTR(read_us, FTLBLK_READ_US);
FTLBLK_FIELD_ATTR(program_us, FTLBLK_PROGRAM_US);
FTLBLK_FIELD_ATTR(erase_us, FTLBLK_ERASE_US);
FTLBLK_FIELD_ATTR(channel_mbps, FTLBLK_CHANNEL_MBPS);
FTLBLK_FIELD_ATTR(poll_queues, FTLBLK_POLL_QUEUES);
FTLBLK_FIELD_ATTR(shards, FTLBLK_SHARDS);
FTLBLK_FIELD_ATTR(remanence, FTLBLK_REMANENCE);
FTLBLK_FIELD_ATTR(secure_erase, FTLBLK_SECURE_ERASE);
FTLBLK_FIELD_ATTR(placement, FTLBLK_PLACEMENT);
FTLBLK_FIELD_ATTR(write_streams, FTLBLK_WRITE_STREAMS);
FTLBLK_FIELD_ATTR(atomic_write_max_kib, FTLBLK_ATOMIC_WRITE_MAX_KIB);

static ssize_t ftlblk_item_power_show(struct config_item *item, char *page)
{
	struct ftlblk_item *fi = to_ftlblk_item(item);
	bool on;

	mutex_lock(&ftlblk_cfg_lock);
	on = fi->dev;
	mutex_unlock(&ftlblk_cfg_lock);
	return sysfs_emit(page, "%d\n", on);
}

static ssize_t ftlblk_item_power_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct ftlblk_item *fi = to_ftlblk_item(item);
	const char *name = config_item_name(item);
	unsigned int mode;
	int err = 0;
	bool on;

	if (ftlblk_parse_switch(page, &on)) {
		pr_err("%s: invalid power '%.*s': allowed 0 or 1\n", name,
		       value_len(page, count), page);
		return -EINVAL;
	}
	mutex_lock(&ftlblk_cfg_lock);
	if (on && !fi->dev) {
		err = ftlblk_create(&fi->cfg, &fi->bb, fi->cut_mode, name,
				    &fi->dev);
	} else if (!on && fi->dev) {
		err = ftlblk_remove(fi->dev, false, &mode);
		if (!err) {
			fi->dev = NULL;
			fi->cut_mode = mode;
		}
	}
	mutex_unlock(&ftlblk_cfg_lock);
	return err ? err : count;
}
CONFIGFS_ATTR(ftlblk_item_, power);

/* Like ftl/power_cut of the disk; the device must be powered on. */
static ssize_t ftlblk_item_power_cut_show(struct config_item *item,
					  char *page)
{
	struct ftlblk_item *fi = to_ftlblk_item(item);
	bool off;

	mutex_lock(&ftlblk_cfg_lock);
	off = fi->dev && READ_ONCE(fi->dev->power_off);
	mutex_unlock(&ftlblk_cfg_lock);
	return sysfs_emit(page, "%d\n", off);
}

static ssize_t ftlblk_item_power_cut_store(struct config_item *item,
					   const char *page, size_t count)
{
	struct ftlblk_item *fi = to_ftlblk_item(item);
	const char *name = config_item_name(item);
	int err;

	mutex_lock(&ftlblk_cfg_lock);
	if (fi->dev) {
		err = ftlblk_power_store(fi->dev, name, page);
	} else {
		pr_err("%s: cannot write power_cut: device is not powered on (write 1 to power first)\n",
		       name);
		err = -ENODEV;
	}
	mutex_unlock(&ftlblk_cfg_lock);
	return err ? err : count;
}
CONFIGFS_ATTR(ftlblk_item_, power_cut);

/* Unlike the fields, also while powered on. */
static ssize_t ftlblk_item_power_cut_mode_show(struct config_item *item,
					       char *page)
{
	struct ftlblk_item *fi = to_ftlblk_item(item);
	unsigned int mode;

	mutex_lock(&ftlblk_cfg_lock);
	mode = fi->dev ? READ_ONCE(fi->dev->cut_mode) : fi->cut_mode;
	mutex_unlock(&ftlblk_cfg_lock);
	return sysfs_emit(page, "%s\n", ftlblk_cut_mode_name(mode));
}

static ssize_t ftlblk_item_power_cut_mode_store(struct config_item *item,
						const char *page, size_t count)
{
	struct ftlblk_item *fi = to_ftlblk_item(item);
	int mode = ftlblk_cut_mode_parse(config_item_name(item), page);

	if (mode < 0)
		return mode;
	mutex_lock(&ftlblk_cfg_lock);
	if (fi->dev)
		WRITE_ONCE(fi->dev->cut_mode, mode);
	else
		fi->cut_mode = mode;
	mutex_unlock(&ftlblk_cfg_lock);
	return count;
}
CONFIGFS_ATTR(ftlblk_item_, power_cut_mode);

static ssize_t ftlblk_item_index_show(struct config_item *item, char *page)
{
	struct ftlblk_item *fi = to_ftlblk_item(item);
	int index;

	mutex_lock(&ftlblk_cfg_lock);
	index = fi->dev ? fi->dev->index : -1;
	mutex_unlock(&ftlblk_cfg_lock);
	return sysfs_emit(page, "%d\n", index);
}
CONFIGFS_ATTR_RO(ftlblk_item_, index);

static ssize_t ftlblk_item_badblocks_show(struct config_item *item,
					  char *page)
{
	return ftlblk_bb_show(&to_ftlblk_item(item)->bb, page);
}

/* Unlike the fields, also while powered on: bad sectors appear any time. */
static ssize_t ftlblk_item_badblocks_store(struct config_item *item,
					   const char *page, size_t count)
{
	return ftlblk_bb_store(&to_ftlblk_item(item)->bb,
			       config_item_name(item), page, count);
}
CONFIGFS_ATTR(ftlblk_item_, badblocks);

static struct configfs_attribute *ftlblk_item_attrs[] = {
	&ftlblk_item_attr_size,
	&ftlblk_item_attr_blocksize,
	&ftlblk_item_attr_page_size,
	&ftlblk_item_attr_pages_per_block,
	&ftlblk_item_attr_op_percent,
	&ftlblk_item_attr_gc_policy,
	&ftlblk_item_attr_wl_threshold,
	&ftlblk_item_attr_gc_low_blocks,
	&ftlblk_item_attr_gc_high_blocks,
	&ftlblk_item_attr_discard,
	&ftlblk_item_attr_max_discard_segments,
	&ftlblk_item_attr_max_discard_sectors,
	&ftlblk_item_attr_submit_queues,
	&ftlblk_item_attr_hw_queue_depth,
	&ftlblk_item_attr_write_cache,
	&ftlblk_item_attr_cache_mib,
	&ftlblk_item_attr_program_fail_ppm,
	&ftlblk_item_attr_erase_fail_ppm,
	&ftlblk_item_attr_fault_seed,
	&ftlblk_item_attr_endurance,
	&ftlblk_item_attr_mem_limit_mib,
	&ftlblk_item_attr_timing,
	&ftlblk_item_attr_channels,
	&ftlblk_item_attr_dies_per_channel,
	&ftlblk_item_attr_read_us,
	&ftlblk_item_attr_program_us,
	&ftlblk_item_attr_erase_us,
	&ftlblk_item_attr_channel_mbps,
	&ftlblk_item_attr_poll_queues,
	&ftlblk_item_attr_shards,
	&ftlblk_item_attr_remanence,
	&ftlblk_item_attr_secure_erase,
	&ftlblk_item_attr_placement,
	&ftlblk_item_attr_write_streams,
	&ftlblk_item_attr_atomic_write_max_kib,
	&ftlblk_item_attr_badblocks,
	&ftlblk_item_attr_power,
	&ftlblk_item_attr_power_cut,
	&ftlblk_item_attr_power_cut_mode,
	&ftlblk_item_attr_index,
	NULL,
};

static void ftlblk_item_release(struct config_item *item)
{
	struct ftlblk_item *fi = to_ftlblk_item(item);

	ftlblk_bb_exit(&fi->bb);
	kfree(fi);
}

static struct configfs_item_operations ftlblk_item_ops = {
	.release = ftlblk_item_release,
};

static const struct config_item_type ftlblk_item_type = {
	.ct_item_ops = &ftlblk_item_ops,
	.ct_attrs = ftlblk_item_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_item *ftlblk_make_item(struct config_group *group,
					    const char *name)
{
	struct ftlblk_item *fi = kzalloc(sizeof(*fi), GFP_KERNEL);

	if (!fi)
		return ERR_PTR(-ENOMEM);
	if (ftlblk_bb_init(&fi->bb)) {
		kfree(fi);
		return ERR_PTR(-ENOMEM);
	}
	fi->cfg = ftlblk_defaults;
	fi->cut_mode = ftlblk_default_cut_mode;
	config_item_init_type_name(&fi->item, name, &ftlblk_item_type);
	return &fi->item;
}

/* rmdir cannot fail, so an open device is removed anyway (hot unplug). */
static void ftlblk_drop_item(struct config_group *group,
			     struct config_item *item)
{
	struct ftlblk_item *fi = to_ftlblk_item(item);

	mutex_lock(&ftlblk_cfg_lock);
	if (fi->dev) {
		ftlblk_remove(fi->dev, true, NULL);
		fi->dev = NULL;
	}
	mutex_unlock(&ftlblk_cfg_lock);
	config_item_put(item);
}

static ssize_t ftlblk_group_features_show(struct config_item *item,
					  char *page)
{
	struct configfs_attribute **attr;
	int len = 0;

	for (attr = ftlblk_item_attrs; *attr; attr++)
		len += sysfs_emit_at(page, len, "%s%s",
				     attr == ftlblk_item_attrs ? "" : ",",
				     (*attr)->ca_name);
	len += sysfs_emit_at(page, len, "\n");
	return len;
}
CONFIGFS_ATTR_RO(ftlblk_group_, features);

static struct configfs_attribute *ftlblk_group_attrs[] = {
	&ftlblk_group_attr_features,
	NULL,
};

static struct configfs_group_operations ftlblk_group_ops = {
	.make_item = ftlblk_make_item,
	.drop_item = ftlblk_drop_item,
};

static const struct config_item_type ftlblk_group_type = {
	.ct_group_ops = &ftlblk_group_ops,
	.ct_attrs = ftlblk_group_attrs,
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem ftlblk_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "ftlblk",
			.ci_type = &ftlblk_group_type,
		},
	},
};

int ftlblk_configfs_init(void)
{
	config_group_init(&ftlblk_subsys.su_group);
	mutex_init(&ftlblk_subsys.su_mutex);
	return configfs_register_subsystem(&ftlblk_subsys);
}

void ftlblk_configfs_exit(void)
{
	configfs_unregister_subsystem(&ftlblk_subsys);
}
