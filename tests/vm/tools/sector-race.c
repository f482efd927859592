// SPDX-License-Identifier: GPL-2.0
/*
 * sector-race DEV [options]: writers that share flash pages but never a
 * sector. Writer k owns sector k (of SECTOR bytes) of every PAGE-byte page
 * in the region and rewrites it with O_DIRECT, over and over, in the same
 * page order as the others, so that the writers of one page meet in the
 * device at once - as a filesystem with blocks smaller than the flash page
 * (vfat with 512-byte clusters, ext4 -b 1024) updates neighbouring blocks.
 * A device that merges a partial write into its page with a
 * read-modify-write must do the read and the store as one step, or one
 * writer's update overwrites another's with stale data.
 *
 * Each sector written holds (writer, page, round) repeated. Before it
 * writes round R of a page, a writer reads its sector back: nobody else
 * writes it, so it must still hold round R - 1 (an update lost in any
 * round is seen in the next, not only in the last). After every writer
 * has ended, every sector of the region is read back and must hold its
 * owner's last round for that page. Prints one summary line:
 *   sector-race: writers=N pages=N writes=N lost=N wrong=N
 * (lost: a sector holding an older round or zeroes, seen by its writer
 * or at the end; wrong: anything else).
 * Exits 0 if lost and wrong are 0, 1 if not, 2 on error.
 *
 * Options:
 *   -w N   writers (PAGE / SECTOR: one per sector of a page)
 *   -p N   pages in the region (64)    -o N   first page (0)
 *   -r N   rounds: each writer writes its sector of every page N times (20)
 *   -S N   sector bytes (512)          -P N   page bytes (4096)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd;
static unsigned int writers, pages = 64, rounds = 20;
static unsigned int sector = 512, page = 4096;
static unsigned long long first;

struct stamp {
	uint32_t writer;
	uint32_t page;
	uint32_t round;
	uint32_t magic;
};

#define MAGIC 0x5ec7ace5u

static void fill(unsigned char *buf, unsigned int w, unsigned int p,
		 unsigned int r)
{
	struct stamp st = { w, p, r, MAGIC };
	unsigned int off;

	for (off = 0; off < sector; off += sizeof(st))
		memcpy(buf + off, &st, sizeof(st));
}

static unsigned long long lost_seen;	/* by the writers, atomically */

static void *writer(void *arg)
{
	unsigned int w = (unsigned int)(uintptr_t)arg, r, p;
	unsigned char *buf, *old;

	if (posix_memalign((void **)&buf, 4096, sector) ||
	    posix_memalign((void **)&old, 4096, sector))
		return (void *)1;
	for (r = 1; r <= rounds; r++) {
		for (p = 0; p < pages; p++) {
			off_t pos = (off_t)(first + p) * page +
				    (off_t)w * sector;

			if (r > 1) {
				if (pread(fd, old, sector, pos) != (ssize_t)sector) {
					fprintf(stderr, "sector-race: read at %lld: %s\n",
						(long long)pos, strerror(errno));
					return (void *)1;
				}
				fill(buf, w, p, r - 1);
				if (memcmp(old, buf, sector))
					__atomic_add_fetch(&lost_seen, 1,
							   __ATOMIC_RELAXED);
			}
			fill(buf, w, p, r);
			if (pwrite(fd, buf, sector, pos) != (ssize_t)sector) {
				fprintf(stderr, "sector-race: write at %lld: %s\n",
					(long long)pos, strerror(errno));
				free(buf);
				return (void *)1;
			}
		}
	}
	free(buf);
	free(old);
	return NULL;
}

static unsigned int arg(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end || !v || v > (1u << 30)) {
		fprintf(stderr, "sector-race: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long long lost = 0, wrong = 0;
	pthread_t tid[256];
	unsigned char *all, *expect;
	unsigned int w, p;
	int c, failed = 0;

	while ((c = getopt(argc, argv, "w:p:o:r:S:P:")) != -1) {
		switch (c) {
		case 'w': writers = arg(optarg); break;
		case 'p': pages = arg(optarg); break;
		case 'o': first = strtoull(optarg, NULL, 0); break;
		case 'r': rounds = arg(optarg); break;
		case 'S': sector = arg(optarg); break;
		case 'P': page = arg(optarg); break;
		default: return 2;
		}
	}
	if (optind + 1 != argc || sector % 16 || page % sector) {
		fprintf(stderr, "usage: sector-race [-w N] [-p N] [-o N] [-r N] [-S BYTES] [-P BYTES] DEV\n");
		return 2;
	}
	if (!writers)
		writers = page / sector;
	if (writers > page / sector || writers > 256) {
		fprintf(stderr, "sector-race: at most %u writers (one per sector)\n",
			page / sector);
		return 2;
	}
	fd = open(argv[optind], O_RDWR | O_DIRECT);
	if (fd < 0) {
		perror(argv[optind]);
		return 2;
	}
	for (w = 0; w < writers; w++)
		if (pthread_create(&tid[w], NULL, writer, (void *)(uintptr_t)w))
			return 2;
	for (w = 0; w < writers; w++) {
		void *ret;

		pthread_join(tid[w], &ret);
		failed |= ret != NULL;
	}
	if (failed)
		return 2;

	if (posix_memalign((void **)&all, 4096, (size_t)pages * page) ||
	    posix_memalign((void **)&expect, 4096, sector))
		return 2;
	if (pread(fd, all, (size_t)pages * page, (off_t)first * page) !=
	    (ssize_t)((size_t)pages * page)) {
		perror("sector-race: read back");
		return 2;
	}
	for (p = 0; p < pages; p++) {
		for (w = 0; w < writers; w++) {
			unsigned char *got = all + (size_t)p * page +
					     (size_t)w * sector;
			const struct stamp *st = (const void *)got;

			fill(expect, w, p, rounds);
			if (!memcmp(got, expect, sector))
				continue;
			if (st->magic == MAGIC && st->writer == w &&
			    st->page == p && st->round < rounds) {
				lost++;
			} else {
				unsigned int i;

				for (i = 0; i < sector && !got[i]; i++)
					;
				if (i == sector)
					lost++;
				else
					wrong++;
			}
		}
	}
	lost += lost_seen;
	printf("sector-race: writers=%u pages=%u writes=%llu lost=%llu wrong=%llu\n",
	       writers, pages, (unsigned long long)writers * pages * rounds,
	       lost, wrong);
	return lost || wrong;
}
