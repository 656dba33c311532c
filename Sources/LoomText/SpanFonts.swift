import LoomLayout

/// The fonts and letter spacing of a text's spans, as the engine measures them.
extension PangoEngine {
    /// Whether every span is in the text's font with no letter spacing Pango would apply:
    /// then each span's font is the text's and its spacing 0, without building either list.
    static func isPlain(_ text: TextAttributes) -> Bool {
        for span in text.spans {
            if let f = span.font, f != text.font { return false }
            if sanitize(span.letterSpacing ?? text.letterSpacing) != 0 { return false }
        }
        return true
    }

    /// The text's bytes, its truncation text included.
    static func length(of text: TextAttributes) -> Int {
        var n = text.truncationText.utf8.count
        for span in text.spans { n += span.text.utf8.count }
        return n
    }

    /// The font of each span (the text's font where a span has none); nil when the budget
    /// stopped the measurement while fonts were loading.
    func spanFonts(_ text: TextAttributes, base: EngineFont) -> [EngineFont]? {
        let loaded = fontsLoaded
        var spanFonts: [EngineFont] = []
        spanFonts.reserveCapacity(text.spans.count)
        for span in text.spans {
            spanFonts.append(span.font.map { font(for: $0) } ?? base)
            // Loading a font can take a while (see maxFontsPerEngine).
            if fontsLoaded != loaded && spanFonts.count & 7 == 0 && shouldStop() { return nil }
        }
        return spanFonts
    }

    /// Letter spacing Pango can represent (non-finite → 0, clamped to ±10 000 px).
    static func sanitize(_ spacing: Double) -> Double { spacing.isFinite ? min(max(spacing, -10_000), 10_000) : 0 }
}

extension PangoEngine {
    static let recentFontSlots = 32

    /// A slot of `recentFonts` for `d`: its size, weight, slant and the family's length
    /// mixed by one multiplication (a shared slot only sends a lookup to the dictionary).
    @inline(__always) static func recentFontSlot(_ d: FontDescriptor) -> Int {
        let x = d.size.bitPattern ^ UInt64(truncatingIfNeeded: d.weight) << 40
            ^ UInt64(truncatingIfNeeded: d.family.utf8.count) << 50 ^ (d.italic ? 1 << 62 : 0)
        return Int(truncatingIfNeeded: (x &* 0x9E37_79B9_7F4A_7C15) >> 59)
    }
}
