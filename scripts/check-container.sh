#!/usr/bin/env bash
# Checks deploy/Dockerfile's runtime stage for real on a machine without a Docker engine:
#
#   1. reads the runtime stage from deploy/Dockerfile (FROM, SHELL, COPY, RUN, ENV, USER,
#      HEALTHCHECK, ENTRYPOINT, CMD) and the build stage's `swift build` flags;
#   2. builds the static binary on the host with those flags, in .build/static (or takes
#      LOOM_STATIC_BIN);
#   3. makes a Debian bookworm root file system with debootstrap (minbase, as bookworm-slim),
#      then runs the stage's COPY and RUN lines in it with the stage's SHELL (so
#      `install-deps.sh runtime`, `fc-cache -f` and `useradd ... 10001 loom` come from the
#      Dockerfile itself). Cached under .build/container-rootfs/<key>, the key a hash of the
#      runtime package list (`install-deps.sh --print runtime`) and the RUN lines;
#   4. copies the binary in as the stage's COPY --from=build does, and in a private mount, PID
#      and network namespace (its own loopback, so the image's ports 8080/9090 are free;
#      every mount and process goes away with it) mounts /proc, makes the root file system
#      read-only with a tmpfs on /tmp (as compose and k8s run it), and starts ENTRYPOINT+CMD
#      in the chroot as USER with exactly the stage's ENV;
#   5. checks over loopback: /healthz on the public and admin ports, the HEALTHCHECK command
#      run inside the chroot (and that it fails when nothing listens), `ldd` in the chroot,
#      /fonts equal to what the same binary reports on the host, a layout with text in every
#      family /fonts lists (text made of characters the family's own font covers, widths
#      plausible and equal to the host's), the process's uid, SIGTERM → exit 0.
#
# Skips (exit 0, "container: SKIPPED: why") only where it cannot run: not root and no
# password-less sudo, no namespaces, or no cached rootfs and no route to the Debian mirror.
# Cost: first run about 3 minutes (debootstrap + the runtime packages, 350-520 MB under
# .build/container-rootfs) plus the static release build in .build/static (3-4 minutes on
# an idle 2-core machine); cached, about 20 seconds (15 of them SwiftPM's up-to-date check).
#
# Settings (environment):
#   LOOM_STATIC_BIN   a binary built as the Dockerfile's build stage builds it (default: build it)
#   DEBIAN_MIRROR     default http://deb.debian.org/debian
#   SWIFT             default swift
set -euo pipefail

cd "$(dirname "$0")/.."
REPO=$PWD
DOCKERFILE=$REPO/deploy/Dockerfile
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SWIFT=${SWIFT:-swift}
CACHE=$REPO/.build/container-rootfs
PATH_IN_IMAGE=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

log() { printf 'container: %s\n' "$*"; }
skip() { printf 'container: SKIPPED: %s\n' "$*"; exit 0; }
die() { printf 'container: FAILED: %s\n' "$*" >&2; exit 1; }

# The Dockerfile's stages as shell assignments (DF_*), read by a small parser: line
# continuations, comments, ARG defaults in FROM, JSON (exec) forms.
parse_dockerfile() {
  python3 - "$DOCKERFILE" <<'PY'
import json, re, shlex, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
lines = [l.strip() for l in text.splitlines()]
lines = [l for l in lines if l and not l.startswith("#")]
args, stages, cur = {}, {}, None
for l in lines:
    op, _, rest = l.partition(" ")
    op = op.upper(); rest = rest.strip()
    if op == "ARG" and cur is None:
        k, _, v = rest.partition("="); args[k] = v
        continue
    if op == "FROM":
        m = re.match(r"(\S+)\s+AS\s+(\S+)$", rest, re.I)
        image = re.sub(r"\$\{(\w+)\}", lambda x: args.get(x.group(1), ""), m.group(1))
        cur = stages.setdefault(m.group(2), {"from": image, "ins": []})
        continue
    cur["ins"].append((op, rest))
q = shlex.quote
def arr(name, items): print(f"{name}=(" + " ".join(q(i) for i in items) + ")")
if "runtime" not in stages or "build" not in stages:
    sys.exit("deploy/Dockerfile: no 'build' or 'runtime' stage")
rt = stages["runtime"]
print(f"DF_FROM={q(rt['from'])}")
shell, runs, local, frombuild, env = ["/bin/sh", "-c"], [], [], [], []
user = hc = hc_timeout = entry = cmd = stop = None
for op, rest in rt["ins"]:
    if op == "SHELL": shell = json.loads(rest)
    elif op == "RUN":
        if frombuild: sys.exit("deploy/Dockerfile: a RUN after COPY --from=build (this check caches the rootfs after the last RUN)")
        runs.append(rest)
    elif op == "COPY":
        toks = shlex.split(rest); flags = [t for t in toks if t.startswith("--")]; paths = [t for t in toks if not t.startswith("--")]
        if len(paths) != 2: sys.exit(f"deploy/Dockerfile: COPY with {len(paths)} paths is not understood: {rest}")
        if any(f.startswith("--from=") for f in flags):
            if flags != ["--from=build"]: sys.exit(f"deploy/Dockerfile: unexpected COPY flags: {flags}")
            frombuild += paths
        else:
            if runs: sys.exit("deploy/Dockerfile: a local COPY after a RUN is not understood by this check")
            local += paths
    elif op == "ENV":
        for t in shlex.split(rest):
            k, eq, v = t.partition("=")
            if not eq: sys.exit(f"deploy/Dockerfile: ENV without '=': {t}")
            env.append(f"{k}={v}")
    elif op == "USER": user = rest
    elif op == "HEALTHCHECK":
        m = re.match(r"((?:--\S+\s+)*)CMD\s+(\[.*\])$", rest)
        if not m: sys.exit(f"deploy/Dockerfile: HEALTHCHECK not in exec form: {rest}")
        hc = json.loads(m.group(2))
        t = re.search(r"--timeout=(\d+)s", m.group(1)); hc_timeout = t.group(1) if t else "30"
    elif op == "ENTRYPOINT": entry = json.loads(rest)
    elif op == "CMD": cmd = json.loads(rest)
    elif op == "STOPSIGNAL": stop = rest
    elif op in ("EXPOSE", "WORKDIR", "LABEL"): pass
    else: sys.exit(f"deploy/Dockerfile: {op} in the runtime stage is not understood by this check")
if not (user and hc and entry and cmd is not None and frombuild): sys.exit("deploy/Dockerfile: runtime stage lacks USER, HEALTHCHECK, ENTRYPOINT, CMD or COPY --from=build")
arr("DF_SHELL", shell); arr("DF_RUNS", runs); arr("DF_COPY_LOCAL", local); arr("DF_COPY_BUILD", frombuild)
arr("DF_ENV", env); arr("DF_HEALTHCHECK", hc); arr("DF_ENTRYPOINT", entry); arr("DF_CMD", cmd)
print(f"DF_USER={q(user)}"); print(f"DF_HEALTHCHECK_TIMEOUT={q(hc_timeout)}"); print(f"DF_STOPSIGNAL={q(stop or 'SIGTERM')}")
# The build stage's `swift build` (the first one: the build; the second asks for the bin path).
builds = [m.group(1) for op, rest in stages["build"]["ins"] if op == "RUN" for m in re.finditer(r"swift build ([^&;|]*)", rest)]
if not builds: sys.exit("deploy/Dockerfile: no `swift build` in the build stage")
arr("DF_SWIFT_BUILD", shlex.split(builds[0]))
PY
}

# ------------------------------------------------------------------------- inside the namespaces
# `check-container.sh --inside ROOTFS WORK BIN`: run by the outer script under
# `unshare --mount --pid --net --fork`: this shell is PID 1 of its namespace, so everything it
# starts dies with it, and the mounts below vanish with the mount namespace.
if [ "${1:-}" = "--inside" ]; then
  R=$2 WORK=$3 BIN=$4
  source "$WORK/dockerfile.sh"
  if command -v ip >/dev/null; then ip link set lo up
  else python3 -c 'import socket,fcntl,struct; s=socket.socket(); f=struct.unpack("16sh",fcntl.ioctl(s,0x8913,struct.pack("16sh",b"lo",0)))[1]; fcntl.ioctl(s,0x8914,struct.pack("16sh",b"lo",f|1))'
  fi
  # Read-only root with a writable tmpfs /tmp, as docker-compose.yml and the k8s Deployment run it.
  mount --bind "$R" "$R"
  mount -o remount,bind,ro "$R"
  mount -t proc proc "$R/proc"
  mount -t tmpfs -o mode=1777,size=64m tmpfs "$R/tmp"

  # USER uid[:gid], numeric (a name would be looked up in the host's passwd by chroot, and
  # Kubernetes' runAsNonRoot needs a number); without a gid, the gid is the uid's here.
  uid=${DF_USER%%:*} gid=${DF_USER#*:}
  [[ $uid =~ ^[0-9]+$ && $gid =~ ^[0-9]+$ ]] || die "USER $DF_USER is not numeric uid[:gid]"
  in_image() { chroot --userspec="$uid:$gid" "$R" /usr/bin/env -i PATH="$PATH_IN_IMAGE" "${DF_ENV[@]}" "$@"; }

  rc=0
  log "ldd /usr/local/bin/loom in the chroot"
  chroot "$R" ldd /usr/local/bin/loom >"$WORK/ldd.txt" 2>&1 || { cat "$WORK/ldd.txt"; die "ldd failed in the chroot"; }
  if grep -q 'not found' "$WORK/ldd.txt"; then grep 'not found' "$WORK/ldd.txt" >&2; die "libraries missing in the runtime"; fi
  # (The system's libicuuc is Loom's own, for Thai line breaks; the toolchain's ICU is _FoundationICU.)
  if grep -q 'libswift\|libFoundation\|libdispatch\|_FoundationICU' "$WORK/ldd.txt"; then die "the binary links the Swift runtime dynamically (not --static-swift-stdlib)"; fi
  grep -q "^loom:x:$uid:$gid:" "$R/etc/passwd" || die "no user loom with uid:gid $uid:$gid in the image's /etc/passwd: $(grep '^loom:' "$R/etc/passwd")"
  grep -q "^loom:x:$gid:" "$R/etc/group" || die "no group loom with gid $gid in the image's /etc/group: $(grep '^loom:' "$R/etc/group")"
  if chroot "$R" touch /.probe 2>/dev/null; then die "the root file system is writable (even for root)"; fi
  in_image sh -c 'touch /tmp/.probe && rm /tmp/.probe' || die "/tmp is not writable for $uid:$gid"
  log "  ok   no library missing, the Swift runtime linked in; loom is $uid:$gid; / read-only, /tmp writable"

  log "starting ${DF_ENTRYPOINT[*]} ${DF_CMD[*]} in the chroot as $uid:$gid with ${DF_ENV[*]}"
  # Not through in_image: $! must be the process that becomes loom (chroot and env exec it).
  chroot --userspec="$uid:$gid" "$R" /usr/bin/env -i PATH="$PATH_IN_IMAGE" "${DF_ENV[@]}" \
    "${DF_ENTRYPOINT[@]}" "${DF_CMD[@]}" >"$WORK/image.log" 2>&1 &
  image_pid=$!
  # The same binary on the host, with the host's fonts: what the image must agree with.
  env -i PATH="$PATH" HOST=127.0.0.1 PORT=18080 LOOM_ADMIN_PORT=19090 XDG_CACHE_HOME="$WORK/cache" \
    "$BIN" serve >"$WORK/host.log" 2>&1 &
  host_pid=$!

  env_val() { local kv; for kv in "${DF_ENV[@]}"; do [ "${kv%%=*}" = "$1" ] && { echo "${kv#*=}"; return; }; done; echo "$2"; }
  port=$(env_val PORT 8080); admin=$(env_val LOOM_ADMIN_PORT "")

  timeout -k 5 240 python3 - "$port" "$admin" 18080 "$R" "$image_pid" "$uid" <<'PY' || rc=$?
import json, subprocess, sys, time, unicodedata, urllib.request, urllib.error
port, admin, host_port, root, pid, uid = sys.argv[1:7]
def get(p, path, body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{p}{path}", data=body,
                                 headers={"Content-Type": "application/json"} if body else {})
    with urllib.request.urlopen(req, timeout=20) as r:
        return r.status, r.read()
def wait(p, what):
    for _ in range(300):
        try:
            if get(p, "/healthz")[0] == 200: return
        except OSError: pass
        time.sleep(0.1)
    sys.exit(f"{what}: /healthz on port {p} did not answer 200 in 30 s")
fails = []
def check(ok, msg):
    print(("  ok   " if ok else "  FAIL ") + msg)
    if not ok: fails.append(msg)

wait(port, "image"); wait(host_port, "host")
for p, name in [(port, "public"), (admin, "admin")]:
    if not p: continue
    s, b = get(p, "/healthz")
    check(s == 200 and json.loads(b).get("status") == "ok", f"/healthz on the {name} port {p}: {s} {b[:60]!r}")
status = open(f"{root}/proc/{pid}/status").read()  # the namespace's /proc (mounted in the chroot)
uids = [l.split()[1:] for l in status.splitlines() if l.startswith("Uid:")][0]
# chroot execs env, env execs loom: the same process.
check(set(uids) == {uid}, f"loom runs as uid {uid} (real/effective/saved/fs: {' '.join(uids)})")

fonts = json.loads(get(port, "/fonts")[1]); host_fonts = json.loads(get(host_port, "/fonts")[1])
fams = [f["family"] for f in fonts["families"]]
check(len(fams) > 0 and all(f["faces"] for f in fonts["families"]), f"/fonts lists {len(fams)} families, each with faces: {', '.join(fams)}")
hf = {f["family"] for f in host_fonts["families"]}
check(hf <= set(fams), "every family the host's fonts give is in the image" + (f" (missing: {sorted(hf - set(fams))})" if hf - set(fams) else ""))
# The host may have more faces of a family, from packages outside the runtime list (here
# fonts-dejavu-extra, pulled in by openjdk): noted, not failed. The image may have none the
# host lacks, and the aliases must agree.
host_by = {f["family"]: f for f in host_fonts["families"]}
def face_set(f): return {(x["style"], x["weight"], x["italic"]) for x in f["faces"]}
for f in fonts["families"]:
    h = host_by.get(f["family"])
    if not h: continue
    extra, only_host = face_set(f) - face_set(h), face_set(h) - face_set(f)
    check(not extra and f["aliases"] == h["aliases"],
          f"{f['family']}: {len(f['faces'])} faces, aliases {f['aliases']}, as on the host" + (f" (not on the host: {sorted(extra)})" if extra else ""))
    if only_host:
        print(f"  note {f['family']}: the host also has {sorted(only_host)} (a package outside the runtime list)")

# Text each family's own font covers (from fontconfig in the chroot, after the image's
# fc-cache), so the width is the family's, not a fallback's.
# One fc-list for every face: family names (comma-separated) | code point ranges.
charsets = {}
fc = subprocess.run(["chroot", root, "fc-list", "-f", "%{family}|%{charset}\n"],
                    capture_output=True, text=True, timeout=60).stdout
for line in filter(None, fc.split("\n")):
    names, _, ranges = line.rpartition("|")
    cps = set()
    for r in ranges.split():
        a, _, b = r.partition("-"); cps.update(range(int(a, 16), int(b or a, 16) + 1))
    for name in names.split(","):
        # Every face of the family: only what all of them cover.
        charsets[name] = charsets[name] & cps if name in charsets else cps
def charset(family): return charsets.get(family, set())
LATIN_SHORT, LATIN_LONG = "Loom", "The quick brown fox jumps over the lazy dog"
samples = {}
for fam in fams:
    cps = charset(fam)
    if not cps:
        check(False, f"{fam}: fontconfig in the chroot does not know it"); continue
    if all(ord(c) in cps for c in LATIN_LONG):
        samples[fam] = (LATIN_SHORT, LATIN_LONG); continue
    def usable(c):
        # Letters, digits and symbols that stand alone (no marks, no modifiers).
        ch = chr(c); cat = unicodedata.category(ch)
        return c >= 0xA0 and cat[0] in "LNS" and cat not in ("Lm", "Sk") \
            and not unicodedata.combining(ch) and unicodedata.east_asian_width(ch) != "A"
    # Emoji fonts: from the top of the code space (pictographs, not the © and ® they also have).
    pool = [c for c in sorted(cps, reverse="emoji" in fam.lower()) if usable(c)]
    if len(pool) < 2:
        check(False, f"{fam}: no text its font covers"); continue
    step = max(1, len(pool) // 8)
    picks = [chr(pool[(i * step) % len(pool)]) for i in range(8)]
    samples[fam] = ("".join(picks[:2]), "".join(picks))

# Ten families a layout, so that loading many fonts for the first time stays well inside
# the layout deadline.
items = list(samples.items())
frames, host_frames = {}, {}
for start in range(0, len(items), 10):
    nodes = []
    for i in range(start, min(start + 10, len(items))):
        fam, (short, long_) = items[i]
        for kind, t in (("s", short), ("l", long_)):
            nodes.append({"type": "text", "id": f"{kind}{i}", "text": t, "font": {"family": fam, "size": 16}})
    req = json.dumps({"sizeRange": {"min": {"width": 0, "height": 0}, "max": {"width": 100000, "height": None}},
                      "root": {"type": "stack", "id": "root", "direction": "vertical", "alignItems": "start",
                               "children": nodes}}).encode()
    # The host gets the same nodes in the families it has too.
    host_nodes = [n for n in nodes if n["font"]["family"] in hf]
    host_req = json.dumps({**json.loads(req), "root": {**json.loads(req)["root"], "children": host_nodes}}).encode()
    try:
        s, body = get(port, "/layout", req)
        if host_nodes: host_frames.update(json.loads(get(host_port, "/layout", host_req)[1])["frames"])
    except urllib.error.HTTPError as e:
        check(False, f"POST /layout with {', '.join(f for f, _ in items[start:start + 10])}: {e.code} {e.read()[:300]!r}")
        continue
    res = json.loads(body)
    check(s == 200 and not res.get("warnings"),
          f"POST /layout with {len(nodes)} text nodes in {len(nodes) // 2} families: {s}, no warnings ({res.get('warnings')})")
    frames.update(res["frames"])
latin_widths = set()
for i, (fam, (short, long_)) in enumerate(items):
    if f"s{i}" not in frames: continue
    ws, wl = frames[f"s{i}"]["width"], frames[f"l{i}"]["width"]
    check(0 < ws < wl and frames[f"l{i}"]["height"] > 0,
          f"{fam}: {short!r} {ws} wide, {long_!r} {wl} wide, {frames[f'l{i}']['height']} high")
    if fam in hf:
        size = lambda f: (f["width"], f["height"])  # positions differ: the host's stack may hold fewer
        check([size(frames[f"{k}{i}"]) for k in "sl"] == [size(host_frames[f"{k}{i}"]) for k in "sl"],
              f"{fam}: the host measures the same")
    if long_ == LATIN_LONG: latin_widths.add(wl)
latin = sum(1 for i, (_, v) in enumerate(items) if v[1] == LATIN_LONG and f"l{i}" in frames)
# Different fonts give different widths to a pangram; all alike would mean one fallback font.
check(len(latin_widths) >= min(latin, 5), f"{latin} Latin families give {len(latin_widths)} different widths to the pangram")
print(f"{len(fails)} failed")
sys.exit(1 if fails else 0)
PY

  log "HEALTHCHECK (${DF_HEALTHCHECK[*]}) in the chroot, timeout ${DF_HEALTHCHECK_TIMEOUT}s"
  if timeout -k 1 "$DF_HEALTHCHECK_TIMEOUT" chroot --userspec="$uid:$gid" "$R" /usr/bin/env -i PATH="$PATH_IN_IMAGE" "${DF_ENV[@]}" "${DF_HEALTHCHECK[@]}"; then
    log "  ok   healthy"
  else
    log "  FAIL the HEALTHCHECK command failed against a running loom"; rc=1
  fi
  # The same command must fail where nothing listens (a check that cannot fail proves nothing).
  if timeout -k 1 "$DF_HEALTHCHECK_TIMEOUT" chroot --userspec="$uid:$gid" "$R" /usr/bin/env -i PATH="$PATH_IN_IMAGE" "${DF_ENV[@]}" LOOM_ADMIN_PORT=1 "${DF_HEALTHCHECK[@]}" 2>/dev/null; then
    log "  FAIL the HEALTHCHECK command passes with nothing listening"; rc=1
  else
    log "  ok   unhealthy when nothing listens"
  fi

  log "$DF_STOPSIGNAL to loom: it must drain and exit 0"
  kill -s "${DF_STOPSIGNAL#SIG}" "$image_pid"
  for _ in $(seq 1 300); do kill -0 "$image_pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$image_pid" 2>/dev/null; then log "  FAIL still running 30 s after $DF_STOPSIGNAL"; rc=1
  else
    erc=0; wait "$image_pid" || erc=$?
    if [ "$erc" -eq 0 ]; then log "  ok   exit 0"; else log "  FAIL exit $erc"; rc=1; fi
  fi
  kill "$host_pid" 2>/dev/null || true
  # Anything but info lines (fontconfig complaining about a cache or a config, a warning)
  # that the same binary on the host does not print too. Timestamps and request ids cut.
  strip() { { grep -v '^[0-9TZ:-]* info ' "$1" || true; } | sed 's/^[0-9TZ:-]* //; s/request_id=[0-9a-f]*//' | sort -u; }
  strip "$WORK/host.log" >"$WORK/host-other.log"
  strip "$WORK/image.log" | comm -23 - "$WORK/host-other.log" >"$WORK/image-other.log"
  if [ -s "$WORK/image-other.log" ]; then
    log "  FAIL the image's log has lines other than info that the host's has not:"; cat "$WORK/image-other.log"; rc=1
  else
    log "  ok   the image's log has no warning or error the host's has not"
  fi
  if [ "$rc" -ne 0 ]; then echo "--- the image's log:"; tail -30 "$WORK/image.log"; fi
  exit "$rc"
fi

# ---------------------------------------------------------------------------------- outside
# Root is needed for debootstrap and chroot: as root, or later through password-less sudo.
if [ "$(id -u)" -ne 0 ] && ! { command -v sudo >/dev/null && sudo -n true 2>/dev/null; }; then
  skip "not root and no password-less sudo: debootstrap and chroot need root"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/loom-container.XXXXXX")
STAGING="" CHILD=""
# bounded CMD...: runs CMD (a `timeout …` command) in the background and waits, so that a
# TERM or INT to this script reaches it at once (cleanup stops it) instead of after it ends.
bounded() {
  "$@" & CHILD=$!
  local rc=0
  wait "$CHILD" || rc=$?
  CHILD=""
  return "$rc"
}
cleanup() {
  trap '' INT TERM  # a second signal must not cut the cleanup short
  # unshare blocks TERM while it waits for its child: KILL it (the unshare started by our
  # timeout, by parent id), and --kill-child ends every process of its namespace. A build
  # gets timeout's TERM.
  if [ -n "$CHILD" ]; then
    pkill -KILL -x -P "$CHILD" unshare 2>/dev/null || true
    kill "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  # Mounts made by the rootfs build live in namespaces that end with their processes; this
  # is a last guard: nothing under the cache or the staging dir may stay mounted.
  local m
  for m in $(awk '{print $5}' /proc/self/mountinfo | grep -F "$CACHE/" | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  [ -n "$STAGING" ] && rm -rf --one-file-system "$STAGING"
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

parse_dockerfile >"$WORK/dockerfile.sh" || die "cannot read deploy/Dockerfile"
source "$WORK/dockerfile.sh"
case "$DF_FROM" in
  debian:bookworm-slim|debian:bookworm) SUITE=bookworm ;;
  *) die "the runtime stage is FROM $DF_FROM; this check makes Debian bookworm only" ;;
esac

# The binary, built as the build stage builds it (as the invoking user, before any sudo).
# A scratch path of its own: --static-swift-stdlib is passed to every swiftc call, so sharing
# .build with the plain release build (make release, the hostile step) would recompile
# everything each time one follows the other.
BIN=${LOOM_STATIC_BIN:-}
if [ -z "$BIN" ]; then
  build=("${DF_SWIFT_BUILD[@]}" --scratch-path "$REPO/.build/static")
  log "building: $SWIFT build ${build[*]}"
  bounded timeout 2400 "$SWIFT" build "${build[@]}" >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log"; die "the release build failed"; }
  BIN="$("$SWIFT" build "${build[@]}" --show-bin-path)/loom"
fi
[ -x "$BIN" ] || die "no binary at $BIN"
BIN=$(readlink -f "$BIN")

if [ "$(id -u)" -ne 0 ]; then
  log "re-running as root with sudo (debootstrap and chroot need it)"
  exec sudo -n env PATH="$PATH" LOOM_STATIC_BIN="$BIN" DEBIAN_MIRROR="$MIRROR" "$REPO/scripts/check-container.sh"
fi
unshare --mount --pid --net --fork true 2>/dev/null || skip "cannot create mount/PID/network namespaces here (unshare failed)"
for c in chroot python3 timeout; do command -v "$c" >/dev/null || die "$c is not installed"; done

# The cache key: the runtime list as install-deps.sh prints it, the stage's COPY and RUN lines.
runtime_list=$(bash scripts/install-deps.sh --print runtime)
KEY=$(printf '%s\n' "$SUITE" "$runtime_list" "${DF_COPY_LOCAL[@]}" "${DF_RUNS[@]}" | sha256sum | cut -c1-16)
R=$CACHE/$KEY
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
timeout 1800 flock 9 || die "another check holds $CACHE/.lock"

if [ -f "$R/.loom-complete" ]; then
  log "rootfs $KEY cached (runtime list: $runtime_list)"
else
  command -v debootstrap >/dev/null || die "debootstrap is not installed (scripts/install-deps.sh test installs it)"
  if ! timeout 15 python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=10)" "$MIRROR/dists/$SUITE/InRelease" 2>/dev/null; then
    skip "no rootfs cached and the Debian mirror $MIRROR is not reachable"
  fi
  STAGING=$CACHE/.staging-$KEY
  rm -rf --one-file-system "$STAGING"
  started=$(date +%s)
  log "debootstrap --variant=minbase $SUITE (first run: a few minutes; runtime list: $runtime_list)"
  # In a mount and PID namespace of its own: the /proc and /sys debootstrap mounts in the
  # target go away with it, even if it is killed.
  bounded timeout -s KILL 900 unshare --mount --pid --fork --kill-child --propagation private \
    debootstrap --variant=minbase "$SUITE" "$STAGING" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
    { tail -30 "$WORK/debootstrap.log"; die "debootstrap failed"; }
  # bookworm-slim's sources: the release, its updates and security.
  rm -f "$STAGING/etc/apt/sources.list"
  cat >"$STAGING/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  cp /etc/resolv.conf "$STAGING/etc/resolv.conf"
  set -- "${DF_COPY_LOCAL[@]}"
  while [ $# -ge 2 ]; do
    log "COPY $1 $2"; install -D -m 0755 "$REPO/$1" "$STAGING/$2"; shift 2
  done
  for run in "${DF_RUNS[@]}"; do
    log "RUN $run"
    # As `docker build` runs it: root, the stage's SHELL, /proc mounted (in a namespace of its own).
    bounded timeout -s KILL 1200 unshare --mount --pid --fork --kill-child --propagation private \
      sh -c 'mount -t proc proc "$1/proc" && shift && exec chroot "$@"' sh "$STAGING" \
      "$STAGING" /usr/bin/env -i PATH="$PATH_IN_IMAGE" HOME=/root "${DF_SHELL[@]}" "$run" >"$WORK/run.log" 2>&1 ||
      { tail -40 "$WORK/run.log"; die "the RUN line failed in the chroot"; }
  done
  touch "$STAGING/.loom-complete"
  # Older keys (another runtime list) go; this one takes their place.
  for old in "$CACHE"/*/; do [ -d "$old" ] && rm -rf --one-file-system "$old"; done
  mv "$STAGING" "$R"; STAGING=""
  log "rootfs $KEY made in $(( $(date +%s) - started )) s ($(du -sm "$R" | cut -f1) MB)"
fi

# The image's /fonts is compared with the host's: say so when the host lacks a font package
# of the runtime list (make test installs them all), the comparison then covers less.
for p in $runtime_list; do
  case "$p" in fonts-*)
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      log "note: the host lacks $p; /fonts is compared with the host's only for the families it has" ;;
  esac
done

set -- "${DF_COPY_BUILD[@]}"
log "COPY --from=build $1 $2 (the host's $BIN)"
install -D -m 0755 "$BIN" "$R/$2"

bounded timeout -s KILL 360 unshare --mount --pid --net --fork --kill-child --propagation private \
  env PATH="$PATH" bash "$REPO/scripts/check-container.sh" --inside "$R" "$WORK" "$BIN" ||
  die "the checks in the chroot failed (exit $?; 137: killed after 360 s)"
log "passed"
