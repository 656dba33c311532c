#!/usr/bin/env python3
"""Resident memory of `loom serve` with its default caches full (loopback only, bounded).

    python3 bench/memory.py [LOOM]      # default .build/release/loom

Fills the response cache by entries (12,000 distinct one-cell requests: more than the
10,000-entry bound) and then by bytes (1,500 distinct 100-cell feeds: past the 64 MiB
bound), printing VmRSS after each phase and the cache figures from /metrics.
"""
import http.client
import socket
import subprocess
import sys
import time

loom = sys.argv[1] if len(sys.argv) > 1 else ".build/release/loom"
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
        post(cell.replace("7.125", f"{7 + i / 1000:.3f}"))
    print(f"after 12,000 distinct cells: RSS {rss_mib():.1f} MiB")
    for i in range(1500):
        post('{"scale": %s,' % (2 + i / 10000) + feed[1:])
    print(f"after 1,500 distinct feeds: RSS {rss_mib():.1f} MiB")
    conn.request("GET", "/metrics")
    metrics = conn.getresponse().read().decode()
    print(" ".join(l for l in metrics.splitlines() if l.startswith(("loom_cache_entries", "loom_cache_bytes", "loom_cache_evictions"))))
finally:
    server.terminate()
    server.wait(timeout=30)
