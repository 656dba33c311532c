import CPango

/// **Font metrics and threads.** Pango's line breaker (process_item) looks at the font's
/// `approximate_char_width` (three of them are its "safe distance": how carefully it weighs
/// a break near the end of the line), so line breaks depend on it. Pango 1.50's
/// pango_fc_font_get_metrics() computes it once per font and language, by laying out a
/// sample text, and guards that recursion with a process-wide `static int in_get_metrics`:
/// when two threads compute metrics at once (each for a font of its own font map), one of
/// them sees the other's flag, skips the computation and caches 0 for good. That engine then
/// breaks some lines differently (a text with "über" and a long word: 10 or 11 lines). The
/// same flag gives 0 without any race to a font whose metrics are first asked for while
/// another font's are computed (the other's sample text falls back to it: "Roboto 17" in
/// Japanese falls back to "Noto Sans CJK JP 17", whose Japanese metrics then stay 0). So
/// an engine computes the metrics of every font it loads under `metricsLock` (for "en" and
/// for no language, the entry the FT2 backend reads for a missing glyph's box), checks each
/// font a layout used afterwards (`verify`: a fallback font is first measured inside
/// Pango), and is `poisoned` when one has a width of 0. The measurer then `heal`s it (the
/// fonts forget those metrics: `loom_font_forget_metrics`, so the next question computes
/// them at the top level) and measures again (PangoTextMeasurer); an engine that cannot be
/// healed is discarded. `PangoEngine.metricsLock` is that lock.
///
/// One engine's record of it: the fonts (referenced) whose metrics are known complete, per
/// language, and the safe distances read from them for the word path's cuts
/// (FallbackBreaks.swift). Bounded by the engine (`release` when it holds too many).
final class FontMetricsChecks {
    /// Whether a font's metrics came out incomplete (a race, or computed inside another's).
    private(set) var poisoned = false
    /// The font and language that did so first ("Noto Sans CJK JP 15|ja").
    private(set) var poisonedBy: String?
    private struct Key: Hashable {
        var font: UnsafeMutableRawPointer
        var language: OpaquePointer?
    }
    /// (Touched by the engine's thread only, one access at a time: no run-time checks.)
    @exclusivity(unchecked) private var verified: Set<Key> = []
    /// `breakSafeDistance`'s answers, for fonts in `verified` (emptied with it): asking Pango
    /// for a font's metrics costs more than the cut it weighs.
    private var safeDistances: [Key: Int] = [:]
    private var last: Key?
    /// The fonts (referenced) found with a width of 0 since the engine was last healed, once
    /// each, and which of their two entries was 0: at most one per font and language the
    /// attempt used.
    private var spoiled: [(key: Key, language: Bool, noLanguage: Bool)] = []

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
        // The entries found with a width of 0 (key's language, no language).
        let check = { () -> (Bool, Bool) in
            (Self.approximateCharWidth(font, language) == 0, !fallback && Self.approximateCharWidth(font, nil) == 0)
        }
        let (zero, zeroWithoutLanguage) = holdingLock ? check() : PangoEngine.metricsLock.withLock { _ in check() }
        guard !zero && !zeroWithoutLanguage else {
            if !poisoned { poisonedBy = PangoEngine.describe(font, language) }
            poisoned = true
            if let i = spoiled.firstIndex(where: { $0.key == key }) {
                // Asked again (perhaps now as the text's own font, checking no language too).
                spoiled[i].language = spoiled[i].language || zero
                spoiled[i].noLanguage = spoiled[i].noLanguage || zeroWithoutLanguage
            } else {
                loom_object_ref(key.font)
                spoiled.append((key, zero, zeroWithoutLanguage))
            }
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

    /// Makes the fonts found with incomplete metrics forget them, so that Pango computes them
    /// again the next time it asks (now outside the computation that spoiled them, or under
    /// the lock), and the engine clean again. False when this Pango cannot forget them
    /// (`loom_font_forget_metrics`): the engine stays poisoned and is discarded.
    func heal() -> Bool {
        guard poisoned else { return true }
        var forgotten = true
        for (key, language, noLanguage) in spoiled {
            let font = key.font.assumingMemoryBound(to: PangoFont.self)
            if language && loom_font_forget_metrics(font, key.language) == 0 { forgotten = false }
            if noLanguage && loom_font_forget_metrics(font, nil) == 0 { forgotten = false }
            loom_object_unref(key.font)
        }
        spoiled.removeAll()
        guard forgotten else { return false }
        poisoned = false
        poisonedBy = nil
        return true
    }

    /// Drops the references to the spoiled fonts of an engine that goes away poisoned.
    func releaseSpoiled() {
        for entry in spoiled { loom_object_unref(entry.key.font) }
        spoiled.removeAll()
    }

    /// Forgets every font checked (and drops their references); the spoiled ones stay.
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
