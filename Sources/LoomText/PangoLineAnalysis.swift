import CPango
import LoomLayout

// Reading a Pango layout's lines: each scalar's cluster advance, item and font, the runs'
// letter spacing, each line's content extent and its CSS line box height (PangoLines.swift
// chooses how a text is laid out and collects the lines).

extension PangoEngine {
    /// Byte offsets in the UTF-8 text → scalar indices (offsets past the end: the end).
    struct ScalarIndex {
        let table: UnsafeBufferPointer<Int32>
        let byteCount: Int
        @inline(__always) func callAsFunction(_ byte: Int) -> Int { Int(table[min(byte, byteCount)]) }
    }

    /// Where `analyzeLines` writes, per scalar of [from, to) (index `scalar - from`).
    struct LineAnalysis {
        let from: Int
        let to: Int
        let widths: UnsafeMutablePointer<Int>
        let items: UnsafeMutablePointer<UInt64>?
        let fonts: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    }

    /// Reads the lines of `layout`, whose text is the scalars [from, to) of the prepared
    /// text, into `rawLines` (appended), each scalar's cluster advances (letter spacing
    /// included, attributed to the cluster's first scalar) into `widths[scalar - from]`,
    /// and, when `items` is given, each scalar's item (font, level, script, language: a hash,
    /// but for bits 1–8, the script, and bit 0, set on the first scalar of a run) into
    /// `items[scalar - from]`, and its font into
    /// `fonts[scalar - from]`. Returns the sum of the advances' magnitudes.
    @discardableResult
    func analyzeLines(_ layout: OpaquePointer, _ p: LayoutParameters, from: Int, to: Int,
                      widths: UnsafeMutablePointer<Int>, items: UnsafeMutablePointer<UInt64>?,
                      fonts: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int {
        let prepared = p.prepared
        let origin = Int(prepared.byteOffset[from])
        widths.update(repeating: 0, count: to - from)
        if spanMark.count < p.text.spans.count { spanMark = [Int](repeating: 0, count: p.text.spans.count) }
        let out = LineAnalysis(from: from, to: to, widths: widths, items: items, fonts: fonts)

        var runFonts: [UnsafeMutableRawPointer] = []
        // Grapheme boundaries, for letter spacing only (restoreLetterSpacing).
        var attrCount: Int32 = 0
        let cursor = p.spanSpacing.contains(where: { $0 != 0 }) ? pango_layout_get_log_attrs_readonly(layout, &attrCount) : nil
        let graphemes = GraphemeStarts(attrs: cursor, count: Int(attrCount), from: from, scalars: prepared.scalars)
        prepared.scalarAtByte.withUnsafeBufferPointer { table in
            let scalar = ScalarIndex(table: table, byteCount: prepared.utf8.count)
            forEachLine(of: layout) { line in
                let startByte = origin + Int(line.pointee.start_index)
                let start = scalar(startByte)
                let end = min(to, scalar(startByte + Int(line.pointee.length)))
                runFonts.removeAll(keepingCapacity: true)
                let runCount = readRuns(of: line, p, origin: origin, scalar, out, graphemes, runFonts: &runFonts)
                restoreLetterSpacing(runCount: runCount, out)
                rawLines.append(contentExtent(p, start: start, end: end, out, runFonts: runFonts))
            }
        }
        var magnitude = 0
        for i in 0..<(to - from) { magnitude &+= abs(widths[i]) }
        return magnitude
    }

    /// The runs of one line: each run's item and font per scalar (`recordItem`), its
    /// glyph advances per cluster, and what `restoreLetterSpacing` needs of it (in
    /// `runRecords`); the fonts of runs with content into `runFonts` (for `normal` line
    /// heights). Returns the number of runs recorded.
    @inline(__always)
    private func readRuns(of line: UnsafeMutablePointer<PangoLayoutLine>, _ p: LayoutParameters, origin: Int,
                          _ scalar: ScalarIndex, _ out: LineAnalysis, _ graphemes: GraphemeStarts,
                          runFonts: inout [UnsafeMutableRawPointer]) -> Int {
        let prepared = p.prepared
        var runCount = 0
        forEachGlyphRun(of: line) { item, glyphs in
            let itemOffset = origin + Int(item.pointee.offset)
            if out.items != nil || out.fonts != nil { recordItem(item, itemOffset: itemOffset, scalar, out) }
            let count = Int(glyphs.pointee.num_glyphs)
            guard count > 0 else { return }
            let itemScalar = scalar(itemOffset)
            let spacingUnits = itemScalar < prepared.count
                ? Int32((spacing(p, itemScalar) * Double(LOOM_PANGO_SCALE)).rounded()) : 0
            // The half spacing Pango left out before a grapheme it does not see (GraphemeStarts).
            var missedHalf = 0
            if spacingUnits != 0 {
                let (leftHalf, rightHalf) = PangoEngine.distributeLetterSpacing(spacingUnits)
                missedHalf = Int(item.pointee.analysis.level & 1 == 0 ? leftHalf : rightHalf)
            }
            // Glyph advances per cluster (attributed to the cluster's first scalar).
            var runHasContent = false
            var firstScalar = -1, lastScalar = -1, firstNonZero = -1, lastNonZero = -1
            for g in 0..<count {
                let s = scalar(itemOffset + Int(glyphs.pointee.log_clusters[g]))
                guard s < out.to else { continue }
                let w = glyphs.pointee.glyphs[g].geometry.width
                out.widths[s - out.from] &+= Int(w)
                if spacingUnits != 0, g == 0 || glyphs.pointee.log_clusters[g] != glyphs.pointee.log_clusters[g - 1] {
                    if g > 0 && graphemes.startsUnseenByPango(s) {
                        out.widths[s - out.from] &+= missedHalf
                    } else if graphemes.isSpacedInsideByPango(s) {
                        // Pango spaced it as a grapheme of its own: both halves before it.
                        out.widths[s - out.from] &-= Int(spacingUnits)
                    }
                }
                if g == 0 { firstScalar = s }
                if g == count - 1 { lastScalar = s }
                if w != 0 {
                    if firstNonZero < 0 { firstNonZero = s }
                    lastNonZero = s
                }
                if !prepared.inserted[s] { runHasContent = true }
            }
            let firstZero = glyphs.pointee.glyphs[0].geometry.width == 0
            let lastZero = glyphs.pointee.glyphs[count - 1].geometry.width == 0
            var record = RunRecord(leftTarget: firstZero ? firstNonZero : firstScalar, leftZero: firstZero,
                                   rightTarget: lastZero ? lastNonZero : lastScalar, rightZero: lastZero,
                                   spacing: spacingUnits)
            if spacingUnits != 0 {
                record.leftInside = firstScalar >= 0 && !graphemes.starts(at: firstScalar)
                record.rightInside = lastScalar >= 0 && !graphemes.starts(at: lastScalar)
            }
            if runCount < runRecords.count { runRecords[runCount] = record } else { runRecords.append(record) }
            runCount += 1
            if let font = item.pointee.analysis.font { verify(font, language: item.pointee.analysis.language) }
            if p.lineHeight == nil, runHasContent, p.emoji.cluster(at: itemScalar) < 0,
               let font = item.pointee.analysis.font {
                let key = UnsafeMutableRawPointer(font)
                if !runFonts.contains(key) { runFonts.append(key) }
            }
        }
        return runCount
    }

    /// Writes an item's key (see `analyzeLines`) and font on each of its scalars.
    @inline(__always)
    private func recordItem(_ item: UnsafeMutablePointer<PangoItem>, itemOffset: Int, _ scalar: ScalarIndex,
                            _ out: LineAnalysis) {
        let a = item.pointee.analysis
        var key = UInt64(UInt(bitPattern: a.font)) &* 0x9E37_79B9_7F4A_7C15
        key ^= (UInt64(a.level) << 8 | UInt64(a.flags) << 24)
        key ^= UInt64(UInt(bitPattern: a.language)) &* 0xC2B2_AE3D_27D4_EB4F
        key = key & ~0x1FF | UInt64(a.script) << 1
        let s0 = max(out.from, scalar(itemOffset)), s1 = min(out.to, scalar(itemOffset + Int(item.pointee.length)))
        if s0 < s1, let items = out.items {
            for s in s0..<s1 { items[s - out.from] = key }
            items[s0 - out.from] |= 1
        }
        if s0 < s1, let fonts = out.fonts {
            let font = a.font.map { UnsafeMutableRawPointer($0) }
            for s in s0..<s1 { fonts[s - out.from] = font }
        }
    }

    /// Undoes Pango's trimming of letter spacing at the ends of the line (and next to
    /// zero-width glyphs), as its adjust_line_letter_spacing() does it, so that every
    /// grapheme carries its full spacing once, as in CSS.
    ///
    /// Pango spaces its glyph clusters that start a grapheme: half before (unless first in
    /// the run), half after (unless last), and a half at each end of the run. A mark it
    /// shapes as a cluster of its own (ते, दी, हिं: the vowel sign or the nasal after the
    /// consonant) is no grapheme's start; when such a cluster ends the run, the grapheme
    /// before it got its half after from the cluster walk and the run's end half besides
    /// (ते at Noto Sans Devanagari 16 with 4 px: 13.125 px where the browser has 9.125 + 4).
    /// That extra half is taken off (`leftInside`, `rightInside`), at either end. The
    /// other way round, a letter after a zero-width joiner starts a grapheme that Pango's
    /// Indic rules join to the one before: `readRuns` adds the half Pango left out there.
    @inline(__always)
    private func restoreLetterSpacing(runCount: Int, _ out: LineAnalysis) {
        for r in 0..<runCount {
            let rec = runRecords[r]
            if rec.spacing == 0 { continue }
            let (left, right) = PangoEngine.distributeLetterSpacing(rec.spacing)
            if rec.leftTarget >= out.from {
                if rec.leftZero || r == 0 { out.widths[rec.leftTarget - out.from] &+= Int(left) }
                if rec.leftInside { out.widths[rec.leftTarget - out.from] &-= Int(left) }
            }
            if rec.rightTarget >= out.from {
                if rec.rightZero || r == runCount - 1 { out.widths[rec.rightTarget - out.from] &+= Int(right) }
                if rec.rightInside { out.widths[rec.rightTarget - out.from] &-= Int(right) }
            }
        }
    }

    /// Which scalars of a layout start a grapheme, by scalar of the prepared text: Pango's
    /// cursor positions, and a letter after a zero-width joiner or non-joiner (with at most
    /// a virama between), which Pango's Indic rules join to the cluster before it and the
    /// browser does not (क्‍ष takes two spacings); every scalar when the layout's attributes
    /// were not read.
    struct GraphemeStarts {
        let attrs: UnsafePointer<PangoLogAttr>?
        let count: Int
        let from: Int
        let scalars: [Unicode.Scalar]
        @inline(__always) func starts(at scalar: Int) -> Bool {
            let k = scalar - from
            guard let attrs, k >= 0, k < count else { return true }
            if attrs[k].is_cursor_position != 0 { return true }
            return isJoinerSequenceEnd(scalar)
        }

        /// The inside of a grapheme that Pango takes for a grapheme's start: Thai and Lao
        /// SARA AM (ทำ), a spacing mark to Unicode's grapheme rules and to the browser, a
        /// cursor position to Pango's (ทำ at Noto Sans Thai 14 with 2 px: 18.219 px where
        /// the browser has 16.219).
        @inline(__always) func isSpacedInsideByPango(_ scalar: Int) -> Bool {
            let k = scalar - from
            guard let attrs, k > 0, k < count, attrs[k].is_cursor_position != 0 else { return false }
            let v = scalars[scalar].value
            return v == 0x0E33 || v == 0x0EB3
        }

        /// A grapheme's start that Pango takes for the inside of one (it spaced none).
        @inline(__always) func startsUnseenByPango(_ scalar: Int) -> Bool {
            let k = scalar - from
            guard let attrs, k >= 0, k < count, attrs[k].is_cursor_position == 0 else { return false }
            return isJoinerSequenceEnd(scalar)
        }

        private func isJoinerSequenceEnd(_ scalar: Int) -> Bool {
            func isJoiner(_ i: Int) -> Bool { i >= from && (scalars[i].value == 0x200D || scalars[i].value == 0x200C) }
            func isMark(_ i: Int) -> Bool {
                let t = g_unichar_type(scalars[i].value)
                return t == G_UNICODE_NON_SPACING_MARK || t == G_UNICODE_SPACING_MARK || t == G_UNICODE_ENCLOSING_MARK
            }
            guard !isMark(scalar), !isJoiner(scalar) else { return false }
            return isJoiner(scalar - 1) || (scalar - 1 >= from && isMark(scalar - 1) && isJoiner(scalar - 2))
        }
    }

    /// The line [start, end) with its content extent (first and last content scalar), its
    /// CSS width (the advances between them) and its line box height.
    @inline(__always)
    private func contentExtent(_ p: LayoutParameters, start: Int, end: Int, _ out: LineAnalysis,
                               runFonts: [UnsafeMutableRawPointer]) -> RawLine {
        let prepared = p.prepared
        var first = -1, last = -1
        var k = start
        while k < end { if isContent(prepared, k) { first = k; break }; k += 1 }
        if first >= 0 {
            k = end - 1
            while k >= first { if isContent(prepared, k) { last = k; break }; k -= 1 }
        }
        var units = 0
        if first >= 0 { for j in first...last { units &+= out.widths[j - out.from] } }
        let height = lineBoxHeight(p, start: start, end: end, runFonts: runFonts)
        return RawLine(start: start, end: end, first: first, last: last, units: units, height: height)
    }

    /// The CSS line box of the line [start, end): the strut (base font) and every inline
    /// box on the line (span fonts; with `normal` line height, also the fonts Pango chose
    /// for its runs, `runFonts`).
    func lineBoxHeight(_ p: LayoutParameters, start: Int, end: Int, runFonts: [UnsafeMutableRawPointer]) -> Double {
        let prepared = p.prepared
        let n = prepared.count
        spanStamp &+= 1
        let stamp = spanStamp
        var (above, below) = p.base.metrics.halfLeadingSplit(lineHeight: p.lineHeight)
        let spanEnd = (end < n && prepared.scalars[end] == "\n") ? end + 1 : end
        var j = start
        while j < spanEnd {
            if !prepared.inserted[j] {
                let s = Int(prepared.span[j])
                if spanMark[s] != stamp {
                    spanMark[s] = stamp
                    let f = p.spanFonts[s]
                    if f !== p.base && f.resolved != p.base.resolved {
                        let (a, b) = f.metrics.halfLeadingSplit(lineHeight: p.lineHeight)
                        above = max(above, a); below = max(below, b)
                    }
                }
            }
            j += 1
        }
        if p.lineHeight == nil && !p.emoji.isEmpty {
            // Emoji clusters: the font the engine chose for each.
            for j in start..<min(spanEnd, n) {
                let c = p.emoji.cluster(at: j)
                if c >= 0 && p.emoji.clusters[c].start == j {
                    let (a, b) = p.emoji.clusters[c].metrics.halfLeadingSplit(lineHeight: nil)
                    above = max(above, a); below = max(below, b)
                }
            }
        }
        if p.lineHeight == nil {
            let baseFont = p.base.font.map { UnsafeMutableRawPointer($0) }
            for font in runFonts where font != baseFont {
                let (a, b) = metrics(ofRunFont: font).halfLeadingSplit(lineHeight: nil)
                above = max(above, a); below = max(below, b)
            }
        }
        return above + below
    }
}
