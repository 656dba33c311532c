/// Anything that can stand in a layout tree: the specs (`Stack`, `Inset`, …) and the nodes
/// (`DisplayNode`, `TextNode`, `ImageNode`, `ButtonNode`).
public protocol LayoutElement: Sendable {
    var element: Element { get }
}

/// One element of a layout tree, as the builders make it. Read it back with `id`; change
/// it with the modifiers `id(_:)` and `style(_:)`.
public struct Element: LayoutElement, Sendable {
    public var id: String?
    public var style = Style()
    var kind: Kind

    public var element: Element { self }

    init(_ kind: Kind) { self.kind = kind }

    indirect enum Kind: Sendable {
        case stack(StackOptions, [Element])
        case inset(EdgeInsets, Element)
        case overlay(Element, Element)
        case background(Element, Element)
        case center(Center.CenteringOptions, Center.SizingOptions, Element)
        case relative(Relative.Position, Relative.Position, Relative.SizingOption, Element)
        case ratio(Double, Element)
        case absolute(Absolute.Sizing, [Element])
        case staticLayout([Element])
        case corner(Element, Element, Corner.Location, Point, Bool)
        case wrapper([Element])
        case spacer
        case node(intrinsicSize: Size?, layout: Element?, yogaChildren: [Element])
        case text(TextNode.Content)
        case image(intrinsicSize: Size?, url: String?)
        case button(ButtonNode.Content)
    }

    var isNode: Bool {
        switch kind {
        case .node, .text, .image, .button: return true
        default: return false
        }
    }
}

extension LayoutElement {
    /// The element's id: keys its frame in the answer. Elements without one get an id
    /// derived from their position in the tree (`@root.children[1]`).
    public func id(_ id: String) -> Element {
        var e = element
        e.id = id
        return e
    }

    /// Sets style fields, as `node.style.flexGrow = 1` does in Texture:
    /// `.style { $0.flexGrow = 1; $0.preferredSize = Size(width: 40, height: 40) }`.
    public func style(_ change: (inout Style) -> Void) -> Element {
        var e = element
        change(&e.style)
        return e
    }
}

/// Collects children written one per line, as SwiftUI and Texture's array literals do.
@resultBuilder
public enum ElementBuilder {
    public static func buildExpression(_ e: any LayoutElement) -> [Element] { [e.element] }
    public static func buildExpression(_ list: [any LayoutElement]) -> [Element] { list.map(\.element) }
    public static func buildBlock(_ parts: [Element]...) -> [Element] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [Element]?) -> [Element] { part ?? [] }
    public static func buildEither(first: [Element]) -> [Element] { first }
    public static func buildEither(second: [Element]) -> [Element] { second }
    public static func buildArray(_ parts: [[Element]]) -> [Element] { parts.flatMap { $0 } }
}
