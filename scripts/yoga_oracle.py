#!/usr/bin/env python3
"""Differential oracle for Loom's Yoga engine: real Yoga (PyPI poga 0.1.19 = Yoga 1.19.0, or
that source patched to Yoga 2.0.1's behaviour, see --yoga) driven the way Texture drives it
(docs/yoga.md §2-§5), against Loom on seeded random requests.

    python3 scripts/yoga_oracle.py --setup                    # venvs + the patched 2.0.1 build
    python3 scripts/yoga_oracle.py --selftest                 # the three examples of §8
    python3 scripts/yoga_oracle.py --cases 1000 --seed 7 --dump DIR     # oracle only
    python3 scripts/yoga_oracle.py --loom .build/debug/loom --cases 1000 --seed 7 --out DIR

The script re-executes itself under the venv that holds the Yoga build (.venv-yoga for
1.19, .venv-yoga201 for 2.0.1; --setup makes both). Every case runs in its own forked
process: Yoga's fatal assertions abort, and such a case is expected to be `invalid_spec`.

What the oracle reproduces (and so what the generator emits):
  * Yoga trees of `node` containers (`yogaChildren`), plain leaves, measured leaves (`node`
    with `intrinsicSize`, `image` with `intrinsicSize`, `node` with its own `layout`: an
    `inset` around a `node` with `intrinsicSize`), every §6 style field.
  * Specs around the Yoga root: the request root may be an `inset` (finite insets) or a
    `stack` holding the Yoga root and up to two spec-engine nodes (semantics §7.2 for one line:
    no wrap, no baseline alignment, no alignSelf/flexBasis/spacingBefore/After on its
    children, no child that both grows and shrinks, i.e. no optimized flexing). The stack
    measures the root once per pass (first, flex, stretch) on one Yoga tree that keeps its
    cache, as Texture does (§2, repeated measurement); a Yoga root also sits in some measured
    leaves' own layouts, where Yoga's measure function measures it again per call.
    `--fresh-trees --dump` lays every measurement out on a new tree instead, to count the
    cases that depend on the path (18 of 1,000 for seed 1).
  * Measured leaves keep width/height/min/max in points (§5.1 quirk); the Yoga root keeps its
    own width/height/min/max in points (its percentages resolve against different bases in
    Texture and Yoga).
Comparison: every id's frame and the response size, exactly (Python floats from Loom's JSON
against the oracle's doubles; -0.0 equals 0).
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV = {"1.19": os.path.join(ROOT, ".venv-yoga"), "2.0.1": os.path.join(ROOT, ".venv-yoga201")}
SRC_DIR = os.path.join(ROOT, ".yoga-src")          # poga's sdist, unpacked and patched (gitignored)
PATCH = os.path.join(HERE, "yoga-2.0.1.patch")
POGA = "poga==0.1.19"

INF = float("inf")
FLT_EPSILON = 1.1920928955078125e-07
CGFLOAT_MAX = sys.float_info.max


# =========================================================================== Texture arithmetic

def f32(v):
    """The float32 value of v, as a double (what a C `(float)v` gives)."""
    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return INF if v > 0 else -INF


def cg_max(a, b):
    return b if a < b else a


def cg_min(a, b):
    return a if a < b else b


def ceil_px(v, s):
    return math.ceil((v - FLT_EPSILON) * s) / s


def valid_for_size(v):
    return v == v and v >= 0 and v < 1e7


def valid_position(v):
    return v == v and abs(v) != INF and v < 1e7


def parse_dim(v):
    """Wire Dimension -> None (auto) | ("pt", x) | ("pct", fraction)."""
    if v is None or v == "auto":
        return None
    if isinstance(v, str):
        return ("pct", float(v[:-1]) / 100.0)
    return ("pt", float(v))


ALIASES = {"preferredSize": ("width", "height"), "minSize": ("minWidth", "minHeight"),
           "maxSize": ("maxWidth", "maxHeight")}


def style_of(el):
    """An element's style with preferredSize/minSize/maxSize spelt out as their two fields,
    applied in the order written (a later field wins, as successive setters do)."""
    st = el.get("style") or {}
    if not any(k in ALIASES for k in st):
        return st
    out = {}
    for k, v in st.items():
        if k in ALIASES:
            a, b = ALIASES[k]
            out.pop(a, None)
            out.pop(b, None)
            out[a], out[b] = v["width"], v["height"]
        else:
            out.pop(k, None)
            out[k] = v
    return out


def resolve(dim, parent, auto):
    if dim is None:
        return auto
    if dim[0] == "pt":
        return dim[1]
    if dim[1] == 0 and parent == INF:
        return float("nan")
    return dim[1] * parent


def resolve_style(style, parent):
    """Texture's resolveStyle(style, parentSize) -> ((minW, minH), (maxW, maxH))."""
    out = []
    for axis, (k, kmin, kmax) in enumerate((("width", "minWidth", "maxWidth"),
                                              ("height", "minHeight", "maxHeight"))):
        exact = resolve(parse_dim(style.get(k)), parent[axis], float("nan"))
        lo = resolve(parse_dim(style.get(kmin)), parent[axis], 0.0)
        hi = resolve(parse_dim(style.get(kmax)), parent[axis], INF)
        if hi <= lo:
            out.append((lo, lo))
        elif exact != exact:
            out.append((lo, hi))
        elif exact > hi:
            out.append((hi, hi))
        elif exact < lo:
            out.append((lo, lo))
        else:
            out.append((exact, exact))
    return ((out[0][0], out[1][0]), (out[0][1], out[1][1]))


def intersect(a, b):
    mins, maxs = [], []
    for i in range(2):
        lo, hi = cg_max(a[0][i], b[0][i]), cg_min(a[1][i], b[1][i])
        if lo <= hi:
            mins.append(lo); maxs.append(hi)
        elif a[0][i] < b[0][i]:
            mins.append(a[1][i]); maxs.append(a[1][i])
        else:
            mins.append(a[0][i]); maxs.append(a[0][i])
    return (tuple(mins), tuple(maxs))


def clamp(rng, size):
    return tuple(cg_max(rng[0][i], cg_min(rng[1][i], size[i])) for i in range(2))


def layout_size(size, s):
    """An ASLayout's size: 0x0 unless valid, then pixel-ceiled."""
    if not (valid_for_size(size[0]) and valid_for_size(size[1])):
        return (0.0, 0.0)
    return (ceil_px(size[0], s), ceil_px(size[1], s))


# =========================================================================== the oracle

FRESH_TREES = False     # --fresh-trees: a new Yoga tree per call (what §2 says Texture does NOT do)


class YogaFatal(Exception):
    pass


class Layout:
    """A measured element: its size and its sublayouts [(x, y, Layout)]; children None marks a
    Yoga container, whose children come from Yoga's frames."""
    __slots__ = ("el", "size", "children")

    def __init__(self, el, size, children=()):
        self.el, self.size, self.children = el, size, list(children)


def is_node(el):
    return el.get("type") in ("node", "image", "text", "button")


def yoga_kind(el):
    if el.get("yogaChildren"):
        return "container"
    if el.get("type") in ("image", "text", "button") or "intrinsicSize" in el or "layout" in el:
        return "measured"
    return "plain"


class Oracle:
    def __init__(self, y, scale):
        self.y = y
        self.s = float(scale)
        self.config = y.YGConfigNew()
        y.YGConfigSetPointScaleFactor(self.config, self.s)
        self.keep = []          # Yoga nodes and callbacks stay alive for the whole request
        self.trees = {}         # id(root element) -> [Yoga root node, last call, last layout]
        self.yoga_nodes = {}    # id(element) -> Yoga node

    # ------------------------------------------------------------------ specs and leaves

    def measure(self, el, constrained, parent):
        """layoutThatFits(constrained, parentSize) of any element we support."""
        t = el.get("type")
        if t == "inset":
            return self.inset(el, constrained, parent)
        if t == "stack":
            return self.stack(el, constrained, parent)
        if t == "node" and el.get("yogaChildren"):
            return self.yoga_root(el, constrained, parent)
        if not is_node(el):
            raise ValueError(f"oracle: unsupported element {t}")
        used = intersect(constrained, resolve_style(style_of(el), parent))
        if "layout" in el:
            spec = self.measure(el["layout"], used, used[1])
            return Layout(el, layout_size(spec.size, self.s), [(0.0, 0.0, spec)])
        if "intrinsicSize" in el:
            want = (float(el["intrinsicSize"]["width"]), float(el["intrinsicSize"]["height"]))
        else:       # plain node: its max if valid, else 0x0 (semantics §4.2)
            mx = used[1]
            want = mx if (valid_for_size(mx[0]) and valid_for_size(mx[1])) else (0.0, 0.0)
        return Layout(el, layout_size(clamp(used, want), self.s))

    def stack(self, el, c, parent):
        """Texture's stack (semantics §7.2) for the subset the generator emits: one line (no
        wrap), no baseline alignment, no alignSelf, flexBasis or spacingBefore/After, and not
        the optimized flexing of §7.2.6 (no child both grows and shrinks). Children are
        measured, flexed and stretched as Texture does, so a Yoga root in it is laid out once
        per pass (§2, repeated measurement)."""
        st = style_of(el)
        for k in ("flexWrap", "horizontalAlignment", "verticalAlignment"):
            if el.get(k, "noWrap" if k == "flexWrap" else "none") not in ("noWrap", "none"):
                raise ValueError(f"oracle: stack {k} not supported")
        used = intersect(c, resolve_style(st, parent))
        kids = el.get("children") or []
        if not kids:
            return Layout(el, layout_size(used[0], self.s))
        m = 0 if el.get("direction", "horizontal") == "horizontal" else 1
        x = 1 - m
        spacing = float(el.get("spacing", 0))
        justify = el.get("justifyContent", "start")
        align = el.get("alignItems", "stretch")
        if align not in ("start", "end", "center", "stretch"):
            raise ValueError(f"oracle: stack alignItems {align} not supported")
        eps = 0.01
        nan = float("nan")
        child_parent = tuple(used[0][i] if used[0][i] == used[1][i] else nan for i in range(2))
        styles = [style_of(k) for k in kids]
        for ks in styles:
            if any(f in ks for f in ("alignSelf", "flexBasis", "spacingBefore", "spacingAfter")):
                raise ValueError("oracle: stack child style not supported")
        grow = [float(ks.get("flexGrow", 0)) for ks in styles]
        shrink = [float(ks.get("flexShrink", 0)) for ks in styles]
        if sum(1 for g, h in zip(grow, shrink) if g > 0 and h > 0) == 1 and used[0][m] == used[1][m]:
            raise ValueError("oracle: optimized flexing not supported")

        def measure_child(i, smin, smax, cmin, cmax):
            if align == "stretch":
                r = resolve_style(styles[i], (nan, nan))
                ccmin = r[0][x] if r[0][x] != 0 else cmin
                ccmax = r[1][x] if r[1][x] != INF else cmax
            else:
                ccmin, ccmax = 0.0, cmax
            lo, hi = [0.0, 0.0], [0.0, 0.0]
            lo[m], hi[m], lo[x], hi[x] = smin, smax, ccmin, ccmax
            return self.measure(kids[i], (tuple(lo), tuple(hi)), child_parent)

        lays = [measure_child(i, 0.0, INF, used[0][x], used[1][x]) for i in range(len(kids))]

        def line_sum():
            return spacing * (len(kids) - 1) + sum(l.size[m] for l in lays)

        def violation_of(total):
            if total < used[0][m]:
                return used[0][m] - total
            if total > used[1][m]:
                return used[1][m] - total
            return 0.0
        v = violation_of(line_sum())
        factors = [0.0 if abs(v) < eps else (grow[i] if v > 0 else shrink[i]) for i in range(len(kids))]
        total_f = sum(factors)
        if total_f != 0:
            if v > 0:
                adj = [math.floor(v * (grow[i] / total_f)) for i in range(len(kids))]
            else:
                w = [lays[i].size[m] * (shrink[i] / total_f) for i in range(len(kids))]
                total_w = sum(w)
                adj = [0.0 if total_w == 0 else -abs((w[i] / total_w) * v) for i in range(len(kids))]
            remaining = v
            for a in adj:
                remaining -= a
            first = next((i for i, a in enumerate(adj) if a != 0), None)
            if first is not None:
                for i, a in enumerate(adj):
                    if a == 0:
                        continue
                    target = lays[i].size[m] + a + (remaining if i == first and grow[i] > 0 else 0)
                    target = cg_max(target, 0.0)
                    lays[i] = measure_child(i, target, target, used[0][x], used[1][x])
        if used[0][x] == used[1][x]:
            line_cross = used[0][x]
        else:
            mx = max([0.0] + [l.size[x] for l in lays])
            line_cross = cg_min(cg_max(used[0][x], mx), used[1][x])
        if align == "stretch":
            for i, l in enumerate(lays):
                if line_cross - l.size[x] > eps:
                    sz = l.size[m]
                    lays[i] = measure_child(i, sz, sz, line_cross, line_cross)
        total = line_sum()
        v = violation_of(total)
        n = len(kids)
        j = justify
        if j == "spaceBetween" and (v < eps or n == 1):
            j = "start"
        if j == "spaceAround" and (v < eps or n == 1):
            j = "center"
        offset, gap = 0.0, 0.0
        if j == "center":
            offset = v / 2
        elif j == "end":
            offset = v
        elif j == "spaceBetween":
            gap = v / (n - 1)
        elif j == "spaceAround":
            unit = v / (2 * n)
            offset, gap = unit, 2 * unit
        children = []
        p = offset
        for k, l in enumerate(lays):
            if k > 0:
                p += spacing + gap
            if align == "end":
                co = line_cross - l.size[x]
            elif align == "center":
                co = math.floor(((line_cross - l.size[x]) / 2 + FLT_EPSILON) * self.s) / self.s
            else:
                co = 0.0
            pos = [0.0, 0.0]
            pos[m], pos[x] = p, co
            children.append((pos[0], pos[1], l))
            p += l.size[m]
        size = [0.0, 0.0]
        size[m], size[x] = total, line_cross
        return Layout(el, layout_size(clamp(used, tuple(size)), self.s), children)

    def inset(self, el, c, parent):
        ins = el.get("insets") or {}
        top, left = float(ins.get("top", 0)), float(ins.get("left", 0))
        bottom, right = float(ins.get("bottom", 0)), float(ins.get("right", 0))
        ix, iy = left + right, top + bottom
        child_range = ((cg_max(0.0, c[0][0] - ix), cg_max(0.0, c[0][1] - iy)),
                       (cg_max(0.0, c[1][0] - ix), cg_max(0.0, c[1][1] - iy)))
        child_parent = (cg_max(0.0, parent[0] - ix), cg_max(0.0, parent[1] - iy))
        child = self.measure(el["child"], child_range, child_parent)
        size = clamp(c, (child.size[0] + left + right, child.size[1] + top + bottom))
        return Layout(el, layout_size(size, self.s), [(left, top, child)])

    # ------------------------------------------------------------------ Yoga

    def yoga_root(self, el, constrained, parent):
        y = self.y
        used = intersect(constrained, resolve_style(style_of(el), parent))
        key = (constrained, parent)
        entry = self.trees.get(id(el))
        if entry is None or FRESH_TREES:
            root = self.build(el, None)
            entry = self.trees[id(el)] = [root, None, None]
        root = entry[0]
        # -layoutThatFits:parentSize: returns its last layout for an identical call (NaN never equal)
        if entry[1] == key and all(v == v for v in parent):
            return entry[2]
        y.YGNodeStyleSetMinWidth(root, float(used[0][0]))
        y.YGNodeStyleSetMinHeight(root, float(used[0][1]))
        w = used[1][0] if used[1][0] < CGFLOAT_MAX / 2 else y.YGUndefined
        h = used[1][1] if used[1][1] < CGFLOAT_MAX / 2 else y.YGUndefined
        try:
            y.YGNodeCalculateLayout(root, float(w), float(h), y.YGDirection.Inherit)
        except YogaFatal:           # from a Yoga tree inside a measured leaf
            raise
        except RuntimeError as e:   # Yoga's assertion, a C++ std::logic_error through pybind11
            raise YogaFatal(str(e))
        lay = Layout(el, layout_size((y.YGNodeLayoutGetWidth(root), y.YGNodeLayoutGetHeight(root)), self.s))
        lay.children = None         # read from Yoga when the frames are collected (yoga_children)
        entry[1], entry[2] = key, lay
        return lay

    def build(self, el, parent_el):
        y = self.y
        n = y.YGNodeNewWithConfig(self.config)
        self.keep.append(n)
        self.yoga_nodes[id(el)] = n
        self.apply_style(n, style_of(el))
        kind = yoga_kind(el)
        if kind == "container":
            for i, c in enumerate(el["yogaChildren"]):
                y.YGNodeInsertChild(n, self.build(c, el), i)
        elif kind == "measured":
            self.keep.append(self.measure_func(el))
            y.YGNodeSetMeasureFunc(n, self.keep[-1])
            self.keep.append(self.baseline_func(el, parent_el))
            y.YGNodeSetBaselineFunc(n, self.keep[-1])
        return n

    def measure_func(self, el):
        y = self.y
        st = style_of(el)
        exactly, undefined = y.YGMeasureMode.Exactly, y.YGMeasureMode.Undefined
        mins = []
        for k in ("minWidth", "minHeight"):
            d = parse_dim(st.get(k))
            mins.append(f32(d[1]) if d and d[0] == "pt" else 0.0)

        def fn(node, width, wmode, height, hmode):
            mx, mn = [], []
            for i, (v, mode) in enumerate(((width, wmode), (height, hmode))):
                v = INF if mode == undefined else f32(v)
                mx.append(v)
                mn.append(v if mode == exactly else mins[i])
            lay = self.measure(el, (tuple(mn), tuple(mx)), tuple(mx))
            return y.YGSize(float(lay.size[0]), float(lay.size[1]))
        return fn

    def baseline_func(self, el, parent_el):
        st = style_of(el)
        align = style_of(parent_el or {}).get("alignItems")
        asc, desc = float(st.get("ascender", 0)), float(st.get("descender", 0))

        def fn(node, width, height):
            if align == "baselineFirst":
                return asc
            if align == "baselineLast":
                return height + desc
            return 0.0
        return fn

    def apply_style(self, n, st):
        y = self.y
        A, E = y.YGAlign, y.YGEdge
        for key, val in st.items():
            if key in ("width", "height", "minWidth", "maxWidth", "minHeight", "maxHeight", "flexBasis"):
                d = parse_dim(val)
                if d is None:
                    continue
                name = "FlexBasis" if key == "flexBasis" else key[0].upper() + key[1:]
                if d[0] == "pt":
                    getattr(y, "YGNodeStyleSet" + name)(n, d[1])
                else:
                    getattr(y, "YGNodeStyleSet" + name + "Percent")(n, d[1] * 100.0)
            elif key == "flexGrow":
                y.YGNodeStyleSetFlexGrow(n, float(val))
            elif key == "flexShrink":
                y.YGNodeStyleSetFlexShrink(n, float(val))
            elif key == "alignSelf":
                y.YGNodeStyleSetAlignSelf(n, {"auto": A.Auto, "start": A.FlexStart, "end": A.FlexEnd,
                                              "center": A.Center, "stretch": A.Stretch}[val])
            elif key == "flexDirection":
                F = y.YGFlexDirection
                y.YGNodeStyleSetFlexDirection(n, {"vertical": F.Column, "horizontal": F.Row,
                                                  "verticalReverse": F.ColumnReverse,
                                                  "horizontalReverse": F.RowReverse}[val])
            elif key == "direction":
                D = y.YGDirection
                y.YGNodeStyleSetDirection(n, {"inherit": D.Inherit, "ltr": D.LTR, "rtl": D.RTL}[val])
            elif key == "justifyContent":
                J = y.YGJustify
                y.YGNodeStyleSetJustifyContent(n, {"start": J.FlexStart, "center": J.Center, "end": J.FlexEnd,
                                                   "spaceBetween": J.SpaceBetween,
                                                   "spaceAround": J.SpaceAround}[val])
            elif key == "alignItems":
                y.YGNodeStyleSetAlignItems(n, {"start": A.FlexStart, "end": A.FlexEnd, "center": A.Center,
                                               "stretch": A.Stretch, "baselineFirst": A.Baseline,
                                               "baselineLast": A.Baseline}[val])
            elif key == "flexWrap":
                W = y.YGWrap
                y.YGNodeStyleSetFlexWrap(n, {"noWrap": W.NoWrap, "wrap": W.Wrap, "wrapReverse": W.WrapReverse}[val])
            elif key == "positionType":
                P = y.YGPositionType
                y.YGNodeStyleSetPositionType(n, {"relative": P.Relative, "absolute": P.Absolute}[val])
            elif key in ("position", "margin", "padding", "border"):
                base = {"position": "Position", "margin": "Margin", "padding": "Padding", "border": "Border"}[key]
                for edge, dv in val.items():
                    d = parse_dim(dv)
                    if d is None:
                        continue
                    ye = getattr(E, edge[0].upper() + edge[1:])
                    if d[0] == "pt":
                        getattr(y, "YGNodeStyleSet" + base)(n, ye, d[1])
                    else:
                        getattr(y, "YGNodeStyleSet" + base + "Percent")(n, ye, d[1] * 100.0)
            elif key == "aspectRatio":
                y.YGNodeStyleSetAspectRatio(n, float(val))
            elif key in ("ascender", "descender"):
                pass
            else:
                raise ValueError(f"oracle: unsupported style field {key}")

    def yoga_children(self, el):
        """The Layouts of a Yoga container's children, from Yoga's final frames (§4.2)."""
        y, s = self.y, self.s
        out = []
        for c in el["yogaChildren"]:
            n = self.yoga_nodes[id(c)]
            x, t = y.YGNodeLayoutGetLeft(n), y.YGNodeLayoutGetTop(n)
            w, h = y.YGNodeLayoutGetWidth(n), y.YGNodeLayoutGetHeight(n)
            if not (valid_position(x) and valid_position(t)):
                x, t = 0.0, 0.0
            pos = (ceil_px(x, s), ceil_px(t, s))
            lay = Layout(c, layout_size((w, h), s))
            kind = yoga_kind(c)
            if kind == "container":
                lay.children = None
            elif kind == "measured" and "layout" in c:
                # §5.4: the leaf's own layout again, in the exact range of its final size
                spec = self.measure(c["layout"], (lay.size, lay.size), lay.size)
                lay.children = [(0.0, 0.0, spec)]
            out.append((pos, lay))
        return out

    # ------------------------------------------------------------------ output

    def frames(self, lay):
        """frames by id, as docs/wire-format.md defines them."""
        s = self.s
        out = {}
        work = [(lay, 0.0, 0.0, True)]       # (layout, absolute x, y of its node origin, is root)
        while work:
            l, ox, oy, _ = work.pop()
            el = l.el
            if "id" in el:
                out[el["id"]] = {"x": ox, "y": oy, "width": l.size[0], "height": l.size[1]}
            if l.children is None:           # a Yoga container: children from Yoga
                for (px, py), c in self.yoga_children(el):
                    work.append((c, ox + px, oy + py, False))
                continue
            # a node or a spec: walk its specs, flatten nodes at ceiled positions
            stack = [(c, x, yy) for (x, yy, c) in l.children]
            while stack:
                c, rx, ry = stack.pop()
                if is_node(c.el):
                    work.append((c, ox + ceil_px(rx, s), oy + ceil_px(ry, s), False))
                else:
                    if "id" in c.el:
                        out[c.el["id"]] = {"x": ox + ceil_px(rx, s), "y": oy + ceil_px(ry, s),
                                           "width": c.size[0], "height": c.size[1]}
                    stack.extend((g, rx + x, ry + yy) for (x, yy, g) in c.children)
        return out


def layout_request(y, req):
    """The expected response (size + frames) of a request, or {"error": "invalid_spec", ...}."""
    scale = req.get("scale", 2)
    sr = req.get("sizeRange") or {}
    mn, mx = sr.get("min") or {}, sr.get("max") or {}

    def mxv(v):
        return INF if v is None else float(v)
    rng = ((float(mn.get("width") or 0), float(mn.get("height") or 0)),
           (mxv(mx.get("width")), mxv(mx.get("height"))))
    o = Oracle(y, scale)
    root = req["root"]
    try:
        if is_node(root):
            lay = o.measure(root, rng, rng[1])
        else:       # a spec root: the only child of an implicit plain node (semantics §5)
            spec = o.measure(root, rng, rng[1])
            lay = Layout({"type": "node"}, spec.size, [(0.0, 0.0, spec)])
        frames = o.frames(lay)
    except YogaFatal as e:
        return {"error": "invalid_spec", "fatal": str(e)}
    if not is_node(root) and "id" in root:
        frames[root["id"]] = {"x": 0.0, "y": 0.0, "width": lay.size[0], "height": lay.size[1]}
    return {"size": {"width": lay.size[0], "height": lay.size[1]}, "frames": frames}


def run_forked(y, req):
    """layout_request in a forked child: an abort is Yoga's fatal assertion."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        devnull = os.open(os.devnull, os.O_WRONLY)      # Yoga logs its assertion before throwing
        os.dup2(devnull, 2)
        try:
            out = json.dumps(layout_request(y, req)).encode()
            code = 0
        except BaseException as e:     # an oracle bug, not Yoga's: report it
            out = json.dumps({"oracle_error": f"{type(e).__name__}: {e}"}).encode()
            code = 3
        with os.fdopen(w, "wb") as f:
            f.write(out)
        os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"error": "invalid_spec", "fatal": f"signal {os.WTERMSIG(status)}"}
    res = json.loads(data)
    if "oracle_error" in res:
        raise RuntimeError(res["oracle_error"])
    return res


# =========================================================================== the generator

PT = [0, 4, 8, 10, 12.5, 16, 20, 24, 20.3, 33.33, 40, 45.5, 50, 64, 77.7, 100, 120, 150.25]
PCT = ["10%", "25%", "33.3%", "50%", "62.5%", "100%"]
EDGE_NAMES = ["top", "left", "bottom", "right", "start", "end", "horizontal", "vertical", "all"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.n = 0
        self.nested_roots = True

    def id(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def chance(self, p):
        return self.r.random() < p

    def pt(self):
        return self.r.choice(PT)

    def dim(self, pct_p=0.25):
        return self.r.choice(PCT) if self.chance(pct_p) else self.pt()

    def edges(self, pct_p=0.15, points=(0, 2, 4, 5, 8, 10, 12.5, 3.3)):
        e = {}
        for name in self.r.sample(EDGE_NAMES, self.r.randint(1, 3)):
            e[name] = self.r.choice(PCT[:3]) if self.chance(pct_p) else self.r.choice(points)
        return e

    def item_style(self, st, measured, pct=True):
        """Properties a Yoga child can have (sizes in points for measured leaves)."""
        r = self.r
        pp = 0.2 if (pct and not measured) else 0.0
        if self.chance(0.08):
            st["preferredSize"] = {"width": self.pt(), "height": self.pt()}
        if self.chance(0.45):
            st["width"] = self.dim(pp)
        if self.chance(0.45):
            st["height"] = self.dim(pp)
        for k in ("minWidth", "maxWidth", "minHeight", "maxHeight"):
            if self.chance(0.12):
                st[k] = self.dim(pp)
        for k in ("minSize", "maxSize"):
            if self.chance(0.04):
                st[k] = {"width": self.pt(), "height": self.pt() + (100 if k == "maxSize" else 0)}
        if self.chance(0.35):
            st["flexGrow"] = r.choice([0, 1, 1, 2, 0.5])
        if self.chance(0.35):
            st["flexShrink"] = r.choice([0, 1, 1, 0.5, 3])
        if self.chance(0.15):
            st["flexBasis"] = self.dim(pp) if self.chance(0.85) else "auto"
        if self.chance(0.2):
            st["alignSelf"] = r.choice(["auto", "start", "end", "center", "stretch"])
        if self.chance(0.3):
            st["margin"] = self.edges(0.1 if pct else 0)
        if self.chance(0.12):
            st["aspectRatio"] = r.choice([0.5, 1, 1.5, 16 / 9, 0.75])
        if self.chance(0.12):
            st["positionType"] = "absolute"
            st["position"] = self.edges(0.2 if pct else 0, points=(0, 5, 10, 7.5, 20))
        elif self.chance(0.08):
            st["positionType"] = "relative"
            st["position"] = self.edges(0.1 if pct else 0, points=(0, 3, 5, 10))
        return st

    def container_style(self, st, pct=True):
        r = self.r
        if self.chance(0.85):
            st["flexDirection"] = r.choice(["vertical", "horizontal", "verticalReverse", "horizontalReverse"])
        if self.chance(0.5):
            st["justifyContent"] = r.choice(["start", "center", "end", "spaceBetween", "spaceAround"])
        if self.chance(0.6):
            st["alignItems"] = r.choice(["start", "end", "center", "stretch", "baselineFirst", "baselineLast"])
        if self.chance(0.25):
            st["flexWrap"] = r.choice(["wrap", "wrapReverse", "noWrap"])
        if self.chance(0.2):
            st["direction"] = r.choice(["rtl", "rtl", "ltr", "inherit"])
        if self.chance(0.35):
            st["padding"] = self.edges(0.1 if pct else 0)
        if self.chance(0.15):
            st["border"] = self.edges(0.0, points=(1, 2, 0.5, 3))
        return st

    def measured(self):
        r = self.r
        st = self.item_style({}, measured=True)
        if self.chance(0.4):
            st["ascender"] = r.choice([8, 12.5, 14])
            st["descender"] = r.choice([-2, -3.5, -4])
        size = {"width": r.choice([16, 24, 40, 97.3, 120.3, 20.2, 55.55, 200]),
                "height": r.choice([16, 17, 20.5, 24, 33.3, 44, 10.1])}
        k = r.random()
        if k < 0.45:
            e = {"type": "node", "id": self.id("m"), "intrinsicSize": size}
        elif k < 0.75:
            e = {"type": "image", "id": self.id("img"), "intrinsicSize": size}
        else:
            icon = {"type": "node", "id": self.id("icon"), "intrinsicSize": size}
            if self.nested_roots and self.chance(0.3):
                # a separate Yoga tree in the leaf's own layout: measured once per call of
                # the outer measure function (§2, repeated measurement)
                self.nested_roots = False
                icon = self.container(2, root=True)
                self.nested_roots = True
            e = {"type": "node", "id": self.id("own"),
                 "layout": {"type": "inset", "id": self.id("ins"),
                            "insets": {k2: r.choice([0, 2, 4, 10, 3.5]) for k2 in ("top", "left", "bottom", "right")},
                            "child": icon}}
        if st:
            e["style"] = st
        return e

    def plain(self):
        e = {"type": "node", "id": self.id("p")}
        st = self.item_style({}, measured=False)
        if st:
            e["style"] = st
        return e

    def container(self, depth, root=False):
        e = {"type": "node", "id": self.id("root" if root else "c")}
        st = self.container_style({})
        if root:
            for k in ("width", "height", "minWidth", "maxWidth", "minHeight", "maxHeight"):
                if self.chance(0.1):
                    st[k] = self.pt() + 100
            if self.chance(0.15):
                st["margin"] = self.edges(0.0)
        else:
            self.item_style(st, measured=False)
        kids = []
        for _ in range(self.r.randint(1, 5)):
            k = self.r.random()
            if depth < 2 and k < 0.25:
                kids.append(self.container(depth + 1))
            elif k < 0.6:
                kids.append(self.measured())
            else:
                kids.append(self.plain())
        e["yogaChildren"] = kids
        if st:
            e["style"] = st
        return e

    def stack_around(self, yoga_root):
        """A stack holding the Yoga root and up to two spec-engine nodes; the stack may measure
        the root several times (first pass, flex, stretch). No child both grows and shrinks
        (the oracle's stack does not do §7.2.6's optimized flexing)."""
        r = self.r
        kids = [yoga_root]
        for _ in range(r.randint(0, 2)):
            if self.chance(0.5):
                kids.append({"type": "node", "id": self.id("n"),
                             "intrinsicSize": {"width": r.choice([30, 44.5, 80]), "height": r.choice([20, 33.3, 60])}})
            else:
                kids.append({"type": "node", "id": self.id("n"),
                             "style": {"width": r.choice([20, 50, 75.5]), "height": r.choice([10, 40, 90])}})
        for kid in kids:
            if self.chance(0.35):
                kid.setdefault("style", {})[r.choice(["flexGrow", "flexShrink"])] = r.choice([1, 2, 0.5])
        r.shuffle(kids)
        return {"type": "stack", "id": self.id("stack"), "direction": r.choice(["horizontal", "vertical"]),
                "spacing": r.choice([0, 0, 8, 4.5]),
                "justifyContent": r.choice(["start", "center", "end", "spaceBetween", "spaceAround"]),
                "alignItems": r.choice(["start", "end", "center", "stretch", "stretch"]),
                "children": kids}

    def request(self):
        r = self.r
        scale = r.choice([1, 2, 3])
        mins, maxs = [], []
        for base in (r.choice([200, 300, 320, 375]), r.choice([120, 200, 480])):
            k = r.random()
            if k < 0.35:                       # exact
                mins.append(base); maxs.append(base)
            elif k < 0.7:                      # at most
                mins.append(r.choice([0, 0, 50])); maxs.append(base)
            else:                              # unbounded
                mins.append(r.choice([0, 0, 40])); maxs.append(None)
        root = self.container(0, root=True)
        k = r.random()
        if k < 0.2:
            root = {"type": "inset", "id": self.id("outer"),
                    "insets": {k: r.choice([0, 5, 8, 10.5, 16]) for k in ("top", "left", "bottom", "right")},
                    "child": root}
        elif k < 0.45:
            root = self.stack_around(root)
        return {"sizeRange": {"min": {"width": mins[0], "height": mins[1]},
                              "max": {"width": maxs[0], "height": maxs[1]}},
                "scale": scale, "root": root}


def coverage(reqs):
    """How many requests use each feature the issue asks for (all must be > 0)."""
    feats = {}

    def add(k, i):
        feats.setdefault(k, set()).add(i)
    for i, r in enumerate(reqs):
        add(f"scale {r['scale']:g}", i)
        mn, mx = r["sizeRange"]["min"], r["sizeRange"]["max"]
        for ax in ("width", "height"):
            add("range " + ("unbounded" if mx[ax] is None else "exact" if mx[ax] == mn[ax] else "at-most"), i)
        work = [(r["root"], False)]
        while work:
            e, in_yoga = work.pop()
            st = e.get("style") or {}
            if e.get("type") == "inset" and e["child"].get("yogaChildren"):
                add("Yoga root inside an inset", i)
            if e.get("type") == "stack" and any(c.get("yogaChildren") for c in e["children"]):
                add("Yoga root inside a stack", i)
            if "layout" in e and any(c.get("yogaChildren") for c in [e["layout"].get("child", {})]):
                add("Yoga root inside a measured leaf's own layout", i)
            if in_yoga:
                add(yoga_kind(e) + (" " + e["type"] if yoga_kind(e) == "measured" else ""), i)
            for k, v in st.items():
                add(k, i)
                if isinstance(v, str) and k not in ("flexBasis",) and not v.endswith("%"):
                    add(f"{k}: {v}", i)
                if isinstance(v, str) and v.endswith("%") or isinstance(v, dict) and any(
                        isinstance(x, str) and x.endswith("%") for x in v.values()):
                    add(f"{k} percent", i)
            for c in e.get("yogaChildren", ()):
                work.append((c, True))
            if "layout" in e:
                work.append((e["layout"], False))
            if "child" in e:
                work.append((e["child"], False))
            work.extend((c, False) for c in e.get("children", ()))
    return {k: len(v) for k, v in sorted(feats.items())}


def generate(seed, count):
    g = Gen(seed)
    return [g.request() for _ in range(count)]


# =========================================================================== §8 examples

EXAMPLES = [
    ({"sizeRange": {"min": {"width": 0, "height": 0}, "max": {"width": 300, "height": None}}, "scale": 2,
      "root": {"type": "node", "id": "card", "style": {"flexDirection": "horizontal", "alignItems": "center", "padding": {"all": 10}},
               "yogaChildren": [
                   {"type": "node", "id": "avatar", "style": {"width": 40, "height": 40, "margin": {"right": 8}}},
                   {"type": "node", "id": "label", "intrinsicSize": {"width": 120.3, "height": 17}, "style": {"flexGrow": 1, "flexShrink": 1}},
                   {"type": "image", "id": "badge", "intrinsicSize": {"width": 16, "height": 16}}]}},
     {"size": [300, 60], "card": (0, 0, 300, 60), "avatar": (10, 10, 40, 40), "label": (58, 21.5, 216, 17),
      "badge": (274, 22, 16, 16)}),
    ({"sizeRange": {"min": {"width": 320, "height": 0}, "max": {"width": 320, "height": None}}, "scale": 2,
      "root": {"type": "stack", "id": "screen", "direction": "vertical", "spacing": 8, "children": [
          {"type": "node", "id": "toolbar", "style": {"height": 44, "flexDirection": "horizontal", "justifyContent": "spaceBetween", "alignItems": "center", "padding": {"horizontal": 12}},
           "yogaChildren": [
               {"type": "node", "id": "back", "intrinsicSize": {"width": 24, "height": 24}},
               {"type": "node", "id": "title", "intrinsicSize": {"width": 97.3, "height": 20.5}},
               {"type": "node", "id": "menu", "style": {"width": 24, "height": 24}}]},
          {"type": "node", "id": "body", "intrinsicSize": {"width": 200, "height": 100}}]}},
     {"size": [320, 152], "screen": (0, 0, 320, 152), "toolbar": (0, 0, 320, 44), "back": (12, 10, 24, 24),
      "title": (111, 11.5, 97.5, 20.5), "menu": (284, 10, 24, 24), "body": (0, 52, 320, 100)}),
    ({"sizeRange": {"min": {"width": 200, "height": 120}, "max": {"width": 200, "height": 120}}, "scale": 3,
      "root": {"type": "node", "id": "root", "style": {"alignItems": "start", "justifyContent": "center"},
               "yogaChildren": [
                   {"type": "node", "id": "chip", "layout": {"type": "inset", "id": "chipInset", "insets": {"top": 4, "left": 10, "bottom": 4, "right": 10},
                    "child": {"type": "node", "id": "chipIcon", "intrinsicSize": {"width": 20.2, "height": 20.2}}}},
                   {"type": "node", "id": "dot", "style": {"positionType": "absolute", "position": {"right": 5, "top": 5}, "width": 10, "height": 10}},
                   {"type": "node", "id": "bar", "style": {"width": "33.3%", "height": 7}}]}},
     {"size": [200, 120], "root": (0, 0, 200, 120),
      "chip": (0, 42.333333333333336, 40.333333333333336, 28.333333333333332),
      "chipInset": (0, 42.333333333333336, 40.333333333333336, 28.333333333333332),
      "chipIcon": (10, 46.333333333333336, 20.333333333333332, 20.333333333333332),
      "dot": (185, 5, 10, 10), "bar": (0, 70.66666666666667, 66.66666666666667, 7)}),
]



# The two changes of yoga-2.0.1.patch, derived by hand: (request, expected by 2.0.1, by 1.19).
VERSION_CASES = [
    # 2: an absolute child pinned to the bottom of a column. Both versions size it 29 high:
    # Yoga lays it out exactly 10 + 20 (its vertical margin, 10 % of the container's width)
    # and takes off the margin resolved against the child's own width (1). Its top: the 10 %
    # bottom margin is 10 % of the height in 2.0.1 (100 - 29 - 10 = 61), of the width in 1.19
    # (100 - 29 - 20 = 51).
    ({"sizeRange": {"min": {"width": 200, "height": 100}, "max": {"width": 200, "height": 100}}, "scale": 1,
      "root": {"type": "node", "id": "col", "yogaChildren": [
          {"type": "node", "id": "pinned", "style": {"positionType": "absolute", "position": {"bottom": 0},
                                                     "margin": {"bottom": "10%"}, "width": 10, "height": 10}}]}},
     {"pinned": (0, 61, 10, 29)}, {"pinned": (0, 51, 10, 29)}),
    # 1: a row without a definite width: 2.0.1 takes the consumed width (80) as the inner
    # width, so `left: 10%` is 8; 1.19 leaves it undefined (NaN: Texture makes it 0x0 at 0,0).
    ({"sizeRange": {"min": {"width": 0, "height": 0}, "max": {"width": None, "height": None}}, "scale": 1,
      "root": {"type": "node", "id": "row", "style": {"flexDirection": "horizontal"}, "yogaChildren": [
          {"type": "node", "id": "a", "style": {"width": 80, "height": 10}},
          {"type": "node", "id": "abs", "style": {"positionType": "absolute", "position": {"left": "10%"},
                                                  "width": 10, "height": 10}}]}},
     {"row": (0, 0, 80, 10), "abs": (8, 0, 10, 10)}, {"row": (0, 0, 80, 10), "abs": (0, 0, 0, 0)}),
]


def check_frames(got, expected):
    bad = []
    for k, want in expected.items():
        if k == "size":
            have = (got["size"]["width"], got["size"]["height"])
            if tuple(float(v) for v in want) != have:
                bad.append(f"size: {have} != {tuple(want)}")
            continue
        f = got["frames"].get(k)
        have = None if f is None else (f["x"], f["y"], f["width"], f["height"])
        if have != tuple(float(v) for v in want):
            bad.append(f"{k}: {have} != {want}")
    return bad


def selftest(y, version):
    failures = 0
    for i, (req, want201, want119) in enumerate(VERSION_CASES, 1):
        bad = check_frames(run_forked(y, req), want201 if version == "2.0.1" else want119)
        print(f"Yoga {version} change {3 - i} of §9: " + ("ok" if not bad else "DIFFERS: " + "; ".join(bad)))
        failures += bool(bad)
    for i, ex in enumerate(EXAMPLES, 1):
        bad = check_frames(run_forked(y, ex[0]), ex[1])
        print(f"§8 example {i}: " + ("ok" if not bad else "DIFFERS: " + "; ".join(bad)))
        failures += bool(bad)
    return failures


# =========================================================================== Loom

class LoomServer:
    def __init__(self, binary, log_path):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--workers", "2"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.port = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.port is None:
            time.sleep(0.1)
            if self.proc.poll() is not None:
                raise RuntimeError("loom serve exited: " + open(log_path).read()[-2000:])
            for line in open(log_path):
                if "loom listening" in line:
                    m = re.search(r'port="?(\d+)', line)
                    if m:
                        self.port = int(m.group(1))
        if self.port is None:
            self.stop()
            raise RuntimeError("loom serve did not start")

    def batch(self, reqs):
        body = json.dumps({"items": reqs}).encode()
        rq = urllib.request.Request(f"http://127.0.0.1:{self.port}/layout/batch", data=body,
                                    headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(rq, timeout=120) as resp:
                return json.loads(resp.read())["results"]
        except urllib.error.HTTPError as e:
            err = json.loads(e.read() or b"{}")
            return [err] * len(reqs)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def loom_view(res):
    """(kind, payload) of one Loom result: ("error", code) or ("ok", {size, frames})."""
    if "error" in res:
        e = res["error"]
        return ("error", e.get("code") if isinstance(e, dict) else e)
    return ("ok", {"size": res.get("size"), "frames": res.get("frames", {})})


def differences(expected, res):
    kind, got = loom_view(res)
    if "error" in expected:
        if kind == "error" and got == expected["error"]:
            return []
        return [f"expected {expected['error']} (Yoga asserted: {expected.get('fatal', '')}), got "
                + (f"error {got}" if kind == "error" else "a layout")]
    if kind == "error":
        return [f"expected a layout, got error {got}: {res['error'].get('message', '') if isinstance(res['error'], dict) else ''}"]
    out = []
    es, gs = expected["size"], got["size"] or {}
    if (es["width"], es["height"]) != (gs.get("width"), gs.get("height")):
        out.append(f"size: loom {gs} oracle {es}")
    for k, f in expected["frames"].items():
        g = got["frames"].get(k)
        if g is None:
            out.append(f"{k}: missing in loom")
            continue
        for c in ("x", "y", "width", "height"):
            if float(g.get(c, "nan")) != f[c]:
                out.append(f"{k}: loom {g} oracle {f}")
                break
    for k in got["frames"]:
        if k not in expected["frames"]:
            out.append(f"{k}: only in loom")
    return out


# =========================================================================== driver

def venv_python(version):
    return os.path.join(VENV[version], "bin", "python")


def setup(version):
    """Creates the venv of a Yoga version (2.0.1: poga's sdist patched with yoga-2.0.1.patch)."""
    py = venv_python(version)
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV[version]], check=True)
    pip = [py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if version == "1.19":
        subprocess.run(pip + [POGA], check=True)
    else:
        src = os.path.join(SRC_DIR, "poga-0.1.19")
        if os.path.exists(src):
            shutil.rmtree(src)
        os.makedirs(SRC_DIR, exist_ok=True)
        sdist = os.path.join(SRC_DIR, "poga-0.1.19.tar.gz")
        # poga's build backend (and its one dependency): pip prepares the metadata while
        # downloading, and the patched source is built without an isolated environment
        subprocess.run(pip + ["setuptools>=42", "wheel", "pybind11>=2.10.0"], check=True)
        if not os.path.exists(sdist):
            subprocess.run([py, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
                            "--no-binary", ":all:", "--no-build-isolation", POGA, "-d", SRC_DIR], check=False)
        if not os.path.exists(sdist):
            raise SystemExit("could not download poga's sdist")
        subprocess.run(["tar", "xzf", sdist, "-C", SRC_DIR], check=True)
        subprocess.run(["patch", "-p1", "-d", src, "-i", PATCH], check=True)
        subprocess.run(pip + ["--force-reinstall", "--no-deps", "--no-build-isolation", src], check=True)
    subprocess.run([py, "-c", "import poga.libpoga_capi"], check=True)
    with open(ready_marker(version), "w") as f:     # a setup that stopped half way is redone
        f.write(build_id(version))


def ready_marker(version):
    return os.path.join(VENV[version], "loom-yoga-ready")


def build_id(version):
    """What the venv was built from: poga's version and, for 2.0.1, the patch's digest."""
    if version == "1.19":
        return POGA + "\n"
    import hashlib
    with open(PATCH, "rb") as f:
        return f"{POGA} + yoga-2.0.1.patch sha256 {hashlib.sha256(f.read()).hexdigest()}\n"


def is_ready(version):
    try:
        with open(ready_marker(version)) as f:
            return f.read() == build_id(version)
    except OSError:
        return False


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--yoga", choices=["2.0.1", "1.19"], default="2.0.1",
                    help="which Yoga the oracle runs (default 2.0.1, Loom's)")
    ap.add_argument("--setup", action="store_true", help="make the venv of --yoga and exit")
    ap.add_argument("--selftest", action="store_true", help="check the oracle on §8's examples")
    ap.add_argument("--loom", help="the loom binary to compare (without: oracle only)")
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--batch", type=int, default=100, help="requests per POST /layout/batch")
    ap.add_argument("--out", default="yoga-oracle-out", help="folder for differing cases")
    ap.add_argument("--max-differing", type=int, default=0,
                    help="pass with at most this many differing cases (known differences; default 0)")
    ap.add_argument("--dump", help="write the cases and the oracle's answers to this folder")
    ap.add_argument("--fresh-trees", action="store_true",
                    help="build a fresh Yoga tree for every measurement of a root (not Texture's "
                         "behaviour; with --dump, to count the path-dependent cases)")
    ap.add_argument("--in-venv", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.setup:
        setup(args.yoga)
        return 0
    if not args.in_venv:
        py = venv_python(args.yoga)
        if not is_ready(args.yoga):
            setup(args.yoga)
        os.execv(py, [py, os.path.abspath(__file__), "--in-venv"] + (argv if argv is not None else sys.argv[1:]))
    import poga.libpoga_capi as y
    global FRESH_TREES
    FRESH_TREES = args.fresh_trees

    failures = selftest(y, args.yoga)
    if args.selftest:
        return 1 if failures else 0

    t0 = time.monotonic()
    reqs = generate(args.seed, args.cases)
    expected = [run_forked(y, r) for r in reqs]
    t_oracle = time.monotonic() - t0
    n_fatal = sum("error" in e for e in expected)
    print(f"oracle (Yoga {args.yoga}): {len(reqs)} cases, seed {args.seed}, {n_fatal} expected invalid_spec "
          f"(Yoga asserts), {t_oracle:.1f}s")
    cov = coverage(reqs)
    print("coverage (requests using each feature): " + ", ".join(f"{k} {v}" for k, v in cov.items()))
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        for i, (r, e) in enumerate(zip(reqs, expected)):
            with open(os.path.join(args.dump, f"case-{i:04d}.json"), "w") as f:
                json.dump({"request": r, "oracle": e}, f, indent=1)
    if not args.loom:
        return 1 if failures else 0

    os.makedirs(args.out, exist_ok=True)
    for f in os.listdir(args.out):
        if f.startswith("diff-") and f.endswith(".json"):
            os.remove(os.path.join(args.out, f))
    t1 = time.monotonic()
    server = LoomServer(args.loom, os.path.join(args.out, "loom-serve.log"))
    try:
        results = []
        for i in range(0, len(reqs), args.batch):
            results.extend(server.batch(reqs[i:i + args.batch]))
    finally:
        server.stop()
    t_loom = time.monotonic() - t1
    differing = 0
    for i, (r, e, res) in enumerate(zip(reqs, expected, results)):
        d = differences(e, res)
        if d:
            differing += 1
            with open(os.path.join(args.out, f"diff-{i:04d}.json"), "w") as f:
                json.dump({"case": i, "seed": args.seed, "yoga": args.yoga, "differences": d,
                           "request": r, "oracle": e, "loom": res}, f, indent=1)
            if differing <= 5:
                print(f"case {i}: " + "; ".join(d[:3]))
    agree_err = sum(1 for e, res in zip(expected, results) if "error" in e and not differences(e, res))
    print(f"loom: {len(reqs)} cases in {t_loom:.1f}s; {len(reqs) - differing} agree ({agree_err} of them "
          f"invalid_spec where Yoga asserts), {differing} differ"
          + (f" (written to {args.out}/diff-NNNN.json)" if differing else ""))
    if differing and differing <= args.max_differing:
        print(f"loom: {differing} differing cases are within the allowance of {args.max_differing} "
              f"(--max-differing: known differences, listed in README; more fails)")
        differing = 0
    return 1 if (differing or failures) else 0


if __name__ == "__main__":
    sys.exit(main())
