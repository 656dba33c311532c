#!/usr/bin/env python3
"""openapi.yaml as JSON, run after every edit of openapi.yaml. Writes two files:

* Sources/LoomServer/Resources/openapi.json, served at GET /openapi.json. It carries the
  YAML's FNV-1a 64-bit hash as `x-source-fnv1a64`; a Swift test (RouterTests) hashes the
  embedded YAML and fails when the two part.
* Sources/LoomClient/openapi.json, what swift-openapi-generator makes the Swift client's
  types from. The generator (1.x) cannot express two kinds of constraint the contract uses;
  both only restrict which requests are valid and the server enforces them (the client
  then gets the server's typed `invalid_spec` error with its path), so this copy drops
  exactly those: `not` (a node's `layout`, `intrinsicSize` and non-empty `yogaChildren`
  exclude each other) and a `oneOf` of bare `required` lists (a text node or button title
  has `text` or `spans`).

`--check` exits 1 when either committed file is not what this makes (scripts/check-deploy.sh
and the schemathesis step run it). Needs PyYAML."""
import json, os, sys
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "openapi.yaml")
TARGET = os.path.join(ROOT, "Sources", "LoomServer", "Resources", "openapi.json")
CLIENT_TARGET = os.path.join(ROOT, "Sources", "LoomClient", "openapi.json")


def fnv1a64(data: bytes) -> str:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def render() -> str:
    raw = open(SOURCE, "rb").read()
    doc = yaml.safe_load(raw)
    doc["x-source-fnv1a64"] = fnv1a64(raw)
    # YAML's integer keys (status codes) become JSON strings, as OpenAPI wants them.
    return json.dumps(doc, indent=1, ensure_ascii=False, default=str) + "\n"


def for_generator(node):
    """The document without the constraints swift-openapi-generator cannot express."""
    if isinstance(node, list):
        return [for_generator(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "allOf" and isinstance(value, list) and all(isinstance(v, dict) and set(v) == {"not"} for v in value):
            continue
        if key == "oneOf" and isinstance(value, list) and value and \
                all(isinstance(v, dict) and set(v) == {"required"} for v in value):
            continue
        out[key] = for_generator(value)
    return out


def render_client() -> str:
    doc = for_generator(yaml.safe_load(open(SOURCE, "rb").read()))
    doc["info"]["x-derived-from"] = "openapi.yaml by scripts/openapi-json.py (drops `not` and oneOf-of-required constraints)"
    return json.dumps(doc, indent=1, ensure_ascii=False, default=str) + "\n"


def main() -> int:
    outputs = [(TARGET, render()), (CLIENT_TARGET, render_client())]
    if sys.argv[1:] == ["--check"]:
        stale = [path for path, text in outputs
                 if (open(path, encoding="utf-8").read() if os.path.exists(path) else "") != text]
        for path in stale:
            print(f"{os.path.relpath(path, ROOT)} is not openapi.yaml: run scripts/openapi-json.py", file=sys.stderr)
        if stale:
            return 1
        print("openapi.json (served and the client's) match openapi.yaml")
        return 0
    for path, text in outputs:
        open(path, "w", encoding="utf-8").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
