#!/usr/bin/env python3
"""The text sizes examples/README.md derives, read from the font files alone (fontTools).

For a single-line label: the width is the sum of the glyph advances plus the pair kerning
of the font's `kern` feature (GPOS pair adjustments, what HarfBuzz applies), in font units,
times size / unitsPerEm; the height of `line-height: normal` is the hhea ascender, descender
and line gap at that size, each rounded to a whole pixel, added (docs/text-measurement.md).
It also checks that no ligature or other substitution changes the glyphs of a label.

    python3 -m venv /tmp/ft && /tmp/ft/bin/pip install fonttools
    /tmp/ft/bin/python examples/text-widths.py            # every label of the examples
"""
import math
import sys

from fontTools.ttLib import TTFont

ROBOTO = "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-{}.ttf"

# (example, label, face, size in points = CSS px)
LABELS = [
    ("9", "Hiking trails", "Regular", 17),
    ("9", "12 new this week", "Regular", 14),
    ("10", "Follow", "Medium", 15),
    ("11", "swift", "Regular", 14),
    ("11", "layout", "Regular", 14),
    ("11", "texture", "Regular", 14),
    ("11", "ios", "Regular", 14),
    ("11", "web", "Regular", 14),
]


def pair_kerning(font, left, right):
    """The x-advance adjustment of the first glyph of (left, right) by GPOS pair lookups
    that the `kern` feature uses, in font units (0 when none applies)."""
    gpos = font["GPOS"].table
    lookups = set()
    for record in gpos.FeatureList.FeatureRecord:
        if record.FeatureTag == "kern":
            lookups.update(record.Feature.LookupListIndex)
    total = 0
    for index in sorted(lookups):
        lookup = gpos.LookupList.Lookup[index]
        subtables = lookup.SubTable
        if lookup.LookupType == 9:  # extension
            subtables = [s.ExtSubTable for s in subtables]
        for st in subtables:
            if st.LookupType != 2 or left not in st.Coverage.glyphs:
                continue
            value = None
            if st.Format == 1:
                pairs = st.PairSet[st.Coverage.glyphs.index(left)].PairValueRecord
                for pv in pairs:
                    if pv.SecondGlyph == right:
                        value = pv.Value1
                        break
            else:
                c1 = st.ClassDef1.classDefs.get(left, 0)
                c2 = st.ClassDef2.classDefs.get(right, 0)
                value = st.Class1Record[c1].Class2Record[c2].Value1
            if value is not None:
                total += getattr(value, "XAdvance", 0) or 0
                break  # the first subtable that covers the pair decides, per lookup
    return total


def substitutions(font, glyphs):
    """Ligature substitutions (GSUB type 4) of the default features that would match."""
    if "GSUB" not in font:
        return []
    gsub = font["GSUB"].table
    hits = []
    for lookup in gsub.LookupList.Lookup:
        subtables = lookup.SubTable
        if lookup.LookupType == 7:
            subtables = [s.ExtSubTable for s in subtables]
        for st in subtables:
            if getattr(st, "LookupType", lookup.LookupType) != 4:
                continue
            for k, g in enumerate(glyphs):
                for lig in st.ligatures.get(g, []):
                    if glyphs[k + 1:k + len(lig.Component) + 1] == lig.Component:
                        hits.append((g, lig.Component, lig.LigGlyph))
    return hits


def measure(face, size, text):
    font = TTFont(ROBOTO.format(face))
    upem = font["head"].unitsPerEm
    cmap = font.getBestCmap()
    hmtx = font["hmtx"]
    glyphs = [cmap[ord(c)] for c in text]
    advances = [hmtx[g][0] for g in glyphs]
    kerns = [pair_kerning(font, a, b) for a, b in zip(glyphs, glyphs[1:])]
    units = sum(advances) + sum(kerns)
    hhea = font["hhea"]
    scale = size / upem
    ascent = math.floor(hhea.ascent * scale + 0.5)
    descent = math.floor(-hhea.descent * scale + 0.5)
    gap = math.floor(hhea.lineGap * scale + 0.5)
    return {
        "upem": upem, "advances": advances, "kerns": kerns, "units": units,
        "width": units * scale, "hhea": (hhea.ascent, hhea.descent, hhea.lineGap),
        "line": (ascent, descent, gap, ascent + descent + gap),
        "ligatures": substitutions(font, glyphs),
    }


def ceil_px(v, scale=2):
    """Texture's ceilPx at `scale` (docs/layout-semantics.md §6)."""
    eps = 1.1920928955078125e-7
    return math.ceil((v - eps) * scale) / scale


def main():
    for example, text, face, size in LABELS:
        m = measure(face, size, text)
        kerned = [(text[k], text[k + 1], v) for k, v in enumerate(m["kerns"]) if v]
        print(f"example {example}: \"{text}\" Roboto {face} {size}")
        print(f"  advances {' + '.join(map(str, m['advances']))} = {sum(m['advances'])}"
              f"; kerning {kerned or 'none'}; total {m['units']} units / {m['upem']} × {size}"
              f" = {m['width']:.4f} → ceilPx {ceil_px(m['width'])}")
        a, d, g, line = m["line"]
        print(f"  hhea {m['hhea']}: ascent {a} + descent {d} + gap {g} = line height {line}")
        if m["ligatures"]:
            print(f"  LIGATURES: {m['ligatures']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
