import LoomLayout

/// Builds a `LayoutRequest` from the request's bytes in one pass (no intermediate JSON
/// tree), with the exact path of the offending field in every error. Unknown fields are
/// errors; defaults are Texture's.
public struct RequestDecoder {
    public let limits: DecodeLimits
    public let textMeasurer: TextMeasuring?

    public init(limits: DecodeLimits = DecodeLimits(), textMeasurer: TextMeasuring? = nil) {
        self.limits = limits
        self.textMeasurer = textMeasurer
    }

    /// Parse and decode a request body.
    public func decode(body: [UInt8]) throws -> LayoutRequest {
        try body.withUnsafeBufferPointer { try decode(UnsafeBufferPointer(rebasing: $0[...]), document: $0) }
    }

    /// Decode the request at `range` of `body` (a batch item).
    public func decode(body: [UInt8], range: Range<Int>) throws -> LayoutRequest {
        try body.withUnsafeBufferPointer { try decode(UnsafeBufferPointer(rebasing: $0[range]), document: $0) }
    }

    private func decode(_ bytes: UnsafeBufferPointer<UInt8>, document: UnsafeBufferPointer<UInt8>) throws -> LayoutRequest {
        var state = DecodeState(bytes: bytes, limits: limits, textMeasurer: textMeasurer)
        do {
            return try state.request()
        } catch {
            // A body that is not JSON is reported as such, even where a field before its
            // syntax error is also wrong: the first syntax error of the whole document wins.
            do {
                try JSONScanner.validate(document, maxDepth: limits.jsonNesting)
            } catch let syntax as JSONParser.SyntaxError {
                throw Self.wireError(syntax)
            }
            if let syntax = error as? JSONParser.SyntaxError { throw Self.wireError(syntax) }
            throw error
        }
    }

    private static func wireError(_ e: JSONParser.SyntaxError) -> WireError {
        e.nestingLimit ? WireError.tooLarge("the tree is nested deeper than the limit") : WireError.malformed(e)
    }

    /// The byte ranges of the items of a batch body `{"items": [LayoutRequest, …]}`, after
    /// checking that the whole body is JSON of that shape.
    public func batchItems(body: [UInt8], maxItems: Int) throws -> [Range<Int>] {
        try body.withUnsafeBufferPointer { bytes in
            var s = JSONScanner(bytes: bytes, maxDepth: limits.batchNesting)
            var items: [Range<Int>] = []
            var shapeOK = false
            do {
                try s.beginDocument()
                if try s.valueStart() == UInt8(ascii: "{"), try s.beginObject() {
                    let key = try s.memberName()
                    if s.string(key) == "items", try s.valueStart() == UInt8(ascii: "[") {
                        if try s.beginArray() {
                            repeat {
                                _ = try s.valueStart()
                                let start = s.i
                                try s.skipValue()
                                items.append(start ..< s.i)
                            } while try s.nextItem()
                        }
                        shapeOK = try !s.nextMember()
                    }
                }
                if !shapeOK { try JSONScanner.validate(bytes, maxDepth: limits.batchNesting) } else { try s.endDocument() }
            } catch let e as JSONParser.SyntaxError {
                throw e.nestingLimit ? WireError.tooLarge("the batch is nested too deeply") : WireError.malformed(e)
            }
            guard shapeOK else { throw WireError.invalidSpec("a batch is {\"items\": [LayoutRequest, …]} and nothing else", path: "items") }
            guard items.count <= maxItems else { throw WireError.tooLarge("a batch holds at most \(maxItems) items", path: "items") }
            return items
        }
    }
}

/// The decoding of one request: the reader, the element count, the ids seen.
struct DecodeState: ~Copyable {
    var r: WireReader
    let limits: DecodeLimits
    let textMeasurer: TextMeasuring?
    var ids = Set<String>()
    var elementCount = 0
    var depth = 0
    var hasText = false
    var textBytes = 0
    /// Fonts checked in this request: the first `firstFontsKept`, then the rest.
    var firstFonts: [(font: FontDescriptor, verdict: TextMeasuringError?)] = []
    var fontVerdicts: [FontDescriptor: TextMeasuringError?] = [:]
    /// The tables read for every element, held here rather than read from their statics
    /// (a static is a lazy global: each read checks that it was made).
    let elementNames = DecodeState.elementFields
    let styleNames = DecodeState.styleFields
    let typeNames = DecodeState.elementTypes
    let alignSelfNames = DecodeState.alignSelfValues
    let directionNames = DecodeState.directions
    let justifyNames = DecodeState.justifyContents
    let alignItemsNames = DecodeState.alignItemsValues
    let allowedFieldMasks = DecodeState.allowedFields
    let fontFieldNames = DecodeState.fontFields

    init(bytes: UnsafeBufferPointer<UInt8>, limits: DecodeLimits, textMeasurer: TextMeasuring?) {
        r = WireReader(bytes: bytes, maxNesting: limits.jsonNesting)
        self.limits = limits
        self.textMeasurer = textMeasurer
    }

    // MARK: request

    enum RequestField: Int, CaseIterable { case sizeRange, scale, options, root }
    static let requestFields = NameTable(RequestField.allCases.map { ("\($0)", $0) })
    enum OptionsField: Int, CaseIterable { case includeSpecs }
    static let optionsFields = NameTable(OptionsField.allCases.map { ("\($0)", $0) })

    mutating func request() throws -> LayoutRequest {
        try r.scanner.beginDocument()
        var sizeRange = SizeRange.unconstrained
        var scale = 2.0
        var includeSpecs = false
        var root: LayoutElement?
        var seen: UInt64 = 0, unknown: String?
        if try r.beginObject("the request") {
            repeat {
                guard let k = try r.member(Self.requestFields, seen: &seen, unknown: &unknown) else { continue }
                let field = Self.requestFields.values[k]
                r.path.push(Self.requestFields.staticNames[k])
                switch field {
                case .sizeRange: sizeRange = try requestSizeRange()
                case .scale:
                    scale = try r.number()
                    guard scale > 0 && scale <= 100 else { throw r.fail("scale must be > 0 (and at most 100)") }
                case .options:
                    let (_, optUnknown) = try r.members(Self.optionsFields, "options") { r, _ in includeSpecs = try r.bool() }
                    try r.finish(optUnknown, "options")
                case .root: root = try element()
                }
                r.path.pop()
            } while try r.scanner.nextMember()
        }
        try r.scanner.endDocument()
        guard let root else { throw r.fail("the request needs 'root'", at: "root") }
        try r.finish(unknown, "the request")
        return LayoutRequest(sizeRange: sizeRange, root: root, scale: scale, includeSpecs: includeSpecs,
                             elementCount: elementCount, hasText: hasText, textBytes: textBytes)
    }

    enum RangeField: Int, CaseIterable { case min, max }
    static let rangeFields = NameTable(RangeField.allCases.map { ("\($0)", $0) })

    mutating func requestSizeRange() throws -> SizeRange {
        var range = SizeRange.unconstrained
        let (_, unknown) = try r.members(Self.rangeFields, "sizeRange") { r, field in
            let isMax = field == .max
            var size = isMax ? Size(width: .infinity, height: .infinity) : Size(width: 0, height: 0)
            let (_, sizeUnknown) = try r.members(WireReader.sizeFields, isMax ? "max" : "min") { r, side in
                // `max` sides may be null: unbounded.
                let value: Double
                if isMax, try r.scanner.valueStart() == UInt8(ascii: "n") {
                    try r.scanner.literal("null")
                    value = .infinity
                } else {
                    value = try r.nonNegative()
                }
                if side == .width { size.width = value } else { size.height = value }
            }
            try r.finish(sizeUnknown, isMax ? "max" : "min")
            if isMax { range.max = size } else { range.min = size }
        }
        try r.finish(unknown, "sizeRange")
        if range.min.width > range.max.width { throw r.fail("min.width must be <= max.width", at: "min") }
        if range.min.height > range.max.height { throw r.fail("min.height must be <= max.height", at: "min") }
        return range
    }

    // MARK: elements

    /// Every member an element may have; which ones a type accepts is `ElementType.fields`.
    /// Case names are the member names.
    enum ElementField: Int, CaseIterable {
        case type, id, style
        case direction, spacing, justifyContent, alignItems, flexWrap, alignContent, lineSpacing
        case horizontalAlignment, verticalAlignment, concurrent, children
        case insets, child, overlay, background, centeringOptions, sizingOptions
        case horizontalPosition, verticalPosition, sizingOption, ratio, sizing
        case corner, cornerLocation, offset, wrapsCorner, layout, intrinsicSize, url
        case text, spans, font, lineHeight, letterSpacing, alignment, maximumNumberOfLines, truncationMode, truncationText
        case textContainerInset
        case title, image, contentSpacing, laysOutHorizontally, contentHorizontalAlignment
        case contentVerticalAlignment, contentEdgeInsets, imageAlignment

        var bit: UInt64 { 1 << UInt64(rawValue) }
        var name: String { DecodeState.elementFields.names[rawValue] }
    }
    static let elementFields = NameTable(ElementField.allCases.map { ("\($0)", $0) })

    static func mask(_ fields: [ElementField]) -> UInt64 { fields.reduce(0) { $0 | $1.bit } }

    /// The text fields (a text element's, a button title's).
    static let textFieldMask = mask([.text, .spans, .font, .lineHeight, .lineSpacing, .letterSpacing, .alignment,
                                     .maximumNumberOfLines, .truncationMode, .truncationText, .textContainerInset])

    enum ElementType: String, CaseIterable {
        case stack, inset, overlay, background, center, relative, ratio, absolute
        case `static`, corner, wrapper, spacer, node, image, text, button

        /// The members this type accepts besides type, id and style.
        var fields: UInt64 {
            switch self {
            case .stack: return mask([.direction, .spacing, .justifyContent, .alignItems, .flexWrap, .alignContent, .lineSpacing,
                                      .horizontalAlignment, .verticalAlignment, .concurrent, .children])
            case .inset: return mask([.insets, .child])
            case .overlay: return mask([.child, .overlay])
            case .background: return mask([.child, .background])
            case .center: return mask([.centeringOptions, .sizingOptions, .child])
            case .relative: return mask([.horizontalPosition, .verticalPosition, .sizingOption, .child])
            case .ratio: return mask([.ratio, .child])
            case .absolute: return mask([.sizing, .children])
            case .static, .wrapper: return mask([.children])
            case .corner: return mask([.child, .corner, .cornerLocation, .offset, .wrapsCorner])
            case .spacer: return 0
            case .node: return mask([.layout, .intrinsicSize])
            case .image: return mask([.intrinsicSize, .url])
            case .text: return textFieldMask
            case .button: return mask([.title, .image, .contentSpacing, .laysOutHorizontally, .contentHorizontalAlignment,
                                       .contentVerticalAlignment, .contentEdgeInsets, .imageAlignment])
            }
        }
        private func mask(_ f: [ElementField]) -> UInt64 { DecodeState.mask(f) }
    }
    static let elementTypes = NameTable(cases: ElementType.self)
    static let allowedFields: [UInt64] = ElementType.allCases.map {
        $0.fields | mask([.type, .id, .style])
    }

    static let directions = NameTable(cases: StackLayoutDirection.self)
    static let justifyContents = NameTable(cases: StackLayoutJustifyContent.self)
    static let alignItemsValues = NameTable(cases: StackLayoutAlignItems.self)
    static let flexWraps = NameTable(cases: StackLayoutFlexWrap.self)
    static let alignContents = NameTable(cases: StackLayoutAlignContent.self)
    static let horizontalAlignments = NameTable(cases: HorizontalAlignment.self)
    static let verticalAlignments = NameTable(cases: VerticalAlignment.self)
    static let centeringOptions = NameTable(cases: CenterLayoutSpecCenteringOptions.self)
    static let centerSizingOptions = NameTable(cases: CenterLayoutSpecSizingOptions.self)
    static let relativePositions = NameTable(cases: RelativeLayoutSpecPosition.self)
    static let relativeSizingOptions = NameTable<RelativeLayoutSpecSizingOption>([
        ("default", []), ("minimumWidth", .minimumWidth), ("minimumHeight", .minimumHeight), ("minimumSize", .minimumSize),
    ])
    static let absoluteSizings = NameTable(cases: AbsoluteLayoutSpecSizing.self)
    static let cornerLocations = NameTable(cases: CornerLayoutSpecLocation.self)
    static let imageAlignments = NameTable(cases: ButtonNodeImageAlignment.self)

    /// Everything an element object may say, gathered member by member (in any order) and
    /// checked against its type at the end of the object.
    struct ElementFields {
        var type: ElementType?
        /// `type`'s position in `elementTypes` (and `allowedFields`).
        var typeIndex = 0
        var id: String?
        var style = LayoutElementStyle()
        // stack
        var direction = StackLayoutDirection.horizontal
        var spacing = 0.0
        var justifyContent = StackLayoutJustifyContent.start
        var alignItems: StackLayoutAlignItems?
        var flexWrap = StackLayoutFlexWrap.noWrap
        var alignContent = StackLayoutAlignContent.start
        var lineSpacing = 0.0
        var horizontalAlignment = HorizontalAlignment.none
        var verticalAlignment = VerticalAlignment.none
        var concurrent = false
        /// nil until a `children` member (leaves make and destroy no array).
        var children: [LayoutElement]?
        // single-child specs
        var insets = EdgeInsets.zero
        var child: LayoutElement?
        var second: LayoutElement?  // overlay, background or corner
        var centeringOptions = CenterLayoutSpecCenteringOptions.none
        var sizingOptions = CenterLayoutSpecSizingOptions.default
        var horizontalPosition = RelativeLayoutSpecPosition.none
        var verticalPosition = RelativeLayoutSpecPosition.none
        var sizingOption: RelativeLayoutSpecSizingOption = []
        var ratio = 0.0
        var sizing = AbsoluteLayoutSpecSizing.default
        var cornerLocation = CornerLayoutSpecLocation.topLeft
        var offset = Point.zero
        var wrapsCorner = false
        // nodes
        var layout: LayoutElement?
        var intrinsicSize: Size?
        /// Image, text and button members, boxed: most elements have none, and a small
        /// `ElementFields` is cheap to make and destroy once per element.
        var extras: Extras?
    }

    final class Extras {
        var url: String?
        var text: TextFields?
        var button: ButtonFields?
    }

    mutating func element() throws -> LayoutElement {
        depth += 1
        defer { depth -= 1 }
        if depth > limits.maxDepth { throw WireError.tooLarge("the tree is nested deeper than \(limits.maxDepth) elements", path: r.path.rendered) }
        elementCount += 1
        if elementCount > limits.maxNodes { throw WireError.tooLarge("the tree has more than \(limits.maxNodes) elements", path: r.path.rendered) }

        var f = ElementFields()
        var seen: UInt64 = 0, unknown: String?
        if try r.beginObject("an element") {
            repeat {
                guard let k = try r.member(elementNames, seen: &seen, unknown: &unknown) else { continue }
                try member(ElementField(rawValue: k)!, &f)
            } while try r.scanner.nextMember()
        }
        guard let type = f.type else { throw r.fail("an element needs a 'type'") }
        return try build(type, &f, seen: seen, unknown: unknown)
    }

    /// Reads one member's value into `f`. Only members holding elements recurse, and this
    /// frame stays small: every other member is read in `valueMember`'s frame, so 512 nested
    /// elements fit in a thread's stack even in a debug build.
    private mutating func member(_ field: ElementField, _ f: inout ElementFields) throws {
        r.path.push(elementNames.staticNames[field.rawValue])
        defer { r.path.pop() }
        switch field {
        case .children:
            let b = try r.scanner.valueStart()
            guard b == UInt8(ascii: "[") else { throw r.typeError("'children' must be an array of elements", b) }
            var children: [LayoutElement] = []
            if try r.scanner.beginArray() {
                var k = 0
                repeat {
                    r.path.push(k)
                    children.append(try element())
                    r.path.pop()
                    k += 1
                } while try r.scanner.nextItem()
            }
            f.children = children
        case .child: f.child = try child(.child)
        case .overlay, .background, .corner: f.second = try child(field)
        case .layout: f.layout = try element()
        default: try valueMember(field, &f)
        }
    }

    /// Reads a member that holds no element.
    @inline(never) private mutating func valueMember(_ field: ElementField, _ f: inout ElementFields) throws {
        switch field {
        case .type:
            let b = try r.scanner.valueStart()
            guard b == UInt8(ascii: "\"") else { throw r.typeError("must be a string", b) }
            let token = try r.scanner.stringToken()
            guard let t = r.scanner.index(of: token, in: typeNames) else {
                throw r.fail("unknown element type '\(r.scanner.string(token))'")
            }
            f.type = typeNames.values[t]
            f.typeIndex = t
        case .id:
            let s = try r.string()
            // Sized once from the body at the first id (feeds name an element every 200-300
            // bytes), not grown through every power of two.
            if ids.isEmpty { ids.reserveCapacity(Swift.min(4096, 16 + r.scanner.bytes.count / 200)) }
            guard ids.insert(s).inserted else { throw r.fail("duplicate id '\(s)'") }
            f.id = s
        case .style: try style(into: &f.style)
        case .direction: f.direction = try r.name(directionNames)
        case .spacing: f.spacing = try r.number()
        case .justifyContent: f.justifyContent = try r.name(justifyNames)
        case .alignItems: f.alignItems = try r.name(alignItemsNames)
        case .flexWrap: f.flexWrap = try r.name(Self.flexWraps)
        case .alignContent: f.alignContent = try r.name(Self.alignContents)
        case .lineSpacing: f.lineSpacing = try r.number()  // >= 0 for text: checked in `build`
        case .horizontalAlignment: f.horizontalAlignment = try r.name(Self.horizontalAlignments)
        case .verticalAlignment: f.verticalAlignment = try r.name(Self.verticalAlignments)
        case .concurrent: f.concurrent = try r.bool()
        case .insets: f.insets = try r.insets(allowInfinite: true)
        case .centeringOptions: f.centeringOptions = try r.name(Self.centeringOptions)
        case .sizingOptions: f.sizingOptions = try r.name(Self.centerSizingOptions)
        case .horizontalPosition: f.horizontalPosition = try r.name(Self.relativePositions)
        case .verticalPosition: f.verticalPosition = try r.name(Self.relativePositions)
        case .sizingOption: f.sizingOption = try r.name(Self.relativeSizingOptions)
        case .ratio:
            f.ratio = try r.number()
            guard f.ratio > 0 else { throw r.fail("ratio must be > 0") }
        case .sizing: f.sizing = try r.name(Self.absoluteSizings)
        case .cornerLocation: f.cornerLocation = try r.name(Self.cornerLocations)
        case .offset: f.offset = try r.point("offset")
        case .wrapsCorner: f.wrapsCorner = try r.bool()
        case .intrinsicSize: f.intrinsicSize = try r.size("intrinsicSize")
        case .url: extras(&f).url = try r.string()
        case .text, .spans, .font, .lineHeight, .letterSpacing, .alignment, .maximumNumberOfLines, .truncationMode, .truncationText,
             .textContainerInset:
            let x = extras(&f)
            if x.text == nil { x.text = TextFields() }
            try textMember(field, &x.text!)
        case .title, .image, .contentSpacing, .laysOutHorizontally, .contentHorizontalAlignment, .contentVerticalAlignment,
             .contentEdgeInsets, .imageAlignment:
            let x = extras(&f)
            if x.button == nil { x.button = ButtonFields() }
            try buttonMember(field, &x.button!)
        case .children, .child, .overlay, .background, .corner, .layout:
            preconditionFailure("\(field) holds elements: read by member(_:_:)")
        }
    }

    private func extras(_ f: inout ElementFields) -> Extras {
        if let x = f.extras { return x }
        let x = Extras()
        f.extras = x
        return x
    }

    private mutating func child(_ field: ElementField) throws -> LayoutElement {
        if try r.scanner.valueStart() == UInt8(ascii: "[") { throw r.fail("'\(field.name)' is one element, not an array") }
        return try element()
    }

    /// The element `f` describes, after checking its members against its type.
    @inline(never) private mutating func build(_ type: ElementType, _ f: inout ElementFields, seen: UInt64, unknown: String?) throws -> LayoutElement {
        let misplaced = seen & ~allowedFieldMasks[f.typeIndex]
        func need(_ field: ElementField, _ value: LayoutElement?, _ r: inout WireReader) throws -> LayoutElement {
            guard let value else { throw r.fail("this spec needs '\(field.name)' (one element)", at: field.name) }
            return value
        }
        let element: LayoutElement
        switch type {
        case .stack: element = try stack(&f)
        case .inset: element = InsetLayoutSpec(insets: f.insets, child: try need(.child, f.child, &r), style: f.style)
        case .overlay:
            let c = try need(.child, f.child, &r)
            element = OverlayLayoutSpec(child: c, overlay: try need(.overlay, f.second, &r), style: f.style)
        case .background:
            let c = try need(.child, f.child, &r)
            element = BackgroundLayoutSpec(child: c, background: try need(.background, f.second, &r), style: f.style)
        case .center:
            element = CenterLayoutSpec(centeringOptions: f.centeringOptions, sizingOptions: f.sizingOptions,
                                       child: try need(.child, f.child, &r), style: f.style)
        case .relative:
            element = RelativeLayoutSpec(horizontalPosition: f.horizontalPosition, verticalPosition: f.verticalPosition,
                                         sizingOption: f.sizingOption, child: try need(.child, f.child, &r), style: f.style)
        case .ratio:
            guard seen & ElementField.ratio.bit != 0 else {
                throw r.fail("a ratio spec needs 'ratio' (height ÷ width, > 0)", at: "ratio")
            }
            element = RatioLayoutSpec(ratio: f.ratio, child: try need(.child, f.child, &r), style: f.style)
        case .absolute: element = AbsoluteLayoutSpec(sizing: f.sizing, children: f.children ?? [], style: f.style)
        case .static: element = AbsoluteLayoutSpec(sizing: .sizeToFit, children: f.children ?? [], typeName: "static", style: f.style)
        case .corner:
            let c = try need(.child, f.child, &r)
            element = CornerLayoutSpec(child: c, corner: try need(.corner, f.second, &r), cornerLocation: f.cornerLocation,
                                       offset: f.offset, wrapsCorner: f.wrapsCorner, style: f.style)
        case .wrapper: element = WrapperLayoutSpec(children: f.children ?? [], style: f.style)
        case .spacer: element = LayoutSpec(style: f.style)
        case .node:
            if f.layout != nil && f.intrinsicSize != nil {
                throw r.fail("a node has either 'layout' or 'intrinsicSize', not both", at: "intrinsicSize")
            }
            element = DisplayNode(layoutSpec: f.layout, intrinsicSize: f.intrinsicSize, style: f.style)
        case .image: element = ImageNode(intrinsicSize: f.intrinsicSize, url: f.extras?.url, style: f.style)
        case .text:
            var text = f.extras?.text ?? TextFields()
            if seen & ElementField.lineSpacing.bit != 0 {
                guard f.lineSpacing >= 0 else { throw r.fail("must be >= 0", at: "lineSpacing") }
                guard f.lineSpacing <= TextLimits.maxLineHeight else {
                    throw r.fail("lineSpacing must be at most \(Int(TextLimits.maxLineHeight))", at: "lineSpacing")
                }
                text.lineSpacing = f.lineSpacing
            }
            let (attributes, inset) = try textAttributes(text, what: "a text element")
            element = TextNode(attributes: attributes, textContainerInset: inset, style: f.style)
        case .button: element = button(f.extras?.button ?? ButtonFields(), f.style)
        }
        // Then members this type does not have, and names no type has.
        if misplaced != 0 || unknown != nil {
            let first = ElementField.allCases.first { misplaced & $0.bit != 0 }
            let name = first.map(\.name) ?? unknown!
            throw r.fail("unknown field '\(name)' in a \(type.rawValue) element", at: name)
        }
        element.id = f.id
        return element
    }

    private mutating func stack(_ f: inout ElementFields) throws -> LayoutElement {
        let alignItems = f.alignItems ?? .stretch
        let effective = StackLayoutSpec.applyAlignments(direction: f.direction, justifyContent: f.justifyContent,
                                                         alignItems: alignItems, horizontal: f.horizontalAlignment,
                                                         vertical: f.verticalAlignment)
        if f.direction == .vertical && (effective.1 == .baselineFirst || effective.1 == .baselineLast) {
            throw r.fail("baseline alignment is only for horizontal stacks", at: "alignItems")
        }
        // Stretch children resolve their style against an undefined parent (§7.2.11):
        // fractional min/max there is NaN in Texture (a debug assertion). Reject it.
        for (k, child) in (f.children ?? []).enumerated() {
            let a = child.style.alignSelf
            let stretch = a == .stretch || (a == .auto && effective.1 == .stretch)
            guard stretch else { continue }
            let s = child.style
            guard s.minWidth.isFraction || s.maxWidth.isFraction || s.minHeight.isFraction || s.maxHeight.isFraction else { continue }
            for (name, d) in [("minWidth", s.minWidth), ("maxWidth", s.maxWidth), ("minHeight", s.minHeight), ("maxHeight", s.maxHeight)] where d.isFraction {
                r.path.push("children"); r.path.push(k); r.path.push("style")
                defer { r.path.pop(); r.path.pop(); r.path.pop() }
                throw r.fail("a fractional \(name) is undefined on a stretch-aligned stack child (Texture asserts); use points or alignSelf", at: name)
            }
        }
        return StackLayoutSpec(direction: f.direction, spacing: f.spacing, justifyContent: f.justifyContent, alignItems: alignItems,
                               flexWrap: f.flexWrap, alignContent: f.alignContent, lineSpacing: f.lineSpacing,
                               horizontalAlignment: f.horizontalAlignment, verticalAlignment: f.verticalAlignment,
                               concurrent: f.concurrent, children: f.children ?? [], style: f.style)
    }

    // MARK: style

    enum StyleField: Int, CaseIterable {
        case width, height, minWidth, maxWidth, minHeight, maxHeight, preferredSize, minSize, maxSize
        case flexGrow, flexShrink, flexBasis, alignSelf, spacingBefore, spacingAfter, ascender, descender
        case layoutPosition, sizeRange
    }
    /// Case names, and `preferredFrameSize` (Texture's older name for preferredSize).
    static let styleFields = NameTable(StyleField.allCases.map { ("\($0)", $0) } + [("preferredFrameSize", .preferredSize)])
    static let alignSelfValues = NameTable(cases: AlignSelf.self)

    @inline(never) mutating func style(into style: inout LayoutElementStyle) throws {
        var seen: UInt64 = 0, unknown: String?
        guard try r.beginObject("style") else { return }
        // Fields apply in the order written, as successive setters do.
        repeat {
            guard let k = try r.member(styleNames, seen: &seen, unknown: &unknown) else { continue }
            r.path.push(styleNames.staticNames[k])
            switch styleNames.values[k] {
            case .width: style.width = try r.dimension()
            case .height: style.height = try r.dimension()
            case .minWidth: style.minWidth = try r.dimension()
            case .maxWidth: style.maxWidth = try r.dimension()
            case .minHeight: style.minHeight = try r.dimension()
            case .maxHeight: style.maxHeight = try r.dimension()
            case .preferredSize: style.setPreferredSize(try r.size(styleNames.names[k]))
            case .minSize: style.setMinSize(try r.size("minSize"))
            case .maxSize: style.setMaxSize(try r.size("maxSize"))
            case .flexGrow: style.flexGrow = try r.flexFactor()
            case .flexShrink: style.flexShrink = try r.flexFactor()
            case .flexBasis: style.flexBasis = try r.dimension()
            case .alignSelf: style.alignSelf = try r.name(alignSelfNames)
            case .spacingBefore: style.spacingBefore = try r.number()
            case .spacingAfter: style.spacingAfter = try r.number()
            case .ascender: style.ascender = try r.number()
            case .descender: style.descender = try r.number()
            case .layoutPosition: style.layoutPosition = try r.point("layoutPosition")
            case .sizeRange:
                // 1.x ASRelativeSizeRange: min → minWidth/minHeight, max → maxWidth/maxHeight.
                var mn = (Dimension.auto, Dimension.auto), mx = (Dimension.auto, Dimension.auto)
                let (_, rangeUnknown) = try r.members(Self.rangeFields, "sizeRange") { r, field in
                    let name = field == .min ? "min" : "max"
                    var w = Dimension.auto, h = Dimension.auto
                    let (_, sizeUnknown) = try r.members(WireReader.sizeFields, name) { r, side in
                        if side == .width { w = try r.dimension() } else { h = try r.dimension() }
                    }
                    try r.finish(sizeUnknown, name)
                    if field == .min { mn = (w, h) } else { mx = (w, h) }
                }
                try r.finish(rangeUnknown, "sizeRange")
                style.minWidth = mn.0; style.minHeight = mn.1
                style.maxWidth = mx.0; style.maxHeight = mx.1
            }
            r.path.pop()
        } while try r.scanner.nextMember()
        try r.finish(unknown, "style")
    }
}
