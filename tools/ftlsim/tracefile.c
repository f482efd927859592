// SPDX-License-Identifier: GPL-2.0
/*
 * tracefile.c - block trace parsers (see tracefile.h and README.md, "Trace
 * replay"). No allocation, no global state: a line is copied into a
 * bounded buffer and split into tokens there.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tracefile.h"

#define SECTOR_SIZE	512
#define LINE_MAX_LEN	1024
#define MAX_TOKENS	16

int trace_format_parse(const char *name)
{
	if (!strcmp(name, "blkparse"))
		return TRACE_BLKPARSE;
	if (!strcmp(name, "iolog"))
		return TRACE_IOLOG;
	if (!strcmp(name, "msr"))
		return TRACE_MSR;
	if (!strcmp(name, "ftlblk"))
		return TRACE_FTLBLK;
	return -1;
}

const char *trace_format_name(enum trace_format format)
{
	switch (format) {
	case TRACE_BLKPARSE: return "blkparse";
	case TRACE_IOLOG: return "iolog";
	case TRACE_MSR: return "msr";
	case TRACE_FTLBLK: return "ftlblk";
	}
	return "?";
}

const char *trace_op_name(enum trace_op op)
{
	switch (op) {
	case TRACE_READ: return "read";
	case TRACE_WRITE: return "write";
	case TRACE_DISCARD: return "discard";
	}
	return "?";
}

const char *trace_req_name(const struct trace_req *req)
{
	if (req->op != TRACE_DISCARD)
		return trace_op_name(req->op);
	switch (req->zero) {
	case TRACE_ZERO_DISCARD: return "discard";
	case TRACE_ZERO_UNMAP: return "write-zeroes-unmap";
	case TRACE_ZERO_PROGRAM: return "write-zeroes";
	case TRACE_ZERO_SECURE: return "secure-erase";
	}
	return "?";
}

void trace_parser_init(struct trace_parser *p, enum trace_format format,
		       char action)
{
	memset(p, 0, sizeof(*p));
	p->format = format;
	p->action = action ? action : 'D';
}

__attribute__((format(printf, 2, 3)))
static int fail(struct trace_parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Split @buf in place at any character of @seps; empty tokens kept only
 * when @keep_empty (CSV). Returns the count, or -1 if more than @max.
 */
static int split(char *buf, const char *seps, bool keep_empty, char **tok,
		 int max)
{
	int n = 0;
	char *s = buf;

	for (;;) {
		size_t l;

		if (!keep_empty)
			s += strspn(s, seps);
		if (!*s && (!keep_empty || n == 0))
			break;
		if (n == max)
			return -1;
		l = strcspn(s, seps);
		tok[n++] = s;
		if (!s[l])
			break;
		s[l] = '\0';
		s += l + 1;
		if (keep_empty && !*s) {	/* trailing separator */
			if (n == max)
				return -1;
			tok[n++] = s;
			break;
		}
	}
	return n;
}

/* A decimal number without sign, fitting in 64 bits. */
static bool parse_dec(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

static int bytes_to_req(struct trace_parser *p, enum trace_op op,
			const char *off_s, const char *len_s,
			struct trace_req *req)
{
	uint64_t off, len;

	if (!parse_dec(off_s, &off))
		return fail(p, "bad offset '%.40s' (decimal bytes)", off_s);
	if (!parse_dec(len_s, &len))
		return fail(p, "bad length '%.40s' (decimal bytes)", len_s);
	if (off % SECTOR_SIZE)
		return fail(p, "offset %llu is not a multiple of 512 bytes",
			    (unsigned long long)off);
	if (len % SECTOR_SIZE)
		return fail(p, "length %llu is not a multiple of 512 bytes",
			    (unsigned long long)len);
	if (!len) {
		p->skipped++;
		return 0;
	}
	if (off + len < off)
		return fail(p, "offset %llu + length %llu overflows",
			    (unsigned long long)off, (unsigned long long)len);
	req->op = op;
	req->sector = off / SECTOR_SIZE;
	req->nr_sects = len / SECTOR_SIZE;
	return 1;
}

/* ---- blkparse ----------------------------------------------------------
 *
 *   8,0    1       17     0.000154321  2563  D  WS 2048 + 8 [fio]
 *   dev    cpu     seq    time         pid   act rwbs sector + n [proc]
 *
 * Completions end in "[error]" instead of "[proc]". The summary blkparse
 * prints at the end ("CPU0 (8,0):", "Total (8,0):", "Throughput ...",
 * "Events (8,0): ...") is skipped.
 */
static bool parse_devno(const char *s, unsigned int *maj, unsigned int *min)
{
	uint64_t a, b;
	const char *comma = strchr(s, ',');
	char tmp[24];
	size_t l;

	if (!comma || (size_t)(comma - s) >= sizeof(tmp))
		return false;
	l = (size_t)(comma - s);
	memcpy(tmp, s, l);
	tmp[l] = '\0';
	if (!parse_dec(tmp, &a) || !parse_dec(comma + 1, &b) ||
	    a > 0xfffff || b > 0xfffff)
		return false;
	*maj = (unsigned int)a;
	*min = (unsigned int)b;
	return true;
}

static bool is_time(const char *s)
{
	const char *dot = strchr(s, '.');
	uint64_t v;
	char tmp[24];

	if (!dot || (size_t)(dot - s) >= sizeof(tmp))
		return false;
	memcpy(tmp, s, (size_t)(dot - s));
	tmp[dot - s] = '\0';
	return parse_dec(tmp, &v) && parse_dec(dot + 1, &v);
}

static int parse_blkparse(struct trace_parser *p, char **t, int n,
			  struct trace_req *req)
{
	unsigned int maj, min;
	uint64_t v, sector, nr;
	const char *rwbs;
	enum trace_op op;

	if (p->in_summary) {
		p->skipped++;
		return 0;
	}
	if (!parse_devno(t[0], &maj, &min)) {
		if (!strcmp(t[0], "CPU") || !strncmp(t[0], "CPU", 3) ||
		    !strcmp(t[0], "Total")) {
			p->in_summary = true;
			p->skipped++;
			return 0;
		}
		return fail(p, "not a blkparse event line (want 'MAJ,MIN CPU "
			    "SEQ TIME PID ACTION RWBS ...')");
	}
	if (n < 6 || !parse_dec(t[1], &v) || !parse_dec(t[2], &v) ||
	    !is_time(t[3]) || !parse_dec(t[4], &v))
		return fail(p, "malformed blkparse event line (want 'MAJ,MIN "
			    "CPU SEQ TIME PID ACTION RWBS ...')");
	if (t[5][0] != p->action || t[5][1]) {
		p->skipped++;
		return 0;
	}
	if (n < 7)
		return fail(p, "%c event without RWBS field", p->action);
	rwbs = t[6];
	/* blkparse's fill_rwbs(): [F]lush first, then D, W, R or N. */
	if (rwbs[0] == 'F' && rwbs[1])
		rwbs++;
	switch (rwbs[0]) {
	case 'D':
		op = TRACE_DISCARD;
		break;
	case 'W':
		op = TRACE_WRITE;
		break;
	case 'R':
		op = TRACE_READ;
		break;
	case 'N':
	case 'F':
		p->skipped++;		/* flush or no data */
		return 0;
	default:
		return fail(p, "unknown RWBS '%.16s'", t[6]);
	}
	if (n < 8 || t[7][0] == '[' || t[7][0] == '(') {
		/* a flush-with-write or a passthrough request: no range */
		p->skipped++;
		return 0;
	}
	if (n < 10 || strcmp(t[8], "+") || !parse_dec(t[7], &sector) ||
	    !parse_dec(t[9], &nr))
		return fail(p, "%c %s event without 'SECTOR + COUNT'",
			    p->action, t[6]);
	if (p->action == 'C' && n >= 11) {
		const char *e = t[n - 1];
		size_t l = strlen(e);

		/* "[0]": success; "[-5]" and friends: failed, not applied */
		if (e[0] == '[' && l >= 3 && e[l - 1] == ']' &&
		    strcmp(e, "[0]")) {
			p->skipped++;
			return 0;
		}
	}
	if (!nr) {
		p->skipped++;
		return 0;
	}
	if (sector + nr < sector)
		return fail(p, "sector %llu + %llu overflows",
			    (unsigned long long)sector, (unsigned long long)nr);
	if (!p->have_dev) {
		p->have_dev = true;
		p->dev_major = maj;
		p->dev_minor = min;
	} else if (maj != p->dev_major || min != p->dev_minor) {
		return fail(p, "event of device %u,%u in a trace of %u,%u "
			    "(replay one device's trace)", maj, min,
			    p->dev_major, p->dev_minor);
	}
	req->op = op;
	req->sector = sector;
	req->nr_sects = nr;
	return 1;
}

/* ---- fio iolog v2/v3 ---------------------------------------------------
 *
 *   fio version 2 iolog                 fio version 3 iolog
 *   /dev/sdb add                        0 /dev/sdb add
 *   /dev/sdb open                       0 /dev/sdb open
 *   /dev/sdb write 0 4096               12 /dev/sdb write 0 4096
 *   /dev/sdb trim 4096 8192             15 /dev/sdb trim 4096 8192
 *   /dev/sdb close                      20 /dev/sdb close
 */
static int iolog_file(struct trace_parser *p, const char *name, bool add)
{
	unsigned int i;

	if (strlen(name) >= TRACE_NAME_MAX)
		return fail(p, "file name longer than %d bytes",
			    TRACE_NAME_MAX - 1);
	for (i = 0; i < p->nfiles; i++)
		if (!strcmp(p->files[i], name))
			return (int)i;
	if (!add)
		return fail(p, "file '%.60s' used before its 'add' line", name);
	if (p->nfiles == TRACE_MAX_FILES)
		return fail(p, "more than %d files", TRACE_MAX_FILES);
	strcpy(p->files[p->nfiles], name);
	return (int)p->nfiles++;
}

static int parse_iolog(struct trace_parser *p, char **t, int n,
		       struct trace_req *req)
{
	const char *act;
	uint64_t v;
	int f, ret;

	if (!p->iolog_version) {
		if (n == 4 && !strcmp(t[0], "fio") && !strcmp(t[1], "version") &&
		    !strcmp(t[3], "iolog") &&
		    (!strcmp(t[2], "2") || !strcmp(t[2], "3"))) {
			p->iolog_version = t[2][0] - '0';
			p->skipped++;
			return 0;
		}
		return fail(p, "not a fio iolog: the first line must be 'fio "
			    "version 2 iolog' or 'fio version 3 iolog'");
	}
	if (p->iolog_version == 3) {
		if (!parse_dec(t[0], &v))
			return fail(p, "bad timestamp '%.40s' (iolog v3 lines "
				    "start with milliseconds)", t[0]);
		t++;
		n--;
	}
	if (n != 2 && n != 4)
		return fail(p, "want 'FILE ACTION' or 'FILE ACTION OFFSET "
			    "LENGTH'%s", p->iolog_version == 3 ?
			    " after the timestamp" : "");
	act = t[1];
	if (n == 2) {
		if (!strcmp(act, "add")) {
			if (iolog_file(p, t[0], true) < 0)
				return -1;
		} else if (!strcmp(act, "open") || !strcmp(act, "close")) {
			if (iolog_file(p, t[0], false) < 0)
				return -1;
		} else {
			return fail(p, "unknown file action '%.40s' (add, open, "
				    "close)", act);
		}
		p->skipped++;
		return 0;
	}
	if (!strcmp(act, "sync") || !strcmp(act, "datasync") ||
	    !strcmp(act, "wait")) {
		if (!parse_dec(t[2], &v) || !parse_dec(t[3], &v))
			return fail(p, "bad numbers after '%s'", act);
		if (iolog_file(p, t[0], false) < 0)
			return -1;
		p->skipped++;
		return 0;
	}
	if (!strcmp(act, "read"))
		ret = bytes_to_req(p, TRACE_READ, t[2], t[3], req);
	else if (!strcmp(act, "write"))
		ret = bytes_to_req(p, TRACE_WRITE, t[2], t[3], req);
	else if (!strcmp(act, "trim"))
		ret = bytes_to_req(p, TRACE_DISCARD, t[2], t[3], req);
	else
		return fail(p, "unknown action '%.40s' (read, write, trim, sync, "
			    "datasync, wait)", act);
	if (ret <= 0)
		return ret;
	f = iolog_file(p, t[0], false);
	if (f < 0)
		return -1;
	req->file = (unsigned int)f;
	return 1;
}

/* ---- MSR Cambridge -----------------------------------------------------
 *
 *   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
 *   128166372003061629,hm,0,Write,3872964608,4096,3880
 */
static int parse_msr(struct trace_parser *p, char **t, int n,
		     struct trace_req *req)
{
	uint64_t v;

	if (n >= 1 && p->line == 1 && !strcmp(t[0], "Timestamp")) {
		p->skipped++;	/* a header some copies carry */
		return 0;
	}
	if (n != 7)
		return fail(p, "want 7 comma-separated fields (Timestamp,"
			    "Hostname,DiskNumber,Type,Offset,Size,"
			    "ResponseTime), got %d", n);
	if (!parse_dec(t[0], &v))
		return fail(p, "bad timestamp '%.40s'", t[0]);
	if (!parse_dec(t[2], &v))
		return fail(p, "bad disk number '%.40s'", t[2]);
	if (!strcasecmp(t[3], "Read"))
		return bytes_to_req(p, TRACE_READ, t[4], t[5], req);
	if (!strcasecmp(t[3], "Write"))
		return bytes_to_req(p, TRACE_WRITE, t[4], t[5], req);
	return fail(p, "unknown type '%.40s' (Read, Write)", t[3]);
}

/* ---- ftlblk: the module's ftlblk:ftlblk_request tracepoint ---------------
 *
 *   fio-345 [001] ..... 123.456800: ftlblk_request: ftlblk0 op=write-zeroes
 *       sector=0 nr_sectors=16 flags=unmap                   (one line)
 *   ftlblk0 op=write sector=8 nr_sectors=8 flags=fua|preflush
 *   ftlblk0 op=write sector=16 nr_sectors=8 flags= class=2
 *   ftlblk0 op=write sector=64 nr_sectors=128 flags=atomic class=0
 *
 * A trace_pipe line (the part before the event name varies with the
 * kernel and its trace options) or the same stripped to begin at the disk
 * name. The module ends every line in class=N: a write's placement
 * class, 0 for every other request; without it (older traces), class 0.
 * Other
 * events of a trace_pipe line and '#' comments (the trace file's header)
 * are skipped.
 */
#define FTLBLK_EVENT	"ftlblk_request: "

/*
 * Is @s a trace_pipe line ("TASK-PID [CPU] FLAGS SECS.USECS: EVENT:
 * ...")? Its timestamp ends in ':', and so does the event's name after it.
 */
static bool is_event_line(const char *s)
{
	char tmp[32];
	uint64_t v;
	size_t l;

	for (s += strspn(s, " \t"); *s; s += strspn(s, " \t")) {
		l = strcspn(s, " \t");
		if (l >= 2 && l <= sizeof(tmp) && s[l - 1] == ':') {
			memcpy(tmp, s, l - 1);
			tmp[l - 1] = '\0';
			/* a counter clock's timestamp has no '.' */
			if (is_time(tmp) || parse_dec(tmp, &v)) {
				s += l + strspn(s + l, " \t");
				l = strcspn(s, " \t");
				return l >= 2 && s[l - 1] == ':';
			}
		}
		s += l;
	}
	return false;
}

/* The value of "KEY=VALUE" token @tok, or NULL if its key is not @key. */
static const char *ftlblk_field(const char *tok, const char *key)
{
	size_t l = strlen(key);

	return !strncmp(tok, key, l) && tok[l] == '=' ? tok + l + 1 : NULL;
}

/*
 * flags=: fua and preflush change nothing in a replay; note unmap and
 * atomic.
 */
static int ftlblk_flags(struct trace_parser *p, const char *s, bool *unmap,
			bool *atomic)
{
	*unmap = false;
	*atomic = false;
	while (*s) {
		size_t l = strcspn(s, "|");

		if (l == 5 && !strncmp(s, "unmap", 5))
			*unmap = true;
		else if (l == 6 && !strncmp(s, "atomic", 6))
			*atomic = true;
		else if (!(l == 3 && !strncmp(s, "fua", 3)) &&
			 !(l == 8 && !strncmp(s, "preflush", 8)))
			return fail(p, "unknown flag '%.*s' (fua, preflush, unmap, "
				    "atomic)", (int)(l < 40 ? l : 40), s);
		s += l;
		if (*s == '|' && !*++s)
			return fail(p, "flags= ends in '|'");
	}
	return 0;
}

/*
 * op= and its unmap flag into @req's op and zero; 0 for a flush (no
 * request). The module deallocates for a write-zeroes only with "unmap"
 * (no REQ_NOUNMAP, and discard=1); without it, it programs zeroes.
 */
static int ftlblk_op(struct trace_parser *p, const char *op, bool unmap,
		     struct trace_req *req)
{
	bool zeroes = !strcmp(op, "write-zeroes"), flush = !strcmp(op, "flush");

	req->op = TRACE_DISCARD;
	if (zeroes)
		req->zero = unmap ? TRACE_ZERO_UNMAP : TRACE_ZERO_PROGRAM;
	else if (!strcmp(op, "secure-erase"))
		req->zero = TRACE_ZERO_SECURE;
	else if (!strcmp(op, "read"))
		req->op = TRACE_READ;
	else if (!strcmp(op, "write"))
		req->op = TRACE_WRITE;
	else if (!flush && strcmp(op, "discard"))
		return fail(p, "unknown op '%.40s' (read, write, flush, discard, "
			    "secure-erase, write-zeroes)", op);
	if (unmap && !zeroes)
		return fail(p, "flag 'unmap' on op=%s (only write-zeroes has "
			    "it)", op);
	return !flush;
}

/*
 * The class=N after flags= (optional): only a write has one other than 0
 * (the other ops program nothing, or zeroes the module places as class 0).
 */
static int ftlblk_class(struct trace_parser *p, const char *tok,
			const struct trace_req *req, unsigned int *cls)
{
	const char *v = ftlblk_field(tok, "class");
	uint64_t c;

	if (!v)
		return fail(p, "unknown field '%.40s' after flags= (want "
			    "class=N)", tok);
	if (!parse_dec(v, &c) || c >= TRACE_MAX_CLASSES)
		return fail(p, "bad class '%.40s' (decimal, below %d)", v,
			    TRACE_MAX_CLASSES);
	if (c && req->op != TRACE_WRITE)
		return fail(p, "class=%llu on a request that is no write",
			    (unsigned long long)c);
	*cls = (unsigned int)c;
	return 0;
}

/* One disk's trace: the first request line names it. */
static int ftlblk_disk(struct trace_parser *p, const char *disk)
{
	if (strchr(disk, '=') || strlen(disk) >= TRACE_DISK_MAX)
		return fail(p, "bad disk name '%.40s' (want 'DISK op=OP "
			    "sector=N nr_sectors=N flags=F')", disk);
	if (!p->disk[0])
		strcpy(p->disk, disk);
	else if (strcmp(disk, p->disk))
		return fail(p, "event of device %s in a trace of %s (replay "
			    "one device's trace)", disk, p->disk);
	return 0;
}

/* "DISK op=OP sector=N nr_sectors=N flags=F [class=N]", split into @t. */
static int ftlblk_request(struct trace_parser *p, char **t, int n,
			  struct trace_req *req)
{
	const char *op, *sec, *nr, *flags;
	uint64_t sector, nr_sects;
	unsigned int cls = 0;
	bool unmap, atomic;
	int ret;

	if ((n != 5 && n != 6) || !(op = ftlblk_field(t[1], "op")) ||
	    !(sec = ftlblk_field(t[2], "sector")) ||
	    !(nr = ftlblk_field(t[3], "nr_sectors")) ||
	    !(flags = ftlblk_field(t[4], "flags")))
		return fail(p, "want 'DISK op=OP sector=N nr_sectors=N "
			    "flags=F [class=N]' (ftlblk_request)");
	if (ftlblk_disk(p, t[0]) || ftlblk_flags(p, flags, &unmap, &atomic))
		return -1;
	if (!parse_dec(sec, &sector))
		return fail(p, "bad sector '%.40s'", sec);
	if (!parse_dec(nr, &nr_sects))
		return fail(p, "bad nr_sectors '%.40s'", nr);
	if (sector + nr_sects < sector)
		return fail(p, "sector %llu + %llu overflows",
			    (unsigned long long)sector,
			    (unsigned long long)nr_sects);
	ret = ftlblk_op(p, op, unmap, req);
	if (ret < 0)
		return ret;
	if (n == 6 && ftlblk_class(p, t[5], req, &cls))
		return -1;
	if (atomic && req->op != TRACE_WRITE)
		return fail(p, "flag 'atomic' on op=%s (only a write has it)",
			    op);
	if (!ret || !nr_sects) {
		p->skipped++;		/* a flush, or no range */
		return 0;
	}
	req->sector = sector;
	req->nr_sects = nr_sects;
	req->cls = cls;
	req->atomic = atomic;
	return 1;
}

static int parse_ftlblk(struct trace_parser *p, char *buf,
			struct trace_req *req)
{
	char *s = buf + strspn(buf, " \t"), *ev = strstr(s, FTLBLK_EVENT);
	char *tok[MAX_TOKENS];
	int n;

	if (!*s || *s == '#') {
		p->skipped++;		/* blank, or the trace file's header */
		return 0;
	}
	if (ev) {
		s = ev + strlen(FTLBLK_EVENT);
	} else if (strstr(s, "[LOST ")) {
		return fail(p, "the trace lost events: it is incomplete");
	} else if (is_event_line(s)) {
		p->skipped++;		/* another event */
		return 0;
	}
	n = split(s, " \t", false, tok, MAX_TOKENS);
	return ftlblk_request(p, tok, n, req);
}

int trace_parse_line(struct trace_parser *p, const char *s, size_t len,
		     struct trace_req *req)
{
	char buf[LINE_MAX_LEN + 1];
	char *tok[MAX_TOKENS];
	int n;

	p->line++;
	p->err[0] = '\0';
	memset(req, 0, sizeof(*req));
	while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' ||
		       s[len - 1] == '\t'))
		len--;
	if (len > LINE_MAX_LEN)
		return fail(p, "line longer than %d bytes", LINE_MAX_LEN);
	if (memchr(s, '\0', len))
		return fail(p, "NUL byte in line");
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* a task name may hold blanks: ftlblk splits after the event name */
	if (p->format == TRACE_FTLBLK)
		return parse_ftlblk(p, buf, req);
	if (p->format == TRACE_MSR)
		n = split(buf, ",", true, tok, MAX_TOKENS);
	else
		n = split(buf, " \t", false, tok, MAX_TOKENS);
	if (n < 0 && p->format == TRACE_BLKPARSE) {
		/* long process names or messages: the fields we read come first */
		n = MAX_TOKENS;
	} else if (n < 0) {
		return fail(p, "too many fields");
	}
	if (n == 0 || (n == 1 && !tok[0][strspn(tok[0], " \t")])) {
		p->skipped++;		/* blank line */
		return 0;
	}
	switch (p->format) {
	case TRACE_BLKPARSE:
		return parse_blkparse(p, tok, n, req);
	case TRACE_IOLOG:
		return parse_iolog(p, tok, n, req);
	case TRACE_MSR:
		return parse_msr(p, tok, n, req);
	case TRACE_FTLBLK:
		break;
	}
	return fail(p, "unknown trace format");
}
