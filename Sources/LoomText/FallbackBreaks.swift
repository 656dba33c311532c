import CPango
import LoomLayout

// Fallback words that do not fit the rest of their line (FallbackWords.swift).
//
// Pango breaks such a word (an item of its own) as process_item does in Pango 1.50: it walks
// the break opportunities inside it (between most ideographs and Hangul syllables, at Thai
// dictionary breaks), adding up the widths its characters have in the whole word's shaping.
// A break well before the line's end (by more than the font's "safe distance", three
// approximate character widths) is taken as it comes; one nearer is weighed by the part
// before it shaped again on its own, and taken when that part fits (or is narrower than the
// one taken so far). The part on the line is then shaped again, and the rest goes on to the
// next line, weighed first by the whole word's widths and then by its own shaping. Kerning
// across a break (the kana pairs of Noto Sans CJK, say) is so lost at a line's end as Pango
// loses it. The word path does the same from the word's own shaping. The break
// opportunities are Pango's on the word alone, patched to Chromium's as TextPreparation
// patches them (inside a word of one script nothing outside it takes part). A break inside a
// glyph cluster, a line on which no part fits (Pango would then break between characters),
// a line Pango would overfill, or a word of several scripts (several items) whose parts
// shape differently sends the text to Pango.

extension PangoEngine {
    /// The pieces of the fallback word `word` (in `font`, too wide for the `room` units left
    /// on its line; `lineIsEmpty`: nothing is on that line yet) as Pango lays it out: each
    /// piece's width and where it ends (a byte offset in the word), one piece per line, and
    /// whether the first piece goes on that line (else the word starts the next one). nil
    /// when the word path cannot tell exactly.
    func fallbackWordPieces(_ word: UnsafeBufferPointer<UInt8>, font: EngineFont, room: Int, lineIsEmpty: Bool,
                            limit: Int, cache: WordCache, state: inout WordLineState) -> (onLine: Bool, pieces: [(width: Int, end: Int)])? {
        let fontID = font.wordFontID(cache)
        // The analysis depends on the font and the word only: shared by all texts, lines and
        // engines in the word cache (plain values, emptied with it).
        let dictionary = state.dictionary ?? true
        let key = WordCache.LongKey(word: String(decoding: word, as: UTF8.self), font: fontID, flags: dictionary ? 0 : 1)
        let analysis: PieceAnalysis
        if let known = cache.pieces(key) {
            analysis = known
        } else {
            guard let fresh = analyzePieces(word, font: font, dictionary: dictionary) else { return nil }
            cache.putPieces(key, fresh)
            analysis = fresh
        }
        let n = analysis.advance.count
        let offsets = analysis.offsets, advance = analysis.advance, breakAt = analysis.breakAt
        let safe = analysis.safeDistance
        // Scalars [a, b) shaped on their own, as Pango shapes a part of the item (in its
        // script); nil when the word path cannot tell.
        func shaped(_ a: Int, _ b: Int, logical: Int) -> Int? {
            if a == 0 && b == n { return logical }
            let part = UnsafeBufferPointer(rebasing: word[offsets[a]..<offsets[b]])
            let first = PangoEngine.decodeUTF8(part, 0).0
            let entry = g_unichar_get_script(first) == analysis.script
                ? wordEntry(part, font: font, fontID: fontID, flags: 8, cache: cache, table: &state.table)
                : shapeFallbackWord(part, font: font, script: analysis.script)
            guard entry.valid, analysis.singleScript || Int(entry.word) == logical else { return nil }
            return Int(entry.word)
        }
        var pieces: [(width: Int, end: Int)] = []
        var onLine = true
        // Pango keeps what is left of a line at 0 or more (a space may overfill it).
        var pos = 0, space = max(0, room), hasRuns = !lineIsEmpty
        // The rest's width by the whole word's widths (kept as pieces go, so a long word
        // cut into many lines is walked once).
        var rest = 0
        for b in 0..<n { rest += advance[b] }
        while pos < n {
            let count = n - pos
            // The rest, by the whole word's widths, then by its own shaping (the first time,
            // the caller found that the whole word does not fit).
            if rest <= space {
                guard let width = shaped(pos, n, logical: rest) else { return nil }
                if width <= space {
                    pieces.append((width, offsets[n]))
                    break
                }
            }
            // One character on an empty line: Pango lets it overfill the line.
            if count == 1 && !hasRuns { return nil }
            // Pango's walk over the breaks: `taken` characters of the rest before the break
            // taken so far (`count`: none), the part's width then (`measured`: by its own shaping).
            var taken = count, takenWidth = 0, measured: Int? = nil
            var width = 0, shapedParts = 0
            for k in 0...count {
                if width > space + safe && taken < count { break }
                let b = pos + k
                // Before the first character (after the space before the word) only when the
                // line has something on it.
                if k == 0 ? hasRuns : breakAt[b] {
                    if k == 0 || width < space - safe {
                        // The end is a break only when no space follows (Pango's attributes
                        // of the text say): the word path cannot tell.
                        if k == count { return nil }
                        taken = k; takenWidth = width; measured = nil
                    } else {
                        // Each part near the line's end is shaped: at most so many per line (a
                        // word of narrow characters is left to Pango, whose cost is bounded).
                        shapedParts += 1
                        guard shapedParts <= PangoEngine.maxShapedPartsPerLine,
                              let own = shaped(pos, b, logical: width) else { return nil }
                        if taken == count || own <= space || own < takenWidth {
                            if k == count { return nil }
                            taken = k; takenWidth = own; measured = own
                        }
                    }
                }
                if k < count { width += advance[b] }
            }
            // Nothing fits, or only wider than the line (Pango then breaks between characters).
            guard taken < count, takenWidth <= space else { return nil }
            if taken == 0 {
                // The word starts the next line.
                guard pieces.isEmpty, onLine else { return nil }
                onLine = false
                space = limit; hasRuns = false
                continue
            }
            var logical = 0
            for b in pos..<pos + taken { logical += advance[b] }
            guard let part = measured ?? shaped(pos, pos + taken, logical: logical) else { return nil }
            pieces.append((part, offsets[pos + taken]))
            pos += taken
            rest -= logical
            space = limit; hasRuns = false
        }
        return (onLine, pieces)
    }

    /// Parts shaped on their own per line of a cut fallback word (those near the line's end):
    /// about six in CJK text (the safe distance is three characters on either side).
    static let maxShapedPartsPerLine = 32

    /// What `fallbackWordPieces` needs of a word in a font, whatever its line: per scalar its
    /// byte offset (and the word's length), its cluster's advance (on the cluster's first
    /// scalar) and whether a line may break before it (and at the end); the word's script,
    /// whether it is its only one (Common and Inherited characters aside: one Pango item), and
    /// Pango's safe distance for the font in the word's language. nil when a break
    /// opportunity falls inside a glyph cluster.
    struct PieceAnalysis {
        var offsets: [Int]
        var advance: [Int]
        var breakAt: [Bool]
        var script: GUnicodeScript
        var singleScript: Bool
        var safeDistance: Int
    }

    /// A fallback word shaped alone in `font` (`shapeFallbackWord`), per scalar: the scalar,
    /// its byte offset (the word's length after the last), the advance of the glyph cluster
    /// it starts (0 inside a cluster) and whether it starts one (and, after the last, true).
    /// nil when the shaping fails or a glyph's cluster is not at a scalar's start.
    struct WordClusters {
        var scalars: [Unicode.Scalar]
        var offsets: [Int]
        var advance: [Int]
        var clusterStart: [Bool]
    }

    func wordClusters(_ word: UnsafeBufferPointer<UInt8>, font: EngineFont) -> WordClusters? {
        var scalars: [Unicode.Scalar] = [], offsets: [Int] = []
        var i = 0
        while i < word.count {
            let (v, length) = PangoEngine.decodeUTF8(word, i)
            guard let u = Unicode.Scalar(v) else { return nil }
            scalars.append(u); offsets.append(i)
            i += length
        }
        let n = scalars.count
        offsets.append(word.count)
        // The whole word's advances, a cluster's on its first scalar (wordGlyphs holds them).
        let whole = shapeFallbackWord(word, font: font)
        guard whole.valid, n > 0 else { return nil }
        let glyphs = wordGlyphs
        var advance = [Int](repeating: 0, count: n)
        var clusterStart = [Bool](repeating: false, count: n + 1)
        clusterStart[n] = true
        for g in 0..<Int(glyphs.pointee.num_glyphs) {
            let byte = Int(glyphs.pointee.log_clusters[g])
            var lo = 0, hi = n
            while lo < hi { let mid = (lo + hi) / 2; if offsets[mid] < byte { lo = mid + 1 } else { hi = mid } }
            guard lo < n, offsets[lo] == byte else { return nil }
            advance[lo] += Int(glyphs.pointee.glyphs[g].geometry.width)
            clusterStart[lo] = true
        }
        return WordClusters(scalars: scalars, offsets: offsets, advance: advance, clusterStart: clusterStart)
    }

    private func analyzePieces(_ word: UnsafeBufferPointer<UInt8>, font: EngineFont, dictionary: Bool) -> PieceAnalysis? {
        guard let clusters = wordClusters(word, font: font) else { return nil }
        let scalars = clusters.scalars, offsets = clusters.offsets, advance = clusters.advance
        let clusterStart = clusters.clusterStart
        let n = scalars.count
        // Break opportunities inside the word.
        let pango = breaks(of: word, count: n, font: font)
        var breakAt = [Bool](repeating: false, count: n + 1)
        breakAt[n] = true
        if n > 1 {
            // Between two Thai (Lao, Khmer, Myanmar) characters ICU's breaks only, as every
            // Pango layout of the text takes them (DictionaryBreaks.swift). The word path
            // reads the text's own bytes: the word has none of the preparation's spaces.
            // (Not in a text with more of them than DictionaryBreaks.maxScalars.)
            let dictionary = dictionary ? DictionaryBreaks.icuBreaks(scalars) : nil
            var icu = [Bool](repeating: false, count: dictionary == nil ? 0 : n + 1)
            for b in dictionary ?? [] { icu[b] = true }
            for b in 1..<n {
                if dictionary != nil, DictionaryBreaks.isComplexContext(scalars[b - 1].value),
                   DictionaryBreaks.isComplexContext(scalars[b].value) {
                    breakAt[b] = icu[b]
                } else {
                    breakAt[b] = TextPreparation.chromiumBreak(scalars, b) ?? pango[b]
                }
                if breakAt[b] && !clusterStart[b] { return nil }
            }
        }
        let script = g_unichar_get_script(scalars[0].value)
        let singleScript = scalars.allSatisfy {
            let s = g_unichar_get_script($0.value)
            return s == script || s == G_UNICODE_SCRIPT_COMMON || s == G_UNICODE_SCRIPT_INHERITED
        }
        guard let pangoFont = font.font,
              let safe = breakSafeDistance(pangoFont, language: itemLanguage(PangoScript(rawValue: Int32(script.rawValue))))
        else { return nil }
        return PieceAnalysis(offsets: offsets, advance: advance, breakAt: breakAt, script: script, singleScript: singleScript,
                             safeDistance: safe)
    }

    /// Pango's line break opportunities in `word` (`count` scalars; index k: before scalar k),
    /// in the language the word is shaped in.
    private func breaks(of word: UnsafeBufferPointer<UInt8>, count n: Int, font: EngineFont) -> [Bool] {
        let first = PangoEngine.decodeUTF8(word, 0).0
        let lang = itemLanguage(PangoScript(rawValue: Int32(g_unichar_get_script(first).rawValue)))
        var attrs = [PangoLogAttr](repeating: PangoLogAttr(), count: n + 1)
        word.withMemoryRebound(to: CChar.self) { c in
            attrs.withUnsafeMutableBufferPointer { a in
                pango_get_log_attrs(c.baseAddress, Int32(c.count), -1, lang, a.baseAddress, Int32(n + 1))
            }
        }
        return attrs.map { $0.is_line_break != 0 }
    }

    /// The language Pango's itemizer gives an item of `script`: the context's when it
    /// includes the script, else the script's sample language.
    func itemLanguage(_ script: PangoScript) -> OpaquePointer? {
        if pango_language_includes_script(language, script) == 0, let sample = pango_script_get_sample_language(script) {
            return sample
        }
        return language
    }
}
