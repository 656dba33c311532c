import CPango
import LoomLayout

// A fallback word's font and its shaping (the words themselves and their lines are in
// FallbackWords.swift): the chain family Pango would give the word, remembered per text font
// in the engine's word table, and the word shaped alone in that font and its script.

extension PangoEngine {
    /// The font of a fallback word (its UTF-8 bytes): the chain family that has its first
    /// character, when the text's family lacks all of them, that family has all of them,
    /// it is not the emoji font, and they share one script (but for ー after kana or Han); nil otherwise.
    func fallbackWordFont(_ word: UnsafeBufferPointer<UInt8>, base: EngineFont, table: inout WordTable) -> EngineFont? {
        // Remembered in the engine's word table under the complement of the font's number
        // (no font has a negative one), without flags: the chain index, or an invalid entry.
        guard word.count <= WordCache.Key.maxBytes, let cache = wordCache else { return fallbackWordFont(word, base: base) }
        let key = WordCache.Key(word, font: ~base.wordFontID(cache), flags: 0, seed: table.seed)
        let k: Int
        if let known = table.find(key) {
            k = known.valid ? Int(known.word) : -1
        } else {
            k = fallbackWordChainIndex(word, base: base)
            table.insert(key, WordCache.Entry(word: Int32(k), trailSpace: 0, leadSpace: 0, valid: k >= 0, substituted: false))
        }
        return k >= 0 ? chainFont(k, like: base) : nil
    }

    /// `fallbackWordFont` without the engine's word table (for a word met outside the
    /// breaking of lines, which holds the table).
    func fallbackWordFont(_ word: UnsafeBufferPointer<UInt8>, base: EngineFont) -> EngineFont? {
        let k = fallbackWordChainIndex(word, base: base)
        return k >= 0 ? chainFont(k, like: base) : nil
    }

    /// `fallbackWordFont`'s choice: the index in the chain, or -1.
    private func fallbackWordChainIndex(_ word: UnsafeBufferPointer<UInt8>, base: EngineFont) -> Int {
        let chain = catalog.fallbackChain
        var k = -1
        var script = G_UNICODE_SCRIPT_INVALID_CODE
        // The family's character set, looked up by name once per font.
        if !base.familyCharsetLooked {
            base.familyCharset = catalog.charset(of: base.resolved.family)
            base.familyCharsetLooked = true
        }
        let own = base.familyCharset
        var chosen: OpaquePointer? = nil
        var i = 0
        while i < word.count {
            let (v, length) = PangoEngine.decodeUTF8(word, i)
            let s = g_unichar_get_script(v)
            if k < 0 {
                k = chainIndex(of: v)
                guard k >= 0, chain[k] != FontCatalog.emojiFamily, s != G_UNICODE_SCRIPT_COMMON,
                      s != G_UNICODE_SCRIPT_INHERITED else { return -1 }
                script = s
                chosen = catalog.chainCharset(k)
            } else {
                // The prolonged sound mark ー is Common: Pango keeps it in the kana or Han run
                // before it.
                let prolonged = v == 0x30FC && (script == G_UNICODE_SCRIPT_KATAKANA || script == G_UNICODE_SCRIPT_HIRAGANA
                                                 || script == G_UNICODE_SCRIPT_HAN)
                guard s == script || prolonged, let chosen, FcCharSetHasChar(chosen, v) != 0 else { return -1 }
            }
            if let own, FcCharSetHasChar(own, v) != 0 { return -1 }
            i += length
        }
        return k
    }

    /// The family at `k` of the fallback chain, in `base`'s size, weight and slant (made
    /// once per font and family).
    @inline(__always)
    func chainFont(_ k: Int, like base: EngineFont) -> EngineFont {
        if k < base.chainFonts.count, let f = base.chainFonts[k] { return f }
        let f = font(for: resolved(catalog.fallbackChain[k], like: base.resolved), ownFont: false)
        let n = catalog.fallbackChain.count
        if base.chainFonts.count < n { base.chainFonts = Array(repeating: nil, count: n) }
        base.chainFonts[k] = f
        return f
    }

    /// A fallback word shaped alone in `font`, in its script (or `given`) and the language
    /// Pango derives for it (an entry with no spaces).
    ///
    /// With `flags` (the word cache's, which name the script and direction), a word whose
    /// shaping gave every glyph its own advance (HarfBuzz's, which Pango's positions are:
    /// nothing adjusted, no mark zeroed) has its glyphs kept per face: in another size of
    /// the face the same lookups pick the same glyphs and adjust nothing (an adjustment is
    /// a number of font units: it would have shown), so its width there is the sum of the
    /// glyphs' advances in that size, without shaping. `FallbackWordTests` checks it against
    /// shaping in every size. Without flags (a cut word's analysis reads `wordGlyphs`) it
    /// always shapes.
    func shapeFallbackWord(_ word: UnsafeBufferPointer<UInt8>, font: EngineFont,
                           script given: GUnicodeScript? = nil, rightToLeft: Bool = false,
                           leftToRight: Bool = false, flags: UInt8 = 0) -> WordCache.Entry {
        guard let pangoFont = font.font, !word.isEmpty else { return .invalid }
        var faceKey: WordCache.LongKey? = nil
        let hb = pango_font_get_hb_font(pangoFont)
        if flags != 0, let cache = wordCache, let hb {
            let key = WordCache.LongKey(word: String(decoding: word, as: UTF8.self), font: font.wordFaceID(cache),
                                        flags: flags)
            if let known = cache.glyphs(key) {
                if !known.isEmpty {
                    var units = 0
                    for g in known {
                        let advance = hb_font_get_glyph_h_advance(hb, g)
                        if advance < 0 { return .invalid }
                        units &+= Int(advance)
                    }
                    guard let width = Int32(exactly: units) else { return .invalid }
                    return WordCache.Entry(word: width, trailSpace: 0, leadSpace: 0, valid: true, substituted: false)
                }
            } else {
                faceKey = key
            }
        }
        let first = word[0] < 0x80 ? UInt32(word[0]) : PangoEngine.decodeUTF8(word, 0).0
        let script = PangoScript(rawValue: Int32((given ?? g_unichar_get_script(first)).rawValue))
        var analysis = PangoAnalysis()
        analysis.font = pangoFont
        // Arabic and Hebrew words are one right-to-left run (bidi level 1) in any paragraph.
        // Digits after them (`leftToRight`) are a left-to-right run in their script.
        analysis.level = !leftToRight && (rightToLeft || PangoEngine.isRightToLeft(script)) ? 1 : 0
        analysis.gravity = UInt8(PANGO_GRAVITY_SOUTH.rawValue)
        analysis.script = UInt8(truncatingIfNeeded: script.rawValue)
        analysis.language = itemLanguage(script)
        let glyphs = wordGlyphs
        word.withMemoryRebound(to: CChar.self) { c in
            pango_shape_with_flags(c.baseAddress, Int32(c.count), c.baseAddress, Int32(c.count), &analysis, glyphs,
                                   PANGO_SHAPE_NONE)
        }
        var units = 0
        for g in 0..<Int(glyphs.pointee.num_glyphs) {
            let info = glyphs.pointee.glyphs[g]
            if info.glyph & PANGO_GLYPH_UNKNOWN_FLAG != 0 || info.glyph == PANGO_GLYPH_EMPTY || info.geometry.width < 0 {
                return .invalid
            }
            units &+= Int(info.geometry.width)
        }
        guard let width = Int32(exactly: units) else { return .invalid }
        if let faceKey, let cache = wordCache, let hb {
            let n = Int(glyphs.pointee.num_glyphs)
            var own: [UInt32] = []
            own.reserveCapacity(n)
            for g in 0..<n {
                let info = glyphs.pointee.glyphs[g]
                guard info.geometry.width == hb_font_get_glyph_h_advance(hb, info.glyph) else { own = []; break }
                own.append(info.glyph)
            }
            cache.putGlyphs(faceKey, own)
        }
        return WordCache.Entry(word: width, trailSpace: 0, leadSpace: 0, valid: true, substituted: false)
    }
}
