import CICU
import CPango
import LoomLayout
import Synchronization

// Line breaks inside Thai, Lao, Khmer and Myanmar (UAX #14 class SA, "complex context"),
// written without spaces between words: a browser breaks them where ICU's dictionaries find
// word boundaries. Pango breaks Thai with libthai's dictionary, which disagrees with ICU's on
// some words (ICU splits ภาษา|ไทย and เมือง|หลวง, libthai กรุงเทพ|มหา|นคร), and the others not
// at all.
//
// So TextPreparation asks ICU for the words of each run of SA characters, and every Pango
// layout of the text marks them with `PangoAttrWord` (Pango 1.50): Pango then allows a line
// break at each marked word's start and none inside it (breaks between characters stay, for
// a word wider than its line, as the browser's overflow-wrap). A word attribute also adds a
// break at its end when another word starts right there, and at its start, so a run's first
// word is marked only where a line may start anyway and its last word ends one character
// early unless a space or a line end follows (Thai glued to a Latin word or a quote keeps
// Pango's breaks at that edge). The word path (FallbackBreaks.swift), which cuts words of one
// script between spaces, takes ICU's breaks inside them directly. A text with more than
// `maxScalars` such characters keeps Pango's breaks (on both paths).

enum DictionaryBreaks {
    /// A text with more SA characters than this keeps Pango's breaks. Pango reads each word
    /// attribute from the start of its item, so marking costs grow with the item's length
    /// times the words marked in it: a 33,000-character Thai text took 4 times as long. The
    /// count is of the text as given (before white space is collapsed), so the word path and
    /// the layouts decide alike.
    static let maxScalars = 2048

    /// Whether `text`'s SA characters are at most `maxScalars`.
    static func withinLimit(_ spans: [TextSpan]) -> Bool {
        var count = 0
        for span in spans {
            var text = span.text
            guard text.withUTF8({ countComplex($0, &count) }) else { return false }
        }
        return true
    }

    /// `withinLimit` of a text's UTF-8 bytes (its spans' texts one after the other).
    static func withinLimit(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var count = 0
        return countComplex(bytes, &count)
    }

    /// Adds the SA characters of `bytes` to `count`; false once it passes `maxScalars`.
    private static func countComplex(_ bytes: UnsafeBufferPointer<UInt8>, _ count: inout Int) -> Bool {
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            // Below U+0800 (one or two bytes): no SA character.
            if c < 0xE0 { i += c < 0x80 ? 1 : 2; continue }
            let (v, length) = PangoEngine.decodeUTF8(bytes, i)
            i += length
            if isComplexContext(v) {
                count += 1
                if count > maxScalars { return false }
            }
        }
        return true
    }

    /// Whether `v` is of line break class SA (Thai, Lao, Khmer, Myanmar, Tai scripts): the
    /// blocks first, then glib's table.
    @inline(__always) static func isComplexContext(_ v: UInt32) -> Bool {
        guard (v >= 0x0E00 && v < 0x0F00) || (v >= 0x1000 && v < 0x10A0) || (v >= 0x1780 && v < 0x1800)
            || (v >= 0x1950 && v < 0x1AB0) || (v >= 0xA9E0 && v < 0xAAE0) || (v >= 0x11700 && v < 0x11750) else {
            return false
        }
        return g_unichar_break_type(v) == G_UNICODE_BREAK_COMPLEX_CONTEXT
    }

    /// Whether some two adjacent scalars of `scalars` are both of class SA.
    static func hasComplexPairs(_ scalars: [Unicode.Scalar]) -> Bool {
        var previous = false
        for s in scalars {
            let v = s.value
            if v < 0x0E00 { previous = false; continue }
            let sa = isComplexContext(v)
            if sa && previous { return true }
            previous = sa
        }
        return false
    }

    /// The indices `i` (between scalars i-1 and i, both of class SA) where ICU's line
    /// breaker breaks, each maximal run of SA scalars given to it alone (the dictionary
    /// reads the run; what lies around it decides nothing inside it). nil when ICU cannot
    /// give them (no iterator: its data missing); the text then keeps Pango's breaks.
    static func icuBreaks(_ scalars: [Unicode.Scalar]) -> [Int]? {
        var result: [Int] = []
        return forEachRun(scalars) { breaks(scalars, $0, into: &result) } ? result : nil
    }

    /// `body` with each maximal run of at least two SA scalars, in order, while it returns true.
    private static func forEachRun(_ scalars: [Unicode.Scalar], _ body: (Range<Int>) -> Bool) -> Bool {
        let n = scalars.count
        var i = 0
        while i < n {
            guard isComplexContext(scalars[i].value) else { i += 1; continue }
            var j = i + 1
            while j < n && isComplexContext(scalars[j].value) { j += 1 }
            if j - i > 1, !body(i ..< j) { return false }
            i = j
        }
        return true
    }

    /// ICU's breaks strictly inside `run`, appended to `result` as scalar indices; false
    /// when ICU failed.
    private static func breaks(_ scalars: [Unicode.Scalar], _ run: Range<Int>, into result: inout [Int]) -> Bool {
        // UTF-16, with the scalar index of each unit (SA scalars are all in the BMP but
        // those of Ahom; a surrogate pair maps both units to its scalar).
        var units: [UInt16] = []
        var scalarOf: [Int] = []
        units.reserveCapacity(run.count + 1)
        scalarOf.reserveCapacity(run.count + 1)
        for k in run {
            let v = scalars[k].value
            if v < 0x10000 {
                units.append(UInt16(v))
                scalarOf.append(k)
            } else {
                units.append(UInt16(0xD800 + ((v - 0x10000) >> 10)))
                units.append(UInt16(0xDC00 + ((v - 0x10000) & 0x3FF)))
                scalarOf.append(k)
                scalarOf.append(k)
            }
        }
        scalarOf.append(run.upperBound)
        return Breakers.shared.with { breaker in
            units.withUnsafeBufferPointer { text in
                guard loom_line_breaker_set_text(breaker, text.baseAddress, Int32(text.count)) != 0 else { return false }
                while true {
                    let p = Int(loom_line_breaker_next(breaker))
                    if p < 0 || p >= units.count { break }
                    if p > 0 { result.append(scalarOf[p]) }
                }
                // The iterator keeps no pointer to the text once it is given another.
                _ = loom_line_breaker_set_text(breaker, nil, 0)
                return true
            }
        }
    }

    /// ICU's words in each run of SA scalars of `scalars`, as scalar ranges for the layout's
    /// word attributes (start, end, start, end …; see the top of this file for the edges).
    /// `pango`: Pango's line breaks of `scalars`, when the caller has them. Empty when ICU
    /// cannot tell: Pango's breaks then stay.
    static func words(_ scalars: [Unicode.Scalar], pango given: [Bool]? = nil) -> [Int32] {
        var result: [Int32] = []
        var breaks: [Int] = []
        let n = scalars.count
        // Only words where Pango would break otherwise are marked (each attribute costs Pango
        // a walk over the text): one that starts where Pango does not break, or inside which
        // it does.
        let pango = given ?? TextPreparation.pangoLineBreaks(scalars)
        let told = forEachRun(scalars) { run in
            breaks.removeAll(keepingCapacity: true)
            guard Self.breaks(scalars, run, into: &breaks) else { return false }
            let (i, j) = (run.lowerBound, run.upperBound)
            let opensLine = i == 0 || isBlank(scalars[i - 1].value)
            let closesLine = j == n || isBlank(scalars[j].value)
            var start = i
            for k in 0 ... breaks.count {
                let end = k < breaks.count ? breaks[k] : (closesLine ? j : j - 1)
                if (k > 0 || opensLine) && end > start
                    && ((k > 0 && !pango[start]) || (start + 1 ..< end).contains(where: { pango[$0] })) {
                    result.append(Int32(start)); result.append(Int32(end))
                }
                if k < breaks.count { start = breaks[k] }
            }
            return true
        }
        return told ? result : []
    }

    /// A space, a tab or a line end: a line may start after it, and a word attribute ending
    /// before it adds no break.
    @inline(__always) private static func isBlank(_ v: UInt32) -> Bool { v == 0x20 || v == 0x09 || v == 0x0A }

    /// ICU line break iterators, one per thread at a time (creating one loads its rules:
    /// far slower than pointing a kept one at new text).
    private final class Breakers: @unchecked Sendable {
        static let shared = Breakers()
        private let idle = Mutex<[UnsafeMutableRawPointer]>([])

        func with(_ body: (UnsafeMutableRawPointer) -> Bool) -> Bool {
            let kept = idle.withLock { $0.popLast() }
            guard let breaker = kept ?? loom_line_breaker_new("en") else { return false }
            let done = body(breaker)
            let returned = idle.withLock { list -> Bool in
                // As many as threads measure at once; more would only be closed later.
                guard list.count < 64 else { return false }
                list.append(breaker)
                return true
            }
            if !returned { loom_line_breaker_close(breaker) }
            return done
        }
    }
}
