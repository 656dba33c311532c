import CPango

// Which graphemes a tail-truncated line with right-to-left text hides: the browser hides
// them at the line's visual end (CSS `text-overflow` and `-webkit-line-clamp` work on the
// line as drawn), the right edge in a left-to-right paragraph and the left edge in a
// right-to-left one, whatever their logical order. In "abc אבגד" cut at 80 px (Liberation
// Sans 16) Chromium 156 hides א, the Hebrew word's first letter, drawn rightmost; in the
// right-to-left paragraph "אבגד abc" it hides the a of abc, drawn leftmost.
//
// The order comes from the paragraph's embedding levels (FriBidi through Pango, as Pango's
// own itemizer computes them), each grapheme taking its first scalar's, reordered as UAX #9
// rule L2 does: from the highest level down to the lowest odd one, every run at that level
// or above is reversed.

extension PangoEngine {
    /// The order in which the line keeps the graphemes `list` (its content, in logical order;
    /// scalars of `prepared`): the visual order from the paragraph's start edge, so that the
    /// ones hidden first come last. nil when it is the logical order (a paragraph without a
    /// right-to-left character, the common case, looked at once).
    func visualKeepOrder(_ list: [TruncationChoice.Grapheme], _ prepared: PreparedText) -> [Int]? {
        guard let first = list.first, let last = list.last else { return nil }
        let scalars = prepared.scalars
        var start = first.start, end = last.end
        while start > 0 && !isParagraphEnd(scalars[start - 1]) { start -= 1 }
        while end < scalars.count && !isParagraphEnd(scalars[end]) { end += 1 }
        guard scalars[start..<end].contains(where: { PangoEngine.mayBeRightToLeft($0.value) }) else { return nil }

        let from = Int(prepared.byteOffset[start]), to = Int(prepared.byteOffset[end])
        var direction = pango_layout_get_auto_dir(layout) != 0 ? PANGO_DIRECTION_NEUTRAL : pango_context_get_base_dir(context)
        let levels: UnsafeMutablePointer<guint8>? = prepared.utf8.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                if direction == PANGO_DIRECTION_NEUTRAL {
                    let found = loom_find_base_dir(chars.baseAddress! + from, Int32(to - from))
                    direction = found == PANGO_DIRECTION_RTL ? PANGO_DIRECTION_RTL : PANGO_DIRECTION_LTR
                }
                return pango_log2vis_get_embedding_levels(chars.baseAddress! + from, Int32(to - from), &direction)
            }
        }
        guard let levels else { return nil }
        defer { g_free(levels) }
        let graphemeLevels = list.map { Int(levels[$0.start - start]) }
        var order = Array(list.indices)
        let highest = graphemeLevels.max() ?? 0
        let lowestOdd = graphemeLevels.filter { $0 & 1 == 1 }.min() ?? (highest + 1)
        var level = highest
        while level >= lowestOdd {
            var i = 0
            while i < order.count {
                guard graphemeLevels[order[i]] >= level else { i += 1; continue }
                var j = i
                while j < order.count && graphemeLevels[order[j]] >= level { j += 1 }
                order[i..<j].reverse()
                i = j
            }
            level -= 1
        }
        // `order` is left to right; a right-to-left paragraph keeps from its right edge.
        if direction == PANGO_DIRECTION_RTL { order.reverse() }
        return order == Array(list.indices) ? nil : order
    }

    private func isParagraphEnd(_ s: Unicode.Scalar) -> Bool {
        s.value == 0x0A || s.value == 0x0D || s.value == 0x2029 || s.value == 0x85
    }

    /// Characters that can be right to left or start a right-to-left embedding: Hebrew,
    /// Arabic, Syriac, Thaana, N'Ko and their neighbours (U+0590–U+08FF), their presentation
    /// forms, and the right-to-left marks and controls.
    static func mayBeRightToLeft(_ v: UInt32) -> Bool {
        (v >= 0x0590 && v <= 0x08FF) || (v >= 0xFB1D && v <= 0xFDFF) || (v >= 0xFE70 && v <= 0xFEFF)
            || v == 0x200F || v == 0x202B || v == 0x202E || v == 0x2067 || v == 0x061C
            || (v >= 0x10800 && v <= 0x10FFF) || (v >= 0x1E800 && v <= 0x1EFFF)
    }
}
