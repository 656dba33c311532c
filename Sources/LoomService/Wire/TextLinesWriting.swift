import LoomLayout

/// A text entry's lines for `options.includeText`: `"textLines"` (each line's text, UTF-16
/// range, box and baseline in the entry's frame, direction and fonts) and, when the text is
/// truncated, `"truncatedString"`. Numbers are points, rounded to 1/1000 (not to the pixel
/// grid: they are where the measurement put things, inside frames that are pixel-ceiled).
enum TextLinesWriting {
    static func write(_ node: TextNode, _ info: TextLayoutInfo, frameWidth: Double, measurer: TextMeasuring,
                      into out: inout ByteSink) {
        guard let found = measurer.lines(node.attributes, in: info.container) else { return }
        let inset = node.textContainerInset
        out.append(#","textLines":["#)
        for (k, line) in found.lines.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(#"{"text":"#)
            out.string(line.text)
            out.append(#","location":"#)
            out.int(line.location)
            out.append(#","length":"#)
            out.int(line.length)
            out.append(#","x":"#)
            out.number(rounded(node.lineOffset(width: line.width, rightToLeft: line.rightToLeft, frameWidth: frameWidth)))
            out.append(#","y":"#)
            out.number(rounded(inset.top + line.y))
            out.append(#","width":"#)
            out.number(rounded(line.width))
            out.append(#","height":"#)
            out.number(rounded(line.height))
            out.append(#","baseline":"#)
            out.number(rounded(inset.top + line.baseline))
            out.append(#","rightToLeft":"#)
            out.bool(line.rightToLeft)
            out.append(#","fonts":["#)
            for (j, family) in line.fonts.enumerated() {
                if j > 0 { out.append(UInt8(ascii: ",")) }
                out.string(family)
            }
            out.append("]}")
        }
        out.append(UInt8(ascii: "]"))
        if let shown = found.truncatedString {
            out.append(#","truncatedString":"#)
            out.string(shown)
        }
    }

    /// To 1/1000 pt (no negative zero).
    static func rounded(_ v: Double) -> Double {
        guard v.isFinite else { return 0 }
        let r = (v * 1000).rounded() / 1000
        return r == 0 ? 0 : r
    }
}

/// What one `options.includeText` answer may carry. Its lines are laid out again after the
/// layout pass, outside the layout budget, and each becomes an object of about 150 bytes:
/// these bounds keep that work and that answer small whatever the request holds.
public enum TextLinesLimits {
    /// Lines written in one answer.
    public static let maxLines = 20_000
    /// UTF-8 bytes of the texts whose lines are written in one answer.
    public static let maxTextBytes = 512 * 1024

    /// Throws 413 `too_large` at `options.includeText` when the texts of the laid-out tree
    /// hold more lines or bytes than one answer may carry (counted as the encoder will
    /// visit them: a text laid out twice counts twice).
    public static func check(root: LayoutElement, layout: Layout, scale: Double) throws {
        var counter = Counter()
        if let text = layout.text, let node = root as? TextNode { counter.add(node, text) }
        LayoutFlattening(grid: PixelGrid(scale: scale)).walk(&counter, below: root, layout: layout, scope: ())
        if counter.lines > maxLines {
            throw WireError.tooLarge("includeText would write \(counter.lines) lines, more than the \(maxLines) one answer may carry: ask without includeText, or for fewer texts",
                                     path: "options.includeText")
        }
        if counter.bytes > maxTextBytes {
            throw WireError.tooLarge("includeText would lay out \(counter.bytes) bytes of text again, more than the \(maxTextBytes) one answer may: ask without includeText, or for fewer texts",
                                     path: "options.includeText")
        }
    }

    private struct Counter: FlatLayoutVisitor {
        var lines = 0, bytes = 0
        mutating func add(_ node: TextNode, _ text: TextLayoutInfo) {
            lines += text.lineCount
            for span in node.attributes.spans { bytes += span.text.utf8.count }
        }
        mutating func enter(_ element: LayoutElement, _ layout: Layout, isNode: Bool, _ place: FlatPlacement, _ scope: ()) {
            if isNode, let text = layout.text, let node = element as? TextNode { add(node, text) }
        }
        mutating func leave(_ element: LayoutElement, isNode: Bool, _ scope: ()) {}
    }
}
