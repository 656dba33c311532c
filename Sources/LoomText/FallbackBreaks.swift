import CPango
import LoomLayout

// Fallback words that do not fit the rest of their line (FallbackWords.swift).
//
// Pango breaks such a word at the last break opportunity inside it where the part before
// fits (between most ideographs and Hangul syllables, at Thai dictionary breaks; before the
// word when no part fits and the line has something on it), shapes the parts again and goes
// on with the rest on the next line. The word path does the same from the word's own
// shaping. The break opportunities are Pango's on the word alone, patched to Chromium's as
// TextPreparation patches them (inside a word of one script nothing outside it takes part).
// A part's width is the sum of its clusters' advances, checked against the part shaped
// alone. A break inside a glyph cluster, a part whose own shaping differs, or a line on which
// no part fits (Pango would then break between characters) sends the text to Pango.

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
        // Greedy, as Pango: the last break where the part fits.
        var pieces: [(width: Int, end: Int)] = []
        var onLine = true
        var pos = 0, space = room, empty = lineIsEmpty
        while pos < n {
            var width = 0, best = -1, bestWidth = 0
            var b = pos
            while b < n {
                width += advance[b]
                b += 1
                if width > space { break }
                if breakAt[b] { best = b; bestWidth = width }
            }
            guard best >= 0 else {
                // Nothing fits: the word starts the next line; on an empty line Pango would
                // break between characters.
                guard !empty, pieces.isEmpty else { return nil }
                onLine = false
                space = limit; empty = true
                continue
            }
            if pos > 0 || best < n {
                let part = wordEntry(UnsafeBufferPointer(rebasing: word[offsets[pos]..<offsets[best]]), font: font,
                                     fontID: fontID, flags: 8, cache: cache, table: &state.table)
                guard part.valid, Int(part.word) == bestWidth else { return nil }
            }
            pieces.append((bestWidth, offsets[best]))
            pos = best
            space = limit; empty = true
        }
        return (onLine, pieces)
    }

    /// What `fallbackWordPieces` needs of a word in a font, whatever its line: per scalar its
    /// byte offset (and the word's length), its cluster's advance (on the cluster's first
    /// scalar) and whether a line may break before it (and at the end); nil when a break
    /// opportunity falls inside a glyph cluster.
    struct PieceAnalysis {
        var offsets: [Int]
        var advance: [Int]
        var breakAt: [Bool]
    }

    private func analyzePieces(_ word: UnsafeBufferPointer<UInt8>, font: EngineFont, dictionary: Bool) -> PieceAnalysis? {
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
        return PieceAnalysis(offsets: offsets, advance: advance, breakAt: breakAt)
    }

    /// Pango's line break opportunities in `word` (`count` scalars; index k: before scalar k),
    /// in the language the word is shaped in.
    private func breaks(of word: UnsafeBufferPointer<UInt8>, count n: Int, font: EngineFont) -> [Bool] {
        let first = PangoEngine.decodeUTF8(word, 0).0
        let script = PangoScript(rawValue: Int32(g_unichar_get_script(first).rawValue))
        var lang = language
        if pango_language_includes_script(lang, script) == 0, let sample = pango_script_get_sample_language(script) {
            lang = sample
        }
        var attrs = [PangoLogAttr](repeating: PangoLogAttr(), count: n + 1)
        word.withMemoryRebound(to: CChar.self) { c in
            attrs.withUnsafeMutableBufferPointer { a in
                pango_get_log_attrs(c.baseAddress, Int32(c.count), -1, lang, a.baseAddress, Int32(n + 1))
            }
        }
        return attrs.map { $0.is_line_break != 0 }
    }
}
