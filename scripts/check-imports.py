#!/usr/bin/env python3
"""The import rule of docs/architecture.md, checked: each module imports only the modules
of ours it may, and Package.swift declares no other dependency between them. Run by
`make test`; exits 1 with one line per breach."""
import pathlib, re, sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Of our own modules, what each may import (the arrows point down only).
ALLOWED = {
    "LoomLayout": set(),
    "LoomText": {"LoomLayout", "CPango"},
    "LoomService": {"LoomLayout"},
    "LoomHTTP": {"CMicroHTTPD"},
    "LoomServer": {"LoomService", "LoomHTTP", "LoomLayout"},
    "loom": {"LoomServer", "LoomService", "LoomLayout", "LoomText", "LoomHTTP", "CMimalloc"},
    "LoomFuzz": {"LoomService", "LoomLayout"},
}
OURS = set(ALLOWED) | {"CPango", "CMicroHTTPD", "CMimalloc"}

problems = []
package = (ROOT / "Package.swift").read_text()
for name, allowed in ALLOWED.items():
    m = re.search(r'\.(?:executableTarget|target)\(name: "%s",(.*?)path:' % re.escape(name), package, re.S)
    if not m:
        problems.append(f"Package.swift: no target {name}")
        continue
    declared = set(re.findall(r'"([A-Za-z]+)"', m.group(1))) & OURS
    for d in sorted(declared - allowed):
        problems.append(f"Package.swift: {name} depends on {d}, which the rule does not allow")
    for f in sorted((ROOT / "Sources" / name).rglob("*.swift")):
        for line in f.read_text().splitlines():
            im = re.match(r'\s*(?:@testable\s+)?import\s+(?:struct\s+|class\s+|enum\s+|func\s+)?([A-Za-z_]+)', line)
            if im and im.group(1) in OURS and im.group(1) not in allowed:
                problems.append(f"{f.relative_to(ROOT)}: imports {im.group(1)}, which {name} may not")
for p in problems:
    print(p)
print(f"import rule: {len(ALLOWED)} modules, {len(problems)} breaches")
sys.exit(1 if problems else 0)
