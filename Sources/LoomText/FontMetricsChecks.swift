import CPango

/// **Font metrics and threads.** Pango's line breaker (process_item) looks at the font's
/// `approximate_char_width` (three of them are its "safe distance": how carefully it weighs
/// a break near the end of the line), so line breaks depend on it. Pango 1.50's
/// pango_fc_font_get_metrics() computes it once per font and language, by laying out a
/// sample text, and guards that recursion with a process-wide `static int in_get_metrics`:
/// when two threads compute metrics at once (each for a font of its own font map), one of
/// them sees the other's flag, skips the computation and caches 0 for good. That engine then
/// breaks some lines differently (a text with "über" and a long word: 10 or 11 lines). So
/// an engine computes the metrics of every font it loads under `metricsLock` (for "en" and
/// for no language, the entry the FT2 backend reads for a missing glyph's box), checks each
/// font a layout used afterwards (`verify`: a fallback font is first measured inside
/// Pango), and is `poisoned` when one has a width of 0: the measurer discards it and
/// measures again (PangoTextMeasurer). `PangoEngine.metricsLock` is that lock.
///
/// One engine's record of it: the fonts (referenced) whose metrics are known complete, per
/// language, and the safe distances read from them for the word path's cuts
/// (FallbackBreaks.swift). Bounded by the engine (`release` when it holds too many).
final class FontMetricsChecks {
    /// Whether a font's metrics came out incomplete (a race).
    private(set) var poisoned = false
    /// The font and language that did so first ("Noto Sans CJK JP 15|ja").
    private(set) var poisonedBy: String?
    private struct Key: Hashable {
        var font: UnsafeMutableRawPointer
        var language: OpaquePointer?
    }
    private var verified: Set<Key> = []
    /// `breakSafeDistance`'s answers, for fonts in `verified` (emptied with it): asking Pango
    /// for a font's metrics costs more than the cut it weighs.
    private var safeDistances: [Key: Int] = [:]
    private var last: Key?

    /// Fonts and languages checked so far.
    var count: Int { verified.count }

    /// Whether `font` has complete metrics for `language` and for no language (the entry
    /// Pango's FT2 backend reads for the box of a missing glyph), computing them under
    /// `PangoEngine.metricsLock` (unless `holdingLock`: the caller has it) when nobody has;
    /// poisoned when not.
    func verify(_ font: UnsafeMutablePointer<PangoFont>, language: OpaquePointer?, ownFont: Bool, holdingLock: Bool) -> Bool {
        let key = Key(font: UnsafeMutableRawPointer(font), language: language)
        if key == last || verified.contains(key) { last = key; return true }
        // The entry for no language is checked only for the text's own fonts: a fallback font
        // (the chain's) gets it computed inside Pango while another font's metrics are being
        // computed (its sample text falls back), which Pango's guard answers with 0 every
        // time, not by a race; it only sizes missing-glyph boxes.
        let fallback = !ownFont
        let check = {
            Self.approximateCharWidth(font, language) > 0 && (fallback || Self.approximateCharWidth(font, nil) > 0)
        }
        let complete = holdingLock ? check() : PangoEngine.metricsLock.withLock { _ in check() }
        guard complete else {
            if !poisoned { poisonedBy = PangoEngine.describe(font, language) }
            poisoned = true
            return false
        }
        loom_object_ref(key.font)
        verified.insert(key)
        last = key
        return true
    }

    /// Pango's "safe distance" when it breaks an item of `font` in `language` (process_item:
    /// a break closer than this to the line's end is weighed by the part's own shaping):
    /// three approximate character widths. nil when the font's metrics are incomplete.
    func breakSafeDistance(_ font: UnsafeMutablePointer<PangoFont>, language: OpaquePointer?, holdingLock: Bool) -> Int? {
        let key = Key(font: UnsafeMutableRawPointer(font), language: language)
        if let known = safeDistances[key] { return known }
        guard verify(font, language: language, ownFont: false, holdingLock: holdingLock) else { return nil }
        let distance = 3 * Int(Self.approximateCharWidth(font, language))
        safeDistances[key] = distance
        return distance
    }

    /// Forgets every font (and drops their references).
    func release() {
        for key in verified { loom_object_unref(key.font) }
        verified.removeAll()
        safeDistances.removeAll()
        last = nil
    }

    private static func approximateCharWidth(_ font: UnsafeMutablePointer<PangoFont>, _ language: OpaquePointer?) -> Int32 {
        guard let metrics = pango_font_get_metrics(font, language) else { return 0 }
        defer { pango_font_metrics_unref(metrics) }
        return pango_font_metrics_get_approximate_char_width(metrics)
    }
}
