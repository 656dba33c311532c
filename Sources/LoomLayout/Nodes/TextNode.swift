/// `ASTextNode` (§9.2): measured by the context's text measurer in a container of the
/// offered max size less the insets; the used width (longest line), not the offered width,
/// plus the insets, at most the offer; then clamped into the range and pixel-ceiled.
/// Ascender and descender come from the fonts of the first and last characters (§9.4).
public final class TextNode: DisplayNode {
    public let attributes: TextAttributes
    public let textContainerInset: EdgeInsets
    /// The measurer's memo for this text (touched only by the thread measuring this node,
    /// like the element's own memo).
    private var measurementMemo = TextMeasurementMemo()
    /// UTF-8 bytes of the text and its truncation text: what each measurement is charged.
    public let characterCount: Int

    /// The digest of this node's canonical record (`TextMeasurementMemo.recordDigest`), set
    /// by whoever hashes the tree; the measurer may key its answers by it.
    public var recordDigest: ElementDigest? {
        get { measurementMemo.recordDigest }
        set { measurementMemo.recordDigest = newValue }
    }

    public init(attributes: TextAttributes, textContainerInset: EdgeInsets = .zero,
                style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.attributes = attributes
        self.textContainerInset = textContainerInset
        self.characterCount = attributes.spans.reduce(attributes.truncationText.utf8.count) { $0 + $1.text.utf8.count }
        super.init(style: style, id: id)
    }

    override public func calculateLayout(_ used: SizeRange, context: LayoutContext) -> Layout {
        let m = used.max
        let i = textContainerInset
        let container = Size(width: m.width - i.left - i.right, height: m.height - i.top - i.bottom)
        guard let measurer = context.textMeasurer else {
            preconditionFailure("a text node was laid out without a text measurer")
        }
        measurementMemo.claim(for: measurer)
        let measuredIn = Size(width: Swift.max(0, container.width), height: Swift.max(0, container.height))
        let measured = measurer.measure(attributes, in: measuredIn, memo: &measurementMemo, budget: context.budget)
        // Charged whether or not the measurer had the answer cached: the budget counts the
        // work the tree asks for.
        guard context.charge(LayoutCost(characters: characterCount, lines: measured.lineCount), at: self) else {
            return context.placeholder
        }
        // TextKit's used rect never exceeds the container.
        let textSize = Size(width: cgMin(measured.size.width, Swift.max(0, container.width)),
                            height: cgMin(measured.size.height, Swift.max(0, container.height)))
        let withInsets = Size(width: textSize.width + i.left + i.right, height: textSize.height + i.top + i.bottom)
        // std::fmin with the offered size (IEEE fmin: a NaN operand loses).
        let fitted = Size(width: Swift.min(withInsets.width, m.width), height: Swift.min(withInsets.height, m.height))
        return Layout(size: used.clamp(fitted), ascender: measured.ascender, descender: measured.descender,
                      text: TextLayoutInfo(lineCount: measured.lineCount, truncated: measured.truncated,
                                            missingCodePoints: measured.missingCodePoints, container: measuredIn),
                      grid: context.grid)
    }

    /// Where a line `width` wide starts in a frame `frameWidth` wide (insets included), as
    /// the text's alignment puts it (`justified` and `natural` by the paragraph's direction;
    /// a justified line is reported at its natural width).
    public func lineOffset(width: Double, rightToLeft: Bool, frameWidth: Double) -> Double {
        let i = textContainerInset
        let room = frameWidth - i.left - i.right - width
        switch attributes.alignment {
        case .left: return i.left
        case .right: return i.left + room
        case .center: return i.left + room / 2
        case .natural, .justified: return rightToLeft ? i.left + room : i.left
        }
    }
}
