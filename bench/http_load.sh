#!/usr/bin/env bash
# HTTP load test: Loom against the libmicrohttpd ceiling, on loopback only.
#
#   bench/http_load.sh [LOOM_BINARY] [options]
#
#   LOOM_BINARY        default .build/release/loom (started as `LOOM serve --port P`)
#   --duration S       seconds per wrk run (default 10)
#   --connections LIST connection counts (default "1 16 64")
#   --threads N        wrk threads (default 2; fewer when connections < threads)
#   --warmup S         untimed wrk run before each server's first scenario (default 2)
#   --body FILE        request body (default bench/trees/cell.json; must contain 7.125 once)
#   --loom-port P      default: a free port  --bare-port P   default: a free port
#   --bare-only        only the libmicrohttpd ceiling (no Loom needed)
#   --no-bare          skip the ceiling
#   --no-check         do not count X-Layout-Cache headers (slightly cheaper for wrk)
#   --out FILE         also write the JSON lines to FILE
#   --rounds N         run bare and loom-hit N times each per connection count, alternating
#                      (bare, loom-hit, bare, loom-hit, ...; default 1), and summarise them by
#                      their medians: other work on the machine then weighs on both alike
#   LOOM_SERVE_ARGS    env: extra arguments for `loom serve` (default "--host 127.0.0.1";
#                      set it empty for none)
#
# Scenarios, each at every connection count:
#   bare        bench/bare_mhd.c: reads the body, answers a fixed 306-byte JSON (the ceiling)
#   loom-hit    POST /layout with the same body every time (after the first: cache hits)
#   loom-miss   POST /layout with a different number in the body per request (all misses)
# Output: one JSON line per run (prefixed by nothing, on stdout) and a table at the end,
# then per connection count the loom-hit / bare ratio of the (median) req/s. Each run also
# reports the server's CPU time per request (user + system of its process, from
# /proc/PID/stat; "cpu_us_per_req"), which moves less with other load than req/s does.
# Everything started here is stopped on exit (trap); traffic goes to 127.0.0.1 only.
# Note: wrk runs on the same 2 cores as the server, so it takes CPU from it.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"

LOOM="$REPO/.build/release/loom"
DURATION=10
CONNECTIONS="1 16 64"
THREADS=2
WARMUP=2
BODY="$HERE/trees/cell.json"
LOOM_PORT=""
BARE_PORT=""
BARE_ONLY=0
NO_BARE=0
CHECK=check
OUT=""
ROUNDS=1

while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --body) BODY="$2"; shift 2 ;;
    --loom-port) LOOM_PORT="$2"; shift 2 ;;
    --bare-port) BARE_PORT="$2"; shift 2 ;;
    --bare-only) BARE_ONLY=1; shift ;;
    --no-bare) NO_BARE=1; shift ;;
    --no-check) CHECK=""; shift ;;
    --out) OUT="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d'; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) LOOM="$1"; shift ;;
  esac
done

command -v wrk >/dev/null || { echo "wrk not found (apt-get install wrk)" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl not found (apt-get install curl)" >&2; exit 1; }
[ -f "$BODY" ] || python3 "$HERE/gen_trees.py" --only cell --quiet
[ -f "$BODY" ] || { echo "no body file $BODY" >&2; exit 1; }
if [ "$BARE_ONLY" = 0 ] && [ ! -x "$LOOM" ]; then
  echo "loom binary not found: $LOOM (swift build -c release, pass its path, or --bare-only)" >&2
  exit 1
fi

WORK="$(mktemp -d /tmp/loom-http-load.XXXXXX)"
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]:-}"; do
    [ -n "$pid" ] || continue
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
[ -n "$BARE_PORT" ] || BARE_PORT="$(free_port)"
[ -n "$LOOM_PORT" ] || LOOM_PORT="$(free_port)"

wait_ready() { # URL PID SECONDS
  local url="$1" pid="$2" limit="$3" i=0
  while [ "$i" -lt $((limit * 10)) ]; do
    kill -0 "$pid" 2>/dev/null || { echo "server exited before it was ready ($url)" >&2; return 1; }
    if curl -s -o /dev/null --max-time 1 "$url"; then return 0; fi
    sleep 0.1; i=$((i + 1))
  done
  echo "server not ready after ${limit}s: $url" >&2
  return 1
}

stop_pid() {
  local pid="$1"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 25); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
}

RESULTS="$WORK/results.jsonl"
: > "$RESULTS"
RUN_INDEX=0

cpu_ticks() { # PID -> user + system clock ticks of the process
  awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0
}

run_wrk() { # SCENARIO SERVER_PID ROUND URL CONNECTIONS SCRIPT ARGS...
  local scenario="$1" pid="$2" round="$3" url="$4" c="$5" script="$6"; shift 6
  local t="$THREADS"; [ "$c" -lt "$t" ] && t="$c"
  local log="$WORK/wrk-$scenario-$c-$round.log"
  local cpu0 cpu1
  cpu0="$(cpu_ticks "$pid")"
  timeout $((DURATION + 60)) wrk -t"$t" -c"$c" -d"${DURATION}s" --timeout 5s -s "$script" "$url" -- "$@" > "$log" 2>&1 || {
    echo "wrk failed for $scenario c=$c:" >&2; cat "$log" >&2; return 1; }
  cpu1="$(cpu_ticks "$pid")"
  local j
  j="$(grep '^WRKJSON ' "$log" | tail -1 | cut -d' ' -f2-)"
  [ -n "$j" ] || { echo "no result from wrk for $scenario c=$c" >&2; cat "$log" >&2; return 1; }
  local line
  line="$(python3 -c 'import json,sys
d=json.loads(sys.argv[1]); out={"scenario":sys.argv[2],"connections":int(sys.argv[3]),"threads":int(sys.argv[4]),"duration_s_requested":int(sys.argv[5]),"round":int(sys.argv[6])}
out.update(d)
ticks=float(sys.argv[7]) - float(sys.argv[8]); hz=float(sys.argv[9])
out["cpu_us_per_req"]=round(ticks / hz * 1e6 / d["requests"], 2) if d["requests"] else None
print(json.dumps(out))' "$j" "$scenario" "$c" "$t" "$DURATION" "$round" "$cpu1" "$cpu0" "$(getconf CLK_TCK)")"
  echo "$line" | tee -a "$RESULTS"
}

warm() { # URL SCRIPT ARGS...
  local url="$1" script="$2"; shift 2
  [ "$WARMUP" -gt 0 ] || return 0
  timeout $((WARMUP + 30)) wrk -t"$THREADS" -c16 -d"${WARMUP}s" -s "$script" "$url" -- "$@" > /dev/null 2>&1 || true
}

# ---------------------------------------------------------------- the servers
BARE_PID=""
if [ "$NO_BARE" = 0 ]; then
  BARE_BIN="$WORK/bare_mhd"
  # shellcheck disable=SC2046
  cc -O2 "$HERE/bare_mhd.c" $(pkg-config --cflags --libs libmicrohttpd) -o "$BARE_BIN"
  port_free "$BARE_PORT" || { echo "port $BARE_PORT is in use" >&2; exit 1; }
  "$BARE_BIN" "$BARE_PORT" 2> "$WORK/bare.log" &
  BARE_PID=$!
  PIDS+=("$BARE_PID")
  wait_ready "http://127.0.0.1:$BARE_PORT/" "$BARE_PID" 10
  echo "# bare libmicrohttpd ($(head -1 "$WORK/bare.log"))" >&2
fi

LOOM_PID=""
if [ "$BARE_ONLY" = 0 ]; then
  port_free "$LOOM_PORT" || { echo "port $LOOM_PORT is in use" >&2; exit 1; }
  # shellcheck disable=SC2086
  "$LOOM" serve --port "$LOOM_PORT" ${LOOM_SERVE_ARGS---host 127.0.0.1} > "$WORK/loom.log" 2>&1 &
  LOOM_PID=$!
  PIDS+=("$LOOM_PID")
  wait_ready "http://127.0.0.1:$LOOM_PORT/readyz" "$LOOM_PID" 60 || { tail -20 "$WORK/loom.log" >&2; exit 1; }
  echo "# loom serve --port $LOOM_PORT ${LOOM_SERVE_ARGS---host 127.0.0.1} ($LOOM)" >&2
  # one request to check that the body is accepted
  code="$(curl -s -o "$WORK/first.json" -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
          --data-binary @"$BODY" "http://127.0.0.1:$LOOM_PORT/layout")"
  [ "$code" = 200 ] || { echo "loom answered $code to the body:" >&2; head -c 500 "$WORK/first.json" >&2; echo >&2; exit 1; }
  echo "# loom's answer to the body: $(wc -c < "$WORK/first.json") bytes" >&2
fi

# ---------------------------------------------------------------- the runs
[ -z "$BARE_PID" ] || warm "http://127.0.0.1:$BARE_PORT/layout" "$HERE/wrk_post.lua" "$BODY"
[ -z "$LOOM_PID" ] || warm "http://127.0.0.1:$LOOM_PORT/layout" "$HERE/wrk_post.lua" "$BODY"
for c in $CONNECTIONS; do
  for round in $(seq 1 "$ROUNDS"); do
    [ -z "$BARE_PID" ] || run_wrk bare "$BARE_PID" "$round" "http://127.0.0.1:$BARE_PORT/layout" "$c" "$HERE/wrk_post.lua" "$BODY"
    [ -z "$LOOM_PID" ] || run_wrk loom-hit "$LOOM_PID" "$round" "http://127.0.0.1:$LOOM_PORT/layout" "$c" "$HERE/wrk_post.lua" "$BODY" $CHECK
  done
done
[ -z "$BARE_PID" ] || stop_pid "$BARE_PID"
if [ -n "$LOOM_PID" ]; then
  for c in $CONNECTIONS; do
    RUN_INDEX=$((RUN_INDEX + 1))
    run_wrk loom-miss "$LOOM_PID" 1 "http://127.0.0.1:$LOOM_PORT/layout" "$c" "$HERE/wrk_miss.lua" "$BODY" \
      $((RUN_INDEX * 100000000)) $CHECK
  done
  kill -0 "$LOOM_PID" 2>/dev/null || { echo "loom died during the test:" >&2; tail -20 "$WORK/loom.log" >&2; exit 1; }
  stop_pid "$LOOM_PID"
fi

[ -z "$OUT" ] || { mkdir -p "$(dirname "$OUT")"; cp "$RESULTS" "$OUT"; }

python3 - "$RESULTS" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
hdr = ["scenario", "conns", "round", "req/s", "p50 ms", "p99 ms", "cpu us/req", "errors", "cache hit/miss"]
tab = []
for r in rows:
    e = r["errors"]; errs = sum(e.values())
    cache = r.get("cache", {})
    if r["scenario"] == "bare" or not any(cache.values()):
        cs = "-"
    else:
        cs = f'{cache.get("hit",0)}/{cache.get("miss",0)}'
        if cache.get("none"):
            cs += f' (no header: {cache["none"]})'
    cpu = r.get("cpu_us_per_req")
    tab.append([r["scenario"], str(r["connections"]), str(r.get("round", 1)), f'{r["rps"]:.0f}', f'{r["p50_ms"]:.3f}',
                f'{r["p99_ms"]:.3f}', "-" if cpu is None else f'{cpu:.1f}', str(errs), cs])
w = [max(len(h), *(len(t[i]) for t in tab)) if tab else len(h) for i, h in enumerate(hdr)]
print("  ".join(h.ljust(x) for h, x in zip(hdr, w)))
print("  ".join("-" * x for x in w))
for t in tab:
    print("  ".join(c.ljust(x) for c, x in zip(t, w)))

def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return None if n == 0 else (xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2)

conns = sorted({r["connections"] for r in rows})
summary = []
for c in conns:
    b = [r for r in rows if r["scenario"] == "bare" and r["connections"] == c]
    h = [r for r in rows if r["scenario"] == "loom-hit" and r["connections"] == c]
    if not b or not h:
        continue
    br, hr = median([r["rps"] for r in b]), median([r["rps"] for r in h])
    bc = median([r["cpu_us_per_req"] for r in b if r.get("cpu_us_per_req")])
    hc = median([r["cpu_us_per_req"] for r in h if r.get("cpu_us_per_req")])
    summary.append((c, len(b), br, hr, bc, hc))
if summary:
    print()
    print("loom-hit vs bare (medians over rounds):")
    for c, n, br, hr, bc, hc in summary:
        cpu = f", server cpu {hc:.1f} vs {bc:.1f} us/req" if bc and hc else ""
        print(f"  c={c}: {hr:.0f} / {br:.0f} req/s = {100 * hr / br:.0f} %{cpu} ({n} round{'s' if n != 1 else ''})")
EOF
