#!/usr/bin/env python3
"""Lay out the benchmark trees with Taffy (PyPI `stretchable`) and Yoga (PyPI `poga`).

    python3 bench/peers.py --setup                  # once: bench/.venv with the pinned peers
    python3 bench/peers.py                          # every tree in bench/trees, both engines
    python3 bench/peers.py --tree feed --tree deep --engines taffy --runs 30
    python3 bench/peers.py --tree /some/file.json --budget 60

Output: one JSON line per tree per engine on stdout,
    {"tree": "feed", "engine": "taffy", "nodes": 1501, "runs": 15,
     "median_ms": 0.41, "p90_ms": 0.45, "status": "ok", ...}
and a timed-out pair as
    {"tree": "deep", "engine": "yoga", "nodes": 2999, "status": "timeout",
     "median_ms": null, "p90_ms": null, "runs": <runs finished>, "budget_s": 20, ...}

What is timed: only the engine's layout call (Taffy `node_compute_layout_with_measure`,
the call under stretchable's `Node.compute_layout`; Yoga `YGNodeCalculateLayout`) on a
tree whose layout caches were invalidated beforehand (Taffy: every node marked dirty;
Yoga: YGNodeMarkDirtyAndPropogateToDescendants), i.e. a cold layout of the whole tree
as Loom does for a cache miss. Reading the JSON, building the engine's tree and copying
results back to Python are not timed. `N` timed runs follow `--warmup` untimed runs;
median and p90 are over the timed runs (p90 by nearest rank).

Every (tree, engine) pair runs in its own worker process, with a wall-clock budget
(--budget, default 20 s) that starts after the tree is built; a pair that exceeds it is
killed and reported as "timeout" (Yoga 1.19 re-measures nested containers on every level,
so `deep` grows geometrically with the depth and never finishes).

Mapping of Texture's specs to flexbox (the point is the same amount of work, not the
same frames; Taffy and Yoga implement CSS flexbox, not Texture's stack):
  stack       -> flex container: direction -> flexDirection (row/column), justifyContent,
                 alignItems (baseline* -> baseline), flexWrap, alignContent;
                 spacing/lineSpacing -> gap (Taffy) / leading margins (Yoga 1.19 has no gap),
                 horizontal/verticalAlignment resolved to justify/align as Texture does.
  style       -> width/height/min*/max* (points or percent), preferredSize/minSize/maxSize,
                 flexGrow/flexShrink (Texture's default 0 set explicitly), flexBasis,
                 alignSelf, spacingBefore/After -> main-axis margins.
  inset       -> a column box with padding (an "inf" side -> 0 padding and the child pinned
                 to the opposite side with justify/align).
  overlay/background -> a box holding the child, plus the overlay/background absolutely
                 positioned at inset 0 (background first).
  ratio       -> a box with aspect-ratio width/height = 1/ratio, child filling it (and
                 width 100% in a vertical stack, where Texture gives it the column's width).
  center/relative -> a box with justify/align from the centering/position options.
  absolute    -> a box; children absolutely positioned at layoutPosition.
  corner      -> a box with the child, the corner absolutely positioned at the corner.
  wrapper     -> a box; children absolutely positioned at (0, 0).
  spacer, node (plain) -> a leaf box; node with "layout" -> a box holding the layout.
  image/node with intrinsicSize -> a leaf with that width/height (filling instead when it
                 is the child of a ratio/overlay/background, which hand it an exact size).
  text/button -> a leaf with a measure function written in Python: a crude estimate
                 (0.52 em per character, 1.2 em lines, wrapped to the offered width, capped by
                 maximumNumberOfLines). No shaping: real text measurement would cost more, so
                 the peers' `feedtext` numbers are a lower bound. The Python callback's own
                 cost IS inside the timed call, as it would be for a real measurer.
  sizeRange   -> root min/max size; available space = max (unbounded -> max-content).
Rounding is on in both engines (Taffy rounds to whole points, Yoga to 1/scale), since
Loom rounds every frame to the pixel grid too.
"""
import argparse
import json
import math
import os
import selectors
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TREES = os.path.join(HERE, "trees")
VENV = os.path.join(HERE, ".venv")
VENV_PY = os.path.join(VENV, "bin", "python")
PEER_PACKAGES = ["-r", os.path.join(HERE, "requirements-peers.txt")]
DEFAULT_ORDER = ["feed", "feed_changed", "feedtext", "wide", "deep", "deepstretch",
                 "wrap", "balanced", "cell", "yoga_feed", "yoga_wide", "yoga_deep",
                 "yoga_deepstretch", "yoga_wrap", "yoga_balanced"]
ENGINES = ["taffy", "yoga"]

sys.setrecursionlimit(1000000)
INF = float("inf")


# =========================================================================== tree files

def tree_path(spec, trees_dir):
    """A tree name ("feed") or a path; generates a missing bench tree on demand."""
    if os.path.sep in spec or spec.endswith(".json"):
        return os.path.abspath(spec)
    path = os.path.join(trees_dir, spec + ".json")
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_trees.py"), "--out", trees_dir,
                        "--only", spec, "--quiet"], check=True)
    return path


def tree_name(path):
    return os.path.splitext(os.path.basename(path))[0]


def list_trees(trees_dir):
    if not os.path.isdir(trees_dir) or not any(f.endswith(".json") for f in os.listdir(trees_dir)):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_trees.py"), "--out", trees_dir,
                        "--quiet"], check=True)
    names = [f[:-5] for f in os.listdir(trees_dir) if f.endswith(".json")]
    order = {n: i for i, n in enumerate(DEFAULT_ORDER)}
    return sorted(names, key=lambda n: (order.get(n, len(order)), n))


def count_elements(el):
    n, stack = 0, [el]
    while stack:
        e = stack.pop()
        n += 1
        stack.extend(e.get("children", ()))
        stack.extend(e.get("yogaChildren", ()))
        for k in ("child", "overlay", "background", "corner", "layout"):
            if k in e:
                stack.append(e[k])
    return n


def percentile(sorted_vals, p):
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_vals:
        return None
    k = max(0, math.ceil(p / 100.0 * len(sorted_vals)) - 1)
    return sorted_vals[k]


# =========================================================================== neutral flexbox tree

class Box:
    """An engine-neutral flexbox node."""
    __slots__ = ("s", "children", "text", "intrinsic")

    def __init__(self, **style):
        self.s = style          # neutral style keys, see Converter
        self.children = []
        self.text = None        # (nchars, font_size, line_height, max_lines) for measured leaves
        self.intrinsic = None   # (w, h): a measured Yoga leaf with an intrinsic size


def parse_dim(v):
    """Wire Dimension -> None (auto) | ("pt", x) | ("pct", fraction)."""
    if v is None or v == "auto":
        return None
    if isinstance(v, str):
        v = v.strip()
        if v.endswith("%"):
            return ("pct", float(v[:-1]) / 100.0)
        return ("pt", float(v))
    return ("pt", float(v))


def inset_value(v):
    if isinstance(v, str):
        return INF if v.strip().lower() in ("inf", "infinity") else float(v)
    return float(v)


JUSTIFY = {"start": "start", "center": "center", "end": "end",
           "spaceBetween": "space-between", "spaceAround": "space-around"}
ALIGN = {"start": "start", "end": "end", "center": "center", "stretch": "stretch",
         "baselineFirst": "baseline", "baselineLast": "baseline"}
ALIGN_SELF = {"auto": None, "start": "start", "end": "end", "center": "center", "stretch": "stretch"}
ALIGN_CONTENT = {"start": "start", "center": "center", "end": "end",
                 "spaceBetween": "space-between", "spaceAround": "space-around", "stretch": "stretch"}
POS = {"none": "start", "start": "start", "center": "center", "end": "end"}


class Converter:
    """Wire-format Element tree -> Box tree (iterative where depth matters)."""

    def __init__(self):
        self.count = 0

    def style_of(self, el, box, parent_dir=None, fill=False):
        st = el.get("style") or {}
        s = box.s
        s.setdefault("grow", 0.0)
        s.setdefault("shrink", 0.0)
        for key, val in st.items():
            if key in ("width", "height", "minWidth", "maxWidth", "minHeight", "maxHeight"):
                s[key] = parse_dim(val)
            elif key in ("preferredSize", "preferredFrameSize"):
                s["width"] = parse_dim(val.get("width"))
                s["height"] = parse_dim(val.get("height"))
            elif key == "minSize":
                s["minWidth"] = parse_dim(val.get("width"))
                s["minHeight"] = parse_dim(val.get("height"))
            elif key == "maxSize":
                s["maxWidth"] = parse_dim(val.get("width"))
                s["maxHeight"] = parse_dim(val.get("height"))
            elif key == "sizeRange":
                mn, mx = val.get("min", {}), val.get("max", {})
                s["minWidth"], s["minHeight"] = parse_dim(mn.get("width")), parse_dim(mn.get("height"))
                s["maxWidth"], s["maxHeight"] = parse_dim(mx.get("width")), parse_dim(mx.get("height"))
            elif key == "flexGrow":
                s["grow"] = float(val)
            elif key == "flexShrink":
                s["shrink"] = float(val)
            elif key == "flexBasis":
                s["basis"] = parse_dim(val)
            elif key == "alignSelf":
                s["alignSelf"] = ALIGN_SELF.get(val)
            elif key in ("spacingBefore", "spacingAfter") and parent_dir:
                row = parent_dir == "row"
                edge = {("spacingBefore", True): "ml", ("spacingAfter", True): "mr",
                        ("spacingBefore", False): "mt", ("spacingAfter", False): "mb"}[(key, row)]
                s[edge] = s.get(edge, 0.0) + float(val)
        if fill:
            s["alignSelf"] = "stretch"
            s["grow"] = 1.0
            s["shrink"] = 1.0

    def convert(self, root_el):
        """Returns the root Box. Iterative: an explicit work stack of (element, parent box,
        parent direction, fill)."""
        if root_el.get("yogaChildren"):
            return self.convert_yoga(root_el)
        root_holder = Box()
        work = [(root_el, root_holder, None, False)]
        while work:
            el, parent, pdir, fill = work.pop()
            box, kids = self.make(el, pdir, fill)
            parent.children.append(box)
            # push children reversed so that they are appended in order
            for item in reversed(kids):
                work.append(item)
        return root_holder.children[0]

    def convert_yoga(self, root_el):
        """A Yoga tree (`yogaChildren`, the bench's yoga_* trees) maps one to one: each node
        is a box with its own flexbox style. Supported: what those trees use (row/column,
        justify/align, wrap, sizes, flex factors, aspect ratio, margin/padding/position edges in
        points, absolute children, images with an intrinsic size as measured leaves)."""
        root_holder = Box()
        work = [(root_el, root_holder)]
        while work:
            el, parent = work.pop()
            self.count += 1
            box = Box()
            st = el.get("style") or {}
            s = box.s
            s.update(grow=0.0, shrink=0.0)
            kids = el.get("yogaChildren") or ()
            if kids:
                s.update(dir={"vertical": "column", "horizontal": "row"}[st.get("flexDirection", "vertical")],
                         justify=JUSTIFY[st.get("justifyContent", "start")],
                         align=ALIGN[st.get("alignItems", "stretch")],
                         wrap=st.get("flexWrap", "noWrap") == "wrap")
            elif "intrinsicSize" in el:
                box.intrinsic = (float(el["intrinsicSize"]["width"]), float(el["intrinsicSize"]["height"]))
            for key, val in st.items():
                if key in ("width", "height", "minWidth", "maxWidth", "minHeight", "maxHeight"):
                    s[key] = parse_dim(val)
                elif key == "flexGrow":
                    s["grow"] = float(val)
                elif key == "flexShrink":
                    s["shrink"] = float(val)
                elif key == "flexBasis":
                    s["basis"] = parse_dim(val)
                elif key == "alignSelf":
                    s["alignSelf"] = ALIGN_SELF[val]
                elif key == "aspectRatio":
                    s["aspect"] = float(val)
                elif key == "positionType":
                    s["abs"] = val == "absolute"
                elif key in ("margin", "padding", "position"):
                    for side in ("top", "left", "bottom", "right"):
                        axis = "vertical" if side in ("top", "bottom") else "horizontal"
                        v = val.get(side, val.get(axis, val.get("all")))
                        if v is not None:
                            name = side if key == "position" else {"margin": "m", "padding": "p"}[key] + side[0]
                            s[name] = float(v)
            parent.children.append(box)
            for c in reversed(kids):
                work.append((c, box))
        root = root_holder.children[0]
        stack = list(root.children)
        while stack:
            b = stack.pop()
            b.s.setdefault("minWidth", ("pt", 0.0))
            b.s.setdefault("minHeight", ("pt", 0.0))
            stack.extend(b.children)
        root.s["yogaRoot"] = True
        return root

    def make(self, el, pdir, fill):
        """Returns (box, [(child_el, box, dir, fill), ...])."""
        self.count += 1
        t = el.get("type")
        box = Box()
        s = box.s
        kids = []
        if t == "stack":
            direction = "row" if el.get("direction", "horizontal") == "horizontal" else "column"
            justify = el.get("justifyContent", "start")
            align = el.get("alignItems", "stretch")
            ha, va = el.get("horizontalAlignment", "none"), el.get("verticalAlignment", "none")
            hmap = {"left": "start", "middle": "center", "right": "end"}
            vmap = {"top": "start", "center": "center", "bottom": "end"}
            if ha in hmap:
                if direction == "row":
                    justify = hmap[ha]
                else:
                    align = hmap[ha]
            if va in vmap:
                if direction == "row":
                    align = vmap[va]
                else:
                    justify = vmap[va]
            s.update(dir=direction, justify=JUSTIFY.get(justify, "start"),
                     align=ALIGN.get(align, "stretch"),
                     wrap=el.get("flexWrap", "noWrap") == "wrap",
                     alignContent=ALIGN_CONTENT.get(el.get("alignContent", "start"), "start"),
                     gap=float(el.get("spacing", 0) or 0),
                     lineGap=float(el.get("lineSpacing", 0) or 0))
            for c in el.get("children", ()):
                kids.append((c, box, direction, False))
        elif t == "inset":
            ins = el.get("insets", {})
            top, left = inset_value(ins.get("top", 0)), inset_value(ins.get("left", 0))
            bottom, right = inset_value(ins.get("bottom", 0)), inset_value(ins.get("right", 0))
            s.update(dir="column", justify="start", align="stretch",
                     pt=0.0 if top == INF else top, pl=0.0 if left == INF else left,
                     pb=0.0 if bottom == INF else bottom, pr=0.0 if right == INF else right)
            if top == INF and bottom == INF:
                s["justify"] = "center"
            elif top == INF:
                s["justify"] = "end"
            if left == INF and right == INF:
                s["align"] = "center"
            elif left == INF:
                s["align"] = "end"
            elif right == INF:
                s["align"] = "start"
            if "child" in el:
                kids.append((el["child"], box, "column", False))
        elif t in ("overlay", "background"):
            s.update(dir="column", justify="start", align="stretch")
            other = el.get(t)
            if t == "background" and other is not None:
                kids.append((other, box, "column", "abs"))
            if "child" in el:   # overlay/background are as exact as their own range
                kids.append((el["child"], box, "column", fill is True))
            if t == "overlay" and other is not None:
                kids.append((other, box, "column", "abs"))
        elif t == "ratio":
            r = float(el.get("ratio", 1) or 1)
            s.update(dir="column", justify="start", align="stretch", aspect=1.0 / r)
            if "child" in el:
                kids.append((el["child"], box, "column", True))
        elif t in ("center", "relative"):
            if t == "center":
                opt = el.get("centeringOptions", "none")
                hp = "center" if opt in ("x", "xy") else "start"
                vp = "center" if opt in ("y", "xy") else "start"
            else:
                hp = POS.get(el.get("horizontalPosition", "none"), "start")
                vp = POS.get(el.get("verticalPosition", "none"), "start")
            s.update(dir="row", justify=hp, align=vp)
            if "child" in el:
                kids.append((el["child"], box, "row", False))
        elif t in ("absolute", "static", "wrapper"):
            s.update(dir="column", justify="start", align="start")
            for c in el.get("children", ()):
                kids.append((c, box, "column", "abs"))
        elif t == "corner":
            s.update(dir="column", justify="start", align="stretch")
            if "child" in el:
                kids.append((el["child"], box, "column", False))
            if "corner" in el:
                kids.append((el["corner"], box, "column", "abs"))
        elif t == "node" and "layout" in el:
            s.update(dir="column", justify="start", align="stretch")
            kids.append((el["layout"], box, "column", True))
        elif t in ("text", "button"):
            if t == "text":
                src = el
            else:
                src = el.get("title") or {"text": ""}
            text = src.get("text")
            if text is None:
                text = "".join(sp.get("text", "") for sp in src.get("spans", ()))
            font = src.get("font") or {}
            size = float(font.get("size", 17))
            lh = float(src.get("lineHeight") or round(size * 1.2, 2))
            box.text = (len(text), size, lh, int(src.get("maximumNumberOfLines", 0) or 0))
        elif t in ("image", "node") and "intrinsicSize" in el and fill is not True:
            isz = el["intrinsicSize"]
            s["width"] = ("pt", float(isz.get("width", 0)))
            s["height"] = ("pt", float(isz.get("height", 0)))
        # else: plain node, spacer, image without intrinsic size: an empty leaf
        abs_child = fill == "abs"
        self.style_of(el, box, parent_dir=pdir, fill=(fill is True))
        if t == "ratio" and pdir == "column" and s.get("width") is None and fill is not True:
            # flexbox does not derive a stretched item's height from aspect-ratio; Texture
            # hands the ratio spec the column's exact width, so give it that width.
            s["width"] = ("pct", 1.0)
        if abs_child:
            s["abs"] = True
            if el.get("style", {}).get("layoutPosition"):
                lp = el["style"]["layoutPosition"]
                s.update(left=float(lp.get("x", 0)), top=float(lp.get("y", 0)))
            else:
                s.update(left=0.0, top=0.0, right=0.0, bottom=0.0)
        return box, kids


def apply_gaps_as_margins(root):
    """Yoga 1.19 has no `gap`: spacing becomes a leading margin on every child but the first
    (lineSpacing is dropped)."""
    stack = [root]
    while stack:
        b = stack.pop()
        g = b.s.get("gap", 0.0)
        if g:
            edge = "ml" if b.s.get("dir") == "row" else "mt"
            first = True
            for c in b.children:
                if c.s.get("abs"):
                    continue
                if not first:
                    c.s[edge] = c.s.get(edge, 0.0) + g
                first = False
        stack.extend(b.children)


def text_size(params, avail_w):
    """Crude text measurement: (nchars, size, lineHeight, maxLines), width available -> (w, h)."""
    n, size, lh, max_lines = params
    cw = 0.52 * size
    total = n * cw
    if avail_w is not None and avail_w < total:
        per_line = max(1, int(avail_w // cw))
        lines = -(-n // per_line)
        w = min(total, per_line * cw)
    else:
        lines, w = 1, total
    if max_lines:
        lines = min(lines, max_lines)
    return w, lines * lh


# =========================================================================== Taffy

class TaffyEngine:
    name = "taffy"

    def __init__(self):
        from stretchable import taffylib
        from stretchable.style import Style
        self.t = taffylib
        self.ptr = taffylib.init()
        taffylib.enable_rounding(self.ptr)
        self.base = Style(flex_shrink=0.0).to_dict()
        from stretchable.style import (AlignContent, AlignItems, AlignSelf, FlexDirection,
                                       FlexWrap, JustifyContent, Position)
        self.E = dict(AlignContent=AlignContent, AlignItems=AlignItems, AlignSelf=AlignSelf,
                      FlexDirection=FlexDirection, FlexWrap=FlexWrap,
                      JustifyContent=JustifyContent, Position=Position)
        self.ids = []
        self.text = {}

    @staticmethod
    def dim(d):
        if d is None:
            return {"dim": 0, "value": math.nan}
        return {"dim": 1 if d[0] == "pt" else 2, "value": d[1]}

    @staticmethod
    def lp(v):
        return {"dim": 1, "value": float(v)}

    def style(self, b):
        s, E = b.s, self.E
        d = dict(self.base)
        if "dir" in s:
            d["flex_direction"] = E["FlexDirection"].ROW if s["dir"] == "row" else E["FlexDirection"].COLUMN
            d["justify_content"] = {
                "start": E["JustifyContent"].FLEX_START, "end": E["JustifyContent"].FLEX_END,
                "center": E["JustifyContent"].CENTER, "space-between": E["JustifyContent"].SPACE_BETWEEN,
                "space-around": E["JustifyContent"].SPACE_AROUND}[s.get("justify", "start")]
            d["align_items"] = {
                "start": E["AlignItems"].FLEX_START, "end": E["AlignItems"].FLEX_END,
                "center": E["AlignItems"].CENTER, "stretch": E["AlignItems"].STRETCH,
                "baseline": E["AlignItems"].BASELINE}[s.get("align", "stretch")]
            if s.get("wrap"):
                d["flex_wrap"] = E["FlexWrap"].WRAP
                d["align_content"] = {
                    "start": E["AlignContent"].FLEX_START, "end": E["AlignContent"].FLEX_END,
                    "center": E["AlignContent"].CENTER, "stretch": E["AlignContent"].STRETCH,
                    "space-between": E["AlignContent"].SPACE_BETWEEN,
                    "space-around": E["AlignContent"].SPACE_AROUND}[s.get("alignContent", "start")]
            gap, line_gap = s.get("gap", 0.0), s.get("lineGap", 0.0)
            if gap or line_gap:
                main, cross = self.lp(gap), self.lp(line_gap)
                d["gap"] = {"width": main, "height": cross} if s["dir"] == "row" else {"width": cross, "height": main}
        if any(k in s for k in ("pt", "pl", "pb", "pr")):
            d["padding"] = {"top": self.lp(s.get("pt", 0)), "right": self.lp(s.get("pr", 0)),
                            "bottom": self.lp(s.get("pb", 0)), "left": self.lp(s.get("pl", 0))}
        if any(k in s for k in ("mt", "ml", "mb", "mr")):
            d["margin"] = {"top": self.lp(s.get("mt", 0)), "right": self.lp(s.get("mr", 0)),
                           "bottom": self.lp(s.get("mb", 0)), "left": self.lp(s.get("ml", 0))}
        d["size"] = {"width": self.dim(s.get("width")), "height": self.dim(s.get("height"))}
        d["min_size"] = {"width": self.dim(s.get("minWidth")), "height": self.dim(s.get("minHeight"))}
        d["max_size"] = {"width": self.dim(s.get("maxWidth")), "height": self.dim(s.get("maxHeight"))}
        d["flex_grow"] = s.get("grow", 0.0)
        d["flex_shrink"] = s.get("shrink", 0.0)
        if s.get("basis") is not None:
            d["flex_basis"] = self.dim(s["basis"])
        if s.get("alignSelf"):
            d["align_self"] = {"start": E["AlignSelf"].FLEX_START, "end": E["AlignSelf"].FLEX_END,
                               "center": E["AlignSelf"].CENTER,
                               "stretch": E["AlignSelf"].STRETCH}[s["alignSelf"]]
        if "aspect" in s:
            d["aspect_ratio"] = s["aspect"]
        if s.get("abs"):
            d["position"] = E["Position"].ABSOLUTE
            none = {"dim": 0, "value": math.nan}
            d["inset"] = {k: (self.lp(s[k]) if k in s else none) for k in ("top", "right", "bottom", "left")}
        return d

    def build(self, root_box, size_range):
        t, ptr = self.t, self.ptr
        # iterative post-order: create children before adding them to the parent
        root_box.s.setdefault("minWidth", ("pt", size_range[0]))
        root_box.s.setdefault("minHeight", ("pt", size_range[1]))
        if root_box.s.get("yogaRoot"):
            # Texture: the range's min is the root's min; Yoga takes the range's max as the
            # root's exact size on an axis without a style size or max (docs/yoga.md §2)
            rs = root_box.s
            for axis, mx in (("width", size_range[2]), ("height", size_range[3])):
                k = "max" + axis.capitalize()
                if mx is not None and rs.get(axis) is None and rs.get(k) is None:
                    rs[axis] = ("pt", float(mx))
        else:
            if size_range[2] is not None:
                root_box.s.setdefault("maxWidth", ("pt", size_range[2]))
            if size_range[3] is not None:
                root_box.s.setdefault("maxHeight", ("pt", size_range[3]))
        self.children = {}
        created = {}
        stack = [(root_box, False)]
        while stack:
            b, expanded = stack.pop()
            if not expanded:
                stack.append((b, True))
                for c in b.children:
                    stack.append((c, False))
                continue
            nid = t.node_create(ptr, self.style(b))
            self.ids.append(nid)
            if b.text is not None or b.intrinsic is not None:
                t.node_set_measure(ptr, nid, True)
                self.text[nid] = b.text if b.text is not None else ("intrinsic",) + b.intrinsic
            kids = self.children[nid] = []
            for c in b.children:
                kids.append(created.pop(id(c)))
                t.node_add_child(ptr, nid, kids[-1])
            created[id(b)] = nid
        self.root = created[id(root_box)]
        mw, mh = size_range[2], size_range[3]
        self.avail = {"width": {"dim": 1, "value": float(mw)} if mw is not None else {"dim": 4, "value": math.nan},
                      "height": {"dim": 1, "value": float(mh)} if mh is not None else {"dim": 4, "value": math.nan}}
        text = self.text

        calls = self.calls = [0]

        def measure(known_w, known_h, avail_w, avail_h, ctx):
            calls[0] += 1
            p = text.get(ctx)
            if p is None:
                return (0.0, 0.0)
            if p[0] == "intrinsic":         # Texture: the intrinsic size within the range offered
                sz = []
                for known, avail, v in ((known_w, avail_w, p[1]), (known_h, avail_h, p[2])):
                    if known == known:
                        sz.append(known)
                    else:
                        sz.append(min(v, avail["value"]) if avail["dim"] == 1 else v)
                return tuple(sz)
            if known_w == known_w:          # not NaN: width already decided
                w = known_w
                _, h = text_size(p, known_w)
            else:
                dim = avail_w["dim"]
                aw = avail_w["value"] if dim == 1 else (0.0 if dim == 3 else None)
                w, h = text_size(p, aw)
            if known_h == known_h:
                h = known_h
            return (w, h)
        self.measure = measure
        return len(self.ids)

    def invalidate(self):
        t, ptr = self.t, self.ptr
        for nid in self.ids:
            t.node_mark_dirty(ptr, nid)

    def layout(self):
        ok = self.t.node_compute_layout_with_measure(self.ptr, self.root, self.avail, self.measure)
        if not ok:
            raise RuntimeError("taffy: compute_layout failed")

    def root_size(self):
        lay = self.t.PyLayout()
        self.t.node_get_layout(self.ptr, self.root, lay)
        return [lay.width, lay.height]

    def frames(self):
        """Absolute (x, y, w, h) of every node, pre-order; the root at (0, 0)."""
        t, ptr, out = self.t, self.ptr, []
        work = [(self.root, None, None)]
        while work:
            nid, ox, oy = work.pop()
            lay = t.PyLayout()
            t.node_get_layout(ptr, nid, lay)
            x, y = (0.0, 0.0) if ox is None else (ox + lay.x, oy + lay.y)
            out.append((x, y, lay.width, lay.height))
            work.extend((c, x, y) for c in reversed(self.children[nid]))
        return out


# =========================================================================== Yoga

class YogaEngine:
    name = "yoga"

    def __init__(self, scale=2.0):
        import poga.libpoga_capi as y
        self.y = y
        self.config = y.YGConfigNew()
        y.YGConfigSetPointScaleFactor(self.config, float(scale))
        self.nodes = []
        self.calls = [0]

    def apply(self, n, b):
        y, s = self.y, b.s
        if "dir" in s:
            y.YGNodeStyleSetFlexDirection(n, y.YGFlexDirection.Row if s["dir"] == "row" else y.YGFlexDirection.Column)
            y.YGNodeStyleSetJustifyContent(n, {
                "start": y.YGJustify.FlexStart, "end": y.YGJustify.FlexEnd, "center": y.YGJustify.Center,
                "space-between": y.YGJustify.SpaceBetween, "space-around": y.YGJustify.SpaceAround,
            }[s.get("justify", "start")])
            y.YGNodeStyleSetAlignItems(n, {
                "start": y.YGAlign.FlexStart, "end": y.YGAlign.FlexEnd, "center": y.YGAlign.Center,
                "stretch": y.YGAlign.Stretch, "baseline": y.YGAlign.Baseline}[s.get("align", "stretch")])
            if s.get("wrap"):
                y.YGNodeStyleSetFlexWrap(n, y.YGWrap.Wrap)
                y.YGNodeStyleSetAlignContent(n, {
                    "start": y.YGAlign.FlexStart, "end": y.YGAlign.FlexEnd, "center": y.YGAlign.Center,
                    "stretch": y.YGAlign.Stretch, "space-between": y.YGAlign.SpaceBetween,
                    "space-around": y.YGAlign.SpaceAround}[s.get("alignContent", "start")])
        E = y.YGEdge
        for k, edge in (("pt", E.Top), ("pl", E.Left), ("pb", E.Bottom), ("pr", E.Right)):
            if s.get(k):
                y.YGNodeStyleSetPadding(n, edge, float(s[k]))
        for k, edge in (("mt", E.Top), ("ml", E.Left), ("mb", E.Bottom), ("mr", E.Right)):
            if s.get(k):
                y.YGNodeStyleSetMargin(n, edge, float(s[k]))
        for key, pt, pct in (("width", y.YGNodeStyleSetWidth, y.YGNodeStyleSetWidthPercent),
                             ("height", y.YGNodeStyleSetHeight, y.YGNodeStyleSetHeightPercent),
                             ("minWidth", y.YGNodeStyleSetMinWidth, y.YGNodeStyleSetMinWidthPercent),
                             ("minHeight", y.YGNodeStyleSetMinHeight, y.YGNodeStyleSetMinHeightPercent),
                             ("maxWidth", y.YGNodeStyleSetMaxWidth, y.YGNodeStyleSetMaxWidthPercent),
                             ("maxHeight", y.YGNodeStyleSetMaxHeight, y.YGNodeStyleSetMaxHeightPercent)):
            d = s.get(key)
            if d is not None:
                (pt if d[0] == "pt" else pct)(n, d[1] if d[0] == "pt" else d[1] * 100.0)
        y.YGNodeStyleSetFlexGrow(n, float(s.get("grow", 0.0)))
        y.YGNodeStyleSetFlexShrink(n, float(s.get("shrink", 0.0)))
        basis = s.get("basis")
        if basis is not None:
            if basis[0] == "pt":
                y.YGNodeStyleSetFlexBasis(n, basis[1])
            else:
                y.YGNodeStyleSetFlexBasisPercent(n, basis[1] * 100.0)
        if s.get("alignSelf"):
            y.YGNodeStyleSetAlignSelf(n, {"start": y.YGAlign.FlexStart, "end": y.YGAlign.FlexEnd,
                                          "center": y.YGAlign.Center,
                                          "stretch": y.YGAlign.Stretch}[s["alignSelf"]])
        if "aspect" in s:
            y.YGNodeStyleSetAspectRatio(n, float(s["aspect"]))
        if s.get("abs"):
            y.YGNodeStyleSetPositionType(n, y.YGPositionType.Absolute)
            for k, edge in (("top", E.Top), ("left", E.Left), ("bottom", E.Bottom), ("right", E.Right)):
                if k in s:
                    y.YGNodeStyleSetPosition(n, edge, float(s[k]))

    def build(self, root_box, size_range):
        y = self.y
        apply_gaps_as_margins(root_box)
        root_box.s.setdefault("minWidth", ("pt", size_range[0]))
        root_box.s.setdefault("minHeight", ("pt", size_range[1]))
        if not root_box.s.get("yogaRoot"):      # a Yoga tree's root gets the range as Texture gives it (§2)
            if size_range[2] is not None:
                root_box.s.setdefault("maxWidth", ("pt", size_range[2]))
            if size_range[3] is not None:
                root_box.s.setdefault("maxHeight", ("pt", size_range[3]))
        self.root = None
        self.children = {}
        stack = [(root_box, None, 0)]
        while stack:
            b, parent, idx = stack.pop()
            n = y.YGNodeNewWithConfig(self.config)
            self.nodes.append(n)
            self.apply(n, b)
            if b.text is not None:
                y.YGNodeSetMeasureFunc(n, self.make_measure(b.text))
            elif b.intrinsic is not None:
                y.YGNodeSetMeasureFunc(n, self.make_intrinsic_measure(b.intrinsic))
            self.children[n] = []
            if parent is None:
                self.root = n
            else:
                y.YGNodeInsertChild(parent, n, idx)
                self.children[parent].append(n)
            # insert children in order: push reversed, they pop in order
            for i in range(len(b.children) - 1, -1, -1):
                stack.append((b.children[i], n, i))
        mw, mh = size_range[2], size_range[3]
        self.avail = (float(mw) if mw is not None else y.YGUndefined,
                      float(mh) if mh is not None else y.YGUndefined)
        return len(self.nodes)

    def make_measure(self, params):
        y = self.y
        undefined = y.YGMeasureMode.Undefined
        exactly = y.YGMeasureMode.Exactly
        YGSize = y.YGSize
        calls = self.calls

        def measure(node, width, wmode, height, hmode):
            calls[0] += 1
            aw = None if wmode == undefined or width != width else width
            w, h = text_size(params, aw)
            if wmode == exactly:
                w = width
            if hmode == exactly:
                h = height
            return YGSize(w, h)
        return measure

    def make_intrinsic_measure(self, size):
        """Texture's measure function for a leaf with an intrinsic size (docs/yoga.md §5.1):
        the size clamped into [exact ? size : 0, undefined ? inf : size] per axis."""
        y = self.y
        exactly, undefined = y.YGMeasureMode.Exactly, y.YGMeasureMode.Undefined
        calls = self.calls

        def measure(node, width, wmode, height, hmode):
            calls[0] += 1
            out = []
            for v, mode, want in ((width, wmode, size[0]), (height, hmode, size[1])):
                out.append(v if mode == exactly else want if mode == undefined else min(v, want))
            return y.YGSize(out[0], out[1])
        return measure

    def frames(self):
        """Absolute (x, y, w, h) of every node, pre-order."""
        y, out = self.y, []
        work = [(self.root, None, None)]
        while work:
            n, ox, oy = work.pop()
            x, t = (0.0, 0.0) if ox is None else (ox + y.YGNodeLayoutGetLeft(n), oy + y.YGNodeLayoutGetTop(n))
            out.append((x, t, y.YGNodeLayoutGetWidth(n), y.YGNodeLayoutGetHeight(n)))
            work.extend((c, x, t) for c in reversed(self.children[n]))
        return out

    def invalidate(self):
        self.y.YGNodeMarkDirtyAndPropogateToDescendants(self.root)

    def layout(self):
        self.y.YGNodeCalculateLayout(self.root, self.avail[0], self.avail[1], self.y.YGDirection.LTR)

    def root_size(self):
        return [self.y.YGNodeLayoutGetWidth(self.root), self.y.YGNodeLayoutGetHeight(self.root)]


# =========================================================================== worker

def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def worker(args):
    t0 = time.perf_counter()
    with open(args.tree, "rb") as f:
        req = json.loads(f.read())
    root_el = req["root"]
    sr = req.get("sizeRange") or {}
    mn, mx = sr.get("min") or {}, sr.get("max") or {}
    size_range = (float(mn.get("width") or 0), float(mn.get("height") or 0),
                  mx.get("width"), mx.get("height"))
    conv = Converter()
    root_box = conv.convert(root_el)
    engine = TaffyEngine() if args.engine == "taffy" else YogaEngine(scale=float(req.get("scale", 2)))
    engine_nodes = engine.build(root_box, size_range)
    emit({"event": "built", "nodes": conv.count, "engine_nodes": engine_nodes,
          "build_s": round(time.perf_counter() - t0, 3)})
    if args.frames:
        engine.layout()
        emit({"event": "frames", "frames": engine.frames()})
        return
    # sanity check that invalidation really forces a full relayout: a cached relayout
    # is much cheaper than the timed cold one.
    for i in range(args.warmup + args.runs):
        engine.invalidate()
        t = time.perf_counter_ns()
        engine.layout()
        ms = (time.perf_counter_ns() - t) / 1e6
        emit({"event": "run", "warm": i < args.warmup, "ms": ms})
    t = time.perf_counter_ns()
    engine.layout()                      # no invalidation: served from the engine's cache
    cached_ms = (time.perf_counter_ns() - t) / 1e6
    per_layout = engine.calls[0] // (args.warmup + args.runs)
    emit({"event": "done", "root_size": engine.root_size(), "cached_ms": cached_ms,
          "measure_calls": per_layout})


def run_worker_thread(args):
    # Deep trees recurse ~3,000 levels inside the engines (C++/Rust) and in Python callbacks;
    # run on a thread with a large stack.
    threading.stack_size(1024 * 1024 * 1024)
    err = []

    def target():
        try:
            worker(args)
        except BaseException as e:       # report, then exit non-zero
            err.append(e)
            import traceback
            traceback.print_exc()
    th = threading.Thread(target=target)
    th.start()
    th.join()
    sys.stdout.flush()
    sys.stderr.flush()
    # skip interpreter teardown: poga's nodes hold Python measure callbacks and abort
    # ("PyThreadState_Get ... finalizing") when they are destroyed during finalization
    os._exit(1 if err else 0)


# =========================================================================== driver

def run_pair(py, tree_file, name, engine, runs, warmup, budget, build_limit):
    cmd = [py, os.path.abspath(__file__), "--worker", "--engine", engine, "--tree-file", tree_file,
           "--runs", str(runs), "--warmup", str(warmup)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    built = None
    done = None
    times, warm_times = [], []
    start = time.monotonic()
    deadline = start + build_limit
    timed_out = False
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        if not sel.select(timeout=min(remaining, 1.0)):
            if proc.poll() is not None:
                break
            continue
        line = proc.stdout.readline()
        if not line:
            break
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("event") == "built":
            built = ev
            deadline = time.monotonic() + budget
        elif ev.get("event") == "run":
            (warm_times if ev["warm"] else times).append(ev["ms"])
        elif ev.get("event") == "done":
            done = ev
    if timed_out:
        proc.kill()
    try:
        _, stderr = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, stderr = proc.communicate()
    sel.close()
    res = {"tree": name, "engine": engine,
           "nodes": built["nodes"] if built else None}
    if done and len(times) == runs:
        st = sorted(times)
        res.update(runs=runs, median_ms=round(statistics.median(st), 4),
                   p90_ms=round(percentile(st, 90), 4), status="ok",
                   min_ms=round(st[0], 4), engine_nodes=built["engine_nodes"],
                   cached_relayout_ms=round(done["cached_ms"], 4),
                   measure_calls_per_layout=done.get("measure_calls", 0),
                   root_size=[round(v, 2) for v in done["root_size"]])
    elif timed_out:
        st = sorted(times)
        res.update(runs=len(times), median_ms=None, p90_ms=None, status="timeout",
                   budget_s=budget if built else build_limit,
                   phase="layout" if built else "build",
                   warmups_finished=len(warm_times))
        if built:
            res["engine_nodes"] = built["engine_nodes"]
        if st:
            res["median_ms_of_finished"] = round(statistics.median(st), 4)
    else:
        tail = (stderr or "").strip().splitlines()[-3:]
        res.update(runs=len(times), median_ms=None, p90_ms=None, status="error",
                   error=" | ".join(tail) or f"exit {proc.returncode}")
    return res


def peer_frames(py, tree_file, engine, budget):
    """One layout of a tree by a peer, its frames: {"status": "ok", "frames": [[x, y, w, h], ...]}
    (absolute, every node in pre-order) or {"status": "timeout" | "error", ...}."""
    cmd = [py, os.path.abspath(__file__), "--worker", "--engine", engine, "--tree-file", tree_file,
           "--frames", "--runs", "0", "--warmup", "0"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=budget)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "budget_s": budget}
    for line in p.stdout.splitlines():
        if line.startswith('{"event": "frames"'):
            return {"status": "ok", "frames": json.loads(line)["frames"]}
    tail = (p.stderr or "").strip().splitlines()[-3:]
    return {"status": "error", "error": " | ".join(tail) or f"exit {p.returncode}"}


def frame_agreement(a, b):
    """(frames compared, frames differing, largest difference in points) of two frame lists."""
    if len(a) != len(b):
        return (min(len(a), len(b)), max(len(a), len(b)), None)
    differing, worst = 0, 0.0
    for fa, fb in zip(a, b):
        if list(fa) != list(fb):
            differing += 1
            worst = max(worst, max(abs(x - y) for x, y in zip(fa, fb)))
    return (len(a), differing, worst)


def check_frames_cli(py, specs, trees_dir, budget):
    """Yoga and Taffy on the yoga_* trees: do they agree on every frame?"""
    for spec in specs:
        path = tree_path(spec, trees_dir)
        res = {e: peer_frames(py, path, e, budget) for e in ENGINES}
        line = {"tree": tree_name(path), **{e: r["status"] for e, r in res.items()}}
        if all(r["status"] == "ok" for r in res.values()):
            n, d, worst = frame_agreement(res["yoga"]["frames"], res["taffy"]["frames"])
            line.update(frames=n, differing=d, max_diff_pt=worst)
        print(json.dumps(line), flush=True)
    return 0


def setup_venv():
    if not os.path.exists(VENV_PY):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    subprocess.run([VENV_PY, "-m", "pip", "install", "-q", *PEER_PACKAGES], check=True)
    subprocess.run([VENV_PY, "-c", "import stretchable, poga; print('peers ok')"], check=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", default=DEFAULT_TREES, help="directory of tree files (default bench/trees)")
    ap.add_argument("--tree", action="append", default=[],
                    help="tree name or JSON file; repeatable (default: every file in --trees)")
    ap.add_argument("--engines", default="taffy,yoga")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--budget", type=float, default=20.0,
                    help="seconds per tree and engine for warm-up + timed runs (default 20)")
    ap.add_argument("--build-limit", type=float, default=300.0,
                    help="seconds allowed to read the tree and build the engine's nodes")
    ap.add_argument("--python", default=None,
                    help="interpreter that has stretchable and poga (default bench/.venv/bin/python)")
    ap.add_argument("--setup", action="store_true", help="create bench/.venv with the peers and exit")
    ap.add_argument("--out", default=None, help="also append the JSON lines to this file")
    # worker mode (internal)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--engine", help=argparse.SUPPRESS)
    ap.add_argument("--tree-file", dest="tree_file", help=argparse.SUPPRESS)
    ap.add_argument("--frames", action="store_true",
                    help="lay each tree out once with both engines and compare their frames (yoga_* trees)")
    args = ap.parse_args(argv)

    if args.worker:
        args.tree = args.tree_file
        return run_worker_thread(args)
    if args.frames:
        py = args.python or (VENV_PY if os.path.exists(VENV_PY) else sys.executable)
        specs = args.tree or [n for n in list_trees(args.trees) if n.startswith("yoga_")]
        return check_frames_cli(py, specs, args.trees, args.budget)
    if args.setup:
        setup_venv()
        return 0

    py = args.python or (VENV_PY if os.path.exists(VENV_PY) else sys.executable)
    engines = [e for e in args.engines.split(",") if e]
    for e in engines:
        if e not in ENGINES:
            ap.error(f"unknown engine {e}")
    specs = args.tree or list_trees(args.trees)
    out = open(args.out, "a") if args.out else None
    for spec in specs:
        path = tree_path(spec, args.trees)
        name = tree_name(path)
        for engine in engines:
            res = run_pair(py, path, name, engine, args.runs, args.warmup, args.budget, args.build_limit)
            line = json.dumps(res)
            print(line, flush=True)
            if out:
                out.write(line + "\n")
                out.flush()
    if out:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
