import CPango
import LoomLayout
import Synchronization

/// Pango state for one thread at a time: font map, context, layouts and font caches.
/// Engines are checked out of a pool, so nothing here is shared between threads.
///
/// **Font metrics and threads**: FontMetricsChecks.swift (an engine whose fonts' metrics
/// came out incomplete is `poisoned`, and the measurer measures again).
///
/// The measurement itself: PangoLines.swift reads Pango's lines, SegmentedLayout.swift lays
/// long texts out in windows, Truncation.swift fits the truncation text, WordShaping.swift
/// measures plain texts from cached word advances.
final class PangoEngine {
    /// Serializes this module's first look at a font's metrics (FontMetricsChecks.swift).
    static let metricsLock = Mutex(())
    /// Set by the measurer while it holds `metricsLock` for a whole measurement.
    var holdsMetricsLock = false
    /// The fonts whose metrics this engine checked (FontMetricsChecks.swift).
    private let metrics = FontMetricsChecks()
    /// Whether a font of this engine has incomplete metrics (FontMetricsChecks.swift).
    var poisoned: Bool { metrics.poisoned }
    /// The font and language (Pango's description and language tag) that poisoned it first.
    var poisonedBy: String? { metrics.poisonedBy }
    let language: OpaquePointer?
    let catalog: FontCatalog
    /// Shared word advances (nil: every text is laid out by Pango).
    let wordCache: WordCache?
    /// How texts laid out by Pango are laid out (tests only change it).
    let strategy: LayoutStrategy
    /// Measurements answered from word advances and by a Pango layout (statistics).
    var fromWords = 0
    var fromLayout = 0
    /// Truncated last lines fitted from their last word's shaping, without a layout
    /// (WordTruncation.swift; statistics).
    var lastLinesFittedFromWords = 0
    /// Scratch glyph string for shaping words.
    let wordGlyphs: UnsafeMutablePointer<PangoGlyphString>
    let wordScratch = WordScratch()
    private let fontMap: UnsafeMutablePointer<PangoFontMap>
    let context: OpaquePointer
    /// The whole text (auto direction, as Pango decides it per paragraph).
    let layout: OpaquePointer
    /// Windows of a long text (direction set by the engine: SegmentedLayout.swift).
    let windowLayout: OpaquePointer
    let tokenLayout: OpaquePointer

    // The caches below are only touched by the thread holding the engine (the measurer's
    // pool), one access at a time: no run-time exclusivity checks (each cost about 80
    // instructions, six of them in `trimCaches` alone, before every measurement).
    @exclusivity(unchecked) private var fonts: [FontDescriptor: EngineFont] = [:]
    /// Fonts looked up lately, in slots picked from the descriptor's fields without hashing
    /// its family (`recentFontSlot`); a miss goes to `fonts`.
    @exclusivity(unchecked) private var recentFonts =
        [(descriptor: FontDescriptor, font: EngineFont)?](repeating: nil, count: PangoEngine.recentFontSlots)
    /// Per code point, the index in the fallback chain of the first family that has it
    /// (-1: none); a font choice, bounded by `cacheLimit` × 64 entries.
    @exclusivity(unchecked) private var chainChoice: [UInt32: Int16] = [:]
    /// Whether Pango always gets the whole fallback chain (tests; see `needsCoreChainOnly`).
    var wholeChain = false
    /// Faces the fallback chain resolves to, by request (Emoji.swift).
    var resolvedChoices: [FontDescriptor: ResolvedFont] = [:]
    /// A HarfBuzz font (at its units per em) and the face's metrics, per font file.
    struct HBFont {
        let font: OpaquePointer
        /// Units per em (the scale of its advances).
        let upem: Int32
        /// The face's metrics, or nil when it has none.
        let metrics: (upem: Int32, ascender: Int32, descender: Int32, lineGap: Int32)?
    }
    private struct FaceKey: Hashable { var file: String; var index: Int32 }
    private var hbFonts: [FaceKey: HBFont] = [:]
    /// The buffer HarfBuzz shapes emoji clusters in.
    let hbBuffer: OpaquePointer = hb_buffer_create()
    @exclusivity(unchecked) private var resolvedFonts: [ResolvedFont: EngineFont] = [:]
    /// Metrics of fonts Pango picked for runs (fallback fonts), by PangoFont* (referenced).
    @exclusivity(unchecked) private var runFontMetrics: [UnsafeMutableRawPointer: FontMetrics] = [:]
    struct TokenKey: Hashable { var text: String; var font: ResolvedFont }
    /// Widths of short truncation texts (a long one is measured each time: this cache is
    /// bounded by count, so its entries must be small).
    @exclusivity(unchecked) var tokenWidths: [TokenKey: Double] = [:]
    static let maxCachedTokenBytes = 256

    // Scratch state reused between measurements (see `releaseLargeScratch`).
    /// Per scalar of the text: the advances of its cluster, letter spacing included.
    var clusterWidth: [Int] = []
    /// The same for a window being laid out (SegmentedLayout.swift).
    var windowWidth: [Int] = []
    /// Lines as Pango reported them, before white-space lines are hung.
    var rawLines: [RawLine] = []
    var runRecords: [RunRecord] = []
    /// Marks of the spans seen on a line (`spanMark[span] == spanStamp`).
    var spanMark: [Int] = []
    var spanStamp = 0
    /// Segmented layout: the unlimited-width layout's log attributes, items and fonts.
    var fullAttrs: [PangoLogAttr] = []
    var fullItems: [UInt64] = []
    var windowItems: [UInt64] = []
    var scalarFonts: [UnsafeMutableRawPointer?] = []

    /// The budget of the measurement under way, if any, and whether it has stopped it.
    var budget: LayoutBudget?
    var stopped = false
    private var budgetTicks = 0

    /// What adjust_line_letter_spacing() needs to know about a run: the glyphs (by scalar)
    /// it trims and the run's letter spacing in Pango units.
    struct RunRecord {
        var leftTarget: Int
        var leftZero: Bool
        var rightTarget: Int
        var rightZero: Bool
        var spacing: Int32
        /// Whether the run's visually first (last) glyph is of a cluster inside a grapheme
        /// (a mark Pango shapes as a cluster of its own): Pango gave the run's end a half
        /// spacing that the grapheme's first cluster already had (`restoreLetterSpacing`).
        var leftInside = false
        var rightInside = false
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

    /// Fonts a font map may load before the engine is retired. Pango keeps every font it
    /// loaded, and finds fonts by fontconfig patterns hashed on the integer part of the
    /// pixel size: distinct fractional sizes collide, and each load then compares the
    /// pattern with all the others (2 000 sizes between 10 and 11 px: a minute). A retired
    /// engine is dropped (PangoTextMeasurer) and a fresh one made when needed.
    static let maxFontsPerEngine = 128
    /// Fonts this engine's font map has loaded.
    private(set) var fontsLoaded = 0
    var isRetired: Bool { fontsLoaded > PangoEngine.maxFontsPerEngine }

    init(catalog: FontCatalog, wordCache: WordCache? = nil, strategy: LayoutStrategy = .automatic) {
        self.catalog = catalog
        self.wordCache = wordCache
        self.strategy = strategy
        wordGlyphs = pango_glyph_string_new()
        fontMap = loom_font_map_new(catalog.config)
        context = loom_context_new(fontMap, "en")
        language = pango_language_from_string("en")
        layout = pango_layout_new(context)
        windowLayout = pango_layout_new(context)
        pango_layout_set_auto_dir(windowLayout, 0)
        tokenLayout = pango_layout_new(context)
    }

    deinit {
        fonts.removeAll()
        dropFonts()
        releaseRunFonts()
        metrics.release()
        metrics.releaseSpoiled()
        g_object_unref(UnsafeMutableRawPointer(layout))
        g_object_unref(UnsafeMutableRawPointer(windowLayout))
        g_object_unref(UnsafeMutableRawPointer(tokenLayout))
        g_object_unref(UnsafeMutableRawPointer(context))
        g_object_unref(UnsafeMutableRawPointer(fontMap))
        pango_glyph_string_free(wordGlyphs)
        for f in hbFonts.values { hb_font_destroy(f.font) }
        hb_buffer_destroy(hbBuffer)
    }

    /// The engine's HarfBuzz font for `font`'s file (made once; the face is the catalog's).
    func hbFont(_ font: ResolvedFont) -> HBFont? {
        let key = FaceKey(file: font.file, index: font.index)
        if let f = hbFonts[key] { return f }
        guard let face = catalog.hbFace(font), let hb = hb_font_create(face) else { return nil }
        var upem: Int32 = 0, a: Int32 = 0, d: Int32 = 0, g: Int32 = 0
        let ok = loom_face_metrics(face, &upem, &a, &d, &g) != 0
        let f = HBFont(font: hb, upem: Int32(hb_face_get_upem(face)), metrics: ok ? (upem, a, d, g) : nil)
        hbFonts[key] = f
        return f
    }

    private func releaseRunFonts() {
        for key in runFontMetrics.keys { loom_object_unref(key) }
        runFontMetrics.removeAll()
    }

    /// Whether `font` has complete metrics for `language` (FontMetricsChecks.verify); marks
    /// the engine poisoned when not.
    @discardableResult
    func verify(_ font: UnsafeMutablePointer<PangoFont>, language: OpaquePointer?, ownFont: Bool = false) -> Bool {
        metrics.verify(font, language: language, ownFont: ownFont, holdingLock: holdsMetricsLock)
    }

    /// Makes the fonts that poisoned the engine compute their metrics again, and the engine
    /// clean (FontMetricsChecks.heal); false when they cannot (the engine is discarded).
    func heal() -> Bool { metrics.heal() }

    /// Pango's safe distance for breaking an item of `font` in `language`
    /// (FontMetricsChecks.breakSafeDistance).
    func breakSafeDistance(_ font: UnsafeMutablePointer<PangoFont>, language: OpaquePointer?) -> Int? {
        metrics.breakSafeDistance(font, language: language, holdingLock: holdsMetricsLock)
    }

    /// Keep the per-engine caches bounded (clients may send any number of sizes).
    /// Drops the loaded fonts, with the links between them (EngineFont.chainFonts).
    private func dropFonts() { for f in resolvedFonts.values { f.chainFonts = [] }; resolvedFonts.removeAll() }

    private func trimCaches() {
        if fonts.count > PangoEngine.cacheLimit || resolvedFonts.count > PangoEngine.cacheLimit {
            fonts.removeAll(); dropFonts(); recentFonts = Array(repeating: nil, count: PangoEngine.recentFontSlots)
        }
        if chainChoice.count > PangoEngine.cacheLimit * 64 { chainChoice.removeAll() }
        if runFontMetrics.count > PangoEngine.cacheLimit { releaseRunFonts() }
        if metrics.count > PangoEngine.cacheLimit { metrics.release() }
        if tokenWidths.count > PangoEngine.cacheLimit { tokenWidths.removeAll() }
    }

    /// Scratch arrays hold up to this many elements between measurements; Pango's layouts
    /// keep the text they last laid out (and its lines and glyphs), so after a text longer
    /// than this they are emptied: an engine keeps little more than its fonts between
    /// measurements, whatever it measured.
    static let retainedScratch = 16_384

    func releaseLargeScratch(textLength: Int) {
        guard textLength > PangoEngine.retainedScratch else { return }
        pango_layout_set_text(layout, "", 0)
        pango_layout_set_text(windowLayout, "", 0)
        pango_layout_set_text(tokenLayout, "", 0)
        pango_layout_set_attributes(layout, nil)
        pango_layout_set_attributes(windowLayout, nil)
        func shrink<T>(_ a: inout [T]) { if a.capacity > PangoEngine.retainedScratch { a = [] } }
        shrink(&clusterWidth); shrink(&windowWidth); shrink(&rawLines); shrink(&runRecords); shrink(&spanMark)
        shrink(&fullAttrs); shrink(&fullItems); shrink(&windowItems); shrink(&scalarFonts)
        wordScratch.shrink(to: PangoEngine.retainedScratch)
    }

    // MARK: Budget

    /// Whether the measurement must stop (its budget ran out, its deadline passed or it
    /// was cancelled): the budget is asked once every `every` calls (it reads the clock).
    /// Once true, stays true for the measurement.
    @inline(__always) func shouldStop(every: Int = 1) -> Bool {
        if stopped { return true }
        guard let budget else { return false }
        budgetTicks &+= 1
        if budgetTicks % every != 0 { return false }
        if budget.shouldStop() { stopped = true }
        return stopped
    }

    // MARK: Fonts

    func font(for descriptor: FontDescriptor) -> EngineFont {
        let slot = PangoEngine.recentFontSlot(descriptor)
        if let recent = recentFonts[slot], recent.descriptor == descriptor { return recent.font }
        let f: EngineFont
        if let known = fonts[descriptor] { f = known } else {
            f = font(for: catalog.resolve(descriptor))
            fonts[descriptor] = f
        }
        recentFonts[slot] = (descriptor, f)
        return f
    }

    /// `ownFont`: a text's own font, whose metrics are checked here (`verify`); a chain font
    /// for fallback words is not (the word path reads no Pango metrics; a layout that uses it
    /// checks it as a run font).
    func font(for resolved: ResolvedFont, ownFont: Bool = true) -> EngineFont {
        if let f = resolvedFonts[resolved] {
            if ownFont, let font = f.font { verify(font, language: language, ownFont: true) }
            return f
        }
        fontsLoaded += 1
        let desc = pango_font_description_new()!
        // The family, then the fallback chain: Pango picks per character the first that has it.
        pango_font_description_set_family(desc, resolved.family + catalog.fallbackSuffix)
        pango_font_description_set_weight(desc, PangoWeight(rawValue: UInt32(resolved.weight)))
        let style: PangoStyle = resolved.slant == Int32(FC_SLANT_ITALIC) ? PANGO_STYLE_ITALIC
            : resolved.slant == Int32(FC_SLANT_OBLIQUE) ? PANGO_STYLE_OBLIQUE : PANGO_STYLE_NORMAL
        pango_font_description_set_style(desc, style)
        pango_font_description_set_stretch(desc, PangoEngine.stretch(forWidth: resolved.width))
        pango_font_description_set_absolute_size(desc, resolved.pixelSize * Double(LOOM_PANGO_SCALE))
        let font = pango_font_map_load_font(fontMap, context, desc)
        var metrics = FontMetrics.zero
        if let font {
            if ownFont { verify(font, language: language, ownFont: true) }
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

    func metrics(ofRunFont font: UnsafeMutableRawPointer) -> FontMetrics {
        if let m = runFontMetrics[font] { return m }
        var upem: Int32 = 0, a: Int32 = 0, d: Int32 = 0, g: Int32 = 0
        var m = FontMetrics.zero
        let pangoFont = font.assumingMemoryBound(to: PangoFont.self)
        if loom_font_metrics(pangoFont, &upem, &a, &d, &g) != 0 {
            m = FontMetrics(unitsPerEm: upem, ascender: a, descender: d, lineGap: g,
                            pixelSize: loom_font_pixel_size(pangoFont))
        }
        loom_object_ref(font)
        runFontMetrics[font] = m
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

    // MARK: Font choices

    /// Whether every character of `prepared` that its span's family lacks takes a family of
    /// the core chain (FontCatalog.inCore): then Pango, given the core chain instead
    /// of the whole one, picks the same font for every character (the first family of the
    /// list that has it: the same family, since only families that come after it, or that
    /// have none of the text's characters, are left out), and hashes and compares a
    /// description a sixth as long for every run of the layout.
    func needsCoreChainOnly(_ prepared: PreparedText, spanFonts: [EngineFont]) -> Bool {
        let inCore = catalog.inCore
        let scalars = prepared.scalars
        var lastSpan: Int32 = -1
        var family = ""
        for i in 0..<scalars.count {
            let v = scalars[i].value
            guard v >= 0x80 else { continue }
            let s = prepared.span[i]
            if s != lastSpan { lastSpan = s; family = spanFonts[Int(s)].resolved.family }
            if catalog.family(family, has: v) { continue }
            let k = chainIndex(of: v)
            // A character no font of the chain has takes the whole chain too: the font whose
            // missing-glyph box it gets stays the one it always got.
            if k >= 0 ? !inCore[k] : !FontCatalog.drawsNothing(v) { return false }
        }
        return true
    }

    /// The index in the fallback chain of the first family that has `v` (-1: none).
    @inline(__always)
    func chainIndex(of v: UInt32) -> Int {
        if let k = chainChoice[v] { return Int(k) }
        let k = catalog.chainIndex(of: v)
        chainChoice[v] = Int16(k)
        return k
    }

    // MARK: Measuring

    /// The measurement of `text` in `container`. With a `budget` that stops it (before or
    /// during the measurement), the answer is a placeholder (0 lines) and `stopped` is set:
    /// the caller must not keep it.
    func measure(_ text: TextAttributes, in container: Size, budget: LayoutBudget? = nil) -> TextMeasurement {
        let viaLayout = fromLayout
        var m = measureText(text, in: container, budget: budget)
        // Only Pango's path can meet a character the text's font lacks (the word path takes
        // none): there, report the characters no font has.
        if fromLayout != viaLayout && !stopped { m.missingCodePoints = catalog.missingCodePoints(text) }
        return m
    }

    private func measureText(_ text: TextAttributes, in container: Size, budget: LayoutBudget?) -> TextMeasurement {
        trimCaches()
        self.budget = budget
        budgetTicks = 0
        stopped = false
        defer {
            self.budget = nil
            releaseLargeScratch(textLength: PangoEngine.length(of: text))
        }
        let base = font(for: text.font)
        // A text in one font without letter spacing (most are) needs no per-span arrays
        // until it goes through Pango's layout.
        let plain = PangoEngine.isPlain(text)
        var spanFonts: [EngineFont] = [], spanSpacing: [Double] = []
        if !plain {
            guard let fonts = self.spanFonts(text, base: base) else {
                return TextMeasurement(size: .zero, lineCount: 0, truncated: false, ascender: base.metrics.ascender,
                                       descender: base.metrics.descender)
            }
            spanFonts = fonts
            spanSpacing = text.spans.map { PangoEngine.sanitize($0.letterSpacing ?? text.letterSpacing) }
        }
        let lineHeight: Double? = text.lineHeight.flatMap { ($0.isFinite && $0 >= 0) ? $0 : nil }
        let lineSpacing = text.lineSpacing.isFinite ? max(0, text.lineSpacing) : 0

        // Baseline metrics (§9.4): fonts of the first and last characters.
        let firstFont = plain ? base : text.spans.firstIndex(where: { !$0.text.isEmpty }).map { spanFonts[$0] } ?? base
        let lastFont = plain ? base : text.spans.lastIndex(where: { !$0.text.isEmpty }).map { spanFonts[$0] } ?? base
        let descender = lastFont.metrics.descender
        let ascender = lineHeight.map { $0 + firstFont.metrics.descender } ?? firstFont.metrics.ascender
        let placeholder = TextMeasurement(size: .zero, lineCount: 0, truncated: false, ascender: ascender, descender: descender)
        if shouldStop() { return placeholder }

        // Plain texts in one font: from cached word advances when that is exact.
        if let cache = wordCache, plain || (spanFonts.allSatisfy({ $0 === base || $0.resolved == base.resolved })
                                            && spanSpacing.allSatisfy({ $0 == 0 })) {
            let result = measureFromWords(text, in: container, base: base, lineHeight: lineHeight,
                                          lineSpacing: lineSpacing, ascender: ascender, descender: descender,
                                          cache: cache)
            if stopped { return placeholder }
            if let result {
                fromWords += 1
                return result
            }
        }
        fromLayout += 1
        if plain {
            spanFonts = Array(repeating: base, count: text.spans.count)
            spanSpacing = Array(repeating: 0, count: text.spans.count)
        }

        let prepared = TextPreparation.prepare(text.spans, letterSpaced: spanSpacing.contains { $0 != 0 })
        if !prepared.hasLines {
            return TextMeasurement(size: .zero, lineCount: 0, truncated: false, ascender: ascender, descender: descender)
        }
        if shouldStop() { return placeholder }

        // Lines, as many as the answer needs, and the visible ones.
        guard let (_, lines, source, visible) = collectLines(text, prepared, base: base, spanFonts: spanFonts, spanSpacing: spanSpacing,
                                                             lineHeight: lineHeight, lineSpacing: lineSpacing, container: container)
        else { return placeholder }
        let truncated = visible < lines.count
        if visible == 0 {
            // Not even one line fits: nothing is shown (TextKit lays out no glyphs).
            return TextMeasurement(size: .zero, lineCount: 0, truncated: truncated, ascender: ascender, descender: descender)
        }

        // The last visible line with the truncation text, if any.
        let lastWidth = truncated
            ? truncatedLineWidth(text: text, prepared: prepared, lines: lines, lastVisible: visible - 1,
                                 base: base, attributes: source, containerWidth: container.width)
            : lines[visible - 1].width
        return TextMeasurement(size: PangoEngine.size(of: lines, visible: visible, lastWidth: lastWidth, lineSpacing: lineSpacing),
                               lineCount: visible, truncated: truncated, ascender: ascender, descender: descender)
    }

    /// The box of the first `visible` lines: the widest of them (the last one `lastWidth`
    /// wide) by their heights and the spacing between them.
    private static func size(of lines: [LineInfo], visible: Int, lastWidth: Double, lineSpacing: Double) -> Size {
        var width = lastWidth
        for i in 0..<(visible - 1) where width < lines[i].width { width = lines[i].width }
        var height = 0.0
        for i in 0..<visible { height += lines[i].height }
        height += lineSpacing * Double(visible - 1)
        return Size(width: width, height: height)
    }
}
