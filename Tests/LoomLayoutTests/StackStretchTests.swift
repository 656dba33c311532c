import XCTest
import LoomLayout

/// §7.2.3 measureChild quirks, §7.2.8 stretching, §7.2.11 fractional min/max, §12 golden cases
/// (including the stale-comment cases of §12.1).
final class StackStretchTests: XCTestCase {

    func testGoldenVerticalStretchWithZeroAndExplicitWidths() {
        // §12 table: vertical stretch, range [200,0]–[300,inf]; a (auto), b (width 0, h 20), c (width 100, h 20).
        // a: cross [200 (crossMin), 300] → plain node max (300, inf) invalid → (0,0) → clamp → 200×0.
        // b: r.width = [0,0]: min 0 means "unset" → crossMin 200; max 0 → cross [200, 0] (inverted); its own
        //    intersect: lo 200 > hi 0, 200 < 0 false → [200,200] → 200×20.
        // c: r.width [100,100] → 100×20 and never stretched.
        // Main: 0 + 20 + 20 = 40; line cross = max(200,200,100) clamped into [200,300] = 200.
        let l = rootLayout(StackLayoutSpec(direction: .vertical, alignItems: .stretch, children: [
            plain(), plain { $0.width = .points(0); $0.height = .points(20) }, box(100, 20),
        ]), range(200, 0, 300, inf))
        XCTAssertEqual(frames(l), [[0, 0, 200, 0], [0, 0, 200, 20], [0, 20, 100, 20]])
        assertSize(l, 200, 40)
    }

    func testGoldenCrossAxisStretchingOccursAfterStackAxisFlexing() {
        // §12 table + stale comment (§12.1: "blue is 300 tall" is wrong, it is 500):
        // horizontal stretch, range [280,0]–[280,inf]; blue 10×0, red 500×500 grow 1 shrink 1 (optimized).
        // red placeholder; blue: r.height [0,0] → cross [0 (crossMin), 0] → 10×0. v = 270 → red target 270,
        // cross r.height [500,500] → red 270×500. Line cross = 500 (clamp into [0,inf]).
        // Stretch blue: cross [500, 0] → own intersect → [500,500] → 10×500 (height 0 counts as unset, §7.2.3).
        let l = rootLayout(StackLayoutSpec(alignItems: .stretch, children: [
            box(10, 0), box(500, 500) { $0.flexGrow = 1; $0.flexShrink = 1 },
        ]), range(280, 0, 280, inf))
        XCTAssertEqual(frames(l), [[0, 0, 10, 500], [10, 0, 270, 500]])
        assertSize(l, 280, 500)
    }

    func testCrossAxisStretchingAfterFlexingInTexturesInsetSetup() {
        // The full Texture setup: background(inset 10 (stack), green) in [300,0]–[300,inf]. The inset gives the stack
        // [280,0]–[280,inf] (§7.3); stack 280×500 as above; inset 300×520, stack at (10,10); background measured at
        // exactly 300×520. Flattened (§8): green (0,0,300,520), blue (10,10,10,500), red (20,10,270,500).
        let green = plain(id: "green")
        let blue = plain(id: "blue") { $0.width = .points(10) }     // height auto behaves like height 0 here
        let red = box(500, 500, id: "red") { $0.flexGrow = 1; $0.flexShrink = 1 }
        let spec = BackgroundLayoutSpec(child: InsetLayoutSpec(insets: EdgeInsets(top: 10, left: 10, bottom: 10, right: 10),
                                                               child: StackLayoutSpec(alignItems: .stretch, children: [blue, red])),
                                        background: green)
        let l = rootLayout(spec, range(300, 0, 300, inf))
        assertSize(l, 300, 520)
        XCTAssertEqual(flattenedChildren(of: spec, l), [
            FlatFrame(id: "green", x: 0, y: 0, width: 300, height: 520),
            FlatFrame(id: "blue", x: 10, y: 10, width: 10, height: 500),
            FlatFrame(id: "red", x: 20, y: 10, width: 270, height: 500),
        ])
    }

    func testGoldenAlignedStretchOneChildExceedsMin() {
        // Stale comment (§12.1: "all children are 150 wide" is wrong): vertical, justify center, stretch,
        // range [50,50]–[300,300], boxes 50×50, 100×70, 150×90 with spacingBefore 0/20/30.
        // Explicit widths → cross [w,w] → never stretched. Main 260 within [50,300] → v = 0 → y = 0, 70, 170.
        // Line cross = max 150 (clamped into [50,300]); stack 150×260.
        let l = rootLayout(StackLayoutSpec(direction: .vertical, justifyContent: .center, alignItems: .stretch, children: [
            box(50, 50), box(100, 70) { $0.spacingBefore = 20 }, box(150, 90) { $0.spacingBefore = 30 },
        ]), range(50, 50, 300, 300))
        XCTAssertEqual(frames(l), [[0, 0, 50, 50], [0, 70, 100, 70], [0, 170, 150, 90]])
        assertSize(l, 150, 260)
    }

    func testAlignedStretchNoChildExceedsMin() {
        // Same children, range [200,200]–[300,300]: line cross = clamp(150 into [200,300]) = 200, children keep
        // their explicit widths; main 260 → v = 0. Stack 200×260.
        let l = rootLayout(StackLayoutSpec(direction: .vertical, justifyContent: .center, alignItems: .stretch, children: [
            box(50, 50), box(100, 70) { $0.spacingBefore = 20 }, box(150, 90) { $0.spacingBefore = 30 },
        ]), range(200, 200, 300, 300))
        XCTAssertEqual(l.sublayouts.map(\.layout.size.width), [50, 100, 150])
        assertSize(l, 200, 260)
    }

    func testNestedStackLayoutStretchDoesNotViolateWidth() {
        // testNestedStackLayoutStretchDoesNotViolateWidth: stack style 100×100, stretch, child 50×50, range
        // [0,0]–[300,inf] → stack used 100×100; line cross exact 100; child re-measured with [100,100] but its
        // explicit height wins → 50×50 at (0,0). Stack 100×100.
        let s = StackLayoutSpec(alignItems: .stretch, children: [box(50, 50)],
                                style: style { $0.width = .points(100); $0.height = .points(100) })
        let l = rootLayout(s, range(0, 0, 300, inf))
        assertSize(l, 100, 100)
        assertFrame(l, 0, 0, 0, 50, 50)
    }

    func testPlainNodeInVerticalStretchStack() {
        // §12.6 / §4.2: range [320,0]–[320,inf]; child range [320,320]×[0,inf] → (0,0) → 320×0; stack 320×0.
        let l = rootLayout(StackLayoutSpec(direction: .vertical, children: [plain()]), range(320, 0, 320, inf))
        assertFrame(l, 0, 0, 0, 320, 0)
        assertSize(l, 320, 0)
    }

    func testStretchChildWithOnlyMinWidthIsNotStretched() {
        // §7.2.3 quirk: vertical stretch, [300,0]–[300,inf]. a: leaf 50×20 with minWidth 10 → cross [10, 300] → 50;
        // the stretch pass gives [10, 300] again → stays 50. b: leaf 50×20, no style → cross [300,300] → 300.
        let l = rootLayout(StackLayoutSpec(direction: .vertical, children: [
            leaf(50, 20) { $0.minWidth = .points(10) }, leaf(50, 20),
        ]), range(300, 0, 300, inf))
        XCTAssertEqual(frames(l), [[0, 0, 50, 20], [0, 20, 300, 20]])
    }

    func testStretchChildWithSmallMaxWidthIsStretchedAnyway() {
        // §7.2.3 quirk: maxWidth 100 < line 300 → range [300, 100] (inverted) → own intersect with [0,100]:
        // lo 300 > hi 100, 300 < 0 false → [300,300] → the max is violated: 300 wide.
        let l = rootLayout(StackLayoutSpec(direction: .vertical, children: [leaf(50, 20) { $0.maxWidth = .points(100) }]),
                           range(300, 0, 300, inf))
        assertFrame(l, 0, 0, 0, 300, 20)
    }

    func testStretchChildWithMaxWidthAboveLineIsStretchedToLine() {
        // maxWidth 400 ≥ line 300: cross [300, 400] → leaf 50 clamped → 300.
        let l = rootLayout(StackLayoutSpec(direction: .vertical, children: [leaf(50, 20) { $0.maxWidth = .points(400) }]),
                           range(300, 0, 300, inf))
        assertFrame(l, 0, 0, 0, 300, 20)
    }

    func testStretchIsLimitedToTheLineNotTheMax() {
        // Non-exact cross: vertical stretch, [0,0]–[300,inf]: a leaf 80×10, b leaf 40×10. First pass cross [0,300]
        // → 80 and 40; line cross = max 80 → b re-measured at [80,80] → 80. Stack 80×20.
        let l = rootLayout(StackLayoutSpec(direction: .vertical, children: [leaf(80, 10), leaf(40, 10)]), range(0, 0, 300, inf))
        XCTAssertEqual(frames(l), [[0, 0, 80, 10], [0, 10, 80, 10]])
        assertSize(l, 80, 20)
    }

    func testStretchNeverShrinks() {
        // Exact cross 100 and a stretch child with explicit height 150 → cross [150,150] → 150 tall; the line is 100
        // (exact), 100 − 150 < ε → not re-measured; it overflows. Stack 50×100.
        let l = rootLayout(StackLayoutSpec(alignItems: .stretch, children: [box(50, 150)]), range(0, 100, 300, 100))
        assertFrame(l, 0, 0, 0, 50, 150)
        assertSize(l, 50, 100)
    }

    func testExplicitZeroCrossHeightIsStretched() {
        // §7.2.3: height 0 → min "unset", max 0 → inverted → resolves to the line: exact cross 80 → 30×80.
        let l = rootLayout(StackLayoutSpec(alignItems: .stretch, children: [box(30, 0)]), exact(100, 80))
        assertFrame(l, 0, 0, 0, 30, 80)
    }

    func testFractionalMinOnStretchChildCollapsesToZero() {
        // §7.2.11: minWidth 50% resolved against (NaN,NaN) → NaN ≠ 0 → cross min NaN; the child's own intersect
        // with [150, inf] (50% of the exact 300) gives [NaN,NaN]; clamp → NaN → invalid → 0×0 (§4.4).
        let l = rootLayout(StackLayoutSpec(direction: .vertical, children: [leaf(50, 20) { $0.minWidth = .fraction(0.5) }]),
                           range(300, 0, 300, inf))
        assertFrame(l, 0, 0, 0, 0, 0)
    }

    func testStretchUsesCurrentMainSizeAfterFlexing() {
        // §7.2.8: the stretch re-measure uses s = the item's current (flexed) main size. Horizontal stretch, exact
        // 200×60: a leaf 20×10 grow 1 → 20 + 180 = 200 (measured cross [60,60] already, crossMin 60 exact) → 200×60.
        let l = rootLayout(StackLayoutSpec(alignItems: .stretch, children: [leaf(20, 10) { $0.flexGrow = 1 }]), exact(200, 60))
        assertFrame(l, 0, 0, 0, 200, 60)
    }

    func testStretchedNodeSubtreeIsTheLastMeasurement() {
        // §8.4: a nested node's subtree is the layout from its last measurement. A node whose own spec is a
        // vertical stack [plain] sits in a horizontal stretch stack [node, box 10×60], range [0,0]–[300,300].
        // First pass: node gets [0,inf]×[0,300] → its stack's plain child: max (inf, inf) invalid → 0×0 → node 0×0.
        // Line cross = 60 → node re-measured with [0,0]×[60,60] → its stack used [0,0]×[60,60]: plain child
        // cross [0,0], main [0,inf] → 0×0; stack = clamp((0, 0)) = 0×60 → node 0×60, and the node's layout holds
        // this second spec layout.
        let inner = plain(id: "inner")
        let node = DisplayNode(layoutSpec: StackLayoutSpec(direction: .vertical, children: [inner]), id: "node")
        let l = rootLayout(StackLayoutSpec(alignItems: .stretch, children: [node, box(10, 60)]), range(0, 0, 300, 300))
        assertFrame(l, 0, 0, 0, 0, 60)
        assertFrame(l, 1, 0, 0, 10, 60)
        let nodeLayout = l.sublayouts[0].layout
        assertFrame(nodeLayout, 0, 0, 0, 0, 60)                 // the node's spec layout (stretched measurement)
    }
}
