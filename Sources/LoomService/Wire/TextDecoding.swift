import LoomLayout

/// Bounds on a text's numbers, checked when it is decoded: within them the measurer's
/// arithmetic (Pango's 32-bit units among it) cannot overflow. The text's length is a
/// `DecodeLimits` setting.
public enum TextLimits {
    public static let maxLetterSpacing = 1000.0
    public static let maxLineHeight = 10_000.0
    public static let maxLines = 100_000
    public static let maxTruncationTextBytes = 1000
    /// Runs of one attributed string (each may change the font: Pango itemizes per run).
    public static let maxSpans = 1000
    /// Distinct fonts (family, size, weight, italic) in one request: each new size loads a
    /// font, and fontconfig's cost grows with the fonts one text holds.
    public static let maxFonts = 64
}

/// The `text` element's members and a `button`'s, as `RequestDecoder` reads them.
extension DecodeState {
    /// A font as written: only the parts given, applied over a base font once the element's
    /// own font is known (a span's font may come before the element's).
    struct FontPatch {
        var family: String?
        var size: Double?
        var weight: Int?
        var italic: Bool?
        func applied(to base: FontDescriptor) -> FontDescriptor {
            var f = base
            if let family { f.family = family }
            if let size { f.size = size }
            if let weight { f.weight = weight }
            if let italic { f.italic = italic }
            return f
        }
    }

    struct TextFields {
        var text: String?
        var spans: [(text: String, font: FontPatch?, letterSpacing: Double?)]?
        var font: FontPatch?
        var lineHeight: Double?
        var lineSpacing: Double?
        var letterSpacing: Double?
        var alignment: TextAlignment?
        var maximumNumberOfLines: Int?
        var truncationMode: TruncationMode?
        var truncationText: String?
        var textContainerInset: EdgeInsets?
    }

    struct ButtonFields {
        var title: TextNode?
        var image: ImageNode?
        var contentSpacing = 8.0
        var laysOutHorizontally = true
        var contentHorizontalAlignment = HorizontalAlignment.middle
        var contentVerticalAlignment = VerticalAlignment.center
        var contentEdgeInsets = EdgeInsets.zero
        var imageAlignment = ButtonNodeImageAlignment.beginning
    }

    static let textAlignments = NameTable(cases: TextAlignment.self)
    static let truncationModes = NameTable(cases: TruncationMode.self)

    static let weightNames: [String: Int] = [
        "thin": 100, "ultralight": 200, "extralight": 200, "light": 300, "normal": 400, "regular": 400,
        "medium": 500, "semibold": 600, "demibold": 600, "bold": 700, "extrabold": 800, "heavy": 800, "black": 900,
    ]

    /// The weight names in weight order, for messages.
    static let weightNameList = weightNames.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key).joined(separator: ", ")

    /// Reads one text member (its name is on the path).
    mutating func textMember(_ field: ElementField, _ text: inout TextFields) throws {
        switch field {
        case .text: text.text = try reader.string()
        case .spans: text.spans = try spans()
        case .font: text.font = try font()
        case .lineHeight:
            let d = try reader.number()
            guard d > 0 && d <= TextLimits.maxLineHeight else {
                throw reader.fail("lineHeight must be > 0 (and at most \(Int(TextLimits.maxLineHeight)))")
            }
            text.lineHeight = d
        case .lineSpacing:
            // A button title's (a text element's is read with the stack's, and checked in `textNode`).
            let d = try reader.nonNegative()
            guard d <= TextLimits.maxLineHeight else { throw reader.fail("lineSpacing must be at most \(Int(TextLimits.maxLineHeight))") }
            text.lineSpacing = d
        case .letterSpacing: text.letterSpacing = try Self.letterSpacing(&reader)
        case .alignment: text.alignment = try reader.name(Self.textAlignments)
        case .maximumNumberOfLines:
            let n = try reader.integer()
            guard n <= TextLimits.maxLines else { throw reader.fail("maximumNumberOfLines must be at most \(TextLimits.maxLines) (0 = no limit)") }
            text.maximumNumberOfLines = n
        case .truncationMode: text.truncationMode = try reader.name(Self.truncationModes)
        case .truncationText:
            let s = try reader.string()
            guard s.utf8.count <= TextLimits.maxTruncationTextBytes else {
                throw WireError.tooLarge("truncationText is longer than \(TextLimits.maxTruncationTextBytes) bytes", path: reader.path.rendered)
            }
            text.truncationText = s
        case .textContainerInset: text.textContainerInset = try reader.insets(allowInfinite: false)
        default: preconditionFailure("not a text member: \(field)")
        }
    }

    /// A letter spacing within `TextLimits.maxLetterSpacing` either way.
    static func letterSpacing(_ reader: inout WireReader) throws -> Double {
        let d = try reader.number()
        guard abs(d) <= TextLimits.maxLetterSpacing else {
            throw reader.fail("letterSpacing must be between -\(Int(TextLimits.maxLetterSpacing)) and \(Int(TextLimits.maxLetterSpacing))")
        }
        return d
    }

    enum FontField: Int, CaseIterable { case family, size, weight, italic }
    static let fontFields = NameTable(FontField.allCases.map { ("\($0)", $0) })

    mutating func font() throws -> FontPatch { try Self.font(&reader, fontFieldNames) }

    /// A `font` object (`names`: the decoder's `fontFieldNames`).
    static func font(_ reader: inout WireReader, _ names: NameTable<FontField>) throws -> FontPatch {
        var patch = FontPatch()
        let (_, unknown) = try reader.members(names, "font") { reader, field in
            switch field {
            case .family:
                let name = try reader.string()
                guard !name.isEmpty else { throw reader.fail("family must not be empty") }
                patch.family = name
            case .size:
                let d = try reader.number()
                guard d > 0 && d <= 1000 else { throw reader.fail("size must be > 0 (and at most 1000)") }
                patch.size = d
            case .weight:
                if try reader.scanner.valueStart() == UInt8(ascii: "\"") {
                    let name = try reader.string()
                    guard let w = Self.weightNames[name.lowercased()] else {
                        throw reader.fail("'\(name)' is not a weight: a number 1…1000 (400 = regular, 700 = bold) or one of \(Self.weightNameList)")
                    }
                    patch.weight = w
                } else {
                    let d = try reader.number()
                    guard d >= 1 && d <= 1000 else { throw reader.fail("weight must be between 1 and 1000 (CSS weights, 400 = regular)") }
                    patch.weight = Int(d.rounded())
                }
            case .italic: patch.italic = try reader.bool()
            }
        }
        try reader.finish(unknown, "font")
        return patch
    }

    enum SpanField: Int, CaseIterable { case text, font, letterSpacing }
    static let spanFields = NameTable(SpanField.allCases.map { ("\($0)", $0) })

    mutating func spans() throws -> [(text: String, font: FontPatch?, letterSpacing: Double?)] {
        let b = try reader.scanner.valueStart()
        guard b == UInt8(ascii: "[") else { throw reader.typeError("'spans' must be an array", b) }
        var out: [(text: String, font: FontPatch?, letterSpacing: Double?)] = []
        guard try reader.scanner.beginArray() else { return out }
        repeat {
            guard out.count < TextLimits.maxSpans else {
                throw WireError.tooLarge("a text holds at most \(TextLimits.maxSpans) spans", path: reader.path.rendered)
            }
            reader.path.push(out.count)
            var text: String?, font: FontPatch?, letterSpacing: Double?
            let fontNames = fontFieldNames
            let (_, unknown) = try reader.members(Self.spanFields, "a span") { reader, field in
                switch field {
                case .text: text = try reader.string()
                case .font: font = try Self.font(&reader, fontNames)
                case .letterSpacing: letterSpacing = try Self.letterSpacing(&reader)
                }
            }
            guard let text else { throw reader.fail("a span needs 'text'") }
            try reader.finish(unknown, "a span")
            out.append((text, font, letterSpacing))
            reader.path.pop()
        } while try reader.scanner.nextItem()
        return out
    }

    /// A font the measurer has (the error names `family` under the font's path).
    private mutating func checked(_ font: FontDescriptor, at components: @autoclosure () -> [JSONPath.Component]) throws -> FontDescriptor {
        let known = firstFonts.count + fontVerdicts.count
        guard let problem = validate(font) else {
            if firstFonts.count + fontVerdicts.count > known && known >= TextLimits.maxFonts {
                for c in components() { reader.path.push(c) }
                throw WireError.tooLarge("a request uses at most \(TextLimits.maxFonts) distinct fonts (family, size, weight, italic)",
                                         path: reader.path.rendered)
            }
            return font
        }
        for c in components() { reader.path.push(c) }
        throw reader.fail(problem.message, at: "family")
    }

    /// The measurer's verdict on `font`, asked once per distinct font in a request (feeds
    /// repeat a handful of fonts hundreds of times). The first few fonts are found by a short
    /// linear search (comparing a font is cheaper than hashing it), the rest in a dictionary.
    private mutating func validate(_ font: FontDescriptor) -> TextMeasuringError? {
        for k in firstFonts.indices where firstFonts[k].font == font { return firstFonts[k].verdict }
        if let known = fontVerdicts[font] { return known }
        let verdict = textMeasurer?.validate(font)
        if firstFonts.count < Self.firstFontsKept {
            firstFonts.append((font, verdict))
        } else {
            fontVerdicts[font] = verdict
        }
        return verdict
    }
    static let firstFontsKept = 8

    /// The attributed string and insets `text` describes (`what` names it in errors).
    mutating func textAttributes(_ text: TextFields, what: String) throws -> (TextAttributes, EdgeInsets) {
        guard textMeasurer != nil else { throw reader.fail("text is not available: the service was started without a text measurer") }
        hasText = true
        var font = FontDescriptor.attributedStringDefault
        if let patch = text.font {
            font = try checked(patch.applied(to: .attributedStringDefault), at: [.name("font")])
        } else if let problem = validate(font) {
            throw reader.fail("the default font is not available: \(problem.message)")
        }
        let spans: [TextSpan]
        switch (text.text, text.spans) {
        case (let string?, nil): spans = [TextSpan(text: string)]
        case (nil, let written?):
            spans = try written.enumerated().map { k, span in
                let f = try span.font.map { try checked($0.applied(to: font), at: [.name("spans"), .index(k), .name("font")]) }
                return TextSpan(text: span.text, font: f, letterSpacing: span.letterSpacing)
            }
        case (nil, nil): throw reader.fail("\(what) needs 'text' or 'spans'")
        case (_?, _?): throw reader.fail("give 'text' or 'spans', not both", at: "spans")
        }
        // Checked before anything is measured: a text's cost grows with its length.
        let length = spans.reduce(0) { $0 + $1.text.utf8.count }
        if length > limits.maxTextBytes {
            throw WireError.tooLarge("the text is \(length) bytes long; a text holds at most \(limits.maxTextBytes)",
                                     path: reader.path.rendered(appending: text.text != nil ? "text" : "spans"))
        }
        var attributes = TextAttributes(spans: spans, font: font)
        if let v = text.lineHeight { attributes.lineHeight = v }
        if let v = text.lineSpacing { attributes.lineSpacing = v }
        if let v = text.letterSpacing { attributes.letterSpacing = v }
        if let v = text.alignment { attributes.alignment = v }
        if let v = text.maximumNumberOfLines { attributes.maximumNumberOfLines = v }
        if let v = text.truncationMode { attributes.truncationMode = v }
        if let v = text.truncationText { attributes.truncationText = v }
        textBytes += length + attributes.truncationText.utf8.count
        return (attributes, text.textContainerInset ?? .zero)
    }

    // MARK: button

    enum ImageField: Int, CaseIterable { case intrinsicSize, url }
    static let imageFields = NameTable(ImageField.allCases.map { ("\($0)", $0) })

    /// Reads one button member (its name is on the path).
    mutating func buttonMember(_ field: ElementField, _ button: inout ButtonFields) throws {
        switch field {
        case .title:
            var title = TextFields()
            var seen: UInt64 = 0, unknown: String?
            if try reader.beginObject("title") {
                repeat {
                    guard let k = try reader.member(ElementField.names, seen: &seen, unknown: &unknown) else { continue }
                    let member = ElementField(rawValue: k)!
                    guard ElementField.textFieldMask & member.bit != 0 else {
                        try reader.scanner.skipValue()
                        if unknown == nil { unknown = member.name }
                        continue
                    }
                    reader.path.push(ElementField.names.staticNames[k])
                    try textMember(member, &title)
                    reader.path.pop()
                } while try reader.scanner.nextMember()
            }
            let (attributes, inset) = try textAttributes(title, what: "a button title")
            try reader.finish(unknown, "title")
            var titleStyle = LayoutElementStyle()
            titleStyle.flexShrink = 1
            button.title = TextNode(attributes: attributes, textContainerInset: inset, style: titleStyle)
        case .image:
            var intrinsic: Size?, url: String?
            let (_, unknown) = try reader.members(Self.imageFields, "image") { reader, field in
                switch field {
                case .intrinsicSize: intrinsic = try reader.size("intrinsicSize")
                case .url: url = try reader.string()
                }
            }
            try reader.finish(unknown, "image")
            button.image = ImageNode(intrinsicSize: intrinsic, url: url)
        case .contentSpacing: button.contentSpacing = try reader.number()
        case .laysOutHorizontally: button.laysOutHorizontally = try reader.bool()
        case .contentHorizontalAlignment: button.contentHorizontalAlignment = try reader.name(ValueNames.horizontalAlignments)
        case .contentVerticalAlignment: button.contentVerticalAlignment = try reader.name(ValueNames.verticalAlignments)
        case .contentEdgeInsets: button.contentEdgeInsets = try reader.insets(allowInfinite: false)
        case .imageAlignment: button.imageAlignment = try reader.name(ValueNames.imageAlignments)
        default: preconditionFailure("not a button member: \(field)")
        }
    }

    /// A text element.
    /// `fields` is read only; passed in place (a copy of it per text node otherwise).
    mutating func textNode(_ fields: inout ElementFields, seen: UInt64) throws -> LayoutElement {
        var text = fields.extras?.text ?? TextFields()
        // Read with the stack's `lineSpacing` member; checked here.
        if seen & ElementField.lineSpacing.bit != 0 {
            guard fields.lineSpacing >= 0 else { throw reader.fail("must be >= 0", at: "lineSpacing") }
            guard fields.lineSpacing <= TextLimits.maxLineHeight else {
                throw reader.fail("lineSpacing must be at most \(Int(TextLimits.maxLineHeight))", at: "lineSpacing")
            }
            text.lineSpacing = fields.lineSpacing
        }
        let (attributes, inset) = try textAttributes(text, what: "a text element")
        return TextNode(attributes: attributes, textContainerInset: inset, style: fields.style)
    }

    /// Static: it needs nothing of the decoder (a method not inlined would copy the decoder).
    static func button(_ button: ButtonFields, _ style: LayoutElementStyle) -> LayoutElement {
        ButtonNode(title: button.title, image: button.image, contentSpacing: button.contentSpacing, laysOutHorizontally: button.laysOutHorizontally,
                   contentHorizontalAlignment: button.contentHorizontalAlignment, contentVerticalAlignment: button.contentVerticalAlignment,
                   contentEdgeInsets: button.contentEdgeInsets, imageAlignment: button.imageAlignment, style: style)
    }
}
