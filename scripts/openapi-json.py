#!/usr/bin/env python3
"""openapi.yaml as JSON, for GET /openapi.json: writes Sources/LoomServer/Resources/openapi.json.

The JSON carries the YAML's FNV-1a 64-bit hash as `x-source-fnv1a64`; a Swift test
(RouterTests) hashes the embedded YAML and fails when the two part, so run this after every
edit of openapi.yaml. `--check` exits 1 when the committed JSON is not what this makes.
Needs PyYAML (the schemathesis step has it)."""
import json, os, sys
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "openapi.yaml")
TARGET = os.path.join(ROOT, "Sources", "LoomServer", "Resources", "openapi.json")


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


def main() -> int:
    text = render()
    if sys.argv[1:] == ["--check"]:
        current = open(TARGET, encoding="utf-8").read() if os.path.exists(TARGET) else ""
        if current != text:
            print("openapi.json is not openapi.yaml: run scripts/openapi-json.py", file=sys.stderr)
            return 1
        print("openapi.json matches openapi.yaml")
        return 0
    open(TARGET, "w", encoding="utf-8").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
