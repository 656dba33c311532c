import CPango
import LoomLayout

// What the word path (WordShaping.swift) may measure in a face, found once per face.

/// Which characters of a face the word path may use. Computed once per face and shared by
/// every engine; a class, so that taking it for a measurement retains one object.
final class FaceWordProfile: @unchecked Sendable {
    /// Whether words can be shaped apart in this face at all.
    let eligible: Bool
    /// Per ASCII character: `usableBit` (printable, with a glyph and no (hard) trigger),
    /// `softBit` (an input of soft lookups), `letterBit` (a letter: the paragraph's script
    /// is Latin), `alnumBit`, `plainLetterBit`. One table, so that reading a character of the text takes one load.
    let asciiKind: [UInt8]
    /// The stand-alone punctuation marks with a glyph and no (hard) trigger.
    let extra: [UInt32: Bool]
    /// Nominal glyphs of the usable characters (ASCII by scalar value, space included).
    let asciiGlyph: [UInt32]
    let extraGlyph: [UInt32: UInt32]
    /// Usable marks that are inputs of "soft" lookups (`softLookups`: contextual lookups
    /// that involve the space and that the word path evaluates itself).
    let softExtra: [UInt32: Bool]
    let softLookups: [SoftLookup]

    static let usableBit: UInt8 = 1, softBit: UInt8 = 2, letterBit: UInt8 = 4, alnumBit: UInt8 = 8
    /// A usable letter that starts no soft rule.
    static let plainLetterBit: UInt8 = 16
    static let standAlone: [UInt32] = [0xB7, 0x2013, 0x2014, 0x2022, 0x2026]

    @inline(__always) func usable(_ v: UInt32) -> Bool {
        v < 0x80 ? asciiKind[Int(v)] & FaceWordProfile.usableBit != 0 : (extra[v] ?? false)
    }

    /// For a usable character: whether it starts soft lookup rules.
    @inline(__always) func soft(_ v: UInt32) -> Bool {
        v < 0x80 ? asciiKind[Int(v)] & FaceWordProfile.softBit != 0 : (softExtra[v] ?? false)
    }

    /// For a usable character, what the runs whose soft rules are checked hold for it: 0
    /// when it is no input of a soft lookup (no rule starts there), else its scalar value
    /// (ASCII) or 128 plus its place in `standAlone`.
    @inline(__always) func startCode(_ v: UInt32) -> UInt8 {
        if v < 0x80 { return asciiKind[Int(v)] & FaceWordProfile.softBit != 0 ? UInt8(v) : 0 }
        guard softExtra[v] == true, let k = FaceWordProfile.standAlone.firstIndex(of: v) else { return 0 }
        return UInt8(128 + k)
    }
    static let startCodes = 128 + standAlone.count

    /// For a usable character or the space: its nominal glyph.
    @inline(__always) func glyph(_ v: UInt32) -> UInt32 {
        v < 0x80 ? asciiGlyph[Int(v)] : (extraGlyph[v] ?? 0)
    }

    private init(eligible: Bool, asciiKind: [UInt8], extra: [UInt32: Bool], asciiGlyph: [UInt32],
                 extraGlyph: [UInt32: UInt32], softExtra: [UInt32: Bool], softLookups: [SoftLookup]) {
        self.eligible = eligible; self.asciiKind = asciiKind; self.extra = extra; self.asciiGlyph = asciiGlyph
        self.extraGlyph = extraGlyph; self.softExtra = softExtra; self.softLookups = softLookups
    }

    deinit { for lookup in softLookups { hb_blob_destroy(lookup.table) } }

    /// A face the word path does not use (nothing is usable).
    convenience init() {
        self.init(eligible: false, asciiKind: [UInt8](repeating: 0, count: 128), extra: [:],
                  asciiGlyph: [UInt32](repeating: 0, count: 128), extraGlyph: [:], softExtra: [:], softLookups: [])
    }

    convenience init(font: UnsafeMutablePointer<PangoFont>) {
        guard let face = loom_font_face(font) else { self.init(); return }
        let space = loom_nominal_glyph(font, 0x20)
        let triggers = hb_set_create(), soft = hb_set_create(), softTriggers = hb_set_create()
        defer { hb_set_destroy(triggers); hb_set_destroy(soft); hb_set_destroy(softTriggers) }
        guard space != 0, loom_face_word_analysis(face, space, triggers, soft, softTriggers) != 0 else {
            self.init(); return
        }
        func ok(_ g: UInt32) -> Bool { g != 0 && hb_set_has(triggers, g) == 0 }
        var kind = [UInt8](repeating: 0, count: 128), glyphs = [UInt32](repeating: 0, count: 128)
        glyphs[0x20] = space
        for v in UInt32(0x21)..<0x7F {
            let g = loom_nominal_glyph(font, v)
            glyphs[Int(v)] = g
            var k: UInt8 = ok(g) ? FaceWordProfile.usableBit : 0
            if hb_set_has(softTriggers, g) != 0 { k |= FaceWordProfile.softBit }
            if (v | 0x20) >= 0x61 && (v | 0x20) <= 0x7A { k |= FaceWordProfile.letterBit | FaceWordProfile.alnumBit }
            if v >= 0x30 && v <= 0x39 { k |= FaceWordProfile.alnumBit }
            if k & (FaceWordProfile.usableBit | FaceWordProfile.softBit | FaceWordProfile.letterBit)
                == FaceWordProfile.usableBit | FaceWordProfile.letterBit { k |= FaceWordProfile.plainLetterBit }
            kind[Int(v)] = k
        }
        var extra: [UInt32: Bool] = [:], extraGlyph: [UInt32: UInt32] = [:], softExtra: [UInt32: Bool] = [:]
        for v in FaceWordProfile.standAlone {
            let g = loom_nominal_glyph(font, v)
            extraGlyph[v] = g
            extra[v] = ok(g)
            softExtra[v] = hb_set_has(softTriggers, g) != 0
        }
        var lookups: [SoftLookup] = []
        var l = hb_codepoint_t.max  // HB_SET_VALUE_INVALID
        while hb_set_next(soft, &l) != 0 {
            lookups.append(SoftLookup(face, l) { subtables in
                // The subtables by the start code of the character at a position.
                var byCode = [UInt64](repeating: 0, count: FaceWordProfile.startCodes)
                for v in 0x21..<0x7F where kind[v] & FaceWordProfile.softBit != 0 { byCode[v] = subtables(glyphs[v]) }
                for (k, v) in FaceWordProfile.standAlone.enumerated() where softExtra[v] == true {
                    byCode[128 + k] = subtables(extraGlyph[v] ?? 0)
                }
                return byCode
            })
        }
        self.init(eligible: true, asciiKind: kind, extra: extra, asciiGlyph: glyphs, extraGlyph: extraGlyph,
                  softExtra: softExtra, softLookups: lookups)
    }
}

/// A soft lookup as the word path checks it (`loom_rules_change_nothing`): its table (GSUB
/// or GPOS, referenced for the profile's lifetime), its subtables (`loom_format3_subtables`)
/// and, per start code (`FaceWordProfile.startCode`), the subtables whose rules can start
/// at that character's glyph (`loom_rules_start_subtables`; code 0: none). Read once per
/// face, not per paragraph.
struct SoftLookup {
    /// The table's blob (`hb_blob_t`), destroyed with the profile.
    let table: OpaquePointer?
    let data: UnsafePointer<UInt8>?
    let length: UInt32
    /// Empty when the lookup cannot be read: then every check says it may act.
    let subtables: [UInt32]
    let candidates: [UInt64]

    /// `lookup`: its index, plus 1 << 16 in GPOS. `candidates` makes the per-code table from
    /// a function giving the subtables that can start at a glyph.
    init(_ face: OpaquePointer, _ lookup: UInt32, candidates: ((UInt32) -> UInt64) -> [UInt64]) {
        let gpos = lookup >> 16 & 1
        table = hb_face_reference_table(face, gpos != 0 ? loom_tag_gpos() : loom_tag_gsub())
        var length: UInt32 = 0
        data = hb_blob_get_data(table, &length).map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }
        self.length = length
        var found = [UInt32](repeating: 0, count: 64)
        let n = data.map { loom_format3_subtables($0, length, Int32(gpos), lookup & 0xFFFF, &found, 64) } ?? -1
        let subtables = n > 0 ? Array(found.prefix(Int(n))) : []
        self.subtables = subtables
        let data = self.data
        self.candidates = candidates { glyph in
            subtables.withUnsafeBufferPointer { loom_rules_start_subtables(data, length, $0.baseAddress, Int32($0.count), glyph) }
        }
    }

    /// Whether the lookup changes nothing on `glyphs`, whose characters' start codes are `codes`.
    func changesNothing(_ glyphs: [UInt32], _ codes: [UInt8]) -> Bool {
        subtables.withUnsafeBufferPointer { subs in
            candidates.withUnsafeBufferPointer { cands in
                loom_rules_change_nothing(data, length, subs.baseAddress, Int32(subs.count), cands.baseAddress,
                                          glyphs, Int32(glyphs.count), codes) != 0
            }
        }
    }
}
