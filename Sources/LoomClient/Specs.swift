// The layout specs, named and ordered as Texture's initializers are, so a
// `layoutSpecThatFits:` body ports line by line.

public struct StackOptions: Sendable, Hashable {
    var direction: Stack.Direction
    var spacing: Double
    var justifyContent: Stack.JustifyContent
    var alignItems: Stack.AlignItems
    var flexWrap: Stack.FlexWrap
    var alignContent: Stack.AlignContent
    var lineSpacing: Double
}

/// `ASStackLayoutSpec`.
public struct Stack: LayoutElement {
    public let element: Element

    public init(_ direction: Direction = .horizontal, spacing: Double = 0, justifyContent: JustifyContent = .start,
                alignItems: AlignItems = .stretch, flexWrap: FlexWrap = .noWrap, alignContent: AlignContent = .start,
                lineSpacing: Double = 0, @ElementBuilder children: () -> [Element]) {
        let options = StackOptions(direction: direction, spacing: spacing, justifyContent: justifyContent,
                                   alignItems: alignItems, flexWrap: flexWrap, alignContent: alignContent,
                                   lineSpacing: lineSpacing)
        element = Element(.stack(options, children()))
    }

    /// `ASStackLayoutSpec(direction:spacing:justifyContent:alignItems:children:)`.
    public init(direction: Direction, spacing: Double = 0, justifyContent: JustifyContent = .start,
                alignItems: AlignItems = .stretch, children: [any LayoutElement]) {
        self.init(direction, spacing: spacing, justifyContent: justifyContent, alignItems: alignItems) {
            children
        }
    }

    public enum Direction: String, Sendable { case horizontal, vertical }
    public enum JustifyContent: String, Sendable { case start, center, end, spaceBetween, spaceAround }
    public enum AlignItems: String, Sendable { case start, end, center, stretch, baselineFirst, baselineLast }
    public enum FlexWrap: String, Sendable { case noWrap, wrap }
    public enum AlignContent: String, Sendable { case start, center, end, spaceBetween, spaceAround, stretch }
}

/// `ASInsetLayoutSpec(insets:child:)`.
public struct Inset: LayoutElement {
    public let element: Element
    public init(_ insets: EdgeInsets, _ child: any LayoutElement) { element = Element(.inset(insets, child.element)) }
    public init(insets: EdgeInsets, child: any LayoutElement) { self.init(insets, child) }
}

/// `ASOverlayLayoutSpec(child:overlay:)`.
public struct Overlay: LayoutElement {
    public let element: Element
    public init(_ child: any LayoutElement, overlay: any LayoutElement) {
        element = Element(.overlay(child.element, overlay.element))
    }
}

/// `ASBackgroundLayoutSpec(child:background:)`.
public struct Background: LayoutElement {
    public let element: Element
    public init(_ child: any LayoutElement, background: any LayoutElement) {
        element = Element(.background(child.element, background.element))
    }
}

/// `ASCenterLayoutSpec(centeringOptions:sizingOptions:child:)`.
public struct Center: LayoutElement {
    public let element: Element
    public init(centeringOptions: CenteringOptions = .xy, sizingOptions: SizingOptions = .default,
                _ child: any LayoutElement) {
        element = Element(.center(centeringOptions, sizingOptions, child.element))
    }
    public enum CenteringOptions: String, Sendable { case none, x, y, xy }
    public enum SizingOptions: String, Sendable { case `default`, minimumX, minimumY, minimumXY }
}

/// `ASRelativeLayoutSpec(horizontalPosition:verticalPosition:sizingOption:child:)`.
public struct Relative: LayoutElement {
    public let element: Element
    public init(horizontalPosition: Position = .none, verticalPosition: Position = .none,
                sizingOption: SizingOption = .default, _ child: any LayoutElement) {
        element = Element(.relative(horizontalPosition, verticalPosition, sizingOption, child.element))
    }
    public enum Position: String, Sendable { case none, start, center, end }
    public enum SizingOption: String, Sendable { case `default`, minimumWidth, minimumHeight, minimumSize }
}

/// `ASRatioLayoutSpec(ratio:child:)`: ratio is height ÷ width.
public struct Ratio: LayoutElement {
    public let element: Element
    public init(_ ratio: Double, _ child: any LayoutElement) { element = Element(.ratio(ratio, child.element)) }
}

/// `ASAbsoluteLayoutSpec(sizing:children:)`: children placed by `style.layoutPosition`.
public struct Absolute: LayoutElement {
    public let element: Element
    public init(sizing: Sizing = .default, @ElementBuilder children: () -> [Element]) {
        element = Element(.absolute(sizing, children()))
    }
    public enum Sizing: String, Sendable { case `default`, sizeToFit }
}

/// `ASStaticLayoutSpec` (Layout API 1.x): an absolute spec that sizes to fit.
public struct StaticLayout: LayoutElement {
    public let element: Element
    public init(@ElementBuilder children: () -> [Element]) { element = Element(.staticLayout(children())) }
}

/// `ASCornerLayoutSpec(child:corner:location:)`.
public struct Corner: LayoutElement {
    public let element: Element
    public init(_ child: any LayoutElement, corner: any LayoutElement, location: Location,
                offset: Point = Point(x: 0, y: 0), wrapsCorner: Bool = false) {
        element = Element(.corner(child.element, corner.element, location, offset, wrapsCorner))
    }
    public enum Location: String, Sendable { case topLeft, topRight, bottomLeft, bottomRight }
}

/// `ASWrapperLayoutSpec`.
public struct Wrapper: LayoutElement {
    public let element: Element
    public init(@ElementBuilder children: () -> [Element]) { element = Element(.wrapper(children())) }
}

/// A plain `ASLayoutSpec` with no child: with `flexGrow` a flexible spacer.
public struct Spacer: LayoutElement {
    public let element: Element
    public init() { element = Element(.spacer) }
}
