// SPDX-License-Identifier: GPL-2.0
/*
 * atomicio: atomic writes (RWF_ATOMIC, Linux 6.11+) on a block device,
 * O_DIRECT, for the guest tests.
 *
 *   atomicio statx DEVICE
 *	prints "MASK_HAS_ATOMIC UNIT_MIN UNIT_MAX SEGMENTS_MAX" from
 *	statx(STATX_WRITE_ATOMIC) (0 0 0 0 where the kernel has none)
 *   atomicio write DEVICE OFFSET LENGTH [atomic] [dsync]
 *	one pwritev2() of LENGTH bytes of 0x5a at OFFSET; prints "ok" or the
 *	errno name; exit 0 either way, 2 on bad usage
 *   atomicio writer DEVICE FIRST UNITS UNIT_BYTES MODE SEED [COUNT]
 *	writes whole units FIRST..FIRST+UNITS-1 (UNIT_BYTES each, at
 *	UNIT * UNIT_BYTES), picked at random, until a write fails (the power
 *	cut) or COUNT writes are done; every 512-byte sector of a write
 *	carries its stamp (a sequence number, the write's length, the
 *	writer's SEED). MODE: atomic (RWF_ATOMIC), plain, atomic-fua
 *	(RWF_ATOMIC | RWF_DSYNC: REQ_FUA), or atomic-mixed: atomic writes of
 *	a whole unit, half a unit or a 16th, each aligned to its length, so
 *	that smaller ones land inside larger ones, and among them 4 KiB
 *	plain writes, 4 KiB FUA writes and 4 KiB discards (BLKDISCARD) into
 *	the same units. Prints "WRITES ERRNO-NAME"
 *   atomicio check DEVICE FIRST UNITS UNIT_BYTES
 *	reads the units and prints "UNITS TORN". A unit is torn when a write
 *	is there in part: a sector stamped by write N of length L is found
 *	in an aligned window of L bytes holding a sector older than N (one
 *	writer per unit: its numbers are its order; a sector of zeroes, a
 *	discard's, may be of any age). Of an atomic write, all or nothing
 *	must be there, less what later writes replaced
 *   atomicio fill DEVICE FIRST UNITS UNIT_BYTES
 *	writes every unit once with stamp 0 (plain writes), then fsync
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "errname.h"

#ifndef RWF_ATOMIC
#define RWF_ATOMIC	0x00000040
#endif
#ifndef RWF_DSYNC
#define RWF_DSYNC	0x00000002
#endif
#define ATOMICIO_STATX_WRITE_ATOMIC	0x00010000U
#define SECTOR	512

/*
 * struct statx as of Linux 6.11 (the fields after stx_dio_offset_align;
 * Debian 12's headers end before them).
 */
struct statx_atomic {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks, attributes_mask;
	uint64_t times[8];		/* atime, btime, ctime, mtime */
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t mnt_id;
	uint32_t dio_mem_align, dio_offset_align;
	uint64_t subvol;
	uint32_t atomic_write_unit_min, atomic_write_unit_max;
	uint32_t atomic_write_segments_max;
	uint32_t spare1[1];
	uint64_t spare3[9];
};

_Static_assert(sizeof(struct statx_atomic) == 256 &&
	       offsetof(struct statx_atomic, atomic_write_unit_min) == 0xa8,
	       "struct statx layout");

struct stamp {
	uint64_t seq, len, seed;
};

static int usage(void)
{
	fprintf(stderr, "usage: atomicio statx|write|writer|check|fill DEVICE ...\n");
	return 2;
}

static int do_statx(const char *dev)
{
	struct statx_atomic sx;

	memset(&sx, 0, sizeof(sx));
	if (syscall(SYS_statx, AT_FDCWD, dev, 0, ATOMICIO_STATX_WRITE_ATOMIC,
		    &sx)) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	printf("%d %u %u %u\n", !!(sx.mask & ATOMICIO_STATX_WRITE_ATOMIC),
	       sx.atomic_write_unit_min, sx.atomic_write_unit_max,
	       sx.atomic_write_segments_max);
	return 0;
}

static void *aligned(size_t bytes)
{
	void *buf;

	if (posix_memalign(&buf, 4096, bytes))
		return NULL;
	return buf;
}

static ssize_t pwrite_flags(int fd, void *buf, size_t len, off_t off,
			    int flags)
{
	struct iovec iov = { buf, len };

	return pwritev2(fd, &iov, 1, off, flags);
}

static int do_write(int argc, char **argv)
{
	unsigned long long off = strtoull(argv[3], NULL, 0);
	size_t len = strtoull(argv[4], NULL, 0);
	int flags = 0, i, fd;
	void *buf;

	for (i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "atomic"))
			flags |= RWF_ATOMIC;
		else if (!strcmp(argv[i], "dsync"))
			flags |= RWF_DSYNC;
		else
			return usage();
	}
	buf = aligned(len ? len : 1);
	fd = open(argv[2], O_RDWR | O_DIRECT);
	if (!buf || fd < 0) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	memset(buf, 0x5a, len);
	if (pwrite_flags(fd, buf, len, (off_t)off, flags) == (ssize_t)len)
		printf("ok\n");
	else
		printf("%s\n", errno_name(errno));
	return 0;
}

/* Stamp every sector of @buf (@bytes) with @s. */
static void stamp(void *buf, size_t bytes, const struct stamp *s)
{
	size_t at;

	for (at = 0; at < bytes; at += SECTOR) {
		memcpy((char *)buf + at, s, sizeof(*s));
		memset((char *)buf + at + sizeof(*s), (int)(s->seq & 0xff),
		       SECTOR - sizeof(*s));
	}
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

struct units {
	int fd;
	unsigned long long first, nr;
	size_t bytes;
	void *buf;
};

static int open_units(struct units *u, char **argv, int flags)
{
	u->first = strtoull(argv[3], NULL, 0);
	u->nr = strtoull(argv[4], NULL, 0);
	u->bytes = strtoull(argv[5], NULL, 0);
	if (!u->nr || !u->bytes || u->bytes % SECTOR)
		return usage();
	u->buf = aligned(u->bytes);
	u->fd = open(argv[2], flags | O_DIRECT);
	if (!u->buf || u->fd < 0) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	return 0;
}

static int do_writer(int argc, char **argv)
{
	struct units u;
	struct stamp s = { 0 };
	unsigned long long writes = 0, count = ~0ULL, unit, off;
	uint64_t x;
	bool mixed = false;
	int flags, err = open_units(&u, argv, O_RDWR);

	if (err)
		return err;
	if (!strcmp(argv[6], "atomic"))
		flags = RWF_ATOMIC;
	else if (!strcmp(argv[6], "atomic-fua"))
		flags = RWF_ATOMIC | RWF_DSYNC;
	else if (!strcmp(argv[6], "atomic-mixed"))
		flags = RWF_ATOMIC, mixed = true;
	else if (!strcmp(argv[6], "plain"))
		flags = 0;
	else
		return usage();
	s.seed = strtoull(argv[7], NULL, 0);
	if (argc == 9)
		count = strtoull(argv[8], NULL, 0);
	x = s.seed * 0x9e3779b97f4a7c15ULL + 1;
	while (writes < count) {
		int kind = mixed ? (int)(rnd(&x) % 10) : 0, fl = flags;
		uint64_t range[2];

		unit = u.first + rnd(&x) % u.nr;
		s.len = u.bytes;
		if (mixed && u.bytes % (16 * SECTOR) == 0)
			s.len = u.bytes >> (rnd(&x) % 3 == 2 ? 4 : rnd(&x) % 2);
		if (kind >= 6) {	/* a 4 KiB plain, FUA write or discard */
			s.len = 4096;
			fl = kind == 6 || kind == 7 ? 0 : RWF_DSYNC;
		}
		off = unit * u.bytes + rnd(&x) % (u.bytes / s.len) * s.len;
		s.seq = ++writes;
		if (kind == 9) {
			range[0] = off;
			range[1] = s.len;
			if (ioctl(u.fd, BLKDISCARD, range)) {
				printf("%llu %s\n", writes - 1, errno_name(errno));
				return 0;
			}
			continue;
		}
		stamp(u.buf, s.len, &s);
		if (pwrite_flags(u.fd, u.buf, s.len, (off_t)off, fl) !=
		    (ssize_t)s.len) {
			printf("%llu %s\n", writes - 1, errno_name(errno));
			return 0;
		}
	}
	printf("%llu ok\n", writes);
	return 0;
}

/*
 * Is a write in the unit at @buf (@bytes) only in part? A sector of write
 * N (length L) whose aligned L-byte window holds an older sector.
 */
static bool torn_unit(const char *buf, size_t bytes)
{
	struct stamp s, o;
	size_t at, w;

	static const char zero[SECTOR];

	for (at = 0; at < bytes; at += SECTOR) {
		if (!memcmp(buf + at, zero, SECTOR))
			continue;	/* discarded */
		memcpy(&s, buf + at, sizeof(s));
		if (!s.len || s.len > bytes || s.len % SECTOR)
			return true;	/* no stamp of ours */
		for (w = at - at % s.len; w < at - at % s.len + s.len;
		     w += SECTOR) {
			memcpy(&o, buf + w, sizeof(o));
			if (o.seq < s.seq && memcmp(buf + w, zero, SECTOR))
				return true;
		}
	}
	return false;
}

static int do_check(char **argv)
{
	struct units u;
	unsigned long long i, torn = 0;
	int err = open_units(&u, argv, O_RDONLY);

	if (err)
		return err;
	for (i = u.first; i < u.first + u.nr; i++) {
		if (pread(u.fd, u.buf, u.bytes, (off_t)(i * u.bytes)) !=
		    (ssize_t)u.bytes) {
			printf("%s\n", errno_name(errno));
			return 1;
		}
		torn += torn_unit(u.buf, u.bytes);
	}
	printf("%llu %llu\n", u.nr, torn);
	return 0;
}

static int do_fill(char **argv)
{
	struct units u;
	struct stamp s = { 0 };
	unsigned long long i;
	int err = open_units(&u, argv, O_RDWR);

	if (err)
		return err;
	s.len = u.bytes;
	for (i = u.first; i < u.first + u.nr; i++) {
		stamp(u.buf, u.bytes, &s);
		if (pwrite(u.fd, u.buf, u.bytes, (off_t)(i * u.bytes)) !=
		    (ssize_t)u.bytes) {
			printf("%s\n", errno_name(errno));
			return 1;
		}
	}
	if (fsync(u.fd)) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "statx"))
		return do_statx(argv[2]);
	if (argc >= 5 && argc <= 7 && !strcmp(argv[1], "write"))
		return do_write(argc, argv);
	if ((argc == 8 || argc == 9) && !strcmp(argv[1], "writer"))
		return do_writer(argc, argv);
	if (argc == 6 && !strcmp(argv[1], "check"))
		return do_check(argv);
	if (argc == 6 && !strcmp(argv[1], "fill"))
		return do_fill(argv);
	return usage();
}
