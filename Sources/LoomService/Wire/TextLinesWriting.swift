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
