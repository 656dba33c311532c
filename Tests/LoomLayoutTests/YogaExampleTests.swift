import XCTest
import LoomLayout

// The three worked examples of docs/yoga.md §8, built directly in Swift; every number is
// the document's.

/// A node with Yoga style fields and Yoga children.
func ynode(id: String? = nil, intrinsic: Size? = nil, spec: LayoutElement? = nil,
           _ configure: (inout LayoutElementStyle, inout YogaStyle) -> Void = { _, _ in },
           children: [DisplayNode] = []) -> DisplayNode {
    var s = LayoutElementStyle()
    var y = YogaStyle()
    configure(&s, &y)
    let n = DisplayNode(layoutSpec: spec, intrinsicSize: intrinsic, style: s, id: id)
    n.yogaStyle = y
    n.yogaChildren = children
    return n
}

final class YogaExampleTests: XCTestCase {
    func testCardRowAsRequestRoot() {
        let avatar = ynode(id: "avatar") { s, y in
            s.width = .points(40); s.height = .points(40); y.margin.right = .points(8)
        }
        let label = ynode(id: "label", intrinsic: Size(width: 120.3, height: 17)) { s, _ in s.flexGrow = 1; s.flexShrink = 1 }
        let badge = ImageNode(intrinsicSize: Size(width: 16, height: 16), id: "badge")
        let card = ynode(id: "card", { _, y in
            y.flexDirection = .horizontal; y.alignItems = .center; y.padding.all = .points(10)
        }, children: [avatar, label, badge])
        let l = rootLayout(card, range(0, 0, 300, inf), scale: 2)
        assertSize(l, 300, 60)
        XCTAssertEqual(frames(l), [[10, 10, 40, 40], [58, 21.5, 216, 17], [274, 22, 16, 16]])
    }

    func testToolbarInsideStack() {
        let back = ynode(id: "back", intrinsic: Size(width: 24, height: 24))
        let title = ynode(id: "title", intrinsic: Size(width: 97.3, height: 20.5))
        let menu = ynode(id: "menu") { s, _ in s.width = .points(24); s.height = .points(24) }
        let toolbar = ynode(id: "toolbar", { s, y in
            s.height = .points(44); y.flexDirection = .horizontal; y.justifyContent = .spaceBetween
            y.alignItems = .center; y.padding.horizontal = .points(12)
        }, children: [back, title, menu])
        let body = leaf(200, 100, id: "body")
        let screen = StackLayoutSpec(direction: .vertical, spacing: 8, children: [toolbar, body], id: "screen")
        let l = rootLayout(screen, range(320, 0, 320, inf), scale: 2)
        assertSize(l, 320, 152)
        // The spec root is flattened into an implicit node: its sublayouts are the stack's children.
        XCTAssertEqual(frames(l), [[0, 0, 320, 44], [0, 52, 320, 100]])
        XCTAssertEqual(frames(l.sublayouts[0].layout), [[12, 10, 24, 24], [111, 11.5, 97.5, 20.5], [284, 10, 24, 24]])
    }

    func testLeafWithOwnLayoutAbsoluteChildScale3() {
        let icon = leaf(20.2, 20.2, id: "chipIcon")
        let inset = InsetLayoutSpec(insets: EdgeInsets(top: 4, left: 10, bottom: 4, right: 10), child: icon, id: "chipInset")
        let chip = ynode(id: "chip", spec: inset)
        let dot = ynode(id: "dot") { s, y in
            y.positionType = .absolute; y.position.right = .points(5); y.position.top = .points(5)
            s.width = .points(10); s.height = .points(10)
        }
        let bar = ynode(id: "bar") { s, _ in s.width = .fraction(0.333); s.height = .points(7) }
        let root = ynode(id: "root", { _, y in y.alignItems = .start; y.justifyContent = .center }, children: [chip, dot, bar])
        let l = rootLayout(root, exact(200, 120), scale: 3)
        assertSize(l, 200, 120)
        let f = frames(l)
        XCTAssertEqual(f[0], [0, 42.333333333333336, 40.333333333333336, 28.333333333333332])
        XCTAssertEqual(f[1], [185, 5, 10, 10])
        XCTAssertEqual(f[2], [0, 70.66666666666667, 66.66666666666667, 7])
        let chipLayout = l.sublayouts[0].layout
        XCTAssertEqual(frames(chipLayout), [[0, 0, 40.333333333333336, 28.333333333333332]])
        XCTAssertEqual(frames(chipLayout.sublayouts[0].layout), [[10, 4, 20.333333333333332, 20.333333333333332]])
    }
}
