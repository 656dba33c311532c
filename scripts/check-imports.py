#!/usr/bin/env python3
"""The import rule of docs/architecture.md, checked: each module imports only the modules
of ours it may, and Package.swift declares no other dependency between them. Every module
under Sources/ and every non-test target must be in the rule (a new one is a breach until
it is added below). Run by `make test`; exits 1 with one line per breach."""
import pathlib, re, sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Of our own modules, what each may import (the arrows point down only).
ALLOWED = {
    "LoomLayout": set(),
    "LoomText": {"LoomLayout", "CPango", "CICU"},
    "LoomService": {"LoomLayout", "COpenSSL"},
    "LoomHTTP": {"CMicroHTTPD"},
    "LoomServer": {"LoomService", "LoomHTTP", "LoomLayout"},
    "loom": {"LoomServer", "LoomService", "LoomLayout", "LoomText", "LoomHTTP", "CMimalloc"},
    "LoomFuzz": {"LoomService", "LoomLayout"},
    # The client library for apps: no module of the server (it builds for iOS and macOS).
    "LoomClient": set(),
    # What the tests share (fake measurers, a raw HTTP client); no product may import it.
    "LoomTestSupport": {"LoomLayout"},
}
# Where a module's files are, when not in Sources/<name>.
FOLDERS = {"LoomTestSupport": "Tests/LoomTestSupport"}
SYSTEM_LIBRARIES = {"CPango", "CICU", "CMicroHTTPD", "CMimalloc", "COpenSSL"}
OURS = set(ALLOWED) | SYSTEM_LIBRARIES

# One import declaration, however it is spelled: attributes (@testable, @_exported,
# @_implementationOnly, @preconcurrency, …), an access level (Swift 6), a kind
# (`import struct M.T`); the module is the first name of the path.
IMPORT = re.compile(r"\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|open)\s+)?"
                    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_]\w*)")
TARGET = re.compile(r'\.(target|executableTarget|testTarget|systemLibrary|binaryTarget|plugin|macro)\(\s*name:\s*"([^"]+)"')


def imported_modules(text):
    """The modules a Swift file imports (statements split at `;` as well as lines)."""
    for line in text.splitlines():
        for statement in line.split(";"):
            m = IMPORT.match(statement)
            if m:
                yield m.group(1)


problems = []
package = (ROOT / "Package.swift").read_text()
# Each target's text runs from its `.kind(name:` to the next target's.
# `.plugin(name: …, package: …)` inside a target's `plugins:` uses another package's
# plugin; it is not a target of ours.
starts = [m for m in TARGET.finditer(package)
          if not (m.group(1) == "plugin" and re.match(r'\s*,\s*package:', package[m.end():]))]
targets = {}
for i, m in enumerate(starts):
    end = starts[i + 1].start() if i + 1 < len(starts) else len(package)
    targets[m.group(2)] = (m.group(1), package[m.end():end])

for name, (kind, _) in sorted(targets.items()):
    if kind != "testTarget" and name not in OURS:
        problems.append(f"Package.swift: target {name} is not in the import rule (add it to scripts/check-imports.py)")
for d in sorted(p.name for p in (ROOT / "Sources").iterdir() if p.is_dir()):
    if d not in OURS or d in FOLDERS:
        problems.append(f"Sources/{d}: a module the import rule does not know (add it to scripts/check-imports.py)")

for name, allowed in ALLOWED.items():
    if name not in targets:
        problems.append(f"Package.swift: no target {name}")
        continue
    declared = set(re.findall(r'"([A-Za-z]\w*)"', targets[name][1])) & OURS
    for d in sorted(declared - allowed - {name}):
        problems.append(f"Package.swift: {name} depends on {d}, which the rule does not allow")
    folder = FOLDERS.get(name, f"Sources/{name}")
    files = sorted((ROOT / folder).rglob("*.swift"))
    if not files:
        problems.append(f"{folder}: no Swift files (moved? the rule would check nothing)")
    for f in files:
        for module in imported_modules(f.read_text()):
            if module in OURS and module not in allowed:
                problems.append(f"{f.relative_to(ROOT)}: imports {module}, which {name} may not")
for p in problems:
    print(p)
print(f"import rule: {len(ALLOWED)} modules, {len(problems)} breaches")
sys.exit(1 if problems else 0)
