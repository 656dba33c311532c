#!/usr/bin/env python3
"""Derives the OpenAPI document the Swift client is generated from (Sources/LoomClient/openapi.json)
from the contract, openapi.yaml.

swift-openapi-generator 1.x cannot express two kinds of constraint the contract uses; both
only restrict which requests are valid, and the server enforces them (the client then gets
the server's typed `invalid_spec` error with its path):
  * `not` (a node's `layout`, `intrinsicSize` and non-empty `yogaChildren` exclude each other);
  * a `oneOf` of bare `required` lists (a text node or button title has `text` or `spans`).
This script drops exactly those and nothing else; `--check` fails when the committed file
is not what openapi.yaml gives (run by `make test`), so the client cannot drift from the
contract.
  scripts/client-openapi.py           # write Sources/LoomClient/openapi.json
  scripts/client-openapi.py --check   # exit 1 when it is stale
"""
import json
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "openapi.yaml"
TARGET = ROOT / "Sources" / "LoomClient" / "openapi.json"


def is_not(schema):
    return isinstance(schema, dict) and set(schema) == {"not"}


def is_bare_required(schema):
    return isinstance(schema, dict) and set(schema) == {"required"}


def simplify(node):
    if isinstance(node, list):
        return [simplify(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "allOf" and isinstance(value, list) and all(is_not(v) for v in value):
            continue
        if key == "oneOf" and isinstance(value, list) and value and all(is_bare_required(v) for v in value):
            continue
        out[key] = simplify(value)
    return out


def derived():
    doc = yaml.safe_load(SOURCE.read_text())
    doc = simplify(doc)
    doc.setdefault("info", {})["x-derived-from"] = (
        "openapi.yaml by scripts/client-openapi.py (drops `not` and oneOf-of-required constraints)")
    return json.dumps(doc, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


def main():
    text = derived()
    if sys.argv[1:] == ["--check"]:
        if not TARGET.exists() or TARGET.read_text() != text:
            print(f"{TARGET.relative_to(ROOT)} is stale: run scripts/client-openapi.py", file=sys.stderr)
            return 1
        return 0
    if sys.argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
