#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Validate ftlsim (and through it the FTL core) against theory.

  1. FIFO cleaning under uniform random writes matches Desnoyers' analytic
     model (SYSTOR 2012) within 3 %, for a ~ 1.1, 1.2, 1.5.
  2. Greedy is never worse than FIFO on the same run.
  3. Trims (--trim-fraction 0.1) lower the WAF.
  4. Static wear leveling at least halves the erase-count spread under a
     hot/cold workload.
  plus command-line checks and, with --san, short runs of an ASan/UBSan
  build per policy with ftl_check() at every sample; and the trace replay
  tests of trace_tests.py (parsers, bad lines, counters worked out by hand,
  the guest tool iolog-replay on a file with --iolog-replay), and the NAND
  timing model tests of timing_tests.py (--timing against closed-form
  throughput bounds and exact latencies), and the placement class tests
  of placement_tests.py (WAF of a hot/cold mix with and without classes,
  per GC policy; the class counters).

Output: TAP-like "ok N - ..." / "not ok N - ..." lines carrying the numbers,
last line "P passed, F failed"; exit status 1 if anything failed.
Python 3 standard library only.
"""
import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import placement_tests  # noqa: E402
import timing_tests  # noqa: E402
import trace_tests  # noqa: E402

FTLSIM = "./ftlsim"
results = []  # (ok, text)


def report(ok, text):
    results.append(ok)
    print("%s %d - %s" % ("ok" if ok else "not ok", len(results), text),
          flush=True)


def run(args, binary=None, check=True):
    p = subprocess.run([binary or FTLSIM] + [str(a) for a in args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if check and p.returncode != 0:
        raise RuntimeError("ftlsim %s: exit %d: %s" %
                           (" ".join(map(str, args)), p.returncode,
                            p.stderr.strip()))
    return p


def sim(args):
    return json.loads(run(list(args) + ["--json"]).stdout)


def parallel(arglists):
    """Run several simulations at once (one per core)."""
    workers = max(1, os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(workers) as ex:
        return list(ex.map(sim, arglists))


# ---- theory -------------------------------------------------------------

def lambert_w0(x):
    """Principal branch of Lambert W for x in [-1/e, 0), by Halley's method.

    The start is the branch-point series w = -1 + p - p^2/3 + 11/72 p^3,
    p = sqrt(2 (e x + 1)), good near -1/e where our arguments live.
    """
    if not (-1 / math.e <= x < 0):
        raise ValueError("lambert_w0: %r outside [-1/e, 0)" % x)
    p = math.sqrt(max(0.0, 2 * (math.e * x + 1)))
    w = -1 + p - p * p / 3 + 11 / 72 * p ** 3
    for _ in range(100):
        ew = math.exp(w)
        f = w * ew - x
        if w == -1:
            break
        wn = w - f / (ew * (w + 1) - (w + 2) * f / (2 * w + 2))
        if abs(wn - w) <= 1e-15 * max(1.0, abs(wn)):
            w = wn
            break
        w = wn
    return w


def desnoyers_waf(a):
    """Write amplification of LRW/FIFO cleaning, uniform random writes.

    Desnoyers, "Analytic modeling of SSD write performance", SYSTOR 2012:
    A = a / (a + W0(-a e^-a)), a = physical data pages / logical pages.
    """
    return a / (a + lambert_w0(-a * math.exp(-a)))


def data_ratio(j):
    """The model's a from one ftlsim --json result.

    The model's device is one log of T physical pages holding U logical
    pages, cleaned exactly when a page is needed, so every one of the T
    pages holds (valid or stale) data; a = T / U.

    In the FTL some physical blocks hold no data at a given moment:
      - open_blocks (the host and the GC stream) are being filled; we
        count them as holding nothing, as a whole;
      - the free pool. The core runs GC only when the host needs a new
        open block and free < gc_low_blocks, and then until free >=
        gc_high_blocks; the host then takes one. So right after a host
        block is opened the pool holds gc_high - 1 blocks and it drains,
        one per host block filled, to gc_low - 1 before the next GC:
        its time average is (gc_low + gc_high) / 2 - 1 blocks (1 with
        the default watermarks 2/2). ftlsim samples free_blocks 100
        times per run; the mean it reports (free_blocks_mean) agrees with
        this figure (1.00 for 2/2, 20.5 for 2/40, 29.0 for 20/40), so we
        use the geometry-based one.
    a = (physical_blocks - open_blocks - free_held) * pages_per_block
        / logical_pages.

    Counting the open blocks as half full instead (their time average:
    both fill from empty to full between openings) is a little closer
    still; a_open_half() computes it, the test prints both and asserts
    on the one above.
    """
    return ((j["physical_blocks"] - j["open_blocks"] - free_held(j)) *
            j["pages_per_block"] / j["logical_pages"])


def a_open_half(j):
    return ((j["physical_blocks"] - j["open_blocks"] / 2.0 - free_held(j)) *
            j["pages_per_block"] / j["logical_pages"])


def free_held(j):
    # Time-averaged free blocks the core keeps out of the log; see
    # data_ratio(). Each shard (--shards) keeps its own pool; the
    # watermarks are per shard, open_blocks is already the device's.
    return ((j["gc_low_blocks"] + j["gc_high_blocks"]) / 2.0 - 1) * \
        j.get("shards", 1)


# ---- tests --------------------------------------------------------------

PPB = 64
LOGICAL_BLOCKS = 4096            # 262144 logical pages of the model tests
LOGICAL = LOGICAL_BLOCKS * PPB
# op_percent for a ~ 1.1, 1.2, 1.5 (spare = ceil(L * op / 100 / PPB) blocks)
MODEL_OPS = [(1.1, 10), (1.2, 20), (1.5, 50)]
# Steady state: --fill lays the data out sequentially; under uniform random
# writes FIFO's WAF per capacity written is 5.38 in the first, then within
# +-0.3 % of 5.69 from the second on (a ~ 1.1, --csv-interval = capacity).
# So --warmup 4 capacities (not counted: ftlsim resets the counters after
# it), then --writes 10 measured.
STEADY = ["--fill", "--warmup", 4, "--writes", 10]


def model_args(op, policy, seed=1):
    return ["--logical-pages", LOGICAL, "--pages-per-block", PPB,
            "--op-percent", op, "--policy", policy, "--workload", "uniform",
            "--wl-threshold", 0, "--seed", seed] + STEADY


def model_line(label, j):
    a = data_ratio(j)
    model = desnoyers_waf(a)
    err = (j["waf"] - model) / model
    a2 = a_open_half(j)
    m2 = desnoyers_waf(a2)
    report(abs(err) <= 0.03,
           "Desnoyers FIFO model, %s: a=%.4f [(%d phys - %d open - %.1f "
           "free held (measured mean free %.2f)) * %d / %d] model WAF %.4f, "
           "ftlsim fifo WAF %.4f, error %+.2f%% (limit 3%%); open blocks "
           "half full: a=%.4f model %.4f error %+.2f%%" %
           (label, a, j["physical_blocks"], j["open_blocks"], free_held(j),
            j["free_blocks_mean"], j["pages_per_block"], j["logical_pages"],
            model, j["waf"], 100 * err, a2, m2,
            100 * (j["waf"] - m2) / m2))


def test_model_and_greedy():
    runs = []
    for target, op in MODEL_OPS:
        runs.append(model_args(op, "fifo"))
        runs.append(model_args(op, "greedy"))
    # The free-pool term of a: wide GC watermarks hold ~20 blocks back.
    runs.append(model_args(10, "fifo") + ["--gc-low", 2, "--gc-high", 40])
    res = parallel(runs)
    for i, (target, op) in enumerate(MODEL_OPS):
        model_line("a~%.1f (op %d%%)" % (target, op), res[2 * i])
    model_line("a~1.1 (op 10%, --gc-low 2 --gc-high 40)", res[-1])
    for i, (target, op) in enumerate(MODEL_OPS):
        fifo, greedy = res[2 * i], res[2 * i + 1]
        report(greedy["waf"] <= fifo["waf"],
               "greedy <= fifo, a~%.1f (op %d%%, seed 1): greedy WAF %.4f, "
               "fifo WAF %.4f" % (target, op, greedy["waf"], fifo["waf"]))


def test_shards():
    """A sharded device is N FTLs under uniform traffic: its WAF is the
    model's for the data ratio left after every shard's open blocks and
    free pool, and it pays for them against one FTL of the same size."""
    runs = [model_args(10, "fifo") + ["--shards", n] for n in (1, 4)]
    runs.append(model_args(10, "greedy") + ["--shards", 4])
    one, four, greedy4 = parallel(runs)
    model_line("a~1.1 (op 10%, --shards 4)", four)
    # Spare blocks are rounded up per shard: at most one more each.
    report(four["waf"] > one["waf"] and four["open_blocks"] == 4 * 2 and
           one["physical_blocks"] <= four["physical_blocks"] <=
           one["physical_blocks"] + 4,
           "4 shards hold 4x the open blocks (%d) and free pools: fifo WAF "
           "%.4f > one FTL's %.4f, with %d physical blocks against %d" %
           (four["open_blocks"], four["waf"], one["waf"],
            four["physical_blocks"], one["physical_blocks"]))
    report(greedy4["waf"] <= four["waf"],
           "greedy <= fifo with 4 shards: %.4f vs %.4f" %
           (greedy4["waf"], four["waf"]))
    for bad in (0, 65):
        p = run(["--shards", bad], check=False)
        report(p.returncode == 2 and "--shards must be 1..64" in p.stderr,
               "--shards %d: exit %d (want 2): %s" %
               (bad, p.returncode, p.stderr.strip()))
    p = run(["--shards", 2, "--timing"], check=False)
    report(p.returncode == 2 and "--shards" in p.stderr,
           "--timing with --shards 2: exit %d (want 2): %s" %
           (p.returncode, p.stderr.strip()))
    # 16 blocks of 64 pages dealt to 32 shards: half would hold nothing.
    p = run(["--logical-pages", 1024, "--pages-per-block", 64,
             "--op-percent", 50, "--shards", 32], check=False)
    report(p.returncode == 1 and "with --shards 32: " in p.stderr,
           "more shards than stripes: exit %d (want 1): %s" %
           (p.returncode, p.stderr.strip()))


def test_lookahead():
    """ftlsim draws a synthetic workload's pages ahead to prefetch their
    map entries (workload.c, next_lpn_ahead()); --timing with one-page
    requests draws them one at a time. Both must write the same pages in
    the same order, so every counter agrees (the timed run also relocates
    through the core's move callback)."""
    keys = ("host_pages_written", "nand_pages_written", "gc_relocations",
            "erases", "valid_pages")
    for wl in ("uniform", "hotcold", "sequential"):
        base = ["--logical-pages", 16384, "--pages-per-block", 64,
                "--op-percent", 10, "--policy", "greedy", "--workload", wl,
                "--fill", "--warmup", 1, "--writes", 3, "--seed", 5]
        ahead, one = parallel([base, base + ["--timing",
                                             "--request-pages", 1]])
        report(all(ahead[k] == one[k] for k in keys),
               "%s: drawn ahead = drawn one by one: %s" %
               (wl, ", ".join("%s %d/%d" % (k, ahead[k], one[k])
                              for k in keys)))


def test_trim():
    base = ["--logical-pages", LOGICAL, "--pages-per-block", PPB,
            "--op-percent", 10, "--policy", "greedy", "--workload",
            "uniform", "--seed", 7] + STEADY
    plain, trim = parallel([base, base + ["--trim-fraction", 0.1]])
    report(trim["waf"] < plain["waf"],
           "trim lowers WAF (uniform, greedy, op 10%%): without trims "
           "WAF %.4f, --trim-fraction 0.1 WAF %.4f (valid pages %d of %d, "
           "%d trims)" % (plain["waf"], trim["waf"], trim["valid_pages"],
                          trim["logical_pages"], trim["trims"]))


def test_remanence():
    """--remanence changes no decision of the FTL, only what it counts: the
    same run with and without it gives the same counters, and pages_stale
    is every programmed page no logical page maps (0 without): all but
    the valid pages of the closed blocks, less at most the two open
    blocks' unprogrammed pages; with 4 shards, their sum."""
    for shards in (1, 4):
        base = ["--logical-pages", LOGICAL, "--pages-per-block", PPB,
                "--op-percent", 10, "--workload", "uniform", "--seed", 3,
                "--shards", shards] + STEADY
        plain, rem = parallel([base, base + ["--remanence"]])
        same = all(plain[k] == rem[k] for k in
                   ("nand_pages_written", "erases", "gc_relocations",
                    "valid_pages", "free_blocks"))
        ppb = rem["pages_per_block"]
        programmed_max = rem["physical_pages"] - rem["free_blocks"] * ppb
        stale = rem["pages_stale"]
        low = programmed_max - rem["valid_pages"] - rem["open_blocks"] * ppb
        report(same and plain["pages_stale"] == 0 and rem["remanence"] == 1
               and low <= stale <= programmed_max - rem["valid_pages"],
               "--remanence, %d shard(s): counters unchanged (%s), "
               "pages_stale %d in [%d, %d] (without: %d)" %
               (shards, same, stale, low,
                programmed_max - rem["valid_pages"], plain["pages_stale"]))


def test_wear_leveling():
    # A small device written many times over, so the erase counts of the
    # blocks holding cold data fall far behind without static WL. The
    # spread without WL keeps growing (seed 3: 225 after 100 capacities,
    # 474 after 400, 599 after 800); with --wl-threshold 16 it stays at
    # ~150-250, well above 16: the core checks for wear leveling only
    # every physical_blocks / 16 erases, and the cold data it moves lands
    # on a young free block again (see README.md). 800 capacities (about
    # 1 s per run) make the difference clear for every seed tried.
    base = ["--logical-pages", 512 * PPB, "--pages-per-block", PPB,
            "--op-percent", 10, "--policy", "greedy",
            "--workload", "hotcold:10:90", "--seed", 3, "--fill",
            "--writes", 800]
    off, on = parallel([base + ["--wl-threshold", 0],
                        base + ["--wl-threshold", 16]])
    so = off["erase_max"] - off["erase_min"]
    sn = on["erase_max"] - on["erase_min"]
    report(sn * 2 <= so,
           "static WL halves the erase spread (hotcold 10:90, 800x "
           "capacity): spread without WL %d (min %d max %d), with "
           "--wl-threshold 16 %d (min %d max %d, %d WL runs); WAF %.3f vs "
           "%.3f" % (so, off["erase_min"], off["erase_max"], sn,
                     on["erase_min"], on["erase_max"], on["wl_runs"],
                     off["waf"], on["waf"]))


def test_cli():
    p = run(["--no-such-flag"], check=False)
    report(p.returncode == 2 and "usage" in p.stderr,
           "unknown flag: exit %d (want 2), usage on stderr" % p.returncode)
    p = run(["--policy", "lru"], check=False)
    report(p.returncode == 2, "bad policy: exit %d (want 2)" % p.returncode)
    p = run(["--workload", "hotcold:x"], check=False)
    report(p.returncode == 2, "bad workload: exit %d (want 2)" % p.returncode)
    p = run(["--logical-pages", 64, "--pages-per-block", 64,
             "--op-percent", 1], check=False)
    report(p.returncode == 1 and p.stderr.strip() != "",
           "invalid geometry: exit %d (want 1): %s" %
           (p.returncode, p.stderr.strip()))
    j = sim(["--size", "64M", "--writes", 0.01])
    report(j["logical_pages"] == 16384 and j["pages_per_block"] == 256,
           "--size 64M = %d pages of 4 KiB" % j["logical_pages"])
    args = ["--logical-pages", 8192, "--pages-per-block", 32,
            "--op-percent", 10, "--workload", "hotcold", "--trim-fraction",
            0.05, "--fill", "--writes", 3, "--seed", 42]
    a, b = sim(args), sim(args)
    for t in ("elapsed_seconds", "host_writes_per_second"):
        a.pop(t)
        b.pop(t)
    report(a == b, "same seed, same run (WAF %.4f, %d erases)" %
           (a["waf"], a["erases"]))
    c = sim(args[:-1] + [43])
    report(c["nand_pages_written"] != a["nand_pages_written"],
           "another seed, another run (WAF %.4f vs %.4f)" %
           (c["waf"], a["waf"]))
    # Flash faults: a device with endurance 20 wears out before 500
    # capacities of writes; the run stops there and says so.
    w = sim(["--logical-pages", 4096, "--pages-per-block", 16,
             "--op-percent", 20, "--endurance", 20, "--wl-threshold", 4,
             "--fill", "--writes", 500])
    report(w["read_only"] == 1 and w["bad_blocks"] > 0 and
           w["erase_max"] == 20 and
           0 < w["host_pages_written"] < 500 * 4096,
           "--endurance 20: worn out after %d host writes, %d bad blocks, "
           "erase_max %d" % (w["host_pages_written"], w["bad_blocks"],
                             w["erase_max"]))
    fargs = ["--logical-pages", 4096, "--pages-per-block", 16,
             "--op-percent", 50, "--program-fail-ppm", 200,
             "--erase-fail-ppm", 500, "--fill", "--writes", 20,
             "--fault-seed", 3]
    f1, f2 = sim(fargs), sim(fargs)
    f3 = sim(fargs[:-1] + [4])
    for x in (f1, f2, f3):
        x.pop("elapsed_seconds")
        x.pop("host_writes_per_second")
    report(f1 == f2 and f1["program_failures"] > 0 and
           f1["erase_failures"] > 0 and
           f1["bad_blocks"] == f1["program_failures"] + f1["erase_failures"]
           and (f3["program_failures"], f3["erase_failures"]) !=
           (f1["program_failures"], f1["erase_failures"]),
           "faults: same --fault-seed, same run (%d program, %d erase "
           "failures); another seed, other failures (%d, %d)" %
           (f1["program_failures"], f1["erase_failures"],
            f3["program_failures"], f3["erase_failures"]))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ts.csv")
        run(args + ["--csv", path])
        with open(path) as f:
            lines = f.read().splitlines()
    ok = (lines[0] == "host_writes,waf_so_far,free_blocks,valid_pages,"
          "erase_spread" and len(lines) == 101 and
          int(lines[-1].split(",")[0]) == 3 * 8192)
    report(ok, "--csv: header + %d rows, last at %s host writes" %
           (len(lines) - 1, lines[-1].split(",")[0]))


def test_sanitized(binary):
    """Short runs of the ASan/UBSan build, ftl_check() at every sample."""
    common = ["--logical-pages", 4096, "--pages-per-block", 16,
              "--op-percent", 15, "--fill", "--writes", 20, "--check",
              "--csv-interval", 1024, "--wl-threshold", 4]
    cases = []
    for policy in ("greedy", "fifo", "cost-benefit"):
        cases.append(["--policy", policy, "--workload", "hotcold",
                      "--trim-fraction", 0.05])
        cases.append(["--policy", policy, "--workload", "uniform"])
    cases.append(["--policy", "greedy", "--workload", "sequential",
                  "--trim-fraction", 0.02])

    def one(extra):
        p = run(common + extra + ["--json"], binary=binary, check=False)
        return extra, p

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        for extra, p in ex.map(one, cases):
            ok = p.returncode == 0 and "runtime error" not in p.stderr \
                and "Sanitizer" not in p.stderr
            waf = json.loads(p.stdout)["waf"] if ok else float("nan")
            report(ok, "ASan/UBSan %s: exit %d, WAF %.3f%s" %
                   (" ".join(map(str, extra)), p.returncode, waf,
                    "" if ok else ": " + p.stderr.strip()[-2000:]))


def main():
    global FTLSIM
    ap = argparse.ArgumentParser()
    ap.add_argument("--ftlsim", default="./ftlsim")
    ap.add_argument("--san", help="sanitizer build of ftlsim to smoke-test")
    ap.add_argument("--iolog-replay",
                    help="host build of tests/vm/tools/iolog-replay.c")
    ap.add_argument("--only",
                    help="comma list: model,shards,lookahead,trim,remanence,"
                    "wl,cli,"
                    "san,trace,"
                    "timing,placement")
    o = ap.parse_args()
    FTLSIM = o.ftlsim
    only = set(o.only.split(",")) if o.only else None
    tests = [("model", test_model_and_greedy), ("shards", test_shards),
             ("lookahead", test_lookahead), ("trim", test_trim), ("remanence", test_remanence),
             ("wl", test_wear_leveling), ("cli", test_cli)]
    if o.san:
        tests.append(("san", lambda: test_sanitized(o.san)))
    tests.append(("trace", lambda: trace_tests.run_trace_tests(
        run, report, san=o.san, iolog_replay=o.iolog_replay)))
    tests.append(("timing", lambda: timing_tests.run_timing_tests(
        run, report, parallel, sim, san=o.san)))
    tests.append(("placement", lambda: placement_tests.run_placement_tests(
        run, report, parallel, sim, san=o.san)))
    for name, fn in tests:
        if only and name not in only:
            continue
        try:
            fn()
        except Exception as e:  # a crash is a failure, not a traceback
            report(False, "%s: %s" % (name, e))
    passed = sum(1 for r in results if r)
    failed = len(results) - passed
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
