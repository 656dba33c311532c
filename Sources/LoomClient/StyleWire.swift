// Styles and small values in the generated types. Only fields that differ from Texture's
// defaults are written; the server resolves a style the same way either way.

enum StyleWire {
    static func dimension(_ d: Dimension) -> Schemas.Dimension {
        switch d {
        case .auto: return .init(value2: .auto)
        case .points(let p): return .init(value1: p)
        case .percent(let p): return .init(value3: "\(number(p))%")
        }
    }

    /// A number as JSON writes it: integral values without a fraction.
    static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
    }

    static func size(_ s: Size) -> Schemas.Size { .init(width: s.width, height: s.height) }
    static func point(_ p: Point) -> Schemas.Point { .init(x: p.x, y: p.y) }

    static func inset(_ v: Double) -> Schemas.Inset { v.isInfinite ? .init(value2: .inf) : .init(value1: v) }
    static func insets(_ e: EdgeInsets) -> Schemas.Insets {
        .init(top: inset(e.top), left: inset(e.left), bottom: inset(e.bottom), right: inset(e.right))
    }
    static func finite(_ e: EdgeInsets) -> Schemas.FiniteInsets {
        .init(top: e.top, left: e.left, bottom: e.bottom, right: e.right)
    }

    static func font(_ f: Font) -> Schemas.Font {
        .init(family: f.family, size: f.size, weight: f.weight.map { .init(value1: Double($0)) }, italic: f.italic)
    }
    static func span(_ s: Span) -> Schemas.Span {
        .init(text: s.text, font: s.font.map(font), letterSpacing: s.letterSpacing)
    }

    static func edges(_ e: YogaEdges) -> Schemas.YogaEdges {
        .init(top: e.top.map(dimension), left: e.left.map(dimension), bottom: e.bottom.map(dimension),
              right: e.right.map(dimension), start: e.start.map(dimension), end: e.end.map(dimension),
              horizontal: e.horizontal.map(dimension), vertical: e.vertical.map(dimension), all: e.all.map(dimension))
    }

    private static func dim(_ d: Dimension) -> Schemas.Dimension? { d == .auto ? nil : dimension(d) }
    private static func factor(_ v: Double) -> Schemas.FlexFactor? { v == 0 ? nil : .init(value1: v) }
    private static func nonzero(_ v: Double) -> Double? { v == 0 ? nil : v }

    /// The fields layout specs and nodes share, as `ASLayoutElementStyle` has them.
    private static func common<W: WireStyleFields>(_ s: Style, into w: inout W) {
        w.width = dim(s.width); w.height = dim(s.height)
        w.minWidth = dim(s.minWidth); w.maxWidth = dim(s.maxWidth)
        w.minHeight = dim(s.minHeight); w.maxHeight = dim(s.maxHeight)
        w.flexGrow = factor(s.flexGrow); w.flexShrink = factor(s.flexShrink); w.flexBasis = dim(s.flexBasis)
        w.alignSelf = s.alignSelf == .auto ? nil : W.AlignSelfPayload(rawValue: s.alignSelf.rawValue)
        w.spacingBefore = nonzero(s.spacingBefore); w.spacingAfter = nonzero(s.spacingAfter)
        w.ascender = nonzero(s.ascender); w.descender = nonzero(s.descender)
        w.layoutPosition = s.layoutPosition == Point(x: 0, y: 0) ? nil : point(s.layoutPosition)
    }

    /// A layout spec's style; nil when every field has its default.
    static func spec(_ s: Style) -> Schemas.Style? {
        var w = Schemas.Style()
        common(s, into: &w)
        return w == Schemas.Style() ? nil : w
    }

    /// A node's style, with its Yoga fields; nil when every field has its default.
    static func node(_ s: Style) -> Schemas.NodeStyle? {
        var w = Schemas.NodeStyle()
        common(s, into: &w)
        w.flexDirection = s.flexDirection.flatMap { .init(rawValue: $0.rawValue) }
        w.direction = s.direction.flatMap { .init(rawValue: $0.rawValue) }
        w.justifyContent = s.justifyContent.flatMap { .init(rawValue: $0.rawValue) }
        w.alignItems = s.alignItems.flatMap { .init(rawValue: $0.rawValue) }
        w.flexWrap = s.flexWrap.flatMap { .init(rawValue: $0.rawValue) }
        w.positionType = s.positionType.flatMap { .init(rawValue: $0.rawValue) }
        w.position = s.position.map(edges); w.margin = s.margin.map(edges)
        w.padding = s.padding.map(edges); w.border = s.border.map(edges)
        w.aspectRatio = s.aspectRatio
        return w == Schemas.NodeStyle() ? nil : w
    }
}

/// The members a spec's style and a node's style share in the generated types.
protocol WireStyleFields {
    associatedtype AlignSelfPayload: RawRepresentable where AlignSelfPayload.RawValue == String
    var width: Components.Schemas.Dimension? { get set }
    var height: Components.Schemas.Dimension? { get set }
    var minWidth: Components.Schemas.Dimension? { get set }
    var maxWidth: Components.Schemas.Dimension? { get set }
    var minHeight: Components.Schemas.Dimension? { get set }
    var maxHeight: Components.Schemas.Dimension? { get set }
    var flexGrow: Components.Schemas.FlexFactor? { get set }
    var flexShrink: Components.Schemas.FlexFactor? { get set }
    var flexBasis: Components.Schemas.Dimension? { get set }
    var alignSelf: AlignSelfPayload? { get set }
    var spacingBefore: Double? { get set }
    var spacingAfter: Double? { get set }
    var ascender: Double? { get set }
    var descender: Double? { get set }
    var layoutPosition: Components.Schemas.Point? { get set }
}

extension Components.Schemas.Style: WireStyleFields {}
extension Components.Schemas.NodeStyle: WireStyleFields {}
