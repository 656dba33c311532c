#!/usr/bin/env python3
"""Loom against Taffy and Yoga on the same trees, in the same run.

    python3 bench/compare.py                                  # .build/release/loom, all trees
    python3 bench/compare.py --loom path/to/loom --runs 30 --out bench-results/compare.json
    python3 bench/compare.py --tree feed --tree deep --budget 60
    python3 bench/compare.py --peers-from old-peers.jsonl     # reuse peers.py output

For every tree it runs `LOOM bench --tree FILE --runs N --json`, which prints one line
    {"tree": "feed", "nodes": 1501, "runs": 15,
     "median_ms": {"decode": …, "layout": …, "encode": …, "total": …}, "p90_ms": {…}}
and peers.py's worker for each peer engine (only the peers' layout call is timed; see
peers.py). It prints a table

    tree  nodes  loom layout  loom total  best peer  peer median  layout/best  total/best

(ratios < 1 mean Loom is faster than the fastest peer that finished; a peer that timed
out is shown as such and is never "best") and writes the same rows as JSON to --out.

Loom's "layout" is the number to set against the peers' (both are layout only); "total"
adds Loom's JSON decode and encode, which the peers' numbers do not include.

--rounds N (default 1) times every tree N times in turns (Loom, then each peer, N times over)
and gives each ratio as the median of the rounds' own ratios, with their range: on a machine
whose speed moves between phases (a shared VM), one round's ratio moves with the phase it
fell in; the median of several is not moved by one slow phase, and the range shows the
spread. The medians in ms are then the medians of the rounds' medians.

The yoga_* trees (the synthetic shapes as Yoga trees, scale 1) are also checked for frames:
`loom layout FILE`, Yoga (poga, driven as Texture drives it) and Taffy (stretchable) each lay
the tree out once, and every node's absolute frame is compared in tree order. Loom must equal
Yoga exactly; Taffy rounds to whole points its own way and may differ by 1 pt where a value
falls on a half point (yoga_wide, yoga_balanced). A second table shows the agreement; exit
status 1 if Loom differs from Yoga, or from Taffy by more than 1 pt. --frames-only skips
the timings.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import peers  # noqa: E402


def run_loom(loom, tree_file, runs, timeout):
    cmd = [loom, "bench", "--tree", tree_file, "--runs", str(runs), "--json"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "timeout_s": timeout}
    except OSError as e:
        return {"status": "error", "error": str(e)}
    if p.returncode != 0:
        tail = (p.stderr or p.stdout or "").strip().splitlines()[-3:]
        return {"status": "error", "error": " | ".join(tail) or f"exit {p.returncode}"}
    # The first line is the tree itself; `loom bench` adds `_coldtext`, `_coldwords` and `_instanttext` lines
    # for trees with text (caches emptied before each run), reported apart, not compared.
    for line in p.stdout.strip().splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                res = json.loads(line)
            except ValueError:
                continue
            res["status"] = "ok"
            return res
    return {"status": "error", "error": "no JSON line in output: " + p.stdout.strip()[-200:]}


def loom_frames(loom, tree_file, timeout):
    """Loom's layout of a tree: every node's absolute frame, pre-order (its `layout` tree)."""
    try:
        p = subprocess.run([loom, "layout", tree_file, "--max-depth", "1024", "--deadline", "600"],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    try:
        res = json.loads(p.stdout)
    except ValueError:
        return {"status": "error", "error": (p.stderr or p.stdout).strip()[-200:]}
    if "layout" not in res:
        return {"status": "error", "error": json.dumps(res.get("error", res))[:200]}
    out = []
    work = [(res["layout"], 0.0, 0.0)]
    while work:
        n, ox, oy = work.pop()
        f = n["frame"]
        x, y = ox + f["x"], oy + f["y"]
        out.append((x, y, f["width"], f["height"]))
        work.extend((c, x, y) for c in reversed(n.get("children", ())))
    return {"status": "ok", "frames": out}


def frames_file(name, path):
    """The file whose frames are compared: the tree itself, or for yoga_deep and
    yoga_deepstretch (2,000 nested elements, past `loom layout`'s depth limit of 1,024) the
    same shape with 400 levels."""
    if name not in ("yoga_deep", "yoga_deepstretch"):
        return path
    import gen_trees
    req = gen_trees.yoga_deep(levels=400, align="start" if name == "yoga_deep" else "stretch")
    import tempfile
    out = os.path.join(tempfile.gettempdir(), f"loom-frames-{name}-400.json")
    with open(out, "w") as f:
        f.write(gen_trees.encode(name, req))
    return out


def check_frames(loom, py, path, budget, timeout):
    """Frames of loom, yoga and taffy on one tree, and how far apart each pair is."""
    path = frames_file(peers.tree_name(path), path)
    got = {"loom": loom_frames(loom, path, timeout)}
    for eng in peers.ENGINES:
        got[eng] = peers.peer_frames(py, path, eng, budget)
    out = {"status": {k: v["status"] for k, v in got.items()}, "pairs": {}}
    for a, b in (("loom", "yoga"), ("loom", "taffy"), ("yoga", "taffy")):
        if got[a]["status"] == "ok" and got[b]["status"] == "ok":
            n, d, worst = peers.frame_agreement(got[a]["frames"], got[b]["frames"])
            out["pairs"][f"{a}/{b}"] = {"frames": n, "differing": d, "max_diff_pt": worst}
    out["file"] = os.path.basename(path)
    lt, ly = out["pairs"].get("loom/taffy"), out["pairs"].get("loom/yoga")
    out["ok"] = (got["loom"]["status"] == "ok"
                 and (ly is None or ly["differing"] == 0)
                 and (lt is None or (lt["max_diff_pt"] is not None and lt["max_diff_pt"] <= 1.0)))
    if got["loom"]["status"] != "ok":
        out["loom_error"] = got["loom"].get("error", got["loom"]["status"])
    return out


def fmt_ms(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_ratio(v):
    return "-" if v is None else (f"{v:.2f}x" if v < 100 else f"{v:.0f}x")


def combine_rounds(rounds):
    """One Loom result and one result per peer from the rounds: medians of the rounds'
    medians (a single round is returned as it is)."""
    if len(rounds) == 1:
        return rounds[0]
    louts = [lr for lr, _ in rounds if lr["status"] == "ok"]
    if len(louts) < len(rounds):
        return next(lr for lr, _ in rounds if lr["status"] != "ok"), rounds[0][1]
    lr = dict(louts[0])
    for key in ("median_ms", "p90_ms"):
        phases = louts[0].get(key) or {}
        lr[key] = {ph: statistics.median([o[key][ph] for o in louts if o.get(key) and o[key].get(ph) is not None])
                   for ph in phases}
    pr = []
    for k, first in enumerate(rounds[0][1]):
        mine = [p[k] for _, p in rounds if k < len(p)]
        ok = [p for p in mine if p.get("status") == "ok" and p.get("median_ms") is not None]
        if len(ok) < len(mine):
            pr.append(next(p for p in mine if p not in ok))
            continue
        merged = dict(first)
        merged["median_ms"] = statistics.median([p["median_ms"] for p in ok])
        if all(p.get("p90_ms") is not None for p in ok):
            merged["p90_ms"] = statistics.median([p["p90_ms"] for p in ok])
        pr.append(merged)
    return lr, pr


def round_ratios(rounds, engine, phase):
    """Per round: Loom's median of `phase` over that round's median of `engine`."""
    out = []
    for lr, pr in rounds:
        peer = next((p for p in pr if p.get("engine") == engine and p.get("status") == "ok"), None)
        value = (lr.get("median_ms") or {}).get(phase)
        if peer and peer.get("median_ms") and value is not None:
            out.append(value / peer["median_ms"])
    return out


def fmt_ratio_range(row, key):
    per = row.get(f"ratio_{key}_to_best_rounds")
    text = fmt_ratio(row[f"ratio_{key}_to_best"])
    if per and len(per) > 1:
        text += f" ({min(per):.2f}-{max(per):.2f})"
    return text


def best_peer(results):
    ok = [r for r in results if r.get("status") == "ok" and r.get("median_ms") is not None]
    if not ok:
        return None
    return min(ok, key=lambda r: r["median_ms"])


def load_peer_file(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                out.setdefault(r["tree"], []).append(r)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loom", default=os.path.join(REPO, ".build", "release", "loom"),
                    help="loom binary (default .build/release/loom)")
    ap.add_argument("--trees", default=peers.DEFAULT_TREES)
    ap.add_argument("--tree", action="append", default=[], help="tree name or file; repeatable")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=1,
                    help="time each tree this many times in turns, Loom then the peers (ratios: median of the rounds')")
    ap.add_argument("--warmup", type=int, default=3, help="peers' untimed warm-up runs")
    ap.add_argument("--engines", default="taffy,yoga")
    ap.add_argument("--budget", type=float, default=20.0, help="seconds per tree and peer engine")
    ap.add_argument("--loom-timeout", type=float, default=300.0, help="seconds per `loom bench` call")
    ap.add_argument("--python", default=None, help="interpreter with the peers (default bench/.venv)")
    ap.add_argument("--peers-from", default=None, help="use these peers.py JSON lines instead of running peers")
    ap.add_argument("--out", default=None, help="write the table as JSON here")
    ap.add_argument("--frames-only", action="store_true",
                    help="only check the yoga_* trees' frames against Yoga and Taffy, no timings")
    args = ap.parse_args(argv)

    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    loom = os.path.abspath(args.loom)
    if not os.access(loom, os.X_OK):
        ap.error(f"loom binary not found or not executable: {loom} (swift build -c release, or --loom)")
    py = args.python or (peers.VENV_PY if os.path.exists(peers.VENV_PY) else sys.executable)
    engines = [e for e in args.engines.split(",") if e]
    prior = load_peer_file(args.peers_from) if args.peers_from else None
    specs = args.tree or peers.list_trees(args.trees)

    rows = []
    frames = {}
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    for spec in specs:
        path = peers.tree_path(spec, args.trees)
        name = peers.tree_name(path)
        if name.startswith("yoga_"):
            print(f"# {name}: frames of loom, yoga, taffy ...", file=sys.stderr, flush=True)
            frames[name] = check_frames(loom, py, path, args.budget, args.loom_timeout)
        if args.frames_only:
            continue
        rounds = []
        for k in range(args.rounds):
            tag = f" (round {k + 1} of {args.rounds})" if args.rounds > 1 else ""
            print(f"# {name}: loom ...{tag}", file=sys.stderr, flush=True)
            lr = run_loom(loom, path, args.runs, args.loom_timeout)
            if prior is not None:
                pr = prior.get(name, [])
            else:
                pr = []
                for eng in engines:
                    print(f"# {name}: {eng} ...{tag}", file=sys.stderr, flush=True)
                    pr.append(peers.run_pair(py, path, name, eng, args.runs, args.warmup, args.budget, 300.0))
            rounds.append((lr, pr))
            if lr["status"] != "ok":
                break
        lr, pr = combine_rounds(rounds)
        best = best_peer(pr)
        lm = lr.get("median_ms") or {}
        lp = lr.get("p90_ms") or {}
        layout, total = lm.get("layout"), lm.get("total")
        peer_nodes = next((r.get("nodes") for r in pr if r.get("nodes")), None)
        row = {
            "tree": name,
            "nodes": lr.get("nodes", peer_nodes),
            "loom_status": lr["status"],
            "loom_runs": lr.get("runs"),
            "loom_median_ms": lm or None,
            "loom_p90_ms": lp or None,
            "loom_layout_median_ms": layout,
            "loom_total_median_ms": total,
            "peers": {r["engine"]: {k: r.get(k) for k in ("status", "median_ms", "p90_ms", "runs")}
                      for r in pr},
            "best_peer": best["engine"] if best else None,
            "best_peer_median_ms": best["median_ms"] if best else None,
            "ratio_layout_to_best": (layout / best["median_ms"]) if best and layout is not None else None,
            "ratio_total_to_best": (total / best["median_ms"]) if best and total is not None else None,
        }
        if len(rounds) > 1 and best:
            # Each round's ratio against that round's time of the same peer, then their median.
            for phase in ("layout", "total"):
                per = round_ratios(rounds, best["engine"], phase)
                if per:
                    row[f"ratio_{phase}_to_best"] = statistics.median(per)
                    row[f"ratio_{phase}_to_best_rounds"] = per
            row["rounds"] = len(rounds)
        if lr["status"] == "ok" and lr.get("nodes") == 0 and peer_nodes:
            # `loom bench` on a tree it rejects times nothing: not a result
            row["loom_status"] = lr["status"] = "error"
            row["loom_error"] = "loom bench laid out no nodes (does `loom layout` accept the tree?)"
            row["ratio_layout_to_best"] = row["ratio_total_to_best"] = None
        if lr["status"] != "ok":
            row["loom_error"] = row.get("loom_error") or lr.get("error") or lr.get("status")
        if peer_nodes is not None and lr.get("nodes") is not None and peer_nodes != lr["nodes"]:
            row["nodes_mismatch"] = {"loom": lr["nodes"], "json_elements": peer_nodes}
        rows.append(row)

    header = ["tree", "nodes", "loom layout", "loom total", "best peer", "peer median",
              "layout/best", "total/best", "others"]
    table = []
    for r in rows:
        others = []
        for eng, p in r["peers"].items():
            if eng == r["best_peer"]:
                continue
            others.append(f"{eng} {fmt_ms(p['median_ms'])}" if p["status"] == "ok" else f"{eng} {p['status']}")
        loom_l = fmt_ms(r["loom_layout_median_ms"]) if r["loom_status"] == "ok" else r["loom_status"]
        loom_t = fmt_ms(r["loom_total_median_ms"]) if r["loom_status"] == "ok" else "-"
        table.append([r["tree"], str(r["nodes"] if r["nodes"] is not None else "-"), loom_l, loom_t,
                      r["best_peer"] or "none finished", fmt_ms(r["best_peer_median_ms"]),
                      fmt_ratio_range(r, "layout"), fmt_ratio_range(r, "total"),
                      ", ".join(others)])
    widths = [max(len(h), *(len(row[i]) for row in table)) if table else len(h) for i, h in enumerate(header)]
    if table:
        print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
        print("  ".join("-" * w for w in widths))
        for row in table:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
        print("(medians in ms; ratios < 1: Loom faster than the best peer"
              + (f"; over {args.rounds} rounds: the median of the rounds' ratios, their range in brackets)"
                 if args.rounds > 1 else ")"))
    for r in rows:
        if r.get("loom_error"):
            print(f"loom failed on {r['tree']}: {r['loom_error']}", file=sys.stderr)
        if r.get("nodes_mismatch"):
            print(f"note: {r['tree']}: loom counts {r['nodes_mismatch']['loom']} nodes, "
                  f"the JSON has {r['nodes_mismatch']['json_elements']} elements", file=sys.stderr)

    if frames:
        print()
        print("frames at scale 1 (differing / compared, largest difference in pt; '-' = not compared):")
        for name, fr in frames.items():
            cells = []
            for pair in ("loom/yoga", "loom/taffy", "yoga/taffy"):
                p = fr["pairs"].get(pair)
                cells.append(f"{pair} " + ("-" if p is None else f"{p['differing']}/{p['frames']} ({p['max_diff_pt']:g})"
                                           if p["max_diff_pt"] is not None else "node counts differ"))
            status = ", ".join(f"{k} {v}" for k, v in fr["status"].items() if v != "ok")
            note = "" if fr["file"] == name + ".json" else " (400 levels)"
            print(f"  {name + note:<30} {'ok ' if fr['ok'] else 'BAD'}  " + "  ".join(cells)
                  + (f"  [{status}]" if status else ""))
            if fr.get("loom_error"):
                print(f"    loom: {fr['loom_error']}", file=sys.stderr)

    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump({"started": started, "loom": loom, "runs": args.runs, "rounds": args.rounds,
                       "budget_s": args.budget, "rows": rows, "frames": frames}, f, indent=1)
            f.write("\n")
        print(f"written {args.out}", file=sys.stderr)
    ok = all(r["loom_status"] == "ok" for r in rows) and all(fr["ok"] for fr in frames.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
