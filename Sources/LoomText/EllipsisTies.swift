import CPango

// An ellipsis that fits exactly. Chromium takes glyph advances from FreeType, which scales a
// font's units by a 16.16 factor rounded to the nearest unit (`FT_DivFix`): for a font of
// 1,000 units per em (Noto Sans CJK, Noto Sans) the factor comes out a little large at some
// sizes (12, 13, 15, 16 px) and a little small at others (14, 17, 18, 20 px), so that an
// ideograph is 12.0000916 px wide at 12 px. Chromium's fit of the ellipsis then compares the
// kept content in its layout units (1/64 px, rounded up) with the room left: four
// ideographs (48.0004 px → 48.015625) and a 12 px ellipsis do not fit in 60 px, where
// Pango's exact advances (48 px) do. Fonts of 2,048 units per em (Roboto, Liberation,
// DejaVu, Inter) scale exactly at whole sizes. Only such exact fits are decided here: any
// other excess is far below a pixel.

extension PangoEngine {
    /// Per scalar of [first, last] (index `scalar - first`) of the text laid out in `layout`
    /// (which holds the prepared text from its first scalar): how much wider Chromium's
    /// advances of its glyphs are than Pango's, in px (0 for fonts that scale exactly and for
    /// the clusters the engine measures itself). One walk over the layout's glyphs.
    func browserExcess(first: Int, last: Int, _ prepared: PreparedText) -> [Double] {
        var excess = [Double](repeating: 0, count: max(0, last - first + 1))
        guard !excess.isEmpty else { return excess }
        prepared.scalarAtByte.withUnsafeBufferPointer { table in
            let scalar = ScalarIndex(table: table, byteCount: prepared.utf8.count)
            forEachGlyphRun(of: layout) { item, glyphs in
                guard let font = item.pointee.analysis.font else { return }
                var upem: Int32 = 0, ascender: Int32 = 0, descender: Int32 = 0, gap: Int32 = 0
                guard loom_font_metrics(font, &upem, &ascender, &descender, &gap) != 0, upem > 0 else { return }
                // Whole powers of two scale exactly.
                if upem & (upem - 1) == 0 { return }
                let px = loom_font_pixel_size(font)
                guard px > 0 else { return }
                let ppem = (px * 64).rounded()
                let scale = ((ppem * 65536 + Double(upem / 2)) / Double(upem)).rounded(.down)
                let offset = Int(item.pointee.offset)
                for g in 0..<Int(glyphs.pointee.num_glyphs) {
                    let info = glyphs.pointee.glyphs[g]
                    let s = scalar(offset + Int(glyphs.pointee.log_clusters[g]))
                    guard info.glyph & PANGO_GLYPH_UNKNOWN_FLAG == 0, info.glyph != PANGO_GLYPH_EMPTY,
                          s >= first, s <= last else { continue }
                    // The glyph's advance in font units (Pango's width is its exact scaling).
                    let units = (Double(info.geometry.width) / Double(LOOM_PANGO_SCALE) * Double(upem) / px).rounded()
                    let browser = ((units * scale + 32) / 64).rounded(.down) / 65536
                    excess[s - first] += browser - units * px / Double(upem)
                }
            }
        }
        return excess
    }
}
