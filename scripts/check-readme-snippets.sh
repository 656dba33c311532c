#!/usr/bin/env bash
# Runs the client snippets of README.md's "Clients" section against a real `loom serve`, so
# they cannot drift from the server: each fenced block preceded by a
# `<!-- snippet-checked: LANG -->` line (js, swift) is taken out of the README as it is, its
# URL http://localhost:8080 pointed at a server on a free loopback port, and run with `node`
# or `swift`; it must print `titleNode: (x, y, width, height)` with the frame derived in
# examples/README.md (4. Simple inset text cell): (12, 10, 120, 20).
#
# Cost: about 1 s for node, 1-30 s for the Swift interpreter (its first run compiles); each run
# is bounded by `timeout`. Settings: LOOM_BIN (default .build/debug/loom), NODE, SWIFT.
set -euo pipefail

cd "$(dirname "$0")/.."
LOOM_BIN=${LOOM_BIN:-.build/debug/loom}
NODE=${NODE:-node}
SWIFT=${SWIFT:-swift}
EXPECTED="12 10 120 20"

command -v "$NODE" >/dev/null || { echo "check-readme-snippets: '$NODE' not found (scripts/install-deps.sh test installs nodejs)" >&2; exit 1; }
[ -x "$LOOM_BIN" ] || { echo "check-readme-snippets: no loom binary at $LOOM_BIN (swift build first)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/loom-snippets.XXXXXX")
LOOM_PID=""
cleanup() {
  if [ -n "$LOOM_PID" ]; then kill "$LOOM_PID" 2>/dev/null || true; wait "$LOOM_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

"$LOOM_BIN" serve --host 127.0.0.1 --port 0 >"$WORK/loom.log" 2>&1 &
LOOM_PID=$!
PORT=""
for _ in $(seq 1 100); do
  PORT=$(grep -m1 'loom listening' "$WORK/loom.log" 2>/dev/null | sed -n 's/.*port="\{0,1\}\([0-9][0-9]*\).*/\1/p' || true)
  [ -n "$PORT" ] && break
  kill -0 "$LOOM_PID" 2>/dev/null || { cat "$WORK/loom.log"; echo "check-readme-snippets: loom serve exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$PORT" ] || { cat "$WORK/loom.log"; echo "check-readme-snippets: loom serve did not start" >&2; exit 1; }

# The marked blocks, written to $WORK/snippet.{js→mjs,swift}, pointed at the server.
python3 - "$PORT" "$WORK" <<'PY'
import re, sys
port, work = sys.argv[1], sys.argv[2]
text = open("README.md", encoding="utf-8").read()
found = {}
for lang, code in re.findall(r"<!-- snippet-checked: (\w+) -->\n```\w*\n(.*?)\n```", text, re.S):
    if "http://localhost:8080" not in code:
        sys.exit(f"check-readme-snippets: the {lang} snippet no longer names http://localhost:8080")
    found[lang] = code.replace("http://localhost:8080", f"http://127.0.0.1:{port}")
for lang, ext in (("js", "mjs"), ("swift", "swift")):
    if lang not in found:
        sys.exit(f"check-readme-snippets: README.md has no block marked <!-- snippet-checked: {lang} -->")
    open(f"{work}/snippet.{ext}", "w", encoding="utf-8").write(found[lang] + "\n")
PY

check() {
  local name=$1 out=$2
  local got
  got=$(sed -n 's/.*titleNode: (\([^)]*\)).*/\1/p' "$out" | tr -d ',' | awk '{for (i = 1; i <= NF; i++) printf "%s%g", (i > 1 ? " " : ""), $i; print ""}')
  if [ "$got" != "$EXPECTED" ]; then
    cat "$out"
    echo "check-readme-snippets: the $name snippet printed '$got', expected '$EXPECTED'" >&2
    exit 1
  fi
  echo "  $name snippet: titleNode ($got) in ${3}s"
}

start=$SECONDS
timeout 30 "$NODE" "$WORK/snippet.mjs" >"$WORK/js.out" 2>&1 || { cat "$WORK/js.out"; echo "check-readme-snippets: the js snippet failed" >&2; exit 1; }
check js "$WORK/js.out" $((SECONDS - start))

start=$SECONDS
timeout 180 "$SWIFT" "$WORK/snippet.swift" >"$WORK/swift.out" 2>&1 || { cat "$WORK/swift.out"; echo "check-readme-snippets: the swift snippet failed" >&2; exit 1; }
check swift "$WORK/swift.out" $((SECONDS - start))
echo "check-readme-snippets: the README's JavaScript and Swift clients answer as documented"
