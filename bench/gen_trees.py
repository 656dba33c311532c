#!/usr/bin/env python3
"""Deterministic generator of the benchmark trees (LayoutRequest JSON, wire format v1).

    python3 bench/gen_trees.py                 # writes bench/trees/*.json
    python3 bench/gen_trees.py --out DIR       # somewhere else (e.g. at bench time)
    python3 bench/gen_trees.py --check         # verify bench/trees/ matches the generator
    python3 bench/gen_trees.py --only feed,deep

Every tree is built from fixed seeds (random.Random(seed)), so the output is byte-for-byte
the same on every run and every machine. Files are written as compact JSON (no spaces),
except cell.json, which is what the HTTP load test posts. A file that would exceed
MAX_COMMITTED_BYTES is still written, but is listed in OUT/.gitignore so that it is
generated at bench time rather than committed (compare.py and peers.py regenerate
missing files).

Element counts ("nodes") count every JSON Element, specs included (stack, inset, ...,
node, text, image): every object that has a "type".
"""
import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "trees")
MAX_COMMITTED_BYTES = 2 * 1024 * 1024

# The deep trees nest ~3,000 JSON levels of objects/arrays; json's C encoder and
# decoder both count against the recursion limit.
sys.setrecursionlimit(100000)

FONTS = ["Roboto", "Inter", "Liberation Sans"]
WORDS = (
    "layout stack inset ratio overlay background spec node text image cell feed avatar "
    "photo comment share like follow story morning evening coffee city river mountain "
    "weekend friends music concert train window garden summer winter light shadow "
    "quick brown fox jumps over the lazy dog again today tomorrow yesterday really "
    "beautiful amazing simple quiet busy long short little big new old first last"
).split()

# Marker for the HTTP cache-miss test: this exact number appears once in cell.json and
# bench/wrk_miss.lua replaces it with a unique number per request.
CELL_VARY_MARKER = "7.125"


# --------------------------------------------------------------------------- helpers

def count_elements(el):
    """Number of Elements (objects with a "type") in an element tree, iteratively."""
    n = 0
    stack = [el]
    while stack:
        e = stack.pop()
        n += 1
        if "children" in e:
            stack.extend(e["children"])
        stack.extend(e.get("yogaChildren", ()))
        for key in ("child", "overlay", "background", "corner", "layout"):
            if key in e:
                stack.append(e[key])
    return n


def max_depth(el):
    best = 0
    stack = [(el, 1)]
    while stack:
        e, d = stack.pop()
        best = max(best, d)
        kids = list(e.get("children", [])) + list(e.get("yogaChildren", []))
        for key in ("child", "overlay", "background", "corner", "layout"):
            if key in e:
                kids.append(e[key])
        stack.extend((k, d + 1) for k in kids)
    return best


def collect_ids(el):
    ids = []
    stack = [el]
    while stack:
        e = stack.pop()
        if "id" in e:
            ids.append(e["id"])
        stack.extend(e.get("children", []))
        stack.extend(e.get("yogaChildren", []))
        for key in ("child", "overlay", "background", "corner", "layout"):
            if key in e:
                stack.append(e[key])
    return ids


def request(root, max_w=375, max_h=None, min_w=0, min_h=0):
    return {
        "sizeRange": {
            "min": {"width": min_w, "height": min_h},
            "max": {"width": max_w, "height": max_h},
        },
        "root": root,
    }


def node(w, h, id=None, **style):
    e = {"type": "node"}
    if id:
        e["id"] = id
    st = {"width": w, "height": h}
    st.update(style)
    e["style"] = st
    return e


def stack(direction, children, id=None, style=None, **props):
    e = {"type": "stack"}
    if id:
        e["id"] = id
    if style:
        e["style"] = style
    e["direction"] = direction
    e.update(props)
    e["children"] = children
    return e


def inset(child, top, left, bottom, right, id=None):
    e = {"type": "inset"}
    if id:
        e["id"] = id
    e["insets"] = {"top": top, "left": left, "bottom": bottom, "right": right}
    e["child"] = child
    return e


def sentence(rng, lo=5, hi=14):
    words = [rng.choice(WORDS) for _ in range(rng.randint(lo, hi))]
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice([".", ".", ".", "!", "?"])


# --------------------------------------------------------------------------- feed

JUSTIFY = ["start", "spaceBetween", "spaceAround", "end", "center"]
ALIGN = ["center", "start", "end", "stretch"]


def feed_cell(i, rng, with_text=False):
    """One social-feed cell: 15 elements without text, 16 with (one body text more)."""
    avatar = {"type": "image", "id": f"avatar-{i}",
              "intrinsicSize": {"width": 40, "height": 40},
              "url": f"https://img.example/a/{i}.jpg"}
    name_w = rng.choice([90, 120, 160, 220, 320])          # 320 forces the names column to shrink
    if with_text:
        fam = FONTS[i % 3]
        size = 12 + (i % 6)                                  # 12..17
        first = rng.choice(WORDS).capitalize()
        last = rng.choice(WORDS).capitalize()
        name = {"type": "text", "id": f"name-{i}", "text": f"{first} {last}",
                "font": {"family": fam, "size": size, "weight": 600},
                "maximumNumberOfLines": 1}
        handle = {"type": "text", "text": f"@{first.lower()}_{last.lower()}{i} · {1 + i % 23}h",
                  "font": {"family": FONTS[(i + 1) % 3], "size": max(12, size - 2)}}
    else:
        name = node(name_w, 16, id=f"name-{i}", flexShrink=1)
        handle = node(rng.choice([60, 80, 100]), 12)
    names = stack("vertical", [name, handle], spacing=4, alignItems="start",
                  style={"flexGrow": 1, "flexShrink": 1})
    header = stack("horizontal", [avatar, names], spacing=10,
                   alignItems=ALIGN[i % 3], justifyContent="start")

    photo = {"type": "image", "intrinsicSize": {"width": 1080, "height": rng.choice([608, 810, 1080, 1350])},
             "url": f"https://img.example/p/{i}.jpg"}
    decoration = node(rng.choice([24, 32, 48]), 20, id=f"badge-{i}") if i % 4 == 0 else {"type": "node"}
    if i % 2 == 0:
        layered = {"type": "overlay", "child": photo, "overlay": decoration}
    else:
        layered = {"type": "background", "child": photo, "background": decoration}
    photo_spec = {"type": "ratio", "id": f"photo-{i}", "ratio": rng.choice([0.5625, 0.75, 1, 1.25]),
                  "child": layered}

    actions = stack("horizontal", [
        node(20, 20, id=f"like-{i}"),
        {"type": "spacer", "style": {"flexGrow": 1, "flexShrink": 1}},
        node(rng.choice([20, 24, 28]), 20),
    ], justifyContent=JUSTIFY[i % len(JUSTIFY)], alignItems=ALIGN[(i + 1) % len(ALIGN)],
        spacing=rng.choice([0, 8, 16]))

    body_children = [header]
    if with_text:
        n = 1 + i % 3
        body = {"type": "text", "text": " ".join(sentence(rng) for _ in range(n)),
                "font": {"family": FONTS[(i + 2) % 3], "size": 12 + (i * 5) % 6},
                "lineHeight": round((12 + (i * 5) % 6) * 1.3, 1)}
        if i % 3 == 0:
            body["maximumNumberOfLines"] = 2
        elif i % 5 == 0:
            body["maximumNumberOfLines"] = 3
            body["truncationMode"] = "tail"
        body_children.append(body)
    body_children += [photo_spec, actions]
    content = stack("vertical", body_children, spacing=8, alignItems="stretch")
    return inset(content, 12, 16, 12, 16, id=f"cell-{i}")


def feed(with_text=False, changed_cell=None, seed=1001, cells=100):
    rng = random.Random(seed)
    out = []
    for i in range(cells):
        cell = feed_cell(i, rng, with_text=with_text)
        out.append(cell)
    if changed_cell is not None:
        # exactly one size differs: the "like" button of one cell grows by 2 points
        c = out[changed_cell]
        actions = c["child"]["children"][-1]
        actions["children"][0]["style"]["width"] += 2
    root = stack("vertical", out, id="feed", alignItems="stretch")
    return request(root, max_w=375, max_h=None)


# --------------------------------------------------------------------------- synthetic

def wide(n=10000, seed=2002):
    rng = random.Random(seed)
    kids = []
    for i in range(n):
        st = {"width": rng.randint(8, 48), "height": rng.randint(10, 40), "flexShrink": 1}
        if i % 2 == 0:
            st["flexGrow"] = 1
        e = {"type": "node", "style": st}
        if i % 1000 == 0:
            e["id"] = f"w{i}"
        kids.append(e)
    root = stack("horizontal", kids, id="wide", alignItems="start")
    return request(root, min_w=375, max_w=375, max_h=None)


def deep(levels=1000, align="start", seed=3003):
    rng = random.Random(seed)
    leaves = [(10 + rng.randint(0, 6) * 5, 4 + rng.randint(0, 2)) for _ in range(levels)]
    # build bottom-up, iteratively (no recursion)
    w, h = leaves[levels - 1]
    cur = stack("vertical", [node(w, h)], id=f"s{levels - 1}", alignItems=align)
    for i in range(levels - 2, -1, -1):
        w, h = leaves[i]
        leaf = node(w, h, id=f"leaf{i}") if i % 100 == 0 else node(w, h)
        cur = stack("vertical", [inset(cur, 1, 0.125, 1, 0.125), leaf],
                    id=f"s{i}" if i % 100 == 0 else None, alignItems=align, spacing=1)
    return request(cur, max_w=375, max_h=None)


def wrap(n=5000, seed=4004):
    rng = random.Random(seed)
    kids = []
    for i in range(n):
        e = node(rng.randint(20, 120), rng.randint(10, 40))
        if i % 500 == 0:
            e["id"] = f"r{i}"
        kids.append(e)
    root = stack("horizontal", kids, id="wrap", flexWrap="wrap", spacing=4, lineSpacing=4,
                 alignItems="start", alignContent="start", justifyContent="start")
    return request(root, max_w=375, max_h=None)


def balanced(depth=6, branching=5, seed=5005):
    rng = random.Random(seed)
    counter = [0]

    def build(level, direction):
        counter[0] += 1
        my_id = f"b{counter[0]}"
        if level == depth:
            return {"type": "node", "style": {"width": rng.randint(4, 12), "height": rng.randint(4, 12),
                                              "flexGrow": 1, "flexShrink": 1}}
        nxt = "vertical" if direction == "horizontal" else "horizontal"
        kids = [build(level + 1, nxt) for _ in range(branching)]
        e = stack(direction, kids, style={"flexGrow": 1, "flexShrink": 1})
        if level <= 2:
            e["id"] = my_id
        return e

    root = build(0, "vertical")
    return request(root, min_w=375, max_w=375, min_h=812, max_h=812)


def cell(seed=6006):
    """A single cell with text (~2 KB), for the HTTP load tests. Contains CELL_VARY_MARKER once."""
    rng = random.Random(seed)
    c = feed_cell(7, rng, with_text=True)
    # The varying node for the cache-miss test: a small "unread" dot next to the name.
    header = c["child"]["children"][0]
    header["children"].append({"type": "node", "id": "unread",
                               "style": {"width": float(CELL_VARY_MARKER), "height": 8}})
    content = c["child"]["children"]
    content.insert(len(content) - 1, {"type": "text", "id": "likes",
                                      "text": "Liked by mountain_coffee and 128 others",
                                      "font": {"family": "Roboto", "size": 13}})
    return request(c, max_w=375, max_h=None)


# --------------------------------------------------------------------------- Yoga form
# The six synthetic shapes again, as one Yoga tree each (`yogaChildren`, docs/yoga.md §7):
# same seeds, sizes and counts, spacing written as margins (Yoga has no gap). Scale 1 and
# whole-point sizes, so that Loom's Yoga engine, Yoga (poga) and Taffy (stretchable) can be
# checked to agree on every frame (bench/peers.py --frames).

def ynode(id=None, children=None, **style):
    e = {"type": "node"}
    if id:
        e["id"] = id
    if style:
        e["style"] = style
    if children:
        e["yogaChildren"] = children
    return e


def yoga_request(root, **kw):
    req = request(root, **kw)
    req["scale"] = 1
    return req


def yoga_feed(seed=1001, cells=100):
    rng = random.Random(seed)
    out = []
    for i in range(cells):
        avatar = {"type": "image", "id": f"avatar-{i}", "intrinsicSize": {"width": 40, "height": 40},
                  "url": f"https://img.example/a/{i}.jpg", "style": {"margin": {"right": 10}}}
        name = ynode(f"name-{i}", width=rng.choice([90, 120, 160, 220, 320]), height=16, flexShrink=1)
        handle = ynode(width=rng.choice([60, 80, 100]), height=12, margin={"top": 4})
        names = ynode(children=[name, handle], alignItems="start", flexGrow=1, flexShrink=1)
        header = ynode(children=[avatar, names], flexDirection="horizontal",
                       alignItems=ALIGN[i % 3], justifyContent="start")
        rng.choice([608, 810, 1080, 1350])       # feed's photo pixel height: same draws as feed
        ratio = rng.choice([0.5625, 0.75, 1, 1.25])
        badge_w = rng.choice([24, 32, 48])
        # the photo box: full width, its aspect ratio (width ÷ height), a badge pinned to its top right
        photo = ynode(f"photo-{i}", width="100%", aspectRatio=1 / ratio, margin={"top": 8},
                      children=[ynode(f"badge-{i}" if i % 4 == 0 else None, width=badge_w, height=20,
                                      positionType="absolute", position={"top": 0, "right": 0})])
        spacing = rng.choice([0, 8, 16])
        actions = ynode(children=[
            ynode(f"like-{i}", width=20, height=20),
            ynode(flexGrow=1, flexShrink=1, margin={"left": spacing}),
            ynode(width=rng.choice([20, 24, 28]), height=20, margin={"left": spacing}),
        ], flexDirection="horizontal", justifyContent=JUSTIFY[i % len(JUSTIFY)],
            alignItems=ALIGN[(i + 1) % len(ALIGN)], margin={"top": 8})
        out.append(ynode(f"cell-{i}", children=[header, photo, actions],
                         padding={"top": 12, "left": 16, "bottom": 12, "right": 16}))
    return yoga_request(ynode("feed", children=out), max_w=375, max_h=None)


def yoga_wide(n=10000, seed=2002):
    rng = random.Random(seed)
    kids = []
    for i in range(n):
        st = {"width": rng.randint(8, 48), "height": rng.randint(10, 40), "flexShrink": 1}
        if i % 2 == 0:
            st["flexGrow"] = 1
        kids.append(ynode(f"w{i}" if i % 1000 == 0 else None, **st))
    return yoga_request(ynode("wide", children=kids, flexDirection="horizontal", alignItems="start"),
                        min_w=375, max_w=375, max_h=None)


def yoga_deep(levels=1000, align="start", seed=3003):
    rng = random.Random(seed)
    leaves = [(10 + rng.randint(0, 6) * 5, 4 + rng.randint(0, 2)) for _ in range(levels)]
    w, h = leaves[levels - 1]
    cur = ynode(f"s{levels - 1}", children=[ynode(width=w, height=h)], alignItems=align)
    for i in range(levels - 2, -1, -1):
        w, h = leaves[i]
        leaf = ynode(f"leaf{i}" if i % 100 == 0 else None, width=w, height=h, margin={"top": 1})
        pad = ynode(children=[cur], padding={"vertical": 1})       # the inset, as a padding box
        cur = ynode(f"s{i}" if i % 100 == 0 else None, children=[pad, leaf], alignItems=align)
    return yoga_request(cur, max_w=375, max_h=None)


def yoga_wrap(n=5000, seed=4004):
    rng = random.Random(seed)
    kids = []
    for i in range(n):
        kids.append(ynode(f"r{i}" if i % 500 == 0 else None, width=rng.randint(20, 120),
                          height=rng.randint(10, 40), margin={"right": 4, "bottom": 4}))
    return yoga_request(ynode("wrap", children=kids, flexDirection="horizontal", flexWrap="wrap",
                              alignItems="start", justifyContent="start"), max_w=375, max_h=None)


def yoga_balanced(depth=6, branching=5, seed=5005):
    rng = random.Random(seed)
    counter = [0]

    def build(level, direction):
        counter[0] += 1
        my_id = f"b{counter[0]}"
        if level == depth:
            return ynode(width=rng.randint(4, 12), height=rng.randint(4, 12), flexGrow=1, flexShrink=1)
        nxt = "vertical" if direction == "horizontal" else "horizontal"
        kids = [build(level + 1, nxt) for _ in range(branching)]
        return ynode(my_id if level <= 2 else None, children=kids, flexDirection=direction,
                     flexGrow=1, flexShrink=1)

    return yoga_request(build(0, "vertical"), min_w=375, max_w=375, min_h=812, max_h=812)


TREES = {
    "feed": lambda: feed(),
    "feed_changed": lambda: feed(changed_cell=50),
    "feedtext": lambda: feed(with_text=True),
    "wide": wide,
    "deep": lambda: deep(align="start"),
    "deepstretch": lambda: deep(align="stretch"),
    "wrap": wrap,
    "balanced": balanced,
    "cell": cell,
    "yoga_feed": yoga_feed,
    "yoga_wide": yoga_wide,
    "yoga_deep": lambda: yoga_deep(align="start"),
    "yoga_deepstretch": lambda: yoga_deep(align="stretch"),
    "yoga_wrap": yoga_wrap,
    "yoga_balanced": yoga_balanced,
}


def encode(name, req):
    if name == "cell":
        return json.dumps(req, ensure_ascii=False) + "\n"
    return json.dumps(req, separators=(",", ":"), ensure_ascii=False) + "\n"


def build_all(names):
    for name in names:
        req = TREES[name]()
        ids = collect_ids(req["root"])
        assert len(ids) == len(set(ids)), f"{name}: duplicate ids"
        yield name, req


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default bench/trees)")
    ap.add_argument("--only", default="", help="comma-separated tree names (default: all)")
    ap.add_argument("--check", action="store_true", help="compare with the files in --out, write nothing")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)

    names = [n for n in args.only.split(",") if n] or list(TREES)
    unknown = [n for n in names if n not in TREES]
    if unknown:
        ap.error(f"unknown tree(s): {', '.join(unknown)}; known: {', '.join(TREES)}")

    os.makedirs(args.out, exist_ok=True)
    too_big = []
    mismatches = []
    rows = []
    for name, req in build_all(names):
        text = encode(name, req)
        data = text.encode("utf-8")
        path = os.path.join(args.out, f"{name}.json")
        # validate: parses back to the same object
        assert json.loads(text) == req
        if name == "cell":
            assert text.count(CELL_VARY_MARKER) == 1, "cache-miss marker must occur exactly once"
        if len(data) > MAX_COMMITTED_BYTES:
            too_big.append(f"{name}.json")
        if args.check:
            try:
                with open(path, "rb") as f:
                    if f.read() != data:
                        mismatches.append(name)
            except FileNotFoundError:
                mismatches.append(name + " (missing)")
        else:
            tmp = path + ".tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        rows.append((name, count_elements(req["root"]), max_depth(req["root"]), len(data)))

    if not args.check:
        gi = os.path.join(args.out, ".gitignore")
        if too_big:
            with open(gi, "w") as f:
                f.write("# generated at bench time by gen_trees.py (larger than 2 MB)\n")
                f.write("".join(t + "\n" for t in sorted(too_big)))
        elif os.path.exists(gi) and not args.only:
            os.remove(gi)

    if not args.quiet:
        print(f"{'tree':<14}{'elements':>10}{'depth':>8}{'bytes':>11}")
        for name, n, d, size in rows:
            print(f"{name:<14}{n:>10}{d:>8}{size:>11}")
        print(f"written to {args.out}" if not args.check else f"checked {args.out}")
    if mismatches:
        print("MISMATCH: " + ", ".join(mismatches), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
