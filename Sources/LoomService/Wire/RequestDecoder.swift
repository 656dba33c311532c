import LoomLayout

/// Builds a `LayoutRequest` from parsed JSON, with the exact path of the first offending
/// field in every error. Unknown fields are errors; defaults are Texture's.
public struct RequestDecoder {
    public let limits: DecodeLimits
    public let textMeasurer: TextMeasuring?

    public init(limits: DecodeLimits = DecodeLimits(), textMeasurer: TextMeasuring? = nil) {
        self.limits = limits
        self.textMeasurer = textMeasurer
    }

    /// Parse and decode a request body.
    public func decode(body: [UInt8]) throws -> LayoutRequest {
        let json: JSONValue
        do {
            json = try JSONParser.parse(body, maxDepth: limits.jsonNesting)
        } catch let e as JSONParser.SyntaxError {
            if e.nestingLimit { throw WireError.tooLarge("the tree is nested deeper than the limit (\(limits.maxDepth) elements)") }
            throw WireError.malformed(e)
        }
        return try decode(json)
    }

    public func decode(_ json: JSONValue) throws -> LayoutRequest {
        var state = DecodeState(limits: limits, textMeasurer: textMeasurer)
        return try state.request(json)
    }
}

/// A JSON path kept as a stack of components; rendered only for errors.
struct JSONPath {
    enum Component { case key(String), index(Int) }
    var components: [Component] = []
    mutating func push(_ k: String) { components.append(.key(k)) }
    mutating func push(_ i: Int) { components.append(.index(i)) }
    mutating func pop() { components.removeLast() }
    var rendered: String {
        var s = ""
        for c in components {
            switch c {
            case .key(let k): s += s.isEmpty ? k : "." + k
            case .index(let i): s += "[\(i)]"
            }
        }
        return s
    }
}

/// The members of one JSON object, read field by field; `finish()` rejects what was not read.
struct ObjectReader {
    let members: [JSONMember]
    /// One bit per member read (objects of more than 64 members use `overflow`).
    private var consumedBits: UInt64 = 0
    private var overflow: [Bool]?
    init(_ members: [JSONMember]) {
        self.members = members
        if members.count > 64 { overflow = [Bool](repeating: false, count: members.count) }
    }
    @inline(__always) func isConsumed(_ k: Int) -> Bool {
        if let overflow { return overflow[k] }
        return consumedBits & (1 << UInt64(k)) != 0
    }
    @inline(__always) mutating func consume(_ k: Int) {
        if overflow != nil { overflow![k] = true } else { consumedBits |= 1 << UInt64(k) }
    }
    mutating func take(_ key: String) -> JSONValue? {
        for k in members.indices where !isConsumed(k) && ObjectReader.sameKey(members[k].key, key) {
            consume(k)
            return members[k].value
        }
        return nil
    }
    /// Byte equality of member names (cheaper than String's Unicode-aware comparison,
    /// and exactly what JSON member names mean).
    @inline(__always) static func sameKey(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return a.utf8.elementsEqual(b.utf8)
    }
    /// Members in written order whose key maps to a field in `fields` (style fields apply
    /// in order).
    mutating func takeInOrder<F>(_ fields: [String: F]) -> [(String, F, JSONValue)] {
        var out: [(String, F, JSONValue)] = []
        for k in members.indices where !isConsumed(k) {
            guard let field = fields[members[k].key] else { continue }
            consume(k)
            out.append((members[k].key, field, members[k].value))
        }
        return out
    }
    func firstUnconsumed() -> String? {
        for k in members.indices where !isConsumed(k) { return members[k].key }
        return nil
    }
}

struct DecodeState {
    let limits: DecodeLimits
    let textMeasurer: TextMeasuring?
    var path = JSONPath()
    var ids = Set<String>()
    var elementCount = 0
    var depth = 0
    var hasText = false

    init(limits: DecodeLimits, textMeasurer: TextMeasuring?) {
        self.limits = limits
        self.textMeasurer = textMeasurer
    }

    // MARK: errors

    /// An error at the current path (none at the top level, rather than an empty path).
    func fail(_ message: String) -> WireError {
        .invalidSpec(message, path: path.components.isEmpty ? nil : path.rendered)
    }
    mutating func fail(_ message: String, at key: String) -> WireError {
        path.push(key); defer { path.pop() }
        return .invalidSpec(message, path: path.rendered)
    }

    // MARK: object helpers

    mutating func object(_ v: JSONValue, _ what: String) throws -> ObjectReader {
        guard case .object(let members) = v else { throw fail("\(what) must be an object, not \(v.typeDescription)") }
        // Duplicate member names are ambiguous: reject them.
        if members.count > 1 {
            if members.count <= 24 {
                for a in 1..<members.count {
                    for b in 0..<a where members[a].key == members[b].key {
                        throw fail("duplicate field '\(members[a].key)'", at: members[a].key)
                    }
                }
            } else {
                var seen = Set<String>()
                for m in members where !seen.insert(m.key).inserted {
                    throw fail("duplicate field '\(m.key)'", at: m.key)
                }
            }
        }
        return ObjectReader(members)
    }

    mutating func finish(_ r: ObjectReader, _ what: @autoclosure () -> String) throws {
        if let k = r.firstUnconsumed() { throw fail("unknown field '\(k)' in \(what())", at: k) }
    }

    /// Run `body` with `key` pushed on the path.
    mutating func at<T>(_ key: String, _ body: (inout DecodeState) throws -> T) rethrows -> T {
        path.push(key); defer { path.pop() }
        return try body(&self)
    }
    mutating func at<T>(_ index: Int, _ body: (inout DecodeState) throws -> T) rethrows -> T {
        path.push(index); defer { path.pop() }
        return try body(&self)
    }

    // MARK: scalars (called with the field's path pushed)

    func number(_ v: JSONValue) throws -> Double {
        guard case .number(let d) = v else { throw fail("must be a number, not \(v.typeDescription)") }
        guard d.isFinite else { throw fail("must be a finite number") }
        return d
    }
    func nonNegative(_ v: JSONValue) throws -> Double {
        let d = try number(v)
        guard d >= 0 else { throw fail("must be >= 0") }
        return d
    }
    func bool(_ v: JSONValue) throws -> Bool {
        guard case .bool(let b) = v else { throw fail("must be a boolean, not \(v.typeDescription)") }
        return b
    }
    func string(_ v: JSONValue) throws -> String {
        guard case .string(let s) = v else { throw fail("must be a string, not \(v.typeDescription)") }
        return s
    }
    func enumValue<E: RawRepresentable & CaseIterable>(_ v: JSONValue, _ type: E.Type) throws -> E where E.RawValue == String {
        let s = try string(v)
        guard let e = E(rawValue: s) else {
            throw fail("'\(s)' is not one of \(E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        }
        return e
    }
    func integer(_ v: JSONValue) throws -> Int {
        let d = try nonNegative(v)
        guard d == d.rounded(), d < 1e9 else { throw fail("must be a whole number") }
        return Int(d)
    }

    /// Digits with at most one '.', as in "12.5" (no sign, exponent, hex or spaces).
    static func isPlainNumber(_ s: Substring) -> Bool {
        var dots = 0, digits = 0
        for c in s.utf8 {
            if c == UInt8(ascii: ".") { dots += 1 } else if c >= 48 && c <= 57 { digits += 1 } else { return false }
        }
        return digits > 0 && dots <= 1
    }

    /// A Dimension: a number (points, >= 0), "NN%" (0–100 %), "NNpt" or "auto".
    func dimension(_ v: JSONValue) throws -> Dimension {
        switch v {
        case .number:
            return .points(try nonNegative(v))
        case .string(let s):
            if s == "auto" { return .auto }
            if s.hasSuffix("%"), Self.isPlainNumber(s.dropLast()), let f = Double(s.dropLast()), f.isFinite {
                guard f >= 0 && f <= 100 else { throw fail("a fraction must be between 0% and 100%") }
                return .fraction(f / 100)
            }
            if s.hasSuffix("pt"), Self.isPlainNumber(s.dropLast(2)), let p = Double(s.dropLast(2)), p.isFinite {
                guard p >= 0 else { throw fail("must be >= 0") }
                return .points(p)
            }
            throw fail("'\(s)' is not a Dimension (a number of points, \"NN%\" or \"auto\")")
        default:
            throw fail("must be a Dimension (a number of points, \"NN%\" or \"auto\"), not \(v.typeDescription)")
        }
    }

    /// `{"width": n, "height": n}`, both required, >= 0.
    mutating func size(_ v: JSONValue, _ what: String) throws -> Size {
        var r = try object(v, what)
        guard let w = r.take("width") else { throw fail("\(what) needs 'width'") }
        guard let h = r.take("height") else { throw fail("\(what) needs 'height'") }
        let width = try at("width") { try $0.nonNegative(w) }
        let height = try at("height") { try $0.nonNegative(h) }
        try finish(r, what)
        return Size(width: width, height: height)
    }

    mutating func point(_ v: JSONValue, _ what: String) throws -> Point {
        var r = try object(v, what)
        let x = try r.take("x").map { x in try at("x") { try $0.number(x) } } ?? 0
        let y = try r.take("y").map { y in try at("y") { try $0.number(y) } } ?? 0
        try finish(r, what)
        return Point(x: x, y: y)
    }

    /// Insets: each side a number (negative allowed) or "inf" when `allowInfinite`.
    mutating func insets(_ v: JSONValue, allowInfinite: Bool) throws -> EdgeInsets {
        var r = try object(v, "insets")
        var e = EdgeInsets()
        for side in ["top", "left", "bottom", "right"] {
            guard let sv = r.take(side) else { continue }
            let value: Double = try at(side) { s in
                if allowInfinite, case .string(let str) = sv, str == "inf" || str == "infinity" { return .infinity }
                guard case .number = sv else {
                    throw s.fail(allowInfinite ? "must be a number or \"inf\", not \(sv.typeDescription)" : "must be a number")
                }
                return try s.number(sv)
            }
            switch side {
            case "top": e.top = value
            case "left": e.left = value
            case "bottom": e.bottom = value
            default: e.right = value
            }
        }
        try finish(r, "insets")
        return e
    }

    // MARK: request

    mutating func request(_ json: JSONValue) throws -> LayoutRequest {
        var r = try object(json, "the request")
        var sizeRange = SizeRange.unconstrained
        if let v = r.take("sizeRange") { sizeRange = try at("sizeRange") { try $0.requestSizeRange(v) } }
        var scale = 2.0
        if let v = r.take("scale") {
            scale = try at("scale") { s in
                let d = try s.number(v)
                guard d > 0 && d <= 100 else { throw s.fail("scale must be > 0 (and at most 100)") }
                return d
            }
        }
        var includeSpecs = false
        if let v = r.take("options") {
            includeSpecs = try at("options") { s in
                var o = try s.object(v, "options")
                let inc = try o.take("includeSpecs").map { x in try s.at("includeSpecs") { try $0.bool(x) } } ?? false
                try s.finish(o, "options")
                return inc
            }
        }
        guard let rootValue = r.take("root") else { throw fail("the request needs 'root'", at: "root") }
        try finish(r, "the request")
        let root = try at("root") { try $0.element(rootValue) }
        return LayoutRequest(sizeRange: sizeRange, root: root, scale: scale, includeSpecs: includeSpecs,
                             elementCount: elementCount, hasText: hasText)
    }

    mutating func requestSizeRange(_ v: JSONValue) throws -> SizeRange {
        var r = try object(v, "sizeRange")
        var range = SizeRange.unconstrained
        if let mv = r.take("min") {
            range.min = try at("min") { s in
                var o = try s.object(mv, "min")
                let w = try o.take("width").map { x in try s.at("width") { try $0.nonNegative(x) } } ?? 0
                let h = try o.take("height").map { x in try s.at("height") { try $0.nonNegative(x) } } ?? 0
                try s.finish(o, "min")
                return Size(width: w, height: h)
            }
        }
        if let mv = r.take("max") {
            range.max = try at("max") { s in
                var o = try s.object(mv, "max")
                func axis(_ key: String, _ s: inout DecodeState) throws -> Double {
                    guard let x = o.take(key) else { return .infinity }
                    if case .null = x { return .infinity }
                    return try s.at(key) { try $0.nonNegative(x) }
                }
                let w = try axis("width", &s), h = try axis("height", &s)
                try s.finish(o, "max")
                return Size(width: w, height: h)
            }
        }
        try finish(r, "sizeRange")
        if range.min.width > range.max.width { throw fail("min.width must be <= max.width", at: "min") }
        if range.min.height > range.max.height { throw fail("min.height must be <= max.height", at: "min") }
        return range
    }

    // MARK: elements

    static let commonKeys: Set<String> = ["type", "id", "style"]

    mutating func element(_ v: JSONValue) throws -> LayoutElement {
        depth += 1
        defer { depth -= 1 }
        if depth > limits.maxDepth { throw WireError.tooLarge("the tree is nested deeper than \(limits.maxDepth) elements", path: path.rendered) }
        elementCount += 1
        if elementCount > limits.maxNodes { throw WireError.tooLarge("the tree has more than \(limits.maxNodes) elements", path: path.rendered) }

        var r = try object(v, "an element")
        guard let typeValue = r.take("type") else { throw fail("an element needs a 'type'") }
        let type = try at("type") { try $0.string(typeValue) }
        var id: String?
        if let iv = r.take("id") {
            id = try at("id") { s in
                let str = try s.string(iv)
                guard s.ids.insert(str).inserted else { throw s.fail("duplicate id '\(str)'") }
                return str
            }
        }
        var style = LayoutElementStyle()
        if let sv = r.take("style") { style = try at("style") { try $0.style(sv) } }

        let element: LayoutElement
        switch type {
        case "stack": element = try stack(&r, style)
        case "inset":
            let insets = try r.take("insets").map { x in try at("insets") { try $0.insets(x, allowInfinite: true) } } ?? .zero
            element = InsetLayoutSpec(insets: insets, child: try child(&r, "child"), style: style)
        case "overlay":
            let c = try child(&r, "child")
            element = OverlayLayoutSpec(child: c, overlay: try child(&r, "overlay"), style: style)
        case "background":
            let c = try child(&r, "child")
            element = BackgroundLayoutSpec(child: c, background: try child(&r, "background"), style: style)
        case "center":
            let c = try r.take("centeringOptions").map { x in try at("centeringOptions") { try $0.enumValue(x, CenterLayoutSpecCenteringOptions.self) } } ?? CenterLayoutSpecCenteringOptions.none
            let s = try r.take("sizingOptions").map { x in try at("sizingOptions") { try $0.enumValue(x, CenterLayoutSpecSizingOptions.self) } } ?? .default
            element = CenterLayoutSpec(centeringOptions: c, sizingOptions: s, child: try child(&r, "child"), style: style)
        case "relative":
            let h = try r.take("horizontalPosition").map { x in try at("horizontalPosition") { try $0.enumValue(x, RelativeLayoutSpecPosition.self) } } ?? RelativeLayoutSpecPosition.none
            let vp = try r.take("verticalPosition").map { x in try at("verticalPosition") { try $0.enumValue(x, RelativeLayoutSpecPosition.self) } } ?? RelativeLayoutSpecPosition.none
            let sizing: RelativeLayoutSpecSizingOption = try r.take("sizingOption").map { x in
                try at("sizingOption") { s in
                    switch try s.string(x) {
                    case "default": return []
                    case "minimumWidth": return .minimumWidth
                    case "minimumHeight": return .minimumHeight
                    case "minimumSize": return .minimumSize
                    case let other: throw s.fail("'\(other)' is not one of \"default\", \"minimumWidth\", \"minimumHeight\", \"minimumSize\"")
                    }
                }
            } ?? []
            element = RelativeLayoutSpec(horizontalPosition: h, verticalPosition: vp, sizingOption: sizing,
                                         child: try child(&r, "child"), style: style)
        case "ratio":
            guard let rv = r.take("ratio") else { throw fail("a ratio spec needs 'ratio' (height ÷ width, > 0)", at: "ratio") }
            let ratio = try at("ratio") { s in
                let d = try s.number(rv)
                guard d > 0 else { throw s.fail("ratio must be > 0") }
                return d
            }
            element = RatioLayoutSpec(ratio: ratio, child: try child(&r, "child"), style: style)
        case "absolute":
            let sizing = try r.take("sizing").map { x in try at("sizing") { try $0.enumValue(x, AbsoluteLayoutSpecSizing.self) } } ?? .default
            element = AbsoluteLayoutSpec(sizing: sizing, children: try children(&r), style: style)
        case "static":
            element = AbsoluteLayoutSpec(sizing: .sizeToFit, children: try children(&r), typeName: "static", style: style)
        case "corner":
            let c = try child(&r, "child")
            let k = try child(&r, "corner")
            let loc = try r.take("cornerLocation").map { x in try at("cornerLocation") { try $0.enumValue(x, CornerLayoutSpecLocation.self) } } ?? .topLeft
            let offset = try r.take("offset").map { x in try at("offset") { try $0.point(x, "offset") } } ?? .zero
            let wraps = try r.take("wrapsCorner").map { x in try at("wrapsCorner") { try $0.bool(x) } } ?? false
            element = CornerLayoutSpec(child: c, corner: k, cornerLocation: loc, offset: offset, wrapsCorner: wraps, style: style)
        case "wrapper":
            element = WrapperLayoutSpec(children: try children(&r), style: style)
        case "spacer":
            element = LayoutSpec(style: style)
        case "node":
            let layout = try r.take("layout").map { x in try at("layout") { try $0.element(x) } }
            let intrinsic = try r.take("intrinsicSize").map { x in try at("intrinsicSize") { try $0.size(x, "intrinsicSize") } }
            if layout != nil && intrinsic != nil { throw fail("a node has either 'layout' or 'intrinsicSize', not both", at: "intrinsicSize") }
            element = DisplayNode(layoutSpec: layout, intrinsicSize: intrinsic, style: style)
        case "image":
            let intrinsic = try r.take("intrinsicSize").map { x in try at("intrinsicSize") { try $0.size(x, "intrinsicSize") } }
            let url = try r.take("url").map { x in try at("url") { try $0.string(x) } }
            element = ImageNode(intrinsicSize: intrinsic, url: url, style: style)
        case "text":
            let (attributes, inset) = try textFields(&r, what: "a text element")
            element = TextNode(attributes: attributes, textContainerInset: inset, style: style)
        case "button":
            element = try button(&r, style)
        default:
            throw fail("unknown element type '\(type)'", at: "type")
        }
        try finish(r, "a \(type) element")
        element.id = id
        return element
    }

    mutating func child(_ r: inout ObjectReader, _ key: String) throws -> LayoutElement {
        guard let v = r.take(key) else { throw fail("this spec needs '\(key)' (one element)", at: key) }
        if case .array = v { throw fail("'\(key)' is one element, not an array", at: key) }
        return try at(key) { try $0.element(v) }
    }

    mutating func children(_ r: inout ObjectReader) throws -> [LayoutElement] {
        guard let v = r.take("children") else { return [] }
        return try at("children") { s in
            guard case .array(let items) = v else { throw s.fail("'children' must be an array of elements, not \(v.typeDescription)") }
            var out: [LayoutElement] = []
            out.reserveCapacity(items.count)
            for (k, item) in items.enumerated() { out.append(try s.at(k) { try $0.element(item) }) }
            return out
        }
    }

    mutating func stack(_ r: inout ObjectReader, _ style: LayoutElementStyle) throws -> LayoutElement {
        func opt<E: RawRepresentable & CaseIterable>(_ key: String, _ t: E.Type, _ s: inout DecodeState, _ r: inout ObjectReader) throws -> E? where E.RawValue == String {
            guard let v = r.take(key) else { return nil }
            return try s.at(key) { try $0.enumValue(v, t) }
        }
        let direction = try opt("direction", StackLayoutDirection.self, &self, &r) ?? .horizontal
        let spacing = try r.take("spacing").map { x in try at("spacing") { try $0.number(x) } } ?? 0
        let justify = try opt("justifyContent", StackLayoutJustifyContent.self, &self, &r) ?? .start
        let alignItemsExplicit = try opt("alignItems", StackLayoutAlignItems.self, &self, &r)
        let flexWrap = try opt("flexWrap", StackLayoutFlexWrap.self, &self, &r) ?? .noWrap
        let alignContent = try opt("alignContent", StackLayoutAlignContent.self, &self, &r) ?? .start
        let lineSpacing = try r.take("lineSpacing").map { x in try at("lineSpacing") { try $0.number(x) } } ?? 0
        let h = try opt("horizontalAlignment", HorizontalAlignment.self, &self, &r) ?? HorizontalAlignment.none
        let v = try opt("verticalAlignment", VerticalAlignment.self, &self, &r) ?? VerticalAlignment.none
        let concurrent = try r.take("concurrent").map { x in try at("concurrent") { try $0.bool(x) } } ?? false
        let alignItems = alignItemsExplicit ?? .stretch
        let effective = StackLayoutSpec.applyAlignments(direction: direction, justifyContent: justify, alignItems: alignItems,
                                                         horizontal: h, vertical: v)
        if direction == .vertical && (effective.1 == .baselineFirst || effective.1 == .baselineLast) {
            throw fail("baseline alignment is only for horizontal stacks", at: "alignItems")
        }
        let kids = try children(&r)
        // Stretch children resolve their style against an undefined parent (§7.2.11):
        // fractional min/max there is NaN in Texture (a debug assertion). Reject it.
        for (k, child) in kids.enumerated() {
            let a = child.style.alignSelf
            let stretch = a == .stretch || (a == .auto && effective.1 == .stretch)
            guard stretch else { continue }
            let s = child.style
            for (name, d) in [("minWidth", s.minWidth), ("maxWidth", s.maxWidth), ("minHeight", s.minHeight), ("maxHeight", s.maxHeight)] where d.isFraction {
                path.push("children"); path.push(k); path.push("style"); path.push(name)
                defer { path.pop(); path.pop(); path.pop(); path.pop() }
                throw fail("a fractional \(name) is undefined on a stretch-aligned stack child (Texture asserts); use points or alignSelf")
            }
        }
        return StackLayoutSpec(direction: direction, spacing: spacing, justifyContent: justify, alignItems: alignItems,
                               flexWrap: flexWrap, alignContent: alignContent, lineSpacing: lineSpacing,
                               horizontalAlignment: h, verticalAlignment: v, concurrent: concurrent,
                               children: kids, style: style)
    }

    // MARK: style

    enum StyleField {
        case width, height, minWidth, maxWidth, minHeight, maxHeight, preferredSize, minSize, maxSize
        case flexGrow, flexShrink, flexBasis, alignSelf, spacingBefore, spacingAfter, ascender, descender
        case layoutPosition, sizeRange
    }

    static let styleFields: [String: StyleField] = [
        "width": .width, "height": .height, "minWidth": .minWidth, "maxWidth": .maxWidth, "minHeight": .minHeight,
        "maxHeight": .maxHeight, "preferredSize": .preferredSize, "preferredFrameSize": .preferredSize,
        "minSize": .minSize, "maxSize": .maxSize, "flexGrow": .flexGrow, "flexShrink": .flexShrink,
        "flexBasis": .flexBasis, "alignSelf": .alignSelf, "spacingBefore": .spacingBefore,
        "spacingAfter": .spacingAfter, "ascender": .ascender, "descender": .descender,
        "layoutPosition": .layoutPosition, "sizeRange": .sizeRange,
    ]

    mutating func style(_ v: JSONValue) throws -> LayoutElementStyle {
        var r = try object(v, "style")
        var style = LayoutElementStyle()
        // Fields apply in the order written, as successive setters do.
        for (key, field, value) in r.takeInOrder(Self.styleFields) {
            path.push(key)
            defer { path.pop() }
            switch field {
            case .width: style.width = try dimension(value)
            case .height: style.height = try dimension(value)
            case .minWidth: style.minWidth = try dimension(value)
            case .maxWidth: style.maxWidth = try dimension(value)
            case .minHeight: style.minHeight = try dimension(value)
            case .maxHeight: style.maxHeight = try dimension(value)
            case .preferredSize: style.setPreferredSize(try size(value, key))
            case .minSize: style.setMinSize(try size(value, key))
            case .maxSize: style.setMaxSize(try size(value, key))
            case .flexGrow: style.flexGrow = try flexFactor(value)
            case .flexShrink: style.flexShrink = try flexFactor(value)
            case .flexBasis: style.flexBasis = try dimension(value)
            case .alignSelf: style.alignSelf = try enumValue(value, AlignSelf.self)
            case .spacingBefore: style.spacingBefore = try number(value)
            case .spacingAfter: style.spacingAfter = try number(value)
            case .ascender: style.ascender = try number(value)
            case .descender: style.descender = try number(value)
            case .layoutPosition: style.layoutPosition = try point(value, key)
            case .sizeRange:
                // 1.x ASRelativeSizeRange: min → minWidth/minHeight, max → maxWidth/maxHeight.
                var o = try object(value, "sizeRange")
                func relative(_ k: String, _ s: inout DecodeState, _ o: inout ObjectReader) throws -> (Dimension, Dimension) {
                    guard let rv = o.take(k) else { return (.auto, .auto) }
                    return try s.at(k) { s in
                        var ro = try s.object(rv, k)
                        let w = try ro.take("width").map { x in try s.at("width") { try $0.dimension(x) } } ?? .auto
                        let h = try ro.take("height").map { x in try s.at("height") { try $0.dimension(x) } } ?? .auto
                        try s.finish(ro, k)
                        return (w, h)
                    }
                }
                let mn = try relative("min", &self, &o), mx = try relative("max", &self, &o)
                try finish(o, "sizeRange")
                style.minWidth = mn.0; style.minHeight = mn.1
                style.maxWidth = mx.0; style.maxHeight = mx.1
            }
        }
        try finish(r, "style")
        return style
    }

    func flexFactor(_ v: JSONValue) throws -> Double {
        if case .bool(let b) = v { return b ? 1 : 0 }
        guard case .number = v else { throw fail("must be a number >= 0 (or a boolean, as in API 1.x), not \(v.typeDescription)") }
        return try nonNegative(v)
    }

    // MARK: text and button

    static let weightNames: [String: Int] = [
        "thin": 100, "ultralight": 200, "extralight": 200, "light": 300, "normal": 400, "regular": 400,
        "medium": 500, "semibold": 600, "demibold": 600, "bold": 700, "extrabold": 800, "heavy": 800, "black": 900,
    ]

    mutating func font(_ v: JSONValue, base: FontDescriptor) throws -> FontDescriptor {
        var r = try object(v, "font")
        var f = base
        if let x = r.take("family") {
            f.family = try at("family") { s in
                let name = try s.string(x)
                guard !name.isEmpty else { throw s.fail("family must not be empty") }
                return name
            }
        }
        if let x = r.take("size") {
            f.size = try at("size") { s in
                let d = try s.number(x)
                guard d > 0 && d <= 1000 else { throw s.fail("size must be > 0 (and at most 1000)") }
                return d
            }
        }
        if let x = r.take("weight") {
            f.weight = try at("weight") { s in
                if case .string(let name) = x {
                    guard let w = Self.weightNames[name.lowercased()] else {
                        throw s.fail("'\(name)' is not a weight (100–900 or a name such as \"bold\")")
                    }
                    return w
                }
                let d = try s.number(x)
                guard d >= 1 && d <= 1000 else { throw s.fail("weight must be between 1 and 1000 (CSS weights, 400 = regular)") }
                return Int(d.rounded())
            }
        }
        if let x = r.take("italic") { f.italic = try at("italic") { try $0.bool(x) } }
        try finish(r, "font")
        if let measurer = textMeasurer, let problem = measurer.validate(f) {
            throw fail(problem.message, at: "family")
        }
        return f
    }

    static let textKeys: Set<String> = ["text", "spans", "font", "lineHeight", "lineSpacing", "letterSpacing", "alignment",
                                        "maximumNumberOfLines", "truncationMode", "truncationText", "textContainerInset"]

    mutating func textFields(_ r: inout ObjectReader, what: String) throws -> (TextAttributes, EdgeInsets) {
        guard textMeasurer != nil else { throw fail("text is not available: the service was started without a text measurer") }
        hasText = true
        var font = FontDescriptor.attributedStringDefault
        if let x = r.take("font") {
            font = try at("font") { try $0.font(x, base: .attributedStringDefault) }
        } else if let problem = textMeasurer?.validate(font) {
            throw fail("the default font is not available: \(problem.message)")
        }
        let textValue = r.take("text"), spansValue = r.take("spans")
        var spans: [TextSpan]
        switch (textValue, spansValue) {
        case (let t?, nil): spans = [TextSpan(text: try at("text") { try $0.string(t) })]
        case (nil, let sv?):
            spans = try at("spans") { s in
                guard case .array(let items) = sv else { throw s.fail("'spans' must be an array, not \(sv.typeDescription)") }
                var out: [TextSpan] = []
                for (k, item) in items.enumerated() {
                    out.append(try s.at(k) { s in
                        var o = try s.object(item, "a span")
                        guard let tv = o.take("text") else { throw s.fail("a span needs 'text'") }
                        let text = try s.at("text") { try $0.string(tv) }
                        let f = try o.take("font").map { x in try s.at("font") { try $0.font(x, base: font) } }
                        let ls = try o.take("letterSpacing").map { x in try s.at("letterSpacing") { try $0.number(x) } }
                        try s.finish(o, "a span")
                        return TextSpan(text: text, font: f, letterSpacing: ls)
                    })
                }
                return out
            }
        case (nil, nil): throw fail("\(what) needs 'text' or 'spans'")
        case (_?, _?): throw fail("give 'text' or 'spans', not both", at: "spans")
        }
        var a = TextAttributes(spans: spans, font: font)
        if let x = r.take("lineHeight") {
            a.lineHeight = try at("lineHeight") { s in
                let d = try s.number(x)
                guard d > 0 else { throw s.fail("lineHeight must be > 0") }
                return d
            }
        }
        if let x = r.take("lineSpacing") { a.lineSpacing = try at("lineSpacing") { try $0.nonNegative(x) } }
        if let x = r.take("letterSpacing") { a.letterSpacing = try at("letterSpacing") { try $0.number(x) } }
        if let x = r.take("alignment") { a.alignment = try at("alignment") { try $0.enumValue(x, TextAlignment.self) } }
        if let x = r.take("maximumNumberOfLines") { a.maximumNumberOfLines = try at("maximumNumberOfLines") { try $0.integer(x) } }
        if let x = r.take("truncationMode") { a.truncationMode = try at("truncationMode") { try $0.enumValue(x, TruncationMode.self) } }
        if let x = r.take("truncationText") { a.truncationText = try at("truncationText") { try $0.string(x) } }
        var inset = EdgeInsets.zero
        if let x = r.take("textContainerInset") { inset = try at("textContainerInset") { try $0.insets(x, allowInfinite: false) } }
        return (a, inset)
    }

    mutating func button(_ r: inout ObjectReader, _ style: LayoutElementStyle) throws -> LayoutElement {
        var title: TextNode?
        if let tv = r.take("title") {
            title = try at("title") { s in
                var o = try s.object(tv, "title")
                let (attributes, inset) = try s.textFields(&o, what: "a button title")
                try s.finish(o, "title")
                var titleStyle = LayoutElementStyle()
                titleStyle.flexShrink = 1
                return TextNode(attributes: attributes, textContainerInset: inset, style: titleStyle)
            }
        }
        var image: ImageNode?
        if let iv = r.take("image") {
            image = try at("image") { s in
                var o = try s.object(iv, "image")
                let intrinsic = try o.take("intrinsicSize").map { x in try s.at("intrinsicSize") { try $0.size(x, "intrinsicSize") } }
                let url = try o.take("url").map { x in try s.at("url") { try $0.string(x) } }
                try s.finish(o, "image")
                return ImageNode(intrinsicSize: intrinsic, url: url)
            }
        }
        let spacing = try r.take("contentSpacing").map { x in try at("contentSpacing") { try $0.number(x) } } ?? 8
        let horizontal = try r.take("laysOutHorizontally").map { x in try at("laysOutHorizontally") { try $0.bool(x) } } ?? true
        let ha = try r.take("contentHorizontalAlignment").map { x in try at("contentHorizontalAlignment") { try $0.enumValue(x, HorizontalAlignment.self) } } ?? .middle
        let va = try r.take("contentVerticalAlignment").map { x in try at("contentVerticalAlignment") { try $0.enumValue(x, VerticalAlignment.self) } } ?? .center
        let insets = try r.take("contentEdgeInsets").map { x in try at("contentEdgeInsets") { try $0.insets(x, allowInfinite: false) } } ?? .zero
        let ia = try r.take("imageAlignment").map { x in try at("imageAlignment") { try $0.enumValue(x, ButtonNodeImageAlignment.self) } } ?? .beginning
        return ButtonNode(title: title, image: image, contentSpacing: spacing, laysOutHorizontally: horizontal,
                          contentHorizontalAlignment: ha, contentVerticalAlignment: va, contentEdgeInsets: insets,
                          imageAlignment: ia, style: style)
    }
}
