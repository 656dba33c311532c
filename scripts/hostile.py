#!/usr/bin/env python3
"""Hostile requests against the real `loom serve` binary (issue 17), loopback only.

Starts `loom serve --host 127.0.0.1 --port 0 --admin-port 0` (a fresh server per case, with
the flags the case needs), attacks it, and checks that it stays up, answers in time and
keeps its memory. Every socket has a timeout, every loop a bound; the whole run takes
about 2-4 minutes on 2 cores. Python standard library only.

  python3 scripts/hostile.py --loom .build/release/loom [--only nesting --only smuggling]

Cases (one line each: `PASS name (details)`, `FAIL name: why` or `SKIP name: why`; the last
line is `N passed, M failed`; exit status 1 when a case failed):
  nesting        exponential nesting (ratio chains, stretch, wrap, baseline) -> 422 in time
  batch          a 3.5 MB batch of such chains -> 200, every item its own error
  longword       100,000-character words, huge fonts, letterSpacing overflow
  textflood      300 distinct 100 KB texts, 1 MB texts, truncationTexts: RSS bounded
  methods        3,000 random 4-8 KB methods: /metrics stays small, RSS bounded
  logforging     control characters in the path never reach the log as they are
  smuggling      ambiguous framing (RFC 9112): 400 and close, the second request unanswered
  expect         `Expect: 100-continue` on a request that fails: no 100 first
  slowloris      1,100 trickling connections: the admin port still answers, deadlines cut
  partialbodies  300 almost complete 4 MB bodies held open: RSS bounded
  drain          SIGTERM while bodies are arriving: all answered, exit 0

Flags the server does not have yet (`serve --help`): the checks that need them are SKIPped.
"""
import argparse
import http.client
import json
import os
import random
import re
import resource
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HOST = "127.0.0.1"
MIB = 1 << 20
RSS_LIMIT_KIB = 256 * 1024   # growth allowed per flood
SMALL = b'{"root":{"type":"node","style":{"width":10,"height":10}}}'
JSON = {"Content-Type": "application/json"}


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Fail(message)


def dumps(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


# --- the server -------------------------------------------------------------------------------

class Server:
    """One `loom serve` on loopback; its output in a log file."""

    def __init__(self, loom, workdir, name, flags, extra=()):
        self.log_path = os.path.join(workdir, f"loom-{name}.log")
        args = [loom, "serve", "--host", HOST, "--port", "0"]
        if flags.admin:
            args += ["--admin-port", "0"]
        args += list(extra)
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.port = self.admin_port = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with open(self.log_path, "rb") as f:
                for line in f.read().decode("utf-8", "replace").splitlines():
                    if "loom listening" in line:
                        m = re.search(r'(?<![\w])port="?(\d+)', line)
                        a = re.search(r'admin_port="?(\d+)', line)
                        self.port = int(m.group(1)) if m else None
                        self.admin_port = int(a.group(1)) if a else None
                        break
            if self.port:
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.kill()
        raise Fail(f"loom serve did not start (log {self.log_path}): {self.log_tail()}")

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def rss_kib(self):
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def log_bytes(self):
        with open(self.log_path, "rb") as f:
            return f.read()

    def log_tail(self, n=5):
        lines = self.log_bytes().decode("utf-8", "replace").splitlines()
        return " | ".join(lines[-n:])[-600:]

    def stop(self, timeout=25):
        """SIGTERM; returns the exit status (killed, and None, if it does not exit)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                self.log.close()
                return None
        self.log.close()
        return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
        if not self.log.closed:
            self.log.close()


# --- HTTP helpers ------------------------------------------------------------------------------

def request(port, method, path, body=None, headers=None, timeout=5.0):
    """(status, body, seconds); status None when the server did not answer in time."""
    start = time.monotonic()
    c = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        data = r.read()
        return r.status, data, time.monotonic() - start
    except (OSError, http.client.HTTPException) as e:
        return None, str(e).encode(), time.monotonic() - start
    finally:
        c.close()


def layout(port, body, path="/layout", timeout=5.0):
    return request(port, "POST", path, body=body, headers=JSON, timeout=timeout)


def error_of(data):
    try:
        return json.loads(data).get("error") or {}
    except (ValueError, AttributeError):
        return {}


def probe(port, n, timeout=1.0):
    """A small layout (a distinct id, so no cache answers it) on a new connection."""
    body = b'{"root":{"type":"node","id":"probe-%d","style":{"width":10,"height":10}}}' % n
    return layout(port, body, timeout=timeout)


def while_running(work, port, probes=1, first_after=0.05, every=0.4):
    """Runs work() in a thread and sends small requests meanwhile.
    Returns (work's result, [(status, seconds)] of the probes)."""
    result = {}

    def run():
        try:
            result["value"] = work()
        except Exception as e:  # reported by the caller
            result["error"] = e
    t = threading.Thread(target=run, daemon=True)
    t.start()
    answers = []
    time.sleep(first_after)
    for k in range(probes):
        status, _, seconds = probe(port, random.randrange(1 << 30))
        answers.append((status, seconds))
        if k + 1 < probes:
            time.sleep(every)
    t.join(30)
    if "error" in result:
        raise result["error"]
    if t.is_alive():
        raise Fail("the hostile request did not return within 30 s")
    return result.get("value"), answers


def check_probes(answers, what):
    for status, seconds in answers:
        check(status == 200 and seconds < 1.0,
              f"a small request during {what} got {status} after {seconds:.2f}s (want 200 within 1 s)")
    return max(s for _, s in answers) if answers else 0.0


def parts(*checks):
    """Runs independent checks, every one even when an earlier one failed; fails with all
    their failures. Each check returns its details."""
    done, failures = [], []
    for fn in checks:
        try:
            done.append(fn())
        except Fail as e:
            failures.append(str(e))
    if failures:
        raise Fail("; ".join(failures) + (f" [passed: {'; '.join(done)}]" if done else ""))
    return "; ".join(done)


def connect(port, timeout=3.0):
    s = socket.create_connection((HOST, port), timeout=timeout)
    s.settimeout(timeout)
    return s


def read_until_close(s, total=3.0, limit=1 << 20):
    """Everything the server sends until it closes (closed=True) or `total` seconds pass."""
    data = b""
    deadline = time.monotonic() + total
    while len(data) < limit:
        left = deadline - time.monotonic()
        if left <= 0:
            return data, False
        s.settimeout(left)
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            return data, False
        except OSError:   # reset: closed
            return data, True
        if not chunk:
            return data, True
        data += chunk
    return data, False


def read_head(s, total=3.0):
    """Bytes up to the end of the first response head (or what came before a close/timeout)."""
    data = b""
    deadline = time.monotonic() + total
    while b"\r\n\r\n" not in data and len(data) < 65536:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            chunk = s.recv(4096)
        except (socket.timeout, OSError):
            break
        if not chunk:
            break
        data += chunk
    return data


def status_lines(data):
    return re.findall(rb"(?:^|\r\n)(HTTP/1\.[01] \d{3})", data)


def short_path(path):
    """`root.children[0].child.….children[1] (39 ratios down)` for a long error path."""
    if not isinstance(path, str) or len(path) < 60:
        return path
    return f"{path[:22]}…{path[-12:]} ({len(re.findall(r'[.]child(?!ren)', path))} ratios down)"


def ms(seconds):
    return f"{seconds * 1000:.0f}ms"


# --- trees -------------------------------------------------------------------------------------

LEAF = {"type": "text", "text": "leaf"}
FLEX = {"flexGrow": 1, "flexShrink": 1}
XY = {"type": "text", "text": "x y", "style": FLEX}


def direction(d):
    return "horizontal" if d % 2 == 0 else "vertical"


def request_of(root):
    return {"sizeRange": {"max": {"width": 300, "height": 700}}, "root": root}


def ratio_chain(depth):
    """Finding 1 (Tests/LoomServiceTests/HostileRequestTests.swift ratioChain)."""
    node = LEAF
    for d in range(depth):
        ratio = [0.5, 0.75, 1][d % 3]
        node = {"type": "stack", "direction": direction(d), "children": [
            {"type": "ratio", "ratio": ratio, "style": FLEX, "child": node}, XY]}
    return request_of(node)


def stretch_chain(depth):
    node = LEAF
    for d in range(depth):
        node = {"type": "stack", "direction": direction(d), "alignItems": "stretch", "style": FLEX,
                "children": [node, XY]}
    return request_of(node)


def wrap_chain(depth):
    node = LEAF
    for d in range(depth):
        node = {"type": "stack", "direction": direction(d), "flexWrap": "wrap", "alignContent": "stretch",
                "style": FLEX, "children": [node, XY]}
    return request_of(node)


def baseline_chain(depth):
    node = LEAF
    for _ in range(depth):
        node = {"type": "stack", "direction": "horizontal", "alignItems": "baselineFirst", "style": FLEX,
                "children": [node, XY]}
    return request_of(node)


def text_request(text, width, size=17, **fields):
    root = {"type": "text", "text": text, "font": {"family": "Roboto", "size": size}}
    root.update(fields)
    return dumps({"sizeRange": {"max": {"width": width}}, "root": root})


# Random bytes mapped to lowercase letters, about one in seven a space: random words.
WORD_BYTES = bytes(32 if b < 37 else 97 + b % 26 for b in range(256))
TOKEN_BYTES = bytes(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[b % 36] for b in range(256))


def random_words(rng, nbytes):
    return ("w" + rng.randbytes(nbytes - 2).translate(WORD_BYTES).decode() + "w")


def random_token(rng, nbytes):
    return rng.randbytes(nbytes).translate(TOKEN_BYTES).decode()


def max_lines(entry):
    """The largest `lines` of any entry of a response's layout tree."""
    best = entry.get("lines", 0) if isinstance(entry, dict) else 0
    for child in (entry.get("children") or []) if isinstance(entry, dict) else []:
        best = max(best, max_lines(child))
    return best


# --- cases -------------------------------------------------------------------------------------

def case_nesting(ctx):
    srv = ctx.server("nesting")

    def ratio():
        # The same bytes twice, then the same chain under a root with an id: a new request
        # whose inner subtrees the first ones may have left in the caches.
        chain = ratio_chain(40)
        renamed = dict(chain, root=dict(chain["root"], id="warm"))
        verdicts, details = [], []
        for attempt, body in enumerate([dumps(chain), dumps(chain), dumps(renamed)]):
            (status, data, seconds), answers = while_running(lambda: layout(srv.port, body), srv.port)
            err = error_of(data) if status else {}
            what = f"depth-40 ratio chain ({len(body)} B), attempt {attempt + 1}"
            check(status is not None, f"{what}: no answer within 5 s ({data[:100]!r})")
            check(status == 422 and err.get("code") == "budget_exceeded" and err.get("budget") == "measurements",
                  f"{what}: got {status} {data[:300]!r} after {seconds:.2f}s (want 422 budget_exceeded/measurements)")
            check(str(err.get("path", "")).startswith("root.children[0].child"),
                  f"{what}: error.path {err.get('path')!r} does not start with root.children[0].child")
            check(seconds < 2.0, f"{what}: answered after {seconds:.2f}s (want < 2 s)")
            probe_s = check_probes(answers, what)
            verdicts.append((status, err.get("code"), err.get("budget"), short_path(err.get("path"))))
            details.append(f"{ms(seconds)}/probe {ms(probe_s)}")
        check(len(set(verdicts)) == 1, f"different verdicts warm and cold: {verdicts}")
        return f"ratio depth 40: 422 measurements at {verdicts[0][3]}, " + ", ".join(details)

    def shape(name, chain):
        def run():
            body = dumps(chain(60))
            (status, data, seconds), answers = while_running(lambda: layout(srv.port, body), srv.port)
            check(status in (200, 422), f"depth-60 {name} chain: got {status} {data[:200]!r} after {seconds:.2f}s")
            check(seconds < 2.0, f"depth-60 {name} chain: {status} after {seconds:.2f}s (want < 2 s)")
            probe_s = check_probes(answers, f"the {name} chain")
            return f"depth-60 {name} {status} {ms(seconds)}/probe {ms(probe_s)}"
        return run
    return parts(ratio, shape("stretch", stretch_chain), shape("wrap", wrap_chain), shape("baseline", baseline_chain))


def case_batch(ctx):
    srv = ctx.server("batch")
    chain = dumps(ratio_chain(40))
    n = (3_500_000 - 16) // (len(chain) + 1)
    body = b'{"items":[' + b",".join([chain] * n) + b"]}"
    (status, data, seconds), answers = while_running(
        lambda: layout(srv.port, body, path="/layout/batch", timeout=10), srv.port, probes=2)
    check(status == 200, f"batch of {n} chains ({len(body)} B): got {status} {data[:300]!r} after {seconds:.2f}s")
    check(seconds < 2.0, f"batch of {n} chains: answered after {seconds:.2f}s (want < 2 s)")
    results = json.loads(data).get("results") or []
    check(len(results) == n, f"batch: {len(results)} results for {n} items")
    codes = {}
    for k, r in enumerate(results):
        code = (r.get("error") or {}).get("code")
        check(code in ("budget_exceeded", "deadline_exceeded"), f"batch item {k}: {json.dumps(r)[:200]}")
        codes[code] = codes.get(code, 0) + 1
    probe_s = check_probes(answers, "the batch")
    return f"{n} items, {len(body) / MIB:.1f} MiB: 200 in {ms(seconds)}, {codes}; probe {ms(probe_s)}"


def ordinary_text_seconds(srv, seed):
    """The median time of three distinct ~100 KB texts of ordinary words at width 375: what a
    text of the largest size costs on this machine. The long-text checks are bounded by it
    (a text of any shape at most TEXT_SHAPE_FACTOR times it), so a slower machine does not
    fail them while a shape that multiplies work (quadratic in a word's length, one layout
    per line, …) still does."""
    rng = random.Random(seed)
    times = []
    for k in range(3):
        status, data, seconds = layout(srv.port, text_request(random_words(rng, 99_000), 375), timeout=30)
        check(status == 200, f"ordinary 100 KB text #{k}: got {status} {data[:200]!r}")
        times.append(seconds)
    return sorted(times)[1]


# A 100,000-character word or 16,000 words at font size 1000 (80,000 lines) cost 3-6 times
# an ordinary 100 KB text on the machines we ran on (0.2-0.3 s there), up to about 9 times
# on a loaded one; a shape that multiplies work costs hundreds of times (a 100,000-character
# word took 250 s at width 1e-6 before the windows, README "Hostile requests").
TEXT_SHAPE_FACTOR = 12


def case_longword(ctx):
    srv = ctx.server("longword")
    word = "a" * 100_000
    ordinary = ordinary_text_seconds(srv, 31)
    bound = max(2.0, TEXT_SHAPE_FACTOR * ordinary)
    want = f"want < {bound:.1f} s: {TEXT_SHAPE_FACTOR} x an ordinary 100 KB text, {ms(ordinary)}, at least 2 s"

    def within_bound(what, attempt):
        """attempt(k) -> (status, data, seconds) for try k; a try over the bound is made once
        more (another width, so no cache answers it): a load spike passes, a cost that
        grows with the shape fails both."""
        tries = []
        for k in range(2):
            status, data, seconds = attempt(k)
            check(status == 200, f"{what}: got {status} {data[:200]!r} after {seconds:.2f}s")
            tries.append(seconds)
            if seconds < bound:
                break
        check(min(tries) < bound, f"{what}: {', '.join(f'{t:.2f}s' for t in tries)} ({want})")
        return data, tries[-1], ("" if len(tries) == 1 else f" (second try; first {ms(tries[0])})")

    def long_word(width):
        def run():
            probes = []

            def attempt(k):
                result, answers = while_running(
                    lambda: layout(srv.port, text_request(word, width * (1 + k / 2))), srv.port)
                probes.extend(answers)
                return result
            what = f"100,000-character word at width {width:g}"
            _, seconds, retried = within_bound(what, attempt)
            probe_s = check_probes(probes, f"the {what}")
            return f"word at width {width:g} {ms(seconds)}{retried}/probe {ms(probe_s)}"
        return run

    def too_long():
        status, data, seconds = layout(srv.port, text_request(word + "a", 200))
        err = error_of(data)
        check(status == 413 and err.get("code") == "too_large" and err.get("path") == "root.text",
              f"100,001 characters: got {status} {data[:200]!r} (want 413 too_large at root.text)")
        return f"100,001: 413 {ms(seconds)}"

    def huge_font():
        rng = random.Random(17)
        words = " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(5)) for _ in range(16_000))
        data, seconds, retried = within_bound(
            "16,000 words at font size 1000", lambda k: layout(srv.port, text_request(words, 300 + 20 * k, size=1000)))
        lines = max_lines(json.loads(data).get("layout") or {})
        check(lines > 1000, f"16,000 words at font size 1000: {lines} lines reported (want > 1000)")
        # No two of these words (about 2,700 pt each) share a 300 pt line: fewer than 16,000
        # lines is a measurer overflow (issue 17, finding 10); noted, the bound is > 1000.
        note = "" if lines >= 16_000 else " (NOTE: under 16,000, one word per line at least)"
        return f"16,000 words at size 1000: {lines} lines{note} {ms(seconds)}{retried}"

    def letter_spacing():
        status, data, _ = layout(srv.port, text_request("a" * 200, 200, letterSpacing=10000))
        err = error_of(data)
        check(status == 400 and err.get("code") == "invalid_spec" and err.get("path") == "root.letterSpacing",
              f"letterSpacing 10000: got {status} {data[:200]!r} (want 400 invalid_spec at root.letterSpacing)")
        return "letterSpacing 10000: 400"
    return (f"ordinary 100 KB text {ms(ordinary)}, bound {bound:.1f} s; "
            + parts(too_long, letter_spacing, huge_font, long_word(200), long_word(1e-6)))


def case_textflood(ctx):
    srv = ctx.server("textflood")
    rng = random.Random(2026)
    check(layout(srv.port, text_request("warm up", 375))[0] == 200, "warm-up request failed")
    # 300 texts like the calibration's: twice their time, at least 90 s.
    ordinary = ordinary_text_seconds(srv, 37)
    limit = max(90.0, 600 * ordinary)
    before = srv.rss_kib()
    start = time.monotonic()
    slowest, peak = 0.0, before
    for k in range(300):
        check(time.monotonic() - start < limit,
              f"the text flood took over {limit:.0f} s ({k} of 300 requests; an ordinary 100 KB text {ms(ordinary)})")
        status, data, seconds = layout(srv.port, text_request(random_words(rng, 99_000), 375), timeout=10)
        check(status == 200, f"100 KB text #{k}: got {status} {data[:200]!r} after {seconds:.2f}s")
        slowest = max(slowest, seconds)
        if k % 10 == 0:
            peak = max(peak, srv.rss_kib())
    flood_s = time.monotonic() - start
    big = 0
    for k in range(50):
        status, data, _ = layout(srv.port, text_request(random_words(rng, 1_000_000), 375), timeout=10)
        err = error_of(data)
        check(status == 413 and err.get("code") == "too_large", f"1 MB text #{k}: got {status} {data[:200]!r}")
        big += 1
    for k in range(200):
        t = random_token(rng, 1000)
        status, data, _ = layout(srv.port, text_request("a few words that do not fit " * 4, 100,
                                                        maximumNumberOfLines=1, truncationText=t))
        check(status == 200, f"1,000-byte truncationText #{k}: got {status} {data[:200]!r}")
    for k in range(5):
        t = random_token(rng, 1001)
        status, data, _ = layout(srv.port, text_request("words", 100, truncationText=t))
        err = error_of(data)
        check(status == 413 and err.get("code") == "too_large",
              f"1,001-byte truncationText: got {status} {data[:200]!r} (want 413 too_large)")
    after = srv.rss_kib()
    peak = max(peak, after)
    check(peak - before < RSS_LIMIT_KIB, f"RSS grew {(peak - before) // 1024} MiB over the flood "
                                         f"({before // 1024} -> peak {peak // 1024} MiB)")
    return (f"300 x 100 KB in {flood_s:.1f}s of {limit:.0f} (slowest {ms(slowest)}), {big} x 1 MB -> 413, "
            f"200 truncationTexts 1000 B ok, 1001 B -> 413; RSS {before // 1024} -> peak {peak // 1024} "
            f"-> {after // 1024} MiB")


def case_methods(ctx):
    srv = ctx.server("methods")
    check(request(srv.port, "GET", "/healthz")[0] == 200, "GET /healthz failed before the flood")
    before = srv.rss_kib()
    lock = threading.Lock()
    tokens, statuses, silent = [], {}, []
    start = time.monotonic()

    def worker(seed, count):
        rng = random.Random(seed)
        for _ in range(count):
            if time.monotonic() - start > 60:
                return
            token = random_token(rng, rng.randint(4096, 8192))
            answer = "none"
            try:
                s = connect(srv.port, 5)
                try:
                    s.sendall(f"{token} /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
                    head = read_head(s, 5)
                    if head:
                        m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
                        answer = m.group(1).decode() if m else "garbage"
                    else:
                        _, closed = read_until_close(s, 0.1)
                        answer = "closed" if closed else "none"
                finally:
                    s.close()
            except OSError as e:
                answer = "reset" if isinstance(e, ConnectionError) else f"error {e}"
            with lock:
                tokens.append(token)
                statuses[answer] = statuses.get(answer, 0) + 1
                if answer == "none" or answer.startswith("error"):
                    silent.append(answer)
    threads = [threading.Thread(target=worker, args=(k, 750), daemon=True) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(70)
    flood_s = time.monotonic() - start
    check(len(tokens) == 3000, f"only {len(tokens)} of 3000 requests in 60 s ({statuses})")
    check(not silent, f"{len(silent)} requests neither answered nor closed: {silent[:3]} ({statuses})")
    sizes = []
    for port in [srv.port] + ([srv.admin_port] if srv.admin_port else []):
        status, body, _ = request(port, "GET", "/metrics", timeout=10)
        check(status == 200, f"GET /metrics on port {port}: {status}")
        check(len(body) < MIB, f"/metrics is {len(body)} bytes after 3000 random methods (want < 1 MB)")
        leaked = [t for t in tokens if t[:32].encode() in body]
        if leaked:
            raise Fail(f"/metrics names {len(leaked)} of the random methods (e.g. {leaked[0][:40]}…)")
        sizes.append(len(body))
    after = srv.rss_kib()
    check(after - before < RSS_LIMIT_KIB, f"RSS grew {(after - before) // 1024} MiB ({before // 1024} -> {after // 1024})")
    return (f"3000 methods in {flood_s:.1f}s {statuses}; /metrics {sizes} B, no token; "
            f"RSS {before // 1024} -> {after // 1024} MiB")


def case_logforging(ctx):
    srv = ctx.server("logforging")
    sent = [
        b"GET /x%0a2026-01-01 fake access line%0d%1b[2J HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"GET /x%0a2026-01-01%20fake%20access%20line%0d%1b[2J HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"GET /x%0d%0a2026-01-01%20fake%20access%20line HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"GET /x\x1b[2Jraw HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"GET /x\r2026-01-01 fake raw CR HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nUser-Agent: a\x1b[2Jb\r\nConnection: close\r\n\r\n",
    ]
    answers = []
    for raw in sent:
        try:
            s = connect(srv.port)
            try:
                s.sendall(raw)
                data, _ = read_until_close(s, 3)
            finally:
                s.close()
            m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
            answers.append(m.group(1).decode() if m else "closed")
        except OSError:
            answers.append("reset")
    check(srv.alive(), "loom serve died")
    code = srv.stop()       # flushes the log
    check(code == 0, f"loom serve exited {code} after SIGTERM")
    log = srv.log_bytes()
    esc = log.find(b"\x1b")
    check(esc < 0, f"the log holds an ESC byte: {log[max(0, esc - 80):esc + 20]!r}")
    forged = [line for line in log.split(b"\n") if line.startswith(b"2026-01-01 fake")]
    if forged:
        raise Fail(f"the log holds a forged line: {forged[0][:120]!r}")
    cr = [line for line in log.split(b"\n") if b"\r" in line]
    if cr:
        raise Fail(f"the log holds a raw CR: {cr[0][:120]!r}")
    logged = sum(1 for line in log.split(b"\n") if b"/x" in line)
    return f"answers {answers}; {logged} access lines with /x, no ESC, no CR, no forged line"


def case_smuggling(ctx):
    srv = ctx.server("smuggling")
    second = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    cases = {
        "two Content-Lengths": b"POST /layout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                               b"Content-Length: 2\r\nContent-Length: %d\r\n\r\n{}" % (2 + len(second)) + second,
        "Content-Length + chunked": b"POST /layout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                    b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + second,
        "HTTP/1.0 chunked": b"POST /layout HTTP/1.0\r\nHost: x\r\nContent-Type: application/json\r\n"
                            b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + second,
        "HTTP/1.1 without Host": b"POST /layout HTTP/1.1\r\nContent-Type: application/json\r\n"
                                 b"Content-Length: 2\r\n\r\n{}" + second,
    }

    def one(name, raw):
        def run():
            s = connect(srv.port)
            try:
                s.sendall(raw)
                data, closed = read_until_close(s, 3)
            except OSError as e:
                raise Fail(f"{name}: {e}")
            finally:
                s.close()
            lines = status_lines(data)
            check(data.startswith(b"HTTP/1.1 400"), f"{name}: answered {data[:80]!r} (want HTTP/1.1 400)")
            check(len(lines) == 1, f"{name}: the smuggled request was answered: {lines}")
            check(closed, f"{name}: the connection stayed open 3 s after the 400")
            return f"{name}: 400 and close"

        return run

    def still_up():
        check(request(srv.port, "GET", "/healthz")[0] == 200, "GET /healthz failed afterwards")
        return "then /healthz 200"
    return parts(*[one(name, raw) for name, raw in cases.items()], still_up)


def case_expect(ctx):
    srv = ctx.server("expect")
    cases = [
        ("POST /nope", 404, b"POST /nope HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            b"Expect: 100-continue\r\nContent-Length: 4000000\r\n\r\n"),
        ("POST /layout text/plain", 415, b"POST /layout HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                                         b"Expect: 100-continue\r\nContent-Length: 4000000\r\n\r\n"),
    ]

    def one(name, want, raw):
        def run():
            s = connect(srv.port)
            start = time.monotonic()
            try:
                s.sendall(raw)
                data = read_head(s, 3)
            finally:
                s.close()
            seconds = time.monotonic() - start
            check(not data.startswith(b"HTTP/1.1 100"), f"{name}: the server answered 100 Continue first")
            check(data.startswith(b"HTTP/1.1 %d" % want), f"{name}: answered {data[:60]!r} (want {want})")
            return f"{name} -> {want} in {ms(seconds)}"
        return run
    return parts(*[one(*c) for c in cases])


def case_slowloris(ctx):
    header_timeout = 3 if ctx.flags.header_timeout else 10    # 10: the documented default
    body_timeout = 5 if ctx.flags.body_timeout else None
    extra = (["--header-timeout", "3"] if ctx.flags.header_timeout else []) + \
            (["--body-timeout", "5"] if ctx.flags.body_timeout else [])
    srv = ctx.server("slowloris", extra)
    skipped = []
    sel = selectors.DefaultSelector()
    socks, opened_at, closed_at, failed_connect = {}, {}, {}, 0
    start = time.monotonic()
    try:
        for k in range(1100):
            if time.monotonic() - start > 15:
                raise Fail(f"opening the slow connections took over 15 s ({k} of 1100)")
            try:
                s = socket.create_connection((HOST, srv.port), timeout=2)
            except OSError:
                failed_connect += 1
                continue
            s.setblocking(False)
            socks[k] = s
            opened_at[k] = time.monotonic()
            try:
                s.send(f"GET /slow/{k} HTTP/1.1\r\nHost: x\r\n".encode())
                sel.register(s, selectors.EVENT_READ, k)
            except OSError:
                closed_at[k] = time.monotonic()
        connected_s = time.monotonic() - start

        admin_times = []
        stop = threading.Event()

        def admin_probes():
            for _ in range(8):
                if stop.is_set():
                    return
                admin_times.append(request(srv.admin_port, "GET", "/healthz", timeout=1.0)[::2])
                stop.wait(1.0)
        prober = None
        if srv.admin_port:
            prober = threading.Thread(target=admin_probes, daemon=True)
            prober.start()
        else:
            skipped.append("admin probes (no admin_port in the start line)")

        # Trickle: one header line every 2 s to every open connection; note when each closes.
        wait_until = start + connected_s + 2 * header_timeout + 6
        next_line, line_no = time.monotonic() + 2, 0
        while len(closed_at) < len(socks) and time.monotonic() < wait_until:
            for key, _ in sel.select(timeout=0.1):
                k = key.data
                try:
                    chunk = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    closed_at[k] = time.monotonic()
                    sel.unregister(key.fileobj)
            if time.monotonic() >= next_line:
                line_no += 1
                for k, s in socks.items():
                    if k in closed_at:
                        continue
                    try:
                        s.send(f"X-Trickle-{line_no}: a\r\n".encode())
                    except BlockingIOError:
                        pass
                    except OSError:
                        closed_at[k] = time.monotonic()
                        try:
                            sel.unregister(s)
                        except (KeyError, ValueError):
                            pass
                next_line += 2
        stop.set()
        if prober:
            prober.join(10)
    finally:
        for s in socks.values():
            s.close()
        sel.close()
    bound = header_timeout + 3
    in_time = sum(1 for k, t in closed_at.items() if t - opened_at[k] <= bound)
    total_s = time.monotonic() - start
    check(srv.alive(), "loom serve died during the slowloris")
    for status, seconds in admin_times:
        check(status == 200 and seconds < 1.0,
              f"admin GET /healthz during the slowloris: {status} after {seconds:.2f}s (want 200 within 1 s)")
    check(len(closed_at) == len(socks),
          f"{len(socks) - len(closed_at)} of {len(socks)} slow connections still open after {total_s:.0f}s "
          f"(header timeout {header_timeout}s; {in_time} closed within {bound}s)")
    check(in_time >= min(len(socks), 1000),
          f"only {in_time} of {len(socks)} slow connections closed within {bound}s of their start")
    status, _, seconds = request(srv.port, "GET", "/healthz", timeout=3)
    check(status == 200, f"public GET /healthz after the slowloris: {status}")
    details = (f"{len(socks)} connected in {connected_s:.1f}s ({failed_connect} failed), {in_time} closed "
               f"within {bound}s, all {len(closed_at)} by {total_s:.0f}s; admin probes "
               f"{[ms(s) for _, s in admin_times]}")

    # A body trickled one byte per second.
    if body_timeout is None:
        skipped.append("body trickle (no --body-timeout)")
    else:
        s = connect(srv.port, 3)
        t0 = time.monotonic()
        closed = None
        try:
            s.sendall(b"POST /layout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100000\r\n\r\n")
            while time.monotonic() - t0 < body_timeout + 5:
                try:
                    s.send(b" ")
                except OSError:
                    closed = time.monotonic() - t0
                    break
                _, gone = read_until_close(s, 1.0)
                if gone:
                    closed = time.monotonic() - t0
                    break
        finally:
            s.close()
        check(closed is not None and closed <= body_timeout + 3,
              f"a body trickled at 1 B/s was {'closed after %.1fs' % closed if closed else 'never closed'} "
              f"(body timeout {body_timeout}s)")
        details += f"; trickled body closed after {closed:.1f}s"
    if skipped:
        print(f"SKIP slowloris parts: {'; '.join(skipped)}")
    return details


def case_partialbodies(ctx):
    srv = ctx.server("partialbodies")
    before = srv.rss_kib()
    chunk = b"a" * 65536
    length = 4_000_000
    conns, refused, reset = [], 0, 0
    start = time.monotonic()
    peak = before
    try:
        for k in range(300):
            if time.monotonic() - start > 90:
                raise Fail(f"sending the partial bodies took over 90 s ({k} of 300)")
            try:
                s = connect(srv.port, 5)
            except OSError:
                reset += 1
                continue
            conns.append(s)
            try:
                s.sendall(b"POST /layout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          b"Content-Length: %d\r\n\r\n" % length)
                left = length - 1
                while left > 0:
                    n = min(left, len(chunk))
                    s.sendall(chunk[:n])
                    left -= n
            except socket.timeout:
                refused += 1     # the server stopped reading: held back
            except OSError:
                refused += 1     # answered 503 and closed
            if k % 20 == 0:
                peak = max(peak, srv.rss_kib())
        time.sleep(1.0)
        held = srv.rss_kib()
        peak = max(peak, held)
        answered = 0
        for s in conns:
            s.setblocking(False)
            try:
                data = s.recv(4096)
                if data.startswith(b"HTTP/1.1 503"):
                    answered += 1
            except OSError:
                pass
        sent_s = time.monotonic() - start
    finally:
        for s in conns:
            s.close()
    check(srv.alive(), "loom serve died")
    growth = peak - before
    check(growth < RSS_LIMIT_KIB, f"RSS grew {growth // 1024} MiB with 300 partial 4 MB bodies "
                                  f"({before // 1024} -> peak {peak // 1024} MiB)")
    time.sleep(1.0)
    status, data, seconds = layout(srv.port, SMALL)
    check(status == 200, f"a normal request after the partial bodies: {status} {data[:200]!r}")
    after = srv.rss_kib()
    return (f"300 x (4 MB - 1) in {sent_s:.1f}s, {refused} cut off ({answered} saw 503, {reset} not connected); "
            f"RSS {before // 1024} -> peak {peak // 1024} -> {after // 1024} MiB after closing; then 200 in {ms(seconds)}")


def case_drain(ctx):
    drain_timeout = 10
    extra = ["--drain-timeout", str(drain_timeout)] if ctx.flags.drain_timeout else []
    if not extra:
        drain_timeout = 20      # the documented default
    srv = ctx.server("drain", extra)
    conns = []
    bodies = [b'{"root":{"type":"node","id":"drain-%d","style":{"width":10,"height":10}}}' % i for i in range(4)]
    try:
        for body in bodies:
            s = connect(srv.port, 5)
            s.sendall(b"POST /layout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(body) + body[:len(body) // 2])
            conns.append(s)
        time.sleep(0.5)
        signalled = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        statuses = []
        for s, body in zip(conns, bodies):
            try:
                s.sendall(body[len(body) // 2:])
                head = read_head(s, 5)
                m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
                statuses.append(int(m.group(1)) if m else f"no answer ({head[:40]!r})")
            except OSError as e:
                statuses.append(f"{type(e).__name__}")
    finally:
        for s in conns:
            s.close()
    try:
        code = srv.proc.wait(drain_timeout + 2)
    except subprocess.TimeoutExpired:
        code = None
    exit_s = time.monotonic() - signalled
    check(statuses == [200] * 4, f"bodies finished after SIGTERM got {statuses} (want 4 x 200)")
    check(code == 0, f"loom serve exited {code} {exit_s:.1f}s after SIGTERM (want 0 within {drain_timeout}s)")
    return f"4 x 200 after SIGTERM, exit 0 after {exit_s:.1f}s"


CASES = [
    ("nesting", case_nesting), ("batch", case_batch), ("longword", case_longword),
    ("textflood", case_textflood), ("methods", case_methods), ("logforging", case_logforging),
    ("smuggling", case_smuggling), ("expect", case_expect), ("slowloris", case_slowloris),
    ("partialbodies", case_partialbodies), ("drain", case_drain),
]


# --- the run -----------------------------------------------------------------------------------

class Flags:
    """The `serve` flags this binary has (from `loom serve --help`). Temporary: while the
    admin port and the deadlines are being added, what needs a missing flag is skipped."""

    def __init__(self, loom):
        out = subprocess.run([loom, "serve", "--help"], capture_output=True, text=True, timeout=30)
        text = out.stdout + out.stderr
        self.admin = "--admin-port" in text
        self.header_timeout = "--header-timeout" in text
        self.body_timeout = "--body-timeout" in text
        self.drain_timeout = "--drain-timeout" in text


class Context:
    def __init__(self, loom, workdir, flags):
        self.loom, self.workdir, self.flags = loom, workdir, flags
        self.servers = []

    def server(self, name, extra=()):
        srv = Server(self.loom, self.workdir, name, self.flags, extra)
        self.servers.append(srv)
        return srv


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--loom", required=True, help="the loom binary")
    p.add_argument("--only", action="append", default=[], metavar="NAME", help="run this case only (repeatable)")
    args = p.parse_args()
    names = [n for n, _ in CASES]
    unknown = [n for n in args.only if n not in names]
    if unknown:
        p.error(f"unknown case {unknown}; cases: {', '.join(names)}")
    if not os.access(args.loom, os.X_OK):
        p.error(f"{args.loom} is not an executable")
    loom = os.path.abspath(args.loom)

    # 1,100 slow connections here and as many in the server (which inherits the limit).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096 if hard == resource.RLIM_INFINITY else min(4096, hard)
    if soft == resource.RLIM_INFINITY or soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))

    # SIGTERM (from `timeout`) unwinds like ^C, so that the servers started here are killed.
    def interrupted(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)

    flags = Flags(loom)
    missing = [f for f, ok in (("--admin-port", flags.admin), ("--header-timeout", flags.header_timeout),
                               ("--body-timeout", flags.body_timeout)) if not ok]
    if missing:
        print(f"SKIP note: loom serve has no {', '.join(missing)}: the checks that need them are skipped")
    workdir = tempfile.mkdtemp(prefix="loom-hostile.")
    passed = failed = 0
    total = time.monotonic()
    for name, fn in CASES:
        if args.only and name not in args.only:
            continue
        ctx = Context(loom, workdir, flags)
        start = time.monotonic()
        try:
            details = fn(ctx)
            for srv in ctx.servers:
                if srv.proc.poll() is None:
                    check(srv.alive(), "loom serve died")
                    code = srv.stop()
                    check(code == 0, f"loom serve exited {code} after SIGTERM (log {srv.log_path})")
            print(f"PASS {name} ({details}; {time.monotonic() - start:.1f}s)", flush=True)
            passed += 1
        except Skip as e:
            print(f"SKIP {name}: {e}", flush=True)
        except Fail as e:
            logs = ", ".join(s.log_path for s in ctx.servers)
            print(f"FAIL {name}: {e} ({time.monotonic() - start:.1f}s; log {logs})", flush=True)
            failed += 1
        except Exception as e:  # a bug here or an unexpected answer: a failure, with its type
            where = traceback.extract_tb(e.__traceback__)[-1]
            print(f"FAIL {name}: {type(e).__name__}: {e} (hostile.py line {where.lineno}; "
                  f"{time.monotonic() - start:.1f}s)", flush=True)
            failed += 1
        finally:
            for srv in ctx.servers:
                srv.kill()
    print(f"total {time.monotonic() - total:.1f}s; logs in {workdir}" if failed else
          f"total {time.monotonic() - total:.1f}s", flush=True)
    if not failed:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt as e:
        print(f"interrupted ({e or 'SIGINT'}); the servers started here were killed", flush=True)
        sys.exit(130)
