/// Texture's `ASDimension`: points, a fraction of the parent's size, or auto.
public enum Dimension: Sendable, Hashable, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    case auto
    case points(Double)
    /// A percentage of the parent's size, 0…100 (`"50%"` on the wire).
    case percent(Double)

    /// `ASDimensionMakeWithFraction`: a fraction of the parent's size, 0…1.
    public static func fraction(_ f: Double) -> Dimension { .percent(f * 100) }

    public init(floatLiteral value: Double) { self = .points(value) }
    public init(integerLiteral value: Int) { self = .points(Double(value)) }
}

/// `CGSize`.
public struct Size: Sendable, Hashable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
}

/// `CGPoint`.
public struct Point: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// `UIEdgeInsets`; `.infinity` on a side of an inset spec is Texture's `INFINITY` inset.
public struct EdgeInsets: Sendable, Hashable {
    public var top: Double, left: Double, bottom: Double, right: Double
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
    public static let zero = EdgeInsets()
}

/// Yoga's edge values (`ASEdgeInsets` of Dimensions); nil sides are unset.
public struct YogaEdges: Sendable, Hashable {
    public var top: Dimension?, left: Dimension?, bottom: Dimension?, right: Dimension?
    public var start: Dimension?, end: Dimension?, horizontal: Dimension?, vertical: Dimension?, all: Dimension?
    public init(top: Dimension? = nil, left: Dimension? = nil, bottom: Dimension? = nil, right: Dimension? = nil,
                start: Dimension? = nil, end: Dimension? = nil, horizontal: Dimension? = nil,
                vertical: Dimension? = nil, all: Dimension? = nil) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
        self.start = start; self.end = end; self.horizontal = horizontal; self.vertical = vertical; self.all = all
    }
}

/// `ASLayoutElementStyle`. Setters act as Texture's do, in the order you call them:
/// `preferredSize` sets `width` and `height`, so a later `width` wins over it and an
/// earlier one loses. The request carries the result, which the server reads the same way.
public struct Style: Sendable, Hashable {
    public var width: Dimension = .auto
    public var height: Dimension = .auto
    public var minWidth: Dimension = .auto
    public var maxWidth: Dimension = .auto
    public var minHeight: Dimension = .auto
    public var maxHeight: Dimension = .auto
    public var flexGrow: Double = 0
    public var flexShrink: Double = 0
    public var flexBasis: Dimension = .auto
    public var alignSelf: AlignSelf = .auto
    public var spacingBefore: Double = 0
    public var spacingAfter: Double = 0
    public var ascender: Double = 0
    public var descender: Double = 0
    public var layoutPosition: Point = Point(x: 0, y: 0)

    // Yoga (read on nodes in a Yoga tree; not allowed on layout specs).
    public var flexDirection: FlexDirection?
    public var direction: LayoutDirection?
    public var justifyContent: YogaJustify?
    public var alignItems: YogaAlign?
    public var flexWrap: YogaWrap?
    public var positionType: PositionType?
    public var position: YogaEdges?
    public var margin: YogaEdges?
    public var padding: YogaEdges?
    public var border: YogaEdges?
    public var aspectRatio: Double?

    public init() {}

    /// Sets `width` and `height` in points.
    public var preferredSize: Size {
        get { Size(width: width.points ?? 0, height: height.points ?? 0) }
        set { width = .points(newValue.width); height = .points(newValue.height) }
    }
    /// Sets `minWidth` and `minHeight` in points.
    public var minSize: Size {
        get { Size(width: minWidth.points ?? 0, height: minHeight.points ?? 0) }
        set { minWidth = .points(newValue.width); minHeight = .points(newValue.height) }
    }
    /// Sets `maxWidth` and `maxHeight` in points.
    public var maxSize: Size {
        get { Size(width: maxWidth.points ?? 0, height: maxHeight.points ?? 0) }
        set { maxWidth = .points(newValue.width); maxHeight = .points(newValue.height) }
    }

    var hasYogaFields: Bool {
        flexDirection != nil || direction != nil || justifyContent != nil || alignItems != nil || flexWrap != nil
            || positionType != nil || position != nil || margin != nil || padding != nil || border != nil
            || aspectRatio != nil
    }

    public enum AlignSelf: String, Sendable { case auto, start, end, center, stretch }
    public enum FlexDirection: String, Sendable { case vertical, horizontal, verticalReverse, horizontalReverse }
    public enum LayoutDirection: String, Sendable { case inherit, ltr, rtl }
    public enum YogaJustify: String, Sendable { case start, center, end, spaceBetween, spaceAround }
    public enum YogaAlign: String, Sendable { case stretch, start, end, center, baselineFirst, baselineLast }
    public enum YogaWrap: String, Sendable { case noWrap, wrap, wrapReverse }
    public enum PositionType: String, Sendable { case relative, absolute }
}

extension Dimension {
    var points: Double? { if case .points(let p) = self { return p } else { return nil } }
}

/// A font as the text measurer reads it.
public struct Font: Sendable, Hashable {
    public var family: String?
    public var size: Double?
    /// 100…900.
    public var weight: Int?
    public var italic: Bool?
    public init(family: String? = nil, size: Double? = nil, weight: Int? = nil, italic: Bool? = nil) {
        self.family = family; self.size = size; self.weight = weight; self.italic = italic
    }
    public static func system(size: Double, weight: Int? = nil) -> Font { Font(size: size, weight: weight) }
}

/// One run of an attributed string.
public struct Span: Sendable, Hashable {
    public var text: String
    public var font: Font?
    public var letterSpacing: Double?
    public init(_ text: String, font: Font? = nil, letterSpacing: Double? = nil) {
        self.text = text; self.font = font; self.letterSpacing = letterSpacing
    }
}
