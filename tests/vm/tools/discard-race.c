// SPDX-License-Identifier: GPL-2.0
/*
 * discard-race DEV [options]: threads write, discard (BLKDISCARD) and read
 * (O_DIRECT) overlapping 4 KiB pages of DEV at random, then check that
 * every read - and a final read of every page - saw a value the history
 * allows: a page is never torn, never holds another page's data, and
 * never shows a version older than one whose write, or a zero that a
 * discard, had completed before the read began.
 *
 * Each written page is (page number, generation) repeated over 4 KiB;
 * generations are unique, so a page's content names the one write (or
 * some discard, for zeroes) it came from. Every operation is recorded per
 * page with the times just before the syscall and just after it returned.
 * A read that returned the value of operation X is correct iff X started
 * before the read ended and no write or discard Y of that page ran
 * entirely between them (Y started after X ended and ended before the
 * read began). That is sound however the requests overlap: the device may
 * apply concurrent requests in either order, but not undo one that
 * finished, nor mix two within a page.
 *
 * Options:
 *   -t N   threads (4)            -n N   operations per thread (1000)
 *   -p N   pages in the region (64)   -o N   first page of the region (0)
 *   -m N   pages per operation, at most (4)   -s N   random seed (1)
 *   -l     lock the pages of each operation (per-page mutexes, taken in
 *          ascending order): operations on one page never overlap, so every
 *          read has exactly one allowed value; without -l they overlap.
 *   -c FILE  a counter (e.g. /sys/block/ftlblk0/ftl/gc_runs): read just
 *          before the threads start and just after the last one ended;
 *          the difference is printed as counter_during=. Up to 4 -c,
 *          printed comma-separated in their order.
 *   -f N   every thread flushes (fsync) after every N of its operations,
 *          so a write cache (write_cache=1) writes back while the others
 *          run
 *   -P FILE  power cut at the end (FILE: .../ftl/power_cut): after the
 *          final read, fsync, write 1 then 0 to FILE, and read every page
 *          again: each must still hold its final value (flushed data
 *          survives a cut); a page that does not is a violation.
 * Prints one summary line; exits 0 if no violation, 1 if any, 2 on error.
 * overlaps= counts pairs of a discard and a write or discard of one page
 * whose system calls overlapped in time, as seen from user space (always
 * 0 with -l); whether the device had them in flight together is for the
 * caller to find out (block_rq_issue/block_rq_complete).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define TAGS (PAGE / 16)

enum kind { WRITE, DISCARD, READ };

struct op {
	enum kind kind;
	uint64_t value;		/* generation, 0 = zeroes, UINT64_MAX = invalid */
	uint64_t start, end;	/* ns, CLOCK_MONOTONIC */
};

struct page_hist {
	pthread_mutex_t lock;	/* -l: held during the I/O */
	pthread_mutex_t rec;	/* protects ops */
	struct op *ops;
	size_t n, cap;
};

static int fd;
static unsigned int nthreads = 4, nops = 1000, npages = 64, maxk = 4;
static unsigned long long first_page;
static unsigned int seed = 1;
static int locked;
static unsigned int flush_every;
static const char *power_cut_file;
static atomic_uint nflushes;
#define MAX_COUNTERS 4
static const char *counter_file[MAX_COUNTERS];
static unsigned int ncounters;
static struct page_hist *hist;
static atomic_uint_fast64_t next_gen = 1;
static atomic_uint nwrites, ndiscards, nreads, nfailed_io, ndiscarded_pages;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void record(unsigned int p, enum kind kind, uint64_t value,
		   uint64_t start, uint64_t end)
{
	struct page_hist *h = &hist[p];

	pthread_mutex_lock(&h->rec);
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->ops = realloc(h->ops, h->cap * sizeof(*h->ops));
		if (!h->ops) {
			perror("realloc");
			exit(2);
		}
	}
	h->ops[h->n++] = (struct op){ kind, value, start, end };
	pthread_mutex_unlock(&h->rec);
}

static void fill(uint64_t *buf, uint64_t page, uint64_t gen)
{
	for (int i = 0; i < TAGS; i++) {
		buf[2 * i] = page;
		buf[2 * i + 1] = gen;
	}
}

/* What a page read back holds: 0 (zeroes), a generation, or UINT64_MAX. */
static uint64_t decode(const uint64_t *buf, uint64_t page)
{
	uint64_t gen = buf[1];
	int i;

	if (!buf[0] && !gen) {
		for (i = 0; i < 2 * TAGS; i++)
			if (buf[i])
				return UINT64_MAX;
		return 0;
	}
	if (buf[0] != page || !gen)
		return UINT64_MAX;
	for (i = 0; i < TAGS; i++)
		if (buf[2 * i] != page || buf[2 * i + 1] != gen)
			return UINT64_MAX;
	return gen;
}

static off_t offset(unsigned int p)
{
	return (off_t)(first_page + p) * PAGE;
}

static void do_op(enum kind kind, unsigned int a, unsigned int k, uint64_t *buf)
{
	uint64_t gens[64], t0, t1;
	uint64_t range[2];
	unsigned int i;
	ssize_t r = 0;
	int err = 0;

	if (kind == WRITE)
		for (i = 0; i < k; i++) {
			gens[i] = atomic_fetch_add(&next_gen, 1);
			fill(buf + i * (PAGE / 8), first_page + a + i, gens[i]);
		}
	if (locked)
		for (i = 0; i < k; i++)
			pthread_mutex_lock(&hist[a + i].lock);
	t0 = now();
	switch (kind) {
	case WRITE:
		r = pwrite(fd, buf, (size_t)k * PAGE, offset(a));
		err = r != (ssize_t)k * PAGE;
		break;
	case DISCARD:
		range[0] = offset(a);
		range[1] = (uint64_t)k * PAGE;
		err = ioctl(fd, BLKDISCARD, range) != 0;
		break;
	case READ:
		r = pread(fd, buf, (size_t)k * PAGE, offset(a));
		err = r != (ssize_t)k * PAGE;
		break;
	}
	t1 = now();
	if (locked)
		for (i = k; i-- > 0;)
			pthread_mutex_unlock(&hist[a + i].lock);
	if (err) {
		fprintf(stderr, "discard-race: %s of pages %llu+%u: %s\n",
			kind == WRITE ? "write" : kind == DISCARD ? "discard" : "read",
			first_page + a, k, strerror(errno));
		atomic_fetch_add(&nfailed_io, 1);
		return;
	}
	for (i = 0; i < k; i++) {
		if (kind == WRITE)
			record(a + i, WRITE, gens[i], t0, t1);
		else if (kind == DISCARD)
			record(a + i, DISCARD, 0, t0, t1);
		else
			record(a + i, READ,
			       decode(buf + i * (PAGE / 8), first_page + a + i),
			       t0, t1);
	}
	if (kind == WRITE)
		atomic_fetch_add(&nwrites, 1);
	else if (kind == DISCARD) {
		atomic_fetch_add(&ndiscards, 1);
		atomic_fetch_add(&ndiscarded_pages, k);
	} else
		atomic_fetch_add(&nreads, 1);
}

static void *worker(void *arg)
{
	unsigned int s = seed * 7919u + (unsigned int)(uintptr_t)arg;
	uint64_t *buf;
	unsigned int i;

	if (posix_memalign((void **)&buf, PAGE, (size_t)maxk * PAGE)) {
		perror("posix_memalign");
		exit(2);
	}
	for (i = 0; i < nops; i++) {
		unsigned int r = rand_r(&s) % 100;
		unsigned int k = 1 + rand_r(&s) % maxk;
		unsigned int a = rand_r(&s) % npages;

		if (a + k > npages)
			k = npages - a;
		do_op(r < 45 ? WRITE : r < 75 ? DISCARD : READ, a, k, buf);
		if (flush_every && !((i + 1) % flush_every)) {
			if (fsync(fd)) {
				perror("discard-race: fsync");
				atomic_fetch_add(&nfailed_io, 1);
			}
			atomic_fetch_add(&nflushes, 1);
		}
	}
	free(buf);
	return NULL;
}

static unsigned long long violations, overlaps, reads_checked, lost_at_cut;

/* The number in counter_file[i], or exit(2). */
static long long read_counter(unsigned int i)
{
	long long v;
	FILE *f = fopen(counter_file[i], "r");

	if (!f || fscanf(f, "%lld", &v) != 1) {
		perror(counter_file[i]);
		exit(2);
	}
	fclose(f);
	return v;
}

static void violation(unsigned int p, const struct op *rd, const char *why,
		      const struct op *x)
{
	if (++violations > 10)
		return;
	printf("violation: page %llu read [%llu, %llu] got %s: %s",
	       first_page + p, (unsigned long long)rd->start,
	       (unsigned long long)rd->end,
	       rd->value == UINT64_MAX ? "torn/foreign data" :
	       rd->value ? "a write" : "zeroes", why);
	if (x)
		printf(" (%s [%llu, %llu])", x->kind == WRITE ? "write" : "discard",
		       (unsigned long long)x->start, (unsigned long long)x->end);
	printf("\n");
}

/* Is the value read by @rd allowed by the history of page @p? */
static void check_read(unsigned int p, const struct op *rd)
{
	const struct page_hist *h = &hist[p];
	const struct op *stale = NULL;
	size_t i, j;

	reads_checked++;
	if (rd->value == UINT64_MAX) {
		violation(p, rd, "not one whole version of this page", NULL);
		return;
	}
	for (i = 0; i < h->n; i++) {
		const struct op *x = &h->ops[i];
		int superseded = 0;

		if (x->kind == READ || x->value != rd->value ||
		    x->start >= rd->end)
			continue;
		for (j = 0; j < h->n && !superseded; j++) {
			const struct op *y = &h->ops[j];

			if (y->kind != READ && y->start > x->end &&
			    y->end < rd->start)
				superseded = 1;
		}
		if (!superseded)
			return;
		stale = x;
	}
	violation(p, rd, stale ? "older than a completed later operation" :
		  "no write or discard of this page produced it", stale);
}

static void check_page(unsigned int p)
{
	const struct page_hist *h = &hist[p];
	size_t i, j;

	for (i = 0; i < h->n; i++) {
		if (h->ops[i].kind == READ) {
			check_read(p, &h->ops[i]);
			continue;
		}
		/* pairs of a discard and a write or discard in flight together */
		for (j = i + 1; j < h->n; j++)
			if (h->ops[j].kind != READ &&
			    (h->ops[i].kind == DISCARD ||
			     h->ops[j].kind == DISCARD) &&
			    h->ops[j].start < h->ops[i].end &&
			    h->ops[i].start < h->ops[j].end)
				overlaps++;
	}
}

static void write_file(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(value, f) == EOF || fclose(f)) {
		perror(path);
		exit(2);
	}
}

/*
 * After the final read: flush, cut the power, restore it, and compare
 * every page with its final value. Returns pages that changed.
 */
static unsigned long long power_cut_check(uint64_t *buf)
{
	uint64_t *final = calloc(npages, sizeof(*final));
	unsigned long long changed = 0;
	unsigned int p;

	if (!final) {
		perror("alloc");
		exit(2);
	}
	for (p = 0; p < npages; p++) {
		if (pread(fd, buf, PAGE, offset(p)) != PAGE) {
			perror("discard-race: read before the cut");
			exit(2);
		}
		final[p] = decode(buf, first_page + p);
	}
	if (fsync(fd)) {
		perror("discard-race: fsync before the cut");
		exit(2);
	}
	write_file(power_cut_file, "1");
	write_file(power_cut_file, "0");
	for (p = 0; p < npages; p++) {
		if (pread(fd, buf, PAGE, offset(p)) != PAGE) {
			perror("discard-race: read after the cut");
			exit(2);
		}
		if (decode(buf, first_page + p) != final[p]) {
			if (changed++ < 10)
				fprintf(stderr, "discard-race: page %llu held %llu before the power cut, %llu after\n",
					first_page + p, (unsigned long long)final[p],
					(unsigned long long)decode(buf, first_page + p));
		}
	}
	free(final);
	return changed;
}

int main(int argc, char **argv)
{
	pthread_t *th;
	uint64_t *buf;
	long long counter0[MAX_COUNTERS], counter1[MAX_COUNTERS];
	char during[MAX_COUNTERS * 24] = "none";
	unsigned int i;
	int c;

	while ((c = getopt(argc, argv, "t:n:p:o:m:s:lc:f:P:")) != -1) {
		switch (c) {
		case 't': nthreads = strtoul(optarg, NULL, 0); break;
		case 'n': nops = strtoul(optarg, NULL, 0); break;
		case 'p': npages = strtoul(optarg, NULL, 0); break;
		case 'o': first_page = strtoull(optarg, NULL, 0); break;
		case 'm': maxk = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'l': locked = 1; break;
		case 'f': flush_every = strtoul(optarg, NULL, 0); break;
		case 'P': power_cut_file = optarg; break;
		case 'c':
			if (ncounters == MAX_COUNTERS)
				goto usage;
			counter_file[ncounters++] = optarg;
			break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || !nthreads || !npages || !maxk || maxk > 64)
		goto usage;
	fd = open(argv[optind], O_RDWR | O_DIRECT);
	if (fd < 0) {
		perror(argv[optind]);
		return 2;
	}
	hist = calloc(npages, sizeof(*hist));
	th = calloc(nthreads, sizeof(*th));
	if (!hist || !th || posix_memalign((void **)&buf, PAGE, PAGE)) {
		perror("alloc");
		return 2;
	}
	for (i = 0; i < npages; i++) {
		pthread_mutex_init(&hist[i].lock, NULL);
		pthread_mutex_init(&hist[i].rec, NULL);
	}
	/* A known start: the whole region discarded. */
	for (i = 0; i < npages; i += maxk)
		do_op(DISCARD, i, i + maxk > npages ? npages - i : maxk, buf);
	if (atomic_load(&nfailed_io))
		return 2;
	for (i = 0; i < ncounters; i++)
		counter0[i] = read_counter(i);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i)) {
			perror("pthread_create");
			return 2;
		}
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < ncounters; i++)
		counter1[i] = read_counter(i);
	for (i = 0; i < ncounters; i++)
		snprintf(during + strlen(during) * !!i, sizeof(during) - strlen(during) * !!i,
			 "%s%lld", i ? "," : "", counter1[i] - counter0[i]);
	/* The final state: one more read of every page, after everything. */
	for (i = 0; i < npages; i++)
		do_op(READ, i, 1, buf);
	for (i = 0; i < npages; i++)
		check_page(i);
	if (power_cut_file) {
		lost_at_cut = power_cut_check(buf);
		violations += lost_at_cut;
	}
	printf("discard-race: %s threads=%u pages=%u writes=%u discards=%u discarded_pages=%u reads=%u flushes=%u io_errors=%u reads_checked=%llu overlaps=%llu counter_during=%s lost_at_cut=%llu violations=%llu\n",
	       locked ? "locked" : "free", nthreads, npages,
	       atomic_load(&nwrites), atomic_load(&ndiscards),
	       atomic_load(&ndiscarded_pages),
	       atomic_load(&nreads), atomic_load(&nflushes),
	       atomic_load(&nfailed_io), reads_checked,
	       overlaps, during, lost_at_cut, violations);
	return violations || atomic_load(&nfailed_io) ? 1 : 0;
usage:
	fprintf(stderr, "usage: discard-race [-t threads] [-n ops] [-p pages] [-o first] [-m maxpages] [-s seed] [-l] [-c counter-file] [-f flush-every] [-P power-cut-file] DEV\n");
	return 2;
}
