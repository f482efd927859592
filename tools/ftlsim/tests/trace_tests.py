# SPDX-License-Identifier: GPL-2.0
"""Trace replay tests for ftlsim (run from validate.py, same report()).

  - each parser (blkparse with D, C and Q events, fio iolog v2 and v3, MSR
    CSV) on a small sample: `ftlsim --trace-dump` must list exactly the
    requests of the sample, with their line numbers;
  - bad lines: exit status 1 and "FILE:LINE: reason" naming the line;
  - replay: the counters of two tiny traces against expectations worked
    out by hand below (partial pages, discards of whole and partial pages,
    reads; garbage collection with relocations);
  - the sanitizer build replays the samples with ftl_check();
  - iolog-replay (the guest tool) on a regular file: its --dry-run lists
    what ftlsim --trace-dump lists, the file ends up holding what the log
    wrote and trimmed, and a bad line fails with its number.
"""
import json
import os
import subprocess
import tempfile

SECTOR = 512

# ---- samples ------------------------------------------------------------

BLKPARSE = """\
  8,0    1        1     0.000000000   412  Q  WS 2048 + 8 [fio]
  8,0    1        2     0.000001000   412  G  WS 2048 + 8 [fio]
  8,0    1        3     0.000002000   412  I  WS 2048 + 8 [fio]
  8,0    1        4     0.000003000   412  D  WS 2048 + 8 [fio]
  8,0    1        5     0.000004000     0  C  WS 2048 + 8 [0]
  8,0    0        6     0.000010000   412  Q   R 0 + 16 [fio]
  8,0    0        7     0.000011000   412  D   R 0 + 16 [fio]
  8,0    0        8     0.000012000     0  C   R 0 + 16 [0]
  8,0    0        9     0.000020000   500  Q   D 64 + 8 [blkdiscard]
  8,0    0       10     0.000021000   500  Q   D 80 + 8 [blkdiscard]
  8,0    0       11     0.000022000   500  M   D 80 + 8 [blkdiscard]
  8,0    0       12     0.000023000   500  D   D 64 + 24 [blkdiscard]
  8,0    0       13     0.000024000     0  C   D 64 + 24 [0]
  8,0    0       14     0.000030000   412  Q FWS [kworker/0:1H]
  8,0    0       15     0.000031000   412  D  FN [kworker/0:1H]
  8,0    0       16     0.000032000     0  C  FN 0 [0]
  8,0    0       17     0.000040000   412  D  WS 4096 + 4 [fio]
  8,0    0       18     0.000041000     0  C  WS 4096 + 4 [-5]
  8,0    1        0     0.000050000     0  m   N cfq412 insert_request
  8,0    1       19     0.000060000   412  P   N [fio]
  8,0    1       20     0.000061000   412  U   N [fio] 1

CPU0 (8,0):
 Reads Queued:           1,        8KiB\t Writes Queued:           1,        4KiB
 Read Dispatches:        1,        8KiB\t Write Dispatches:        1,        4KiB
Total (8,0):
 Reads Queued:           1,        8KiB\t Writes Queued:           1,        4KiB

Throughput (R/W): 8KiB/s / 4KiB/s
Events (8,0): 21 entries
Skips: 0 forward (0 -   0.0%)
"""
BLKPARSE_WANT = {
    # D: requests as ftlblk receives them; the merged discard is one range
    "D": [(4, "write", 2048, 8), (7, "read", 0, 16),
          (12, "discard", 64, 24), (17, "write", 4096, 4)],
    # C: completions; the failed write (-5) is not applied
    "C": [(5, "write", 2048, 8), (8, "read", 0, 16),
          (13, "discard", 64, 24)],
    # Q: bios as submitted, before merging
    "Q": [(1, "write", 2048, 8), (6, "read", 0, 16),
          (9, "discard", 64, 8), (10, "discard", 80, 8)],
}

IOLOG2 = """\
fio version 2 iolog
/dev/ftlblk0 add
/dev/ftlblk0 open
/dev/ftlblk0 write 0 8192
/dev/ftlblk0 write 512 1024
/dev/ftlblk0 read 0 16384
/dev/ftlblk0 trim 0 4096
/dev/ftlblk0 sync 0 0
/dev/ftlblk0 wait 0 100
/dev/ftlblk0 trim 4608 512
/dev/ftlblk0 datasync 0 0
/dev/ftlblk0 close
"""
IOLOG2_WANT = [(4, "write", 0, 16), (5, "write", 1, 2), (6, "read", 0, 32),
               (7, "discard", 0, 8), (10, "discard", 9, 1)]

IOLOG3 = """\
fio version 3 iolog
0 /dev/ftlblk0 add
0 /dev/ftlblk0 open
12 /dev/ftlblk0 write 1048576 131072
13 /dev/ftlblk0 read 4096 512
20 /dev/ftlblk0 trim 1048576 4096
21 /dev/ftlblk0 close
"""
IOLOG3_WANT = [(4, "write", 2048, 256), (5, "read", 8, 1),
               (6, "discard", 2048, 8)]

MSR = """\
128166372003061629,hm,0,Write,3872964608,4096,3880\r
128166372016382155,hm,0,Read,1024,65536,9470\r
128166372026382245,hm,0,write,0,512,100\r
"""
MSR_WANT = [(1, "write", 7564384, 8), (2, "read", 2, 128),
            (3, "write", 0, 1)]

# (format, text, line number named in the error, part of the message)
IOLOG_OK_HEAD = "fio version 2 iolog\n/dev/x add\n"
BAD = [
    ("iolog", "fio version 4 iolog\n", 1, "first line"),
    ("iolog", "", 0, "empty"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write 0 4096\n/dev/x write 100 512\n",
     4, "not a multiple of 512"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write 0 4096\n/dev/x erase 0 512\n",
     4, "unknown action"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write 0\n", 3, "FILE ACTION"),
    ("iolog", IOLOG_OK_HEAD + "/dev/y write 0 4096\n", 3, "before its 'add'"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write 0x10 4096\n", 3, "bad offset"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write 0 99999999999999999999\n", 3,
     "bad length"),
    ("iolog", "fio version 3 iolog\n0 /dev/x add\nabc /dev/x write 0 4096\n",
     3, "timestamp"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write %d 4096\n" % (1 << 30), 3,
     "beyond the end of the device"),
    ("blkparse", BLKPARSE.split("\n\n")[0] + "\n  8,16   0  1  0.1  5  D  W 0 + 8 [x]\n",
     22, "device 8,16"),
    ("blkparse", "  8,0 0 1 0.0 5 D W 0 + 8 [x]\nhello world\n", 2,
     "not a blkparse event line"),
    ("blkparse", "  8,0 0 1 0.0 5 D W 0 - 8 [x]\n", 1, "SECTOR + COUNT"),
    ("blkparse", "  8,0 0 1 zero 5 D W 0 + 8 [x]\n", 1, "malformed"),
    ("blkparse", "  8,0 0 1 0.0 5 D X 0 + 8 [x]\n", 1, "unknown RWBS"),
    ("msr", "1,hm,0,Write,0,4096,1\n1,hm,0,Write,0,4096\n", 2, "7 comma"),
    ("msr", "1,hm,0,Trim,0,4096,1\n", 1, "unknown type"),
    ("msr", "1,hm,0,Read,-512,4096,1\n", 1, "bad offset"),
    ("msr", "1,hm,0,Read,512,4000,1\n", 1, "not a multiple of 512"),
]

# ---- replay expectations, by hand ----------------------------------------
#
# Trace A: 64 logical pages of 4 KiB (8 sectors), no GC. Page p is sectors
# 8p..8p+7. "host" = host_pages_written, "zeroed" = sectors_zeroed.
REPLAY_A = """\
fio version 2 iolog
/dev/x add
/dev/x write 0 8192
/dev/x write 512 1024
/dev/x read 0 16384
/dev/x trim 0 4096
/dev/x trim 4608 512
/dev/x trim 5120 3072
/dev/x trim 4096 512
/dev/x trim 16384 1024
/dev/x write 13824 512
/dev/x trim 13312 1536
/dev/x write 16384 4096
/dev/x trim 16384 3584
/dev/x trim 18432 8192
/dev/x read 16384 12288
"""
# line 3  write pages 0, 1 whole                  host 2, valid 2
# line 4  sectors 1-2 of page 0: read-modify-write host 3
# line 5  read pages 0-3: 2 mapped, 2 unmapped    read 4, unmapped 2
# line 6  trim page 0 whole: discarded            pages_discarded 1 (valid 1)
# line 7  trim sector 9 (page 1, sector 1): still data -> programmed:
#         host 4, zeroed 1
# line 8  trim sectors 10-15: sector 8 still data -> programmed: host 5,
#         zeroed 7
# line 9  trim sector 8: page 1 now all zeroes -> unmapped (not counted as
#         discarded): valid 0, zeroed 8
# line 10 trim sectors 32-33 of unmapped page 4: nothing, zeroed 10
# line 11 write sector 27 (page 3, sector 3): read-modify-write, host 6
# line 12 trim sectors 26-28 of page 3: all zeroes -> unmapped, zeroed 13
# line 13 write page 4 whole: host 7
# line 14 trim sectors 32-38: sector 39 keeps data -> programmed, host 8,
#         zeroed 20
# line 15 trim sectors 36-51: page 4 sectors 4-7 (all zeroes now ->
#         unmapped), page 5 whole (discarded, held nothing: pages_discarded
#         2, valid_pages_discarded still 1), page 6 sectors 0-3 (unmapped:
#         nothing); zeroed 28
# line 16 read pages 4-6: all unmapped: read 7, unmapped 5
REPLAY_A_ARGS = ["--logical-pages", 64, "--pages-per-block", 4,
                 "--op-percent", 25, "--wl-threshold", 0]
REPLAY_A_WANT = {"host_pages_written": 8, "nand_pages_written": 8,
                 "host_pages_read": 7, "unmapped_reads": 5,
                 "pages_discarded": 2, "valid_pages_discarded": 1,
                 "sectors_zeroed": 28, "valid_pages": 0, "gc_runs": 0,
                 "erases": 0, "discard_requests": 8, "write_requests": 4,
                 "read_requests": 2}

# Trace C: a partial write to a written page keeps the rest of it: write
# page 0 whole (host 1), sector 1 again (read-modify-write, host 2), trim
# sector 1: the other 7 sectors still hold data, so the page is programmed
# again (host 3) and stays mapped; zeroed 1.
REPLAY_C = """\
fio version 2 iolog
/dev/x add
/dev/x write 0 4096
/dev/x write 512 512
/dev/x trim 512 512
"""
REPLAY_C_WANT = {"host_pages_written": 3, "valid_pages": 1,
                 "sectors_zeroed": 1, "pages_discarded": 0}

# Trace B: 8 logical pages, 2 pages per block, op 100 %: 4 + 4 spare = 8
# blocks, GC when the host needs a block and fewer than 2 are free, until
# 2 are. Pages written: 0-7 in one request (blocks 1-4, free 4), then
# 0, 2, 4, 6 (blocks 5, 6; free 2; blocks 1-4 hold one valid page each),
# 0 (block 7 opened, free 1; block 5 keeps page 2), 4 (block 7 full:
# {0, 4}; block 6 keeps page 6). Every closed block now holds exactly one
# valid page except block 7 (two). Write 15 (page 0) needs a block with
# 1 free: GC takes the GC stream's block (free 0), relocates a victim's
# one page (greedy: any 1-valid block) and erases it (free 1), then a
# second victim's page fills the GC block, erase: free 2. So 2 GC runs,
# 2 relocations, 2 erases; NAND 15 + 2. Then the whole device is trimmed:
# 8 pages discarded, all 8 held data.
REPLAY_B = ("fio version 3 iolog\n0 /dev/x add\n1 /dev/x write 0 32768\n" +
            "".join("%d /dev/x write %d 4096\n" % (2 + i, p * 4096)
                    for i, p in enumerate([0, 2, 4, 6, 0, 4, 0])) +
            "9 /dev/x trim 0 32768\n")
REPLAY_B_ARGS = ["--logical-pages", 8, "--pages-per-block", 2,
                 "--op-percent", 100, "--wl-threshold", 0]
REPLAY_B_WANT = {"host_pages_written": 15, "nand_pages_written": 17,
                 "gc_relocations": 2, "gc_runs": 2, "erases": 2,
                 "pages_discarded": 8, "valid_pages_discarded": 8,
                 "valid_pages": 0, "write_requests": 8,
                 "discard_requests": 1}


def _dump(run, path, fmt, extra=()):
    p = run(["--trace", path, "--trace-format", fmt, "--trace-dump"] +
            list(extra), check=False)
    got = []
    for ln in p.stdout.splitlines():
        f = ln.split()
        got.append((int(f[0]), f[1], int(f[2]), int(f[3])))
    return p, got


def run_trace_tests(run, report, san=None, iolog_replay=None):
    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write(text)
            return path

        # -- parsers
        bp = write("sample.blkparse", BLKPARSE)
        for ev, want in sorted(BLKPARSE_WANT.items()):
            p, got = _dump(run, bp, "blkparse",
                           [] if ev == "D" else ["--blkparse-event", ev])
            report(p.returncode == 0 and got == want,
                   "blkparse, %s events: %d requests %s (want %s)%s" %
                   (ev, len(got), got, want, p.stderr.strip()))
        for name, fmt, text, want in (
                ("v2.iolog", "iolog", IOLOG2, IOLOG2_WANT),
                ("v3.iolog", "iolog", IOLOG3, IOLOG3_WANT),
                ("msr.csv", "msr", MSR, MSR_WANT)):
            p, got = _dump(run, write(name, text), fmt)
            report(p.returncode == 0 and got == want,
                   "%s parser (%s): %s (want %s)%s" %
                   (fmt, name, got, want, p.stderr.strip()))

        # -- bad lines: exit 1, FILE:LINE: reason
        for i, (fmt, text, line, words) in enumerate(BAD):
            path = write("bad%d.%s" % (i, fmt), text)
            p = run(["--logical-pages", 1024, "--pages-per-block", 16,
                     "--op-percent", 50, "--trace", path, "--trace-format",
                     fmt], check=False)
            err = p.stderr.strip()
            want = "%s:%d: " % (path, line)
            report(p.returncode == 1 and want in err and words in err and
                   "Sanitizer" not in err and not p.stdout,
                   "bad %s line %d (%s): exit %d, %s" %
                   (fmt, line, words, p.returncode, err))

        # -- replay counters, worked out by hand
        for label, text, args, want in (
                ("A (partial pages, discards, reads)", REPLAY_A,
                 REPLAY_A_ARGS, REPLAY_A_WANT),
                ("B (GC relocations)", REPLAY_B, REPLAY_B_ARGS,
                 REPLAY_B_WANT),
                ("C (partial write to a written page)", REPLAY_C,
                 REPLAY_A_ARGS, REPLAY_C_WANT)):
            path = write("replay%s.iolog" % label[0], text)
            p = run(args + ["--trace", path, "--trace-format", "iolog",
                            "--json", "--check"], check=False)
            j = json.loads(p.stdout) if p.returncode == 0 else {}
            bad = {k: (j.get(k), v) for k, v in want.items()
                   if j.get(k) != v}
            report(p.returncode == 0 and not bad,
                   "replay %s: %s%s" % (label, "all %d counters as worked "
                                        "out by hand" % len(want)
                                        if not bad else
                                        "got/want %s" % bad,
                                        p.stderr.strip()))
        # the same trace as blkparse D events and as MSR gives the same
        # result (writes and reads only: MSR has no discards)
        lines = []
        msr = []
        for n, ln in enumerate(REPLAY_B.splitlines()[2:-1]):
            f = ln.split()
            off, ln_ = int(f[3]), int(f[4])
            lines.append("  8,0 0 %d 0.%09d 1 D W %d + %d [fio]" %
                         (n + 1, n, off // SECTOR, ln_ // SECTOR))
            msr.append("%d,h,0,Write,%d,%d,1" % (n, off, ln_))
        lines.append("  8,0 0 99 1.0 1 D D 0 + 64 [blkdiscard]")
        j1 = json.loads(run(REPLAY_B_ARGS + [
            "--trace", write("b.blkparse", "\n".join(lines) + "\n"),
            "--trace-format", "blkparse", "--json"]).stdout)
        j2 = json.loads(run(REPLAY_B_ARGS + [
            "--trace", write("b.csv", "\n".join(msr) + "\n"),
            "--trace-format", "msr", "--json"]).stdout)
        keys = ("host_pages_written", "nand_pages_written",
                "gc_relocations", "erases", "pages_discarded")
        report(all(j1[k] == REPLAY_B_WANT[k] for k in keys) and
               all(j2[k] == REPLAY_B_WANT[k] for k in keys[:4]),
               "trace B as blkparse: %s; as MSR (no trim): %s" %
               ([j1[k] for k in keys], [j2[k] for k in keys[:4]]))

        # -- whole-page writes replay like the synthetic workload
        seq = ["fio version 2 iolog", "/dev/x add"]
        n = 4096
        for i in range(3 * n):
            seq.append("/dev/x write %d 4096" % ((i % n) * 4096))
        geo = ["--logical-pages", n, "--pages-per-block", 16,
               "--op-percent", 10, "--policy", "fifo"]
        jt = json.loads(run(geo + ["--trace", write("seq.iolog",
                                                    "\n".join(seq) + "\n"),
                                   "--trace-format", "iolog",
                                   "--json"]).stdout)
        js = json.loads(run(geo + ["--workload", "sequential",
                                   "--writes", 3, "--json"]).stdout)
        keys = ("host_pages_written", "nand_pages_written",
                "gc_relocations", "erases", "wl_relocations")
        report(all(jt[k] == js[k] for k in keys) and js["erases"] > 0,
               "3 sequential passes as a trace = --workload sequential "
               "--writes 3: %s vs %s" % ([jt[k] for k in keys],
                                         [js[k] for k in keys]))
        # ... and one trim of all 4096 pages goes to the core in batches of
        # 1024, as the module's unmap_pages() does
        jd = json.loads(run(geo + ["--trace", write(
            "seqtrim.iolog", "\n".join(seq) + "\n/dev/x trim 0 %d\n" %
            (n * 4096)), "--trace-format", "iolog", "--json"]).stdout)
        report(jd["pages_discarded"] == n and
               jd["valid_pages_discarded"] == n and jd["valid_pages"] == 0
               and jd["discard_calls"] == 4,
               "trim of all %d pages: %d discarded (%d held data), %d "
               "valid left, %d core calls (want 4 batches of 1024)" %
               (n, jd["pages_discarded"], jd["valid_pages_discarded"],
                jd["valid_pages"], jd["discard_calls"]))

        # -- command line
        p = run(["--trace", bp], check=False)
        report(p.returncode == 2 and "--trace-format" in p.stderr,
               "--trace without --trace-format: exit %d (want 2)" %
               p.returncode)
        p = run(["--trace", bp, "--trace-format", "blkparse",
                 "--writes", 2], check=False)
        report(p.returncode == 2, "--trace with --writes: exit %d (want 2)" %
               p.returncode)

        # -- sanitizer build replays every sample with ftl_check()
        if san:
            for name, fmt, args in (
                    ("sample.blkparse", "blkparse", []),
                    ("v2.iolog", "iolog", ["--size", "1M", "--pages-per-block", 4,
                                           "--op-percent", 25]),
                    ("msr.csv", "msr", ["--size", "4G",
                                        "--pages-per-block", 64]),
                    ("replayB.iolog", "iolog", REPLAY_B_ARGS),
                    ("seq.iolog", "iolog", geo)):
                p = run(args + ["--trace", os.path.join(d, name),
                                "--trace-format", fmt, "--check",
                                "--csv-interval", 16, "--json"],
                        binary=san, check=False)
                report(p.returncode == 0 and "runtime error" not in
                       p.stderr and "Sanitizer" not in p.stderr,
                       "ASan/UBSan replay of %s: exit %d %s" %
                       (name, p.returncode, p.stderr.strip()[-1000:]))

        if iolog_replay:
            test_iolog_replay(run, report, iolog_replay, d, write)


def test_iolog_replay(run, report, tool, d, write):
    """The guest tool on a regular file (BLKDISCARD needs a block device;
    on a file a trim punches a hole, which reads back as zeroes too)."""
    def tool_run(args):
        return subprocess.run([tool] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)

    for name, text in (("a.iolog", REPLAY_A), ("v3.iolog", IOLOG3),
                       ("b.iolog", REPLAY_B)):
        path = write(name, text)
        t = tool_run([path, "--dry-run"])
        _, got = _dump(run, path, "iolog")
        mine = [tuple(int(x) if x.isdigit() else x for x in ln.split())
                for ln in t.stdout.splitlines()]
        report(t.returncode == 0 and mine == got and got,
               "iolog-replay --dry-run %s lists what ftlsim --trace-dump "
               "lists (%d requests); %s" % (name, len(got), t.stderr.strip()))

    # Replay A up to line 14 (sector 39 still holds data), plus a write
    # across pages, on a 64-page file; compare with a model of its contents.
    text = ("\n".join(REPLAY_A.splitlines()[:14]) +
            "\n/dev/x write 40960 5632\n")
    path = write("a14.iolog", text)
    img = os.path.join(d, "dev.img")
    size = 64 * 4096
    with open(img, "wb") as f:
        f.truncate(size)
    t = tool_run([path, "--redirect", img])
    model = bytearray(size)
    for n, ln in enumerate(text.splitlines(), 1):
        f = ln.split()
        if len(f) != 4 or f[1] not in ("write", "trim"):
            continue
        off, ln_ = int(f[2]), int(f[3])
        byte = (n % 255) + 1 if f[1] == "write" else 0
        model[off:off + ln_] = bytes([byte]) * ln_
    with open(img, "rb") as f:
        data = f.read()
    report(t.returncode == 0 and data == bytes(model) and any(model),
           "iolog-replay on a file: every sector holds what the log wrote "
           "(byte line%%255+1) or zeroes where it trimmed: exit %d%s" %
           (t.returncode, "" if data == bytes(model) else
            ", first difference at byte %d" %
            next(i for i in range(size) if data[i] != model[i])))

    bad = write("bad.iolog", IOLOG_OK_HEAD + "/dev/x write 0 4096\n"
                "/dev/x write 0 1000\n")
    t = tool_run([bad, "--redirect", img])
    report(t.returncode == 1 and "%s:4: " % bad in t.stderr,
           "iolog-replay, bad line 4: exit %d, %s" %
           (t.returncode, t.stderr.strip()))
    t = tool_run([write("short.iolog", IOLOG_OK_HEAD +
                        "/dev/x read %d 4096\n" % size), "--redirect", img])
    report(t.returncode == 1 and ":3: read" in t.stderr,
           "iolog-replay, read past the end of the file (line 3): exit %d, "
           "%s" % (t.returncode, t.stderr.strip()))
    t = tool_run([path])
    report(t.returncode == 1 and ":3: cannot open /dev/x" in t.stderr,
           "iolog-replay without --redirect opens the log's file: exit %d, "
           "%s" % (t.returncode, t.stderr.strip()))
