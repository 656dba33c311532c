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
// it ends in anything but a letter or digit, has a word of the text's font or of another
// left-to-right script after it (the neutrals between two such words keep their level;
// digits after a letter take its direction), or ends in one mark followed (past emoji and
// spaces, which are neutral) by a right-to-left word or the paragraph's end: then it is
// measured as Pango itemizes it, its letters an
// item of the text's font (unkerned at the end) and the mark an item of its own at level 1
// (`openEdgeSplit`). Digits after a right-to-left word are taken only in a handle after a
// mark (`rightToLeftHandle`). A stand-alone mark (·) takes the level of its neighbours: it is
// taken between two right-to-left words (shaped alone right to left in their script, which
// it inherits, as Pango's items do) and in such a handle. Words the text's own family draws:
// `ownRightToLeftWord`.
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

    /// Whether the first strong character of [from, to) of `s` (words of the word path after
    /// a Latin word) is right to left, or there is none (the paragraph's end of a
    /// right-to-left paragraph). Digits count as left to right: after a Latin word's
    /// letters, with neutrals between, they resolve to its direction (UAX #9 W2, W7).
    static func nextStrongIsRightToLeft(_ s: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        var i = from
        while i < to {
            let b = s[i]
            if b < 0x80 {
                if isASCIIAlnum(UInt32(b)) { return false }
                i += 1
                continue
            }
            let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            let direction = UnsafeBufferPointer(rebasing: s[i..<min(to, i + length)]).withMemoryRebound(to: CChar.self) {
                loom_find_base_dir($0.baseAddress, Int32($0.count))
            }
            if direction == PANGO_DIRECTION_RTL { return true }
            if direction == PANGO_DIRECTION_LTR { return false }
            i += length
        }
        return true
    }

    /// The Latin word [start, end) of `s` in a right-to-left paragraph, its final mark
    /// taking the paragraph's level: its letters shaped as an item (after a space when
    /// `lead`), the mark shaped alone right to left; nil when the word has more than one
    /// mark at its end, a mark that mirrors, or when the mark with the space after it (not
    /// `atEnd`) does not measure as the mark and the text font's space (`space`) apart.
    func openEdgeSplit(_ s: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, lead: Bool, atEnd: Bool,
                       profile: FaceWordProfile, font: EngineFont, fontID: Int32, space: Int, cache: WordCache,
                       state: inout WordLineState) -> WordCache.Entry? {
        guard end - start >= 2, s[end - 2] < 0x80, profile.asciiKind[Int(s[end - 2])] & FaceWordProfile.alnumBit != 0
        else { return nil }
        switch s[end - 1] {
        case 0x2E, 0x2C, 0x21, 0x3F, 0x3A, 0x3B: break  // . , ! ? : ;
        default: return nil
        }
        let letters = wordEntry(UnsafeBufferPointer(rebasing: s[start..<(end - 1)]), font: font, fontID: fontID,
                                flags: lead ? 1 : 0, cache: cache, table: &state.table)
        let mark = wordEntry(UnsafeBufferPointer(rebasing: s[(end - 1)..<end]), font: font, fontID: fontID,
                             flags: 8 | 32, cache: cache, table: &state.table)
        guard letters.valid, mark.valid else { return nil }
        if !atEnd {
            guard end < s.count, s[end] == 0x20 else { return nil }
            let spaced = wordEntry(UnsafeBufferPointer(rebasing: s[(end - 1)..<(end + 1)]), font: font, fontID: fontID,
                                   flags: 8 | 32, cache: cache, table: &state.table)
            guard spaced.valid, Int(spaced.word) == Int(mark.word) + space else { return nil }
        }
        guard let word = Int32(exactly: Int(letters.word) + Int(mark.word)), let spaceUnits = Int32(exactly: space)
        else { return nil }
        return WordCache.Entry(word: word, trailSpace: spaceUnits, leadSpace: letters.leadSpace, valid: true,
                               substituted: letters.substituted)
    }

    /// A word of Arabic or Hebrew letters that the text's family draws itself (Liberation
    /// Sans has Hebrew, DejaVu Sans both): on Pango's path the word is a right-to-left item
    /// in the text's font, and as the font does not change, the spaces beside it can join
    /// its item (a Common character takes the script of the run before it, and a neutral
    /// between two right-to-left words their level) or stay out of it. So the word is
    /// measured shaped alone, right to left in its script, only when the word with a space
    /// after it and with a space before it, shaped alike, measure as the word and that
    /// space apart, and the space alone measures as the text font's `space`: then whichever
    /// item a space joins, the sums are the same. Its script, or nil (a letter of another
    /// script, one the family lacks, a word longer than the table's keys).
    func ownRightToLeftWord(_ word: UnsafeBufferPointer<UInt8>, base: EngineFont, fontID: Int32, space: Int,
                            cache: WordCache, state: inout WordLineState) -> (WordCache.Entry, GUnicodeScript)? {
        guard word.count < WordCache.Key.maxBytes else { return nil }
        if !base.familyCharsetLooked {
            base.familyCharset = catalog.charset(of: base.resolved.family)
            base.familyCharsetLooked = true
        }
        guard let own = base.familyCharset else { return nil }
        var script = G_UNICODE_SCRIPT_INVALID_CODE
        var i = 0
        while i < word.count {
            let (v, length) = PangoEngine.decodeUTF8(word, i)
            guard PangoEngine.mayBeRightToLeftLetter(v), FcCharSetHasChar(own, v) != 0 else { return nil }
            let s = g_unichar_get_script(v)
            if i == 0 { script = s } else if s != script { return nil }
            i += length
        }
        let flags: UInt8 = 8 | (script == G_UNICODE_SCRIPT_ARABIC ? 64 : 128)
        let entry = wordEntry(word, font: base, fontID: fontID, flags: flags, cache: cache, table: &state.table)
        let alone = wordEntry(PangoEngine.spaceByte, font: base, fontID: fontID, flags: flags, cache: cache,
                              table: &state.table)
        guard entry.valid, alone.valid, Int(alone.word) == space else { return nil }
        let n = word.count + 1
        let spaced = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n) { b -> Bool in
            _ = b.initialize(from: word)
            b[n - 1] = 0x20
            let after = wordEntry(UnsafeBufferPointer(b), font: base, fontID: fontID, flags: flags, cache: cache,
                                  table: &state.table)
            guard after.valid, Int(after.word) == Int(entry.word) + space else { return false }
            b[0] = 0x20
            _ = UnsafeMutableBufferPointer(rebasing: b[1...]).initialize(from: word)
            let before = wordEntry(UnsafeBufferPointer(b), font: base, fontID: fontID, flags: flags, cache: cache,
                                   table: &state.table)
            return before.valid && Int(before.word) == Int(entry.word) + space
        }
        return spaced ? (entry, script) : nil
    }

    /// The handle `مرحبا · 4h` (a mark at [markStart, markEnd) after an Arabic or Hebrew
    /// word of `script`, digits at [start, digits), plain letters to `end`), as Pango
    /// itemizes it in either paragraph direction: the digits take the mark's level by UAX #9
    /// (after Arabic they are Arabic numbers, after Hebrew European ones; both act as right
    /// to left on the neutrals between) and an even level above it themselves, so ` · ` (the
    /// spaces in the text's family) is one right-to-left item of that script in the text's
    /// font, the digits a left-to-right item of the same script, the letters a Latin item.
    /// The mark's advance with the gap before it (`space`, counted by the caller) and the
    /// digits': ` · ` less that space, plus the digits; nil when the spaces are not single
    /// spaces or the letters are not all plain.
    func rightToLeftHandle(_ s: UnsafeBufferPointer<UInt8>, _ markStart: Int, _ markEnd: Int, _ start: Int,
                           _ digits: Int, _ end: Int, script: GUnicodeScript, profile: FaceWordProfile, font: EngineFont, fontID: Int32,
                           space: Int, cache: WordCache, state: inout WordLineState) -> Int32? {
        guard script == G_UNICODE_SCRIPT_ARABIC || script == G_UNICODE_SCRIPT_HEBREW, markStart >= 2,
              s[markStart - 1] == 0x20, s[markStart - 2] != 0x20, s[markStart - 2] != 0x09,
              start == markEnd + 1, s[markEnd] == 0x20 else { return nil }
        for i in digits..<end where s[i] >= 0x80 || profile.asciiKind[Int(s[i])] & FaceWordProfile.plainLetterBit == 0 {
            return nil
        }
        let arabic = script == G_UNICODE_SCRIPT_ARABIC
        let mark = wordEntry(UnsafeBufferPointer(rebasing: s[(markStart - 1)..<start]), font: font, fontID: fontID,
                             flags: 8 | (arabic ? 64 : 128), cache: cache, table: &state.table)
        let numbers = wordEntry(UnsafeBufferPointer(rebasing: s[start..<digits]), font: font, fontID: fontID,
                                flags: 192 | (arabic ? 1 : 2), cache: cache, table: &state.table)
        guard mark.valid, numbers.valid else { return nil }
        return Int32(exactly: Int(mark.word) - space + Int(numbers.word))
    }

    /// Whether the mark at [markStart, markEnd) after an Arabic or Hebrew word of `script` in
    /// the text's own font, between single spaces (the next word at `next`), measures with
    /// them as the mark (`mark`, shaped alone so) and two of the text font's spaces: Pango
    /// shapes ` · ` inside the words' item.
    func ownMarkSpaced(_ s: UnsafeBufferPointer<UInt8>, _ markStart: Int, _ markEnd: Int, _ next: Int,
                       mark: WordCache.Entry, script: GUnicodeScript?, font: EngineFont, fontID: Int32, space: Int,
                       cache: WordCache, state: inout WordLineState) -> Bool {
        guard let script, script == G_UNICODE_SCRIPT_ARABIC || script == G_UNICODE_SCRIPT_HEBREW, markStart >= 2,
              s[markStart - 1] == 0x20, s[markStart - 2] != 0x20, s[markStart - 2] != 0x09,
              next == markEnd + 1, s[markEnd] == 0x20, mark.valid else { return false }
        let spaced = wordEntry(UnsafeBufferPointer(rebasing: s[(markStart - 1)..<next]), font: font, fontID: fontID,
                               flags: 8 | (script == G_UNICODE_SCRIPT_ARABIC ? 64 : 128), cache: cache, table: &state.table)
        return spaced.valid && Int(spaced.word) == Int(mark.word) + 2 * space
    }
}
