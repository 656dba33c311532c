/// `flexDirection` (`ASStackLayoutDirection` names): column, row and their reverses.
public enum YogaFlexDirection: String, Hashable, Sendable, CaseIterable { case vertical, horizontal, verticalReverse, horizontalReverse }
/// `YGDirection`.
public enum YogaDirection: String, Hashable, Sendable, CaseIterable { case inherit, ltr, rtl }
/// `YGWrap`.
public enum YogaWrap: String, Hashable, Sendable, CaseIterable { case noWrap, wrap, wrapReverse }
/// `YGPositionType` (relative and static lay out alike).
public enum YogaPositionType: String, Hashable, Sendable, CaseIterable { case relative, absolute }

/// Texture's ASEdgeInsets for Yoga: each side a Dimension, nil = unset (Yoga undefined;
/// `auto` reads as unset, as Yoga reads it).
///
/// Kept as one word of flags and nine numbers (80 bytes, where nine optional dimensions
/// take 144): a Yoga style holds four of these, every styled node of a request has one,
/// and comparing two is a flags compare and nine number compares.
public struct YogaEdges: Hashable, Sendable {
    /// Bit `i`: side `i` is set (sides in `Side` order); bit `16 + i`: it is a fraction.
    @usableFromInline var flags: UInt32 = 0
    /// Side `i`'s points or fraction where its bit is set, 0 where it is not.
    @usableFromInline var values: (Double, Double, Double, Double, Double, Double, Double, Double, Double) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// The nine sides, in the order of the flag bits (and of the canonical hash's mask).
    public enum Side: Int, CaseIterable, Sendable { case top, left, bottom, right, start, end, horizontal, vertical, all }

    public init(top: Dimension? = nil, left: Dimension? = nil, bottom: Dimension? = nil, right: Dimension? = nil,
                start: Dimension? = nil, end: Dimension? = nil, horizontal: Dimension? = nil, vertical: Dimension? = nil,
                all: Dimension? = nil) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
        self.start = start; self.end = end; self.horizontal = horizontal; self.vertical = vertical; self.all = all
    }

    /// One bit per set side, in `Side` order.
    @inlinable public var setSides: UInt16 { UInt16(truncatingIfNeeded: flags) }
    /// Whether no side is set.
    @inlinable public var isEmpty: Bool { flags == 0 }

    /// Side `i`'s number where it is set (points, or the fraction of a percentage).
    @inlinable func number(_ i: Int) -> Double {
        withUnsafeBytes(of: values) { $0.load(fromByteOffset: i &* 8, as: Double.self) }
    }
    /// Whether side `i` is set and is a fraction.
    @inlinable func isFraction(_ i: Int) -> Bool { flags & (1 << (16 + UInt32(i))) != 0 }

    public subscript(side: Side) -> Dimension? {
        get {
            let i = side.rawValue
            guard flags & (1 << UInt32(i)) != 0 else { return nil }
            return isFraction(i) ? .fraction(number(i)) : .points(number(i))
        }
        set {
            let i = side.rawValue
            let mask: UInt32 = (1 << UInt32(i)) | (1 << (16 + UInt32(i)))
            flags &= ~mask
            var v = 0.0
            switch newValue {
            case nil, .auto?: break
            case .points(let p)?: flags |= 1 << UInt32(i); v = p
            case .fraction(let f)?: flags |= mask; v = f
            }
            withUnsafeMutableBytes(of: &values) { $0.storeBytes(of: v, toByteOffset: i * 8, as: Double.self) }
        }
    }

    public var top: Dimension? { get { self[.top] } set { self[.top] = newValue } }
    public var left: Dimension? { get { self[.left] } set { self[.left] = newValue } }
    public var bottom: Dimension? { get { self[.bottom] } set { self[.bottom] = newValue } }
    public var right: Dimension? { get { self[.right] } set { self[.right] = newValue } }
    public var start: Dimension? { get { self[.start] } set { self[.start] = newValue } }
    public var end: Dimension? { get { self[.end] } set { self[.end] = newValue } }
    public var horizontal: Dimension? { get { self[.horizontal] } set { self[.horizontal] = newValue } }
    public var vertical: Dimension? { get { self[.vertical] } set { self[.vertical] = newValue } }
    public var all: Dimension? { get { self[.all] } set { self[.all] = newValue } }

    /// Equal when the same sides are set to the same dimensions (unset sides hold 0).
    @inlinable public static func == (a: YogaEdges, b: YogaEdges) -> Bool {
        a.flags == b.flags && a.values.0 == b.values.0 && a.values.1 == b.values.1 && a.values.2 == b.values.2
            && a.values.3 == b.values.3 && a.values.4 == b.values.4 && a.values.5 == b.values.5
            && a.values.6 == b.values.6 && a.values.7 == b.values.7 && a.values.8 == b.values.8
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(flags)
        for i in 0..<9 where flags & (1 << UInt32(i)) != 0 { hasher.combine(number(i)) }
    }
}

/// The Yoga-only style fields of a node (docs/yoga.md §6). The shared ones (width, height,
/// min/max, flexGrow, flexShrink, flexBasis, alignSelf, ascender, descender) stay in
/// LayoutElementStyle.
public struct YogaStyle: Hashable, Sendable {
    public var flexDirection: YogaFlexDirection = .vertical
    public var direction: YogaDirection = .inherit
    /// spaceEvenly is not in the enum (Texture cannot set it).
    public var justifyContent: StackLayoutJustifyContent = .start
    /// baselineFirst and baselineLast are both Yoga's baseline; the baseline function tells them apart (§5.2).
    public var alignItems: StackLayoutAlignItems = .stretch
    public var flexWrap: YogaWrap = .noWrap
    public var positionType: YogaPositionType = .relative
    public var position = YogaEdges(), margin = YogaEdges(), padding = YogaEdges(), border = YogaEdges()
    /// width ÷ height, > 0; nil = undefined.
    public var aspectRatio: Double? = nil
    public init() {}
}
