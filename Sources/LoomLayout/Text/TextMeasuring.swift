// What the engine needs from a text measurer. The engine knows nothing about fonts or
// shaping; `LoomText` implements this protocol with Pango.

/// A font request: family name as the client wrote it (aliases are the measurer's job),
/// size in points, CSS weight (100–900) and italic.
public struct FontDescriptor: Hashable, Sendable {
    public var family: String
    public var size: Double
    public var weight: Int
    public var italic: Bool
    public init(family: String = "Helvetica", size: Double = 12, weight: Int = 400, italic: Bool = false) {
        self.family = family; self.size = size; self.weight = weight; self.italic = italic
    }
    /// What an attributed string gets when no font is given: Helvetica 12 pt.
    public static let attributedStringDefault = FontDescriptor()
}

/// One run of an attributed string. A nil font or letter spacing inherits the text's.
public struct TextSpan: Hashable, Sendable {
    public var text: String
    public var font: FontDescriptor?
    public var letterSpacing: Double?
    public init(text: String, font: FontDescriptor? = nil, letterSpacing: Double? = nil) {
        self.text = text; self.font = font; self.letterSpacing = letterSpacing
    }
}

/// `NSTextAlignment`.
public enum TextAlignment: String, Hashable, Sendable, CaseIterable {
    case left, center, right, justified, natural
}

/// `NSLineBreakMode` as `ASTextNode.truncationMode`.
public enum TruncationMode: String, Hashable, Sendable, CaseIterable {
    case tail, head, middle, clip, wordWrap, charWrap
}

/// Everything about a text that can change its measured size (an attributed string plus
/// the text node's line limit and truncation settings). Insets are not here: the text node
/// subtracts and adds them around the measurement, as ASTextNode does.
public struct TextAttributes: Hashable, Sendable {
    public var spans: [TextSpan]
    public var font: FontDescriptor
    /// CSS line height in points; nil = `normal` (from the font's metrics).
    public var lineHeight: Double?
    /// Extra space between lines (`NSParagraphStyle.lineSpacing`).
    public var lineSpacing: Double
    public var letterSpacing: Double
    public var alignment: TextAlignment
    /// 0 = no limit.
    public var maximumNumberOfLines: Int
    public var truncationMode: TruncationMode
    public var truncationText: String

    public init(spans: [TextSpan], font: FontDescriptor = .attributedStringDefault, lineHeight: Double? = nil,
                lineSpacing: Double = 0, letterSpacing: Double = 0, alignment: TextAlignment = .natural,
                maximumNumberOfLines: Int = 0, truncationMode: TruncationMode = .wordWrap,
                truncationText: String = "\u{2026}") {
        self.spans = spans; self.font = font; self.lineHeight = lineHeight; self.lineSpacing = lineSpacing
        self.letterSpacing = letterSpacing; self.alignment = alignment
        self.maximumNumberOfLines = maximumNumberOfLines; self.truncationMode = truncationMode
        self.truncationText = truncationText
    }

    /// The whole string, spans concatenated.
    public var string: String { spans.count == 1 ? spans[0].text : spans.map(\.text).joined() }
}

/// The answer of a measurement in a container of a given size.
public struct TextMeasurement: Hashable, Sendable {
    /// The used rect: width of the longest laid-out line, height of the visible lines.
    /// Not clamped to the container and not rounded; the text node does both.
    public var size: Size
    /// Visible lines.
    public var lineCount: Int
    /// Whether text was cut (line limit or container height) and the truncation text shown.
    public var truncated: Bool
    /// Ascender of the first character's font (with the paragraph's line height rules, §9.4).
    public var ascender: Double
    /// Descender of the last character's font (negative for normal fonts).
    public var descender: Double
    /// Characters of the text that no available font has (measured as the .notdef box),
    /// distinct and ascending; empty for nearly every text.
    public var missingCodePoints: [UInt32]

    public init(size: Size, lineCount: Int, truncated: Bool, ascender: Double, descender: Double,
                missingCodePoints: [UInt32] = []) {
        self.size = size; self.lineCount = lineCount; self.truncated = truncated
        self.ascender = ascender; self.descender = descender; self.missingCodePoints = missingCodePoints
    }
}

/// One laid-out line of a text (`options.includeText`), in the text's own space (insets not
/// included): what a client needs to draw exactly the lines the measurement found.
public struct TextLine: Hashable, Sendable {
    /// The characters drawn (white space collapsed as laid out, without the line's trailing
    /// white space and paragraph separator; on a truncated last line, with the truncation text).
    public var text: String
    /// The line's range in the text's string, in UTF-16 code units: from its first character
    /// to where the next line starts (so the ranges of the lines cover the string in order).
    public var location: Int
    public var length: Int
    /// Top of the line box, from the top of the first line (line spacing included).
    public var y: Double
    /// CSS width of the line (on a truncated last line, with the truncation text).
    public var width: Double
    public var height: Double
    /// The baseline, from the top of the first line.
    public var baseline: Double
    /// Whether the line's paragraph runs right to left (where `natural` alignment puts it).
    public var rightToLeft: Bool
    /// Families of the fonts that draw the line's characters, in order of first use.
    public var fonts: [String]
    public init(text: String, location: Int, length: Int, y: Double, width: Double, height: Double,
                baseline: Double, rightToLeft: Bool, fonts: [String]) {
        self.text = text; self.location = location; self.length = length; self.y = y; self.width = width
        self.height = height; self.baseline = baseline; self.rightToLeft = rightToLeft; self.fonts = fonts
    }
}

/// The visible lines of a text in a container, and for a truncated text what is shown.
public struct TextLines: Hashable, Sendable {
    public var lines: [TextLine]
    /// A truncated text's visible string: the string up to its last visible line, then that
    /// line as drawn (with the truncation text); nil when not truncated.
    public var truncatedString: String?
    public init(lines: [TextLine], truncatedString: String? = nil) {
        self.lines = lines; self.truncatedString = truncatedString
    }
}

/// Errors a measurer reports for inputs it cannot honour (an unknown family, say). The
/// service checks fonts when it decodes a request, so layout itself never fails.
public struct TextMeasuringError: Error, Hashable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// A text measurer. Implementations must be safe to call from many threads at once.
public protocol TextMeasuring: AnyObject, Sendable {
    /// Lay `text` out in a container of `containerSize` (either component may be +inf)
    /// and report the used size, lines, truncation and baseline metrics.
    func measure(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement
    /// The same answer as `measure(_:in:)`, with a memo the caller keeps for this one text
    /// (a text node keeps one): a measurer may remember its answers there and derive later
    /// ones from them, and keep what it computes once per text. By default the memo is unused.
    func measure(_ text: TextAttributes, in containerSize: Size, memo: inout TextMeasurementMemo) -> TextMeasurement
    /// The same answer again, for a layout pass with a budget: a measurer whose work on one
    /// text can take long checks `budget.shouldStop()` as it goes and may then return any
    /// answer (the pass is thrown away), but must not keep that answer in its caches. By
    /// default the budget is not looked at.
    func measure(_ text: TextAttributes, in containerSize: Size, memo: inout TextMeasurementMemo,
                 budget: LayoutBudget?) -> TextMeasurement
    /// nil when the font can be used; otherwise why not (e.g. unknown family).
    func validate(_ font: FontDescriptor) -> TextMeasuringError?
    /// The visible lines of `text` in `containerSize`, agreeing with `measure(_:in:)` (line
    /// count, widths, heights, truncation); not cached, for responses that ask for them.
    /// nil by default: a measurer that cannot tell.
    func lines(_ text: TextAttributes, in containerSize: Size) -> TextLines?
}

extension TextMeasuring {
    public func lines(_ text: TextAttributes, in containerSize: Size) -> TextLines? { nil }
    public func measure(_ text: TextAttributes, in containerSize: Size, memo: inout TextMeasurementMemo) -> TextMeasurement {
        measure(text, in: containerSize)
    }
    public func measure(_ text: TextAttributes, in containerSize: Size, memo: inout TextMeasurementMemo,
                        budget: LayoutBudget?) -> TextMeasurement {
        measure(text, in: containerSize, memo: &memo)
    }
}

/// What a caller keeps between measurements of one text, for the measurer's use: its last
/// two answers with their containers, and a fingerprint of the attributes. The caller only
/// stores it; it belongs to one text and one measurer (`owner`), and is cleared when
/// another measurer is used.
public struct TextMeasurementMemo: Sendable {
    public struct Entry: Sendable {
        public var container: Size
        public var measurement: TextMeasurement
        public init(container: Size, measurement: TextMeasurement) {
            self.container = container; self.measurement = measurement
        }
    }
    public var recent: Entry?
    public var earlier: Entry?
    /// A hash of the attributes, if the measurer wants one (its own choice of hash).
    public var attributesHash: Int?
    /// A digest of the text node's canonical record, when whoever built the node computed
    /// one (the service does, for its cache keys): the attributes, style and insets, so equal
    /// digests mean equal attributes (up to spellings that measure alike) and a measurer may
    /// key its answers by it instead of hashing and comparing the attributes. Not the
    /// measurer's: kept when another measurer claims the memo.
    public var recordDigest: ElementDigest?
    /// The measurer the memo belongs to (held, so that no other measurer can ever take its
    /// place at the same address).
    public private(set) var owner: (any TextMeasuring)?

    public init(recordDigest: ElementDigest? = nil) { self.recordDigest = recordDigest }

    /// Makes `measurer` the owner, forgetting what another measurer kept.
    public mutating func claim(for measurer: TextMeasuring) {
        if owner !== measurer { self = TextMeasurementMemo(recordDigest: recordDigest); owner = measurer }
    }

    /// Remembers an answer (the older of the two kept is forgotten).
    public mutating func remember(_ measurement: TextMeasurement, in container: Size) {
        earlier = recent
        recent = Entry(container: container, measurement: measurement)
    }
}
