import CPango
import LoomLayout

/// The text as Pango will see it: white space processed as CSS `white-space: pre-line`,
/// break opportunities patched to Chromium's, with per-character span indices.
struct PreparedText {
    /// Unicode scalars (after collapsing, with inserted U+2060 / U+200B).
    var scalars: [Unicode.Scalar] = []
    /// Index of the span each scalar comes from.
    var span: [Int32] = []
    /// Whether the scalar was inserted by the break patches (no width, no spacing, no content).
    var inserted: [Bool] = []
    /// The UTF-8 bytes of `scalars`.
    var utf8: [UInt8] = []
    /// Byte offset of each scalar, plus the total length at the end (count + 1 entries).
    var byteOffset: [Int32] = []
    /// Scalar index of each byte that starts a scalar (others: the scalar they belong to),
    /// plus `count` at the end (utf8.count + 1 entries).
    var scalarAtByte: [Int32] = []
    /// Whether there is anything to lay out (false: no lines at all).
    var hasLines = false
    /// The words every layout marks for Pango (`PangoAttrWord`: a break is allowed before
    /// each), as scalar ranges in order: start, end, start, end …. ICU's dictionary words in
    /// runs of Thai (Lao, Khmer, Myanmar) characters, so that Pango breaks those runs where
    /// ICU does (DictionaryBreaks.swift), and under letter spacing the break patches that
    /// allow a break (`prepare`'s break marks).
    var markedWords: [Int32] = []

    var count: Int { scalars.count }
}

/// U+2060 WORD JOINER: forbids a break Pango would take.
let wordJoiner = Unicode.Scalar(0x2060)!
/// U+200B ZERO WIDTH SPACE: allows a break Pango would not take.
let zeroWidthSpace = Unicode.Scalar(0x200B)!

@inline(__always) func isCollapsibleSpace(_ s: Unicode.Scalar) -> Bool { s == " " || s == "\t" }
@inline(__always) func isASCIIAlnum(_ v: UInt32) -> Bool {
    (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A)
}
@inline(__always) func isASCIIDigit(_ v: UInt32) -> Bool { v >= 0x30 && v <= 0x39 }

enum TextPreparation {
    /// How many of `count` lines are shown: at most `limit` (0 = no limit), then as many as
    /// fit in a finite `containerHeight`, line heights plus `lineSpacing` between lines.
    static func visibleLineCount(_ count: Int, limit: Int, containerHeight: Double, lineSpacing: Double,
                                 height: (Int) -> Double) -> Int {
        var visible = count
        if limit > 0 { visible = min(visible, limit) }
        guard containerHeight.isFinite else { return visible }
        var total = 0.0
        var fitting = 0
        for i in 0..<visible {
            total += height(i) + (i > 0 ? lineSpacing : 0)
            if total > containerHeight + 1e-6 { break }
            fitting = i + 1
        }
        return fitting
    }

    /// At most this many characters that extend the one before them (combining marks,
    /// format characters such as joiners and variation selectors, emoji modifiers) are kept
    /// in a row; the rest of the run is dropped. HarfBuzz (and Pango) spend time quadratic
    /// in such a run (16 000 Arabic marks on a letter: half a second, 100 000: twenty),
    /// none of which adds width in practice. Unicode's stream-safe format allows 30.
    static let maxExtending = 32

    /// Whether `c` extends the character before it (see `maxExtending`).
    @inline(__always) static func isExtending(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .format: return true
        default: return (0x1F3FB...0x1F3FF).contains(c.value)
        }
    }

    /// Step 1: CSS `pre-line`. `\r\n` and `\r` become `\n`; spaces and tabs around a `\n`
    /// are removed, runs of them collapse to one space (keeping the first one's span),
    /// spaces at the start of a paragraph and at the end of the text are dropped, a final
    /// `\n` is removed (it adds no line in CSS), and runs of more than `maxExtending`
    /// extending characters are cut. `hasLines` is false when nothing
    /// but collapsible white space remains.
    static func collapse(_ spans: [TextSpan]) -> (scalars: [Unicode.Scalar], span: [Int32], hasLines: Bool) {
        var out: [Unicode.Scalar] = []
        var outSpan: [Int32] = []
        var capacity = 0
        for s in spans { capacity += s.text.utf8.count }
        out.reserveCapacity(capacity + 8)
        outSpan.reserveCapacity(capacity + 8)

        var pendingSpace: Int32? = nil
        var atParagraphStart = true
        var previousWasCR = false
        var extending = 0  // characters that extend the one before, appended in a row
        for (index, span) in spans.enumerated() {
            let spanIndex = Int32(index)
            for scalar in span.text.unicodeScalars {
                var c = scalar
                if c == "\r" {
                    previousWasCR = true
                    c = "\n"
                } else if c == "\n" && previousWasCR {
                    previousWasCR = false
                    continue  // second half of \r\n
                } else {
                    previousWasCR = false
                }
                if c == "\n" {
                    pendingSpace = nil
                    out.append("\n"); outSpan.append(spanIndex)
                    atParagraphStart = true
                    extending = 0
                } else if isCollapsibleSpace(c) {
                    if !atParagraphStart && pendingSpace == nil { pendingSpace = spanIndex }
                } else {
                    if let p = pendingSpace {
                        out.append(" "); outSpan.append(p)
                        pendingSpace = nil
                        extending = 0
                    }
                    if c.value >= 0x80 && isExtending(c) {
                        if extending >= maxExtending { continue }
                        extending += 1
                    } else {
                        extending = 0
                    }
                    out.append(c); outSpan.append(spanIndex)
                    atParagraphStart = false
                }
            }
        }
        if out.isEmpty { return ([], [], false) }
        if out.last == "\n" { out.removeLast(); outSpan.removeLast() }
        return (out, outSpan, true)
    }

    /// Chromium's break opportunity between two printable ASCII characters (its ASCII pair
    /// table; `-` before a digit is decided by the caller).
    @inline(__always)
    static func chromiumBreaksBetweenASCII(_ a: UInt32, _ b: UInt32) -> Bool {
        // Characters after which Chromium never breaks (before anything printable).
        if isASCIIAlnum(a) { return false }
        switch a {
        case 0x24, 0x27, 0x28, 0x2F, 0x3C, 0x40, 0x5B, 0x5E, 0x5F, 0x60, 0x7B, 0x7F:  // $ ' ( / < @ [ ^ _ ` { DEL
            return false
        default: break
        }
        // Characters before which Chromium never breaks.
        switch b {
        case 0x21, 0x29, 0x2C, 0x2E, 0x2F, 0x3A, 0x3B, 0x3F, 0x5D, 0x7D:  // ! ) , . / : ; ? ] }
            return false
        default: break
        }
        if a == 0x2D {  // '-': before anything but '$' (digits handled by the caller)
            return b != 0x24
        }
        if a == 0x3F {  // '?': before anything but quotes
            return b != 0x22 && b != 0x27
        }
        // Other punctuation: only before opening brackets.
        return b == 0x28 || b == 0x3C || b == 0x5B || b == 0x7B
    }

    /// `chromiumBreak` between two printable ASCII characters `a` and `b` of a word (no
    /// space or line end around them), where `before` is the character before `a` in the
    /// word, 0 when `a` starts it (then a space, a line end or nothing precedes it).
    @inline(__always)
    static func chromiumBreaksInsideWord(_ before: UInt8, _ a: UInt8, _ b: UInt8) -> Bool {
        if isASCIIAlnum(UInt32(a)) { return false }  // most pairs, decided here without a call
        if a == 0x2D && isASCIIDigit(UInt32(b)) { return isASCIIAlnum(UInt32(before)) }
        return chromiumBreaksBetweenASCII(UInt32(a), UInt32(b))
    }

    /// Chromium's answer at the boundary before `i`, or nil when it comes from ICU's UAX #14
    /// (which Pango follows too) and needs no patch.
    @inline(__always)
    static func chromiumBreak(_ c: [Unicode.Scalar], _ i: Int) -> Bool? {
        let prev = c[i - 1].value, cur = c[i].value
        if cur == 0x0A || prev == 0x0A { return nil }
        if cur == 0x20 { return nil }            // never before a space (Pango agrees, LB7)
        if prev == 0x20 { return true }          // always after a space run
        if prev >= 0x21 && prev <= 0x7F && cur >= 0x21 && cur <= 0x7F {
            if prev == 0x2D && isASCIIDigit(cur) {  // '-' then digit: only after an alphanumeric
                return i >= 2 && isASCIIAlnum(c[i - 2].value)
            }
            return chromiumBreaksBetweenASCII(prev, cur)
        }
        if (cur == 0xA0 && prev <= 0x7F) || (prev == 0xA0 && cur <= 0x7F) { return false }
        if cur >= 0x2000 && prev >= 0x2000 { return cjkBreak(prev, cur) }
        if isHebrewLetter(cur) && isHyphenAfterHebrew(c, i - 1) { return true }
        return nil
    }

    /// Hebrew letters (UAX #14 class HL).
    @inline(__always) static func isHebrewLetter(_ v: UInt32) -> Bool {
        (v >= 0x05D0 && v <= 0x05EA) || (v >= 0x05EF && v <= 0x05F2) || (v >= 0xFB1D && v <= 0xFB4F && v != 0xFB29)
    }

    /// Whether scalar `k` is a hyphen (HY `-`) or a break-after dash (BA: the maqaf ־, ‐ ‒ –)
    /// after a Hebrew letter (its marks skipped, UAX #14 LB9). Unicode 15.1's LB21a, which
    /// Chromium's ICU follows, keeps such a hyphen with what follows unless a Hebrew letter
    /// does (`תל־` | `אביב` breaks, `תל־abc` does not); Pango's older rule never breaks there.
    static func isHyphenAfterHebrew(_ c: [Unicode.Scalar], _ k: Int) -> Bool {
        switch c[k].value {
        case 0x2D, 0x05BE, 0x2010, 0x2012, 0x2013: break
        default: return false
        }
        var j = k - 1
        while j >= 0 && c[j].properties.generalCategory == .nonspacingMark { j -= 1 }
        return j >= 0 && isHebrewLetter(c[j].value)
    }

    /// Kana, Han and Hangul syllables (where Chromium's CJK rules apply).
    @inline(__always) static func isCJK(_ v: UInt32) -> Bool {
        (v >= 0x3040 && v <= 0x30FF) || (v >= 0x3400 && v <= 0x9FFF) || (v >= 0xAC00 && v <= 0xD7AF)
            || (v >= 0xF900 && v <= 0xFAFF) || (v >= 0x20000 && v <= 0x3FFFF)
    }

    /// Small kana and the prolonged sound mark ー (UAX #14 class CJ, which Pango treats as NS).
    @inline(__always) static func isSmallKanaOrProlonged(_ v: UInt32) -> Bool {
        switch v {
        case 0x3041, 0x3043, 0x3045, 0x3047, 0x3049, 0x3063, 0x3083, 0x3085, 0x3087, 0x308E, 0x3095, 0x3096,
             0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30C3, 0x30E3, 0x30E5, 0x30E7, 0x30EE, 0x30F5, 0x30F6,
             0x30FC, 0x31F0...0x31FF, 0xFF67...0xFF70:
            return true
        default:
            return false
        }
    }

    /// Chromium between two CJK-range characters where it differs from UAX #14: a break
    /// before small kana and ー after a CJK character (CSS line-break: normal), before “ and
    /// after ” next to CJK characters (Chinese quotes); nil elsewhere.
    @inline(__always) static func cjkBreak(_ prev: UInt32, _ cur: UInt32) -> Bool? {
        if isSmallKanaOrProlonged(cur) && isCJK(prev) { return true }
        if cur == 0x201C && isCJK(prev) { return true }
        if prev == 0x201D && isCJK(cur) { return true }
        return nil
    }

    /// Whether Pango (UAX #14) surely agrees with Chromium at this boundary, so that plain
    /// prose needs no break analysis of its own. Only pairs whose answer is the same under
    /// both rule sets whatever the context are listed.
    @inline(__always)
    static func surelyAgrees(_ c: [Unicode.Scalar], _ i: Int) -> Bool {
        let prev = c[i - 1].value, cur = c[i].value
        if prev == 0x20 {
            // Both break after a space before an alphanumeric, unless the space follows an
            // opening punctuation (UAX #14 LB14); accept the common cases.
            guard isASCIIAlnum(cur), i >= 2 else { return false }
            let before = c[i - 2].value
            return isASCIIAlnum(before) || before == 0x2E || before == 0x2C || before == 0x3B
                || before == 0x3A || before == 0x21 || before == 0x3F || before == 0x29 || before == 0x22
                || before == 0x27 || before == 0x2D
        }
        let curIsPrintableASCII = cur > 0x20 && cur < 0x7F
        // After a letter or digit neither breaks before printable ASCII (AL×AL, ×IS, ×EX,
        // ×CL/CP, ×QU, ×HY, ×BA, (AL|NU)×OP, AL×(PR|PO); Chromium: no break after alnum).
        if isASCIIAlnum(prev) && curIsPrintableASCII { return true }
        guard isASCIIAlnum(cur) else { return false }
        switch prev {
        case 0x27, 0x22,                     // quotes: QU ×
             0x28, 0x5B, 0x7B,               // opening brackets: OP ×
             0x29, 0x5D,                     // ) ]: CP × (AL|NU)
             0x24, 0x2B, 0x5C, 0x25,         // $ + \ %: (PR|PO) × (AL|NU)
             0x23, 0x26, 0x2A, 0x3C, 0x3D, 0x3E, 0x40, 0x5E, 0x5F, 0x60, 0x7E:  // AL × (AL|NU)
            return true
        case 0x2E, 0x2C, 0x3A, 0x3B:         // IS × AL (digits differ: "beta.2")
            return !isASCIIDigit(cur)
        case 0x2D:                           // both break after a word-internal '-' before a letter
            return !isASCIIDigit(cur) && i >= 2 && isASCIIAlnum(c[i - 2].value)
        default:
            return false
        }
    }

    /// At most this many breaks of a letter-spaced text are marked as words (`prepare`); a
    /// text with more candidates gets U+200B patches. Each mark costs Pango a read from the
    /// start of its item: 16,000 marks in one 24,000-character item took 2.4 s.
    static let maxBreakMarks = 512

    /// The full preparation: collapse, patch break opportunities, encode. `letterSpaced`:
    /// some span has letter spacing, so that a break is allowed by marking a word at it
    /// instead of inserting U+200B (below).
    static func prepare(_ spans: [TextSpan], letterSpaced: Bool = false) -> PreparedText {
        var (scalars, spanOf, hasLines) = collapse(spans)
        var result = PreparedText()
        result.hasLines = hasLines
        if !hasLines { return result }

        // Break patches.
        var candidates: [Int] = []
        if scalars.count > 1 {
            for i in 1..<scalars.count {
                if surelyAgrees(scalars, i) { continue }
                if chromiumBreak(scalars, i) != nil { candidates.append(i) }
            }
        }
        var inserted = [Bool](repeating: false, count: scalars.count)
        var breakMarks: [(Int, Int)] = []
        // Pango's breaks of `scalars` as they end up, when computed here (no patch inserted).
        var finalPango: [Bool]? = nil
        if !candidates.isEmpty {
            let pango = pangoLineBreaks(scalars)
            // (position to insert before, scalar)
            var patches: [(Int, Unicode.Scalar)] = []
            // Under letter spacing a break is allowed by a one-scalar word mark (PangoAttrWord
            // allows a break before a word), not a U+200B: an inserted scalar takes no
            // spacing, and the change of spacing would end Pango's item there, losing the
            // kerning across it (ティ in Noto Sans CJK: 1.19 px at 20 px).
            var wordMarks: [Int] = []
            // Pango reads each word attribute from the start of its item (DictionaryBreaks'
            // maxScalars): past `maxBreakMarks` a text's breaks are patched as without spacing.
            let marking = letterSpaced && candidates.count <= maxBreakMarks
            for i in candidates {
                guard let want = chromiumBreak(scalars, i) else { continue }
                let has = pango[i]
                if want == has { continue }
                if want {
                    // Allow a break. After a space, put the ZWSP before the space so the
                    // space stays at the end of the line (and hangs there): "ZW SP* ÷".
                    if marking && scalars[i - 1] != " " {
                        wordMarks.append(i)
                    } else {
                        patches.append((scalars[i - 1] == " " ? i - 1 : i, zeroWidthSpace))
                    }
                } else {
                    patches.append((i, wordJoiner))
                }
            }
            // Each mark's word ends where Pango breaks anyway (and no patch forbids it), or at
            // the next mark: PangoAttrWord also allows a break at a word's end when a word of
            // Pango's own starts there, which must add no break of its own (after “, say).
            var markWords: [(Int, Int)] = []
            if !wordMarks.isEmpty {
                let forbidden = Set(patches.lazy.filter { $0.1 == wordJoiner }.map { $0.0 })
                for (m, i) in wordMarks.enumerated() {
                    let limit = m + 1 < wordMarks.count ? wordMarks[m + 1] : scalars.count
                    var j = i + 1
                    while j < limit && !(j < pango.count && pango[j] && !forbidden.contains(j)) { j += 1 }
                    markWords.append((i, j))
                }
            }
            if !patches.isEmpty {
                patches.sort { $0.0 < $1.0 }
                var s2: [Unicode.Scalar] = []; s2.reserveCapacity(scalars.count + patches.count)
                var p2: [Int32] = []; p2.reserveCapacity(scalars.count + patches.count)
                var i2: [Bool] = []; i2.reserveCapacity(scalars.count + patches.count)
                var next = 0
                for i in 0..<scalars.count {
                    while next < patches.count && patches[next].0 == i {
                        s2.append(patches[next].1)
                        p2.append(i > 0 ? spanOf[i - 1] : spanOf[i])
                        i2.append(true)
                        next += 1
                    }
                    s2.append(scalars[i]); p2.append(spanOf[i]); i2.append(false)
                }
                scalars = s2; spanOf = p2; inserted = i2
                // The words' bounds after the inserted scalars (those inserted before them).
                let starts = patches.map(\.0)
                func moved(_ x: Int) -> Int { x + PangoEngine.firstIndex(starts.count) { starts[$0] > x } }
                markWords = markWords.map { (moved($0.0), moved($0.1)) }
            } else {
                finalPango = pango
            }
            breakMarks = markWords
        }

        result.scalars = scalars
        result.span = spanOf
        result.inserted = inserted
        // Thai, Lao, Khmer, Myanmar: ICU's dictionary words, which every layout marks.
        if DictionaryBreaks.hasComplexPairs(scalars), DictionaryBreaks.withinLimit(spans) {
            result.markedWords = DictionaryBreaks.words(scalars, pango: finalPango)
        }
        if !breakMarks.isEmpty { mergeBreakMarks(breakMarks, into: &result.markedWords) }
        encode(&result)
        return result
    }

    /// Adds the break marks' words ([start, end) pairs in order, see `prepare`) to the words
    /// Pango is told of (pairs of start and end, in order, not overlapping), but for a mark
    /// that starts inside a word already there (its start is a break already) or would
    /// overlap the next one (cut short at its start).
    static func mergeBreakMarks(_ marks: [(Int, Int)], into words: inout [Int32]) {
        var merged: [Int32] = []
        merged.reserveCapacity(words.count + 2 * marks.count)
        let count = words.count / 2
        var w = 0
        for (i, j) in marks {
            while w < count && Int(words[2 * w + 1]) <= i {
                merged.append(words[2 * w]); merged.append(words[2 * w + 1]); w += 1
            }
            if w < count && Int(words[2 * w]) <= i { continue }
            let end = w < count ? min(j, Int(words[2 * w])) : j
            merged.append(Int32(i)); merged.append(Int32(end))
        }
        while w < count { merged.append(words[2 * w]); merged.append(words[2 * w + 1]); w += 1 }
        words = merged
    }

    /// Pango's line break opportunities (index i: break allowed before scalar i).
    static func pangoLineBreaks(_ scalars: [Unicode.Scalar]) -> [Bool] {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(scalars.count * 2)
        for s in scalars { appendUTF8(s, to: &utf8) }
        let n = scalars.count
        var attrs = [PangoLogAttr](repeating: PangoLogAttr(), count: n + 1)
        utf8.withUnsafeBufferPointer { bytes in
            bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { text in
                attrs.withUnsafeMutableBufferPointer { a in
                    pango_get_log_attrs(text, Int32(bytes.count), -1, pango_language_from_string("en"),
                                        a.baseAddress, Int32(n + 1))
                }
            }
        }
        return attrs.map { $0.is_line_break != 0 }
    }

    static func encode(_ t: inout PreparedText) {
        t.utf8.removeAll(keepingCapacity: true)
        t.utf8.reserveCapacity(t.scalars.count + 16)
        t.byteOffset = []
        t.byteOffset.reserveCapacity(t.scalars.count + 1)
        for s in t.scalars {
            t.byteOffset.append(Int32(t.utf8.count))
            appendUTF8(s, to: &t.utf8)
        }
        t.byteOffset.append(Int32(t.utf8.count))
        var map = [Int32](repeating: 0, count: t.utf8.count + 1)
        for i in 0..<t.scalars.count {
            let start = Int(t.byteOffset[i]), end = Int(t.byteOffset[i + 1])
            for b in start..<end { map[b] = Int32(i) }
        }
        map[t.utf8.count] = Int32(t.scalars.count)
        t.scalarAtByte = map
    }

    @inline(__always)
    static func appendUTF8(_ s: Unicode.Scalar, to bytes: inout [UInt8]) {
        let v = s.value
        if v < 0x80 {
            bytes.append(UInt8(v))
        } else if v < 0x800 {
            bytes.append(UInt8(0xC0 | (v >> 6)))
            bytes.append(UInt8(0x80 | (v & 0x3F)))
        } else if v < 0x10000 {
            bytes.append(UInt8(0xE0 | (v >> 12)))
            bytes.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (v & 0x3F)))
        } else {
            bytes.append(UInt8(0xF0 | (v >> 18)))
            bytes.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            bytes.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (v & 0x3F)))
        }
    }
}
