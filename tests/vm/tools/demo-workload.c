// SPDX-License-Identifier: GPL-2.0
/*
 * demo-workload: the file workload of `make demo` (demo/guest.sh).
 *
 *   demo-workload [options] MOUNTPOINT
 *
 * Fills the filesystem at MOUNTPOINT to FILL percent with files of mixed
 * sizes, then keeps deleting random files and writing new ones (usage stays
 * at FILL percent) until the files written add up to WRITES times the
 * device's capacity. The sequence of operations is a pure function of the
 * seed, the filesystem's size and the device's size, so every regime of the
 * demo (vfat/ext4, with and without discard, with fstrim) gets exactly the
 * same creates and deletes; the checksum printed at the end proves it.
 *
 * While it runs it samples the device's own statistics (every file of
 * STATDIR, /sys/block/ftlblkN/ftl) into a CSV file and prints a progress
 * line every 10%. Nothing in the CSV is computed here except the workload's
 * own columns (elapsed seconds, bytes of file data written, fstrim calls).
 *
 * Options:
 *   -s SEED      seed of the operation sequence (1)
 *   -f FILL      target usage in percent of the filesystem's size (80)
 *   -b BASIS     what FILL (and the largest file size, 1/32 of it) is a
 *                percentage of: "fs" (the filesystem's size, statvfs
 *                f_blocks; the default) or "device" (the device's size:
 *                then every filesystem on the same device gets exactly the
 *                same file operations, whatever space its own metadata
 *                takes)
 *   -w WRITES    file data to write, in multiples of the device size (4)
 *   -d DEV       block device (for its size), e.g. /dev/ftlblk0 (required)
 *   -S STATDIR   statistics directory, e.g. /sys/block/ftlblk0/ftl
 *   -o CSV       write samples there (needs -S)
 *   -n SAMPLES   number of samples over the run (100)
 *   -t EVERY     run `fstrim MOUNTPOINT` each time EVERY times the device
 *                size more file data has been written (0: never)
 *   -r KIB       a reader runs beside the writer for the whole workload:
 *                every 10 ms it reads up to KIB KiB of a random existing
 *                file with O_DIRECT (so the read reaches the device, not the
 *                page cache) from a random 4 KiB-aligned offset (0: no
 *                reader). It draws from its own random stream and changes
 *                no file: the file operations, and their checksum, are the
 *                same with and without it.
 *   -P PCT       steady state: the run is cut into passes of one device
 *                size of file data each; after each, syncfs() and the
 *                pass's WAF from STATDIR (nand_pages_written /
 *                host_pages_written since the pass before); stop after the
 *                first pass whose WAF is within PCT percent of the pass
 *                before (-w is then the most it writes). The operations
 *                are the same sequence as without -P, cut short (needs -S)
 *   -l LABEL     name of the regime in progress lines
 *   -R FILE      write a summary (NAME=VALUE lines: ops_checksum, ...) there
 *   -q           no progress lines
 *   -D           dry run: print the operation list, touch nothing
 *                (then -d may be replaced by -C FSBYTES -B DEVBYTES)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <dirent.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#define CLUSTER 4096ULL		/* usage accounting unit */
#define NDIRS 16
#define RBUF_SIZE (8u << 20)	/* pre-generated random data */
#define CHUNK (1u << 20)

/* Device statistics sampled into the CSV, in this order. */
static const char *const stat_names[] = {
	"host_pages_written", "nand_pages_written", "waf",
	"gc_relocations", "gc_runs", "wl_relocations", "wl_runs",
	"erases", "erase_min", "erase_max", "erase_mean",
	"discard_requests", "discard_ranges", "discard_sectors",
	"pages_discarded", "valid_pages_discarded", "sectors_zeroed",
	"write_zeroes_requests", "flush_requests",
	"valid_pages", "free_blocks", "logical_pages", "physical_blocks",
	"spare_blocks", "pages_per_block",
};
#define NSTATS (sizeof(stat_names) / sizeof(stat_names[0]))

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("demo-workload: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* splitmix64: small, good enough, and identical on every machine. */
static uint64_t rng_state;
static uint64_t splitmix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(void)
{
	return splitmix(&rng_state);
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/*
 * Roughly log-uniform integer in [lo, hi): an octave [2^k, 2^(k+1)) chosen
 * uniformly, then a uniform value inside it (integers only, no libm).
 */
static uint64_t rnd_log(uint64_t lo, uint64_t hi)
{
	unsigned int klo = 63 - __builtin_clzll(lo);
	unsigned int khi = 63 - __builtin_clzll(hi);
	unsigned int k = klo + rnd_below(khi > klo ? khi - klo : 1);
	uint64_t v = (1ULL << k) + rnd_below(1ULL << k);

	return v < lo ? lo : v >= hi ? hi - 1 : v;
}

struct file {
	uint64_t size;
	uint32_t id;
};

static struct file *files;
static size_t nfiles, cap_files;
static uint32_t next_id;
static uint64_t max_file;

static uint64_t clusters(uint64_t bytes)
{
	return (bytes + CLUSTER - 1) / CLUSTER * CLUSTER;
}

/* Mixed sizes: many small files, some medium, a few large ones. */
static uint64_t draw_size(void)
{
	uint64_t p = rnd_below(100);

	if (p < 50)
		return rnd_log(1024, 64 << 10);
	if (p < 85)
		return rnd_log(64 << 10, 1 << 20);
	return rnd_log(1 << 20, max_file);
}

/* ---- the real work ---- */

static const char *mnt, *statdir, *label = "";
static int dry, quiet;
static unsigned char *rbuf;
static FILE *csv;
static struct timespec t0;
static uint64_t fnv = 0xcbf29ce484222325ULL;

static void hash(uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		fnv ^= (v >> (8 * i)) & 0xff;
		fnv *= 0x100000001b3ULL;
	}
}

static void path_of(char *buf, size_t len, uint32_t id)
{
	snprintf(buf, len, "%s/d%02u/f%06u", mnt, id % NDIRS, id);
}

static void do_create(const struct file *f)
{
	char p[4096];
	uint64_t left = f->size, off;
	int fd;

	hash('c');
	hash(f->id);
	hash(f->size);
	if (dry) {
		printf("create %u %" PRIu64 "\n", f->id, f->size);
		return;
	}
	path_of(p, sizeof(p), f->id);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("create %s: %s", p, strerror(errno));
	off = (f->id * 7919ULL * 4096) % (RBUF_SIZE - CHUNK);
	while (left) {
		size_t n = left < CHUNK ? left : CHUNK;
		ssize_t w = write(fd, rbuf + off, n);

		if (w < 0)
			die("write %s: %s", p, strerror(errno));
		left -= w;
		off = (off + 4096 * 13) % (RBUF_SIZE - CHUNK);
	}
	/* like an application that wants its file on disk */
	if (fsync(fd))
		die("fsync %s: %s", p, strerror(errno));
	close(fd);
}

/*
 * Bytes the filesystem had allocated to the files deleted so far (st_blocks
 * just before unlink): what a filesystem that discards on delete must
 * discard, computed without asking the device.
 */
static uint64_t deleted_alloc_bytes;

static void do_delete(const struct file *f)
{
	struct stat sb;
	char p[4096];

	hash('d');
	hash(f->id);
	if (dry) {
		printf("delete %u\n", f->id);
		return;
	}
	path_of(p, sizeof(p), f->id);
	if (stat(p, &sb))
		die("stat %s: %s", p, strerror(errno));
	deleted_alloc_bytes += (uint64_t)sb.st_blocks * 512;
	if (unlink(p))
		die("unlink %s: %s", p, strerror(errno));
}

/*
 * The reader (-r): a child process reading random files while the parent
 * writes and deletes. It picks a file by listing a random directory, so it
 * needs nothing from the parent; a file deleted between the listing and
 * the open is skipped. SIGTERM ends it: it reports its reads and bytes
 * through a pipe and exits.
 */
static volatile sig_atomic_t reader_stop;

static void reader_sigterm(int sig)
{
	(void)sig;
	reader_stop = 1;
}

/* One read of a random file in directory @dir; 0 if none was made. */
static ssize_t read_one(uint64_t *rng, unsigned char *buf, size_t len,
			unsigned int dir)
{
	char d[4096], p[4096 + 256];
	struct dirent *e;
	struct stat sb;
	uint64_t n = 0, k, off;
	ssize_t got;
	DIR *dp;
	int fd;

	snprintf(d, sizeof(d), "%s/d%02u", mnt, dir);
	dp = opendir(d);
	if (!dp)
		die("reader: opendir %s: %s", d, strerror(errno));
	while ((e = readdir(dp)))
		n += e->d_name[0] == 'f';
	if (!n) {
		closedir(dp);
		return 0;
	}
	k = splitmix(rng) % n;
	rewinddir(dp);
	while ((e = readdir(dp)))
		if (e->d_name[0] == 'f' && !k--)
			break;
	if (!e) {	/* the directory shrank meanwhile */
		closedir(dp);
		return 0;
	}
	snprintf(p, sizeof(p), "%s/%s", d, e->d_name);
	closedir(dp);
	fd = open(p, O_RDONLY | O_DIRECT);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || fstat(fd, &sb))
		die("reader: open %s O_DIRECT: %s", p, strerror(errno));
	off = splitmix(rng) % ((uint64_t)(sb.st_size + 4095) / 4096 + 1) * 4096;
	got = pread(fd, buf, len, off);
	if (got < 0)
		die("reader: read %s at %" PRIu64 ": %s", p, off, strerror(errno));
	close(fd);
	return got;
}

static void reader_loop(uint64_t seed, unsigned int kib, int report_fd)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };
	uint64_t rng = seed ^ 0x7265616465720000ULL, reads = 0, bytes = 0;
	size_t len = (size_t)kib << 10;
	unsigned char *buf;
	char msg[64];
	int m;

	signal(SIGTERM, reader_sigterm);
	if (posix_memalign((void **)&buf, 4096, len))
		die("reader: out of memory");
	while (!reader_stop) {
		ssize_t got = read_one(&rng, buf, len, splitmix(&rng) % NDIRS);

		if (got > 0) {
			reads++;
			bytes += got;
		}
		nanosleep(&pause, NULL);
	}
	m = snprintf(msg, sizeof(msg), "%" PRIu64 " %" PRIu64 "\n", reads, bytes);
	if (write(report_fd, msg, m) != m)
		_exit(1);
	_exit(0);
}

/* Start the reader; returns its pid, its report pipe in *fd. */
static pid_t reader_start(uint64_t seed, unsigned int kib, int *fd)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(pfd[0]);
		reader_loop(seed, kib, pfd[1]);
	}
	close(pfd[1]);
	*fd = pfd[0];
	return pid;
}

/* Stop the reader and collect its counts; a reader that failed fails us. */
static void reader_finish(pid_t pid, int fd, uint64_t *reads, uint64_t *bytes)
{
	char msg[64] = "";
	ssize_t n;
	int st;

	if (kill(pid, SIGTERM) || waitpid(pid, &st, 0) < 0)
		die("reader: stop: %s", strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		die("the reader failed (status %d)", st);
	n = read(fd, msg, sizeof(msg) - 1);
	close(fd);
	if (n <= 0 || sscanf(msg, "%" SCNu64 " %" SCNu64, reads, bytes) != 2)
		die("reader: no report");
}

static void do_fstrim(void)
{
	pid_t pid;
	int st;

	/* not hashed: the file operations are what must be identical */
	if (dry) {
		printf("fstrim\n");
		return;
	}
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 1);
		execlp("fstrim", "fstrim", mnt, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		die("fstrim %s failed (status %d)", mnt, st);
}

static int read_stat(const char *name, char *buf, size_t len)
{
	char p[4096];
	FILE *fp;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", statdir, name);
	fp = fopen(p, "r");
	buf[0] = 0;
	if (!fp)
		return -1;
	n = fread(buf, 1, len - 1, fp);
	fclose(fp);
	buf[n] = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

static double elapsed(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9;
}

static void sample(uint64_t written, unsigned int trims)
{
	char v[128];
	size_t i;

	if (dry || !csv)
		return;
	fprintf(csv, "%.1f,%" PRIu64 ",%u", elapsed(), written, trims);
	for (i = 0; i < NSTATS; i++) {
		read_stat(stat_names[i], v, sizeof(v));
		fprintf(csv, ",%s", v);
	}
	fputc('\n', csv);
	fflush(csv);
}

static void progress(unsigned int pct)
{
	char host[64], nand[64], waf[64], valid[64], freeb[64], disc[64];
	double ps = 4096;

	if (dry || quiet || !statdir)
		return;
	read_stat("host_pages_written", host, sizeof(host));
	read_stat("nand_pages_written", nand, sizeof(nand));
	read_stat("waf", waf, sizeof(waf));
	read_stat("valid_pages", valid, sizeof(valid));
	read_stat("free_blocks", freeb, sizeof(freeb));
	read_stat("pages_discarded", disc, sizeof(disc));
	{
		char pps[64];

		/* the flash page size is the queue's physical block size */
		if (!read_stat("../queue/physical_block_size", pps,
			       sizeof(pps)) && atof(pps) > 0)
			ps = atof(pps);
	}
	printf("%-15s %3u%% %4.0fs  host %5.0f MiB  NAND %5.0f MiB  WAF %s  "
	       "valid %s pg  free %s blk  discarded %s pg\n",
	       label, pct, elapsed(), atof(host) * ps / 1048576,
	       atof(nand) * ps / 1048576, waf, valid, freeb, disc);
	fflush(stdout);
}

/*
 * Steady state (-P): the WAF of each pass of one device size of file data,
 * from the device's counters after a syncfs().
 */
static double steady_pct;
static unsigned int passes;
static char pass_wafs[1024];
static double last_host, last_nand, last_waf;

/* A pass has ended: note its WAF. Return: true if the state is steady. */
static bool pass_done(const char *mnt)
{
	char host[64], nand[64];
	double waf = 0, h, n;
	bool steady;
	int fd = open(mnt, O_RDONLY | O_DIRECTORY);

	if (fd < 0 || syncfs(fd))
		die("syncfs %s: %s", mnt, strerror(errno));
	close(fd);
	read_stat("host_pages_written", host, sizeof(host));
	read_stat("nand_pages_written", nand, sizeof(nand));
	h = atof(host) - last_host;
	n = atof(nand) - last_nand;
	if (h > 0)
		waf = n / h;
	steady = passes && last_waf > 0 &&
		 (waf > last_waf ? waf - last_waf : last_waf - waf) <=
		 last_waf * steady_pct / 100;
	snprintf(pass_wafs + strlen(pass_wafs),
		 sizeof(pass_wafs) - strlen(pass_wafs), "%s%.3f",
		 passes ? "," : "", waf);
	passes++;
	last_host += h;
	last_nand += n;
	last_waf = waf;
	if (!quiet)
		printf("%-15s pass %u: WAF %.3f%s\n", label, passes, waf,
		       steady ? " (steady)" : "");
	return steady;
}

static void usage(void)
{
	fputs("usage: demo-workload [-s SEED] [-f FILL%] [-b fs|device] [-w WRITES] -d DEV "
	      "[-S STATDIR] [-o CSV] [-n SAMPLES] [-t EVERY] [-r KIB] [-l LABEL] "
	      "[-R FILE] "
	      "[-q] "
	      "[-D [-C FSBYTES -B DEVBYTES]] MOUNTPOINT\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, fs_bytes = 0, dev_bytes = 0, target_used, used = 0;
	uint64_t total, written = 0, next_sample, next_trim, next_pct, next_pass;
	double fill = 80, writes = 4;
	unsigned int nsamples = 100, trims = 0, pct = 0;
	double trim_every = 0;
	int read_kib = 0, reader_fd = -1;
	uint64_t reads_done = 0, read_bytes = 0;
	pid_t reader = 0;
	uint64_t trim_step;
	const char *dev = NULL, *csvpath = NULL, *sumpath = NULL;
	const char *basis = "fs";
	int c;

	while ((c = getopt(argc, argv, "s:f:b:w:d:S:o:n:t:r:l:R:qDC:B:P:")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'f': fill = atof(optarg); break;
		case 'b': basis = optarg; break;
		case 'w': writes = atof(optarg); break;
		case 'd': dev = optarg; break;
		case 'S': statdir = optarg; break;
		case 'o': csvpath = optarg; break;
		case 'n': nsamples = atoi(optarg); break;
		case 't': trim_every = atof(optarg); break;
		case 'r': read_kib = atoi(optarg); break;
		case 'l': label = optarg; break;
		case 'R': sumpath = optarg; break;
		case 'q': quiet = 1; break;
		case 'D': dry = 1; break;
		case 'C': fs_bytes = strtoull(optarg, NULL, 0); break;
		case 'B': dev_bytes = strtoull(optarg, NULL, 0); break;
		case 'P': steady_pct = atof(optarg); break;
		default: usage();
		}
	}
	if (optind != argc - 1)
		usage();
	mnt = argv[optind];
	if (fill <= 0 || fill >= 100 || writes <= 0 || nsamples < 1 ||
	    trim_every < 0 || read_kib < 0 || read_kib > 65536)
		die("need 0 < FILL < 100, WRITES > 0, SAMPLES >= 1, EVERY >= 0, "
		    "0 <= KIB <= 65536");
	if (steady_pct < 0 || (steady_pct > 0 && (!statdir || dry)))
		die("-P needs PCT >= 0 and -S, and no -D");
	if (strcmp(basis, "fs") && strcmp(basis, "device"))
		die("-b %s: the basis is fs or device", basis);

	if (!dev_bytes) {
		int fd;

		if (!dev)
			die("-d DEV is required");
		fd = open(dev, O_RDONLY);
		if (fd < 0 || ioctl(fd, BLKGETSIZE64, &dev_bytes))
			die("size of %s: %s", dev, strerror(errno));
		close(fd);
	}
	if (!strcmp(basis, "device"))
		fs_bytes = dev_bytes;
	if (!fs_bytes) {
		struct statvfs sv;

		if (statvfs(mnt, &sv))
			die("statvfs %s: %s", mnt, strerror(errno));
		fs_bytes = (uint64_t)sv.f_blocks * sv.f_frsize;
	}
	/* Usage target counts file data only (whole clusters). */
	target_used = (uint64_t)(fs_bytes * fill / 100) / CLUSTER * CLUSTER;
	total = (uint64_t)(dev_bytes * writes);
	max_file = fs_bytes / 32;
	if (max_file > (8u << 20))
		max_file = 8u << 20;
	if (max_file < (1u << 20))
		max_file = 1u << 20;
	rng_state = seed;
	hash(seed);
	hash(fs_bytes);
	hash(dev_bytes);

	if (!dry) {
		char p[4096];
		uint64_t s = seed ^ 0x5555;
		uint32_t i;
		int d;

		rbuf = malloc(RBUF_SIZE);
		if (!rbuf)
			die("out of memory");
		for (i = 0; i < RBUF_SIZE / 8; i++) {
			/* xorshift64: content is incompressible, and cheap */
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			memcpy(rbuf + 8 * i, &s, 8);
		}
		for (d = 0; d < NDIRS; d++) {
			snprintf(p, sizeof(p), "%s/d%02d", mnt, d);
			if (mkdir(p, 0755) && errno != EEXIST)
				die("mkdir %s: %s", p, strerror(errno));
		}
		if (csvpath) {
			size_t k;

			if (!statdir)
				die("-o needs -S");
			csv = fopen(csvpath, "w");
			if (!csv)
				die("%s: %s", csvpath, strerror(errno));
			fputs("elapsed_s,workload_bytes,fstrims", csv);
			for (k = 0; k < NSTATS; k++)
				fprintf(csv, ",%s", stat_names[k]);
			fputc('\n', csv);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (read_kib && !dry)
		reader = reader_start(seed, read_kib, &reader_fd);
	if (!quiet && !dry)
		printf("%-15s start: %s %" PRIu64 " MiB, device %" PRIu64
		       " MiB, fill %.0f%% (%" PRIu64 " MiB), writing %" PRIu64
		       " MiB, seed %" PRIu64 "%s\n", label,
		       strcmp(basis, "fs") ? "fill of the device," : "fs",
		       fs_bytes >> 20, dev_bytes >> 20, fill,
		       target_used >> 20, total >> 20,
		       seed, trim_every > 0 ? ", with periodic fstrim" : "");
	sample(0, 0);
	next_sample = total / nsamples;
	trim_step = (uint64_t)(dev_bytes * trim_every);
	next_trim = trim_step ? trim_step : UINT64_MAX;
	next_pct = total / 10;
	next_pass = dev_bytes;

	while (written < total) {
		struct file f;

		f.size = draw_size();
		if (f.size > target_used / 4)
			f.size = target_used / 4;
		/* make room: delete random files until the new one fits */
		while (nfiles && used + clusters(f.size) > target_used) {
			size_t k = rnd_below(nfiles);

			do_delete(&files[k]);
			used -= clusters(files[k].size);
			files[k] = files[--nfiles];
		}
		f.id = next_id++;
		do_create(&f);
		if (nfiles == cap_files) {
			cap_files = cap_files ? 2 * cap_files : 1024;
			files = realloc(files, cap_files * sizeof(*files));
			if (!files)
				die("out of memory");
		}
		files[nfiles++] = f;
		used += clusters(f.size);
		written += f.size;

		while (written >= next_trim && written < total) {
			do_fstrim();
			trims++;
			next_trim += trim_step;
		}
		if (written >= next_sample) {
			sample(written, trims);
			while (next_sample <= written)
				next_sample += total / nsamples;
		}
		if (steady_pct > 0 && written >= next_pass) {
			next_pass += dev_bytes;
			if (pass_done(mnt))
				total = written;
		}
		while (written >= next_pct && pct < 100) {
			pct += 10;
			next_pct = total / 10 * (pct / 10 + 1);
			if (written >= next_pct && pct < 100)
				continue;
			progress(pct > 100 ? 100 : pct);
		}
	}
	if (reader)
		reader_finish(reader, reader_fd, &reads_done, &read_bytes);
	if (!dry) {
		int fd = open(mnt, O_RDONLY | O_DIRECTORY);

		if (fd < 0 || syncfs(fd))
			die("syncfs %s: %s", mnt, strerror(errno));
		close(fd);
	}
	sample(written, trims);
	printf("%-15s done: ops-checksum %016" PRIx64 ", %u files created, "
	       "%zu left, %" PRIu64 " bytes written, %u fstrim\n", label, fnv,
	       next_id, nfiles, written, trims);
	if (sumpath) {
		FILE *fp = fopen(sumpath, "w");

		if (!fp)
			die("%s: %s", sumpath, strerror(errno));
		fprintf(fp, "ops_checksum=%016" PRIx64 "\nfiles_created=%u\n"
			"files_left=%zu\nworkload_bytes=%" PRIu64 "\n"
			"deleted_alloc_bytes=%" PRIu64 "\n"
			"fstrims=%u\nworkload_s=%.1f\nreads=%" PRIu64
			"\nread_bytes=%" PRIu64 "\n", fnv, next_id, nfiles,
			written, deleted_alloc_bytes, trims, elapsed(),
			reads_done, read_bytes);
		if (steady_pct > 0)
			fprintf(fp, "steady_pct=%g\npasses=%u\npass_wafs=%s\n"
				"steady_reached=%d\n", steady_pct, passes,
				pass_wafs, written < (uint64_t)(dev_bytes * writes));
		if (fclose(fp))
			die("%s: %s", sumpath, strerror(errno));
	}
	if (csv && fclose(csv))
		die("%s: %s", csvpath, strerror(errno));
	return 0;
}
