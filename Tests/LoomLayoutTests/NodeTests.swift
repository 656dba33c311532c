import XCTest
import LoomLayout

/// §4 display nodes, §5 root call, §8 (structure of a node's layout).
final class NodeTests: XCTestCase {

    // MARK: §4.2 plain node

    func testPlainNodeTakesFiniteMax() {
        // §4.2: calculateSizeThatFits(used.max = 100×50) is valid → 100×50, clamp keeps it.
        let l = rootLayout(plain(), range(0, 0, 100, 50))
        assertSize(l, 100, 50)
        XCTAssertTrue(l.sublayouts.isEmpty)
    }

    func testPlainNodeWithInfiniteMaxTakesMinInBothAxes() {
        // §4.2: max (100, inf) is not a valid size → (0,0) → clamp → used.min in BOTH axes.
        assertSize(rootLayout(plain(), range(0, 0, 100, inf)), 0, 0)
        assertSize(rootLayout(plain(), range(30, 20, 100, inf)), 30, 20)
        // 1e7 is finite but fails validForSize (§1.3); CGFLOAT_MAX too (§0).
        assertSize(rootLayout(plain(), range(5, 5, 1e7, 100)), 5, 5)
        assertSize(rootLayout(plain(), range(7, 3, 100, cgFloatMax)), 7, 3)
    }

    func testPlainNodeStyleAgainstRootRange() {
        // §3.3 + §5: style width 60 resolved against range.max → [60,60]; ∩ [0,100] → [60,60];
        // height [0,100] → calculateSizeThatFits((60,100)) → 60×100.
        assertSize(rootLayout(plain { $0.width = .points(60) }, range(0, 0, 100, 100)), 60, 100)
        // Width 150 in [0,100]: constrained wins → [100,100] (§2.3 second branch).
        assertSize(rootLayout(plain { $0.width = .points(150) }, range(0, 0, 100, 100)), 100, 100)
        // Width 150 in [200,300]: → [200,200]; height max 300 → 200×300.
        assertSize(rootLayout(plain { $0.width = .points(150) }, range(200, 0, 300, 300)), 200, 300)
    }

    func testPlainNodeWithInvertedRootRange() {
        // min > max ranges (§2.1 "inverted ranges do occur"): [200,100] ∩ [0,inf] → lo 200 > hi 100,
        // 200 < 0 false → [200,200]; height [0,100] → calculateSizeThatFits((200,100)) → 200×100.
        assertSize(rootLayout(plain(), range(200, 0, 100, 100)), 200, 100)
    }

    // MARK: §4.3 intrinsic size

    func testIntrinsicSizeIsClampedIntoRange() {
        // §4.3: size = clamp(used, intrinsic).
        assertSize(rootLayout(leaf(40, 30), range(0, 0, 100, 100)), 40, 30)
        assertSize(rootLayout(leaf(40, 30), range(50, 0, 100, 20)), 50, 20)
        // The offered max is irrelevant, even if infinite.
        assertSize(rootLayout(leaf(40, 30), SizeRange.unconstrained), 40, 30)
    }

    func testIntrinsicSizeIsPixelCeiled() {
        // §4.4/§6: 33.3 → ceil(66.6)/2 = 33.5; 10.1 → ceil(20.2)/2 = 10.5 at 2x;
        // at 3x: 33.3 → ceil(99.9)/3 = 100/3; 10.1 → 31/3.
        assertSize(rootLayout(leaf(33.3, 10.1), SizeRange.unconstrained), 33.5, 10.5)
        assertSize(rootLayout(leaf(33.3, 10.1), SizeRange.unconstrained, scale: 3), 100.0 / 3.0, 31.0 / 3.0)
    }

    func testImageNode() {
        // §4.3: an image node returns the image size whatever it is offered.
        assertSize(rootLayout(ImageNode(intrinsicSize: Size(width: 40, height: 30)), range(0, 0, 375, inf)), 40, 30)
        // Without an image it is a plain node (§4.3): fills a finite max.
        assertSize(rootLayout(ImageNode(intrinsicSize: nil), range(0, 0, 100, 50)), 100, 50)
    }

    // MARK: §4.4 invalid sizes

    func testInvalidSizeBecomesZeroByZero() {
        // §4.4: an intrinsic width of 2e7 clamps to 2e7 in [0,inf], which is >= 1e7 → whole size 0×0
        // (the valid height 10 is lost too).
        assertSize(rootLayout(leaf(2e7, 10), SizeRange.unconstrained), 0, 0)
        // A plain node forced to an infinite min: (0,0) clamped to min (inf,10) → invalid → 0×0.
        assertSize(rootLayout(plain(), range(inf, 10, inf, 10)), 0, 0)
    }

    func testFractionOfInfiniteRootBecomesZeroByZero() {
        // §5: width 50% resolved against range.max.w = inf → inf; exact inf is not > hi (inf) →
        // [inf,inf]; ∩ [0,inf] → [inf,inf]; size inf → invalid → 0×0 (§4.4).
        assertSize(rootLayout(plain { $0.width = .fraction(0.5) }, range(0, 0, inf, 100)), 0, 0)
    }

    // MARK: §5 root call

    func testRootStyleResolvesAgainstRangeMax() {
        // §5: parent size = range.max = (300, 200) → width 50% = 150 → [150,150]; height [0,200] → 150×200.
        assertSize(rootLayout(plain { $0.width = .fraction(0.5) }, range(0, 0, 300, 200)), 150, 200)
    }

    func testSpecRootAppliesItsStyle() {
        // §5 / §3.3: a stack root with width 100 → used [100,100] × [0,300]; no children → used.min (§7.2.3 step 0)
        // = 100×0.
        let stack = StackLayoutSpec(children: [], style: style { $0.width = .points(100) })
        assertSize(rootLayout(stack, range(0, 0, 300, 300)), 100, 0)
        // Fraction against range.max: 50% of 300 = 150.
        let stack2 = StackLayoutSpec(children: [], style: style { $0.width = .fraction(0.5); $0.minHeight = .points(7) })
        assertSize(rootLayout(stack2, range(0, 0, 300, 300)), 150, 7)
    }

    // MARK: §4.1 step 3: nodes with their own layout spec

    func testNodeWithOwnLayoutSpec() {
        // §4.1 step 3: the spec is measured with the node's used range [0,200]×[0,100] and parent (200,100).
        // Inset 10 all round (§7.3): child range max (180,80) → plain child 180×80; spec 200×100; child at (10,10).
        // The node takes the spec's size and holds the spec layout as its only child at (0,0).
        let inner = plain()
        let node = DisplayNode(layoutSpec: InsetLayoutSpec(insets: EdgeInsets(top: 10, left: 10, bottom: 10, right: 10),
                                                           child: inner))
        let l = rootLayout(node, range(0, 0, 200, 100))
        assertSize(l, 200, 100)
        XCTAssertEqual(l.sublayouts.count, 1)
        assertFrame(l, 0, 0, 0, 200, 100, slot: 0)
        assertFrame(l.sublayouts[0].layout, 0, 10, 10, 180, 80, slot: 0)
    }

    func testNodeStyleBoundsItsSpec() {
        // §4.1: node width 100 → used [100,100]×[0,300]. Its vertical stretch stack gets that range;
        // the 50×50 child keeps its explicit width (§7.2.3), stack size clamp((50,50)) → 100×50.
        let node = DisplayNode(layoutSpec: StackLayoutSpec(direction: .vertical, children: [box(50, 50)]),
                               style: style { $0.width = .points(100) })
        let l = rootLayout(node, range(0, 0, 300, 300))
        assertSize(l, 100, 50)
        assertFrame(l.sublayouts[0].layout, 0, 0, 0, 50, 50)
    }

    func testNodeSpecGetsUsedMaxAsParentSize() {
        // §3.4: display node → its spec with parent size used.max = (200,100). A wrapper passes its own
        // used.max (200,100) to the child (§7.1), so a child width 50% resolves to 100; height auto → the
        // plain node takes max 100 → 100×100. Wrapper size = MAX(used.min 0, largest child) = 100×100, and
        // the node takes the spec's size (not re-clamped, §4.1 step 3).
        let node = DisplayNode(layoutSpec: WrapperLayoutSpec(children: [plain { $0.width = .fraction(0.5) }]))
        let l = rootLayout(node, range(0, 0, 200, 100))
        assertSize(l, 100, 100)
        assertFrame(l.sublayouts[0].layout, 0, 0, 0, 100, 100)
    }

    func testNodeSpecWithInfiniteParentFraction() {
        // §3.4: node in an unbounded range → its spec gets parent size used.max = (inf, inf); the wrapper's
        // child width 50% → inf → exact inf → [inf,inf] → invalid size → 0×0 (§4.4, §14).
        let node = DisplayNode(layoutSpec: WrapperLayoutSpec(children: [plain { $0.width = .fraction(0.5) }]))
        let l = rootLayout(node, SizeRange.unconstrained)
        assertFrame(l.sublayouts[0].layout, 0, 0, 0, 0, 0)
        assertSize(l, 0, 0)
    }

    func testNestedNodesWithTheirOwnLayout() {
        // Outer node (vertical stretch stack) holding an inner node (inset 5 around a 20×20 image) and a
        // plain node of height 10, root range [100,0]–[100,inf].
        // Stack used [100,100]×[0,inf]. Inner: stretch, style auto → cross [100,100], main [0,inf].
        //   Inner's inset (§7.3): child range [90,90]×[0,inf] → image 20×20 clamped → 90×20;
        //   inset size clamp((100,30)) = 100×30, image at (5,5). Inner node = 100×30.
        // Plain: [100,100] × [10,10] → 100×10. Positions y = 0, 30. Stack = clamp((40 main, 100 cross)) = 100×40.
        let image = ImageNode(intrinsicSize: Size(width: 20, height: 20), id: "image")
        let inner = DisplayNode(layoutSpec: InsetLayoutSpec(insets: EdgeInsets(top: 5, left: 5, bottom: 5, right: 5),
                                                            child: image), id: "inner")
        let bottom = plain(id: "bottom") { $0.height = .points(10) }
        let outer = DisplayNode(layoutSpec: StackLayoutSpec(direction: .vertical, children: [inner, bottom]), id: "outer")
        let l = rootLayout(outer, range(100, 0, 100, inf))
        assertSize(l, 100, 40)
        // §8: the outer node's flattened children are the two nodes its spec placed, not the image.
        XCTAssertEqual(flattenedChildren(of: outer, l), [
            FlatFrame(id: "inner", x: 0, y: 0, width: 100, height: 30),
            FlatFrame(id: "bottom", x: 0, y: 30, width: 100, height: 10),
        ])
        // The inner node's own layout places the image (its frames are relative to the inner node).
        let innerLayout = l.sublayouts[0].layout.sublayouts[0].layout
        assertSize(innerLayout, 100, 30)
        XCTAssertEqual(flattenedChildren(of: inner, innerLayout), [FlatFrame(id: "image", x: 5, y: 5, width: 90, height: 20)])
    }

    func testNodeBaselineMetricsComeFromItsStyle() {
        // §7.2.7: ascender/descender are read from the element's style after measuring; a plain node keeps
        // its style values.
        let l = rootLayout(box(10, 10) { $0.ascender = 8; $0.descender = -2 }, SizeRange.unconstrained)
        XCTAssertEqual(l.ascender, 8)
        XCTAssertEqual(l.descender, -2)
    }

    func testDisplayNodeOrSpec() {
        XCTAssertTrue(plain().isDisplayNode)
        XCTAssertFalse(LayoutSpec().isDisplayNode)
    }
}
