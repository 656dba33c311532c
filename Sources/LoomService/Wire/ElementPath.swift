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

    /// The paths of several elements in one walk of the tree (elements not in it are left
    /// out of the answer).
    static func of(_ targets: Set<ObjectIdentifier>, in root: LayoutElement) -> [ObjectIdentifier: String] {
        var found: [ObjectIdentifier: String] = [:]
        var components = ["root"]
        collect(root, targets, &components, &found)
        return found
    }

    private static func collect(_ element: LayoutElement, _ targets: Set<ObjectIdentifier>, _ path: inout [String],
                                _ found: inout [ObjectIdentifier: String]) {
        if found.count == targets.count { return }
        if targets.contains(ObjectIdentifier(element)) { found[ObjectIdentifier(element)] = path.joined() }
        let members = ElementKinds.shared[of: element].children
        if case .inside = members {
            // A button's parts are named by the button's path.
            var inside: [LayoutElement] = element.layoutChildren
            while let e = inside.popLast() {
                if targets.contains(ObjectIdentifier(e)) { found[ObjectIdentifier(e)] = path.joined() }
                inside.append(contentsOf: e.layoutChildren)
            }
            return
        }
        let isYogaContainer = element.isDisplayNode && unsafeDowncast(element, to: DisplayNode.self).isYogaContainer
        for (slot, child) in element.layoutChildren.enumerated() {
            path.append(isYogaContainer ? ".yogaChildren[\(slot)]" : name(of: slot, members))
            collect(child, targets, &path, &found)
            path.removeLast()
        }
    }

    private static func search(_ element: LayoutElement, _ target: ObjectIdentifier, _ path: inout [String]) -> Bool {
        if ObjectIdentifier(element) == target { return true }
        let members = ElementKinds.shared[of: element].children
        if case .inside = members { return contains(element, target) }
        // A Yoga container's `layoutChildren` are its Yoga children.
        let isYogaContainer = element.isDisplayNode && unsafeDowncast(element, to: DisplayNode.self).isYogaContainer
        for (slot, child) in element.layoutChildren.enumerated() {
            path.append(isYogaContainer ? ".yogaChildren[\(slot)]" : name(of: slot, members))
            if search(child, target, &path) { return true }
            path.removeLast()
        }
        return false
    }

    private static func contains(_ element: LayoutElement, _ target: ObjectIdentifier) -> Bool {
        ObjectIdentifier(element) == target || element.layoutChildren.contains { contains($0, target) }
    }

    /// The member that holds `layoutChildren[slot]` of an element whose children are in `members`.
    private static func name(of slot: Int, _ members: ElementKind.ChildMembers) -> String {
        switch members {
        case .children: return ".children[\(slot)]"
        case .childAnd(let second): return slot == 0 ? ".child" : ".\(second)"
        case .layout, .layoutOrYogaChildren: return ".layout"
        case .child, .none, .inside: return ".child"
        }
    }
}
