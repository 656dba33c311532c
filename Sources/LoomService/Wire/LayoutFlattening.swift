import LoomLayout

/// Where an element of a flattened layout is.
struct FlatPlacement {
    /// Its position inside the enclosing node, pixel-ceiled from the positions accumulated
    /// since that node (Texture replaces a non-finite frame component by 0: ASLayout.frame).
    let inNode: Point
    /// Its origin in the root's coordinates.
    let origin: Point
    let size: Size
    /// The accumulated position had a non-finite component, written as 0 (Texture asserts
    /// in debug builds).
    let replacedPosition: Bool
}

/// What `LayoutFlattening` shows, element by element, to the JSON and SVG encoders.
protocol FlatLayoutVisitor {
    /// What an element hands down to its children (the origin their frames are relative
    /// to, their depth …).
    associatedtype Scope
    /// An element below the root, before its children (`scope`: its parent's); returns
    /// its children's scope.
    mutating func enter(_ element: LayoutElement, _ layout: Layout, isNode: Bool, _ place: FlatPlacement, _ scope: Scope) -> Scope
    /// The same element after its children (`scope`: what `enter` returned).
    mutating func leave(_ element: LayoutElement, isNode: Bool, _ scope: Scope)
}

/// Texture's flattening of a layout tree: a display node owns a coordinate space, and
/// the specs between two nodes only add their positions up. Each element's position in
/// its enclosing node is the pixel ceil of the positions accumulated since that node.
/// One walk, generic over its visitor (specialized, no dynamic dispatch): the JSON encoder
/// and the SVG renderer both run it.
struct LayoutFlattening {
    let grid: PixelGrid

    /// Visits every element below `root` (laid out as `layout`) in order.
    func walk<Visitor: FlatLayoutVisitor>(_ visitor: inout Visitor, below root: LayoutElement, layout: Layout,
                                          scope: Visitor.Scope) {
        walk(&visitor, parent: root, layout: layout, accumulated: .zero, nodeOrigin: .zero, scope: scope)
    }

    /// The sublayouts of `parent`. `accumulated`: the parent's raw position within the
    /// enclosing node; `nodeOrigin`: that node's origin in root coordinates.
    private func walk<Visitor: FlatLayoutVisitor>(_ visitor: inout Visitor, parent: LayoutElement, layout: Layout,
                                                  accumulated: Point, nodeOrigin: Point, scope: Visitor.Scope) {
        let elements = parent.layoutChildren
        layout.sublayouts.withUnsafeBufferPointer { subs in
            for k in subs.indices {
                // The tree outlives the walk and the arrays hold the child and its layout:
                // borrow them rather than retaining and releasing each (a write to each
                // object's cache line).
                Unmanaged.passUnretained(elements[subs[k].slot])._withUnsafeGuaranteedRef { child in
                    Unmanaged.passUnretained(subs[k].layout)._withUnsafeGuaranteedRef { subLayout in
                        visit(&visitor, child: child, layout: subLayout, position: subs[k].position,
                              accumulated: accumulated, nodeOrigin: nodeOrigin, scope: scope)
                    }
                }
            }
        }
    }

    @inline(__always)
    private func visit<Visitor: FlatLayoutVisitor>(_ visitor: inout Visitor, child: LayoutElement, layout: Layout, position: Point,
                                                   accumulated: Point, nodeOrigin: Point, scope: Visitor.Scope) {
        let raw = Point(x: accumulated.x + position.x, y: accumulated.y + position.y)
        let ceiled = Point(x: grid.ceil(raw.x), y: grid.ceil(raw.y))
        let inNode = Point(x: finite(ceiled.x), y: finite(ceiled.y))
        let origin = Point(x: nodeOrigin.x + inNode.x, y: nodeOrigin.y + inNode.y)
        let isNode = child.isDisplayNode
        let place = FlatPlacement(inNode: inNode, origin: origin, size: layout.size,
                                  replacedPosition: !(ceiled.x.isFinite && ceiled.y.isFinite))
        let inner = visitor.enter(child, layout, isNode: isNode, place, scope)
        if isNode {
            // A node's children are placed in its own space.
            walk(&visitor, parent: child, layout: layout, accumulated: Point(x: 0, y: 0), nodeOrigin: origin, scope: inner)
        } else {
            walk(&visitor, parent: child, layout: layout, accumulated: raw, nodeOrigin: nodeOrigin, scope: inner)
        }
        visitor.leave(child, isNode: isNode, inner)
    }

    @inline(__always) private func finite(_ v: Double) -> Double { v.isFinite ? v : 0 }
}
