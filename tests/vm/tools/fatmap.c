// SPDX-License-Identifier: GPL-2.0
/*
 * fatmap DEV: where a FAT12/16/32 volume keeps its files, read from the
 * volume itself (boot sector, first FAT, root directory) and not from the
 * kernel, in 512-byte sectors of DEV:
 *
 *   geometry fat=16 bytes_per_sector=512 sectors_per_cluster=4 data_start=S clusters=N
 *   file NAME.EXT START COUNT     one line per contiguous run of its clusters
 *   used START COUNT              runs of allocated clusters
 *   free START COUNT              runs of free clusters
 *
 * Files are the regular files of the root directory, by 8.3 name. Reading
 * the block device while it is mounted (after sync) sees the filesystem's
 * metadata: both go through the device's page cache.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd;
static unsigned int bps, spc, fat_type;
static uint64_t fat_start, data_start, nclusters;
static uint8_t *fat;

static uint16_t le16(const uint8_t *p) { return p[0] | p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | (uint32_t)le16(p + 2) << 16; }

static void rd(void *buf, uint64_t off, size_t len)
{
	if (pread(fd, buf, len, off) != (ssize_t)len) {
		perror("fatmap: read");
		exit(2);
	}
}

static uint32_t next_cluster(uint32_t c)
{
	uint32_t v;

	switch (fat_type) {
	case 12:
		v = le16(fat + c + c / 2);
		return c & 1 ? v >> 4 : v & 0xfff;
	case 16:
		return le16(fat + 2 * c);
	default:
		return le32(fat + 4 * c) & 0x0fffffff;
	}
}

static int is_end(uint32_t v)
{
	return v >= (fat_type == 12 ? 0xff8u : fat_type == 16 ? 0xfff8u : 0x0ffffff8u);
}

/* Device sector (512 bytes) of cluster @c. */
static uint64_t cl_sector(uint32_t c)
{
	return (data_start + (uint64_t)(c - 2) * spc) * (bps / 512);
}

static uint64_t cl_sectors(void)
{
	return (uint64_t)spc * (bps / 512);
}

/* Print the runs of consecutive clusters of a chain as "TAG START COUNT". */
static void print_chain(const char *tag, uint32_t c)
{
	uint32_t first = c, n = 0, guard = 0;

	while (c >= 2 && c < nclusters + 2 && !is_end(c) && guard++ <= nclusters) {
		uint32_t nx = next_cluster(c);

		n++;
		if (nx != c + 1) {
			printf("%s %llu %llu\n", tag,
			       (unsigned long long)cl_sector(first),
			       (unsigned long long)(n * cl_sectors()));
			first = nx;
			n = 0;
		}
		c = nx;
	}
}

static void print_runs(const char *tag, int want_free)
{
	uint32_t c, first = 0, n = 0;

	for (c = 2; c < nclusters + 2; c++) {
		int is_free = next_cluster(c) == 0;

		if (is_free == want_free) {
			if (!n)
				first = c;
			n++;
		} else if (n) {
			printf("%s %llu %llu\n", tag,
			       (unsigned long long)cl_sector(first),
			       (unsigned long long)(n * cl_sectors()));
			n = 0;
		}
	}
	if (n)
		printf("%s %llu %llu\n", tag, (unsigned long long)cl_sector(first),
		       (unsigned long long)(n * cl_sectors()));
}

static void dir_entries(const uint8_t *d, size_t len)
{
	for (size_t i = 0; i + 32 <= len; i += 32) {
		const uint8_t *e = d + i;
		char name[13];
		int k = 0;
		uint32_t c;

		if (!e[0])
			return;
		if (e[0] == 0xe5 || e[11] == 0x0f || (e[11] & 0x18))
			continue;
		for (int j = 0; j < 8 && e[j] != ' '; j++)
			name[k++] = e[j];
		if (e[8] != ' ') {
			name[k++] = '.';
			for (int j = 8; j < 11 && e[j] != ' '; j++)
				name[k++] = e[j];
		}
		name[k] = 0;
		c = le16(e + 26) | (fat_type == 32 ? (uint32_t)le16(e + 20) << 16 : 0);
		if (c) {
			char tag[32];

			snprintf(tag, sizeof(tag), "file %s", name);
			print_chain(tag, c);
		}
	}
}

int main(int argc, char **argv)
{
	uint8_t bs[512];
	uint32_t reserved, nfats, root_entries, total, fatsz, root_sectors;
	uint64_t bytes_per_cluster;

	if (argc != 2) {
		fprintf(stderr, "usage: fatmap DEV\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	rd(bs, 0, sizeof(bs));
	bps = le16(bs + 11);
	spc = bs[13];
	reserved = le16(bs + 14);
	nfats = bs[16];
	root_entries = le16(bs + 17);
	total = le16(bs + 19) ? le16(bs + 19) : le32(bs + 32);
	fatsz = le16(bs + 22) ? le16(bs + 22) : le32(bs + 36);
	if (bps < 512 || bps % 512 || !spc || !nfats || !fatsz || bs[510] != 0x55 || bs[511] != 0xaa) {
		fprintf(stderr, "fatmap: %s: not a FAT boot sector\n", argv[1]);
		return 2;
	}
	root_sectors = (root_entries * 32 + bps - 1) / bps;
	fat_start = reserved;
	data_start = reserved + (uint64_t)nfats * fatsz + root_sectors;
	nclusters = (total - data_start) / spc;
	fat_type = nclusters < 4085 ? 12 : nclusters < 65525 ? 16 : 32;
	fat = malloc((size_t)fatsz * bps);
	if (!fat)
		return 2;
	rd(fat, fat_start * bps, (size_t)fatsz * bps);
	printf("geometry fat=%u bytes_per_sector=%u sectors_per_cluster=%u data_start=%llu clusters=%llu\n",
	       fat_type, bps, spc, (unsigned long long)data_start * (bps / 512),
	       (unsigned long long)nclusters);

	bytes_per_cluster = (uint64_t)bps * spc;
	if (fat_type == 32) {
		uint32_t c = le32(bs + 44), guard = 0;
		uint8_t *buf = malloc(bytes_per_cluster);

		if (!buf)
			return 2;
		while (c >= 2 && !is_end(c) && guard++ <= nclusters) {
			rd(buf, cl_sector(c) * 512, bytes_per_cluster);
			dir_entries(buf, bytes_per_cluster);
			c = next_cluster(c);
		}
		free(buf);
	} else {
		size_t len = (size_t)root_sectors * bps;
		uint8_t *buf = malloc(len);

		if (!buf)
			return 2;
		rd(buf, (fat_start + (uint64_t)nfats * fatsz) * bps, len);
		dir_entries(buf, len);
		free(buf);
	}
	print_runs("used", 0);
	print_runs("free", 1);
	return 0;
}
