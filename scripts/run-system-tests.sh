#!/usr/bin/env bash
# System tests of Loom, run by `make test` after `swift test`:
#   fuzz          libFuzzer on the request decoder + layout + encoders (Sources/LoomFuzz)
#   schemathesis  property-based requests from openapi.yaml against `loom serve`: every answer
#                 is in the contract (status code, Content-Type, body schema, required headers)
#                 and none is a 5xx
#   playground    scripts/check-playground.mjs in headless Chromium: the SVG of every example
#                 (label boxes apart and inside the picture, text drawn) and the page at /
#                 driven by clicks and typing (pick, edit, zoom, errors, shared link), ~10 s
#                 (bounded: 120 s inside the script, 150 s from outside);
#                 screenshots kept in .build/playground-screenshots/
#   cors          a page of another origin in headless Chromium calls Loom: request ids,
#                 If-None-Match (304 on POST and GET), gzip uploads, the exposed headers
#   textcompare   scripts/compare-text-with-chromium.py: Loom's text sizes against Chromium's (Latin,
#                 then --scripts: every script and emoji class through the fallback chain)
#   hostile       scripts/hostile.py on the release binary: requests written to hurt the service
#                 (issue 17): answered in time, RSS bounded, slow clients cut, strict framing, drain
#   soak          scripts/soak.py: mixed good/bad/stalled traffic, RSS and latency bounds (and the
#                 server reports mimalloc as its allocator)
#   yoga          scripts/yoga_oracle.py: Loom's Yoga engine against real Yoga 2.0.1 (poga 0.1.19's
#                 sdist patched by scripts/yoga-2.0.1.patch, built once into .venv-yoga201) on
#                 seeded random Yoga requests, every frame exact; differing cases kept in
#                 .build/yoga-oracle/
#   jsclient      node --test clients/js/test/: the JavaScript client against `loom serve`
#                 (the examples written with its builder give the files' requests), ~3 s
#   container     scripts/check-container.sh: deploy/Dockerfile's runtime stage in a debootstrapped
#                 bookworm chroot (its RUN lines, the static release binary, user 10001, the ENV,
#                 the HEALTHCHECK), checked over loopback; skips only where it cannot run (not
#                 root and no sudo, no namespaces, no mirror and no cache). First run ~3 min plus
#                 a release build in .build/static (2-4 min); cached ~20 s
# Every step is bounded in time, talks to 127.0.0.1 only and stops what it started.
#
# Settings (environment):
#   LOOM_BIN            the loom binary (default .build/debug/loom; built if missing)
#   FUZZ_SECONDS        fuzzing time (default 60)
#   SOAK_SECONDS        soak duration (default 30)
#   SCHEMATHESIS_MAX_EXAMPLES  examples per operation (default 25)
#   SCHEMATHESIS_SECONDS       time budget of the schemathesis run (default 60)
#   SCHEMATHESIS_VERSION       pinned version installed into .venv-system (default 4.32.5)
#   YOGA_CASES, YOGA_SEED      the Yoga differential test's case count (default 1000) and seed
#   YOGA_MAX_DIFFERING  how many of those cases may differ from real Yoga (known differences)
#   SYSTEM_TESTS        steps to run, space-separated (default "fuzz schemathesis playground cors textcompare hostile soak yoga jsclient container")
#   CHROMIUM            the browser (default: chromium, chromium-browser or google-chrome)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
LOOM_BIN=${LOOM_BIN:-.build/debug/loom}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
SOAK_SECONDS=${SOAK_SECONDS:-30}
SCHEMATHESIS_MAX_EXAMPLES=${SCHEMATHESIS_MAX_EXAMPLES:-25}
SCHEMATHESIS_SECONDS=${SCHEMATHESIS_SECONDS:-60}
SCHEMATHESIS_VERSION=${SCHEMATHESIS_VERSION:-4.32.5}
YOGA_CASES=${YOGA_CASES:-1000}
YOGA_SEED=${YOGA_SEED:-20261124}
# Cases of that seed known to differ from real Yoga today (README, "Yoga"); one more fails.
YOGA_MAX_DIFFERING=${YOGA_MAX_DIFFERING:-0}
SYSTEM_TESTS=${SYSTEM_TESTS:-fuzz schemathesis playground cors textcompare hostile soak yoga jsclient container}
SWIFT=${SWIFT:-swift}
VENV=$ROOT/.venv-system

WORK=$(mktemp -d "${TMPDIR:-/tmp}/loom-system-tests.XXXXXX")
PIDS_FILE=$WORK/pids
: >"$PIDS_FILE"

cleanup() {
  # Only the processes this script started, by their ids.
  while read -r pid; do
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done <"$PIDS_FILE"
  sleep 0.2
  while read -r pid; do
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  done <"$PIDS_FILE"
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '==> %s\n' "$*"; }

# start_loom NAME [serve flags…]: starts `loom serve` on a free loopback port, waits for
# its "loom listening" line; sets LOOM_PID and LOOM_PORT.
start_loom() {
  local name=$1; shift
  local out=$WORK/loom-$name.log
  "$LOOM_BIN" serve --host 127.0.0.1 --port 0 "$@" >"$out" 2>&1 &
  LOOM_PID=$!
  echo "$LOOM_PID" >>"$PIDS_FILE"
  LOOM_PORT=""
  for _ in $(seq 1 300); do
    LOOM_PORT=$(grep -m1 'loom listening' "$out" 2>/dev/null | sed -n 's/.*port="\{0,1\}\([0-9][0-9]*\).*/\1/p' || true)
    [ -n "$LOOM_PORT" ] && break
    kill -0 "$LOOM_PID" 2>/dev/null || { cat "$out"; echo "loom serve exited" >&2; return 1; }
    sleep 0.1
  done
  [ -n "$LOOM_PORT" ] || { cat "$out"; echo "loom serve did not start" >&2; return 1; }
  log "$name: loom serve pid $LOOM_PID on 127.0.0.1:$LOOM_PORT"
}

# stop_loom: SIGTERM, wait for the exit (bounded), must exit 0.
stop_loom() {
  local pid=$1 rc=0
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "loom serve $pid did not exit after SIGTERM" >&2
    kill -9 "$pid" 2>/dev/null || true
    return 1
  fi
  wait "$pid" || rc=$?
  [ "$rc" -eq 0 ] || { echo "loom serve exited $rc after SIGTERM" >&2; return 1; }
}

# --- a. fuzz ------------------------------------------------------------------------------
# --sanitize=fuzzer: SwiftPM then links libFuzzer's main instead of renaming the target's
# entry point (without it the link fails: undefined LoomFuzz_main); -parse-as-library: no
# Swift main of our own; -sanitize=fuzzer,address for swiftc: coverage + ASan on Swift code.
FUZZ_FLAGS=(-c release --product LoomFuzz --scratch-path .build-fuzz --sanitize=fuzzer
            -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)

step_fuzz() {
  log "fuzz: building LoomFuzz with libFuzzer + ASan (.build-fuzz)"
  # Package.swift leaves the client library out of this build (its generator plugin's tool
  # would be linked with libFuzzer's main).
  export LOOM_SERVER_ONLY=1
  timeout 1800 "$SWIFT" build "${FUZZ_FLAGS[@]}" || {
    log "fuzz: build failed, retrying once (sources edited during the build?)"
    timeout 1800 "$SWIFT" build "${FUZZ_FLAGS[@]}"
  }
  local bin
  bin=$("$SWIFT" build "${FUZZ_FLAGS[@]}" --show-bin-path)/LoomFuzz
  mkdir -p "$WORK/fuzz-corpus" "$WORK/fuzz-artifacts"
  log "fuzz: ${FUZZ_SECONDS}s on Tests/Fuzz/corpus ($(ls Tests/Fuzz/corpus | wc -l) seeds)"
  local rc=0
  # New inputs go to the scratch corpus (first directory); the seed corpus is read only.
  # The Swift runtime's backtracer trips ASan when a check fails; libFuzzer reports instead.
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
  timeout -k 10 $((FUZZ_SECONDS + 120)) "$bin" "$WORK/fuzz-corpus" Tests/Fuzz/corpus \
    -dict=Tests/Fuzz/loom.dict -max_total_time="$FUZZ_SECONDS" -max_len=65536 -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$WORK/fuzz-artifacts/" \
    >"$WORK/fuzz.log" 2>&1 || rc=$?
  grep -E '^(stat::|#[0-9]+ *DONE|Done )' "$WORK/fuzz.log" || true
  if [ "$rc" -ne 0 ] || ls "$WORK"/fuzz-artifacts/* >/dev/null 2>&1; then
    tail -60 "$WORK/fuzz.log"
    mkdir -p .build-fuzz/artifacts
    cp "$WORK"/fuzz-artifacts/* .build-fuzz/artifacts/ 2>/dev/null || true
    echo "fuzz: crash or failure (exit $rc); inputs kept in .build-fuzz/artifacts/" >&2
    return 1
  fi
}

# --- b. schemathesis ----------------------------------------------------------------------
step_schemathesis() {
  if [ ! -x "$VENV/bin/schemathesis" ] || ! "$VENV/bin/schemathesis" --version 2>/dev/null | grep "$SCHEMATHESIS_VERSION" >/dev/null; then
    log "schemathesis: installing $SCHEMATHESIS_VERSION into .venv-system"
    timeout 120 python3 -m venv "$VENV"
    timeout 600 "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
  fi
  "$VENV/bin/schemathesis" --version
  # The JSON served at /openapi.json must be this YAML (PyYAML comes with schemathesis).
  "$VENV/bin/python" scripts/openapi-json.py --check
  start_loom schemathesis --workers 2 --connection-timeout 5
  local pid=$LOOM_PID rc=0
  # The generator sends many invalid bodies on purpose: they must be 4xx, and every answer,
  # good or bad, must be one openapi.yaml lists for its operation: a documented status
  # code, a documented Content-Type, a body valid against that response's schema and the
  # headers the contract marks required (X-Layout-Cache/-Key on 200 /layout). Requests
  # outside the listed operations (unknown paths, other methods, HEAD, OPTIONS) are not
  # sent; the unit tests cover those.
  # Run twice at most: a run that ends in a runtime error of the tool itself (hypothesis on
  # this Python has crashed describing a strategy, "AST constructor recursion depth
  # mismatch", in about one run of three) and reports no failure of ours is run again.
  local attempt
  for attempt in 1 2; do
  rc=0
  (cd "$WORK" && timeout -k 10 600 "$VENV/bin/schemathesis" run "$ROOT/openapi.yaml" \
      --url "http://127.0.0.1:$LOOM_PORT" \
      --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
      --max-examples "$SCHEMATHESIS_MAX_EXAMPLES" \
      --phases examples,coverage,fuzzing \
      --max-time "$SCHEMATHESIS_SECONDS" \
      --request-timeout 20 \
      --seed 20261122 \
      --generation-database none \
      --workers 2 \
      --no-color) >"$WORK/schemathesis.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ] && grep -q "Runtime Error" "$WORK/schemathesis.log" && ! grep -q "Failures:" "$WORK/schemathesis.log"; then
    log "schemathesis: the tool itself failed (attempt $attempt); its error:"
    grep -m3 -E "Error:" "$WORK/schemathesis.log" || true
    continue
  fi
  break
  done
  tail -40 "$WORK/schemathesis.log"
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "schemathesis: loom serve died" >&2; cat "$WORK/schemathesis.log" | tail -20; return 1
  fi
  stop_loom "$pid" || rc=1
  [ "$rc" -eq 0 ] || { echo "schemathesis: failed (exit $rc)" >&2; return 1; }
}

# --- c. playground in headless Chromium ---------------------------------------------------
# $CHROMIUM, or the first Chromium on the PATH (empty if none).
find_chromium() {
  if [ -n "${CHROMIUM:-}" ]; then echo "$CHROMIUM"; return; fi
  for b in chromium chromium-browser google-chrome; do
    command -v "$b" >/dev/null && { echo "$b"; return; }
  done
}

step_playground() {
  local browser
  browser=$(find_chromium)
  [ -n "$browser" ] || { echo "playground: no chromium (scripts/install-deps.sh test installs it)" >&2; return 1; }
  command -v node >/dev/null || { echo "playground: no node (scripts/install-deps.sh test installs it)" >&2; return 1; }
  start_loom playground --workers 2
  local pid=$LOOM_PID rc=0 shots=$ROOT/.build/playground-screenshots
  rm -rf "$shots"
  # The SVG of every example and the playground driven with real input events, over the
  # DevTools protocol; the screenshots are kept for a look.
  timeout -k 5 150 node scripts/check-playground.mjs --url "http://127.0.0.1:$LOOM_PORT" --chromium "$browser" \
    --shots "$shots" || rc=$?
  stop_loom "$pid" || rc=1
  [ "$rc" -eq 0 ] || { echo "playground: failed (exit $rc); screenshots in .build/playground-screenshots/" >&2; return 1; }
}

# --- c2. CORS from a page of another origin ----------------------------------------------
# scripts/cors/cors-page.html, served by python's http.server on another port (another
# origin), run in headless Chromium against `loom serve --cors-origins <that origin>`: what
# a browser app may send (X-Request-Id, If-None-Match, Content-Encoding: gzip) passes the
# preflight, and what it must read (ETag, Content-Location, X-Request-Id, X-Layout-Key) is
# exposed. About 5 s (Chromium's start; every wait is bounded).
step_cors() {
  local browser
  browser=$(find_chromium)
  [ -n "$browser" ] || { echo "cors: no chromium (scripts/install-deps.sh test installs it)" >&2; return 1; }
  local site=$WORK/cors-site page_port page_pid rc=0 dom=$WORK/cors.html
  mkdir -p "$site"
  cp scripts/cors/cors-page.html "$site/index.html"
  page_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  python3 -m http.server "$page_port" --bind 127.0.0.1 --directory "$site" >"$WORK/cors-page.log" 2>&1 &
  page_pid=$!
  echo "$page_pid" >>"$PIDS_FILE"
  start_loom cors --workers 2 --cors-origins "http://127.0.0.1:$page_port"
  local pid=$LOOM_PID
  for _ in $(seq 1 50); do
    python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$page_port/index.html', timeout=1)" 2>/dev/null && break
    sleep 0.1
  done
  timeout -k 5 60 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --no-default-browser-check --disable-extensions --disable-background-networking \
    --user-data-dir="$WORK/chromium-cors-profile" --virtual-time-budget=5000 \
    --dump-dom "http://127.0.0.1:$page_port/index.html?api=http://127.0.0.1:$LOOM_PORT" >"$dom" 2>"$WORK/chromium-cors.log" || rc=$?
  kill "$page_pid" 2>/dev/null || true
  stop_loom "$pid" || rc=1
  [ "$rc" -eq 0 ] || { tail -20 "$WORK/chromium-cors.log"; echo "cors: chromium failed ($rc)" >&2; return 1; }
  python3 - "$dom" <<'PY'
import html, json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'data-result="([^"]*)"', text)
raw = html.unescape(m.group(1)) if m else "missing"
print("cors: the page saw", raw)
r = json.loads(raw) if raw.startswith("{") else {}
key = r.get("key") or ""
want = {
    "postStatus": 200, "requestId": "cors-page-1", "etag": 'W/"%s"' % key, "location": "/layouts/" + key,
    "cache": "miss", "width": 56, "conditionalPostStatus": 304, "conditionalPostBytes": 0, "getStatus": 200,
    "getCacheControl": "public, max-age=86400, immutable", "getEtag": 'W/"%s"' % key, "conditionalGetStatus": 304,
    "gzipStatus": 200, "gzipKey": key,
}
bad = [f"{k}: {r.get(k)!r}, wanted {v!r}" for k, v in want.items() if r.get(k) != v]
if len(key) != 64 or bad or "error" in r:
    print("cors: " + "; ".join(bad + ([r["error"]] if "error" in r else [])), file=sys.stderr)
    sys.exit(1)
PY
}

# --- d. text against Chromium -------------------------------------------------------------
# Loom's text sizes against headless Chromium laying out the same strings in the same font
# files (640 deterministic cases, all of which must be compared): at least 99 % must agree on
# lines, width and height (±1 px); every truncated flag must equal the browser's, no case may
# be a Loom error, and the browser side may not warn (its cross-checks failed: the harness
# measured something else). A few seconds.
step_textcompare() {
  local browser
  browser=$(find_chromium)
  [ -n "$browser" ] || { echo "textcompare: no chromium (scripts/install-deps.sh test installs it)" >&2; return 1; }
  local rc=0
  timeout -k 5 300 python3 scripts/compare-text-with-chromium.py --loom "$LOOM_BIN" --chromium "$browser" \
    --min-agreement 99 --min-cases 640 --max-browser-warnings 0 | tail -3 || rc=1
  # Every script and emoji class through the fallback chain (issue 20): lines >= 99 %, width and
  # height within 1 px >= 97 %, each script's lines >= 95 % (about 10 s).
  timeout -k 5 300 python3 scripts/compare-text-with-chromium.py --loom "$LOOM_BIN" --chromium "$browser" \
    --scripts 600 --min-lines 99 --min-size 97 --min-script-lines 95 --min-cases 600 \
    --max-browser-warnings 0 | tail -18 || rc=1
  return $rc
}

# --- e. soak ------------------------------------------------------------------------------

step_soak() {
  start_loom soak --workers 2 --queue-limit 512 --max-body-bytes 1048576 --max-depth 128 \
    --connection-timeout 3 --cache-entries 2000 --cache-bytes 8388608
  local pid=$LOOM_PID rc=0
  # The server runs on mimalloc (linked into loom; it must come before glibc's malloc).
  if ! grep -m1 'loom listening' "$WORK/loom-soak.log" | grep 'allocator="\{0,1\}mimalloc' >/dev/null; then
    echo "soak: loom serve does not run on mimalloc:" >&2; grep -m1 'loom listening' "$WORK/loom-soak.log" >&2; rc=1
  fi
  timeout -k 10 $((SOAK_SECONDS + 120)) python3 scripts/soak.py --url "http://127.0.0.1:$LOOM_PORT" \
    --pid "$pid" --duration "$SOAK_SECONDS" --max-body-bytes 1048576 --max-depth 128 --connection-timeout 3 || rc=$?
  if ! kill -0 "$pid" 2>/dev/null; then echo "soak: loom serve died" >&2; tail -20 "$WORK/loom-soak.log"; return 1; fi
  stop_loom "$pid" || rc=1
  [ "$rc" -eq 0 ]
}

# --- f. hostile ---------------------------------------------------------------------------
# scripts/hostile.py starts the release binary itself (a fresh server per case, loopback
# only) and prints one PASS / FAIL / SKIP line per case.
step_hostile() {
  release_binary
  local rc=0
  timeout -k 10 600 python3 scripts/hostile.py --loom "$RELEASE_BIN" || rc=$?
  [ "$rc" -eq 0 ] || { echo "hostile: failed (exit $rc)" >&2; return 1; }
}

# The release binary as deploy/Dockerfile's build stage makes it (static Swift runtime, the
# package without the client library: LOOM_SERVER_ONLY=1), in .build/static: built once for
# the hostile and container steps (about 2 to 4 minutes on 2 idle cores the first time).
RELEASE_SCRATCH=$ROOT/.build/static
release_binary() {
  export LOOM_SERVER_ONLY=1
  local flags=(-c release --product loom --static-swift-stdlib --scratch-path "$RELEASE_SCRATCH")
  log "building the release loom (static, as the Dockerfile does)"
  timeout 2400 "$SWIFT" build "${flags[@]}" || {
    log "release build failed, retrying once (sources edited during the build?)"
    timeout 2400 "$SWIFT" build "${flags[@]}"
  }
  RELEASE_BIN="$("$SWIFT" build "${flags[@]}" --show-bin-path)/loom"
  [ -x "$RELEASE_BIN" ] || { echo "no release binary at $RELEASE_BIN" >&2; return 1; }
}

# --- g. yoga ------------------------------------------------------------------------------
# The oracle builds real Yoga once (about a minute, .venv-yoga201), checks itself on the three
# worked examples of docs/yoga.md §8, then runs every case in its own process against one
# `loom serve` on a free loopback port (POST /layout/batch). A few seconds per 1,000 cases.
step_yoga() {
  local rc=0
  timeout -k 10 900 python3 scripts/yoga_oracle.py --loom "$LOOM_BIN" --cases "$YOGA_CASES" \
    --seed "$YOGA_SEED" --max-differing "$YOGA_MAX_DIFFERING" --out "$WORK/yoga" | grep -v '^coverage' || rc=$?
  if [ "$rc" -ne 0 ]; then
    rm -rf .build/yoga-oracle && mkdir -p .build && cp -r "$WORK/yoga" .build/yoga-oracle
    echo "yoga: differences from real Yoga (exit $rc); cases kept in .build/yoga-oracle/" >&2
    return 1
  fi
}

# --- h. jsclient --------------------------------------------------------------------------
# The tests start their own `loom serve` ($LOOM_BIN) on a free loopback port.
step_jsclient() {
  command -v node >/dev/null || { echo "jsclient: node is not installed (scripts/install-deps.sh test)" >&2; return 1; }
  LOOM_BIN="$LOOM_BIN" timeout -k 5 180 node --test clients/js/test/
}

# --- i. container -------------------------------------------------------------------------
# Builds the static release binary as the Dockerfile's build stage does (in .build/static, so
# it does not undo `hostile`'s release build), then the checks of scripts/check-container.sh.
step_container() {
  release_binary
  LOOM_STATIC_BIN="$RELEASE_BIN" timeout -k 10 2700 scripts/check-container.sh
}

# --- run ----------------------------------------------------------------------------------
if [ ! -x "$LOOM_BIN" ]; then
  log "building $LOOM_BIN"
  timeout 1800 "$SWIFT" build --product loom
fi
[ -x "$LOOM_BIN" ] || { echo "no loom binary at $LOOM_BIN" >&2; exit 1; }

passed=0 failed=0 failures=()
for step in $SYSTEM_TESTS; do
  log "step $step"
  start=$(date +%s)
  set +e
  ( set -euo pipefail; "step_$step" )
  rc=$?
  set -e
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1)); log "step $step passed ($(( $(date +%s) - start ))s)"
  else
    failed=$((failed + 1)); failures+=("$step"); log "step $step FAILED ($(( $(date +%s) - start ))s)"
  fi
done
[ $failed -eq 0 ] || echo "failed steps: ${failures[*]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
