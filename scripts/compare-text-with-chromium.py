#!/usr/bin/env python3
"""Compare Loom's text sizes with headless Chromium's CSS text layout (stdlib only).

Loom measures text with Pango so that it matches a web browser
(docs/text-measurement.md). This script measures how well it does, reproducibly:

1. Cases. A fixed seed generates >= 300 strings (labels, sentences, paragraphs with long
   words, URLs, paths, numbers, punctuation, explicit newlines, runs of spaces and tabs),
   each used in a few cases that sample font (Roboto Regular/Bold, Liberation Sans,
   Liberation Serif, DejaVu Sans, Noto Sans, Inter), size 12-20 px, width 40-500 px,
   line limit 0-3, line height (normal or px) and letter spacing.
2. Browser. ONE html page: an @font-face rule per font *file* (the files Loom loads,
   file:// URLs, one private family name each, so Chromium can neither pick another file
   nor synthesize bold), and per case a div
       width: W px; font: S px <face>; line-height: normal | L px; letter-spacing: LS px;
       white-space: pre-line; overflow-wrap: break-word; word-break: normal;
   plus, with a line limit N > 0, `display: -webkit-box; -webkit-box-orient: vertical;
   -webkit-line-clamp: N; overflow: hidden` (Chromium's own truncation with "…").
   After document.fonts has loaded every face (each FontFace must report "loaded"), a
   script reads the line boxes from Range.getClientRects() over the div's text:
     - lines    = number of distinct line boxes (rects grouped by their top), limited to N;
     - width    = the USED width: the widest visible line, i.e. max(right) of the rects of
                  that line (pre-line collapses a space at a soft wrap to width 0; cross-
                  checked against the right edge of the line's last non-space character).
                  On the clamped last line Chromium reports both the whole line and the part
                  kept before the ellipsis; that line's width is the kept part (or the whole
                  line when nothing was cut) plus the advance of "…" in the same font and
                  size, without letter spacing (Chromium shapes its ellipsis without it, in
                  the fit test too: found by scanning container widths; where the ellipsis
                  is painted was checked on screenshots). Limited to W, as Texture limits
                  the size to the offered maximum (Chromium lets a line be up to 1/64 px
                  wider than its container: LayoutUnit epsilon);
     - height   = the div's own height (the line boxes Chromium stacked; for a clamped div
                  the visible lines only), cross-checked against lines x line height.
   The results are written into the DOM and read back with
   `chromium --headless --dump-dom --virtual-time-budget=...`, at device scale factor 1
   (Chromium rounds the font metrics in device pixels: at another scale `line-height:
   normal` changes). Any font that does not report "loaded", or a failed cross-check
   (printed as browser-side warnings), means the harness, not Loom, needs looking at.
3. Loom. One LayoutRequest per case (root: a `text` element; sizeRange max width W,
   unbounded height), sent in batches to a private `loom serve` on 127.0.0.1
   (POST /layout/batch), twice: at scale 1 (the frames a client gets, ceiled to whole
   pixels) and at scale 64 (ceiled to 1/64 px, Chromium's LayoutUnit, i.e. "raw").
4. Report. Agreement on the line count; width and height within 1 px of the browser
   (raw: Loom at scale 64 vs the browser's unrounded value), plus the share of frames
   that are identical at scale 1 (browser values ceiled to whole pixels); the failure
   rate by feature; a heuristic "likely cause" per disagreement; the worst 15 cases with
   the browser's lines and Loom's width of each line's text alone (a line Loom measures
   wider than W is where it breaks differently).
5. Exit status. 2 when the measurement cannot be trusted: something broke, fewer cases
   were compared than `--min-cases` (default 1: zero cases never pass), or the browser
   side printed more warnings than `--max-browser-warnings` (default 0: a failed
   cross-check means the harness measured something else than it meant to). 1 when
   `--min-agreement` is given (the gate) and one of the three percentages is below it,
   or a case's truncated flag differs from the browser's, or Loom answered a case with an
   error. 0 otherwise.

  scripts/compare-text-with-chromium.py                 # 2 cases per string, seed 1
  scripts/compare-text-with-chromium.py --seed 7 --per-string 3 --worst 40
  scripts/compare-text-with-chromium.py --min-agreement 95     # as a gate
  scripts/compare-text-with-chromium.py --json out.json --keep /tmp/cmp   # all data, the page
  scripts/compare-text-with-chromium.py --truncation-spacing 2000 --seed 2  # truncation under letter spacing
"""
import argparse
import html
import http.client
import json
import math
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LOOM = os.path.join(HERE, "..", ".build", "release", "loom")
RAW_SCALE = 64  # Chromium's LayoutUnit is 1/64 px

# The faces under test: (key, Loom family, CSS weight, candidate files: the ones Loom's
# FontCatalog loads, in its directory order).
FONTS = [
    ("roboto", "Roboto", 400, ["/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Regular.ttf",
                               "/usr/share/fonts/truetype/roboto/hinted/Roboto-Regular.ttf",
                               "/usr/share/fonts/truetype/roboto/unhinted/Roboto-Regular.ttf"]),
    ("roboto-bold", "Roboto", 700, ["/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Bold.ttf",
                                    "/usr/share/fonts/truetype/roboto/hinted/Roboto-Bold.ttf",
                                    "/usr/share/fonts/truetype/roboto/unhinted/Roboto-Bold.ttf"]),
    ("liberation-sans", "Liberation Sans", 400, ["/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf"]),
    ("liberation-serif", "Liberation Serif", 400, ["/usr/share/fonts/truetype/liberation2/LiberationSerif-Regular.ttf"]),
    ("dejavu-sans", "DejaVu Sans", 400, ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"]),
    ("noto-sans", "Noto Sans", 400, ["/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"]),
    ("inter", "Inter", 400, ["/usr/share/fonts/opentype/inter/Inter-Regular.otf",
                             "/usr/share/fonts/truetype/inter/Inter-Regular.ttf"]),
]

# ---------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------

LABELS = [
    "OK", "Cancel", "Sign in", "Log out", "Settings", "Edit profile", "Save changes",
    "Delete", "Undo", "Share", "Follow", "Following", "Reply", "Retweet", "Like",
    "Add to cart", "Buy now", "Continue", "Back", "Done", "Learn more", "See all",
    "Notifications", "Messages", "Search", "Privacy Policy", "Terms of Service",
    "Forgot password?", "Create account", "Try again", "No results", "Loading…",
    "Yesterday", "2 min ago", "Today, 9:41 AM", "€12.99", "$1,299.00", "4.8",
    "Wi-Fi", "iPhone 15 Pro", "Café", "Über uns", "naïve", "Señor Piñata", "Straße",
]

WORDS = (
    "the of and to in is you that it he was for on are as with his they at be this have "
    "from or one had by word but not what all were we when your can said there use an each "
    "which she do how their if will up other about out many then them these so some her "
    "would make like him into time has look two more write go see number no way could "
    "people my than first water been call who oil its now find long down day did get come "
    "made may part layout texture node stack inset ratio baseline spacing measure glyph font "
    "paragraph browser server client request response cache engine width height pixel line "
    "wrap break truncate ellipsis label button avatar title subtitle caption headline "
    "beautiful quickly yesterday tomorrow information application development performance "
    "organization experience understanding communication environment responsibility "
    "Monday October Zürich São Paulo Kraków Ångström façade résumé coöperate jalapeño "
    "office official difficult affluent fluffy fifty shuffle waffle flight "
    "well-known e-mail state-of-the-art self-service x-ray re-enter"
).split()

LONG_WORDS = [
    "internationalization", "Donaudampfschifffahrtsgesellschaftskapitän",
    "pneumonoultramicroscopicsilicovolcanoconiosis", "supercalifragilisticexpialidocious",
    "antidisestablishmentarianism", "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz",
    "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch", "floccinaucinihilipilification",
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii",
    "WWWWWWWWWWWWWWWWWWWWWW", "0123456789012345678901234567890123456789",
]

URLS = [
    "https://www.example.com/articles/2024/06/how-to-lay-out-text?ref=home&utm_source=newsletter",
    "http://example.org/a/b/c/d/e/f/g/h", "example.com/path/to/resource.html#section-2",
    "https://github.com/TextureGroup/Texture/blob/master/Source/ASTextNode.mm",
    "ftp://files.example.net/pub/releases/v2.0.1/archive.tar.gz",
    "user.name+tag@example.co.uk", "/usr/share/fonts/truetype/roboto/unhinted/Roboto-Regular.ttf",
    "C:\\Program Files\\Loom\\bin\\loom.exe", "www.loom-layout.dev/docs/wire-format#text",
    "https://maps.example.com/?q=52.5200,13.4050&z=14", "mailto:support@example.com",
    "src/Sources/LoomText/PangoTextMeasurer.swift:123", "and/or", "input/output", "24/7",
]

NUMBERS = [
    "$1,234.56", "3.14159", "+1 (555) 010-2030", "2024-06-01", "12:45 PM", "v2.0.1-beta.2",
    "99.9%", "1/2", "½", "-40 °C", "1,000,000", "0.000001", "#42", "No. 7", "§ 12",
    "ISBN 978-3-16-148410-0", "€ 9,99", "£5", "¥1000", "10×10", "5 ÷ 2", "A-1", "B2B", "3D",
    "COVID-19", "MP3", "1st", "2nd", "3rd", "4.5/5", "x86_64", "UTF-8", "192.168.0.1",
    "010-2030", "beta.2", "1.2.3.4.5.6.7.8.9", "(123)", "[1]", "{2}", "100 km/h", "9:41",
    "1920x1080", "4x4", "1-2", "2020–2024", "10\u00a0km", "p.\u00a012", "-5", "+5", "50 %", "$ 100",
]

PUNCT = [
    "“Quoted text,” she said.", "‘single’", "— em dash —", "en–dash", "wait…", "«guillemets»",
    "¿Qué?", "¡Hola!", "(parenthetical remark)", "[citation needed]", "e.g.", "i.e.,",
    "!!!", "???", "#hashtag", "@mention", "a / b", "semi; colon: done.", "it's", "don't",
    "rock 'n' roll", "\"double\"", "x * y = z", "a+b", "C++", "C#", "F#", "...", "--", "•",
    "·", "©2024", "®", "™", "foo_bar", "snake_case_identifier", "camelCaseIdentifier",
    "a -> b", "x => y", "<=", "!=", "word—word", "Mr.\u00a0Smith", "(see above)", "“nested ‘quotes’”",
    "end.)", "wait...", "?!", "don’t", "O’Neil", "50/50", "a/b/c",
]

SAFE_CHARS = None  # filled in make_strings: characters every font under test has


def sentence(rng, lo=4, hi=14):
    n = rng.randint(lo, hi)
    words = []
    for _ in range(n):
        r = rng.random()
        if r < 0.06:
            words.append(rng.choice(NUMBERS))
        elif r < 0.10:
            words.append(rng.choice(PUNCT))
        elif r < 0.12:
            words.append(rng.choice(URLS))
        else:
            words.append(rng.choice(WORDS))
    s = " ".join(words)
    s = s[0].upper() + s[1:]
    s += rng.choice([".", ".", ".", "!", "?", "…", ":", ""])
    if rng.random() < 0.25:
        i = rng.randrange(len(words))
        words[i] = words[i] + rng.choice([",", ";", " —", ":"])
    return s


def make_strings(rng, count):
    out, seen = [], set()

    def add(s):
        if s.strip() and s not in seen:
            seen.add(s)
            out.append(s)

    for s in LABELS:
        add(s)
    kinds = ["sentence", "sentences", "paragraph", "longword", "url", "numbers", "punct",
             "newlines", "spaces", "label2", "mixed"]
    k = 0
    while len(out) < count:
        kind = kinds[k % len(kinds)]
        k += 1
        if kind == "sentence":
            s = sentence(rng)
        elif kind == "sentences":
            s = " ".join(sentence(rng) for _ in range(rng.randint(2, 3)))
        elif kind == "paragraph":
            s = " ".join(sentence(rng, 6, 18) for _ in range(rng.randint(3, 6)))
        elif kind == "longword":
            a = sentence(rng, 2, 8).rstrip(".!?…:")
            s = a + " " + rng.choice(LONG_WORDS) + " " + sentence(rng, 1, 6).lower()
        elif kind == "url":
            s = rng.choice(["See ", "Visit ", "Open ", "Path: ", "", "Link: "]) + rng.choice(URLS)
            if rng.random() < 0.5:
                s += " " + sentence(rng, 2, 8).lower()
        elif kind == "numbers":
            s = " ".join(rng.choice(NUMBERS) for _ in range(rng.randint(2, 9)))
            if rng.random() < 0.5:
                s = rng.choice(["Total: ", "Call ", "Version ", "Price ", "Due "]) + s
        elif kind == "punct":
            s = " ".join(rng.choice(PUNCT + WORDS) for _ in range(rng.randint(3, 12)))
        elif kind == "newlines":
            parts = [rng.choice([sentence(rng, 1, 8), rng.choice(LABELS), rng.choice(WORDS), ""])
                     for _ in range(rng.randint(2, 4))]
            seps = ["\n", "\n", "\n\n", "\n \n"]
            s = parts[0]
            for p in parts[1:]:
                s += rng.choice(seps) + p
            r = rng.random()
            if r < 0.2:
                s += "\n"
            elif r < 0.3:
                s = "\n" + s
        elif kind == "spaces":
            ws = sentence(rng, 3, 10).split(" ")
            s = ""
            for i, w in enumerate(ws):
                s += w
                if i < len(ws) - 1:
                    s += rng.choice([" ", " ", "  ", "   ", "\t", " \t "])
            if rng.random() < 0.4:
                s = rng.choice(["  ", " ", "\t"]) + s
            if rng.random() < 0.4:
                s = s + rng.choice(["  ", " ", "\t"])
        elif kind == "label2":
            s = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
            s = s[0].upper() + s[1:]
        else:  # mixed
            s = rng.choice([sentence(rng), rng.choice(LONG_WORDS), rng.choice(URLS)]) + \
                rng.choice([" ", "\n", " — ", ", "]) + rng.choice(NUMBERS + PUNCT) + " " + sentence(rng, 1, 6)
        add(s)
    return out


def make_cases(seed, per_string, n_strings):
    rng = random.Random(seed)
    strings = make_strings(rng, n_strings)
    cases = []
    font_cycle = []
    for si, text in enumerate(strings):
        for j in range(per_string):
            if not font_cycle:
                font_cycle = list(range(len(FONTS)))
                rng.shuffle(font_cycle)
            fi = font_cycle.pop()
            size = rng.randint(12, 20) + (0.5 if rng.random() < 0.1 else 0)
            short = len(text) <= 16
            if short and rng.random() < 0.7:
                width = rng.randint(40, 160)
            else:
                width = int(round(math.exp(rng.uniform(math.log(40), math.log(500)))))
            if rng.random() < 0.1:
                width += 0.5
            max_lines = rng.choices([0, 1, 2, 3], weights=[50, 17, 17, 16])[0]
            line_height = None
            if rng.random() < 0.4:
                line_height = round(size * rng.uniform(1.0, 1.8) * 2) / 2
                if rng.random() < 0.15:
                    line_height += 0.25
            letter_spacing = 0.0
            if rng.random() < 0.3:
                letter_spacing = rng.choice([-0.5, -0.25, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0])
            cases.append({
                "id": len(cases), "string": si, "text": text, "font": FONTS[fi][0],
                "size": size, "width": width, "maxLines": max_lines,
                "lineHeight": line_height, "letterSpacing": letter_spacing,
            })
    return strings, cases


def make_spacing_cases(seed, count):
    """--truncation-spacing: tail-truncated paragraphs under letter spacing (issue 20's
    report: Noto Sans 20 px, letter spacing 3, three lines, width 267, ~212 characters),
    widths and spacings around it."""
    rng = random.Random(seed)
    pool = [x for x in make_strings(random.Random(seed), 400) if "\n" not in x]
    strings, cases = [], []
    for i in range(count):
        text = sentence(rng) if i % 4 else rng.choice(pool)
        while len(text) < rng.randint(190, 235):
            text += " " + (sentence(rng) if rng.random() < 0.5 else rng.choice(pool))
        strings.append(text)
        cases.append({"id": i, "string": i, "text": text, "font": "noto-sans",
                      "size": 20 if i % 2 == 0 else rng.choice([14, 16, 17, 18]),
                      "width": 267 if i % 3 == 0 else rng.randint(200, 320),
                      "maxLines": 3 if i % 2 == 0 else rng.randint(1, 3), "lineHeight": None,
                      "letterSpacing": 3.0 if i % 2 == 0 else rng.choice([0.5, 1.0, 1.5, 2.0, 3.0])})
    return strings, cases


# ---------------------------------------------------------------------------------------
# Script cases (--scripts): text in every script and emoji class, through the fallback chain
# ---------------------------------------------------------------------------------------

# The fallback chain of the contract, as Loom's FontCatalog builds it (GET /fonts lists it):
# Noto Sans, every Noto Sans <Script> face of fonts-noto-core (by family name), Noto Sans
# CJK SC, Noto Color Emoji. The browser gets the same list as CSS family names (the fonts
# are installed system-wide by scripts/install-deps.sh).
def fallback_chain(loom_fonts):
    return loom_fonts.get("fallback") or []


POOLS = {
    "zh": "我们 你好 世界 今天 天气 很好 中国 学习 工作 朋友 时间 问题 发展 经济 社会 文化 电脑 手机 网络 数据 "
          "布局 文本 测试 服务 用户 图片 视频 音乐 新闻 生活 城市 北京 上海 早上 晚上 非常 喜欢 一起 已经 可以".split(),
    "ja": "こんにちは ありがとう 東京 日本語 ちょっと きょう ラーメン コーヒー データ サーバー テスト レイアウト 今日 "
          "天気 勉強 仕事 友達 しゃしん きっぷ ゆっくり チョコレート パーティー ニュース 電車 駅 学校 先生 映画".split(),
    "ko": "안녕하세요 감사합니다 오늘 날씨 좋아요 한국어 공부 서버 데이터 레이아웃 테스트 친구 시간 문제 사람 학교 "
          "음악 영화 커피 도시 아침 저녁".split(),
    "ar": "مرحبا بالعالم هذا نص عربي للاختبار الخادم يقيس النص كتاب مدرسة الطالب جميل اليوم شكرا جزيلا السلام عليكم "
          "المدينة الصباح القهوة الموسيقى الأخبار".split(),
    "he": "שלום עולם זה טקסט בעברית לבדיקה השרת מודד את הטקסט ספר בית ספר תלמיד יפה היום תודה רבה העיר בוקר "
          "קפה מוזיקה חדשות".split(),
    "hi": "नमस्ते दुनिया यह हिंदी पाठ है परीक्षण सर्वर पाठ मापता है किताब विद्यालय छात्र सुंदर आज धन्यवाद शहर सुबह "
          "संगीत समाचार".split(),
    "th": "สวัสดีครับ ภาษาไทย ทดสอบ เซิร์ฟเวอร์ วัดข้อความ หนังสือ โรงเรียน นักเรียน สวยงาม วันนี้ ขอบคุณมาก เมือง "
          "ตอนเช้า กาแฟ ดนตรี ข่าว".split(),
}
# Thai prose without spaces between words (where ICU's and libthai's dictionaries disagree
# most: กรุงเทพมหานคร, เมืองหลวง, ภาษาไทย …), besides the pool's single words.
TH_SENTENCES = """วันนี้อากาศดีมากเราไปเที่ยวทะเลกันเถอะ ฉันชอบกินข้าวผัดกุ้งกับต้มยำ
ร้านกาแฟแห่งนี้เปิดตั้งแต่เจ็ดโมงเช้าจนถึงสี่ทุ่ม ประเทศไทยมีจังหวัดทั้งหมดเจ็ดสิบเจ็ดจังหวัด
กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย ขอบคุณสำหรับความช่วยเหลือของคุณนะครับ
นักเรียนทุกคนต้องส่งการบ้านภายในวันศุกร์นี้ รถไฟฟ้าสายสีเขียวจะปิดปรับปรุงในวันอาทิตย์
โปรแกรมนี้ช่วยให้การทำงานของคุณง่ายขึ้น กรุณาตรวจสอบข้อมูลก่อนกดยืนยันการสั่งซื้อ
เขากำลังอ่านหนังสือพิมพ์อยู่ในห้องสมุด ราคาน้ำมันปรับขึ้นอีกห้าสิบสตางค์ต่อลิตร
พรุ่งนี้จะมีการประชุมผู้ถือหุ้นประจำปี ระบบจะส่งรหัสผ่านใหม่ไปยังอีเมลของคุณ
สินค้าทุกชิ้นลดราคาพิเศษสุดสัปดาห์นี้เท่านั้น มหาวิทยาลัยเปิดรับสมัครนักศึกษาใหม่แล้ววันนี้
ฝนตกหนักทำให้น้ำท่วมถนนหลายสาย บริษัทของเรามีพนักงานมากกว่าหนึ่งพันคน
ตลาดน้ำดำเนินสะดวกเป็นสถานที่ท่องเที่ยวที่มีชื่อเสียง เชียงใหม่มีอากาศเย็นสบายในช่วงฤดูหนาว
แอปพลิเคชันนี้สามารถดาวน์โหลดได้ฟรี ทีมงานกำลังแก้ไขปัญหาที่เกิดขึ้นกับเซิร์ฟเวอร์
เครื่องบินจะออกเดินทางในอีกสามสิบนาที ภาษาไทยเป็นภาษาราชการของประเทศไทย""".split()
ZH_PUNCT = ["，", "。", "、", "！", "？", "「", "」", "“", "”", "："]
ZH_PAIRS = ["。「", "」。", "、「", "」、", "！」", "。」", "，「", "）。", "」「"]
EMOJI = {
    # The last two of text presentation by default, without a selector: only the emoji font
    # of the list has them (Chromium draws them in colour).
    "emoji-single": ["😀", "😂", "👋", "🎉", "🚀", "🍕", "🐱", "🌍", "💡", "🔥", "⚽", "☕", "⭐", "❤", "✈"],
    "emoji-fe0f": ["❤️", "☀️", "✈️", "☎️", "✔️", "⚠️", "♻️", "☺️"],
    "emoji-keycap": ["1️⃣", "2️⃣", "#️⃣", "*️⃣", "1⃣", "9⃣"],
    "emoji-flag": ["🇫🇷", "🇯🇵", "🇺🇸", "🇩🇪", "🇧🇷", "🇮🇳"],
    "emoji-zwj": ["👨‍👩‍👧", "👩‍💻", "🏳️‍🌈", "👨‍🍳", "🧑‍🤝‍🧑"],
    "emoji-skin": ["👍🏽", "👋🏿", "🙌🏻", "👏🏾"],
    "emoji-fe0e": ["☕︎", "⚽︎", "☀︎", "✈︎"],
}


# A second generator's vocabulary (`--pools second`): other words in every script (Arabic
# with harakat and Arabic digits, Hebrew with niqqud and maqaf, Devanagari conjuncts and the
# danda, Thai with tone marks and Thai digits), other emoji of each class and other CJK
# punctuation (brackets, 《》, ；, …): a stand-in for a held-out set made another way.
SECOND_POOLS = {
 "zh": "北京 上海 广州 深圳 经济 发展 科技 创新 人工智能 数据库 服务器 网络 安全 问题 解决 方案 用户 体验 设计 开发 测试 部署 云计算 手机 电脑 软件 硬件 系统 语言 文化 历史 地理 音乐 电影 图书馆 大学 学生 老师 医院 医生 饭店 咖啡馆".split(),
 "ja": "こんにちは ありがとう すみません 東京都 大阪 京都 新幹線 コンピューター プログラミング ソフトウェア インターネット ダウンロード キャンセル ファイル フォルダー パスワード ログイン メール ショッピング レストラン 料理 寿司 天ぷら 桜 富士山 勉強 仕事 会社 電話 ニュース 天気予報 ちゃんと きっと ゆっくり".split(),
 "ko": "대한민국 서울특별시 부산광역시 컴퓨터 프로그램 소프트웨어 인터넷 다운로드 비밀번호 로그인 이메일 쇼핑 식당 음식 김치 불고기 비빔밥 공원 도서관 대학교 학생 선생님 병원 의사 회사 전화 뉴스 일기예보 날씨가 맑습니다 감사합니다".split(),
 "ar": "مَرْحَبًا السَّلَامُ عَلَيْكُمْ اللُّغَةُ الْعَرَبِيَّةُ الحاسوب البرمجيات الإنترنت كلمة المرور تسجيل الدخول البريد الإلكتروني التسوق المطعم الطعام الحديقة المكتبة الجامعة الطالب المعلم المستشفى الطبيب الشركة الهاتف الأخبار الطقس مشمس ١٢٣ ٢٠٢٦ لماذا؟ نعم، لا".split(),
 "he": "שָׁלוֹם עִבְרִית מחשב תוכנה אינטרנט הורדה סיסמה התחברות דואר אלקטרוני קניות מסעדה אוכל פארק ספרייה אוניברסיטה סטודנט מורה בית חולים רופא חברה טלפון חדשות מזג אוויר ירושלים תל־אביב למה? כן,".split(),
 "hi": "भारत दिल्ली मुंबई कंप्यूटर प्रोग्राम सॉफ़्टवेयर इंटरनेट डाउनलोड पासवर्ड लॉगिन ईमेल खरीदारी रेस्तराँ भोजन उद्यान पुस्तकालय विश्वविद्यालय विद्यार्थी अध्यापक अस्पताल चिकित्सक कंपनी दूरभाष समाचार मौसम क्षमा त्रुटि श्रीमान् ज्ञान। १२३".split(),
 "th": "กรุงเทพฯ คอมพิวเตอร์ โปรแกรม ซอฟต์แวร์ อินเทอร์เน็ต ดาวน์โหลด รหัสผ่าน เข้าสู่ระบบ อีเมล ช้อปปิ้ง ร้านอาหาร อาหาร สวนสาธารณะ ห้องสมุด มหาวิทยาลัย นักศึกษา ครู โรงพยาบาล หมอ บริษัท โทรศัพท์ ข่าว พยากรณ์อากาศ น้ำ ผู้ใหญ่ ก็ได้ ๑๒๓".split(),
}
SECOND_TH_SENTENCES = """ผมอยากไปเที่ยวเชียงรายในช่วงปีใหม่ คุณแม่ทำอาหารอร่อยมากทุกวัน
เด็กๆกำลังเล่นฟุตบอลอยู่ที่สนามหลังโรงเรียน กรุณาปิดโทรศัพท์มือถือระหว่างการแสดง
ธนาคารจะปิดทำการในวันหยุดนักขัตฤกษ์ พนักงานทุกคนต้องเข้าร่วมการอบรมความปลอดภัย
ฉันชอบฟังเพลงลูกทุ่งตอนขับรถกลับบ้าน ร้านนี้ขายก๋วยเตี๋ยวเรือมาสามสิบปีแล้ว
หมอแนะนำให้ดื่มน้ำวันละแปดแก้ว นักท่องเที่ยวต่างชาติชอบมาเที่ยวภูเก็ต""".split()
SECOND_EMOJI = {
 "emoji-single": ["🥰", "🤔", "🙏", "💪", "🌸", "🍜", "🐶", "🏠", "⌚", "⌛", "🎵", "🌈", "☺", "✉"],
 "emoji-fe0f": ["✂️", "✏️", "©️", "®️", "™️", "↔️", "▶️", "⬆️"],
 "emoji-keycap": ["3️⃣", "0️⃣", "🔟", "5️⃣", "#⃣", "7⃣"],
 "emoji-flag": ["🇨🇦", "🇰🇷", "🇮🇹", "🇪🇸", "🇲🇽", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"],
 "emoji-zwj": ["🧑🏽‍💻", "👩🏻‍🔬", "🤷‍♀️", "🙋🏾‍♂️", "❤️‍🔥", "😶‍🌫️"],
 "emoji-skin": ["🫶🏼", "🤝🏻", "💅🏾", "🧒🏿"],
 "emoji-fe0e": ["❤︎", "☺︎", "♥︎", "✉︎"],
}
SECOND_ZH_PUNCT = ["，", "。", "、", "！", "？", "《", "》", "（", "）", "；", "…", "——"]


def use_second_pools():
    """Replaces the script cases' vocabulary by the second generator's (same structure)."""
    POOLS.update(SECOND_POOLS)
    TH_SENTENCES[:] = SECOND_TH_SENTENCES
    EMOJI.update(SECOND_EMOJI)
    ZH_PUNCT[:] = SECOND_ZH_PUNCT


def script_string(rng, script):
    latin = lambda: rng.choice(WORDS)  # noqa: E731
    if script in ("zh", "ja"):
        parts = []
        for _ in range(rng.randint(2, 14)):
            parts.append(rng.choice(POOLS[script]))
            r = rng.random()
            if r < 0.08:
                parts.append(rng.choice(ZH_PAIRS))  # adjacent full-width punctuation (squeezed)
            elif r < 0.25:
                parts.append(rng.choice(ZH_PUNCT))
            elif r < 0.3:
                parts.append(rng.choice([" " + latin() + " ", str(rng.randint(1, 2024))]))
        return "".join(parts)
    if script == "th":
        out = ""
        for _ in range(rng.randint(1, 5)):
            if rng.random() < 0.35:
                out += rng.choice(TH_SENTENCES)
            else:
                out += "".join(rng.choice(POOLS["th"]) for _ in range(rng.randint(1, 4)))
            out += rng.choice([" ", " ", " " + latin() + " "])
        return out.strip()
    if script in POOLS:
        words = []
        for _ in range(rng.randint(2, 16)):
            r = rng.random()
            words.append(latin() if r < 0.12 else str(rng.randint(1, 9999)) if r < 0.2 else rng.choice(POOLS[script]))
        return " ".join(words)
    if script in EMOJI:
        words = []
        for _ in range(rng.randint(1, 10)):
            r = rng.random()
            if r < 0.5:
                words.append("".join(rng.choice(EMOJI[script]) for _ in range(rng.randint(1, 3))))
            else:
                words.append(latin())
        return " ".join(words)
    # mixed: Latin with pieces of everything
    words = []
    for _ in range(rng.randint(3, 14)):
        r = rng.random()
        if r < 0.5:
            words.append(latin())
        elif r < 0.65:
            words.append(rng.choice(EMOJI[rng.choice(sorted(EMOJI))]))
        else:
            words.append(rng.choice(POOLS[rng.choice(sorted(POOLS))]))
    return " ".join(words)


SCRIPTS = sorted(POOLS) + sorted(EMOJI) + ["mixed"]


def make_script_cases(seed, count):
    rng = random.Random(seed * 7919 + 20)
    cases = []
    for k in range(count):
        script = SCRIPTS[k % len(SCRIPTS)]
        text = script_string(rng, script)
        fi = rng.randrange(len(FONTS))
        size = rng.randint(12, 20)
        width = int(round(math.exp(rng.uniform(math.log(60), math.log(400)))))
        max_lines = rng.choices([0, 1, 2, 3], weights=[55, 15, 15, 15])[0]
        line_height = None
        if rng.random() < 0.3:
            line_height = round(size * rng.uniform(1.2, 1.8))
        letter_spacing = rng.choice([0.5, 1.0, 2.0]) if rng.random() < 0.15 else 0.0
        cases.append({"id": k, "string": k, "text": text, "font": FONTS[fi][0], "script": script, "weight": FONTS[fi][2],
                      "size": size, "width": width, "maxLines": max_lines, "lineHeight": line_height,
                      "letterSpacing": letter_spacing})
    return [c["text"] for c in cases], cases


# ---------------------------------------------------------------------------------------
# Fonts
# ---------------------------------------------------------------------------------------

def resolve_font_files():
    files = {}
    for key, _, _, candidates in FONTS:
        path = next((p for p in candidates if os.path.isfile(p)), None)
        if path is None:
            raise SystemExit(f"error: no font file for {key}: tried {', '.join(candidates)}")
        files[key] = path
    return files


def font_charsets(files):
    """Code point ranges of each file (fc-query), or None when fc-query is missing."""
    if shutil.which("fc-query") is None:
        return None
    sets = {}
    for key, path in files.items():
        out = subprocess.run(["fc-query", "--format=%{charset}", path], capture_output=True,
                             text=True, check=False).stdout
        ranges = []
        for r in out.split():
            a, _, b = r.partition("-")
            ranges.append((int(a, 16), int(b or a, 16)))
        sets[key] = ranges
    return sets


def missing_chars(text, ranges):
    return sorted({c for c in text if c not in "\n\t " and
                   not any(a <= ord(c) <= b for a, b in ranges)})


# ---------------------------------------------------------------------------------------
# Browser side
# ---------------------------------------------------------------------------------------

PAGE_JS = r"""
"use strict";
function lineClusters(rects, tol) {
  // rects: [{l,t,r,b}] relative to the div; returns [{top, rects:[...]}] sorted by top
  const sorted = rects.slice().sort((a, b) => a.t - b.t);
  const lines = [];
  for (const x of sorted) {
    const last = lines[lines.length - 1];
    if (last && x.t - last.top < tol) last.rects.push(x);
    else lines.push({top: x.t, rects: [x]});
  }
  return lines;
}
function rel(rect, box) {
  return {l: rect.left - box.left, t: rect.top - box.top, r: rect.right - box.left, b: rect.bottom - box.top, w: rect.width};
}
async function main() {
  const out = {userAgent: navigator.userAgent, dpr: window.devicePixelRatio, fonts: {}, results: [], errors: []};
  try {
    await Promise.all(FACES.map(f => document.fonts.load(`16px "${f}"`, "a")));
    await document.fonts.ready;
    document.fonts.forEach(ff => { out.fonts[ff.family.replace(/"/g, "")] = ff.status; });
    for (const f of FACES) if (out.fonts[f] !== "loaded") out.errors.push(`font ${f} not loaded: ${out.fonts[f]}`);
    const root = document.getElementById("cases");
    // Per (face, size): advance of "…" and the line-height: normal of one line.
    const probes = {};
    function probe(face, size) {
      const k = face + "|" + size;
      if (probes[k]) return probes[k];
      const d = document.createElement("div");
      d.style.cssText = `font-family:"${face}";font-size:${size}px;line-height:normal;white-space:pre;` +
        "font-weight:400;font-style:normal;font-synthesis:none;letter-spacing:0;width:max-content";
      const s = document.createElement("span");
      s.textContent = "\u2026";
      d.appendChild(s);
      root.appendChild(d);
      probes[k] = {ellipsis: s.getBoundingClientRect().width, normal: d.getBoundingClientRect().height};
      d.remove();
      return probes[k];
    }
    const divs = [];
    for (const c of CASES) {
      const d = document.createElement("div");
      const face = FACE_OF[c.font];
      let css = `width:${c.width}px;font-family:"${face}"${c.script ? CHAIN : ""};font-size:${c.size}px;font-weight:${c.weight || 400};` +
        "font-style:normal;font-synthesis:none;" +
        `line-height:${c.lineHeight === null ? "normal" : c.lineHeight + "px"};letter-spacing:${c.letterSpacing}px;` +
        "white-space:pre-line;overflow-wrap:break-word;word-break:normal;hyphens:manual;text-align:left;" +
        "text-indent:0;margin:0;padding:0;border:0;";
      // Script cases: each paragraph's direction from its first strong character.
      if (c.script) css += "unicode-bidi:plaintext;";
      if (c.maxLines > 0)
        css += `display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:${c.maxLines};overflow:hidden;`;
      d.style.cssText = css;
      d.textContent = c.text;
      root.appendChild(d);
      divs.push(d);
    }
    for (let i = 0; i < CASES.length; i++) {
      const c = CASES[i], d = divs[i], warn = [];
      const p = probe(FACE_OF[c.font], c.size);
      const box = d.getBoundingClientRect();
      const tnode = d.firstChild;
      const range = document.createRange();
      range.selectNodeContents(d);
      const rects = [...range.getClientRects()].map(r => rel(r, box));
      const lh = c.lineHeight === null ? p.normal : c.lineHeight;
      const lines = lineClusters(rects, Math.max(0.5, Math.min(2, lh / 3)));
      const total = lines.length;
      const visible = c.maxLines > 0 ? Math.min(c.maxLines, total) : total;
      const truncated = c.maxLines > 0 && total > c.maxLines;
      const widths = [];
      let cutInfo = null;
      for (let li = 0; li < visible; li++) {
        const L = lines[li];
        const inked = L.rects.filter(x => x.w > 0);
        let full = inked.length ? Math.max(...inked.map(x => x.r)) : 0;
        const left = inked.length ? Math.min(...inked.map(x => x.l)) : 0;
        if (c.script) {
          // Right-to-left runs: the line's extent, from its leftmost to its rightmost glyph.
          const extent = full - left;
          if (truncated && li === visible - 1) {
            // Chromium reports the line's fragments and, for the one it cut, the kept part
            // too (sharing the fragment's left edge, or its right edge when the fragment runs
            // right to left): the line loses what the cut fragment lost.
            let lost = 0;
            for (const x of inked) for (const y of inked)
              if (y !== x && y.w < x.w - 0.01 && (Math.abs(x.l - y.l) < 0.01 || Math.abs(x.r - y.r) < 0.01))
                lost = Math.max(lost, x.w - y.w);
            const vis = extent - lost;
            cutInfo = {full: extent, visible: vis, ellipsis: p.ellipsis};
            widths.push(vis + p.ellipsis);
          } else {
            widths.push(extent);
          }
          continue;
        }
        if (left > 0.01) warn.push(`line ${li} starts at ${left}`);
        if (truncated && li === visible - 1) {
          // Chromium keeps the whole line's fragment and adds the part left of the
          // ellipsis (same left, smaller right); without a cut there is no such part.
          const parts = L.rects.filter(x => Math.abs(x.l - left) < 0.01 && x.r < full - 0.01);
          const vis = parts.length ? Math.min(...parts.map(x => x.r)) : full;
          cutInfo = {full: full, visible: vis, ellipsis: p.ellipsis};
          widths.push(vis + p.ellipsis);
        } else {
          if (inked.length > 1) warn.push(`line ${li} has ${inked.length} fragments`);
          widths.push(full);
        }
      }
      const height = box.height;
      const expect = visible * lh;
      if (!c.script && Math.abs(height - expect) > 0.05) warn.push(`height ${height} != ${visible} x ${lh}`);
      // Diagnostics: the text of each line (per code unit, by the top of its first rect).
      const texts = lines.map(() => ""), charRight = lines.map(() => 0);
      let cur = 0;
      const tops = lines.map(L => L.top);
      for (let k = 0; k < tnode.length; k++) {
        const r = document.createRange();
        r.setStart(tnode, k); r.setEnd(tnode, k + 1);
        const rs = r.getClientRects();
        if (rs.length) {
          const t = rs[0].top - box.top;
          let best = 0;
          for (let j = 1; j < tops.length; j++) if (Math.abs(tops[j] - t) < Math.abs(tops[best] - t)) best = j;
          cur = best;
          if (!/[ \t\n]/.test(tnode.data[k]) && rs[0].width > 0)
            charRight[cur] = Math.max(charRight[cur], rs[0].right - box.left);
        }
        texts[cur] += tnode.data[k];
      }
      // Cross-check: a line's width is the right edge of its last non-space character.
      for (let li = 0; li < visible; li++)
        if (!c.script && !(truncated && li === visible - 1) && Math.abs(charRight[li] - widths[li]) > 0.02)
          warn.push(`line ${li}: fragment right ${widths[li]} != last character right ${charRight[li]}`);
      // Every line as laid out (hidden ones too, no ellipsis), for classifying differences.
      const allWidths = lines.map(L => { const k = L.rects.filter(x => x.w > 0);
        return k.length ? Math.max(...k.map(x => x.r)) - (c.script ? Math.min(...k.map(x => x.l)) : 0) : 0; });
      out.results.push({id: c.id, linesTotal: total, lines: visible, truncated: truncated, allLineWidths: allWidths,
        width: widths.length ? Math.max(...widths) : 0, height: height, lineWidths: widths,
        lineHeight: lh, lineTexts: texts, cut: cutInfo, warnings: warn});
    }
  } catch (e) {
    out.errors.push("exception: " + e + " " + (e.stack || ""));
  }
  document.getElementById("result").textContent = JSON.stringify(out);
  document.getElementById("cases").remove();
  document.title = "done";
}
main();
"""


def build_page(cases, files, chain=()):
    faces = {key: f"LoomCmp-{key}" for key in files}
    css = []
    for key, path in files.items():
        url = "file://" + path.replace(" ", "%20")
        css.append(f'@font-face {{ font-family: "{faces[key]}"; src: url("{url}"); '
                   f'font-weight: 400; font-style: normal; font-display: block; }}')
    data = {
        "FACES": sorted(faces.values()),
        "FACE_OF": faces,
        "CHAIN": "".join(f', "{name}"' for name in chain),
        "CASES": [{k: c.get(k) for k in ("id", "text", "font", "size", "width", "maxLines",
                                          "lineHeight", "letterSpacing", "script", "weight")} for c in cases],
    }
    consts = "".join(f"const {k} = {json.dumps(v, ensure_ascii=True)};\n" for k, v in data.items())
    consts = consts.replace("</", "<\\/")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>measuring</title><style>\n" + "\n".join(css) +
            "\nbody { margin: 0; } #cases { width: 2000px; }\n</style></head><body>"
            "<div id=\"cases\"></div><pre id=\"result\"></pre>\n<script>\n" + consts + PAGE_JS +
            "</script></body></html>\n")


def chromium_version(chromium):
    try:
        out = subprocess.run([chromium, "--version"], capture_output=True, text=True, timeout=60).stdout
        return out.strip().splitlines()[-1] if out.strip() else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def run_chromium(chromium, page_path, workdir, budget_ms, timeout):
    profile = os.path.join(workdir, "chromium-profile")
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--no-default-browser-check", "--disable-extensions", "--disable-sync",
           "--force-device-scale-factor=1", "--window-size=1280,800", "--hide-scrollbars",
           "--allow-file-access-from-files", "--lang=en-US", f"--user-data-dir={profile}",
           f"--virtual-time-budget={budget_ms}", "--dump-dom", "file://" + page_path]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    m = re.search(r'<pre id="result">(.*?)</pre>', proc.stdout, re.S)
    if not m or not m.group(1).strip():
        sys.stderr.write(proc.stderr[-3000:])
        raise RuntimeError(f"chromium produced no result (exit {proc.returncode}); "
                           "try a larger --virtual-time-budget")
    return json.loads(html.unescape(m.group(1)))


# ---------------------------------------------------------------------------------------
# Loom side
# ---------------------------------------------------------------------------------------

def loom_request(case, scale):
    fam = next(f for f in FONTS if f[0] == case["font"])
    text = {"type": "text", "text": case["text"],
            "font": {"family": fam[1], "size": case["size"], "weight": fam[2], "italic": False}}
    if case["lineHeight"] is not None:
        text["lineHeight"] = case["lineHeight"]
    if case["letterSpacing"]:
        text["letterSpacing"] = case["letterSpacing"]
    if case["maxLines"]:
        text["maximumNumberOfLines"] = case["maxLines"]
    return {"sizeRange": {"min": {"width": 0, "height": 0}, "max": {"width": case["width"], "height": None}},
            "scale": scale, "root": text}


class LoomServer:
    def __init__(self, binary, workers):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.proc = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", str(self.port),
                                      "--workers", str(workers), "--log-level", "warning",
                                      "--cache-entries", "0"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("loom serve exited: " + self.proc.stderr.read().decode(errors="replace")[-2000:])
            try:
                status, _ = self.call("GET", "/readyz")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("loom serve did not become ready")

    def call(self, method, path, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def batch(self, requests):
        status, body = self.call("POST", "/layout/batch", json.dumps({"items": requests}).encode())
        if status != 200:
            raise RuntimeError(f"/layout/batch: HTTP {status}: {body[:500]!r}")
        return json.loads(body)["results"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class LoomRunner:
    """Lays out LayoutRequests with a private `loom serve` (batches) or `loom layout -`."""

    def __init__(self, binary, use_cli, workers):
        self.binary = binary
        self.server = None if use_cli else LoomServer(binary, workers)

    def layout(self, requests, chunk=100):
        out = []
        if self.server is None:
            for req in requests:
                p = subprocess.run([self.binary, "layout", "-"], input=json.dumps(req),
                                   capture_output=True, text=True, check=False)
                out.append(json.loads(p.stdout) if p.returncode == 0 else
                           {"error": p.stderr.strip() or p.stdout.strip()})
            return out
        for i in range(0, len(requests), chunk):
            out += self.server.batch(requests[i:i + chunk])
        return out

    def stop(self):
        if self.server is not None:
            self.server.stop()


def loom_entry(resp):
    if "error" in resp:
        return None
    lay = resp["layout"]
    return {"width": lay["frame"]["width"], "height": lay["frame"]["height"],
            "lines": lay.get("lines"), "truncated": lay.get("truncated")}


# ---------------------------------------------------------------------------------------
# Comparison and report
# ---------------------------------------------------------------------------------------

def ceil_to(v, scale):
    return math.ceil(v * scale - 1e-9) / scale


def pct(n, d):
    # No cases agree with nothing: 0 %, not 100 % (main refuses zero cases anyway).
    return 100.0 * n / d if d else 0.0


def compare(cases, browser, loom1, loomraw):
    rows = []
    for c, b, l1, lr in zip(cases, browser, loom1, loomraw):
        assert b["id"] == c["id"]
        r = {"case": c, "browser": b, "loom": l1, "loomRaw": lr}
        if l1 is None or lr is None:
            r["error"] = "loom error"
            rows.append(r)
            continue
        bw = min(b["width"], c["width"])  # Texture limits the size to the offered maximum
        bh = b["height"]
        r["bw"], r["bh"] = bw, bh
        r["dw"] = lr["width"] - bw
        r["dh"] = lr["height"] - bh
        r["linesOK"] = b["lines"] == l1["lines"]
        r["truncOK"] = b["truncated"] == l1["truncated"]
        r["wOK"] = abs(r["dw"]) <= 1.0 + 1e-9
        r["hOK"] = abs(r["dh"]) <= 1.0 + 1e-9
        # What a client sees at scale 1: Loom's frame vs the browser's size ceiled likewise.
        r["w1OK"] = ceil_to(bw, 1) == l1["width"]
        r["h1OK"] = ceil_to(bh, 1) == l1["height"]
        r["w1near"] = abs(ceil_to(bw, 1) - l1["width"]) <= 1
        r["h1near"] = abs(ceil_to(bh, 1) - l1["height"]) <= 1
        # Loom's own consistency: scale 64 ceiled to whole pixels must give the scale-1 frame.
        r["scaleConsistent"] = (ceil_to(lr["width"], 1) == l1["width"] and ceil_to(lr["height"], 1) == l1["height"])
        rows.append(r)
    return rows


def is_bad(r):
    return "error" in r or not (r["linesOK"] and r["wOK"] and r["hOK"])


def worst_rows(rows, n):
    return [r for r in sorted(rows, key=severity, reverse=True) if is_bad(r)][:n]


def add_line_diagnostics(rows, runner):
    """For each line the browser laid out (visible ones and the first hidden one), Loom's
    width of that line's text alone with no width limit: where it exceeds the container
    or differs from the browser's width, Loom breaks or measures differently there."""
    reqs, where = [], []
    for r in rows:
        c, b = r["case"], r["browser"]
        for i, t in enumerate(b["lineTexts"][:b["lines"] + 1]):
            one = dict(c, text=t, width=None, maxLines=0)
            req = loom_request(one, RAW_SCALE)
            req["sizeRange"]["max"]["width"] = None
            reqs.append(req)
            where.append((r, i))
    if not reqs:
        return
    for (r, i), resp in zip(where, runner.layout(reqs)):
        e = loom_entry(resp)
        r.setdefault("loomLineWidths", []).append(None if e is None else e["width"])


# Sequences that Inter's contextual alternates / ligatures change (arrows, x between digits,
# a hyphen before a digit), and the common f-ligatures of the other fonts.
CALT_TRIGGERS = re.compile(r"->|=>|<-|<=|>=|\d ?x ?\d|\w-\d|f[fil]")
EPSILON = 1 / 64  # Chromium's LayoutUnit: a line fits when its width <= available + 1/64


def likely_cause(r):
    """A heuristic label for a disagreement (see the report's 'likely causes')."""
    c, b = r["case"], r["browser"]
    if "error" in r:
        return "loom error"
    if any(c["width"] - 2 * EPSILON < x <= c["width"] + EPSILON + 1e-9 for x in b["allLineWidths"]):
        return ("a line within 1/64 px of W: Chromium fits a line up to W + 1/64 px (LayoutUnit "
                "epsilon), Loom breaks it")
    if b["truncated"] and c["letterSpacing"]:
        return ("truncation with letter spacing: Chromium's ellipsis carries no letter spacing "
                "(fit and width), Loom adds one after \"…\"")
    if c["letterSpacing"] and CALT_TRIGGERS.search(c["text"]):
        return ("letter spacing: Chromium turns ligatures and contextual alternates off (e.g. Inter's "
                "calt: -> => 1x2 1-2), Pango keeps them")
    if b["truncated"]:
        return "truncation, other"
    return "other"


def severity(r):
    if "error" in r:
        return (3, 0)
    return (0 if r["linesOK"] else 1, max(abs(r["dw"]) if not r["wOK"] else 0, abs(r["dh"]) if not r["hOK"] else 0,
                                          abs(r["dw"]), abs(r["dh"])))


def features(c, b):
    f = {
        "font": c["font"],
        "script": c.get("script") or "latin",
        "letterSpacing": "0" if not c["letterSpacing"] else ("<0" if c["letterSpacing"] < 0 else ">0"),
        "lineHeight": "normal" if c["lineHeight"] is None else "px",
        "maxLines": str(c["maxLines"]),
        "browser truncated": "yes" if b["truncated"] else "no",
        "newline in text": "yes" if "\n" in c["text"] else "no",
        "browser lines": "1" if b["linesTotal"] <= 1 else ("2-3" if b["linesTotal"] <= 3 else "4+"),
    }
    return f


def fmt_text(s, n=110):
    s = json.dumps(s, ensure_ascii=False)
    return s if len(s) <= n else s[:n - 4] + "…\""


def report(rows, worst, args, meta, out=sys.stdout):
    ok = [r for r in rows if "error" not in r]
    n = len(rows)
    p_lines = pct(sum(r["linesOK"] for r in ok), n)
    p_w = pct(sum(r["wOK"] for r in ok), n)
    p_h = pct(sum(r["hOK"] for r in ok), n)
    p = lambda key: pct(sum(r[key] for r in ok), n)  # noqa: E731
    w = out.write
    w(f"chromium: {meta['chromium']}  (DPR {meta['dpr']})\n")
    w(f"loom: {meta['loom']}   seed {args.seed}, {meta['strings']} strings, {n} cases\n")
    if meta["warnings"]:
        w(f"browser-side warnings: {len(meta['warnings'])} (first: {meta['warnings'][0]})\n")
    errs = n - len(ok)
    if errs:
        w(f"loom errors: {errs}\n")
    inconsistent = sum(not r["scaleConsistent"] for r in ok)
    if inconsistent:
        w(f"note: {inconsistent} cases where Loom at scale {RAW_SCALE}, ceiled, differs from Loom at scale 1\n")
    w("\n")
    w(f"  line count equal          {p_lines:6.1f} %   (truncated flag equal {p('truncOK'):.1f} %)\n")
    w(f"  width  within 1 px (raw)  {p_w:6.1f} %   frame equal at scale 1 {p('w1OK'):5.1f} %, ±1 px {p('w1near'):5.1f} %\n")
    w(f"  height within 1 px (raw)  {p_h:6.1f} %   frame equal at scale 1 {p('h1OK'):5.1f} %, ±1 px {p('h1near'):5.1f} %\n")
    if ok:
        dws = sorted(r["dw"] for r in ok)
        dhs = sorted(r["dh"] for r in ok)
        q = lambda a, f: a[min(len(a) - 1, int(f * len(a)))]  # noqa: E731
        w(f"  Loom − browser, width:  min {dws[0]:+.2f}  p5 {q(dws, .05):+.2f}  median {q(dws, .5):+.3f}  "
          f"p95 {q(dws, .95):+.2f}  max {dws[-1]:+.2f} px\n")
        w(f"  Loom − browser, height: min {dhs[0]:+.2f}  p5 {q(dhs, .05):+.2f}  median {q(dhs, .5):+.3f}  "
          f"p95 {q(dhs, .95):+.2f}  max {dhs[-1]:+.2f} px\n")

    # Failure rate by feature.
    bad = is_bad
    w("\ndisagreements (lines, or width/height beyond 1 px) by feature:\n")
    table = {}
    for r in rows:
        for k, v in features(r["case"], r["browser"]).items():
            t = table.setdefault(k, {}).setdefault(v, [0, 0, 0, 0, 0])
            t[0] += 1
            if bad(r):
                t[1] += 1
            if "error" not in r:
                t[2] += not r["linesOK"]
                t[3] += not r["wOK"]
                t[4] += not r["hOK"]
    for k, vals in table.items():
        cells = []
        for v in sorted(vals):
            t = vals[v]
            cells.append(f"{v}: {t[1]}/{t[0]} (L{t[2]} W{t[3]} H{t[4]})")
        w(f"  {k:18s} " + ";  ".join(cells) + "\n")

    causes = {}
    for r in rows:
        if bad(r):
            causes.setdefault(likely_cause(r), []).append(r["case"]["id"])
    if causes:
        w("\nlikely causes of the disagreements (heuristic):\n")
        for cause, ids in sorted(causes.items(), key=lambda kv: -len(kv[1])):
            more = ", …" if len(ids) > 8 else ""
            w(f"  {len(ids):4d}  {cause}  (e.g. #{', #'.join(map(str, ids[:8]))}{more})\n")

    if worst:
        w(f"\nworst {len(worst)} disagreements (Loom raw = scale {RAW_SCALE}; Δ = Loom − browser):\n")
    for r in worst:
        c, b = r["case"], r["browser"]
        lh = "normal" if c["lineHeight"] is None else f"{c['lineHeight']}px"
        w(f"\n#{c['id']} {c['font']} {c['size']}px W={c['width']} maxLines={c['maxLines']} "
          f"lineHeight={lh} letterSpacing={c['letterSpacing']}\n")
        w(f"   text {fmt_text(c['text'])}\n")
        if "error" in r:
            w(f"   loom error\n")
            continue
        l1, lr = r["loom"], r["loomRaw"]
        w(f"   browser lines {b['lines']}/{b['linesTotal']}{' truncated' if b['truncated'] else ''} "
          f"w {r['bw']:.3f} h {r['bh']:.3f}   |  loom lines {l1['lines']}{' truncated' if l1['truncated'] else ''} "
          f"w {lr['width']:.3f} h {lr['height']:.3f}   Δw {r['dw']:+.3f} Δh {r['dh']:+.3f}\n")
        w("   browser lines (width as laid out | Loom's width of that text alone, '>' = wider than W):\n")
        shown = b["lineTexts"][:b["lines"] + 1]
        for i, t in enumerate(shown):
            mark = "" if i < b["lines"] else " (hidden)"
            width = f"{b['lineWidths'][i]:8.3f}" if i < len(b["lineWidths"]) else "        "
            lw = (r.get("loomLineWidths") or [])
            lw = lw[i] if i < len(lw) else None
            lws = "        " if lw is None else f"{lw:8.3f}"
            flag = ">" if lw is not None and lw > c["width"] + 1e-9 else " "
            w(f"   {i + 1:3d} {width} |{lws}{flag} {fmt_text(t, 90)}{mark}\n")
        if len(b["lineTexts"]) > len(shown):
            w(f"       … {len(b['lineTexts']) - len(shown)} more lines\n")
        if b.get("cut"):
            cut = b["cut"]
            w(f"   clamped line: whole {cut['full']:.3f}, kept {cut['visible']:.3f}, + ellipsis {cut['ellipsis']:.3f}\n")
        if b["warnings"]:
            w(f"   browser warnings: {'; '.join(b['warnings'])}\n")

    trunc_bad = sum(not r["truncOK"] for r in ok)
    summary = (f"text vs chromium: {n} cases, lines {p_lines:.1f} %, width ±1px {p_w:.1f} %, "
               f"height ±1px {p_h:.1f} %, truncated flag differs in {trunc_bad}, loom errors {errs}, "
               f"browser warnings {len(meta['warnings'])}")
    w("\n" + summary + "\n")
    return p_lines, p_w, p_h, trunc_bad, errs


def script_gates(rows, args):
    """Per-script figures of a --scripts run, and its gates (exit 1 when one fails)."""
    def figures(rs):
        n = len(rs)
        ok = [r for r in rs if "error" not in r]
        return (n, pct(sum(r["linesOK"] for r in ok), n), pct(sum(r["wOK"] and r["hOK"] for r in ok), n))
    print("\nper script: cases, lines equal, width and height within 1 px")
    failed = []
    n, lines, size = figures(rows)
    for script in SCRIPTS:
        rs = [r for r in rows if r["case"]["script"] == script]
        if not rs:
            continue
        k, l, z = figures(rs)
        print(f"  {script:14s} {k:4d}  lines {l:6.1f} %  size {z:6.1f} %")
        if args.min_script_lines is not None and l < args.min_script_lines:
            failed.append(f"{script} lines {l:.1f} % < {args.min_script_lines}")
    print(f"  {'all':14s} {n:4d}  lines {lines:6.1f} %  size {size:6.1f} %")
    if args.min_lines is not None and lines < args.min_lines:
        failed.append(f"lines {lines:.1f} % < {args.min_lines}")
    if args.min_size is not None and size < args.min_size:
        failed.append(f"size {size:.1f} % < {args.min_size}")
    errs = sum("error" in r for r in rows)
    if errs:
        failed.append(f"{errs} loom errors")
    for f in failed:
        print(f"gate: {f}", file=sys.stderr)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1, help="case generator seed (default 1)")
    ap.add_argument("--strings", type=int, default=320, help="number of distinct strings (default 320)")
    ap.add_argument("--per-string", type=int, default=2, help="cases per string (default 2)")
    ap.add_argument("--loom", default=DEFAULT_LOOM, help="loom binary (default .build/release/loom)")
    ap.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser") or "chromium")
    ap.add_argument("--cli", action="store_true", help="run `loom layout -` per case instead of `loom serve`")
    ap.add_argument("--workers", type=int, default=1, help="loom serve workers (default 1: keep CPU modest)")
    ap.add_argument("--virtual-time-budget", type=int, default=10000, help="chromium budget in ms")
    ap.add_argument("--timeout", type=int, default=600, help="seconds for chromium to finish")
    ap.add_argument("--worst", type=int, default=15, help="disagreements to list (default 15)")
    ap.add_argument("--min-agreement", type=float, default=None,
                    help="the gate: exit 1 when line/width/height agreement (%%) is below this, a "
                         "truncated flag differs or Loom answers a case with an error")
    ap.add_argument("--min-cases", type=int, default=1,
                    help="exit 2 when fewer cases were compared (default 1)")
    ap.add_argument("--max-browser-warnings", type=int, default=0,
                    help="exit 2 when the browser side warns more often (default 0)")
    ap.add_argument("--keep", metavar="DIR", help="keep the page and raw results in DIR")
    ap.add_argument("--json", metavar="FILE", help="write every case with both measurements to FILE")
    ap.add_argument("--only", metavar="IDS", help="comma-separated case ids to run (debugging)")
    ap.add_argument("--scripts", type=int, metavar="N", default=0,
                    help="instead of the Latin cases: N cases of text in every script and emoji class "
                         "(CJK, Japanese, Korean, Arabic, Hebrew, Devanagari, Thai, emoji classes, mixed), "
                         "with the fallback chain of GET /fonts as the CSS font-family list")
    ap.add_argument("--pools", choices=["first", "second"], default="first",
                    help="--scripts vocabulary: the gated one (first) or a second generator's words, emoji and "
                         "punctuation (second), to check against text made another way")
    ap.add_argument("--truncation-spacing", type=int, metavar="N", default=0,
                    help="N tail-truncated paragraphs under letter spacing (Noto Sans) instead of the default cases")
    ap.add_argument("--min-lines", type=float, default=None, help="--scripts gate: line count agreement (%%)")
    ap.add_argument("--min-size", type=float, default=None,
                    help="--scripts gate: width and height both within 1 px (%%)")
    ap.add_argument("--min-script-lines", type=float, default=None,
                    help="--scripts gate: line count agreement of each script (%%)")
    args = ap.parse_args()
    if args.pools == "second":
        use_second_pools()

    try:
        os.nice(5)  # another job may be building on this machine
    except OSError:
        pass

    files = resolve_font_files()
    if args.scripts:
        strings, cases = make_script_cases(args.seed, args.scripts)
        args.cli = False  # the chain comes from the server's GET /fonts
    elif args.truncation_spacing:
        strings, cases = make_spacing_cases(args.seed, args.truncation_spacing)
    else:
        strings, cases = make_cases(args.seed, args.per_string, args.strings)
    charsets = None if args.scripts else font_charsets(files)
    if charsets:
        for c in cases:
            miss = missing_chars(c["text"], charsets[c["font"]])
            if miss:
                print(f"error: case {c['id']}: {c['font']} lacks {''.join(miss)!r} (fallback fonts "
                      "differ between Chromium and Loom); fix the string pools", file=sys.stderr)
                return 2
    if args.only:
        keep = {int(x) for x in args.only.split(",")}
        cases = [c for c in cases if c["id"] in keep]
    if not os.access(args.loom, os.X_OK):
        print(f"error: no loom binary at {args.loom} (swift build -c release)", file=sys.stderr)
        return 2

    workdir = args.keep or tempfile.mkdtemp(prefix="loom-text-cmp-")
    os.makedirs(workdir, exist_ok=True)
    runner = None
    try:
        page = os.path.join(os.path.abspath(workdir), "cases.html")
        chain = ()
        if args.scripts:
            runner = LoomRunner(args.loom, False, args.workers)
            status, body = runner.server.call("GET", "/fonts")
            chain = fallback_chain(json.loads(body)) if status == 200 else []
            if not chain:
                raise RuntimeError("GET /fonts lists no fallback chain")
        with open(page, "w", encoding="utf-8") as f:
            f.write(build_page(cases, files, chain))
        t0 = time.time()
        browser = run_chromium(args.chromium, page, workdir, args.virtual_time_budget, args.timeout)
        t_browser = time.time() - t0
        if browser["errors"]:
            raise RuntimeError("browser: " + "; ".join(browser["errors"]))
        if len(browser["results"]) != len(cases):
            raise RuntimeError("browser returned a different number of results")
        t0 = time.time()
        runner = runner or LoomRunner(args.loom, args.cli, args.workers)
        # Script cases in smaller batches: a batch is one request, under the server's deadline.
        chunk = 25 if args.scripts else 100
        loom = {scale: runner.layout([loom_request(c, scale) for c in cases], chunk) for scale in (1, RAW_SCALE)}
        t_loom = time.time() - t0
        rows = compare(cases, browser["results"], [loom_entry(x) for x in loom[1]],
                       [loom_entry(x) for x in loom[RAW_SCALE]])
        worst = worst_rows(rows, args.worst)
        add_line_diagnostics(worst, runner)
        if args.keep:
            with open(os.path.join(workdir, "browser.json"), "w") as f:
                json.dump(browser, f, indent=1, ensure_ascii=False)
            with open(os.path.join(workdir, "loom.json"), "w") as f:
                json.dump({str(k): v for k, v in loom.items()}, f, ensure_ascii=False)
    except (RuntimeError, OSError, subprocess.SubprocessError, ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        if runner is not None:
            runner.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    warnings = [f"#{r['id']}: {w}" for r in browser["results"] for w in r["warnings"]]
    meta = {"chromium": chromium_version(args.chromium) + " — " + browser["userAgent"].split(")")[-1].strip(),
            "dpr": browser["dpr"], "loom": os.path.abspath(args.loom), "strings": len({c["string"] for c in cases}),
            "warnings": warnings}
    p_lines, p_w, p_h, trunc_bad, errs = report(rows, worst, args, meta)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "seed": args.seed, "rows": rows}, f, indent=1, ensure_ascii=False)
    if args.scripts:
        return script_gates(rows, args)
    print(f"(browser {t_browser:.1f} s, loom {t_loom:.1f} s)", file=sys.stderr)
    # The measurement itself first: too few cases or a harness that warned prove nothing.
    if len(rows) < args.min_cases:
        print(f"error: {len(rows)} cases compared, fewer than --min-cases {args.min_cases}", file=sys.stderr)
        return 2
    if len(warnings) > args.max_browser_warnings:
        for line in warnings[:10]:
            print(f"browser warning {line}", file=sys.stderr)
        print(f"error: {len(warnings)} browser-side warnings, more than --max-browser-warnings "
              f"{args.max_browser_warnings}", file=sys.stderr)
        return 2
    if args.min_agreement is not None:
        failed = False
        if min(p_lines, p_w, p_h) < args.min_agreement:
            print(f"below --min-agreement {args.min_agreement} %", file=sys.stderr)
            failed = True
        if trunc_bad:
            ids = [r["case"]["id"] for r in rows if "error" not in r and not r["truncOK"]]
            print(f"truncated flag differs from the browser's in {trunc_bad} cases: "
                  f"#{', #'.join(map(str, ids[:20]))}", file=sys.stderr)
            failed = True
        if errs:
            ids = [r["case"]["id"] for r in rows if "error" in r]
            print(f"loom answered {errs} cases with an error: #{', #'.join(map(str, ids[:20]))}", file=sys.stderr)
            failed = True
        if failed:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
