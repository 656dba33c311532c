#!/usr/bin/env python3
"""Checks that every relative link in every tracked Markdown file resolves.

A link `[text](target)`, an image `![alt](target)` or a reference definition
`[name]: target` whose target has no URL scheme must name a file or directory tracked by
git (relative to the Markdown file, or to the repository root when it starts with `/`).
A `#anchor` (alone, or after a Markdown file) must be the GitHub slug of a heading of that
file, or an explicit `id`/`name` in its HTML. Links inside fenced code blocks and inline
code spans are not links and are skipped. Exits 1 and lists every broken link.

    python3 scripts/check-links.py          # from anywhere inside the repository

Standard library only; runs in well under a second.
"""
import os
import re
import subprocess
import sys
import urllib.parse

ROOT = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                      check=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()

INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ID = re.compile(r"""<[^>]+\b(?:id|name)\s*=\s*["']([^"']+)["']""")
FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def tracked_files():
    out = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True, cwd=ROOT).stdout
    files = {f for f in out.decode().split("\0") if f}
    dirs = {""}
    for f in files:
        parts = f.split("/")
        for k in range(1, len(parts)):
            dirs.add("/".join(parts[:k]))
    return files, dirs


def prose_lines(text):
    """(line number, line) outside fenced code blocks, with inline code spans blanked."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            marker = m.group(1)
            if fence is None:
                fence = marker
                continue
            if marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
                continue
        if fence is not None:
            continue
        yield number, re.sub(r"(`+)(?:(?!\1).)+?\1", lambda s: " " * len(s.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading: Markdown markup dropped, lower case, punctuation
    removed (letters, digits, `_`, `-` and spaces kept), spaces turned into `-`."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)                         # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = text.lower()
    text = "".join(c for c in text if c.isalnum() or c in "_- ")
    return text.replace(" ", "-")


anchor_cache = {}


def anchors(path):
    """Every anchor a Markdown file offers (GitHub numbers repeated slugs -1, -2 …)."""
    if path in anchor_cache:
        return anchor_cache[path]
    found, counts = set(), {}
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    fence = None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if m:
            marker = m.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            continue
        if fence is not None:
            continue
        h = HEADING.match(line)
        if h:
            base = slug(h.group(2))
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        for name in HTML_ID.findall(line):
            found.add(name)
    anchor_cache[path] = found
    return found


def check(path, files, dirs):
    problems = []
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    base = os.path.dirname(path)
    for number, line in prose_lines(text):
        targets = [m.group(1) for m in INLINE.finditer(line)]
        ref = REFERENCE.match(line)
        if ref:
            targets.append(ref.group(1))
        for target in targets:
            if not target or SCHEME.match(target) or target.startswith("//"):
                continue
            where, _, fragment = target.partition("#")
            where = urllib.parse.unquote(where)
            if where:
                joined = where.lstrip("/") if where.startswith("/") else os.path.join(base, where)
                resolved = os.path.normpath(joined).replace(os.sep, "/")
                if resolved == ".":
                    resolved = ""
                if resolved.startswith("../") or (resolved not in files and resolved not in dirs):
                    problems.append(f"{path}:{number}: '{target}': no such file in the repository")
                    continue
            else:
                resolved = path
            if fragment and resolved.endswith(".md") and resolved in files:
                if urllib.parse.unquote(fragment) not in anchors(resolved):
                    problems.append(f"{path}:{number}: '{target}': no heading '#{fragment}' in {resolved}")
    return problems


def main():
    files, dirs = tracked_files()
    markdown = sorted(f for f in files if f.endswith(".md") and os.path.exists(os.path.join(ROOT, f)))
    problems = []
    for path in markdown:
        problems += check(path, files, dirs)
    for p in problems:
        print(p)
    if problems:
        print(f"check-links: {len(problems)} broken link(s) in {len(markdown)} Markdown files", file=sys.stderr)
        return 1
    print(f"check-links: every relative link resolves ({len(markdown)} Markdown files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
