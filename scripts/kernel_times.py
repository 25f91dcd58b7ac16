"""Prints, per kernel, the median kernel time of every run in a folder of
tests/workloads/bench_kernels.py results (NAME.json, one per variant) and its ratio to the
run named `plain`: what scripts/contention-experiment.sh and scripts/dmat-experiment.sh
report.

Usage: python3 scripts/kernel_times.py DIR
"""
import glob
import json
import os
import sys


def medians(out):
    """{kernel: {variant: median µs}} over DIR/*.json."""
    rows = {}
    for f in sorted(glob.glob(os.path.join(out, "*.json"))):
        name = os.path.basename(f)[:-5]
        with open(f) as fh:
            kernels = json.load(fh).get("kernels", {})
        for kernel, r in kernels.items():
            t = sorted(r.get("times_us") or [])
            if t:
                rows.setdefault(kernel, {})[name] = t[len(t) // 2]
    return rows


def main():
    for kernel, r in medians(sys.argv[1]).items():
        plain = r.get("plain")
        cells = [f"{n} {v:.0f} µs" + (f" ({v / plain:.2f}x)" if plain else "") for n, v in r.items()]
        print(kernel + ": " + "; ".join(cells))


if __name__ == "__main__":
    main()
