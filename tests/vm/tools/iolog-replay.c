// SPDX-License-Identifier: GPL-2.0
/*
 * iolog-replay FILE [--redirect DEV] [--dry-run]: replay a fio iolog
 * (version 2 or 3) request by request, one at a time, with O_DIRECT:
 * reads, writes of any multiple of 512 bytes, and trims as BLKDISCARD
 * (fio 3.33 cannot replay trims: "bad ddir: 2").
 *
 *   --redirect DEV  send every file's I/O to DEV (like fio's
 *                   replay_redirect); else each file named in the log
 *   --dry-run       open nothing; print each request as
 *                   "LINE read|write|discard SECTOR COUNT", the format of
 *                   `ftlsim --trace-dump`
 *
 * The log is parsed by ftlsim's own parser (tools/ftlsim/tracefile.c), so the
 * two read every line the same way. Every 512-byte sector written is
 * filled with the byte (LINE % 255) + 1, never zero: ftlsim assumes
 * written sectors hold non-zero data when it decides whether a partial
 * discard leaves a flash page all zeroes. sync, datasync and wait lines
 * are ignored (O_DIRECT; timing is not reproduced). On a regular file
 * (host tests) a trim punches a hole (fallocate PUNCH_HOLE) instead of
 * BLKDISCARD.
 *
 * Exit status: 0 when every request succeeded; 1 with
 * "iolog-replay: FILE:LINE: reason" on the first line that could not be
 * parsed or done; 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../../tools/ftlsim/tracefile.c"

static const char *log_path;
static struct trace_parser parser;

static void die_line(const char *fmt, const char *arg, int err)
{
	fprintf(stderr, "iolog-replay: %s:%llu: ", log_path,
		(unsigned long long)parser.line);
	fprintf(stderr, fmt, arg);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

struct target {
	int fd;			/* -1 until opened (main() sets it) */
	bool blockdev;
};

static struct target targets[TRACE_MAX_FILES];
static struct target redirect_target;

static struct target *open_target(const char *path, struct target *t)
{
	struct stat st;

	if (t->fd >= 0)
		return t;
	t->fd = open(path, O_RDWR | O_DIRECT);
	if (t->fd < 0)
		die_line("cannot open %s", path, errno);
	if (fstat(t->fd, &st))
		die_line("cannot stat %s", path, errno);
	t->blockdev = S_ISBLK(st.st_mode);
	return t;
}

static void *buf;
static size_t buf_len;

static void *get_buf(size_t len)
{
	if (len > buf_len) {
		free(buf);
		buf = NULL;
		if (posix_memalign(&buf, 4096, len))
			die_line("%s", "out of memory", 0);
		buf_len = len;
	}
	return buf;
}

static void do_req(const struct trace_req *req, const char *redirect)
{
	struct target *t;
	off_t off = (off_t)(req->sector * 512);
	size_t len = (size_t)(req->nr_sects * 512);
	ssize_t n;
	char what[96];

	snprintf(what, sizeof(what), "%s of %zu bytes at %lld",
		 trace_op_name(req->op), len, (long long)off);
	if (req->nr_sects > (64u << 20) / 512)
		die_line("%s: larger than 64 MiB", what, 0);
	if (redirect)
		t = open_target(redirect, &redirect_target);
	else
		t = open_target(parser.files[req->file], &targets[req->file]);
	switch (req->op) {
	case TRACE_READ:
		n = pread(t->fd, get_buf(len), len, off);
		if (n < 0)
			die_line("%s", what, errno);
		if ((size_t)n != len)
			die_line("%s: short read", what, 0);
		break;
	case TRACE_WRITE:
		memset(get_buf(len), (int)(parser.line % 255) + 1, len);
		n = pwrite(t->fd, buf, len, off);
		if (n < 0)
			die_line("%s", what, errno);
		if ((size_t)n != len)
			die_line("%s: short write", what, 0);
		break;
	case TRACE_DISCARD:
		if (t->blockdev) {
			uint64_t range[2] = { (uint64_t)off, (uint64_t)len };

			if (ioctl(t->fd, BLKDISCARD, range))
				die_line("%s: BLKDISCARD", what, errno);
		} else if (fallocate(t->fd, FALLOC_FL_PUNCH_HOLE |
				     FALLOC_FL_KEEP_SIZE, off, (off_t)len)) {
			die_line("%s: fallocate(PUNCH_HOLE)", what, errno);
		}
		break;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: iolog-replay FILE [--redirect DEV] [--dry-run]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *redirect = NULL;
	bool dry = false;
	unsigned long long nreq[3] = { 0, 0, 0 }, nsec[3] = { 0, 0, 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int i, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--redirect") && i + 1 < argc)
			redirect = argv[++i];
		else if (!strcmp(argv[i], "--dry-run"))
			dry = true;
		else if (argv[i][0] == '-' && argv[i][1])
			usage();
		else if (!log_path)
			log_path = argv[i];
		else
			usage();
	}
	if (!log_path)
		usage();
	f = strcmp(log_path, "-") ? fopen(log_path, "r") : stdin;
	if (!f) {
		fprintf(stderr, "iolog-replay: %s: %s\n", log_path,
			strerror(errno));
		return 1;
	}
	for (i = 0; i < TRACE_MAX_FILES; i++)
		targets[i].fd = -1;
	redirect_target.fd = -1;
	trace_parser_init(&parser, TRACE_IOLOG, 0);
	for (;;) {
		struct trace_req req;
		int ret;

		/* errno is getline()'s own when it fails, not a stale one */
		errno = 0;
		n = getline(&line, &cap, f);
		if (n < 0)
			break;

		if (n && line[n - 1] == '\n')
			n--;
		ret = trace_parse_line(&parser, line, (size_t)n, &req);
		if (ret < 0)
			die_line("%s", parser.err, 0);
		if (!ret)
			continue;
		nreq[req.op]++;
		nsec[req.op] += req.nr_sects;
		if (dry)
			printf("%llu %s %llu %llu\n",
			       (unsigned long long)parser.line,
			       trace_op_name(req.op),
			       (unsigned long long)req.sector,
			       (unsigned long long)req.nr_sects);
		else
			do_req(&req, redirect);
	}
	/* -1 without end of file is an error, also one ferror() misses (ENOMEM) */
	err = errno;
	if (ferror(f) || !feof(f))
		die_line("%s", "read error", err ? err : EIO);
	if (!parser.iolog_version)
		die_line("%s", "empty log: no 'fio version 2|3 iolog' header", 0);
	for (i = 0; i < TRACE_MAX_FILES; i++)
		if (targets[i].fd >= 0 && close(targets[i].fd))
			die_line("%s", "close", errno);
	if (redirect_target.fd >= 0 && close(redirect_target.fd))
		die_line("%s", "close", errno);
	fprintf(stderr, "iolog-replay: %s: %llu lines, %llu reads (%llu sectors), "
		"%llu writes (%llu sectors), %llu trims (%llu sectors)\n",
		log_path, (unsigned long long)parser.line,
		nreq[TRACE_READ], nsec[TRACE_READ], nreq[TRACE_WRITE],
		nsec[TRACE_WRITE], nreq[TRACE_DISCARD], nsec[TRACE_DISCARD]);
	free(line);
	free(buf);
	return 0;
}
