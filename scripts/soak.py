#!/usr/bin/env python3
"""Soak test of a running `loom serve` (Python standard library only).

Mixed traffic from several threads for a bounded time:
  good     POST /layout with ever different trees (and some repeated ones), each answer
           checked against frames computed from the tree itself;
  bad      malformed JSON, invalid specs, bodies over the limit, trees over the depth limit,
           wrong content type, unknown paths, wrong methods, a batch with a bad item: each
           must get its own 4xx (or 200 for the batch) with the right error code;
  stalled  connections that send half a body and wait: some finish later (must get 200
           and the right frames), some never do: the server must keep such a connection
           open until its connection timeout (not drop it at once), then close it without
           an answer, while good requests on other connections go on being answered.
Checks: no 5xx at all, every status as expected, every kind of request (each bad case,
each stall outcome, good) answered as expected at least --min-per-kind times (fewer for
the stalls when the run is short for the connection timeout) and no worker thread dead
before the end, the server's RSS (/proc/PID/status) does not grow beyond a bound after the
warm-up, and the p50/p99 latency of good requests under load stays within a bound of the
unloaded latency. Prints one summary line; exits 1 on any failure.

  scripts/soak.py --url http://127.0.0.1:8080 --pid 1234 --duration 30
"""
import argparse
import http.client
import json
import os
import random
import socket
import sys
import threading
import time
import urllib.parse

# The cases of bad_worker, by kind (each must be answered as expected often enough).
BAD_KINDS = ("malformed", "invalid", "invalid-ratio", "deep", "huge", "wrong-type", "not-found",
             "wrong-method", "batch")

WORDS = ["Loom", "layout", "Texture", "stack", "inset", "hello", "world", "cell", "title", "subtitle"]


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(p / 100.0 * (len(s) - 1)))))
    return s[k]


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.answered = {}         # kind -> answers that passed every check
        self.failures = []
        self.server_errors = 0
        self.good_latencies = []   # (time, seconds)

    def count(self, kind):
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def passed(self, kind):
        with self.lock:
            self.answered[kind] = self.answered.get(kind, 0) + 1

    def answered_count(self, kind):
        with self.lock:
            return self.answered.get(kind, 0)

    def fail(self, message):
        with self.lock:
            if len(self.failures) < 50:
                self.failures.append(message)
            else:
                self.failures.append("…")
                self.failures = self.failures[:51]

    def status(self, kind, status, expected, detail=""):
        """Counts a request of `kind`; whether its status is one of `expected`."""
        self.count(kind)
        if status is not None and status >= 500:
            with self.lock:
                self.server_errors += 1
            self.fail(f"{kind}: server error {status} {detail[:200]}")
            return False
        if status not in expected:
            self.fail(f"{kind}: status {status}, expected {sorted(expected)} {detail[:200]}")
            return False
        return True


class Soak:
    def __init__(self, args):
        self.args = args
        u = urllib.parse.urlparse(args.url)
        if u.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise SystemExit("soak.py talks to loopback addresses only")
        self.host, self.port = u.hostname, u.port or 80
        self.stats = Stats()
        self.stop = threading.Event()
        self.measuring = threading.Event()     # after the warm-up
        self.rng = random.Random(args.seed)
        self.repeated = [self.make_tree(random.Random(args.seed + k)) for k in range(50)]

    # --- trees ------------------------------------------------------------------------------

    def make_tree(self, rng):
        """A stack (or a Yoga row or column) of k nodes with integral sizes: node i's frame is
        known from the tree."""
        k = rng.randint(2, 12)
        vertical = rng.random() < 0.3
        spacing = rng.randint(0, 5)
        sizes = [(rng.randint(1, 60), rng.randint(1, 40)) for _ in range(k)]
        children = []
        for i, (w, h) in enumerate(sizes):
            children.append({"type": "node", "id": f"c{i}", "style": {"preferredSize": {"width": w, "height": h}}})
        yoga = rng.random() < 0.3
        if yoga:
            # The same row or column laid out by the Yoga engine: spacing as each child's
            # trailing margin (a Yoga request's whole tree must be freed after its answer).
            for c in children:
                c["style"] = {"width": c["style"]["preferredSize"]["width"],
                              "height": c["style"]["preferredSize"]["height"],
                              "margin": {"bottom" if vertical else "right": spacing}}
            root = {"type": "node", "id": "root", "style": {
                "flexDirection": "vertical" if vertical else "horizontal", "alignItems": "start"},
                "yogaChildren": children}
        else:
            root = {"type": "stack", "id": "root", "direction": "vertical" if vertical else "horizontal",
                    "spacing": spacing, "alignItems": "start", "children": children}
        if not yoga and rng.random() < 0.3:
            # A text node (few distinct strings, so the text cache stays bounded), no id:
            # placed after the nodes, it does not move them.
            root["children"].append({"type": "text", "text": " ".join(rng.sample(WORDS, 3)),
                                     "font": {"family": "Roboto", "size": rng.choice([12, 14, 17])}})
        expected = {}
        pos = 0
        for i, (w, h) in enumerate(sizes):
            expected[f"c{i}"] = [0, pos, w, h] if vertical else [pos, 0, w, h]
            pos += (h if vertical else w) + spacing
        return json.dumps({"root": root}, separators=(",", ":")).encode(), expected

    def next_tree(self, rng):
        if rng.random() < 0.2:
            return rng.choice(self.repeated)
        return self.make_tree(rng)

    # --- HTTP -------------------------------------------------------------------------------

    def connection(self, timeout=30):
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def one(self, method, path, body=None, headers=None, timeout=30):
        c = self.connection(timeout)
        try:
            c.request(method, path, body=body, headers=headers or {})
            r = c.getresponse()
            return r.status, r.read(), dict(r.getheaders())
        finally:
            c.close()

    def good_request(self, conn, rng):
        body, expected = self.next_tree(rng)
        start = time.perf_counter()
        try:
            conn.request("POST", "/layout", body=body, headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            data = r.read()
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            self.stats.count("good")
            self.stats.fail(f"good: {type(e).__name__}: {e}")
            return None
        elapsed = time.perf_counter() - start
        if self.stats.status("good", r.status, {200}, data[:200].decode("utf-8", "replace")) \
                and self.frames_match("good", data, expected):
            self.stats.passed("good")
        if r.getheader("Connection", "").lower() == "close":
            conn.close()
        return elapsed

    def frames_match(self, kind, data, expected):
        """Whether a layout answer's frames are the ones computed from the tree."""
        try:
            frames = json.loads(data)["frames"]
            for key, want in expected.items():
                got = frames[key]
                if [got["x"], got["y"], got["width"], got["height"]] != want:
                    self.stats.fail(f"{kind}: {key} is {got}, expected {want}")
                    return False
        except (ValueError, KeyError, TypeError) as e:
            self.stats.fail(f"{kind}: bad body ({e}): {data[:200]!r}")
            return False
        return True

    def good_worker(self, seed):
        rng = random.Random(seed)
        conn = self.connection()
        while not self.stop.is_set():
            elapsed = self.good_request(conn, rng)
            if elapsed is not None and self.measuring.is_set():
                with self.stats.lock:
                    self.stats.good_latencies.append(elapsed)
        conn.close()

    def bad_worker(self, seed):
        rng = random.Random(seed)
        a = self.args
        json_h = {"Content-Type": "application/json"}
        deep = {"type": "node"}
        for _ in range(a.max_depth + 5):
            deep = {"type": "inset", "insets": {"top": 1, "left": 0, "bottom": 0, "right": 0}, "child": deep}
        deep_body = json.dumps({"root": deep}).encode()
        cases = [
            ("malformed", lambda: self.one("POST", "/layout", b'{"root": {"type": "node",', json_h), {400}, "malformed_json"),
            ("invalid", lambda: self.one("POST", "/layout", b'{"root": {"type": "stack", "children": [{"type": "nope"}]}}', json_h),
             {400}, "invalid_spec"),
            ("invalid-ratio", lambda: self.one("POST", "/layout", b'{"root": {"type": "ratio", "ratio": -1, "child": {"type": "node"}}}', json_h),
             {400}, "invalid_spec"),
            ("deep", lambda: self.one("POST", "/layout", deep_body, json_h), {413}, "too_large"),
            ("huge", lambda: self.huge_body(), {413}, "too_large"),
            ("wrong-type", lambda: self.one("POST", "/layout", b'{"root": {"type": "node"}}', {"Content-Type": "text/plain"}),
             {415}, "unsupported_media_type"),
            ("not-found", lambda: self.one("GET", "/nope"), {404}, "not_found"),
            ("wrong-method", lambda: self.one("GET", "/layout"), {405}, "method_not_allowed"),
            ("batch", lambda: self.one("POST", "/layout/batch",
                                       b'{"items": [{"root": {"type": "node"}}, {"root": {"type": "x"}}]}', json_h), {200}, None),
        ]
        assert tuple(c[0] for c in cases) == BAD_KINDS
        while not self.stop.is_set():
            kind, call, expected, code = rng.choice(cases)
            try:
                status, body, _ = call()
            except (OSError, http.client.HTTPException) as e:
                self.stats.count(kind)
                self.stats.fail(f"{kind}: {type(e).__name__}: {e}")
                continue
            if self.stats.status(kind, status, expected, body[:200].decode("utf-8", "replace")):
                try:
                    o = json.loads(body)
                    if code is not None and o["error"]["code"] != code:
                        self.stats.fail(f"{kind}: code {o['error']['code']}, expected {code}")
                    elif kind == "batch" and ("frames" not in o["results"][0] or "error" not in o["results"][1]):
                        self.stats.fail(f"batch: {o}")
                    else:
                        self.stats.passed(kind)
                except (ValueError, KeyError, TypeError, IndexError) as e:
                    self.stats.fail(f"{kind}: bad body ({e}): {body[:200]!r}")
            time.sleep(rng.uniform(0, 0.01))

    def huge_body(self):
        """Declares a body over the limit and sends only the headers: 413 before reading."""
        s = socket.create_connection((self.host, self.port), timeout=10)
        try:
            n = self.args.max_body_bytes + 1 + random.randint(0, 1 << 20)
            s.sendall(f"POST /layout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      f"Content-Length: {n}\r\n\r\n".encode())
            status, body = read_response(s)
            return status, body, {}
        finally:
            s.close()

    def stall_worker(self, seed):
        rng = random.Random(seed)
        timeout = self.args.connection_timeout
        while not self.stop.is_set():
            body, expected = self.make_tree(rng)
            half = len(body) // 2
            finish = rng.random() < 0.5
            try:
                s = socket.create_connection((self.host, self.port), timeout=timeout + 10)
            except OSError as e:
                self.stats.count("stall")
                self.stats.fail(f"stall: connect: {e}")
                continue
            try:
                s.sendall(f"POST /layout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          f"Content-Length: {len(body)}\r\n\r\n".encode() + body[:half])
                if finish:
                    # Wait, but well within the server's timeout, then send the rest: 200.
                    self.stop.wait(rng.uniform(0.2, max(0.3, timeout * 0.5)))
                    s.sendall(body[half:])
                    status, data = read_response(s)
                    if self.stats.status("stall-finished", status, {200}, data[:200].decode("utf-8", "replace")) \
                            and self.frames_match("stall-finished", data, expected):
                        self.stats.passed("stall-finished")
                else:
                    # Never finish: the server must keep the connection until its timeout
                    # (libmicrohttpd counts it from the last byte received, in whole seconds
                    # at worst: hence the second of slack), then close it without an answer,
                    # and other connections must be served meanwhile.
                    good_before = self.stats.answered_count("good")
                    start = time.monotonic()
                    s.settimeout(timeout + 5)
                    try:
                        rest = s.recv(4096)
                    except ConnectionResetError:
                        rest = b""
                    except socket.timeout:
                        rest = None
                    waited = time.monotonic() - start
                    served = self.stats.answered_count("good") - good_before
                    self.stats.count("stall-dropped")
                    if rest is None:
                        self.stats.fail(f"stall: connection still open after {waited:.1f}s (timeout {timeout}s)")
                    elif rest.startswith(b"HTTP/1.1 5"):
                        with self.stats.lock:
                            self.stats.server_errors += 1
                        self.stats.fail(f"stall: {rest[:100]!r}")
                    elif rest:
                        self.stats.fail(f"stall: answered instead of closed after {waited:.1f}s: {rest[:100]!r}")
                    elif waited < timeout - 1:
                        self.stats.fail(f"stall: closed after {waited:.2f}s, before the connection timeout ({timeout}s)")
                    elif served == 0 and not self.stop.is_set():
                        self.stats.fail(f"stall: no good request answered during the {waited:.1f}s it stayed open")
                    else:
                        self.stats.passed("stall-dropped")
            except (OSError, ValueError) as e:
                self.stats.count("stall")
                self.stats.fail(f"stall: {type(e).__name__}: {e}")
            finally:
                s.close()

    # --- run --------------------------------------------------------------------------------

    def baseline(self, n):
        """Unloaded latency of good requests (fresh trees, one keep-alive connection)."""
        rng = random.Random(self.args.seed + 999)
        conn = self.connection()
        for _ in range(10):
            self.good_request(conn, rng)     # warm the connection and code paths
        lat = []
        for _ in range(n):
            e = self.good_request(conn, rng)
            if e is not None:
                lat.append(e)
        conn.close()
        return lat

    def guarded(self, name, target, seed):
        """Runs a worker; an exception it does not expect is a failure, not a silent exit."""
        try:
            target(seed)
        except BaseException as e:  # noqa: BLE001 - any way a worker dies is reported
            self.stats.fail(f"{name} thread died: {type(e).__name__}: {e}")

    def minimums(self):
        """Kind -> the answers it must have passed. A stall thread makes about one stall
        of each outcome per 1.25 connection timeouts; the minimum for stalls is a third of
        that (at least 1) when the run is too short for --min-per-kind of them."""
        a = self.args
        kinds = {}
        if a.good_threads:
            kinds["good"] = a.min_per_kind
        if a.bad_threads:
            for kind in BAD_KINDS:
                kinds[kind] = a.min_per_kind
        if a.stall_threads:
            expected = a.stall_threads * a.duration / (1.25 * a.connection_timeout)
            for kind in ("stall-finished", "stall-dropped"):
                kinds[kind] = max(1, min(a.min_per_kind, int(expected / 3)))
        return kinds

    def run(self):
        a = self.args
        status, _, _ = self.one("GET", "/healthz")
        if status != 200:
            print(f"soak: /healthz answered {status}")
            return 1
        base = self.baseline(a.baseline_requests)
        threads = []
        for name, n, target, base_seed in (("good", a.good_threads, self.good_worker, 100),
                                           ("bad", a.bad_threads, self.bad_worker, 200),
                                           ("stall", a.stall_threads, self.stall_worker, 300)):
            for k in range(n):
                threads.append(threading.Thread(target=self.guarded, name=f"{name}-{k}",
                                                args=(f"{name}-{k}", target, a.seed * base_seed + k), daemon=True))
        start = time.monotonic()
        for t in threads:
            t.start()
        warm_until = start + a.duration * a.warmup_fraction
        rss_samples = []
        rss_warm = None
        alive = True
        while time.monotonic() < start + a.duration:
            time.sleep(0.25)
            r = rss_kib(a.pid) if a.pid else None
            if a.pid and r is None:
                alive = False
                self.stats.fail("the server process is gone")
                break
            if time.monotonic() >= warm_until:
                if not self.measuring.is_set():
                    self.measuring.set()
                    rss_warm = r
                if r is not None:
                    rss_samples.append(r)
        dead = [t.name for t in threads if not t.is_alive()]
        if dead:
            self.stats.fail(f"worker threads ended before the soak did: {', '.join(dead)}")
        self.stop.set()
        for t in threads:
            t.join(timeout=a.connection_timeout + 15)
            if t.is_alive():
                self.stats.fail(f"worker thread {t.name} still busy {a.connection_timeout + 15:.0f}s after the end")
        elapsed = time.monotonic() - start
        if alive:
            try:
                status, _, _ = self.one("GET", "/healthz", timeout=10)
                if status != 200:
                    self.stats.fail(f"/healthz after the soak: {status}")
            except (OSError, http.client.HTTPException) as e:
                self.stats.fail(f"/healthz after the soak: {e}")

        # Verdict.
        st = self.stats
        total = sum(st.counts.values())
        good = st.counts.get("good", 0)
        lat = st.good_latencies
        b50, b99 = percentile(base, 50) * 1000, percentile(base, 99) * 1000
        l50, l99 = percentile(lat, 50) * 1000, percentile(lat, 99) * 1000
        bound50 = max(b50 * a.p50_factor, b50 + a.p50_slack_ms)
        bound99 = max(b99 * a.p99_factor, b99 + a.p99_slack_ms)
        if not lat:
            st.fail("no good request was measured under load")
        else:
            if l50 > bound50:
                st.fail(f"p50 under load {l50:.1f} ms > bound {bound50:.1f} ms (unloaded {b50:.1f} ms)")
            if l99 > bound99:
                st.fail(f"p99 under load {l99:.1f} ms > bound {bound99:.1f} ms (unloaded {b99:.1f} ms)")
        growth_mib = None
        if rss_warm is not None and rss_samples:
            growth_mib = (max(rss_samples) - rss_warm) / 1024
            if growth_mib > a.rss_growth_mib:
                st.fail(f"RSS grew {growth_mib:.1f} MiB after the warm-up (bound {a.rss_growth_mib} MiB)")
        minimums = self.minimums()
        for kind, least in sorted(minimums.items()):
            got = st.answered.get(kind, 0)
            if got < least:
                st.fail(f"{kind}: {got} answered as expected, fewer than the minimum {least} "
                        f"({st.counts.get(kind, 0)} sent)")
        kinds = " ".join(f"{k}={st.answered.get(k, 0)}/{v}" for k, v in sorted(st.counts.items()))
        least_text = ", ".join(f"{v} {k}" for k, v in sorted(minimums.items()) if k.startswith("stall")) or "no stalls"
        rss_text = (f"RSS warm {rss_warm / 1024:.1f} MiB, max {max(rss_samples) / 1024:.1f} MiB, growth {growth_mib:+.1f} MiB"
                    if growth_mib is not None else "RSS n/a")
        ok = not st.failures and st.server_errors == 0
        for f in st.failures[:20]:
            print(f"soak: FAIL {f}")
        print(f"soak: {'PASS' if ok else 'FAIL'} {total} requests in {elapsed:.1f}s ({total / max(elapsed, 1e-9):.0f}/s), "
              f"{good} good; 5xx: {st.server_errors}; failures: {len(st.failures)}; "
              f"latency unloaded p50 {b50:.1f} ms p99 {b99:.1f} ms, loaded p50 {l50:.1f} ms p99 {l99:.1f} ms "
              f"(bounds {bound50:.0f}/{bound99:.0f} ms); {rss_text}; "
              f"[kind=passed/sent: {kinds}] (at least {a.min_per_kind} each, {least_text})")
        return 0 if ok else 1


def read_response(s):
    """Reads one HTTP/1.1 response (Content-Length bodies) from a socket: (status, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before the headers ({len(data)} bytes)")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, rest[:length]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", required=True, help="base URL of loom serve (loopback only)")
    p.add_argument("--pid", type=int, default=0, help="server process id, for RSS (0: no RSS check)")
    p.add_argument("--duration", type=float, default=float(os.environ.get("SOAK_SECONDS", 30)))
    p.add_argument("--warmup-fraction", type=float, default=0.3)
    p.add_argument("--good-threads", type=int, default=4)
    p.add_argument("--bad-threads", type=int, default=2)
    p.add_argument("--stall-threads", type=int, default=3)
    p.add_argument("--baseline-requests", type=int, default=200)
    p.add_argument("--max-body-bytes", type=int, default=4 << 20, help="the server's --max-body-bytes")
    p.add_argument("--max-depth", type=int, default=512, help="the server's --max-depth")
    p.add_argument("--connection-timeout", type=float, default=10, help="the server's --connection-timeout")
    p.add_argument("--rss-growth-mib", type=float, default=48, help="RSS growth allowed after the warm-up")
    p.add_argument("--p50-factor", type=float, default=10)
    p.add_argument("--p50-slack-ms", type=float, default=25)
    p.add_argument("--p99-factor", type=float, default=10)
    p.add_argument("--p99-slack-ms", type=float, default=200)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--min-per-kind", type=int, default=5,
                   help="answers each kind of request must pass (default 5; fewer stalls in a short run)")
    sys.exit(Soak(p.parse_args()).run())


if __name__ == "__main__":
    main()
