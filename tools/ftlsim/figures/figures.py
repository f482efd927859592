#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw ftlsim's write amplification beside the analytic models.

  make -C tools/ftlsim figures        (or: figures.py --ftlsim ./ftlsim)

waf-op.png    steady-state WAF against over-provisioning for greedy, FIFO
              and cost-benefit, uniform random writes, beside Desnoyers'
              model for FIFO (LRW) cleaning.
waf-trim.png  WAF against the trim fraction at a fixed over-provisioning,
              beside the TRIM model: trims keep only s = (1 - 2q)/(1 - q)
              of the logical pages valid, which acts as extra spare area
              (a -> a / s) in the same model.

The data go to OUT/*.dat (one row per point, the model in the last
column), the plots to OUT/*.png through figures.gp. Python 3 standard
library and gnuplot only.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from validate import data_ratio, desnoyers_waf  # noqa: E402

PPB = 64
LOGICAL = 1024 * PPB          # 65536 pages of 4 KiB = 256 MiB
STEADY = ["--fill", "--warmup", 4, "--writes", 6]
POLICIES = ("greedy", "fifo", "cost-benefit")
OPS = (5, 7, 10, 15, 20, 28, 35, 50, 70, 100)
TRIM_OP = 10
TRIMS = (0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)


def sim(ftlsim, args):
    p = subprocess.run([ftlsim] + [str(a) for a in args] + ["--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, check=False)
    if p.returncode:
        sys.exit("ftlsim %s: %s" % (" ".join(map(str, args)), p.stderr))
    return json.loads(p.stdout)


def base(op, policy):
    return ["--logical-pages", LOGICAL, "--pages-per-block", PPB,
            "--op-percent", op, "--policy", policy, "--workload", "uniform",
            "--wl-threshold", 0, "--seed", 1] + STEADY


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ftlsim", default="./ftlsim")
    ap.add_argument("--out", default="figures")
    o = ap.parse_args()
    os.makedirs(o.out, exist_ok=True)

    jobs = {}
    for op in OPS:
        for pol in POLICIES:
            jobs[("op", op, pol)] = base(op, pol)
    for q in TRIMS:
        for pol in POLICIES:
            jobs[("trim", q, pol)] = base(TRIM_OP, pol) + (
                ["--trim-fraction", q] if q else [])
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        futs = {k: ex.submit(sim, o.ftlsim, a) for k, a in jobs.items()}
        res = {k: f.result() for k, f in futs.items()}

    with open(os.path.join(o.out, "waf-op.dat"), "w") as f:
        f.write("# op_percent a greedy fifo cost-benefit desnoyers_fifo\n")
        for op in OPS:
            a = data_ratio(res[("op", op, "fifo")])
            f.write("%d %.4f %s %.4f\n" % (
                op, a, " ".join("%.4f" % res[("op", op, p)]["waf"]
                                for p in POLICIES), desnoyers_waf(a)))
    # a smooth model curve: a from the same geometry at every whole percent
    with open(os.path.join(o.out, "waf-op-model.dat"), "w") as f:
        f.write("# op_percent a desnoyers_fifo\n")
        j = dict(res[("op", OPS[0], "fifo")])
        logical_blocks = j["logical_blocks"]
        for op in range(4, 101):
            spare = -(-LOGICAL * op // (100 * PPB))
            j["physical_blocks"] = logical_blocks + spare
            a = data_ratio(j)
            f.write("%d %.4f %.4f\n" % (op, a, desnoyers_waf(a)))
    with open(os.path.join(o.out, "waf-trim.dat"), "w") as f:
        f.write("# trim_fraction valid_fraction_model valid_fraction_sim "
                "greedy fifo cost-benefit trim_model_fifo\n")
        a = data_ratio(res[("trim", 0, "fifo")])
        for q in TRIMS:
            s = (1 - 2 * q) / (1 - q)
            j = res[("trim", q, "fifo")]
            f.write("%.2f %.4f %.4f %s %.4f\n" % (
                q, s, j["valid_pages"] / j["logical_pages"],
                " ".join("%.4f" % res[("trim", q, p)]["waf"]
                         for p in POLICIES), desnoyers_waf(a / s)))
    with open(os.path.join(o.out, "waf-trim-model.dat"), "w") as f:
        f.write("# trim_fraction trim_model_fifo\n")
        for i in range(0, 46):
            q = i / 100
            f.write("%.2f %.4f\n" % (q, desnoyers_waf(a / ((1 - 2 * q) /
                                                          (1 - q)))))
    sub = ("%d logical pages of 4 KiB (%d MiB), %d pages per block, "
           "uniform random writes, steady state" %
           (LOGICAL, LOGICAL * 4 // 1024, PPB))
    subprocess.run(["gnuplot", "-e", "dir='%s'; sub='%s'; trim_op=%d" %
                    (o.out, sub, TRIM_OP), os.path.join(HERE, "figures.gp")],
                   check=True)
    for name in ("waf-op", "waf-trim"):
        path = os.path.join(o.out, name + ".png")
        print("%s: %d bytes" % (path, os.path.getsize(path)))


if __name__ == "__main__":
    main()
