import CPango
import LoomLayout

// The word path (WordShaping.swift) for paragraphs that mix the text's font with words drawn
// by a fallback font of the chain (Chinese, Japanese kana, Korean, Thai, Devanagari …).
//
// Which words. A "fallback word" is a run of letters and marks (no punctuation, symbol,
// emoji or format character) of one left-to-right script (not Common or Inherited) that the
// text's family lacks every one of and that the same family of the chain draws (not the
// emoji font): Pango gives it that font (the first family of the list that has it) and, as
// the browser draws spaces next to fallback characters in the text's family
// (EmojiLayout.spaces), the spaces around it stay in the text's font. So the word is an
// item of its own and is shaped alone, in its font and script, with the language Pango
// derives for that script. Emoji have their own measurement (EmojiWords.swift); Arabic and
// Hebrew words, right to left, are taken only where bidi cannot change the sums
// (RightToLeftWords.swift).
//
// The spaces. Whether Pango puts a space next to a fallback word in the same item as the
// text-font word on its other side is not assumed: such a space must have the same advance
// alone as in that word's shaping, and the word the same advances with and without it;
// otherwise the text is laid out by Pango. The break test at such a space is the content
// width (nothing kerns there).
//
// Breaks. Inside a fallback word there can be break opportunities (between ideographs,
// Thai dictionary breaks, Hangul syllables), which Pango takes when the word does not fit
// the rest of a line: such a word is cut into pieces as Pango cuts it (FallbackBreaks.swift).
// Elsewhere the break opportunities are the spaces, as on the word path. Emoji words
// (EmojiWords.swift) have none inside.
//
// Line heights. Under `line-height: normal` a line's box grows with the metrics of every
// fallback font on it (PangoEngine.lineBoxHeight: the run fonts); each line records the
// largest parts above and below the baseline of its fallback words.

extension PangoEngine {
    /// Whether `v` can be part of a fallback word (see the top of this file); the font is
    /// checked when the word is measured.
    @inline(__always)
    static func mayBeFallbackLetter(_ v: UInt32) -> Bool {
        guard v >= 0x900 else { return v >= 0x5D0 && mayBeRightToLeftLetter(v) }
        if v == 0x30FC { return true }  // ー (Common, inside kana words: see fallbackWordFont)
        switch g_unichar_type(v) {
        case G_UNICODE_LOWERCASE_LETTER, G_UNICODE_MODIFIER_LETTER, G_UNICODE_OTHER_LETTER, G_UNICODE_TITLECASE_LETTER,
             G_UNICODE_UPPERCASE_LETTER, G_UNICODE_SPACING_MARK, G_UNICODE_NON_SPACING_MARK:
            return fallbackScript(g_unichar_get_script(v))
        default:
            return false
        }
    }

    @inline(__always)
    static func leftToRightFallback(_ s: GUnicodeScript) -> Bool {
        s != G_UNICODE_SCRIPT_ARABIC && s != G_UNICODE_SCRIPT_HEBREW && fallbackScript(s)
    }

    /// Left-to-right scripts whose words the fallback word path measures.
    @inline(__always)
    private static func fallbackScript(_ s: GUnicodeScript) -> Bool {
        switch s {
        case G_UNICODE_SCRIPT_HAN, G_UNICODE_SCRIPT_HIRAGANA, G_UNICODE_SCRIPT_KATAKANA, G_UNICODE_SCRIPT_HANGUL,
             G_UNICODE_SCRIPT_THAI, G_UNICODE_SCRIPT_DEVANAGARI, G_UNICODE_SCRIPT_BENGALI, G_UNICODE_SCRIPT_TAMIL,
             G_UNICODE_SCRIPT_TELUGU, G_UNICODE_SCRIPT_GUJARATI, G_UNICODE_SCRIPT_GURMUKHI, G_UNICODE_SCRIPT_KANNADA,
             G_UNICODE_SCRIPT_MALAYALAM:
            return true
        default:
            return false
        }
    }

    /// The lines of the paragraph [p, e) of `s` (`words` words, checked by breakLines) in
    /// which some words are fallback words; false when the text needs Pango.
    /// `rightToLeft`: the paragraph has an Arabic or Hebrew letter (RightToLeftWords.swift);
    /// `needsRules`: it has an input of soft rules (MixedSoftRules.swift).
    func mixedParagraphLines(_ s: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int, words: Int, profile: FaceWordProfile,
                             font base: EngineFont, fontID: Int32, limit: Int, cache: WordCache, rightToLeft: Bool,
                             needsRules: Bool, state: inout WordLineState) -> Bool {
        // In a right-to-left paragraph, words of the text's font start with a letter and
        // end with a letter or digit unless a word of the text's font follows.
        let letterEdges = rightToLeft && PangoEngine.isRightToLeftParagraph(s, p, e)
        // The text font's space alone (an entry of " " is its advance between two fallback words).
        let spaceEntry = wordEntry(PangoEngine.spaceByte, font: base, fontID: fontID,
                                   flags: 8, cache: cache, table: &state.table)
        guard spaceEntry.valid else { return false }
        let space = Int(spaceEntry.word)
        let kinds = profile.asciiKind
        var units = 0, started = false
        var above = 0.0, below = 0.0
        var previous = WordCache.Entry.invalid
        // Fallback words and emoji words; the first can break inside (a fallback word).
        var previousFallback = false, previousBreakable = false, previousMark = false, previousSplit = (above: 0.0, below: 0.0)
        var previousGap = 0, previousStart = 0, previousEnd = 0
        // The bytes of the line so far (Line.start, Line.end).
        var lineStart = p, lineEnd = p
        if needsRules {
            state.glyphs.removeAll(keepingCapacity: true)
            state.starts.removeAll(keepingCapacity: true)
        }
        // The script of the fallback word before a mark (nil: none, or an emoji word), the
        // script of the previous word when it is a fallback word, whether the previous word
        // was shaped with a space before it, and whether it must stay on its mark's line.
        var markScript: GUnicodeScript? = nil, previousScript: GUnicodeScript? = nil
        var previousLead = false, previousGlued = false, previousOpenEdge = false
        // Whether the previous word's final mark was shaped as an item of its own (openEdgeSplit).
        var previousSplitEdge = false
        // Whether the previous word is a right-to-left word in the text's own font (ownRightToLeftWord).
        var previousOwn = false, markAfterOwn = false
        // Whether the previous word is one emoji cluster.
        var previousEmoji = false
        // The script of the last word before this one that has a strong one (a fallback word's,
        // Latin for a word of the text's font; nil: none yet): Pango's script runs give it
        // to the Common characters after it, emoji and spaces among them.
        var strongScript: GUnicodeScript? = nil
        var j = p
        for k in 0...words {
            if k & 1023 == 1023 && shouldStop() { return false }
            var next = WordCache.Entry.invalid
            var nextFallback = false, nextBreakable = false, nextMark = false, split = (above: 0.0, below: 0.0)
            var gap = 0, atBreak = 0
            var kernedLead = false
            var start = j
            var nextScript: GUnicodeScript? = nil, nextLead = k > 0, glued = false, nextOpenEdge = false
            var nextOwn = false, nextEmoji = false, nextLatin = false
            if k < words {
                while s[j] == 0x20 || s[j] == 0x09 { j += 1 }
                start = j
                while j < e && s[j] != 0x20 && s[j] != 0x09 { j += 1 }
                let word = UnsafeBufferPointer(rebasing: s[start..<j])
                // A keycap (an emoji word with an ASCII base).
                let keycap = s[start] < 0x80 && j - start > 1 && s[start + 1] >= 0x80
                // Digits after a mark after a fallback word ("世界 · 8h"): the mark, the space
                // and the digits take that word's script (Common characters), one item in
                // the text's font; the rest of the word starts a Latin item.
                var digits = start
                if previousMark, markScript != nil, k > 0 {
                    while digits < j && s[digits] >= 0x30 && s[digits] <= 0x39 { digits += 1 }
                }
                if digits > start {
                    guard !needsRules, digits < j, s[digits] < 0x80, kinds[Int(s[digits])] & FaceWordProfile.plainLetterBit != 0,
                          let script = markScript
                    else { return false }
                    if rightToLeft {
                        // After an Arabic or Hebrew word (RightToLeftWords.swift).
                        guard let head = rightToLeftHandle(s, previousStart, previousEnd, start, digits, j, script: script,
                                                           profile: profile, font: base, fontID: fontID, space: space, cache: cache,
                                                           state: &state) else { return false }
                        previous.word = head
                    } else {
                        var run = Array(UnsafeBufferPointer(rebasing: s[previousStart..<previousEnd]))
                        run.append(0x20)
                        run.append(contentsOf: UnsafeBufferPointer(rebasing: s[start..<digits]))
                        let head = run.withUnsafeBufferPointer { shapeFallbackWord($0, font: base, script: script) }
                        guard head.valid else { return false }
                        previous.word = head.word
                    }
                    start = digits
                    next = wordEntry(UnsafeBufferPointer(rebasing: s[start..<j]), font: base, fontID: fontID,
                                     flags: k < words - 1 ? 2 : 0, cache: cache, table: &state.table)
                    nextLead = false
                    glued = true
                    nextLatin = true
                } else if s[start] < 0x80 && !keycap {
                    // A word in the text's font, shaped as Latin: it must have a letter (a
                    // word of digits or punctuation would take the script of its neighbours).
                    var letter = false
                    for b in word where b < 0x80 && kinds[Int(b)] & FaceWordProfile.letterBit != 0 { letter = true; break }
                    guard letter else { return false }
                    if letterEdges {
                        // A word ending in punctuation must have a word of the text's font
                        // after it (RightToLeftWords.swift).
                        guard kinds[Int(s[start])] & FaceWordProfile.letterBit != 0 else { return false }
                        nextOpenEdge = kinds[Int(s[j - 1])] & FaceWordProfile.alnumBit == 0
                    }
                    // Leading punctuation after a fallback word takes that word's script.
                    if previousFallback && kinds[Int(s[start])] & FaceWordProfile.letterBit == 0 { return false }
                    let flags: UInt8 = (k > 0 ? 1 : 0) | (k < words - 1 ? 2 : 0)
                    next = wordEntry(word, font: base, fontID: fontID, flags: flags, cache: cache, table: &state.table)
                    nextLatin = true
                    if needsRules {
                        guard !next.substituted else { return false }
                        if k > 0 { appendNominalSpace(profile: profile, state: &state) }
                        appendNominalGlyphs(s, start, j, profile: profile, state: &state)
                    }
                } else {
                    let first = keycap ? UInt32(s[start]) : PangoEngine.decodeUTF8(word, 0).0
                    if !keycap && profile.usable(first) {
                        // A stand-alone mark (· – — • …) between two fallback or emoji words:
                        // the spaces around it are in the text's family (EmojiLayout.spaces),
                        // so it is an item of its own, shaped alone in the text's font.
                        // Between two right-to-left words (checked at the next one) it takes their
                        // level and script: shaped so (flags 64: Arabic, 128: Hebrew).
                        guard previousFallback, !needsRules else { return false }
                        var flags: UInt8 = 8
                        if rightToLeft {
                            guard let script = previousScript,
                                  script == G_UNICODE_SCRIPT_ARABIC || script == G_UNICODE_SCRIPT_HEBREW else { return false }
                            flags |= script == G_UNICODE_SCRIPT_ARABIC ? 64 : 128
                        }
                        next = wordEntry(word, font: base, fontID: fontID, flags: flags, cache: cache, table: &state.table)
                        nextMark = true
                        markScript = previousScript
                        // After a word of the text's own font the mark joins its item: only
                        // in a handle (digits after it), where ` · ` is measured as that item's end.
                        markAfterOwn = previousOwn
                    } else if !keycap && PangoEngine.mayBeFallbackLetter(first) {
                        if let f = fallbackWordFont(word, base: base, table: &state.table) {
                            next = wordEntry(word, font: f, fontID: f.wordFontID(cache), flags: 8, cache: cache,
                                             table: &state.table)
                            split = f.metrics.halfLeadingSplit(lineHeight: nil)
                            nextScript = g_unichar_get_script(first)
                            // Arabic and Hebrew words are not cut (their pieces would be shaped joined).
                            nextBreakable = nextScript != G_UNICODE_SCRIPT_ARABIC && nextScript != G_UNICODE_SCRIPT_HEBREW
                        } else {
                            // An Arabic or Hebrew word of the text's own font (RightToLeftWords.swift):
                            // not cut, no line box of another font; a mark before it only after
                            // another such word (` · ` then measured as the mark between two spaces).
                            guard rightToLeft, !needsRules,
                                  !previousMark || markAfterOwn && ownMarkSpaced(s, previousStart, previousEnd, start, mark: previous,
                                                                                 script: markScript, font: base, fontID: fontID,
                                                                                 space: space, cache: cache, state: &state),
                                  let (own, script) = ownRightToLeftWord(word, base: base, fontID: fontID, space: space,
                                                                         cache: cache, state: &state) else { return false }
                            next = own
                            nextScript = script
                            nextOwn = true
                        }
                    } else {
                        // One emoji cluster (EmojiWords.swift).
                        nextEmoji = true
                        next = wordEntry(word, font: base, fontID: fontID, flags: 16, cache: cache, table: &state.table)
                        split = (Double(next.leadSpace), Double(next.trailSpace))
                    }
                    nextFallback = true
                    if needsRules {
                        // The run of the text's font before this word ends here.
                        if k > 0 { appendNominalSpace(profile: profile, state: &state) }
                        guard softRulesChangeNothing(profile: profile, state: &state) else { return false }
                    }
                }
                if previousMark && markAfterOwn && !glued && !nextOwn { return false }
                if previousMark && rightToLeft && !glued {
                    guard nextScript == G_UNICODE_SCRIPT_ARABIC || nextScript == G_UNICODE_SCRIPT_HEBREW else { return false }
                }
                if previousOpenEdge && nextFallback {
                    // The mark ending the previous word (RightToLeftWords.swift): when the next
                    // strong character is right to left (or none is) it takes the paragraph's
                    // level, else it stays in the word's item.
                    if PangoEngine.nextStrongIsRightToLeft(s, start, e) {
                        guard let split = openEdgeSplit(s, previousStart, previousEnd, lead: previousLead, atEnd: false,
                                                        profile: profile, font: base, fontID: fontID, space: space,
                                                        cache: cache, state: &state) else { return false }
                        previous = split
                        previousSplitEdge = true
                    }
                    previousOpenEdge = false
                }
                guard next.valid, !previousMark || glued || nextFallback && !nextMark,
                      !previousOpenEdge || !nextFallback else { return false }
                if k > 0 && !glued {
                    if !previousFallback && !nextFallback {
                        gap = Int(next.leadSpace)
                        atBreak = Int(previous.trailSpace) - Int(next.leadSpace)
                    } else {
                        // A space beside a fallback word: the text font's space, the same
                        // whichever item it joins.
                        if !previousFallback && !previousSplitEdge {
                            guard Int(previous.trailSpace) == space else { return false }
                            // The word's advance without the space after it: the same when its last
                            // glyph, nominal, is not kerned against the space (lastKernsSpace).
                            if previous.substituted || lastKernsSpace(s[previousEnd - 1], profile: profile, font: base,
                                                                      fontID: fontID, cache: cache, state: &state) {
                                let bare = wordEntry(UnsafeBufferPointer(rebasing: s[previousStart..<previousEnd]), font: base,
                                                     fontID: fontID, flags: previousLead ? 1 : 0, cache: cache,
                                                     table: &state.table)
                                guard bare.valid, bare.word == previous.word else { return false }
                            }
                        }
                        // After a fallback word of a left-to-right script the space takes that
                        // word's script (a Common character) and the next word Latin: the space
                        // is an item of its own, shaped alone, whatever it kerns with.
                        if !nextFallback && !(previousScript.map(PangoEngine.leftToRightFallback) ?? false) {
                            if !previousOwn, let script = previousScript,
                               script == G_UNICODE_SCRIPT_ARABIC || script == G_UNICODE_SCRIPT_HEBREW {
                                // So after an Arabic or Hebrew word of a fallback font too (the
                                // space at the paragraph's level or the word's, the next word
                                // Latin): the space alone in that script must be the text font's.
                                let alone = wordEntry(PangoEngine.spaceByte, font: base, fontID: fontID,
                                                      flags: 8 | (script == G_UNICODE_SCRIPT_ARABIC ? 64 : 128),
                                                      cache: cache, table: &state.table)
                                guard alone.valid, Int(alone.word) == space else { return false }
                            } else if Int(next.leadSpace) != space {
                                // After an emoji cluster (left to right) the space is an item of its
                                // own too; after an Arabic or Hebrew word of the text's font it is in
                                // that word's item or its own: never in the next word's. A word that
                                // kerns with the space before it (Roboto's and Liberation's " T",
                                // " A") is then measured as shaped without it. But a cluster that
                                // ends in a selector or a tag (❤️, ☕︎, drawing nothing) gives the
                                // space no family of its own (EmojiLayout.findSpaces): it joins the
                                // next word's item, kerned, unless a word of a fallback script
                                // before the emoji gave the space its script (`친구 ❤️ AY`: the
                                // space is a Hangul item, A a Latin one).
                                guard previousOwn || previousEmoji && !rightToLeft else { return false }
                                if previousEmoji && (strongScript == nil || strongScript == G_UNICODE_SCRIPT_LATIN)
                                    && !catalog.lacksDrawn(lastScalar(s, previousStart, previousEnd), in: base.resolved.family) {
                                    kernedLead = true
                                } else {
                                    let bare = wordEntry(word, font: base, fontID: fontID, flags: k < words - 1 ? 2 : 0,
                                                         cache: cache, table: &state.table)
                                    guard bare.valid, !bare.substituted || !needsRules else { return false }
                                    next = bare
                                }
                            }
                        }
                        gap = kernedLead ? Int(next.leadSpace) : space
                    }
                }
            }
            if k == words && previousOpenEdge {
                // The mark ending the paragraph's last word takes the paragraph's level.
                guard let split = openEdgeSplit(s, previousStart, previousEnd, lead: previousLead, atEnd: true,
                                                profile: profile, font: base, fontID: fontID, space: space,
                                                cache: cache, state: &state) else { return false }
                previous = split
                previousOpenEdge = false
            }
            if k > 0, previousBreakable,
               started ? units + previousGap + Int(previous.word) > limit : Int(previous.word) > limit {
                // A fallback word that does not fit: in pieces where Pango breaks it (FallbackBreaks.swift).
                let word = UnsafeBufferPointer(rebasing: s[previousStart..<previousEnd])
                if state.dictionary == nil { state.dictionary = DictionaryBreaks.withinLimit(s) }
                guard let f = fallbackWordFont(word, base: base, table: &state.table),
                      let (onLine, pieces) = fallbackWordPieces(word, font: f, room: started ? limit - units - previousGap : limit,
                                                                lineIsEmpty: !started, limit: limit, cache: cache,
                                                                state: &state) else { return false }
                for (index, (piece, pieceEnd)) in pieces.enumerated() {
                    let last = index == pieces.count - 1
                    if index == 0 && onLine {
                        units = started ? units + previousGap + piece : piece
                        if !started { lineStart = previousStart }
                    } else {
                        if started {
                            state.lines.append(.init(units: units, endsParagraph: false, empty: false, above: above, below: below,
                                                     start: lineStart, end: lineEnd))
                        }
                        units = piece; above = 0; below = 0
                        lineStart = index == 0 ? previousStart : previousStart + pieces[index - 1].end
                    }
                    lineEnd = last ? previousEnd : previousStart + pieceEnd
                    started = true
                    above = max(above, previousSplit.above); below = max(below, previousSplit.below)
                }
            } else if k > 0 {
                // Word k − 1, as paragraphLines places it.
                let w = Int(previous.word)
                var placed = false
                if started {
                    let candidate = units + previousGap + w
                    if candidate + atBreak <= limit {
                        units = candidate
                        placed = true
                    } else {
                        // A mark with digits after it, and the rest of their word, stay on the
                        // line of the fallback word before them (elsewhere Pango breaks them
                        // otherwise).
                        if previousGlued || glued { return false }
                        state.lines.append(.init(units: units, endsParagraph: false, empty: false, above: above, below: below,
                                                 start: lineStart, end: lineEnd))
                        above = 0; below = 0
                    }
                }
                if !placed {
                    guard w + atBreak <= limit else { return false }
                    units = w
                    started = true
                    lineStart = previousStart
                }
                lineEnd = previousEnd
                if previousFallback {
                    above = max(above, previousSplit.above); below = max(below, previousSplit.below)
                }
            }
            if k == words && (previousMark || previousOpenEdge) { return false }
            previous = next; previousFallback = nextFallback; previousBreakable = nextBreakable; previousMark = nextMark
            previousScript = nextScript; previousLead = nextLead; previousGlued = glued; previousOpenEdge = nextOpenEdge
            previousSplit = split
            previousGap = gap; previousStart = start; previousEnd = j
            previousSplitEdge = false
            previousOwn = nextOwn
            previousEmoji = nextEmoji
            if let nextScript { strongScript = nextScript } else if nextLatin { strongScript = G_UNICODE_SCRIPT_LATIN }
        }
        state.lines.append(.init(units: units, endsParagraph: true, empty: false, above: above, below: below,
                                 start: lineStart, end: lineEnd))
        return !needsRules || softRulesChangeNothing(profile: profile, state: &state)
    }

    /// Whether the word path must shape a word of the text's font ending in byte `c` without
    /// the space after it to know its advance there (true), or knows it is the same (false).
    /// With nothing substituted in the word, its glyphs are nominal, and in the faces the word
    /// path takes only pair kerning that moves the first glyph of a pair acts across a space
    /// (WordShaping.swift): the space can change the advance of the last glyph alone, by the
    /// kerning of that pair, which is the same after any glyphs. So `c` shaped alone with and
    /// without a space after it (cached as words) tells. Not for a character that is an input
    /// of soft rules (MixedSoftRules.swift), nor one that is not ASCII. Known once per font.
    func lastKernsSpace(_ c: UInt8, profile: FaceWordProfile, font: EngineFont, fontID: Int32, cache: WordCache,
                        state: inout WordLineState) -> Bool {
        guard c < 0x80, profile.asciiKind[Int(c)] & (FaceWordProfile.usableBit | FaceWordProfile.softBit)
                == FaceWordProfile.usableBit else { return true }
        if font.spaceKern.isEmpty { font.spaceKern = [UInt8](repeating: 0, count: 128) }
        let known = font.spaceKern[Int(c)]
        if known != 0 { return known == 2 }
        let one = UnsafeBufferPointer(rebasing: PangoEngine.asciiBytes[Int(c)..<Int(c) + 1])
        let spaced = wordEntry(one, font: font, fontID: fontID, flags: 2, cache: cache, table: &state.table)
        let alone = wordEntry(one, font: font, fontID: fontID, flags: 0, cache: cache, table: &state.table)
        let kerns = !spaced.valid || !alone.valid || spaced.substituted || alone.substituted || spaced.word != alone.word
        font.spaceKern[Int(c)] = kerns ? 2 : 1
        return kerns
    }

    /// The ASCII bytes in order (byte c at offset c), for looking one up as a word.
    nonisolated(unsafe) static let asciiBytes: UnsafeBufferPointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 128)
        for c in 0..<128 { p[c] = UInt8(c) }
        return UnsafeBufferPointer(start: p, count: 128)
    }()

    /// " ", for looking the space up as a word.
    nonisolated(unsafe) static let spaceByte: UnsafeBufferPointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.pointee = 0x20
        return UnsafeBufferPointer(start: p, count: 1)
    }()

    /// The last scalar of the word s[start, end).
    func lastScalar(_ s: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> UInt32 {
        var i = end - 1
        while i > start && s[i] & 0xC0 == 0x80 { i -= 1 }
        return s[i] < 0x80 ? UInt32(s[i]) : PangoEngine.decodeUTF8(s, i).0
    }
}
