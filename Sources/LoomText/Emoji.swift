import CPango
import LoomLayout

/// An emoji cluster of a prepared text that the engine measures itself: scalars
/// [start, end), drawn with `family` (the emoji font or a text font of the chain), `width`
/// px wide, and that font's metrics at the span's size (for `line-height: normal`).
struct EmojiCluster {
    var start: Int
    var end: Int
    var width: Double
    var metrics: FontMetrics
}

/// The emoji of a text, as the browser picks their fonts, measured with HarfBuzz.
///
/// Pango cannot measure them: FreeType loads Noto Color Emoji (CBDT bitmaps) at its only
/// strike (109 px), and Pango reports advances and metrics at that size whatever the
/// requested one; and Pango sends every emoji-presentation run to an "emoji" family rather
/// than following the family list. So the engine finds the clusters, picks each one's font
/// as Chromium does, measures it with HarfBuzz from the font file, and hands Pango the width
/// as a shape attribute (PangoLines.configureLayout).
///
/// Chromium's choice: an emoji sequence (with U+FE0F, a keycap U+20E3, a flag, a skin-tone
/// modifier, a ZWJ sequence or tags) goes straight to the emoji font; a single character
/// (emoji presentation by default, or with U+FE0E) takes the first font of the list that has
/// it (the span's family, then the chain), U+FE0E skipping the emoji font. Colour-emoji
/// advances are whole pixels (round(size × advance / upem)).
struct EmojiLayout {
    var clusters: [EmojiCluster] = []
    /// Per scalar of the prepared text: the index of its cluster, or -1 (empty: no cluster).
    var clusterAt: [Int32] = []

    /// Spaces next to characters their span's family lacks, [start, end) with that family:
    /// the browser draws them with the span's family, where Pango would keep the fallback
    /// font of the characters around them (PangoLines.configureLayout gives them the family).
    var spaces: [(start: Int, end: Int, family: String)] = []

    /// Per scalar: whether it takes no letter spacing (the browser spaces grapheme clusters,
    /// not their later scalars, and leaves cursive scripts' runs unspaced); empty: none.
    var unspaced: [Bool] = []

    var isEmpty: Bool { clusters.isEmpty && spaces.isEmpty && unspaced.isEmpty }

    @inline(__always) func takesNoSpacing(_ scalar: Int) -> Bool { !unspaced.isEmpty && unspaced[scalar] }

    @inline(__always) func cluster(at scalar: Int) -> Int {
        clusterAt.isEmpty ? -1 : Int(clusterAt[scalar])
    }

    private struct MeasuredKey: Hashable {
        var bytes: [UInt8]
        var font: ResolvedFont
    }

    static func isRegionalIndicator(_ v: UInt32) -> Bool { v >= 0x1F1E6 && v <= 0x1F1FF }
    static func isModifier(_ v: UInt32) -> Bool { v >= 0x1F3FB && v <= 0x1F3FF }
    static func isTag(_ v: UInt32) -> Bool { v >= 0xE0020 && v <= 0xE007F }

    /// The clusters of `prepared` (spans in `spanFonts`), or an empty layout when it has none
    /// (the common case: a text without any scalar from U+00A9 on that could start one is
    /// skipped after one pass).
    static func make(_ prepared: PreparedText, spanFonts: [EngineFont], engine: PangoEngine,
                     letterSpaced: Bool) -> EmojiLayout {
        let catalog = engine.catalog
        let scalars = prepared.scalars
        let n = scalars.count
        var layout = EmojiLayout()
        // Clusters measured so far in this text (a text repeats its emoji).
        var measured: [MeasuredKey: (Double, FontMetrics)] = [:]
        guard scalars.contains(where: { $0.value >= 0xA9 || $0.value == 0x20E3 }) else { return layout }
        layout.findSpaces(prepared, spanFonts: spanFonts, catalog: catalog)
        var i = 0
        while i < n {
            guard !prepared.inserted[i],
                  let shape = scanCluster(at: i, count: n, { scalars[$0].value }) else { i += 1; continue }
            let j = shape.end
            let font = spanFonts[Int(prepared.span[i])].resolved
            // Left to Pango (which follows the family list for them).
            guard let family = engine.clusterFamily(shape, base: scalars[i].value, after: font.family)
            else { i = j; continue }
            let emojiFamily = FontCatalog.emojiFamily
            let chosen = family == font.family ? font : engine.resolved(family, like: font)
            var width = 0.0
            var metrics = FontMetrics.zero
            var bytes: [UInt8] = []
            for k in i..<j where !prepared.inserted[k] { bytes.append(contentsOf: Array(String(scalars[k]).utf8)) }
            let key = MeasuredKey(bytes: bytes, font: chosen)
            if let known = measured[key] {
                (width, metrics) = known
            } else if let shaped = engine.advance(of: bytes, in: chosen, roundingEach: family == emojiFamily) {
                (width, metrics) = shaped
                measured[key] = (width, metrics)
            }
            if layout.clusterAt.isEmpty { layout.clusterAt = [Int32](repeating: -1, count: n) }
            for k in i..<j { layout.clusterAt[k] = Int32(layout.clusters.count) }
            layout.clusters.append(EmojiCluster(start: i, end: j, width: width, metrics: metrics))
            i = j
        }
        layout.squeezePunctuation(prepared, spanFonts: spanFonts, engine: engine)
        // Scalars in a cursive script's run (CursiveSpacing.swift): only spacing reads them.
        if letterSpaced, let cursive = CursiveSpacing.unspacedScalars(scalars) { layout.unspaced = cursive }
        for c in layout.clusters where c.end > c.start + 1 {
            if layout.unspaced.isEmpty { layout.unspaced = [Bool](repeating: false, count: n) }
            for k in (c.start + 1)..<c.end { layout.unspaced[k] = true }
        }
        return layout
    }

    /// The emoji cluster starting at scalar `i` of `n` (`value(k)`: the scalar values), or nil
    /// when none starts there: its end (the base, its selectors, keycap, modifiers, tags and
    /// ZWJ-joined parts), whether it is a sequence (straight to the emoji font), whether it
    /// asks for text presentation (U+FE0E), and whether the engine measures it (not a single
    /// character of text presentation by default without a selector: Pango follows the
    /// family list for those, unless the list's first font for it is the emoji font,
    /// `PangoEngine.clusterFamily`).
    @inline(__always)
    static func scanCluster(at i: Int, count n: Int, _ value: (Int) -> UInt32)
        -> (end: Int, sequence: Bool, text: Bool, measured: Bool)? {
        let v = value(i)
        let isKeycapBase = v == 0x23 || v == 0x2A || (v >= 0x30 && v <= 0x39)
        let next = i + 1 < n ? value(i + 1) : 0
        guard (v >= 0xA9 && isEmoji(v)) || (isKeycapBase && (next == 0xFE0F || next == 0x20E3)) else { return nil }
        var j = i + 1
        var sequence = false, text = false
        if isRegionalIndicator(v) {
            if j < n && isRegionalIndicator(value(j)) { j += 1; sequence = true }
        }
        while j < n {
            let w = value(j)
            if w == 0xFE0F || w == 0x20E3 || isModifier(w) || isTag(w) {
                sequence = true; j += 1
            } else if w == 0xFE0E {
                text = true; j += 1
            } else if w == 0x200D, j + 1 < n, isEmoji(value(j + 1)) {
                sequence = true; j += 2
            } else {
                break
            }
        }
        if text { sequence = false }
        let measured = sequence || text || (Unicode.Scalar(v)?.properties.isEmojiPresentation ?? false)
        return (j, sequence, text, measured)
    }

    @inline(__always) static func isEmoji(_ v: UInt32) -> Bool { Unicode.Scalar(v)?.properties.isEmoji ?? false }

    /// Full-width punctuation classes for Chromium's squeeze of adjacent punctuation.
    enum PunctuationKind { case open, close, dot, middle, other }

    static func punctuationKind(_ v: UInt32) -> PunctuationKind {
        switch v {
        case 0xFF08, 0x300C, 0x300E, 0x201C, 0x3008, 0x300A, 0x3010, 0x3014, 0xFF3B, 0xFF5B: return .open
        case 0xFF09, 0x300D, 0x300F, 0x201D, 0x3009, 0x300B, 0x3011, 0x3015, 0xFF3D, 0xFF5D: return .close
        case 0xFF0C, 0x3002, 0x3001, 0xFF1A, 0xFF1B, 0xFF0E: return .dot
        case 0x30FB: return .middle
        default: return .other
        }
    }

    /// Adjacent full-width punctuation, as Chromium kerns it (found against Chromium 156):
    /// a full-width closing or dot punctuation followed by closing, dot or middle punctuation
    /// or by a full-width opening one is set half-width; otherwise a full-width opening
    /// punctuation preceded by opening, closing, dot or middle punctuation is. "Full-width": the first font of the list that has it is the CJK font
    /// (earlier fonts of the chain draw some of them narrow, and those are not squeezed).
    private mutating func squeezePunctuation(_ prepared: PreparedText, spanFonts: [EngineFont], engine: PangoEngine) {
        let scalars = prepared.scalars
        let n = scalars.count
        guard n > 1 else { return }
        var previous = -1
        var halved = -1
        for k in 0..<n where !prepared.inserted[k] {
            defer { previous = k }
            guard previous >= 0 else { continue }
            let a = EmojiLayout.punctuationKind(scalars[previous].value), b = EmojiLayout.punctuationKind(scalars[k].value)
            guard a != .other && b != .other else { continue }
            var target = -1
            let openAfter = b == .open && isFullWidth(k, prepared, spanFonts, engine)
            if (a == .close || a == .dot) && previous != halved && (b != .open || openAfter)
                && isFullWidth(previous, prepared, spanFonts, engine) {
                target = previous
            } else if openAfter {
                target = k
            }
            guard target >= 0, cluster(at: target) < 0 else { continue }
            let font = spanFonts[Int(prepared.span[target])].resolved
            let cjk = engine.resolved(FontCatalog.cjkFamily, like: font)
            var metrics = FontMetrics.zero
            var width = font.pixelSize / 2
            if let (full, m) = engine.advance(of: Array(String(scalars[target]).utf8), in: cjk, roundingEach: false) {
                width = full / 2
                metrics = m
            }
            if clusterAt.isEmpty { clusterAt = [Int32](repeating: -1, count: n) }
            clusterAt[target] = Int32(clusters.count)
            clusters.append(EmojiCluster(start: target, end: target + 1, width: width, metrics: metrics))
            halved = target
        }
        // Clusters in text order (configureLayout inserts their attributes as it finds them).
        clusters.sort { $0.start < $1.start }
        for (index, c) in clusters.enumerated() { for k in c.start..<c.end { clusterAt[k] = Int32(index) } }
    }

    private func isFullWidth(_ k: Int, _ prepared: PreparedText, _ spanFonts: [EngineFont], _ engine: PangoEngine) -> Bool {
        let v = prepared.scalars[k].value
        let family = spanFonts[Int(prepared.span[k])].resolved.family
        return engine.firstFamily(of: v, after: family, skippingEmoji: false) == FontCatalog.cjkFamily
    }

    private mutating func findSpaces(_ prepared: PreparedText, spanFonts: [EngineFont], catalog: FontCatalog) {
        let scalars = prepared.scalars
        let n = scalars.count
        func lacks(_ k: Int) -> Bool {
            !prepared.inserted[k] && catalog.lacksDrawn(scalars[k].value, in: spanFonts[Int(prepared.span[k])].resolved.family)
        }
        var i = 0
        while i < n {
            guard scalars[i] == " ", !prepared.inserted[i] else { i += 1; continue }
            var j = i + 1
            while j < n && scalars[j] == " " { j += 1 }
            var before = i - 1
            while before >= 0 && prepared.inserted[before] { before -= 1 }
            var after = j
            while after < n && prepared.inserted[after] { after += 1 }
            if (before >= 0 && lacks(before)) || (after < n && lacks(after)) {
                let family = spanFonts[Int(prepared.span[i])].resolved.family
                spaces.append((i, j, family))
            }
            i = j
        }
    }
}

/// What the emoji clusters need of the engine: font choices and HarfBuzz fonts, cached per
/// engine (fonts, not measurements: every cluster is still shaped in each text).
extension PangoEngine {
    /// `family` when it has `v`, else the first family of the fallback chain that has it
    /// (the emoji font skipped when `skippingEmoji`), or nil.
    func firstFamily(of v: UInt32, after family: String, skippingEmoji: Bool) -> String? {
        let emoji = FontCatalog.emojiFamily
        if (!skippingEmoji || family != emoji) && catalog.family(family, has: v) { return family }
        let chain = catalog.fallbackChain
        var k = chainIndex(of: v)
        guard k >= 0 else { return nil }
        if skippingEmoji && chain[k] == emoji {
            k += 1
            while k < chain.count && (chain[k] == emoji || !catalog.family(chain[k], has: v)) { k += 1 }
            if k == chain.count { return nil }
        }
        return chain[k]
    }

    /// The family the engine measures the cluster `shape` (`EmojiLayout.scanCluster`) in,
    /// whose base is `v`, in a span of `family`; nil when Pango draws it.
    /// - a sequence: the emoji font;
    /// - emoji presentation or U+FE0E: the first family of the list that has the base (the
    ///   emoji font skipped under U+FE0E); under U+FE0E with no such family, what the browser
    ///   takes after its list: its default font (Chromium's standard font, Times New Roman,
    ///   which fontconfig maps to Liberation Serif: ☺︎ is Liberation's, 13.28 px at 13 px, its
    ///   line 16 px), then its system fallback (DejaVu Sans: ❤︎ ✉︎ ✈︎);
    /// - a single character of text presentation by default (❤ ☺ ✉ ✈): the emoji font when
    ///   that is the first font of the list that has it, as the browser draws it in colour (❤
    ///   in Roboto 13 is 16 px in Chromium 156), where Pango, which asks fontconfig for fonts
    ///   without colour, would take DejaVu Sans's 10.9 px; one the family or a text font of
    ///   the chain has (❤ in Inter, ♥ in Noto Sans CJK SC) is Pango's (nil).
    func clusterFamily(_ shape: (end: Int, sequence: Bool, text: Bool, measured: Bool), base v: UInt32,
                       after family: String) -> String? {
        let emoji = FontCatalog.emojiFamily
        if shape.sequence { return emoji }
        guard shape.measured else {
            return firstFamily(of: v, after: family, skippingEmoji: false) == emoji ? emoji : nil
        }
        if let found = firstFamily(of: v, after: family, skippingEmoji: shape.text) { return found }
        guard shape.text else { return emoji }
        return catalog.family(FontCatalog.browserDefaultFamily, has: v) ? FontCatalog.browserDefaultFamily : "DejaVu Sans"
    }

    /// The face of `family` CSS font matching picks at `font`'s size, weight and style.
    func resolved(_ family: String, like font: ResolvedFont) -> ResolvedFont {
        let descriptor = FontDescriptor(family: family, size: font.pixelSize, weight: font.weight, italic: font.slant != 0)
        if let known = resolvedChoices[descriptor] { return known }
        let r = catalog.resolve(descriptor)
        if resolvedChoices.count >= 512 { resolvedChoices.removeAll() }
        resolvedChoices[descriptor] = r
        return r
    }

    /// The advance of `bytes` (UTF-8) shaped by HarfBuzz in `font` (each glyph's advance
    /// rounded to a whole pixel when `roundingEach`), and the font's metrics at its size;
    /// nil when the font file cannot be read.
    func advance(of bytes: [UInt8], in font: ResolvedFont, roundingEach: Bool) -> (Double, FontMetrics)? {
        guard let face = hbFont(font) else { return nil }
        let buffer = hbBuffer
        hb_buffer_clear_contents(buffer)
        bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { hb_buffer_add_utf8(buffer, $0.baseAddress, Int32(b.count), 0, Int32(b.count)) }
        }
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(face.font, buffer, nil, 0)
        var count: UInt32 = 0
        let positions = hb_buffer_get_glyph_positions(buffer, &count)
        let scale = font.pixelSize / Double(face.upem)
        var sum = 0.0
        for i in 0..<Int(count) {
            let a = Double(positions![i].x_advance) * scale
            sum += roundingEach ? (a + 0.5).rounded(.down) : a
        }
        let metrics = face.metrics.map {
            FontMetrics(unitsPerEm: $0.upem, ascender: $0.ascender, descender: $0.descender, lineGap: $0.lineGap,
                        pixelSize: font.pixelSize)
        } ?? .zero
        return (sum, metrics)
    }
}
