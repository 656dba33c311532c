import CPango
import LoomLayout

/// A font loaded in one engine: its Pango description, the Pango font and its metrics.
final class EngineFont {
    let resolved: ResolvedFont
    let description: OpaquePointer          // PangoFontDescription*
    let font: UnsafeMutablePointer<PangoFont>?
    let metrics: FontMetrics
    /// The word cache's key for this font and the face's word profile (looked up once).
    private var wordID: Int32 = -1
    private var profile: FaceWordProfile?

    init(resolved: ResolvedFont, description: OpaquePointer, font: UnsafeMutablePointer<PangoFont>?, metrics: FontMetrics) {
        self.resolved = resolved; self.description = description; self.font = font; self.metrics = metrics
    }

    func wordFontID(_ cache: WordCache) -> Int32 {
        if wordID < 0 { wordID = cache.fontID(resolved) }
        return wordID
    }

    /// The profile, once wordProfile has looked it up.
    var cachedProfile: FaceWordProfile? { profile }

    func wordProfile(_ cache: WordCache, _ font: UnsafeMutablePointer<PangoFont>) -> FaceWordProfile {
        if let profile { return profile }
        let p = cache.profile(file: resolved.file, font: font)
        profile = p
        return p
    }

    deinit {
        pango_font_description_free(description)
        if let font { loom_object_unref(font) }
    }
}

/// One laid-out line, in the terms the CSS rules need.
struct LineInfo {
    /// Scalar range of the line (without its paragraph separator).
    var start: Int
    var end: Int
    /// First and last content scalar (not white space, not inserted), or -1 when none.
    var first: Int
    var last: Int
    /// CSS width: advances up to the last content character, letter spacing after each.
    var width: Double
    /// CSS line box height.
    var height: Double
    /// Whether the line ends its paragraph.
    var endsParagraph: Bool
}

/// Pango state for one thread at a time: font map, context, layouts and font caches.
/// Engines are checked out of a pool, so nothing here is shared between threads.
///
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
/// measures again (PangoTextMeasurer).
final class PangoEngine {
    /// Serializes this module's first look at a font's metrics (see above).
    static let metricsLock = Lock()
    /// Set by the measurer while it holds `metricsLock` for a whole measurement.
    var holdsMetricsLock = false
    /// Whether a font of this engine has metrics computed in a race (see above).
    private(set) var poisoned = false
    private struct MetricsKey: Hashable {
        var font: UnsafeMutableRawPointer
        var language: OpaquePointer?
    }
    /// Fonts (referenced) whose metrics are known to be complete, per language.
    private var verifiedFonts: Set<MetricsKey> = []
    private var lastVerified: MetricsKey?
    private let language: OpaquePointer?
    let catalog: FontCatalog
    /// Shared word advances (nil: every text is laid out by Pango).
    let wordCache: WordCache?
    /// Measurements answered from word advances and by a Pango layout (statistics).
    var fromWords = 0
    var fromLayout = 0
    /// Scratch glyph string for shaping words.
    let wordGlyphs: UnsafeMutablePointer<PangoGlyphString>
    let wordScratch = WordScratch()
    private let fontMap: UnsafeMutablePointer<PangoFontMap>
    private let context: OpaquePointer
    private let layout: OpaquePointer
    private let tokenLayout: OpaquePointer

    private var fonts: [FontDescriptor: EngineFont] = [:]
    private var resolvedFonts: [ResolvedFont: EngineFont] = [:]
    /// Metrics of fonts Pango picked for runs (fallback fonts), by PangoFont* (referenced).
    private var runFontMetrics: [UnsafeMutableRawPointer: FontMetrics] = [:]
    private struct TokenKey: Hashable { var text: String; var font: ResolvedFont }
    private var tokenWidths: [TokenKey: (width: Double, graphemes: Int)] = [:]

    // Scratch buffers reused between measurements.
    private var clusterWidth: [Int32] = []
    private var runRecords: [RunRecord] = []

    /// What adjust_line_letter_spacing() needs to know about a run: the glyphs (by scalar)
    /// it trims and the run's letter spacing in Pango units.
    private struct RunRecord {
        var leftTarget: Int
        var leftZero: Bool
        var rightTarget: Int
        var rightZero: Bool
        var spacing: Int32
    }

    /// Pango's distribute_letter_spacing(): half on each side, the left half rounded to a
    /// whole pixel when the spacing is a whole number of pixels.
    static func distributeLetterSpacing(_ spacing: Int32) -> (left: Int32, right: Int32) {
        var left = spacing / 2
        if spacing & (LOOM_PANGO_SCALE - 1) == 0 {
            left = (left + (LOOM_PANGO_SCALE >> 1)) & ~(LOOM_PANGO_SCALE - 1)
        }
        return (left, spacing - left)
    }

    private static let cacheLimit = 512

    init(catalog: FontCatalog, wordCache: WordCache? = nil) {
        self.catalog = catalog
        self.wordCache = wordCache
        wordGlyphs = pango_glyph_string_new()
        fontMap = loom_font_map_new(catalog.config)
        context = loom_context_new(fontMap, "en")
        language = pango_language_from_string("en")
        layout = pango_layout_new(context)
        tokenLayout = pango_layout_new(context)
    }

    deinit {
        fonts.removeAll()
        resolvedFonts.removeAll()
        releaseRunFonts()
        releaseVerifiedFonts()
        g_object_unref(UnsafeMutableRawPointer(layout))
        g_object_unref(UnsafeMutableRawPointer(tokenLayout))
        g_object_unref(UnsafeMutableRawPointer(context))
        g_object_unref(UnsafeMutableRawPointer(fontMap))
        pango_glyph_string_free(wordGlyphs)
    }

    private func releaseRunFonts() {
        for key in runFontMetrics.keys { loom_object_unref(key) }
        runFontMetrics.removeAll()
    }

    private func releaseVerifiedFonts() {
        for key in verifiedFonts { loom_object_unref(key.font) }
        verifiedFonts.removeAll()
        lastVerified = nil
    }

    /// Whether `font` has complete metrics for `language` and for no language (the entry
    /// Pango's FT2 backend reads for the box of a missing glyph), computing them under
    /// `metricsLock` when nobody has; marks the engine poisoned when not.
    @discardableResult
    func verify(_ font: UnsafeMutablePointer<PangoFont>, language: OpaquePointer?) -> Bool {
        let key = MetricsKey(font: UnsafeMutableRawPointer(font), language: language)
        if key == lastVerified || verifiedFonts.contains(key) { lastVerified = key; return true }
        let check = {
            PangoEngine.approximateCharWidth(font, language) > 0 && PangoEngine.approximateCharWidth(font, nil) > 0
        }
        let complete = holdsMetricsLock ? check() : PangoEngine.metricsLock.withLock(check)
        guard complete else {
            poisoned = true
            return false
        }
        loom_object_ref(key.font)
        verifiedFonts.insert(key)
        lastVerified = key
        return true
    }

    private static func approximateCharWidth(_ font: UnsafeMutablePointer<PangoFont>, _ language: OpaquePointer?) -> Int32 {
        guard let metrics = pango_font_get_metrics(font, language) else { return 0 }
        defer { pango_font_metrics_unref(metrics) }
        return pango_font_metrics_get_approximate_char_width(metrics)
    }

    /// Keep the per-engine caches bounded (clients may send any number of sizes).
    private func trimCaches() {
        if fonts.count > PangoEngine.cacheLimit || resolvedFonts.count > PangoEngine.cacheLimit {
            fonts.removeAll(); resolvedFonts.removeAll()
        }
        if runFontMetrics.count > PangoEngine.cacheLimit { releaseRunFonts() }
        if verifiedFonts.count > PangoEngine.cacheLimit { releaseVerifiedFonts() }
        if tokenWidths.count > PangoEngine.cacheLimit { tokenWidths.removeAll() }
    }

    // MARK: Fonts

    func font(for descriptor: FontDescriptor) -> EngineFont {
        if let f = fonts[descriptor] { return f }
        let resolved = catalog.resolve(descriptor)
        let f = font(for: resolved)
        fonts[descriptor] = f
        return f
    }

    func font(for resolved: ResolvedFont) -> EngineFont {
        if let f = resolvedFonts[resolved] { return f }
        let desc = pango_font_description_new()!
        pango_font_description_set_family(desc, resolved.family)
        pango_font_description_set_weight(desc, PangoWeight(rawValue: UInt32(resolved.weight)))
        let style: PangoStyle = resolved.slant == Int32(FC_SLANT_ITALIC) ? PANGO_STYLE_ITALIC
            : resolved.slant == Int32(FC_SLANT_OBLIQUE) ? PANGO_STYLE_OBLIQUE : PANGO_STYLE_NORMAL
        pango_font_description_set_style(desc, style)
        pango_font_description_set_stretch(desc, PangoEngine.stretch(forWidth: resolved.width))
        pango_font_description_set_absolute_size(desc, resolved.pixelSize * Double(LOOM_PANGO_SCALE))
        let font = pango_font_map_load_font(fontMap, context, desc)
        var metrics = FontMetrics.zero
        if let font {
            verify(font, language: language)
            var upem: Int32 = 0, a: Int32 = 0, d: Int32 = 0, g: Int32 = 0
            if loom_font_metrics(font, &upem, &a, &d, &g) != 0 {
                metrics = FontMetrics(unitsPerEm: upem, ascender: a, descender: d, lineGap: g,
                                      pixelSize: resolved.pixelSize)
            }
        }
        let f = EngineFont(resolved: resolved, description: desc, font: font, metrics: metrics)
        resolvedFonts[resolved] = f
        return f
    }

    /// The file Pango actually loads for a request (to check alias resolution).
    func loadedFile(for descriptor: FontDescriptor) -> String? {
        guard let font = font(for: descriptor).font else { return nil }
        var index: Int32 = 0
        guard let path = loom_font_file(font, &index) else { return nil }
        return String(cString: path)
    }

    private func metrics(ofRunFont font: UnsafeMutablePointer<PangoFont>) -> FontMetrics {
        let key = UnsafeMutableRawPointer(font)
        if let m = runFontMetrics[key] { return m }
        var upem: Int32 = 0, a: Int32 = 0, d: Int32 = 0, g: Int32 = 0
        var m = FontMetrics.zero
        if loom_font_metrics(font, &upem, &a, &d, &g) != 0 {
            m = FontMetrics(unitsPerEm: upem, ascender: a, descender: d, lineGap: g,
                            pixelSize: loom_font_pixel_size(font))
        }
        loom_object_ref(key)
        runFontMetrics[key] = m
        return m
    }

    static func stretch(forWidth w: Int32) -> PangoStretch {
        switch w {
        case ..<57: return PANGO_STRETCH_ULTRA_CONDENSED
        case ..<69: return PANGO_STRETCH_EXTRA_CONDENSED
        case ..<81: return PANGO_STRETCH_CONDENSED
        case ..<94: return PANGO_STRETCH_SEMI_CONDENSED
        case ..<107: return PANGO_STRETCH_NORMAL
        case ..<119: return PANGO_STRETCH_SEMI_EXPANDED
        case ..<138: return PANGO_STRETCH_EXPANDED
        case ..<175: return PANGO_STRETCH_EXTRA_EXPANDED
        default: return PANGO_STRETCH_ULTRA_EXPANDED
        }
    }

    // MARK: Measuring

    func measure(_ text: TextAttributes, in container: Size) -> TextMeasurement {
        trimCaches()
        let base = font(for: text.font)
        let spanFonts: [EngineFont] = text.spans.map { $0.font.map { font(for: $0) } ?? base }
        let spanSpacing: [Double] = text.spans.map { PangoEngine.sanitize($0.letterSpacing ?? text.letterSpacing) }
        let lineHeight: Double? = text.lineHeight.flatMap { ($0.isFinite && $0 >= 0) ? $0 : nil }
        let lineSpacing = text.lineSpacing.isFinite ? max(0, text.lineSpacing) : 0

        // Baseline metrics (§9.4): fonts of the first and last characters.
        let firstFont = text.spans.firstIndex(where: { !$0.text.isEmpty }).map { spanFonts[$0] } ?? base
        let lastFont = text.spans.lastIndex(where: { !$0.text.isEmpty }).map { spanFonts[$0] } ?? base
        let descender = lastFont.metrics.descender
        let ascender = lineHeight.map { $0 + firstFont.metrics.descender } ?? firstFont.metrics.ascender

        // Plain texts in one font: from cached word advances when that is exact.
        if let cache = wordCache,
           spanFonts.allSatisfy({ $0 === base || $0.resolved == base.resolved }),
           spanSpacing.allSatisfy({ $0 == 0 }),
           let result = measureFromWords(text, in: container, base: base, lineHeight: lineHeight,
                                         lineSpacing: lineSpacing, ascender: ascender, descender: descender,
                                         cache: cache) {
            fromWords += 1
            return result
        }
        fromLayout += 1

        let prepared = TextPreparation.prepare(text.spans)
        if !prepared.hasLines {
            return TextMeasurement(size: .zero, lineCount: 0, truncated: false, ascender: ascender, descender: descender)
        }

        // Attributes and layout.
        configureLayout(layout, text: text, prepared: prepared, base: base, spanFonts: spanFonts,
                        spanSpacing: spanSpacing, width: container.width)
        let lines = analyzeLines(prepared: prepared, base: base, spanFonts: spanFonts, spanSpacing: spanSpacing,
                                 lineHeight: lineHeight)

        // Visible lines: the line limit, then the container height.
        let visible = TextPreparation.visibleLineCount(lines.count, limit: text.maximumNumberOfLines,
                                                       containerHeight: container.height, lineSpacing: lineSpacing) { lines[$0].height }
        let truncated = visible < lines.count
        if visible == 0 {
            // Not even one line fits: nothing is shown (TextKit lays out no glyphs).
            return TextMeasurement(size: .zero, lineCount: 0, truncated: truncated, ascender: ascender, descender: descender)
        }

        var widths = lines[0..<visible].map { $0.width }
        if truncated {
            let w = truncatedLineWidth(text: text, prepared: prepared, lines: lines, lastVisible: visible - 1,
                                       base: base, spanSpacing: spanSpacing, containerWidth: container.width)
            widths[visible - 1] = w
        }
        var height = 0.0
        for i in 0..<visible { height += lines[i].height }
        height += lineSpacing * Double(visible - 1)
        let width = widths.max() ?? 0
        return TextMeasurement(size: Size(width: width, height: height), lineCount: visible, truncated: truncated,
                               ascender: ascender, descender: descender)
    }

    /// Letter spacing Pango can represent (non-finite → 0, clamped to ±10 000 px).
    static func sanitize(_ spacing: Double) -> Double { spacing.isFinite ? min(max(spacing, -10_000), 10_000) : 0 }

    private func configureLayout(_ layout: OpaquePointer, text: TextAttributes, prepared: PreparedText, base: EngineFont,
                                 spanFonts: [EngineFont], spanSpacing: [Double], width: Double) {
        pango_layout_set_font_description(layout, base.description)
        pango_layout_set_wrap(layout, text.truncationMode == .charWrap ? PANGO_WRAP_CHAR : PANGO_WRAP_WORD_CHAR)
        if width.isNaN || width >= 2_000_000 {
            pango_layout_set_width(layout, -1)
        } else {
            // Chromium keeps a line that overshoots the width by up to its layout unit
            // (1/64 px): wrap at the same point.
            pango_layout_set_width(layout, Int32(((max(0, width) + 1.0 / 64) * Double(LOOM_PANGO_SCALE)).rounded(.down)))
        }

        let list = pango_attr_list_new()!
        pango_attr_list_insert(list, pango_attr_insert_hyphens_new(0))

        let n = prepared.count
        // Fonts: runs of scalars whose span font differs from the base font.
        var i = 0
        while i < n {
            let f = spanFonts[Int(prepared.span[i])]
            var j = i + 1
            while j < n && spanFonts[Int(prepared.span[j])] === f { j += 1 }
            if f !== base && f.resolved != base.resolved {
                let attr = pango_attr_font_desc_new(f.description)!
                attr.pointee.start_index = UInt32(prepared.byteOffset[i])
                attr.pointee.end_index = UInt32(prepared.byteOffset[j])
                pango_attr_list_insert(list, attr)
            }
            i = j
        }
        // Letter spacing: runs of equal non-zero spacing, inserted characters excluded.
        i = 0
        while i < n {
            let s = prepared.inserted[i] ? 0 : spanSpacing[Int(prepared.span[i])]
            var j = i + 1
            while j < n && (prepared.inserted[j] ? 0 : spanSpacing[Int(prepared.span[j])]) == s { j += 1 }
            if s != 0 {
                let attr = pango_attr_letter_spacing_new(Int32((s * Double(LOOM_PANGO_SCALE)).rounded()))!
                attr.pointee.start_index = UInt32(prepared.byteOffset[i])
                attr.pointee.end_index = UInt32(prepared.byteOffset[j])
                pango_attr_list_insert(list, attr)
                // Chromium turns ligatures and contextual alternates off under letter spacing.
                let features = pango_attr_font_features_new("liga 0, clig 0, calt 0")!
                features.pointee.start_index = UInt32(prepared.byteOffset[i])
                features.pointee.end_index = UInt32(prepared.byteOffset[j])
                pango_attr_list_insert(list, features)
            }
            i = j
        }
        pango_layout_set_attributes(layout, list)
        pango_attr_list_unref(list)
        if prepared.utf8.isEmpty {
            pango_layout_set_text(layout, "", 0)
        } else {
            prepared.utf8.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    pango_layout_set_text(layout, chars.baseAddress, Int32(chars.count))
                }
            }
        }
    }

    @inline(__always)
    private func spacing(_ prepared: PreparedText, _ spanSpacing: [Double], _ i: Int) -> Double {
        prepared.inserted[i] ? 0 : spanSpacing[Int(prepared.span[i])]
    }

    @inline(__always)
    private func isContent(_ prepared: PreparedText, _ i: Int) -> Bool {
        !prepared.inserted[i] && !isCollapsibleSpace(prepared.scalars[i])
    }

    private func analyzeLines(prepared: PreparedText, base: EngineFont, spanFonts: [EngineFont],
                              spanSpacing: [Double], lineHeight: Double?) -> [LineInfo] {
        let n = prepared.count
        if clusterWidth.count < n { clusterWidth = [Int32](repeating: 0, count: n) }
        for i in 0..<n { clusterWidth[i] = 0 }

        var result: [LineInfo] = []
        var runCount = 0
        var runFonts: [UnsafeMutablePointer<PangoFont>] = []
        var spansOnLine: [Int32] = []
        var node = pango_layout_get_lines_readonly(layout)
        while let current = node {
            node = current.pointee.next
            guard let line = current.pointee.data?.assumingMemoryBound(to: PangoLayoutLine.self) else { continue }
            let startByte = Int(line.pointee.start_index)
            let endByte = startByte + Int(line.pointee.length)
            let start = Int(prepared.scalarAtByte[min(startByte, prepared.utf8.count)])
            let end = Int(prepared.scalarAtByte[min(endByte, prepared.utf8.count)])

            // Glyph advances per cluster (attributed to the cluster's first scalar), run fonts.
            runFonts.removeAll(keepingCapacity: true)
            runCount = 0
            var run = line.pointee.runs
            while let r = run {
                run = r.pointee.next
                guard let glyphItem = r.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self),
                      let item = glyphItem.pointee.item, let glyphs = glyphItem.pointee.glyphs else { continue }
                let itemOffset = Int(item.pointee.offset)
                let count = Int(glyphs.pointee.num_glyphs)
                guard count > 0 else { continue }
                var runHasContent = false
                var firstScalar = -1, lastScalar = -1, firstNonZero = -1, lastNonZero = -1
                for g in 0..<count {
                    let byte = itemOffset + Int(glyphs.pointee.log_clusters[g])
                    let scalar = Int(prepared.scalarAtByte[min(byte, prepared.utf8.count)])
                    guard scalar < n else { continue }
                    let w = glyphs.pointee.glyphs[g].geometry.width
                    clusterWidth[scalar] &+= w
                    if g == 0 { firstScalar = scalar }
                    if g == count - 1 { lastScalar = scalar }
                    if w != 0 {
                        if firstNonZero < 0 { firstNonZero = scalar }
                        lastNonZero = scalar
                    }
                    if !prepared.inserted[scalar] { runHasContent = true }
                }
                let firstZero = glyphs.pointee.glyphs[0].geometry.width == 0
                let lastZero = glyphs.pointee.glyphs[count - 1].geometry.width == 0
                let itemScalar = Int(prepared.scalarAtByte[min(itemOffset, prepared.utf8.count)])
                let spacingUnits = itemScalar < n
                    ? Int32((spacing(prepared, spanSpacing, itemScalar) * Double(LOOM_PANGO_SCALE)).rounded()) : 0
                let record = RunRecord(leftTarget: firstZero ? firstNonZero : firstScalar, leftZero: firstZero,
                                       rightTarget: lastZero ? lastNonZero : lastScalar, rightZero: lastZero,
                                       spacing: spacingUnits)
                if runCount < runRecords.count { runRecords[runCount] = record } else { runRecords.append(record) }
                runCount += 1
                if let font = item.pointee.analysis.font { verify(font, language: item.pointee.analysis.language) }
                if lineHeight == nil, runHasContent, let font = item.pointee.analysis.font,
                   !runFonts.contains(where: { $0 == font }) {
                    runFonts.append(font)
                }
            }
            // Undo Pango's trimming of letter spacing at the ends of the line (and next to
            // zero-width glyphs), as its adjust_line_letter_spacing() does it, so that every
            // cluster carries its full spacing, as in CSS.
            for r in 0..<runCount {
                let rec = runRecords[r]
                if rec.spacing == 0 { continue }
                let (left, right) = PangoEngine.distributeLetterSpacing(rec.spacing)
                if (rec.leftZero || r == 0), rec.leftTarget >= 0 { clusterWidth[rec.leftTarget] &+= left }
                if (rec.rightZero || r == runCount - 1), rec.rightTarget >= 0 { clusterWidth[rec.rightTarget] &+= right }
            }

            // Content extent and CSS width.
            var first = -1, last = -1
            var k = start
            while k < end { if isContent(prepared, k) { first = k; break }; k += 1 }
            if first >= 0 {
                k = end - 1
                while k >= first { if isContent(prepared, k) { last = k; break }; k -= 1 }
            }
            var width = 0.0
            if first >= 0 {
                var units = 0
                for j in first...last { units += Int(clusterWidth[j]) }
                width = Double(units) / Double(LOOM_PANGO_SCALE)
            }

            // Line box height: the strut (base font) and every inline box on the line.
            spansOnLine.removeAll(keepingCapacity: true)
            let spanEnd = (end < n && prepared.scalars[end] == "\n") ? end + 1 : end
            var j = start
            while j < spanEnd {
                if !prepared.inserted[j] {
                    let s = prepared.span[j]
                    if !spansOnLine.contains(s) { spansOnLine.append(s) }
                }
                j += 1
            }
            var (above, below) = base.metrics.halfLeadingSplit(lineHeight: lineHeight)
            for s in spansOnLine {
                let f = spanFonts[Int(s)]
                if f === base || f.resolved == base.resolved { continue }
                let (a, b) = f.metrics.halfLeadingSplit(lineHeight: lineHeight)
                above = max(above, a); below = max(below, b)
            }
            if lineHeight == nil {
                for font in runFonts {
                    if let bf = base.font, bf == font { continue }
                    let m = metrics(ofRunFont: font)
                    let (a, b) = m.halfLeadingSplit(lineHeight: nil)
                    above = max(above, a); below = max(below, b)
                }
            }
            let endsParagraph = end >= n || prepared.scalars[end] == "\n" || node == nil
            if first < 0 && line.pointee.is_paragraph_start == 0 && !result.isEmpty {
                // A soft-wrapped line of nothing but white space (Pango wraps a space that
                // does not fit onto its own line): in CSS it hangs at the end of the
                // previous line.
                result[result.count - 1].end = end
                result[result.count - 1].endsParagraph = endsParagraph
                continue
            }
            result.append(LineInfo(start: start, end: end, first: first, last: last, width: width,
                                   height: above + below, endsParagraph: endsParagraph))
        }
        return result
    }

    // MARK: Truncation

    /// CSS widths of the graphemes of a line's content (first...last), letter spacing included.
    private func graphemeWidths(_ line: LineInfo, cursor: UnsafePointer<PangoLogAttr>, attrCount: Int) -> [Double] {
        guard line.first >= 0 else { return [] }
        var widths: [Double] = []
        var acc = 0
        var started = false
        for j in line.first...line.last {
            let boundary = j < attrCount && cursor[j].is_cursor_position != 0
            if boundary && started {
                widths.append(Double(acc) / Double(LOOM_PANGO_SCALE))
                acc = 0
            }
            started = true
            acc += Int(clusterWidth[j])
        }
        if started { widths.append(Double(acc) / Double(LOOM_PANGO_SCALE)) }
        return widths
    }

    /// Width of the truncation token in the text's own font. Chromium draws its ellipsis
    /// without letter spacing, both when fitting it and in the line's width (measured
    /// against headless Chromium 156 with scripts/compare-text-with-chromium.py), so
    /// `spacing` is not added.
    func tokenWidth(_ token: String, font: EngineFont, spacing _: Double) -> Double {
        if token.isEmpty { return 0 }
        let key = TokenKey(text: token, font: font.resolved)
        let measured: (width: Double, graphemes: Int)
        if let cached = tokenWidths[key] {
            measured = cached
        } else {
            pango_layout_set_font_description(tokenLayout, font.description)
            pango_layout_set_width(tokenLayout, -1)
            pango_layout_set_single_paragraph_mode(tokenLayout, 1)
            var bytes = Array(token.utf8)
            bytes.withUnsafeMutableBufferPointer { b in
                b.withMemoryRebound(to: CChar.self) { c in
                    pango_layout_set_text(tokenLayout, c.baseAddress, Int32(c.count))
                }
            }
            var logical = PangoRectangle()
            pango_layout_get_extents(tokenLayout, nil, &logical)
            measured = (Double(logical.width) / Double(LOOM_PANGO_SCALE), token.count)
            tokenWidths[key] = measured
        }
        return measured.width
    }

    private func truncatedLineWidth(text: TextAttributes, prepared: PreparedText, lines: [LineInfo], lastVisible: Int,
                                    base: EngineFont, spanSpacing: [Double], containerWidth: Double) -> Double {
        let line = lines[lastVisible]
        let mode = text.truncationMode
        if mode == .clip { return line.width }

        let available = containerWidth.isNaN ? Double.infinity : max(0, containerWidth)
        let token = tokenWidth(text.truncationText, font: base, spacing: PangoEngine.sanitize(text.letterSpacing))
        var attrCount: Int32 = 0
        guard let cursor = pango_layout_get_log_attrs_readonly(layout, &attrCount) else { return line.width + token }
        let eps = 1e-9

        // Head and middle truncation work on the rest of the paragraph from this line on;
        // when the paragraph ends on this line they behave like tail truncation.
        if (mode == .head || mode == .middle) && !line.endsParagraph {
            var graphemes: [Double] = []
            var i = lastVisible
            while i < lines.count {
                graphemes += graphemeWidths(lines[i], cursor: cursor, attrCount: Int(attrCount))
                if lines[i].endsParagraph { break }
                i += 1
            }
            if graphemes.isEmpty { return token }
            let room = available - token
            if mode == .head {
                var acc = 0.0, best = graphemes[graphemes.count - 1]
                for w in graphemes.reversed() {
                    acc += w
                    if acc <= room + eps { best = acc } else { break }
                }
                return best + token
            } else {
                var front = 0, back = graphemes.count - 1
                var acc = graphemes[0]
                front = 1
                var takeBack = true
                var blocked = false
                while front <= back {
                    let w = takeBack ? graphemes[back] : graphemes[front]
                    if acc + w <= room + eps {
                        acc += w
                        if takeBack { back -= 1 } else { front += 1 }
                        blocked = false
                    } else if blocked {
                        break
                    } else {
                        blocked = true
                    }
                    takeBack.toggle()
                }
                return acc + token
            }
        }

        // Tail (and wordWrap / charWrap, which truncate at the tail at a line limit).
        if line.first < 0 { return token }
        if line.width + token <= available + eps { return line.width + token }
        let graphemes = graphemeWidths(line, cursor: cursor, attrCount: Int(attrCount))
        guard !graphemes.isEmpty else { return token }
        var acc = 0.0
        var best = graphemes[0]
        for (index, w) in graphemes.enumerated() {
            acc += w
            if acc + token <= available + eps { best = acc } else if index > 0 && w >= 0 { break }
        }
        return best + token
    }
}
