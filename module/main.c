// SPDX-License-Identifier: GPL-2.0
/*
 * ftlblk - a RAM-backed flash SSD whose flash translation layer consumes
 * discard requests.
 *
 * This file: loading and unloading the module. Loading checks the module
 * parameters (config.c) and the machine's memory, starts the worker, makes
 * nr_devices devices (device.c) and opens configfs (configfs.c) for more;
 * unloading undoes it. Where everything else lives: the file map in
 * docs/design.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>

#include "ftlblk.h"

/* Devices nr_devices may ask for at load time. */
#define FTLBLK_MAX_PARAM_DEVS	64

static unsigned int nr_devices = 1;
module_param(nr_devices, uint, 0444);
MODULE_PARM_DESC(nr_devices, "Devices to create at load time, named ftlblk0.. (0 allowed; more via configfs). Default: 1");

/* Devices created from nr_devices; only module init and exit touch it. */
static struct ftlblk_dev **param_devs;

/* data[] stores 32-bit page frame numbers: all RAM must lie below them. */
static int __init ftlblk_check_memory(void)
{
	unsigned long end = 0;
	int nid;

	for_each_online_node(nid)
		end = max(end, node_end_pfn(nid));
	if (end > FTLBLK_MAX_FRAME) {
		pr_err("RAM ends at page frame %lu: allowed up to %lu (16 TiB), data pages are addressed by 32-bit frame numbers\n",
		       end, FTLBLK_MAX_FRAME);
		return -EINVAL;
	}
	return 0;
}

static void ftlblk_remove_param_devs(void)
{
	unsigned int i;

	for (i = 0; param_devs && i < nr_devices; i++)
		if (param_devs[i])
			ftlblk_remove(param_devs[i], true, NULL);
	kfree(param_devs);
	param_devs = NULL;
}

static int __init ftlblk_init(void)
{
	unsigned int i;
	int err;

	if (nr_devices > FTLBLK_MAX_PARAM_DEVS) {
		pr_err("module parameter: invalid nr_devices %u: allowed 0..%u\n",
		       nr_devices, FTLBLK_MAX_PARAM_DEVS);
		return -EINVAL;
	}
	err = ftlblk_params_check() ?: ftlblk_check_memory();
	if (err)
		return err;
	ftlblk_sysfs_init();
	ftlblk_debugfs_init();
	err = ftlblk_worker_init();
	if (err)
		goto free_debugfs;
	err = ftlblk_devices_init();
	if (err)
		goto free_wq;
	param_devs = kcalloc(max(nr_devices, 1U), sizeof(*param_devs),
			     GFP_KERNEL);
	if (!param_devs) {
		err = -ENOMEM;
		goto unregister;
	}
	for (i = 0; i < nr_devices; i++) {
		err = ftlblk_create(&ftlblk_defaults, NULL, ftlblk_default_cut_mode,
				    "module parameter",
				    &param_devs[i]);
		if (err)
			goto remove;
	}
	err = ftlblk_configfs_init();
	if (err)
		goto remove;
	pr_info("module loaded: %u device(s)\n", nr_devices);
	return 0;

remove:
	ftlblk_remove_param_devs();
unregister:
	ftlblk_devices_exit();
free_wq:
	ftlblk_worker_exit();
free_debugfs:
	ftlblk_debugfs_exit();
	return err;
}

static void __exit ftlblk_exit(void)
{
	/* configfs devices pin the module, so only ours are left. */
	ftlblk_configfs_exit();
	ftlblk_remove_param_devs();
	ftlblk_devices_exit();
	ftlblk_worker_exit();
	ftlblk_debugfs_exit();
}

module_init(ftlblk_init);
module_exit(ftlblk_exit);

MODULE_DESCRIPTION("RAM-backed flash SSD with a flash translation layer that consumes discards");
MODULE_LICENSE("GPL");
