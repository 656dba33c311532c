import CPango
import Foundation

/// Reads expectations straight from font files, independently of Pango: the hhea table by
/// parsing the file's bytes, glyph advances through HarfBuzz's font functions (no shaping,
/// no Pango).
final class FontFileReader {
    let path: String
    let unitsPerEm: Int
    let hheaAscender: Int
    let hheaDescender: Int
    let hheaLineGap: Int
    private let blob: OpaquePointer
    private let face: OpaquePointer
    private let font: OpaquePointer

    /// `index`: the face in a collection (.ttc), as HarfBuzz and fontconfig number them.
    init(_ path: String, index: Int = 0) throws {
        self.path = path
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let bytes = [UInt8](data)
        func u16(_ o: Int) -> Int { Int(bytes[o]) << 8 | Int(bytes[o + 1]) }
        func i16(_ o: Int) -> Int { Int(Int16(bitPattern: UInt16(u16(o)))) }
        func u32(_ o: Int) -> Int { u16(o) << 16 | u16(o + 2) }
        var tables: [String: Int] = [:]
        // A collection starts with 'ttcf' and the offsets of its faces' table directories.
        let directory = bytes.starts(with: Array("ttcf".utf8)) ? u32(12 + 4 * index) : 0
        let count = u16(directory + 4)
        for i in 0..<count {
            let record = directory + 12 + 16 * i
            let tag = String(bytes: bytes[record..<record + 4], encoding: .ascii) ?? ""
            tables[tag] = u32(record + 8)
        }
        guard let hhea = tables["hhea"], let head = tables["head"] else {
            throw NSError(domain: "FontFileReader", code: 1)
        }
        unitsPerEm = u16(head + 18)
        hheaAscender = i16(hhea + 4)
        hheaDescender = i16(hhea + 6)
        hheaLineGap = i16(hhea + 8)

        blob = hb_blob_create_from_file(path)
        face = hb_face_create(blob, UInt32(index))
        font = hb_font_create(face)
        hb_font_set_scale(font, Int32(unitsPerEm), Int32(unitsPerEm))
    }

    deinit {
        hb_font_destroy(font)
        hb_face_destroy(face)
        hb_blob_destroy(blob)
    }

    /// The advance of `text` shaped by HarfBuzz alone (joining forms, ligatures, kerning) at
    /// `px` pixels.
    func shapedAdvance(_ text: String, px: Double) -> Double {
        let buffer = hb_buffer_create()
        defer { hb_buffer_destroy(buffer) }
        hb_buffer_add_utf8(buffer, text, -1, 0, -1)
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(font, buffer, nil, 0)
        var count: UInt32 = 0
        let positions = hb_buffer_get_glyph_positions(buffer, &count)!
        var units = 0
        for i in 0..<Int(count) { units += Int(positions[i].x_advance) }
        return Double(units) * px / Double(unitsPerEm)
    }

    /// Whether the font's character map has `scalar`.
    func has(_ scalar: Unicode.Scalar) -> Bool {
        var glyph: hb_codepoint_t = 0
        return hb_font_get_nominal_glyph(font, scalar.value, &glyph) != 0
    }

    /// Sum of the nominal glyphs' horizontal advances at `px` pixels (no kerning).
    func advance(_ text: String, px: Double) -> Double {
        var units = 0
        for scalar in text.unicodeScalars {
            var glyph: hb_codepoint_t = 0
            _ = hb_font_get_nominal_glyph(font, scalar.value, &glyph)
            units += Int(hb_font_get_glyph_h_advance(font, glyph))
        }
        return Double(units) * px / Double(unitsPerEm)
    }

    private static func round(_ v: Double) -> Double { (v + 0.5).rounded(.down) }

    func ascender(px: Double) -> Double { Double(hheaAscender) * px / Double(unitsPerEm) }
    func descender(px: Double) -> Double { Double(hheaDescender) * px / Double(unitsPerEm) }
    func roundedAscent(px: Double) -> Double { FontFileReader.round(ascender(px: px)) }
    func roundedDescent(px: Double) -> Double { FontFileReader.round(-descender(px: px)) }
    func roundedLineGap(px: Double) -> Double { FontFileReader.round(Double(hheaLineGap) * px / Double(unitsPerEm)) }

    /// CSS `line-height: normal` as Chromium computes it: each value rounded, then added.
    func normalLineHeight(px: Double) -> Double {
        roundedAscent(px: px) + roundedDescent(px: px) + roundedLineGap(px: px)
    }
}

enum ProjectFonts {
    static let liberation2 = "/usr/share/fonts/truetype/liberation2"
    static let sansRegular = liberation2 + "/LiberationSans-Regular.ttf"
    static let sansBold = liberation2 + "/LiberationSans-Bold.ttf"
    static let monoRegular = liberation2 + "/LiberationMono-Regular.ttf"
    static let serifRegular = liberation2 + "/LiberationSerif-Regular.ttf"
    static let roboto = "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF"
    static let robotoRegular = roboto + "/Roboto-Regular.ttf"
    static let interRegular = "/usr/share/fonts/opentype/inter/Inter-Regular.otf"
    static let dejaVuSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    static let notoSans = "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"
    static let notoSansArabic = "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf"
    static let notoSansHebrew = "/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf"
    /// Faces 0–4: JP, KR, SC, TC, HK (fc-scan's order).
    static let notoSansCJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
    static let notoSansCJKSCIndex = 2
    static let notoColorEmoji = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
}
