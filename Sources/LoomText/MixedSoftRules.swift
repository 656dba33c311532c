import CPango
import LoomLayout

// Soft rules (WordShaping.swift: contextual lookups that involve the space, such as Inter's
// case-sensitive punctuation) in paragraphs with fallback and emoji words (FallbackWords.swift).
//
// On Pango's path a word of another font, and an emoji cluster (a shape attribute), is an
// item of its own, and so are the spaces beside them that take the text's family: every
// item in the text's font lies within one run of the text font's words between two such
// words, the spaces at both ends included. So the paragraph is measured from words when no
// word of the text's font had a glyph substituted in its own shaping and, on each such run's
// nominal glyphs, the soft lookups change nothing (loom_rules_change_nothing: then they
// change nothing on any part of the run either).

extension PangoEngine {
    /// Appends the nominal glyphs of the word [start, end) of `s` (usable characters of the
    /// text's font) to the run, with their characters' start codes (which soft rules may
    /// start at each: `FaceWordProfile.startCode`).
    @inline(__always)
    func appendNominalGlyphs(_ s: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, profile: FaceWordProfile,
                             state: inout WordLineState) {
        var q = start
        while q < end {
            let (v, length) = s[q] < 0x80 ? (UInt32(s[q]), 1) : PangoEngine.decodeUTF8(s, q)
            state.glyphs.append(profile.glyph(v))
            state.starts.append(profile.startCode(v))
            q += length
        }
    }

    /// Appends the space (no rule starts there) to the run.
    @inline(__always)
    func appendNominalSpace(profile: FaceWordProfile, state: inout WordLineState) {
        state.glyphs.append(profile.glyph(0x20))
        state.starts.append(0)
    }

    /// Whether the soft lookups change nothing on the run; empties it.
    func softRulesChangeNothing(profile: FaceWordProfile, state: inout WordLineState) -> Bool {
        defer {
            state.glyphs.removeAll(keepingCapacity: true)
            state.starts.removeAll(keepingCapacity: true)
        }
        return state.glyphs.isEmpty || softLookupsChangeNothing(profile: profile, state: state)
    }

    /// Whether no rule of a soft lookup that applies a lookup matches in the run: at each
    /// position, each lookup's subtables that can start at its character (`SoftLookup`).
    func softLookupsChangeNothing(profile: FaceWordProfile, state: borrowing WordLineState) -> Bool {
        profile.softLookups.allSatisfy { $0.changesNothing(state.glyphs, state.starts) }
    }
}
