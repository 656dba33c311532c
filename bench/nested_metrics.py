#!/usr/bin/env python3
"""Writes a LayoutRequest of 200 texts mixing kana, emoji and Latin words at many sizes
(stdout): texts whose fallback fonts Pango first computes metrics for inside another font's
(the NestedMetricsTests words). `loom layout` of it measures how a cold measurer copes with
such fonts (README, "Text engines healed in place")."""
import json
import random
import sys

rng = random.Random(7)
words = ["1️⃣", "again", "long", "spec", "weekend", "ちょっと", "コーヒー", "サーバー", "東京", "👋🏽"]
families = ["DejaVu Sans", "Noto Sans", "Inter", "Liberation Sans", "Roboto"]
children = [{"type": "text", "text": " ".join(rng.choice(words) for _ in range(25)),
             "font": {"family": rng.choice(families), "size": rng.randint(12, 17)},
             "maximumNumberOfLines": rng.randint(0, 3)} for _ in range(200)]
json.dump({"root": {"type": "stack", "direction": "vertical", "children": children},
           "sizeRange": {"min": {"width": 0, "height": 0}, "max": {"width": 375, "height": None}}},
          sys.stdout, ensure_ascii=False)
