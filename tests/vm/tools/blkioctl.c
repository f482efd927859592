// SPDX-License-Identifier: GPL-2.0
/*
 * blkioctl OP DEVICE: one block-device request that ftlblk does not serve,
 * and print the outcome as "ok" or the errno name. Exits 0 on success,
 * 1 on a failed call, 2 on bad usage.
 *
 *   resetzone / openzone / closezone / finishzone
 *            ioctl(BLKRESETZONE ...) of the first 4 KiB -> REQ_OP_ZONE_*
 *   reportzone  ioctl(BLKREPORTZONE) for one zone
 *   sgio     ioctl(SG_IO) with a SCSI INQUIRY (passthrough, REQ_OP_DRV_IN)
 *   collapse fallocate(FALLOC_FL_COLLAPSE_RANGE) of the first 4 KiB
 *   insert   fallocate(FALLOC_FL_INSERT_RANGE) of the first 4 KiB
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/blkzoned.h>
#include <linux/falloc.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "errname.h"

int main(int argc, char **argv)
{
	struct blk_zone_range zr = { .sector = 0, .nr_sectors = 8 };
	struct {
		struct blk_zone_report hdr;
		struct blk_zone zone;
	} rep;
	unsigned char cdb[6] = { 0x12, 0, 0, 0, 96, 0 }, data[96], sense[32];
	struct sg_io_hdr sg;
	const char *op;
	int fd, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: blkioctl resetzone|openzone|closezone|finishzone|reportzone|sgio|collapse|insert DEVICE\n");
		return 2;
	}
	op = argv[1];
	fd = open(argv[2], O_RDWR);
	if (fd < 0) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	if (!strcmp(op, "resetzone")) {
		ret = ioctl(fd, BLKRESETZONE, &zr);
	} else if (!strcmp(op, "openzone")) {
		ret = ioctl(fd, BLKOPENZONE, &zr);
	} else if (!strcmp(op, "closezone")) {
		ret = ioctl(fd, BLKCLOSEZONE, &zr);
	} else if (!strcmp(op, "finishzone")) {
		ret = ioctl(fd, BLKFINISHZONE, &zr);
	} else if (!strcmp(op, "reportzone")) {
		memset(&rep, 0, sizeof(rep));
		rep.hdr.nr_zones = 1;
		ret = ioctl(fd, BLKREPORTZONE, &rep);
	} else if (!strcmp(op, "sgio")) {
		memset(&sg, 0, sizeof(sg));
		sg.interface_id = 'S';
		sg.cmdp = cdb;
		sg.cmd_len = sizeof(cdb);
		sg.dxfer_direction = SG_DXFER_FROM_DEV;
		sg.dxferp = data;
		sg.dxfer_len = sizeof(data);
		sg.sbp = sense;
		sg.mx_sb_len = sizeof(sense);
		sg.timeout = 5000;
		ret = ioctl(fd, SG_IO, &sg);
	} else if (!strcmp(op, "collapse")) {
		ret = fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, 4096);
	} else if (!strcmp(op, "insert")) {
		ret = fallocate(fd, FALLOC_FL_INSERT_RANGE, 0, 4096);
	} else {
		fprintf(stderr, "blkioctl: unknown operation %s\n", op);
		close(fd);
		return 2;
	}
	if (ret < 0) {
		printf("%s\n", errno_name(errno));
		close(fd);
		return 1;
	}
	close(fd);
	printf("ok\n");
	return 0;
}
