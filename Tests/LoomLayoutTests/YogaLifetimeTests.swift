import XCTest
import LoomLayout

// A Yoga root keeps its Yoga tree for the request (docs/yoga.md §2); the tree must go with
// the request's elements, or every Yoga request leaks its whole tree.
final class YogaLifetimeTests: XCTestCase {
    /// Lays out `make()`'s tree in its own scope and returns weak references to its elements.
    private func laidOutAndDropped(_ make: () -> (LayoutElement, [DisplayNode])) -> [() -> AnyObject?] {
        var probes: [() -> AnyObject?] = []
        do {
            let (root, watched) = make()
            let l = rootLayout(root, range(0, 0, 300, inf), scale: 2)
            XCTAssertGreaterThan(l.size.width, 0)
            for node in watched {
                weak var w = node
                probes.append { w }
            }
        }
        return probes
    }

    func testYogaRootAsRequestRootIsFreed() {
        let probes = laidOutAndDropped {
            let a = ynode(id: "a") { s, _ in s.width = .points(40); s.height = .points(40) }
            let b = ynode(id: "b", intrinsic: Size(width: 50, height: 20)) { s, _ in s.flexGrow = 1 }
            let root = ynode(id: "row", { _, y in y.flexDirection = .horizontal }, children: [a, b])
            return (root, [root, a, b])
        }
        for (i, p) in probes.enumerated() { XCTAssertNil(p(), "element \(i) outlived its layout") }
    }

    func testYogaRootInsideSpecMeasuredTwiceIsFreed() {
        let probes = laidOutAndDropped {
            let a = ynode(id: "a") { s, _ in s.width = .points(30); s.height = .points(10); s.flexGrow = 1 }
            let yroot = ynode(id: "y", { s, y in y.flexDirection = .horizontal; s.flexShrink = 1 }, children: [a])
            // A stretching stack measures its Yoga child more than once: the tree is kept across passes.
            let stack = StackLayoutSpec(direction: .vertical, alignItems: .stretch, children: [yroot, leaf(100, 20)])
            return (stack, [yroot, a])
        }
        for (i, p) in probes.enumerated() { XCTAssertNil(p(), "element \(i) outlived its layout") }
    }
}
