// SPDX-License-Identifier: GPL-2.0
/*
 * crashload: a file workload for power-cut tests, and its checker.
 *
 *   crashload run DIR MANIFEST [-s SEED] [-n OPS] [-f FILES] [-r] [-U]
 *   crashload verify DIR MANIFEST [-a]
 *
 * run creates, overwrites (in place, or a new copy renamed over the old:
 * the atomic-replace idiom), and deletes files in DIR, each change made
 * durable with fsync of the file and of DIR, and also writes and deletes
 * files it never syncs (names u*), so that blocks are freed, discarded and
 * reallocated all the time. Before each durable change it appends an
 * intent line to MANIFEST ("P name old-seed new-seed size", seed 0 = no
 * file), after the fsyncs returned a commit line ("C name seed size" or
 * "D name"); MANIFEST must live on another device (the guest's RAM). run
 * With -r a file renamed over another is fsynced again after the rename:
 * vfat writes the renamed entry with the file's inode, not with the
 * directory, so there fsync of the directory alone does not make a rename
 * durable (found by this test; ext4 needs no -r).
 * -U leaves out the files nobody syncs (vfat: their directory entries and
 * FAT chains reach the disk in any order, so after a cut they can point
 * into clusters a synced file owns, which fsck then truncates).
 * run stops at the first failed call - the power cut - or after OPS changes,
 * and exits 0 either way: only the checker judges. A new file that does not
 * fit (ENOSPC) is removed again, durably, and the change rolled back (its
 * file may not stay half written: that is no state the checker could
 * accept); run goes on, and stops after MAX_FULL_IN_A_ROW in a row.
 *
 * verify checks DIR against MANIFEST: a committed file holds exactly its
 * content (every 4 KiB block names its file version and its index, so a
 * block of zeroes, of another file or of an older version is caught); a
 * committed deletion left no file; a change in progress at the cut left
 * the old or the new state (an in-place overwrite: each 512-byte sector
 * old or new, as a filesystem with 2 KiB clusters writes a 4 KiB page in
 * two requests).
 * With -a a change in progress may have left its file in any state (vfat
 * has no atomic rename or delete: the directory entry and the FAT chain
 * reach the disk in either order); such a file counts as torn.
 * It rewrites MANIFEST with the state found, so run can go on after the
 * next mount. Prints one summary line "committed=N intents=N torn=N
 * bad=N"; exits 0 if bad=0, 1 if not, 2 on an error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLK 4096
#define MAX_FILES 4096
#define NAME_LEN 32

struct file {
	char name[NAME_LEN];
	uint64_t seed;		/* 0: no such file */
	uint64_t size;
	/* an intent without its commit: */
	int pending;
	uint64_t new_seed, new_size;
	int in_place;
	int torn;		/* verify: an in-place overwrite left a mix */
};

static struct file files[MAX_FILES];
static unsigned int nfiles;
static int dirfd_ = -1;
static FILE *manifest;
static int fsync_renamed, no_unsynced, any_pending;
static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct file *find(const char *name, int create)
{
	unsigned int i;

	for (i = 0; i < nfiles; i++)
		if (!strcmp(files[i].name, name))
			return &files[i];
	if (!create || nfiles == MAX_FILES)
		return NULL;
	memset(&files[nfiles], 0, sizeof(files[0]));
	snprintf(files[nfiles].name, NAME_LEN, "%s", name);
	return &files[nfiles++];
}

/* Changes in a row that found the filesystem full before run gives up. */
#define MAX_FULL_IN_A_ROW	100

/* Block @b of the file version @seed: header, then pseudo-random bytes. */
static void fill_block(unsigned char *buf, uint64_t seed, uint64_t b)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + b + 1;
	unsigned int i;

	memcpy(buf, "FTLC", 4);
	memcpy(buf + 4, &seed, 8);
	memcpy(buf + 12, &b, 4);
	for (i = 16; i < BLK; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
}

static void log_line(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void log_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(manifest, fmt, ap);
	va_end(ap);
	/* tmpfs: durable as soon as it is written. */
	if (fflush(manifest)) {
		perror("crashload: manifest");
		exit(2);
	}
}

/* Write version @seed (@size bytes) into @fd from offset 0. */
static int write_version(int fd, uint64_t seed, uint64_t size)
{
	unsigned char buf[BLK];
	uint64_t b;

	for (b = 0; b * BLK < size; b++) {
		size_t n = size - b * BLK < BLK ? size - b * BLK : BLK;

		fill_block(buf, seed, b);
		if (pwrite(fd, buf, n, b * BLK) != (ssize_t)n)
			return -1;
	}
	return 0;
}

static uint64_t new_seed(void)
{
	return (rnd() >> 1) | 1;	/* never 0 */
}

static uint64_t new_size(void)
{
	/* 4 KiB .. 256 KiB, sometimes not a whole number of blocks */
	uint64_t size = (1 + rnd() % 64) * BLK;

	return rnd() % 4 ? size : size - rnd() % BLK;
}

/* The change to @f is durable: record it. */
static void commit(struct file *f, uint64_t seed, uint64_t size)
{
	f->seed = seed;
	f->size = size;
	log_line("C %s %llu %llu\n", f->name, (unsigned long long)seed,
		 (unsigned long long)size);
}

/*
 * A write of a new file (@name, open as @fd) failed. If the filesystem is
 * full (ENOSPC: the workload's files outgrew it, not the power cut), the
 * file goes again, durably, and the change is rolled back: 0. Else (the
 * power is gone) -1.
 */
static int undo_no_space(int fd, const char *name)
{
	if (errno != ENOSPC)
		return -1;
	close(fd);
	if (unlinkat(dirfd_, name, 0) || fsync(dirfd_))
		return -1;
	errno = ENOSPC;
	return 0;
}

/*
 * Each returns -1 when a call failed: the power is gone; 1 when a new
 * file did not fit and its change was rolled back (an in-place overwrite
 * needs no new space: its failure is the cut's).
 */
static int op_create(struct file *f)
{
	uint64_t seed = new_seed(), size = new_size();
	int fd;

	log_line("P %s 0 %llu %llu\n", f->name, (unsigned long long)seed,
		 (unsigned long long)size);
	fd = openat(dirfd_, f->name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && write_version(fd, seed, size)) {
		if (undo_no_space(fd, f->name))
			return -1;
		log_line("D %s\n", f->name);	/* rolled back: no file */
		return 1;
	}
	if (fd < 0 || fsync(fd) || close(fd) || fsync(dirfd_))
		return -1;
	commit(f, seed, size);
	return 0;
}

static int op_replace(struct file *f)
{
	uint64_t seed = new_seed(), size = new_size();
	char tmp[NAME_LEN + 4];
	int fd;

	snprintf(tmp, sizeof(tmp), "t%s", f->name);
	fd = openat(dirfd_, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && write_version(fd, seed, size))
		return undo_no_space(fd, tmp) ? -1 : 1;	/* @f untouched */
	if (fd < 0 || fsync(fd) || close(fd))
		return -1;
	log_line("P %s %llu %llu %llu\n", f->name, (unsigned long long)f->seed,
		 (unsigned long long)seed, (unsigned long long)size);
	if (renameat(dirfd_, tmp, dirfd_, f->name) || fsync(dirfd_))
		return -1;
	if (fsync_renamed) {
		fd = openat(dirfd_, f->name, O_RDONLY);
		if (fd < 0 || fsync(fd) || close(fd))
			return -1;
	}
	commit(f, seed, size);
	return 0;
}

static int op_overwrite(struct file *f)
{
	uint64_t seed = new_seed();
	int fd;

	log_line("I %s %llu %llu %llu\n", f->name, (unsigned long long)f->seed,
		 (unsigned long long)seed, (unsigned long long)f->size);
	fd = openat(dirfd_, f->name, O_WRONLY);
	if (fd < 0 || write_version(fd, seed, f->size) || fsync(fd) ||
	    close(fd))
		return -1;
	commit(f, seed, f->size);
	return 0;
}

static int op_delete(struct file *f)
{
	log_line("P %s %llu 0 0\n", f->name, (unsigned long long)f->seed);
	if (unlinkat(dirfd_, f->name, 0) || fsync(dirfd_))
		return -1;
	f->seed = 0;
	log_line("D %s\n", f->name);
	return 0;
}

/* Churn nobody syncs: allocates, frees, and so discards, blocks. */
static int op_unsynced(void)
{
	char name[NAME_LEN];
	int fd;

	snprintf(name, sizeof(name), "u%llu", (unsigned long long)(rnd() % 32));
	if (rnd() % 3 == 0)
		return unlinkat(dirfd_, name, 0) && errno != ENOENT ? -1 : 0;
	fd = openat(dirfd_, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && write_version(fd, new_seed(), new_size()))
		return undo_no_space(fd, name) ? -1 : 1;
	if (fd < 0 || close(fd))
		return -1;
	return 0;
}

/* One of the @live existing files, at random. */
static struct file *pick_live(unsigned int live)
{
	unsigned int pick = rnd() % live, i;

	for (i = 0; i < nfiles; i++)
		if (files[i].seed && !pick--)
			return &files[i];
	return NULL;
}

static int one_op(unsigned int max_files)
{
	unsigned int live = 0, i;
	struct file *f;
	char name[NAME_LEN];
	uint64_t r = rnd() % 100;

	for (i = 0; i < nfiles; i++)
		live += files[i].seed != 0;
	if (r < 30 && !no_unsynced)
		return op_unsynced();
	if (live && (r < 50 || (live >= max_files && r < 70))) {
		f = pick_live(live);
		return r % 2 ? op_delete(f) : op_replace(f);
	}
	if (live && r < 70) {
		f = pick_live(live);
		return op_overwrite(f);
	}
	snprintf(name, sizeof(name), "f%llu",
		 (unsigned long long)(rnd() % (2 * max_files)));
	f = find(name, 1);
	if (!f)
		return 0;
	return f->seed ? op_overwrite(f) : op_create(f);
}

/* Read MANIFEST into files[]: the last line of each name wins. */
static void load_manifest(const char *path)
{
	char line[256], kind, name[NAME_LEN];
	unsigned long long a, b, c;
	FILE *m = fopen(path, "r");
	struct file *f;

	if (!m)
		return;		/* a first run */
	while (fgets(line, sizeof(line), m)) {
		a = b = c = 0;
		if (sscanf(line, "%c %31s %llu %llu %llu", &kind, name, &a, &b, &c) < 2)
			continue;
		f = find(name, 1);
		if (!f) {
			fprintf(stderr, "crashload: too many files\n");
			exit(2);
		}
		f->pending = 0;
		if (kind == 'C') {
			f->seed = a;
			f->size = b;
		} else if (kind == 'D') {
			f->seed = 0;
		} else if (kind == 'P' || kind == 'I') {
			f->pending = 1;
			f->in_place = kind == 'I';
			f->seed = a;
			f->new_seed = b;
			f->new_size = c;
			if (kind == 'I')
				f->size = c;
		}
	}
	fclose(m);
}

static int open_dir(const char *path)
{
	dirfd_ = open(path, O_RDONLY | O_DIRECTORY);
	if (dirfd_ < 0) {
		perror(path);
		return -1;
	}
	return 0;
}

static int run(const char *dir, const char *path, unsigned long ops,
	       unsigned int max_files)
{
	unsigned long done = 0;
	unsigned int full_in_a_row = 0;

	load_manifest(path);
	if (open_dir(dir))
		return 2;
	manifest = fopen(path, "a");
	if (!manifest) {
		perror(path);
		return 2;
	}
	while (!ops || done < ops) {
		int r = one_op(max_files);

		/* Full: deletes and replacements free space, so go on. */
		if (r > 0 && ++full_in_a_row < MAX_FULL_IN_A_ROW)
			continue;
		if (r) {
			printf("crashload: stopped after %lu operations: %s\n",
			       done, strerror(errno));
			return 0;
		}
		full_in_a_row = 0;
		done++;
	}
	printf("crashload: %lu operations\n", done);
	return 0;
}

/*
 * Is each 512-byte sector of @got (block @b, @n bytes) the same sector of
 * @old (the block of the old version) or of version @new_seed?
 */
static int sectors_old_or_new(const unsigned char *got,
			      const unsigned char *old, uint64_t new_seed,
			      uint64_t b, size_t n)
{
	unsigned char new[BLK];
	size_t i, len;

	fill_block(new, new_seed, b);
	for (i = 0; i < n; i += 512) {
		len = n - i < 512 ? n - i : 512;
		if (memcmp(got + i, old + i, len) && memcmp(got + i, new + i, len))
			return 0;
	}
	return 1;
}

/*
 * Compare file @name with version @seed of @size bytes; with @other (an
 * in-place overwrite in progress) each sector may also be version @other.
 * Returns 0 if it is @seed, 1 if it is @other, 2 if a mix of both (torn),
 * -1 if neither, -2 if the file is missing.
 */
static int check_content(const char *name, uint64_t seed, uint64_t size,
			 uint64_t other)
{
	unsigned char want[BLK], got[BLK], new[BLK];
	int fd = openat(dirfd_, name, O_RDONLY), all_old = 1, all_new = 1;
	struct stat st;
	uint64_t b;

	if (fd < 0)
		return -2;
	if (fstat(fd, &st) || (uint64_t)st.st_size != size) {
		close(fd);
		return -1;
	}
	for (b = 0; b * BLK < size; b++) {
		size_t n = size - b * BLK < BLK ? size - b * BLK : BLK;

		if (pread(fd, got, n, b * BLK) != (ssize_t)n) {
			close(fd);
			return -1;
		}
		fill_block(want, seed, b);
		if (!memcmp(got, want, n)) {
			all_new = 0;
			continue;
		}
		all_old = 0;
		if (!other || !sectors_old_or_new(got, want, other, b, n)) {
			close(fd);
			return -1;
		}
		fill_block(new, other, b);
		if (memcmp(got, new, n))
			all_new = 0;
	}
	close(fd);
	return all_old ? 0 : all_new ? 1 : 2;
}

static int verify(const char *dir, const char *path)
{
	unsigned int i, committed = 0, intents = 0, torn = 0, bad = 0;
	int r;

	load_manifest(path);
	if (open_dir(dir))
		return 2;
	for (i = 0; i < nfiles; i++) {
		struct file *f = &files[i];
		const char *why = NULL;

		if (!f->pending) {
			committed++;
			r = f->seed ? check_content(f->name, f->seed, f->size, 0) :
			    (faccessat(dirfd_, f->name, F_OK, 0) ? -2 : -1);
			if (f->seed && r)
				why = r == -2 ? "committed file missing" :
				      "committed file has wrong content";
			else if (!f->seed && r != -2)
				why = "deleted file still exists";
		} else if (f->in_place) {
			intents++;
			r = check_content(f->name, f->seed, f->size, f->new_seed);
			if (r < 0 && any_pending)
				f->torn = 1, torn++;
			else if (r < 0)
				why = "overwrite in progress: a block neither old nor new";
			else if (r == 1)
				f->seed = f->new_seed;
			else if (r == 2)
				f->torn = 1, torn++;
		} else {
			intents++;
			/* Old state, or new state (seed 0: no file). */
			r = f->seed ? check_content(f->name, f->seed, f->size, 0) :
			    (faccessat(dirfd_, f->name, F_OK, 0) ? -2 : -1);
			if ((f->seed && r == 0) || (!f->seed && r == -2))
				continue;
			r = f->new_seed ?
			    check_content(f->name, f->new_seed, f->new_size, 0) :
			    (faccessat(dirfd_, f->name, F_OK, 0) ? -2 : -1);
			if ((f->new_seed && r == 0) || (!f->new_seed && r == -2)) {
				f->seed = f->new_seed;
				f->size = f->new_size;
			} else if (any_pending) {
				f->torn = 1, torn++;
			} else {
				why = "change in progress: neither old nor new state";
			}
		}
		if (why) {
			bad++;
			if (bad <= 10)
				fprintf(stderr, "crashload: %s: %s\n", f->name, why);
		}
	}
	printf("crashload: committed=%u intents=%u torn=%u bad=%u\n",
	       committed, intents, torn, bad);
	if (bad)
		return 1;
	/* The state found is the next run's start; a torn file is deleted. */
	manifest = fopen(path, "w");
	if (!manifest) {
		perror(path);
		return 2;
	}
	for (i = 0; i < nfiles; i++) {
		struct file *f = &files[i];

		if (f->torn) {
			if (unlinkat(dirfd_, f->name, 0) && errno != ENOENT) {
				perror("crashload: delete a torn file");
				return 2;
			}
			if (fsync(dirfd_)) {
				perror("crashload: delete a torn file");
				return 2;
			}
			f->seed = 0;
		}
		if (f->seed)
			log_line("C %s %llu %llu\n", f->name,
				 (unsigned long long)f->seed,
				 (unsigned long long)f->size);
		else
			log_line("D %s\n", f->name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long ops = 0, max_files = 48;
	int c;

	if (argc < 4)
		goto usage;
	optind = 4;
	while ((c = getopt(argc, argv, "s:n:f:rUa")) != -1) {
		switch (c) {
		case 's': rng ^= strtoull(optarg, NULL, 0) * 0x2545f4914f6cdd1dULL; break;
		case 'n': ops = strtoul(optarg, NULL, 0); break;
		case 'f': max_files = strtoul(optarg, NULL, 0); break;
		case 'r': fsync_renamed = 1; break;
		case 'U': no_unsynced = 1; break;
		case 'a': any_pending = 1; break;
		default: goto usage;
		}
	}
	if (!rng || !max_files || max_files > MAX_FILES / 2)
		goto usage;
	if (!strcmp(argv[1], "run"))
		return run(argv[2], argv[3], ops, max_files);
	if (!strcmp(argv[1], "verify"))
		return verify(argv[2], argv[3]);
usage:
	fprintf(stderr, "usage: crashload run DIR MANIFEST [-s SEED] [-n OPS] [-f FILES] [-r] [-U]\n"
		"       crashload verify DIR MANIFEST [-a]\n");
	return 2;
}
