import LoomLayout

/// The wire path (`root.children[2].child`) of an element of a decoded tree, found by
/// walking the tree: how the service names the element where a layout ran out of budget.
/// Elements inside a button (its title and image, laid out by the button's own spec) are
/// named by the button's path.
enum ElementPath {
    static func of(_ target: ObjectIdentifier, in root: LayoutElement) -> String? {
        var components = ["root"]
        return search(root, target, &components) ? components.joined() : nil
    }

    private static func search(_ element: LayoutElement, _ target: ObjectIdentifier, _ path: inout [String]) -> Bool {
        if ObjectIdentifier(element) == target { return true }
        if element is ButtonNode { return contains(element, target) }
        for (slot, child) in element.layoutChildren.enumerated() {
            path.append(name(of: slot, in: element))
            if search(child, target, &path) { return true }
            path.removeLast()
        }
        return false
    }

    private static func contains(_ element: LayoutElement, _ target: ObjectIdentifier) -> Bool {
        ObjectIdentifier(element) == target || element.layoutChildren.contains { contains($0, target) }
    }

    /// The member that holds `layoutChildren[slot]` of `parent` on the wire.
    private static func name(of slot: Int, in parent: LayoutElement) -> String {
        switch parent {
        case is StackLayoutSpec, is AbsoluteLayoutSpec, is WrapperLayoutSpec: return ".children[\(slot)]"
        case is OverlayLayoutSpec: return slot == 0 ? ".child" : ".overlay"
        case is BackgroundLayoutSpec: return slot == 0 ? ".child" : ".background"
        case is CornerLayoutSpec: return slot == 0 ? ".child" : ".corner"
        case is DisplayNode: return ".layout"
        default: return ".child"
        }
    }
}
