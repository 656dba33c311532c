#!/usr/bin/env python3
"""Resident memory of `loom serve` with its default caches full (loopback only, bounded).

    python3 bench/memory.py [LOOM]      # default .build/release/loom

Fills the response cache by entries (12,000 distinct one-cell requests: more than the
10,000-entry bound) and then by bytes (1,500 distinct 100-cell feeds: past the 64 MiB
bound). Each is sent twice, the second time with another root id (another answer, the same
subtrees), so that the shared subtree cache, which stores a subtree from its second
sighting on, fills as well; then the text caches (`--no-text` skips it): distinct texts of long made-up words
until the text measurement cache holds its byte bound (32 MiB by default) and the word
cache has filled its 16 MiB. Prints VmRSS after each phase and the cache figures from
/metrics. The word cache empties a shard when it is full, so it is "filled" once it has
held nearly its bound: the script reports the most it has seen held (`loom_word_cache_bytes`).
"""
import http.client
import json
import random
import socket
import subprocess
import sys
import time

args = [a for a in sys.argv[1:] if not a.startswith("--")]
text_phase = "--no-text" not in sys.argv[1:]
loom = args[0] if args else ".build/release/loom"
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
server = subprocess.Popen([loom, "serve", "--port", str(port), "--host", "127.0.0.1", "--log-level", "warning"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)

    def rss_mib():
        for line in open(f"/proc/{server.pid}/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
        return float("nan")

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def post(body):
        conn.request("POST", "/layout", body=body.encode(), headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        if r.status != 200:
            raise SystemExit(f"unexpected status {r.status}")

    cell = open("bench/trees/cell.json", encoding="utf-8").read()
    feed = open("bench/trees/feed.json", encoding="utf-8").read()
    print(f"start: RSS {rss_mib():.1f} MiB")
    for i in range(12000):
        body = cell.replace("7.125", f"{7 + i / 1000:.3f}")
        post(body)
        post(body.replace('"id": "cell-7"', '"id": "cell-7b"', 1))
    print(f"after 12,000 distinct cells: RSS {rss_mib():.1f} MiB")
    for i in range(1500):
        body = '{"scale": %s,' % (2 + i / 10000) + feed[1:]
        post(body)
        post(body.replace('"id":"feed"', '"id":"feed-b"', 1))
    print(f"after 1,500 distinct feeds: RSS {rss_mib():.1f} MiB")
    def metric_values():
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
        values = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                values[name] = float(value)
        return values

    m = metric_values()
    print(" ".join(f"{k} {m[k]:.0f}" for k in m if k.startswith(("loom_cache_entries", "loom_cache_bytes", "loom_cache_evictions",
                                                                    "loom_subtree_cache_entries", "loom_subtree_cache_bytes"))))

    if text_phase:
        # Texts of 28 made-up words of 50-80 letters (each word longer than the word cache's
        # inline key, so it is counted with its string), 12 texts a request 1,200 points
        # wide, 3 fonts: a text key of ~1.8 KB, an answer per text, so that both caches
        # reach their byte bounds before their entry bounds. Until the measurement cache is within 2 % of its
        # byte bound and the word cache has held 90 % of its own, or 40,000 texts.
        rng = random.Random(20261124)
        letters = "abcdefghijklmnopqrstuvwxyz"
        fonts = [("Roboto", 13), ("Inter", 12), ("Liberation Sans", 14)]
        m = metric_values()
        text_bound = 32 << 20
        word_bound = 16 << 20
        word_most, texts, t0 = 0.0, 0, time.time()
        while texts < 40000:
            children = []
            for _ in range(12):
                words = " ".join("".join(rng.choice(letters) for _ in range(rng.randint(50, 80))) for _ in range(28))
                family, size = fonts[texts % 3]
                children.append({"type": "text", "text": words, "font": {"family": family, "size": size}})
                texts += 1
            post(json.dumps({"sizeRange": {"min": {"width": 0, "height": 0}, "max": {"width": 1200, "height": None}},
                             "root": {"type": "stack", "direction": "vertical", "children": children}}))
            if texts % 240 == 0:
                m = metric_values()
                word_most = max(word_most, m.get("loom_word_cache_bytes", 0))
                if m.get("loom_text_cache_bytes", 0) >= 0.98 * text_bound and word_most >= 0.9 * word_bound:
                    break
        m = metric_values()
        word_most = max(word_most, m.get("loom_word_cache_bytes", 0))
        print(f"after {texts:,} distinct texts ({time.time() - t0:.0f} s): RSS {rss_mib():.1f} MiB")
        print(" ".join(f"{k} {m[k]:.0f}" for k in m if k.startswith(("loom_text_cache_entries", "loom_text_cache_bytes",
                                                                        "loom_word_cache"))),
              f"word_cache_bytes_most_seen {word_most:.0f}")
finally:
    server.terminate()
    server.wait(timeout=30)
