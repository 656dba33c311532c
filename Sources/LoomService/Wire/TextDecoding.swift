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

    /// Reads one text member (its name is on the path).
    mutating func textMember(_ field: ElementField, _ t: inout TextFields) throws {
        switch field {
        case .text: t.text = try r.string()
        case .spans: t.spans = try spans()
        case .font: t.font = try font()
        case .lineHeight:
            let d = try r.number()
            guard d > 0 && d <= TextLimits.maxLineHeight else {
                throw r.fail("lineHeight must be > 0 (and at most \(Int(TextLimits.maxLineHeight)))")
            }
            t.lineHeight = d
        case .lineSpacing:
            // A button title's (a text element's is read with the stack's, and checked in `build`).
            let d = try r.nonNegative()
            guard d <= TextLimits.maxLineHeight else { throw r.fail("lineSpacing must be at most \(Int(TextLimits.maxLineHeight))") }
            t.lineSpacing = d
        case .letterSpacing: t.letterSpacing = try Self.letterSpacing(&r)
        case .alignment: t.alignment = try r.name(Self.textAlignments)
        case .maximumNumberOfLines:
            let n = try r.integer()
            guard n <= TextLimits.maxLines else { throw r.fail("maximumNumberOfLines must be at most \(TextLimits.maxLines) (0 = no limit)") }
            t.maximumNumberOfLines = n
        case .truncationMode: t.truncationMode = try r.name(Self.truncationModes)
        case .truncationText:
            let s = try r.string()
            guard s.utf8.count <= TextLimits.maxTruncationTextBytes else {
                throw WireError.tooLarge("truncationText is longer than \(TextLimits.maxTruncationTextBytes) bytes", path: r.path.rendered)
            }
            t.truncationText = s
        case .textContainerInset: t.textContainerInset = try r.insets(allowInfinite: false)
        default: preconditionFailure("not a text member: \(field)")
        }
    }

    /// A letter spacing within `TextLimits.maxLetterSpacing` either way.
    static func letterSpacing(_ r: inout WireReader) throws -> Double {
        let d = try r.number()
        guard abs(d) <= TextLimits.maxLetterSpacing else {
            throw r.fail("letterSpacing must be between -\(Int(TextLimits.maxLetterSpacing)) and \(Int(TextLimits.maxLetterSpacing))")
        }
        return d
    }

    enum FontField: Int, CaseIterable { case family, size, weight, italic }
    static let fontFields = NameTable(FontField.allCases.map { ("\($0)", $0) })

    mutating func font() throws -> FontPatch { try Self.font(&r, fontFieldNames) }

    /// A `font` object (`names`: the decoder's `fontFieldNames`).
    static func font(_ r: inout WireReader, _ names: NameTable<FontField>) throws -> FontPatch {
        var p = FontPatch()
        let (_, unknown) = try r.members(names, "font") { r, field in
            switch field {
            case .family:
                let name = try r.string()
                guard !name.isEmpty else { throw r.fail("family must not be empty") }
                p.family = name
            case .size:
                let d = try r.number()
                guard d > 0 && d <= 1000 else { throw r.fail("size must be > 0 (and at most 1000)") }
                p.size = d
            case .weight:
                if try r.scanner.valueStart() == UInt8(ascii: "\"") {
                    let name = try r.string()
                    guard let w = Self.weightNames[name.lowercased()] else {
                        throw r.fail("'\(name)' is not a weight (100–900 or a name such as \"bold\")")
                    }
                    p.weight = w
                } else {
                    let d = try r.number()
                    guard d >= 1 && d <= 1000 else { throw r.fail("weight must be between 1 and 1000 (CSS weights, 400 = regular)") }
                    p.weight = Int(d.rounded())
                }
            case .italic: p.italic = try r.bool()
            }
        }
        try r.finish(unknown, "font")
        return p
    }

    enum SpanField: Int, CaseIterable { case text, font, letterSpacing }
    static let spanFields = NameTable(SpanField.allCases.map { ("\($0)", $0) })

    mutating func spans() throws -> [(text: String, font: FontPatch?, letterSpacing: Double?)] {
        let b = try r.scanner.valueStart()
        guard b == UInt8(ascii: "[") else { throw r.typeError("'spans' must be an array", b) }
        var out: [(text: String, font: FontPatch?, letterSpacing: Double?)] = []
        guard try r.scanner.beginArray() else { return out }
        repeat {
            guard out.count < TextLimits.maxSpans else {
                throw WireError.tooLarge("a text holds at most \(TextLimits.maxSpans) spans", path: r.path.rendered)
            }
            r.path.push(out.count)
            var text: String?, font: FontPatch?, letterSpacing: Double?
            let fontNames = fontFieldNames
            let (_, unknown) = try r.members(Self.spanFields, "a span") { r, field in
                switch field {
                case .text: text = try r.string()
                case .font: font = try Self.font(&r, fontNames)
                case .letterSpacing: letterSpacing = try Self.letterSpacing(&r)
                }
            }
            guard let text else { throw r.fail("a span needs 'text'") }
            try r.finish(unknown, "a span")
            out.append((text, font, letterSpacing))
            r.path.pop()
        } while try r.scanner.nextItem()
        return out
    }

    /// A font the measurer has (the error names `family` under the font's path).
    private mutating func checked(_ font: FontDescriptor, at components: @autoclosure () -> [JSONPath.Component]) throws -> FontDescriptor {
        let known = firstFonts.count + fontVerdicts.count
        guard let problem = validate(font) else {
            if firstFonts.count + fontVerdicts.count > known && known >= TextLimits.maxFonts {
                for c in components() { r.path.push(c) }
                throw WireError.tooLarge("a request uses at most \(TextLimits.maxFonts) distinct fonts (family, size, weight, italic)",
                                         path: r.path.rendered)
            }
            return font
        }
        for c in components() { r.path.push(c) }
        throw r.fail(problem.message, at: "family")
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

    /// The attributed string and insets `t` describes (`what` names it in errors).
    mutating func textAttributes(_ t: TextFields, what: String) throws -> (TextAttributes, EdgeInsets) {
        guard textMeasurer != nil else { throw r.fail("text is not available: the service was started without a text measurer") }
        hasText = true
        var font = FontDescriptor.attributedStringDefault
        if let patch = t.font {
            font = try checked(patch.applied(to: .attributedStringDefault), at: [.name("font")])
        } else if let problem = validate(font) {
            throw r.fail("the default font is not available: \(problem.message)")
        }
        let spans: [TextSpan]
        switch (t.text, t.spans) {
        case (let text?, nil): spans = [TextSpan(text: text)]
        case (nil, let written?):
            spans = try written.enumerated().map { k, span in
                let f = try span.font.map { try checked($0.applied(to: font), at: [.name("spans"), .index(k), .name("font")]) }
                return TextSpan(text: span.text, font: f, letterSpacing: span.letterSpacing)
            }
        case (nil, nil): throw r.fail("\(what) needs 'text' or 'spans'")
        case (_?, _?): throw r.fail("give 'text' or 'spans', not both", at: "spans")
        }
        // Checked before anything is measured: a text's cost grows with its length.
        let length = spans.reduce(0) { $0 + $1.text.utf8.count }
        if length > limits.maxTextBytes {
            throw WireError.tooLarge("the text is \(length) bytes long; a text holds at most \(limits.maxTextBytes)",
                                     path: r.path.rendered(appending: t.text != nil ? "text" : "spans"))
        }
        var a = TextAttributes(spans: spans, font: font)
        if let v = t.lineHeight { a.lineHeight = v }
        if let v = t.lineSpacing { a.lineSpacing = v }
        if let v = t.letterSpacing { a.letterSpacing = v }
        if let v = t.alignment { a.alignment = v }
        if let v = t.maximumNumberOfLines { a.maximumNumberOfLines = v }
        if let v = t.truncationMode { a.truncationMode = v }
        if let v = t.truncationText { a.truncationText = v }
        textBytes += length + a.truncationText.utf8.count
        return (a, t.textContainerInset ?? .zero)
    }

    // MARK: button

    enum ImageField: Int, CaseIterable { case intrinsicSize, url }
    static let imageFields = NameTable(ImageField.allCases.map { ("\($0)", $0) })

    /// Reads one button member (its name is on the path).
    mutating func buttonMember(_ field: ElementField, _ b: inout ButtonFields) throws {
        switch field {
        case .title:
            var t = TextFields()
            var seen: UInt64 = 0, unknown: String?
            if try r.beginObject("title") {
                repeat {
                    guard let k = try r.member(Self.elementFields, seen: &seen, unknown: &unknown) else { continue }
                    let f = ElementField(rawValue: k)!
                    guard Self.textFieldMask & f.bit != 0 else {
                        try r.scanner.skipValue()
                        if unknown == nil { unknown = f.name }
                        continue
                    }
                    r.path.push(Self.elementFields.staticNames[k])
                    try textMember(f, &t)
                    r.path.pop()
                } while try r.scanner.nextMember()
            }
            let (attributes, inset) = try textAttributes(t, what: "a button title")
            try r.finish(unknown, "title")
            var titleStyle = LayoutElementStyle()
            titleStyle.flexShrink = 1
            b.title = TextNode(attributes: attributes, textContainerInset: inset, style: titleStyle)
        case .image:
            var intrinsic: Size?, url: String?
            let (_, unknown) = try r.members(Self.imageFields, "image") { r, field in
                switch field {
                case .intrinsicSize: intrinsic = try r.size("intrinsicSize")
                case .url: url = try r.string()
                }
            }
            try r.finish(unknown, "image")
            b.image = ImageNode(intrinsicSize: intrinsic, url: url)
        case .contentSpacing: b.contentSpacing = try r.number()
        case .laysOutHorizontally: b.laysOutHorizontally = try r.bool()
        case .contentHorizontalAlignment: b.contentHorizontalAlignment = try r.name(Self.horizontalAlignments)
        case .contentVerticalAlignment: b.contentVerticalAlignment = try r.name(Self.verticalAlignments)
        case .contentEdgeInsets: b.contentEdgeInsets = try r.insets(allowInfinite: false)
        case .imageAlignment: b.imageAlignment = try r.name(Self.imageAlignments)
        default: preconditionFailure("not a button member: \(field)")
        }
    }

    func button(_ b: ButtonFields, _ style: LayoutElementStyle) -> LayoutElement {
        ButtonNode(title: b.title, image: b.image, contentSpacing: b.contentSpacing, laysOutHorizontally: b.laysOutHorizontally,
                   contentHorizontalAlignment: b.contentHorizontalAlignment, contentVerticalAlignment: b.contentVerticalAlignment,
                   contentEdgeInsets: b.contentEdgeInsets, imageAlignment: b.imageAlignment, style: style)
    }
}
