import CPango
import LoomLayout

// The windows of a long text (step 2 and 3 of SegmentedLayout.swift): where each window
// starts and ends, laying it out, and how many of its lines agree with the whole text.

extension PangoEngine {
    func windowLines(_ p: LayoutParameters, _ paragraphs: Paragraphs, pangoWidth w: Int,
                     into collector: inout LineCollector) -> Bool {
        let prepared = p.prepared
        let n = prepared.count
        let (slack, baseReach) = windowReach(p, pangoWidth: w)
        let hasJoining = prepared.scalars.contains { PangoEngine.isJoiningRelated($0.value) }

        var direction = pango_context_get_base_dir(context)
        var accepted: [Int] = []
        var f = 0
        var paragraph = 0
        // The reach that kept lines last (a window that keeps none is tried again larger),
        // and whether that window took its own attributes (see below).
        var settled = baseReach
        var stuck = false
        while f < n {
            if shouldStop() { return false }
            if collector.isComplete() { return true }
            while paragraph + 1 < paragraphs.starts.count && paragraphs.starts[paragraph + 1] <= f { paragraph += 1 }
            let paragraphStart = paragraphs.starts[paragraph]
            let paragraphEnd = paragraph + 1 < paragraphs.starts.count ? paragraphs.starts[paragraph + 1] - 1 : n
            if paragraphs.directions[paragraph] != direction {
                direction = paragraphs.directions[paragraph]
                pango_context_set_base_dir(context, direction)
            }

            var start = hasJoining ? joiningStart(prepared, from: f, paragraphStart: paragraphStart, accepted: accepted) : f
            var reach = settled
            var minimumEnd = 0
            var contextTries = 0
            var relaxed = false
            var kept = 0
            while true {
                if shouldStop() { return false }
                let window = windowBounds(prepared, paragraphs, paragraph: paragraph, start: start, from: f, reach: reach,
                                          minimumEnd: minimumEnd, widthUnits: w, slack: slack)
                let outcome = layOutWindow(p, window, from: f, widthUnits: w, slack: slack, relaxed: relaxed,
                                           into: &collector, accepted: &accepted)
                kept = outcome.kept
                if kept > 0 {
                    f = outcome.next
                    settled = max(baseReach, reach - reach / 4)
                    stuck = relaxed
                    break
                }
                if window.end - window.start > 16_384 { break }
                if outcome.missingStart && start < f { start = f; continue }
                if let x = outcome.mismatch, x - f < 64, !relaxed,
                   let later = laterScriptSource(of: x, prepared, windowStart: window.start, paragraphStart: paragraphStart,
                                                 paragraphEnd: paragraphEnd), later > minimumEnd {
                    // A common character at the start of its paragraph, whose script comes
                    // from the first character after it that has one: the window takes it in.
                    minimumEnd = later
                    continue
                }
                if let x = outcome.mismatch, x - f < 64, !relaxed {
                    // A difference near the start: more text before `f` (whole lines), up
                    // to 4 096 scalars (1 024 when the window before needed its own
                    // attributes too: a long run of characters whose script or level comes
                    // from far before); then the window's own attributes are taken.
                    contextTries += 1
                    let want = f - (stuck ? 1024 : 64 << (2 * contextTries))
                    let earlier = lineStart(atOrBefore: want, paragraphStart: paragraphStart, accepted: accepted)
                    if contextTries <= (stuck ? 1 : 3) && earlier < start { start = earlier; continue }
                    relaxed = true
                    start = f
                    continue
                }
                if !window.complete && !outcome.overflow && reach < PangoEngine.safeUnits / 2 { reach *= 2; continue }
                if outcome.overflow && reach > w + slack { reach = max(w + slack, reach / 2); continue }
                if !relaxed { relaxed = true; continue }
                break
            }
            if kept == 0 {
                // No window settles this paragraph: the rest of it greedily.
                guard greedyLines(p, from: f, to: paragraphEnd, limit: PangoEngine.widthUnits(p.width), into: &collector)
                else { return false }
                f = paragraphEnd + 1
            }
        }
        // A text ending with a separator ends with an empty line (a paragraph of its own).
        if n > 0 && prepared.scalars[n - 1] == "\n" && !collector.isComplete() && collector.lines.last?.start != n {
            return greedyLines(p, from: n, to: n, limit: 0, into: &collector)
        }
        return true
    }

    /// How far a window reaches past its first line (Pango units), and the slack kept at
    /// its end: six ems of the largest font (more than Pango's safe distance plus what its
    /// approximate widths, before reshaping a line, can differ by), and `scale` times the
    /// width (the strategy's, else 4).
    private func windowReach(_ p: LayoutParameters, pangoWidth w: Int) -> (slack: Int, baseReach: Int) {
        var em = p.base.resolved.pixelSize
        for f in p.spanFonts where f.resolved.pixelSize > em { em = f.resolved.pixelSize }
        let emUnits = Int(min(em, 1e6) * Double(LOOM_PANGO_SCALE))
        let slack = 6 * emUnits + Int(LOOM_PANGO_SCALE)
        let scale: Double
        if case .windows(let s) = strategy { scale = max(0, s) } else { scale = 4 }
        return (slack, w + slack + max(Int(scale * Double(w + slack)), Int(scale * 6) * emUnits))
    }

    /// The start of a window whose first line starts at `f`, in a text with joining
    /// characters: `f`, or an earlier kept line's start (at most 64 lines and 4 096 scalars
    /// back, in the same paragraph) that gives the shaping its context.
    private func joiningStart(_ prepared: PreparedText, from f: Int, paragraphStart: Int, accepted: [Int]) -> Int {
        guard f != paragraphStart && !isCleanStart(prepared, f) else { return f }
        var k = accepted.count - 1
        while k >= 0 && accepted[k] >= paragraphStart && f - accepted[k] <= 4096 && accepted.count - k <= 64 {
            if accepted[k] == paragraphStart || isCleanStart(prepared, accepted[k]) { return accepted[k] }
            k -= 1
        }
        return f
    }

    /// The last kept line start at or before `want` in the paragraph, else the paragraph's
    /// start.
    private func lineStart(atOrBefore want: Int, paragraphStart: Int, accepted: [Int]) -> Int {
        var k = accepted.count - 1
        while k >= 0 && accepted[k] > want && accepted[k] > paragraphStart { k -= 1 }
        return k >= 0 ? max(accepted[k], paragraphStart) : paragraphStart
    }

    /// A window: the scalars [start, end) laid out (`start` one before the first line's
    /// start when that begins a paragraph: its separator), up to `limit` (where lines may be
    /// kept); `complete` when the window ends at a paragraph's end (then `end` includes the
    /// separator, as in the whole text).
    struct Window {
        var start: Int
        var end: Int
        var limit: Int
        var complete: Bool
    }

    private func windowBounds(_ prepared: PreparedText, _ paragraphs: Paragraphs, paragraph: Int, start: Int, from f: Int,
                              reach: Int, minimumEnd: Int, widthUnits w: Int, slack: Int) -> Window {
        let n = prepared.count
        let windowStart = start > 0 && prepared.scalars[start - 1] == "\n" ? start - 1 : start
        var magnitude = 0
        for i in windowStart..<f { magnitude &+= abs(clusterWidth[i]) }
        let cap = PangoEngine.safeUnits - w - 2 * slack
        var e = f
        var covered = 0
        var next = paragraph + 1
        while e < n {
            if prepared.scalars[e] == "\n" {
                // A paragraph's end: stop there when far enough, when the next one has
                // another direction, or after 64 paragraphs (Pango counts characters from
                // the text's start for every paragraph).
                if (covered >= reach && e >= minimumEnd) || paragraphs.directions[next] != paragraphs.directions[paragraph]
                    || next - paragraph >= 64 { break }
                next += 1
            } else if e >= f + 16 && e >= minimumEnd && covered >= reach {
                break
            }
            let c = clusterWidth[e]
            if magnitude + abs(c) >= cap { break }
            covered &+= c
            magnitude &+= abs(c)
            e += 1
        }
        if e < n && prepared.scalars[e] != "\n" {
            // A short rest of the paragraph comes along.
            var r = e, extra = 0
            while r < n && prepared.scalars[r] != "\n" && r - e <= 32 { extra &+= abs(clusterWidth[r]); r += 1 }
            if (r == n || prepared.scalars[r] == "\n") && r - e <= 32 && magnitude + extra < cap { e = r }
        }
        let complete = e == n || prepared.scalars[e] == "\n"
        let end = complete && e < n ? e + 1 : e
        // Through the text's end: its last (empty) paragraph after a final separator too.
        return Window(start: windowStart, end: end, limit: end == n ? n : e, complete: complete)
    }

    private struct WindowOutcome {
        var kept = 0
        /// The start of the line after the last one kept.
        var next = 0
        /// The first scalar whose attributes or item differ from the whole text's.
        var mismatch: Int?
        /// No line of the window starts at `f` (its lines before `f` broke elsewhere).
        var missingStart = false
        /// The window's widths came too close to Pango's limit.
        var overflow = false
    }

    /// Lays out a window and keeps the lines from `f` on that are the whole text's.
    private func layOutWindow(_ p: LayoutParameters, _ window: Window, from f: Int, widthUnits w: Int, slack: Int,
                              relaxed: Bool, into collector: inout LineCollector, accepted: inout [Int]) -> WindowOutcome {
        let prepared = p.prepared
        let n = prepared.count
        let (a0, a1) = (window.start, window.end)
        var outcome = WindowOutcome()
        configureLayout(windowLayout, p, from: a0, to: a1, width: Int32(w),
                        split: window.complete ? nil : window.limit - 8)
        if windowWidth.count < a1 - a0 { windowWidth = [Int](repeating: 0, count: a1 - a0) }
        if windowItems.count < a1 - a0 { windowItems = [UInt64](repeating: 0, count: a1 - a0) }
        rawLines.removeAll(keepingCapacity: true)
        let magnitude = windowWidth.withUnsafeMutableBufferPointer { widths in
            windowItems.withUnsafeMutableBufferPointer { items in
                analyzeLines(windowLayout, p, from: a0, to: a1, widths: widths.baseAddress!, items: items.baseAddress!,
                             fonts: nil)
            }
        }
        if magnitude + w >= PangoEngine.safeUnits { outcome.overflow = true; return outcome }
        guard let k0 = rawLines.firstIndex(where: { $0.start == f }) else { outcome.missingStart = true; return outcome }

        // Where lines may end: the window's end if it ends a paragraph, else before its
        // last line and 8 scalars before its end.
        var limit = window.limit
        if !window.complete {
            limit = min(limit - 8, rawLines[rawLines.count - 1].start)
        }
        var lastParagraphEnd = window.complete ? window.limit : -1
        var i = window.limit - 1
        while i >= f && lastParagraphEnd < 0 { if prepared.scalars[i] == "\n" { lastParagraphEnd = i }; i -= 1 }

        // The window's attributes and items against the whole text's.
        if let x = firstDifference(from: f, to: limit, windowStart: a0, firstLine: k0) {
            outcome.mismatch = x
            if !relaxed { limit = min(limit, x - 16) }
        }
        let checkWidth = outcome.mismatch != nil && !relaxed
        // The widths of the window's scalars from each line start to `limit`.
        var covered = 0
        if limit > f { for j in f..<limit { covered &+= windowWidth[j - a0] } }
        var k = k0
        var lineStart = f
        while k < rawLines.count {
            let line = rawLines[k]
            if line.start > window.limit || line.end > limit { break }
            if (checkWidth || line.end > lastParagraphEnd) && covered <= w + slack { break }
            collector.append(line, prepared)
            accepted.append(line.start)
            for j in line.start..<line.end { clusterWidth[j] = windowWidth[j - a0] }
            outcome.kept += 1
            let next = line.end < n && prepared.scalars[line.end] == "\n" ? line.end + 1 : line.end
            for j in lineStart..<min(next, limit) { covered &-= windowWidth[j - a0] }
            lineStart = next
            outcome.next = next
            k += 1
        }
        return outcome
    }

    /// The first scalar in (f, limit) whose log attributes or item (font, level, script,
    /// language, and whether an item starts there, line starts aside) differ between the
    /// window (`windowItems`, laid out from `windowStart`) and the whole text.
    private func firstDifference(from f: Int, to limit: Int, windowStart a0: Int, firstLine k0: Int) -> Int? {
        guard limit > f + 1 else { return nil }
        var count: Int32 = 0
        guard let attrs = pango_layout_get_log_attrs_readonly(windowLayout, &count) else { return f + 1 }
        var k = k0
        return fullAttrs.withUnsafeBufferPointer { full -> Int? in
            UnsafeRawPointer(attrs).withMemoryRebound(to: UInt32.self, capacity: Int(count)) { window in
                UnsafeRawPointer(full.baseAddress!).withMemoryRebound(to: UInt32.self, capacity: full.count) { whole in
                    let mask = PangoEngine.lineBreakingAttributes
                    for i in (f + 1)..<limit {
                        if i - a0 >= Int(count) || (window[i - a0] ^ whole[i]) & mask != 0 { return i }
                        while k < rawLines.count && rawLines[k].start < i { k += 1 }
                        let lineStart = k < rawLines.count && rawLines[k].start == i
                        let difference = windowItems[i - a0] ^ fullItems[i]
                        if difference & ~1 != 0 || (difference & 1 != 0 && !lineStart) { return i }
                    }
                    return nil
                }
            }
        }
    }

    /// The bits of a PangoLogAttr that line breaking reads (can_break_at, the width of a
    /// space at a break, hyphens); the others (word and sentence boundaries) can differ
    /// at a window's start without consequence.
    static let lineBreakingAttributes: UInt32 = {
        var attr = PangoLogAttr()
        attr.is_line_break = 1; attr.is_mandatory_break = 1; attr.is_char_break = 1; attr.is_white = 1
        attr.is_cursor_position = 1; attr.break_inserts_hyphen = 1; attr.break_removes_preceding = 1
        return withUnsafeBytes(of: attr) { $0.load(as: UInt32.self) }
    }()

    /// When the window gave scalar `x` no script (Common or Inherited) and the whole text
    /// did, and no scalar before it in its paragraph has one: where the window must reach
    /// to take in the first scalar after it that has one (Pango's script of a paragraph's
    /// leading common characters), 16 scalars past it; nil otherwise (or when that is more
    /// than 16 384 scalars on).
    private func laterScriptSource(of x: Int, _ prepared: PreparedText, windowStart a0: Int, paragraphStart: Int,
                                   paragraphEnd: Int) -> Int? {
        @inline(__always) func script(_ key: UInt64) -> UInt64 { (key >> 1) & 0xFF }
        // Whether a character has a script of its own (not Common, Inherited or Unknown).
        @inline(__always) func hasScript(_ i: Int) -> Bool {
            let s = g_unichar_get_script(prepared.scalars[i].value)
            return s != G_UNICODE_SCRIPT_COMMON && s != G_UNICODE_SCRIPT_INHERITED && s != G_UNICODE_SCRIPT_UNKNOWN
        }
        guard x - a0 < windowItems.count, script(windowItems[x - a0]) <= 1, script(fullItems[x]) > 1 else { return nil }
        var j = x - 1
        while j >= paragraphStart {
            if hasScript(j) || x - j > 1024 { return nil }
            j -= 1
        }
        var y = x + 1
        while y < paragraphEnd && !hasScript(y) {
            if y - x > 16_384 { return nil }
            y += 1
        }
        return min(y + 16, paragraphEnd)
    }

    /// Whether a window may start a line at `i` without the text before it: the scalar
    /// before (inserted ones aside) and the one at `i` are of no joining script.
    func isCleanStart(_ prepared: PreparedText, _ i: Int) -> Bool {
        var j = i - 1
        while j >= 0 && prepared.inserted[j] { j -= 1 }
        if j < 0 || prepared.scalars[j] == "\n" { return true }
        return !PangoEngine.isJoiningRelated(prepared.scalars[j].value)
            && !PangoEngine.isJoiningRelated(prepared.scalars[i].value)
    }

    /// Scripts whose shaping looks at the characters before a line's start (cursive
    /// joining: HarfBuzz's pre-context), with the joiners and combining marks.
    static func isJoiningRelated(_ v: UInt32) -> Bool {
        switch v {
        case 0x0300..<0x0370, 0x0591..<0x0900, 0x1800..<0x18B0, 0x1AB0..<0x1B00, 0x1DC0..<0x1E00, 0x200C, 0x200D,
             0x20D0..<0x2100, 0xA840..<0xA880, 0xFB50..<0xFE00, 0xFE20..<0xFE30, 0xFE70..<0xFF00,
             0x10AC0..<0x10B00, 0x10B80..<0x10BB0, 0x10D00..<0x10D40, 0x10F30..<0x11000, 0x1E900..<0x1E960:
            return true
        default:
            return false
        }
    }
}
