import CPango
import LoomLayout

// The word path (FallbackWords.swift) for words that are one emoji cluster.
//
// A word of a paragraph that is exactly one emoji cluster the engine measures itself
// (Emoji.swift: a sequence, a character of emoji presentation, one with U+FE0E, one of text
// presentation whose first font is the emoji font) is, on
// Pango's path, a shape attribute as wide as the cluster (its width in Pango units,
// rounded) between spaces in the text's font, and its font's ascent and descent join its
// line's box under `line-height: normal`. The word path takes the same width and metrics,
// from the same font choice and HarfBuzz advance, and caches them as a word (flags 16).
// A cluster has no break opportunity inside, so such a word may wrap to the next line as a
// text-font word does. Emoji inside a word, keycaps (an ASCII base) and single characters
// of text presentation that a text font has (Pango picks their font) go to Pango.

extension PangoEngine {
    /// Whether `v` can be part of an emoji word (the cluster is checked when it is measured).
    @inline(__always)
    static func mayBeEmojiPart(_ v: UInt32) -> Bool {
        v == 0xFE0F || v == 0xFE0E || v == 0x200D || v == 0x20E3 || EmojiLayout.isTag(v)
            || (v >= 0xA9 && EmojiLayout.isEmoji(v))
    }

    /// A word that is one emoji cluster in a text of `font`: its width in Pango units as
    /// `word`, and the whole pixels its font needs above and below the baseline under
    /// `line-height: normal` as `leadSpace` and `trailSpace`; invalid for anything else.
    func shapeEmojiWord(_ word: UnsafeBufferPointer<UInt8>, font: EngineFont) -> WordCache.Entry {
        var values: [UInt32] = []
        var i = 0
        while i < word.count {
            let (v, length) = word[i] < 0x80 ? (UInt32(word[i]), 1) : PangoEngine.decodeUTF8(word, i)
            values.append(v)
            i += length
        }
        let base = font.resolved
        guard !values.isEmpty, let shape = EmojiLayout.scanCluster(at: 0, count: values.count, { values[$0] }),
              shape.end == values.count, let family = clusterFamily(shape, base: values[0], after: base.family)
        else { return .invalid }
        let chosen = family == base.family ? base : resolved(family, like: base)
        guard let (width, metrics) = advance(of: Array(word), in: chosen, roundingEach: family == FontCatalog.emojiFamily),
              let units = Int32(exactly: (width * Double(LOOM_PANGO_SCALE)).rounded()) else { return .invalid }
        let (above, below) = metrics.halfLeadingSplit(lineHeight: nil)
        guard let a = Int32(exactly: above), let b = Int32(exactly: below) else { return .invalid }
        return WordCache.Entry(word: units, trailSpace: b, leadSpace: a, valid: true, substituted: false)
    }
}
