# SPDX-License-Identifier: GPL-2.0
"""Timing model tests for ftlsim --timing (run from validate.py, same report()).

Closed-form checks of the NAND timing model (../../ftl/timing.c) driven
closed-loop by ftlsim (timed.c); README.md, "Timing model", derives every
bound. Notation: D = channels * dies_per_channel dies, T = one page
transfer = page_size / (channel_mbps * 1e6) s (the model rounds it up to
whole ns: xfer_ns), Np = pages_per_block / D pages of a block per die,
A = the run's measured WAF (nand / host pages).

  1. steady-state uniform random writes (after --fill and --warmup), at
     queue depth >= 4 D: host pages/s = min(die bound, channel bound)
     within 5 %, die bound = D / (A tPROG + (A-1) tR + (A/Np) tBERS),
     channel bound = channels / ((1 + 2 (A-1)) T); two die-bound
     configurations and one channel-bound;
  2. fresh sequential writes: min(D / tPROG, channels / T) within 5 %;
  3. uniform random reads over a filled device at queue depth 1024:
     min(D / tR, channels / T) within 5 % (with the few writes that end
     the run counted: D / (f tR + (1-f) tPROG), f the read share);
  4. queue-depth-1 reads take tR + T exactly (mean, p50, max; 1 ns);
     queue-depth-1 sequential overwrites of a full device (GC erases,
     never relocates) take T + tPROG, or tBERS + T + tPROG for the write
     that erased: p50, max and mean exactly;
  5. garbage collection: write p99 of a full device at 7 % OP is at least
     one tBERS above that of the same device fresh;
  6. command line: range errors, timing flags need --timing, fields, the
     CSV columns, determinism, --timing leaves the FTL's decisions alone;
  plus, with --san, the sanitizer build on timed runs with --check.
"""
import concurrent.futures
import json
import os
import tempfile

PPB = 64
LOGICAL = 64 * 1024          # 1024 logical blocks of 64 pages
BASE = ["--logical-pages", LOGICAL, "--pages-per-block", PPB, "--timing"]
TIMING_FIELDS = (
    "modeled_seconds", "host_iops", "host_mbps", "read_latency_us",
    "write_latency_us", "host_busy_ns", "gc_busy_ns", "erase_busy_ns",
    "channel_busy_ns", "requests_timed", "latency_ns_total", "channels",
    "dies_per_channel", "read_us", "program_us", "erase_us", "channel_mbps",
    "queue_depth", "request_pages", "read_fraction")
WALL = ("elapsed_seconds", "host_writes_per_second")


def geometry(j):
    """D, T (s), Np, tR, tPROG, tBERS (s) of a result."""
    d = j["channels"] * j["dies_per_channel"]
    t = j["page_size"] / (j["channel_mbps"] * 1e6)
    return (d, t, j["pages_per_block"] / d, j["read_us"] * 1e-6,
            j["program_us"] * 1e-6, j["erase_us"] * 1e-6)


def steady_bounds(j):
    d, t, np_, tr, tp, tb = geometry(j)
    a = j["waf"]
    die = d / (a * tp + (a - 1) * tr + a / np_ * tb)
    chan = j["channels"] / ((1 + 2 * (a - 1)) * t)
    return die, chan


def rel(measured, expected):
    return (measured - expected) / expected


def test_steady(report, parallel):
    common = BASE + ["--op-percent", 7, "--workload", "uniform", "--fill",
                     "--warmup", 2, "--writes", 2, "--queue-depth", 64]
    other = ["--channels", 2, "--dies-per-channel", 8, "--pages-per-block",
             128, "--op-percent", 20, "--read-us", 80, "--erase-us", 5000]
    cases = [("die-bound (defaults)", []),
             ("channel-bound (--channel-mbps 5)", ["--channel-mbps", 5]),
             ("die-bound, " + " ".join(map(str, other)), other)]
    res = parallel([common + extra for _, extra in cases])
    for (label, _), j, want in zip(cases, res, ("die", "channel", "die")):
        die, chan = steady_bounds(j)
        exp = min(die, chan)
        binding = "die" if die < chan else "channel"
        err = rel(j["host_iops"], exp)
        report(abs(err) <= 0.05 and binding == want,
               "steady random writes, %s: %.1f host pages/s, expected "
               "min(die %.1f, channel %.1f) = %.1f (%s-bound, want %s), "
               "error %+.2f%% (limit 5%%); A=%.4f, D=%d, QD %d" %
               (label, j["host_iops"], die, chan, exp, binding, want,
                100 * err, j["waf"],
                j["channels"] * j["dies_per_channel"], j["queue_depth"]))


def test_sequential(report, parallel):
    common = BASE + ["--workload", "sequential", "--writes", 1,
                     "--queue-depth", 32]
    cases = [("defaults", []), ("--channel-mbps 10", ["--channel-mbps", 10])]
    res = parallel([common + extra for _, extra in cases])
    for (label, _), j in zip(cases, res):
        d, t, _, _, tp, _ = geometry(j)
        exp = min(d / tp, j["channels"] / t)
        err = rel(j["host_iops"], exp)
        report(abs(err) <= 0.05 and j["gc_busy_ns"] == 0 and
               j["erase_busy_ns"] == 0,
               "fresh sequential writes, %s: %.1f pages/s, expected "
               "min(D/tPROG %.1f, channels/T %.1f), error %+.2f%% (limit "
               "5%%); GC busy %d ns, erase busy %d ns (want 0)" %
               (label, j["host_iops"], d / tp, j["channels"] / t,
                100 * err, j["gc_busy_ns"], j["erase_busy_ns"]))


def test_reads(report, parallel):
    # Reads are 99.9 % of the requests; --warmup lets the fill's queued
    # programs drain before measuring (QD 1024 of them: 76 ms of die time).
    common = BASE + ["--fill", "--read-fraction", 0.999, "--warmup", 0.001,
                     "--writes", 0.003, "--queue-depth", 1024]
    cases = [("defaults", []), ("--channel-mbps 50", ["--channel-mbps", 50])]
    res = parallel([common + extra for _, extra in cases])
    for (label, _), j in zip(cases, res):
        d, t, _, tr, tp, _ = geometry(j)
        r = j["read_latency_us"]["count"]
        w = j["write_latency_us"]["count"]
        f = r / (r + w)
        die = d / (f * tr + (1 - f) * tp)
        exp = min(die, j["channels"] / t)
        err = rel(j["host_iops"], exp)
        report(abs(err) <= 0.05,
               "random reads, %s, QD 1024: %.0f requests/s (%d reads, %d "
               "writes), expected min(D/(f tR + (1-f) tPROG) %.0f, "
               "channels/T %.0f) = %.0f [pure reads: min(D/tR %.0f, "
               "channels/T)], error %+.2f%% (limit 5%%)" %
               (label, j["host_iops"], r, w, die, j["channels"] / t, exp,
                d / tr, 100 * err))


def test_qd1(report, parallel):
    common = BASE + ["--fill", "--read-fraction", 0.999, "--writes", 0.0005,
                     "--queue-depth", 1]
    cases = [("defaults", []), ("--channel-mbps 3", ["--channel-mbps", 3])]
    res = parallel([common + extra for _, extra in cases])
    for (label, _), j in zip(cases, res):
        _, t, _, tr, _, _ = geometry(j)
        exact_us = (tr + t) * 1e6
        lat = j["read_latency_us"]
        # JSON has 1 ns resolution (3 decimals of us); the model rounds T
        # up to whole ns: at most 1 ns (+ printing) above tR + T.
        ok = all(-0.0005 <= lat[k] - exact_us <= 0.0015
                 for k in ("mean", "p50", "max")) and lat["count"] > 1000
        report(ok, "QD 1 read latency, %s: mean %.3f, p50 %.3f, max %.3f "
               "us over %d reads; tR + T = %.4f us (T = %.4f us, xfer_ns "
               "%d)" % (label, lat["mean"], lat["p50"], lat["max"],
                        lat["count"], exact_us, t * 1e6, j["xfer_ns"]))


def test_qd1_erase(report, sim):
    """Sequential overwrite of a full device at QD 1: every victim is
    wholly stale (WAF 1), so GC is one erase of every die (tBERS) in the
    request that needed a block; its program follows it (T + tPROG)."""
    j = sim(["--logical-pages", 4096, "--pages-per-block", PPB, "--timing",
             "--fill", "--workload", "sequential", "--writes", 3,
             "--queue-depth", 1])
    _, t, _, _, tp, tb = geometry(j)
    lat = j["write_latency_us"]
    base = (t + tp) * 1e6
    mean = base + j["erases"] * tb * 1e6 / lat["count"]
    ok = (j["waf"] == 1 and j["erases"] > 0 and
          abs(lat["p50"] - base) <= 0.0015 and
          abs(lat["max"] - (base + tb * 1e6)) <= 0.0015 and
          abs(lat["mean"] - mean) <= 0.0015)
    report(ok, "QD 1 sequential overwrite (WAF %.3f, %d erases, %d "
           "writes): write latency p50 %.3f (want T + tPROG = %.3f), max "
           "%.3f (want tBERS + T + tPROG = %.3f), mean %.3f (want %.3f) us" %
           (j["waf"], j["erases"], lat["count"], lat["p50"], base,
            lat["max"], base + tb * 1e6, lat["mean"], mean))


def test_gc_latency(report, parallel):
    common = BASE + ["--op-percent", 7, "--workload", "uniform",
                     "--queue-depth", 64]
    full, fresh = parallel([common + ["--fill", "--warmup", 2, "--writes", 1],
                            common + ["--writes", 0.5]])
    p_full = full["write_latency_us"]["p99"]
    p_fresh = fresh["write_latency_us"]["p99"]
    erase = full["erase_us"]
    report(p_full >= p_fresh + erase and fresh["gc_busy_ns"] == 0 and
           fresh["erase_busy_ns"] == 0 and full["gc_busy_ns"] > 0,
           "GC latency (op 7%%, QD 64): write p99 %.1f us after fill and "
           "warmup (WAF %.3f), fresh %.1f us (no GC: gc busy %d ns), "
           "want >= fresh + tBERS = %.1f us" %
           (p_full, full["waf"], p_fresh, fresh["gc_busy_ns"],
            p_fresh + erase))


RANGES = [("--channels", 64), ("--dies-per-channel", 64),
          ("--read-us", 1000000), ("--program-us", 1000000),
          ("--erase-us", 1000000), ("--channel-mbps", 100000),
          ("--queue-depth", 1024), ("--request-pages", 1024)]


def test_cli(run, report, sim):
    small = ["--logical-pages", 4096, "--pages-per-block", 16]
    bad = []
    for flag, hi in RANGES:
        for v in (0, hi + 1):
            p = run(small + ["--timing", flag, v], check=False)
            want = "%s must be in 1..%d" % (flag, hi)
            if p.returncode != 2 or want not in p.stderr:
                bad.append("%s %d: exit %d, %s" % (flag, v, p.returncode,
                                                   p.stderr.strip()))
        p = run(small + ["--timing", flag, hi, "--writes", 0.01],
                check=False)
        if p.returncode != 0:
            bad.append("%s %d refused: %s" % (flag, hi, p.stderr.strip()))
    for v in (-0.1, 1):
        p = run(small + ["--timing", "--read-fraction", v], check=False)
        if p.returncode != 2 or "--read-fraction must be in [0, 1)" \
                not in p.stderr:
            bad.append("--read-fraction %s: exit %d" % (v, p.returncode))
    report(not bad, "timing flags out of range exit 2 naming flag and range "
           "(%d flags at 0 and max+1, accepted at max): %s" %
           (len(RANGES) + 1, "; ".join(bad) or "all"))
    bad = []
    for flag, _ in RANGES + [("--read-fraction", 0)]:
        p = run(small + [flag, 1 if flag != "--read-fraction" else 0.5],
                check=False)
        if p.returncode != 2 or "%s needs --timing" % flag not in p.stderr:
            bad.append("%s: exit %d %s" % (flag, p.returncode,
                                           p.stderr.strip()))
    report(not bad, "timing flags without --timing exit 2 (%s)" %
           ("; ".join(bad) or "each of %d" % (len(RANGES) + 1)))
    p = run(small + ["--timing", "--trace", "-", "--trace-format", "iolog"],
            check=False)
    report(p.returncode == 2 and "--timing" in p.stderr,
           "--timing with --trace: exit %d (want 2): %s" %
           (p.returncode, p.stderr.strip().splitlines()[0]))
    args = small + ["--timing", "--op-percent", 20, "--fill", "--writes", 3,
                    "--read-fraction", 0.3, "--trim-fraction", 0.05,
                    "--request-pages", 3, "--queue-depth", 8, "--seed", 5]
    a, b = sim(args), sim(args)
    missing = [k for k in TIMING_FIELDS if k not in a]
    report(not missing and a["requests_timed"] ==
           a["read_latency_us"]["count"] + a["write_latency_us"]["count"],
           "--timing JSON fields present (%d; missing: %s), requests_timed "
           "%d = reads %d + writes %d" %
           (len(TIMING_FIELDS), missing or "none", a["requests_timed"],
            a["read_latency_us"]["count"], a["write_latency_us"]["count"]))
    for x in (a, b):
        for k in WALL:
            x.pop(k)
    report(a == b, "--timing: same seed, same JSON (%.6f modeled s, write "
           "p99 %.1f us)" % (a["modeled_seconds"],
                             a["write_latency_us"]["p99"]))
    w = a["write_latency_us"]["count"]
    report(a["host_pages_written"] == 3 * 4096 and w == -(-3 * 4096 // 3)
           and a["host_pages_read"] == 3 * a["read_latency_us"]["count"]
           and a["trims"] > 0,
           "--request-pages 3: %d host pages written in %d write requests, "
           "%d pages read in %d read requests, %d trims" %
           (a["host_pages_written"], w, a["host_pages_read"],
            a["read_latency_us"]["count"], a["trims"]))
    # The model only observes: the FTL's decisions are those of the
    # untimed run (one page per request, no reads).
    plain = ["--logical-pages", 8192, "--pages-per-block", 32,
             "--op-percent", 10, "--workload", "hotcold", "--fill",
             "--trim-fraction", 0.05, "--warmup", 1, "--writes", 3]
    u, t = sim(plain), sim(plain + ["--timing", "--queue-depth", 16])
    keys = ("host_pages_written", "nand_pages_written", "gc_relocations",
            "erases", "trims", "erase_max")
    report(all(u[k] == t[k] for k in keys),
           "--timing leaves the FTL's run alone: %s" %
           ", ".join("%s %d/%d" % (k, u[k], t[k]) for k in keys))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ts.csv")
        run(args + ["--csv", path, "--csv-interval", 1024])
        with open(path) as f:
            lines = f.read().splitlines()
    head = "host_writes,waf_so_far,free_blocks,valid_pages,erase_spread," \
           "modeled_ns,host_mbps"
    rows = [r.split(",") for r in lines[1:]]
    mono = all(int(rows[i][5]) <= int(rows[i + 1][5])
               for i in range(len(rows) - 1))
    report(lines[0] == head and len(rows) == 12 and mono and
           all(float(r[6]) > 0 for r in rows),
           "--csv with --timing: header %s, %d rows, modeled_ns rising to "
           "%s, host_mbps e.g. %s" % (lines[0], len(rows), rows[-1][5],
                                      rows[-1][6]))


def test_sanitized(run, report, binary):
    common = ["--logical-pages", 4096, "--pages-per-block", 16,
              "--op-percent", 15, "--timing", "--fill", "--writes", 10,
              "--check", "--csv-interval", 1024, "--json"]
    cases = [["--workload", "uniform", "--queue-depth", 64],
             ["--workload", "hotcold", "--trim-fraction", 0.05,
              "--read-fraction", 0.3, "--request-pages", 4,
              "--wl-threshold", 4],
             ["--workload", "sequential", "--queue-depth", 1,
              "--channels", 64, "--dies-per-channel", 64]]

    def one(extra):
        return extra, run(common + extra, binary=binary, check=False)

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        for extra, p in ex.map(one, cases):
            ok = p.returncode == 0 and "runtime error" not in p.stderr \
                and "Sanitizer" not in p.stderr
            iops = json.loads(p.stdout)["host_iops"] if ok else 0
            report(ok, "ASan/UBSan --timing %s: exit %d, %.0f IOPS%s" %
                   (" ".join(map(str, extra)), p.returncode, iops,
                    "" if ok else ": " + p.stderr.strip()[-2000:]))


def run_timing_tests(run, report, parallel, sim, san=None):
    test_steady(report, parallel)
    test_sequential(report, parallel)
    test_reads(report, parallel)
    test_qd1(report, parallel)
    test_qd1_erase(report, sim)
    test_gc_latency(report, parallel)
    test_cli(run, report, sim)
    if san:
        test_sanitized(run, report, san)
