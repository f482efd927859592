#!/usr/bin/env python3
"""make study's report: OUT/study.md and OUT/study.png from a demo/run OUT.

    demo/report.py OUT [--wall SECONDS] [--date TEXT]

Reads what demo/run left in OUT/data: REGIME.final (the device's statistics
after umount, the regime's settings, the filesystem's usage), REGIME.perf
(steady MiB/s, latency and discard-size percentiles: demo/rate.awk,
demo/events.awk) and REGIME.csv (samples over the run, for the figure).
Only arithmetic on those numbers here; each column's definition is written
into study.md below the tables. Exits non-zero if a regime's file is
missing or a number is unreadable.
"""
import argparse
import os
import subprocess
import sys

FS_ORDER = ["vfat", "ext4", "xfs", "btrfs", "f2fs"]
MODE_ORDER = ["nodiscard", "discard", "discard-sync", "discard-async", "fstrim"]


def read_kv(path):
    d = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if "=" in line:
                k, v = line.split("=", 1)
                d.setdefault(k, v)
    return d


def label(regime):
    fs, mode = regime.split("-", 1)
    if mode == "nodiscard":
        return fs + " nodiscard"
    if mode == "discard":
        return fs + (" default (discard)" if fs == "f2fs" else " -o discard")
    if mode.startswith("discard-"):
        return fs + " discard=" + mode[len("discard-"):]
    return fs + " + fstrim"


class Regime:
    def __init__(self, data, name):
        self.name = name
        self.fs, self.mode = name.split("-", 1)
        self.f = read_kv(os.path.join(data, name + ".final"))
        self.p = read_kv(os.path.join(data, name + ".perf"))
        self.csv = os.path.join(data, name + ".csv")
        self.ps = self.num("page_size")

    def num(self, key, src=None):
        v = (src or self.f).get(key)
        if v is None or v == "-" or v == "":
            raise KeyError("%s: no %s" % (self.name, key))
        return float(v)

    def opt(self, key):
        """A .perf number that may be absent (no such events)."""
        try:
            return self.num(key, self.p)
        except KeyError:
            return None

    def mib(self, pages_key):
        return self.num(pages_key) * self.ps / 1048576.0

    def late_waf(self):
        """WAF over the second half of the host writes (demo/rate.awk)."""
        return self.num("steady_waf", self.p)


def fmt(x, spec="%.1f", none="-"):
    return none if x is None else spec % x


def ms(ns, spec="%.2f"):
    return None if ns is None else float(spec % (ns / 1e6))



def regimes_in(data):
    names = [f[:-6] for f in os.listdir(data) if f.endswith(".final")]

    def key(n):
        fs, mode = n.split("-", 1)
        return (FS_ORDER.index(fs) if fs in FS_ORDER else 99,
                MODE_ORDER.index(mode) if mode in MODE_ORDER else 99)
    return sorted(names, key=key)


def steady_note(rs):
    """STEADY=1: each regime's passes, or None."""
    if not any(r.f.get("passes") for r in rs):
        return None
    return ("Steady state (STEADY=1): every regime ran the same sequence of file "
            "operations from the start, each until a pass of one capacity of file "
            "data had a WAF within %s %% of the pass before (at most %s passes). "
            "Passes and their WAF: %s." % (
                rs[0].f.get("steady_pct", "?"), rs[0].f.get("writes", "?"),
                "; ".join("%s %s%s (%s)" % (
                    label(r.name), r.f.get("passes", "?"),
                    "" if r.f.get("steady_reached") == "1" else " NOT STEADY",
                    r.f.get("pass_wafs", "")) for r in rs)))


def same_ops(rs):
    if steady_note(rs):
        return steady_note(rs)
    sums = sorted({r.f.get("ops_checksum") for r in rs})
    if len(sums) == 1:
        return ("Every regime of every filesystem ran the same %s file creates and their "
                "deletes (ops checksum %s)." % (rs[0].f.get("files_created"), sums[0]))
    per_fs = {}
    for r in rs:
        per_fs.setdefault(r.fs, set()).add(r.f.get("ops_checksum"))
    if rs[0].f.get("fill_of") != "device" and all(len(v) == 1 for v in per_fs.values()):
        return ("The regimes of each filesystem ran the same file operations; the "
                "filesystems' differ (FILL_OF=fs: the fill is a share of each filesystem's size).")
    return ("**WARNING: the regimes ran different file operations (ops checksums %s).**"
            % ", ".join(sums))


def tables(rs, timing):
    out = []
    by_fs = {}
    for r in rs:
        by_fs.setdefault(r.fs, []).append(r)
    for fs in [f for f in FS_ORDER if f in by_fs] + \
            [f for f in by_fs if f not in FS_ORDER]:
        group = by_fs[fs]
        sums = {r.f.get("ops_checksum") for r in group}
        out.append("### %s\n" % fs)
        if steady_note(group):
            out.append(steady_note(group) + "\n")
        elif len(sums) == 1:
            out.append("Every regime ran the same %s file creates and their "
                       "deletes (ops checksum %s).\n" %
                       (group[0].f.get("files_created"), sums.pop()))
        else:
            out.append("**WARNING: the regimes ran different file operations "
                       "(ops checksums %s).**\n" % ", ".join(sorted(sums)))
        out.append("| regime | mount options | host MiB | NAND MiB | WAF (2nd half) | GC relocated MiB | erases "
                   "| discard requests | discard size p50 / p99 KiB | discarded MiB (after the workload) "
                   "| freed -> discarded | device holds / df used MiB |")
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in group:
            freed = r.num("deleted_alloc_bytes")
            disc_valid = r.num("valid_pages_discarded") * r.ps
            p50, p99 = r.opt("discard_bytes_p50"), r.opt("discard_bytes_p99")
            late = disc_valid - r.num("workload_end_valid_pages_discarded") * r.ps
            idle = r.num("idle_s")
            out.append("| %s | `%s` | %.1f | %.1f | %s (%.3f) | %.1f | %d | %d | %s | %.1f (%.1f%s) | %s | %.1f / %.1f |" % (
                label(r.name), r.f.get("mount_options", "?"),
                r.mib("host_pages_written"), r.mib("nand_pages_written"),
                r.f["waf"], r.late_waf(), r.mib("gc_relocations"), r.num("erases"),
                r.num("discard_requests"),
                "-" if p50 is None else "%s / %s" % (fmt(p50 / 1024, "%.0f"), fmt(p99 / 1024, "%.0f")),
                disc_valid / 1048576.0, late / 1048576.0,
                ", %d s idle" % idle if idle else "",
                "-" if freed == 0 else "%.0f %%" % (100.0 * disc_valid / freed),
                r.mib("valid_pages"), r.num("fs_used_bytes") / 1048576.0))
        out.append("")
        if timing:
            out.append("| regime | steady MiB/s | write p50 / p99 / p99.9 ms | read p99 ms | "
                       "discard device time s | discard p99 ms | wall s |")
            out.append("|---|---:|---:|---:|---:|---:|---:|")
            for r in group:
                out.append("| %s | %s | %s / %s / %s | %s | %s | %s | %s |" % (
                    label(r.name), r.p.get("steady_mib_s", "-"),
                    fmt(ms(r.opt("write_p50_ns")), "%.2f"),
                    fmt(ms(r.opt("write_p99_ns")), "%.2f"),
                    fmt(ms(r.opt("write_p999_ns")), "%.2f"),
                    fmt(ms(r.opt("read_p99_ns")), "%.2f"),
                    fmt(None if r.opt("discard_ns_total") is None
                        else r.opt("discard_ns_total") / 1e9, "%.2f", "0"),
                    fmt(ms(r.opt("discard_p99_ns")), "%.2f"),
                    r.f.get("wall_s", "-")))
            out.append("")
    return out


def summary(rs, timing):
    out = ["| rank | by WAF, second half | WAF 2nd half / cumulative | | by p99 write latency | p99 write ms | read p99 ms |",
           "|---:|---|---:|---|---|---:|---:|"]
    by_waf = sorted(rs, key=lambda r: (r.late_waf(), r.name))
    if timing:
        by_lat = sorted(rs, key=lambda r: (r.opt("write_p99_ns") or 0, r.name))
    for i, r in enumerate(by_waf):
        row = "| %d | %s | %.3f / %s | |" % (i + 1, label(r.name), r.late_waf(), r.f["waf"])
        if timing:
            q = by_lat[i]
            row += " %s | %s | %s |" % (label(q.name),
                                        fmt(ms(q.opt("write_p99_ns")), "%.2f"),
                                        fmt(ms(q.opt("read_p99_ns")), "%.2f"))
        else:
            row += " - | - | - |"
        out.append(row)
    return out


DEFINITIONS = """\
How each column is computed (every regime: a new ftlblk device, mkfs without
discard, mount, the workload, `umount`; the device's statistics are read
after `umount`):

- **WAF 2nd half**: NAND pages / host pages programmed over the second half
  of the regime's host writes (from the first sample at or past half of the
  workload's final `host_pages_written` to the workload's end; REGIME.csv):
  nearer the steady state than the cumulative WAF, which still carries the
  first fill's WAF of 1. The summary ranks by it.
- **host MiB**, **NAND MiB**, **WAF**, **GC relocated MiB**, **erases**,
  **discard requests**: the device's own counters (`host_pages_written`,
  `nand_pages_written` x the page size, `waf`, `gc_relocations` x the page
  size, `erases`, `discard_requests`; docs/statistics.md). Host MiB counts
  everything the device received from mkfs to umount: file data, the
  filesystem's metadata and journal, read-modify-writes.
- **mount options**: what the regime passed to mount (the effective options,
  defaults included, are `mounted_options` in data/REGIME.final).
- **discard size p50 / p99**: nearest-rank percentiles of the byte size of
  every discard range the device received, from the `ftlblk:ftlblk_discard`
  tracepoint (traces/REGIME.discard).
- **discarded MiB**: `valid_pages_discarded` x the page size: pages that held
  data when a discard unmapped them (a discard of already-unmapped space,
  as fstrim repeats, counts nothing here). In brackets, the part of it that
  reached the device after the workload had ended: while the regimes that
  discard in the background (Btrfs `discard=async`, F2FS's default) stayed
  mounted and idle for the time shown, and at `umount`.
- **freed -> discarded**: discarded MiB / the bytes the filesystem had
  allocated to the files the workload deleted (`st_blocks` x 512 just before
  each unlink, `deleted_alloc_bytes`). 100 % means every freed block reached
  the device as a discard while it still held data; less means the
  filesystem wrote over freed blocks before discarding them (the device then
  learns by the overwrite) or never discarded them; more means it also
  discarded its own freed metadata.
- **device holds / df used**: the device's `valid_pages` x the page size after
  umount, and the used space `df` reported just before umount (data and
  metadata; F2FS counts its reserved segments as used, so its df figure is
  larger than what it holds). Where the device holds more than the
  filesystem uses, the difference is dead data the device still preserves
  and garbage collection still copies.
- **steady MiB/s**: host MiB written over the guest's wall-clock time in the
  second half of the regime's host writes (demo/rate.awk).
- **write p50 / p99 / p99.9**, **read p99**: nearest-rank percentiles (the
  value at rank ceil(p N)) of the modeled latency of every write and read
  request from mkfs to umount, from the `ftlblk:ftlblk_complete` tracepoint
  (traces/REGIME.complete). The reads are the workload's reader's O_DIRECT
  reads of random files, one every 10 ms (plus any the filesystem made).
- **discard device time**: the sum of the modeled latencies of all discard
  requests; **discard p99**: their 99th percentile. The timing model charges
  a discard no flash time (it only updates the map), so both come out 0:
  here a discard policy costs or saves latency only through what it leaves
  to, or spares, garbage collection. (On a real SSD a discard takes time,
  and Btrfs and F2FS batch and rate-limit theirs for that reason.)
"""


def mode_color(mode):
    """one colour per discard policy, the same in every panel"""
    return MODE_ORDER.index(mode) + 1 if mode in MODE_ORDER else 8


def gp_str(s):
    """s as a gnuplot double-quoted string (a newline stays a line break)"""
    s = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + s + '"'


def plot(out, rs, title, timing):
    """study.png: a WAF panel per filesystem (a line per regime, against
    the host data written in multiples of the capacity), then the p99
    write and read latency of every regime as bars. The gnuplot script is
    written to data/study.gp beside the data it plots."""
    fss = []
    for r in rs:
        if r.fs not in fss:
            fss.append(r.fs)
    data = os.path.join(out, "data")
    bars = os.path.join(data, "study-bars.dat")
    with open(bars, "w") as f:
        f.write("# index fs_index write_p99_ms read_p99_ms label\n")
        for i, r in enumerate(rs):
            f.write("%d %d %s %s %s\n" % (
                i, fss.index(r.fs),
                fmt(ms(r.opt("write_p99_ns"), "%.3f"), "%.3f", "NaN"),
                fmt(ms(r.opt("read_p99_ns"), "%.3f"), "%.3f", "NaN"),
                gp_str(label(r.name))))
    n = len(fss)
    g = ["set terminal pngcairo size %d,%d font 'Sans,10' noenhanced" % (
            max(1200, 330 * n), 1000 if timing else 520),
         "set output %s" % gp_str(os.path.join(out, "study.png")),
         "set datafile separator ','",
         "set datafile columnheaders",
         "set multiplot title %s" % gp_str(
             "How filesystems discard, and what it costs the flash\n" + title),
         "set grid", "set key top left box opaque font ',8'",
         "set xlabel 'host writes (x capacity)'",
         "set yrange [0.9:*]"]
    top, h = (0.5, 0.44) if timing else (0.0, 0.9)
    for i, fs in enumerate(fss):
        g.append("set origin %f,%f; set size %f,%f" % (i / n, top, 1.0 / n, h))
        g.append("set title %s" % gp_str(fs + ": cumulative WAF"))
        g.append("set ylabel %s" % gp_str("WAF" if i == 0 else ""))
        plots = []
        for r in rs:
            if r.fs != fs:
                continue
            plots.append("%s using (column('host_pages_written') / column('logical_pages')):"
                         "(column('host_pages_written') > 0 ? column('waf') : NaN) "
                         "with lines lw 2 lc %d title %s" % (
                             gp_str(r.csv), mode_color(r.mode),
                             gp_str(label(r.name)[len(fs) + 1:])))
        g.append("plot " + ", ".join(plots))
    reads = any(r.opt("read_p99_ns") is not None for r in rs)
    if timing:
        g += ["set datafile separator whitespace", "unset datafile columnheaders",
              "set origin 0,0; set size 1,0.48",
              "set title 'p99 modeled latency per regime (ftlblk:ftlblk_complete)'",
              "set ylabel 'ms (log scale)'", "unset xlabel", "set logscale y",
              "set yrange [0.01:*]", "set style data histogram",
              "set style histogram clustered gap 1", "set style fill solid 0.8 border -1",
              "set boxwidth 0.9", "set xtics rotate by -35 font ',9'",
              "set key top right",
              "plot %s using 3:xtic(5) title 'write p99'%s" % (
                  gp_str(bars), ", '' using 4 title 'read p99'" if reads else "")]
    g.append("unset multiplot")
    script = os.path.join(data, "study.gp")
    with open(script, "w") as f:
        f.write("\n".join(g) + "\n")
    subprocess.run(["gnuplot", script], check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--wall", type=int, default=None)
    ap.add_argument("--date", default=None)
    a = ap.parse_args()
    data = os.path.join(a.out, "data")
    names = regimes_in(data)
    if not names:
        sys.exit("report: no REGIME.final in %s" % data)
    try:
        rs = [Regime(data, n) for n in names]
        timing = rs[0].f.get("timing") == "1"
        r0 = rs[0]
        head = [
            "# How filesystems discard, and what it costs the flash",
            "",
            "Run %s on kernel %s; %s regimes%s." % (
                a.date or "-", r0.f.get("kernel", "?"), len(rs),
                "" if a.wall is None else ", %d min %d s in all" % (a.wall // 60, a.wall % 60)),
            "",
            "Device: ftlblk %s MiB, %s %% over-provisioning (%s spare blocks of %s pages of %d B), GC %s; %s." % (
                r0.f["size_mib"], r0.f["op_percent"], r0.f.get("spare_blocks"),
                r0.f.get("pages_per_block"), r0.ps, r0.f.get("gc_policy"),
                ("NAND timing model on: %s channels x %s dies, tR %s us, tPROG %s us, tBERS %s us, %s MB/s per channel" % (
                    r0.f["channels"], r0.f["dies_per_channel"], r0.f["read_us"],
                    r0.f["program_us"], r0.f["erase_us"], r0.f["channel_mbps"]))
                if timing else "timing model off (RAM speed): no latency columns"),
            "",
            "Workload (demo-workload, the same seed in every regime): files of 1 KiB to a few MiB, "
            "each written and fsync'ed, their total kept at %s %% of %s by deleting random files "
            "to make room, until %s x the device's capacity of file data has been written%s; "
            "the fstrim regimes run fstrim every %s x capacity written%s." % (
                r0.f["fill_percent"],
                "the device's size (the same file operations on every filesystem)"
                if r0.f.get("fill_of") == "device" else "the filesystem's size",
                r0.f["writes"],
                "; beside the writer, a reader reads up to %s KiB of a random file with O_DIRECT "
                "every 10 ms" % r0.f["reads_kib"]
                if r0.f.get("reads_kib", "0") != "0" else "",
                next((r.f["fstrim_every"] for r in rs if r.mode == "fstrim"), "-"),
                "; Btrfs discard=async and F2FS's default stay mounted and idle %s s after the "
                "workload (their discards are deferred)" % max(int(r.num("idle_s")) for r in rs)
                if any(r.num("idle_s") for r in rs) else ""),
            "",
            same_ops(rs),
            "",
            "## Summary: regimes ranked by WAF (second half) and by p99 write latency",
            "",
        ]
        body = summary(rs, timing) + ["", "## Per filesystem", ""] + tables(rs, timing)
        text = "\n".join(head + body) + "\n" + DEFINITIONS
    except (KeyError, ValueError, OSError) as e:
        sys.exit("report: %s" % e)
    with open(os.path.join(a.out, "study.md"), "w") as f:
        f.write(text)
    plot(a.out, rs, "ftlblk %s MiB, %s%% OP, gc %s, timing=%d; files kept at %s%% of the %s, "
         "%sx capacity written, fstrim every %sx, seed %s" % (
             r0.f["size_mib"], r0.f["op_percent"], r0.f.get("gc_policy"), 1 if timing else 0,
             r0.f["fill_percent"], "device" if r0.f.get("fill_of") == "device" else "filesystem",
             r0.f["writes"], next((r.f["fstrim_every"] for r in rs if r.mode == "fstrim"), "-"),
             r0.f["seed"]), timing)


if __name__ == "__main__":
    main()
