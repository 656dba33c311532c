import CPango
import LoomLayout

// The word path (FallbackWords.swift) for Arabic and Hebrew words.
//
// A word of Arabic or Hebrew letters (no digit, punctuation, tatweel or mark of another
// script) that the text's family lacks is, on Pango's path, an item of its own: a run of
// bidi level 1 in any paragraph, in its chain font, between spaces that take the text's
// family (EmojiLayout.spaces). Pango breaks lines in logical order and a line's width is
// the sum of its items' advances, whatever their visual order, so the word is shaped whole
// (its letters joined) right to left and cached like any fallback word. It has no break
// opportunity inside: a word wider than the line goes to Pango (break-word would cut it).
//
// What bidi could move. In a paragraph whose first strong character is right to left, a
// neutral at the edge of a Latin word (the `.` of `spec.`) between that word and an Arabic
// one, or the paragraph's end, takes level 1 and leaves the word's item. So there a word in
// the text's font starts with a letter (after a fallback word it must everywhere) and, when
// it ends in anything but a letter or digit, has a word of the text's font after it (the
// neutrals between two Latin words keep their level; digits after a letter take its
// direction). Digits after an Arabic word become Arabic numbers, and a stand-alone mark (·)
// takes the level of its neighbours: paragraphs with right-to-left words take neither.
// Truncation is decided in logical order (Truncation.swift), the same in both directions.

extension PangoEngine {
    /// Whether `v` (below U+0900) can be a letter of an Arabic or Hebrew word.
    static func mayBeRightToLeftLetter(_ v: UInt32) -> Bool {
        guard v < 0x900 else { return false }
        switch g_unichar_type(v) {
        case G_UNICODE_OTHER_LETTER, G_UNICODE_MODIFIER_LETTER, G_UNICODE_SPACING_MARK, G_UNICODE_NON_SPACING_MARK:
            let script = g_unichar_get_script(v)
            return script == G_UNICODE_SCRIPT_ARABIC || script == G_UNICODE_SCRIPT_HEBREW
        default:
            return false
        }
    }

    @inline(__always)
    static func isRightToLeft(_ script: PangoScript) -> Bool {
        script == PANGO_SCRIPT_ARABIC || script == PANGO_SCRIPT_HEBREW
    }

    /// Whether the paragraph [p, e) of `s` is right to left (its first strong character's
    /// direction, as Pango finds it).
    static func isRightToLeftParagraph(_ s: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int) -> Bool {
        UnsafeBufferPointer(rebasing: s[p..<e]).withMemoryRebound(to: CChar.self) {
            loom_find_base_dir($0.baseAddress, Int32($0.count)) == PANGO_DIRECTION_RTL
        }
    }
}
