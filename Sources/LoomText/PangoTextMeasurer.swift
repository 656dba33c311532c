import Foundation
import CPango
import LoomLayout
import Synchronization

/// Measures text with Pango the way Chromium's CSS text layout does
/// (`docs/text-measurement.md`), with ASTextNode's line limit, truncation and
/// baseline rules (`docs/layout-semantics.md` §9).
///
/// **Fonts.** A private fontconfig configuration holds exactly the project's font files
/// (Roboto, Inter, Liberation Sans/Serif/Mono v2, DejaVu Sans, Noto Sans from the Debian
/// packages) plus every font in `extraFontDirectories`. Family names match
/// case-insensitively; the aliases are `system`, `-apple-system`, `San Francisco`, `SF Pro`
/// (`Text`/`Display`) → Inter; `Helvetica`, `Helvetica Neue`, `Arial` → Liberation Sans;
/// `Times New Roman`, `Times` → Liberation Serif; `Courier`, `Courier New` → Liberation
/// Mono. The face is chosen with CSS font matching (normal width, then style, then
/// weight), and sizes are pixels (1 pt = 1 px). There is no synthetic bold or oblique.
/// `validate` rejects unknown families, sizes outside (0, 10000] and weights outside
/// 1–1000; `measure` never fails and falls back to Liberation Sans (size 12 if the size is
/// invalid) for a font `validate` would reject. Characters missing from every project font
/// (CJK, emoji) are measured with the fallback font's missing-glyph box (which font's box,
/// Pango decides once per font set and engine: the first text to need one sets it, so two
/// texts in different base fonts with the same missing character can depend on which an
/// engine measured first; Pango 1.50, itemize.c get_font).
///
/// **Layout.** White space follows CSS `pre-line` (`\n`, `\r\n` and `\r` start a paragraph,
/// empty lines count, space/tab runs collapse, leading and trailing spaces of a paragraph
/// are dropped, one trailing newline adds no line; a run of more than 32 combining marks or
/// format characters in a row is cut to 32: HarfBuzz is quadratic in such runs, which add
/// no width). Lines wrap like CSS
/// `overflow-wrap: break-word` with Chromium's break opportunities, no hyphenation; an
/// infinite or NaN container width means no wrapping. A line's width is its advances up to
/// the last non-space character plus the letter spacing after each character; its height is
/// the CSS line box: with one font it is `lineHeight` or, for `normal`, the font's rounded
/// ascent + descent + line gap; with several fonts (spans, fallback fonts for `normal`) it
/// is the highest part above plus the deepest part below the baseline, each inline box
/// split with half its leading above and half below. `lineSpacing` (negative → 0) is added
/// between visible lines. A negative or non-finite `lineHeight` means `normal`; letter
/// spacing may be negative (non-finite → 0, clamped to ±10 000). `alignment` does not
/// change the size (the used width is the longest line's). Break opportunities are Pango's
/// (UAX #14) patched where Chromium differs: its ASCII pair table (no break after `/`, none
/// in `beta.2`, breaks after `-` and `?` …), `-` before a digit only after a letter or digit
/// (`010-2030`), always after a space (` / `), never next to a no-break space.
///
/// **Line limit and truncation.** The visible lines are the first
/// `maximumNumberOfLines` (0 = unlimited) that also fit in a finite container height (a
/// line fits when the total height up to it, line spacing included, is ≤ the height).
/// If some lines are not visible, `truncated` is true and the last visible line is
/// truncated according to `truncationMode`:
/// - `tail`, `wordWrap`, `charWrap`: the truncation text (in the text's own font and letter
///   spacing) follows the line's content when both fit the width; otherwise the longest
///   grapheme prefix of the line that fits with it (at least one grapheme, a space before
///   the cut kept). `charWrap` also wraps at any grapheme instead of at words.
/// - `head`, `middle`: the truncation text and the end (head) or the start and the end
///   (middle, taken alternately) of the rest of the paragraph from that line on, as much as
///   fits (at least one grapheme; the spaces where that rest was soft-wrapped are not
///   counted). When the paragraph ends on that line (the cut falls at a paragraph break)
///   they behave like `tail`.
/// - `clip`: the line as laid out, no truncation text.
/// When not even the first line fits the container height, nothing is shown: 0 lines, size
/// 0×0, `truncated` true (TextKit lays out no glyph in a container that is too short).
///
/// **Metrics.** `descender` is the hhea descender (negative) of the last character's font
/// at its pixel size; `ascender` is the hhea ascender of the first character's font, or,
/// with an explicit `lineHeight`, `lineHeight + descender of the first character's font`.
/// Both are unrounded. An empty (or all-white-space) text has 0 lines, size 0×0 and the
/// metrics of its fonts.
///
/// **Threads and caching.** Pango objects are not thread-safe: each call checks a private
/// engine (font map, context, layouts) out of a pool, creating one when all are busy, so
/// there are as many engines as concurrent callers; the first look at each font's metrics
/// is serialized and checked, because Pango 1.50 can compute them wrongly when two threads
/// do it at once (PangoEngine), so answers never depend on threads. Results are cached per
/// text (its attributes byte for byte: TextIdentity, or the node's record digest when the
/// memo carries one) and container size, up to four containers per text, in a bounded,
/// sharded cache (MeasurementCache: CLOCK eviction); a finite width at least as wide as the
/// text's cached unlimited-width answer reuses that answer (nothing wraps there). A text
/// node's memo (`measure(_:in:memo:)`) keeps its last two answers and the attributes'
/// fingerprint: a container between an answer's used size and the width it
/// was measured in gets that answer without a cache lookup (a stack measures a text first
/// with its available width, then stretched to its own measured height or a flexed width),
/// and the attributes are hashed once per node.
/// Below that, plain one-font texts (printable ASCII words, no letter spacing, faces whose
/// OpenType tables allow it; WordShaping.swift) are measured from a shared, bounded cache of
/// word advances, shaped once per font by Pango, instead of a full Pango layout: the answer
/// is identical (WordPathTests), about 3–4 µs instead of 80–120 µs per paragraph.
/// `clearCache()` leaves the word cache alone (`clearWordCache()`). Both caches are bounded
/// by bytes as well as by entries (a text's key holds all its strings), and an engine keeps
/// little more than its fonts between measurements, so memory does not grow with what
/// clients send.
///
/// **Long texts and large numbers.** Time is linear in the length of the text at any width:
/// a long text is laid out by Pango in windows whose lines are Pango's own
/// (SegmentedLayout.swift), since Pango breaks a long word in time quadratic in its length.
/// Widths are added in 64-bit integers: no font size, letter spacing or text length makes
/// a sum overflow (Pango's own are 32-bit; a window keeps them far from their limit).
///
/// **Budget.** `measure(_:in:memo:budget:)` asks the budget every so often during a long
/// measurement and, once it says stop, returns a placeholder (0 lines) at once and caches
/// nothing of it.
public final class PangoTextMeasurer: TextMeasuring, @unchecked Sendable {
    private let catalog: FontCatalog
    /// The pool's state below is only touched under this lock, so the run-time exclusivity
    /// checks Swift makes on every access to a class's stored properties (two calls into the
    /// runtime per access, each measurement checks an engine out and in) are left out.
    private let poolLock = Mutex(())
    @exclusivity(unchecked) private var idleEngines: [PangoEngine] = []
    @exclusivity(unchecked) private var engineCount = 0
    @exclusivity(unchecked) private var allEngines: [PangoEngine] = []
    /// What the engines discarded (too many fonts, or metrics that could not be healed) had
    /// measured, by path.
    @exclusivity(unchecked) private var discardedPaths = (fromWords: 0, fromLayout: 0)
    @exclusivity(unchecked) private var discardedFitted = 0
    /// Engines healed after a font's metrics came out incomplete (checkIn).
    @exclusivity(unchecked) private var healCount = 0
    private let cache: MeasurementCache
    private let wordCache: WordCache?
    private let strategy: LayoutStrategy
    private let wholeChain: Bool

    /// - Parameters:
    ///   - extraFontDirectories: directories whose fonts are added to the project's
    ///     (`--font-dir`, `LOOM_FONT_DIRS`); each must exist.
    ///   - cacheCapacity: maximum cached measurements (0 disables the cache).
    ///   - wordCacheCapacity: maximum cached word advances (0: every text is laid out by
    ///     Pango; see WordShaping.swift for the texts measured from words).
    ///   - cacheBytes: maximum bytes of the measurement cache (its texts' keys, which hold
    ///     every string of the attributes, and their answers); a text larger than a
    ///     sixteenth of it is not cached.
    ///   - wordCacheBytes: maximum bytes of the word cache.
    public convenience init(extraFontDirectories: [String] = [], cacheCapacity: Int = 20_000,
                            wordCacheCapacity: Int = 100_000, cacheBytes: Int = 32 << 20,
                            wordCacheBytes: Int = 16 << 20) throws {
        try self.init(extraFontDirectories: extraFontDirectories, cacheCapacity: cacheCapacity,
                      wordCacheCapacity: wordCacheCapacity, cacheBytes: cacheBytes, wordCacheBytes: wordCacheBytes,
                      strategy: .automatic)
    }

    /// The same, laying texts out the given way (tests compare the ways).
    /// `wholeChain`: Pango always gets the whole fallback chain, never the core one (tests
    /// compare the two).
    init(extraFontDirectories: [String] = [], cacheCapacity: Int = 20_000, wordCacheCapacity: Int = 100_000,
         cacheBytes: Int = 32 << 20, wordCacheBytes: Int = 16 << 20, strategy: LayoutStrategy,
         wholeChain: Bool = false) throws {
        self.wholeChain = wholeChain
        catalog = try FontCatalog(extraFontDirectories: extraFontDirectories)
        cache = MeasurementCache(capacity: cacheCapacity, bytes: cacheBytes)
        wordCache = wordCacheCapacity > 0 ? WordCache(capacity: wordCacheCapacity, bytes: wordCacheBytes) : nil
        self.strategy = strategy
        if catalog.families.isEmpty {
            throw TextMeasuringError("no fonts found (install the project's font packages or pass a font directory)")
        }
    }

    // MARK: TextMeasuring

    public func measure(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement {
        var memo = TextMeasurementMemo()
        return measure(text, in: containerSize, memo: &memo)
    }

    public func measure(_ text: TextAttributes, in containerSize: Size, memo: inout TextMeasurementMemo) -> TextMeasurement {
        measure(text, in: containerSize, memo: &memo, budget: nil)
    }

    public func measure(_ text: TextAttributes, in containerSize: Size, memo: inout TextMeasurementMemo,
                        budget: LayoutBudget?) -> TextMeasurement {
        if let known = PangoTextMeasurer.answer(in: containerSize, from: memo, text) { return known }
        let (result, complete) = cachedMeasurement(text, in: containerSize, memo: &memo, budget: budget)
        if complete { memo.remember(result, in: containerSize) }
        return result
    }

    /// The answer, and whether it is one (false: a placeholder, the budget stopped the
    /// measurement; nothing was cached).
    private func cachedMeasurement(_ text: TextAttributes, in containerSize: Size, memo: inout TextMeasurementMemo,
                                   budget: LayoutBudget?) -> (TextMeasurement, Bool) {
        guard cache.isEnabled else { return measure(text, in: containerSize, budget: budget) }
        if let digest = memo.recordDigest {
            // Known by its node's digest: no hashing or comparing of the attributes. A text
            // not cached under the digest is measured: it is not looked for by its attributes
            // too (that lookup hashed the attributes and read a second cold slot for every new
            // text, and found something only for a text that other requests measured outside
            // any shared subtree, or in a node of another style).
            let found = cache.lookup(digest: digest, in: containerSize, countingMiss: false)
            if let hit = found.hit { return (hit, true) }
            // A reused answer is a miss too, counted when the answer is stored.
            let (result, complete) = PangoTextMeasurer.reused(found, text, in: containerSize).map { ($0, true) }
                ?? measure(text, in: containerSize, budget: budget)
            if complete { cache.store(digest: digest, in: containerSize, result, countingMiss: true) }
            return (result, complete)
        }
        return measurementByAttributes(text, in: containerSize, memo: &memo, budget: budget)
    }

    /// The cached answer for the attributes (hashed once per memo), or a fresh one, cached
    /// under the attributes.
    private func measurementByAttributes(_ text: TextAttributes, in containerSize: Size, memo: inout TextMeasurementMemo,
                                         budget: LayoutBudget?) -> (TextMeasurement, Bool) {
        let fingerprint = memo.attributesHash ?? TextIdentity.fingerprint(text)
        memo.attributesHash = fingerprint
        let found = cache.lookup(text, fingerprint: fingerprint, in: containerSize)
        if let hit = found.hit { return (hit, true) }
        if let wide = PangoTextMeasurer.reused(found, text, in: containerSize) {
            cache.store(text, fingerprint: fingerprint, in: containerSize, wide)
            return (wide, true)
        }
        let (result, complete) = measure(text, in: containerSize, budget: budget)
        if complete { cache.store(text, fingerprint: fingerprint, in: containerSize, result) }
        return (result, complete)
    }

    /// A text measured with an unlimited width whose lines all fit in this width lays out
    /// the same here (nothing wraps): that answer, if the lookup found one. (Not with
    /// negative letter spacing, where Pango's line widths exceed the CSS ones.)
    private static func reused(_ found: MeasurementCache.Lookup, _ text: TextAttributes, in containerSize: Size) -> TextMeasurement? {
        guard containerSize.width.isFinite, let wide = found.unlimitedWidth, wide.size.width <= containerSize.width,
              hasNoNegativeSpacing(text) else { return nil }
        return wide
    }

    /// The answer in `container` when the memo already implies it: the same container, the
    /// same width in a height between the answer's and the one it was measured in, or
    /// an answer that was not truncated and whose lines all fit the new container. Lines
    /// break greedily (each takes every word that fits), so in a width between that answer's
    /// longest line and the width it was measured in, the same lines form; and in a height
    /// at least its height, all of them stay visible. (Not with negative letter spacing,
    /// where Pango's line widths exceed the CSS ones; never for a NaN container.)
    @inline(__always)
    static func answer(in container: Size, from memo: borrowing TextMeasurementMemo, _ text: TextAttributes) -> TextMeasurement? {
        // A memo without answers (every text's first measurement) is passed over without
        // copying its entries out (`remember` fills `recent` first).
        if case .none = memo.recent { return nil }
        if let e = memo.recent, let m = answer(in: container, from: e, text) { return m }
        if let e = memo.earlier, let m = answer(in: container, from: e, text) { return m }
        return nil
    }

    @inline(__always)
    private static func answer(in container: Size, from entry: TextMeasurementMemo.Entry, _ text: TextAttributes) -> TextMeasurement? {
        let m = entry.measurement
        if entry.container.bitwiseEquals(container) { return m }
        // The same width and a height from the answer's up to the one it was measured in:
        // its lines fit, a line that did not fit does not (visibleLineCount), so it is the
        // answer, truncated or not (a node measured unbounded, then in its own height). Only
        // while each line adds height: a negative line spacing (the library allows one; the
        // wire does not) can make a prefix of the lines taller than all of them.
        if container.width.bitPattern == entry.container.width.bitPattern, text.lineSpacing >= 0,
           m.size.height <= container.height, container.height <= entry.container.height { return m }
        guard !m.truncated, m.size.width <= container.width, container.width <= entry.container.width,
              m.size.height <= container.height, hasNoNegativeSpacing(text) else { return nil }
        return m
    }

    public func validate(_ font: FontDescriptor) -> TextMeasuringError? {
        catalog.validate(font)
    }

    static func hasNoNegativeSpacing(_ text: TextAttributes) -> Bool {
        text.letterSpacing >= 0 && text.spans.allSatisfy { ($0.letterSpacing ?? 0) >= 0 }
    }

    // MARK: Measuring without the cache

    /// Measures without looking at or filling the cache.
    ///
    /// A font whose metrics came out with a width of 0 (computed in a race with another
    /// thread, or inside another font's computation: FontMetricsChecks.swift; it changes
    /// line breaks) is made to forget them and the text measured again, from the second
    /// attempt on with the metrics lock held throughout, so that the answer depends neither
    /// on what other threads were doing nor on the order Pango first asked for the fonts.
    public func measureUncached(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement {
        measure(text, in: containerSize, budget: nil).0
    }

    /// Measures without the cache, within `budget`: the answer and whether it is one
    /// (false: the budget stopped the measurement and the answer is a placeholder).
    private func measure(_ text: TextAttributes, in containerSize: Size, budget: LayoutBudget?) -> (TextMeasurement, Bool) {
        // The first attempt (nearly every measurement's only one) calls the engine directly:
        // a closure around it would copy the text's attributes into its context, four copies
        // and five releases a measurement.
        let engine = checkOutEngine()
        let result = engine.measure(text, in: containerSize, budget: budget)
        let (clean, stopped, poison) = checkIn(engine)
        if stopped { return (result, false) }
        if clean { return (result, true) }
        let (retried, stoppedAgain) = onCleanEngine(attempt: 1, after: poison) {
            $0.measure(text, in: containerSize, budget: budget)
        }
        return (retried, !stoppedAgain)
    }

    /// `body` on an engine, run again while a font it used came out with incomplete metrics
    /// (`PangoEngine.verify`): after the engine is healed (`PangoEngine.heal`; a fresh
    /// engine when it cannot be), under `metricsLock`, at most 16 times, and not once more
    /// when the same font and language spoil it twice (`isDeterministic`). `attempt` and
    /// `after`: the attempts made before and what spoiled the last one.
    /// Returns the last answer and whether the engine's budget stopped it (then not retried).
    private func onCleanEngine<T>(attempt first: Int = 0, after poisoned: String? = nil,
                                  _ body: (PangoEngine) -> T) -> (T, stopped: Bool) {
        var attempt = first
        var lastPoison = poisoned
        while true {
            let exclusive = attempt > 0
            func once() -> (T, Bool, Bool, String?) {
                let engine = checkOutEngine()
                engine.holdsMetricsLock = exclusive
                let result = body(engine)
                engine.holdsMetricsLock = false
                let (clean, stopped, poison) = checkIn(engine)
                return (result, clean, stopped, poison)
            }
            let (result, clean, stopped, poison) = exclusive ? PangoEngine.metricsLock.withLock { _ in once() } : once()
            if stopped { return (result, true) }
            attempt += 1
            // Another thread can still compute metrics outside the lock (a fallback font
            // the first time a layout uses it), so a retry can be poisoned too; rare.
            if clean || attempt >= 16 || PangoTextMeasurer.isDeterministic(poison, after: &lastPoison) { return (result, false) }
        }
    }

    /// Whether a measurement poisoned by `poison` (font and language) gives up retrying: the
    /// attempt before was poisoned by the same font and language, this one under the lock.
    /// Healing lets the retry compute the spoiled font's metrics outside the computation
    /// that spoiled them (Pango asks for a font's metrics while it computes another font's
    /// when the other's sample text falls back to it, and keeps 0 then), so the same font
    /// and language spoil a retry again only when something else is wrong; a fresh engine
    /// (no healing) would spoil them the same way every time (a text mixing kana, emoji and
    /// Latin words at one size did it on each of 16 fresh engines, about 50 ms each).
    static func isDeterministic(_ poison: String?, after last: inout String?) -> Bool {
        defer { last = poison }
        return poison != nil && poison == last
    }

    /// The visible lines in detail (TextLineDetails.swift), laid out afresh (not cached),
    /// with the same retries as a measurement (no budget: never stopped).
    public func lines(_ text: TextAttributes, in containerSize: Size) -> TextLines? {
        onCleanEngine { $0.lineDetails(text, in: containerSize) }.0
    }

    // MARK: Fonts

    /// The families that can be used, with their aliases and faces (`GET /fonts`).
    public func availableFamilies() -> [FontFamilyInfo] { catalog.families }

    /// The font file Pango loads for `font` (after aliases and font matching), or nil.
    public func fontFile(for font: FontDescriptor) -> String? {
        withEngine { $0.loadedFile(for: font) }
    }

    /// The canonical family a request's family name resolves to, or nil when unknown.
    public func resolvedFamily(_ family: String) -> String? {
        guard let key = catalog.familyKey(for: family) else { return nil }
        return catalog.families.first { $0.name.lowercased() == key }?.name
    }

    // MARK: Caches and counts

    /// Hits, misses and size of the measurement cache, and the size of the word cache.
    public var cacheStatistics: TextCacheStatistics {
        var statistics = cache.statistics
        statistics.wordEntries = wordCache?.count ?? 0
        statistics.wordBytes = wordCache?.bytes ?? 0
        statistics.wordByteCapacity = wordCache?.byteCapacity ?? 0
        return statistics
    }

    /// Empties the cache and resets its counters (not the word cache: `clearWordCache`).
    public func clearCache() { cache.clear() }

    /// Empties the word advance cache (texts are then shaped afresh, word by word).
    public func clearWordCache() { wordCache?.clear() }

    /// Uncached measurements answered from word advances and by a Pango layout so far
    /// (read while no measurement runs).
    public var measurementPaths: (fromWords: Int, fromLayout: Int) {
        poolLock.withLock { _ in
            allEngines.reduce(discardedPaths) { ($0.0 + $1.fromWords, $0.1 + $1.fromLayout) }
        }
    }

    /// Truncated last lines fitted from their last word's shaping so far, without a layout
    /// (read while no measurement runs).
    public var lastLinesFittedFromWords: Int {
        poolLock.withLock { _ in allEngines.reduce(discardedFitted) { $0 + $1.lastLinesFittedFromWords } }
    }

    /// Word advances currently cached.
    public var wordCacheCount: Int { wordCache?.count ?? 0 }

    /// Number of Pango engines created so far (= the peak number of concurrent measurements,
    /// plus the engines discarded).
    public var engineCountCreated: Int { poolLock.withLock { _ in engineCount } }

    /// Number of times an engine was healed of incomplete font metrics and kept
    /// (FontMetricsChecks.heal) instead of being replaced.
    public var enginesHealed: Int { poolLock.withLock { _ in healCount } }

    // MARK: The engine pool

    private func withEngine<T>(_ body: (PangoEngine) -> T) -> T {
        let engine = checkOutEngine()
        defer { _ = checkIn(engine) }
        return body(engine)
    }

    /// An idle engine, or a new one.
    private func checkOutEngine() -> PangoEngine {
        poolLock.withLock { _ -> PangoEngine? in idleEngines.popLast() } ?? {
            let engine = PangoEngine(catalog: catalog, wordCache: wordCache, strategy: strategy)
            engine.wholeChain = wholeChain
            poolLock.withLock { _ in engineCount += 1; allEngines.append(engine) }
            return engine
        }()
    }

    /// Returns an engine after use: whether what it measured stayed clean of incomplete font
    /// metrics, whether its budget stopped it, and what spoiled it. A spoiled engine is healed
    /// (the fonts forget the zero: the retry computes them again) and kept; one that cannot
    /// be healed, or whose font map holds too many fonts (PangoEngine.maxFontsPerEngine),
    /// is discarded.
    private func checkIn(_ engine: PangoEngine) -> (clean: Bool, stopped: Bool, poison: String?) {
        let clean = !engine.poisoned, stopped = engine.stopped, poison = engine.poisonedBy
        let healed = !clean && engine.heal()
        poolLock.withLock { _ in
            if healed { healCount += 1 }
            if engine.isRetired || engine.poisoned {
                discardedPaths.fromWords += engine.fromWords
                discardedPaths.fromLayout += engine.fromLayout
                discardedFitted += engine.lastLinesFittedFromWords
                allEngines.removeAll { $0 === engine }
            } else {
                idleEngines.append(engine)
            }
        }
        return (clean, stopped, poison)
    }
}
