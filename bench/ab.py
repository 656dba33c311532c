#!/usr/bin/env python3
"""Two loom binaries, before and after a change, timed alternately on the same trees.

    python3 bench/ab.py BEFORE AFTER [--rounds 3] [--runs 15] [--http] [--duration 5]

Each round runs `loom bench --json` with one binary and then the other, swapping which
goes first every round, so that other work on the machine weighs on both alike. With
--http it also runs bench/http_load.sh on each binary in turn (16 connections, the cell
body: cache hits and misses). The table gives, per tree and phase, the median over the
rounds of each binary's median, and after/before (above 1.00: the change is slower;
for req/s, below 1.00 is slower). Nothing is written but stdout."""
import argparse, json, os, pathlib, statistics, subprocess, sys, tempfile

HERE = pathlib.Path(__file__).resolve().parent


def bench(binary, trees, runs):
    out = subprocess.run([binary, "bench", "--trees-dir", trees, "--runs", str(runs), "--json"],
                         check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if "tree" in r:
            for phase, ms in r["median_ms"].items():
                rows[(r["tree"], phase)] = ms
        elif "median_ms" in r:
            rows[(r["scenario"], "ms")] = r["median_ms"]
    return rows


def http(binary, duration):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.jsonl")
        subprocess.run([str(HERE / "http_load.sh"), binary, "--connections", "16", "--no-bare",
                        "--duration", str(duration), "--out", path],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rows = {}
        for line in open(path):
            r = json.loads(line)
            rows[(f'http {r["scenario"]} c16', "req/s")] = r["rps"]
            rows[(f'http {r["scenario"]} c16', "cpu us/req")] = r["cpu_us_per_req"]
        return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--trees", default=str(HERE / "trees"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--http", action="store_true")
    ap.add_argument("--duration", type=int, default=5)
    a = ap.parse_args()

    samples = {"before": {}, "after": {}}
    for i in range(a.rounds):
        order = [("before", a.before), ("after", a.after)]
        if i % 2:
            order.reverse()
        for name, binary in order:
            got = bench(binary, a.trees, a.runs)
            if a.http:
                got.update(http(binary, a.duration))
            for k, v in got.items():
                samples[name].setdefault(k, []).append(v)
        print(f"# round {i + 1} of {a.rounds} done", file=sys.stderr)

    print(f"| tree / scenario | phase | before | after | after/before |")
    print(f"|---|---|---:|---:|---:|")
    for key in samples["before"]:
        if key not in samples["after"]:
            continue
        b = statistics.median(samples["before"][key])
        f = statistics.median(samples["after"][key])
        ratio = f / b if b else float("nan")
        print(f"| {key[0]} | {key[1]} | {b:.4g} | {f:.4g} | {ratio:.3f} |")


if __name__ == "__main__":
    main()
