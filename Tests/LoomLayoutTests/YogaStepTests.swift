import XCTest
@testable import LoomLayout

// Unit tests of the Yoga engine's steps. Every expected number is derived by hand in the
// comment next to it from Yoga 2.0.1's rules as docs/yoga.md describes them.

private func yleaf(_ w: Double? = nil, _ h: Double? = nil, id: String? = nil,
                   _ configure: (inout LayoutElementStyle, inout YogaStyle) -> Void = { _, _ in }) -> DisplayNode {
    ynode(id: id) { s, y in
        if let w { s.width = .points(w) }
        if let h { s.height = .points(h) }
        configure(&s, &y)
    }
}

private func row(_ configure: (inout LayoutElementStyle, inout YogaStyle) -> Void = { _, _ in },
                 _ children: [DisplayNode]) -> DisplayNode {
    ynode({ s, y in y.flexDirection = .horizontal; configure(&s, &y) }, children: children)
}

final class YogaStepTests: XCTestCase {

    // MARK: Flexible lengths

    func testGrowStopsAtMaxAndTheRestGoesToTheOther() {
        // Bases 0 and 0, free 300. First pass: a's 150 bounds to 50, taken out (delta 50,
        // grow factors 1); free 250. Second pass: a 50, b 0 + 250 = 250.
        let a = yleaf(nil, 10) { s, _ in s.flexGrow = 1; s.maxWidth = .points(50) }
        let b = yleaf(nil, 10) { s, _ in s.flexGrow = 1 }
        let l = rootLayout(row({ _, _ in }, [a, b]), exact(300, 100))
        XCTAssertEqual(frames(l), [[0, 0, 50, 10], [50, 0, 250, 10]])
    }

    func testAChildsMarginsAreSummedBeforeItsSize() {
        // YGNodeDimWithMargin: size + (leading + trailing), in floats. Above 2^23 floats are
        // whole numbers: 8,388,608 + (0.25 + 0.3 = 0.55) rounds to 8,388,609, where
        // (8,388,608 + 0.25) + 0.3 would stay at 8,388,608. The content-sized row is that wide.
        let a = yleaf(8_388_608, 10) { _, y in y.margin.left = .points(0.25); y.margin.right = .points(0.3) }
        let l = rootLayout(row({ _, _ in }, [a]), range(0, 0, inf, inf), scale: 1)
        XCTAssertEqual(l.size.width, 8_388_609)
    }

    func testShrinkStopsAtMin() {
        // Bases 80 + 80 in 100: free -60, scaled factors -160. First pass: b's 50 bounds to
        // min 70 (delta -10, factors -80); free -50. Second pass: a 80 - 50 = 30, b 70.
        let a = yleaf(80, 10) { s, _ in s.flexShrink = 1 }
        let b = yleaf(80, 10) { s, _ in s.flexShrink = 1; s.minWidth = .points(70) }
        let l = rootLayout(row({ _, _ in }, [a, b]), exact(100, 100))
        XCTAssertEqual(frames(l), [[0, 0, 30, 10], [30, 0, 70, 10]])
    }

    func testShrinkTakesOutTheFactorOfTheUnclampedBasis() {
        // a: basis 50, bounded by min 80. Consumed 80 + 40 in 100: free -20; the scaled factors
        // are collected from the unclamped bases, -50 - 40 = -90. First pass: a's 62.2 bounds
        // to 80; Yoga removes its collected factor (-50, not -80): factors -40, delta 0.
        // Second pass: a 80 + (-20 / -40) * -80 → min 80; b 40 + (-20 / -40) * -40 = 20.
        let a = yleaf(50, 10) { s, _ in s.flexShrink = 1; s.minWidth = .points(80) }
        let b = yleaf(40, 10) { s, _ in s.flexShrink = 1 }
        let l = rootLayout(row({ _, _ in }, [a, b]), exact(100, 100))
        XCTAssertEqual(frames(l), [[0, 0, 80, 10], [80, 0, 20, 10]])
    }

    func testRootInAnAtMostRangeIsContentSized() {
        // Style maxWidth 200: the root is laid out at most 200 (§2.3) and takes its content, 60.
        let root = row({ s, _ in s.maxWidth = .points(200) }, [yleaf(60, 10)])
        let l = rootLayout(root, range(0, 0, 375, inf))
        assertSize(l, 60, 10)
    }

    // MARK: Lines

    func testWrapPutsTheThirdChildOnASecondLine() {
        // 40 + 40 = 80 fits in 100, a third 40 does not: line 2 starts at the first line's height 20.
        let kids = (0..<3).map { _ in yleaf(40, 20) }
        let l = rootLayout(row({ _, y in y.flexWrap = .wrap }, kids), exact(100, 100))
        XCTAssertEqual(frames(l), [[0, 0, 40, 20], [40, 0, 40, 20], [0, 20, 40, 20]])
    }

    func testWrapReverseMirrorsTheLines() {
        // As above, then y = 100 - y - 20.
        let kids = (0..<3).map { _ in yleaf(40, 20) }
        let l = rootLayout(row({ _, y in y.flexWrap = .wrapReverse }, kids), exact(100, 100))
        XCTAssertEqual(frames(l), [[0, 80, 40, 20], [40, 80, 40, 20], [0, 60, 40, 20]])
    }

    // MARK: Justification and alignment

    func testJustifyCenterAndSpaceAround() {
        // Free 100 - 40 = 60: center leads 30; spaceAround puts 30 between and 15 before.
        let c = rootLayout(row({ _, y in y.justifyContent = .center }, [yleaf(20, 10), yleaf(20, 10)]), exact(100, 10))
        XCTAssertEqual(frames(c), [[30, 0, 20, 10], [50, 0, 20, 10]])
        let a = rootLayout(row({ _, y in y.justifyContent = .spaceAround }, [yleaf(20, 10), yleaf(20, 10)]), exact(100, 10))
        XCTAssertEqual(frames(a), [[15, 0, 20, 10], [65, 0, 20, 10]])
    }

    func testAlignItemsCenterEndAndStretch() {
        // Column 100 wide: center x = (100 - 20) / 2 = 40, end x = 80; a child without a
        // width is stretched to 100.
        let c = rootLayout(ynode({ _, y in y.alignItems = .center }, children: [yleaf(20, 10)]), exact(100, 100))
        XCTAssertEqual(frames(c), [[40, 0, 20, 10]])
        let e = rootLayout(ynode({ _, y in y.alignItems = .end }, children: [yleaf(20, 10)]), exact(100, 100))
        XCTAssertEqual(frames(e), [[80, 0, 20, 10]])
        let s = rootLayout(ynode(children: [yleaf(nil, 10)]), exact(100, 100))
        XCTAssertEqual(frames(s), [[0, 0, 100, 10]])
    }

    func testPlainLeafWithoutSizeIsZeroInARow() {
        // No measure function: a row child with nothing is 0 wide, stretched to the row's height.
        let l = rootLayout(row({ _, _ in }, [yleaf()]), exact(100, 40))
        XCTAssertEqual(frames(l), [[0, 0, 0, 40]])
    }

    // MARK: Absolute children

    func testAbsoluteChildFromTrailingAndLeadingEdges() {
        // Trailing: x = 100 - 10 - 5 = 85, y likewise; padding does not move absolute children.
        let br = yleaf(10, 10) { _, y in y.positionType = .absolute; y.position.right = .points(5); y.position.bottom = .points(5) }
        let tl = yleaf(10, 10) { _, y in y.positionType = .absolute; y.position.left = .points(5); y.position.top = .points(5) }
        let root = ynode({ _, y in y.padding.all = .points(10) }, children: [br, tl])
        let l = rootLayout(root, exact(100, 100))
        XCTAssertEqual(frames(l), [[85, 85, 10, 10], [5, 5, 10, 10]])
    }

    func testAbsoluteChildSizedByBothEdges() {
        // left 10, right 20 in 100: width 100 - 30 = 70.
        let a = yleaf(nil, 10) { _, y in
            y.positionType = .absolute; y.position.left = .points(10); y.position.right = .points(20)
        }
        let l = rootLayout(ynode(children: [a]), exact(100, 100))
        XCTAssertEqual(frames(l), [[10, 0, 70, 10]])
    }

    // MARK: Directions

    func testRTLRowStartsFromTheRightWithStartMargin() {
        // RTL row = rowReverse: right offsets 5 (margin start) and 25; left = 100 - 20 - right.
        let a = yleaf(20, 10) { _, y in y.margin.start = .points(5) }
        let l = rootLayout(row({ _, y in y.direction = .rtl }, [a, yleaf(20, 10)]), exact(100, 10))
        XCTAssertEqual(frames(l), [[75, 0, 20, 10], [55, 0, 20, 10]])
    }

    func testColumnReverse() {
        // Top offsets 0 and 10 from the bottom: y = 100 - 10 - offset.
        let l = rootLayout(ynode({ _, y in y.flexDirection = .verticalReverse }, children: [yleaf(10, 10), yleaf(10, 10)]), exact(100, 100))
        XCTAssertEqual(frames(l), [[0, 90, 10, 10], [0, 80, 10, 10]])
    }

    // MARK: Aspect ratio and percentages

    func testAspectRatioFromStretchedWidth() {
        // Stretched to 100 wide, aspectRatio 2 (width ÷ height) gives 50 high.
        let a = yleaf() { _, y in y.aspectRatio = 2 }
        let l = rootLayout(ynode(children: [a]), exact(100, 100))
        XCTAssertEqual(frames(l), [[0, 0, 100, 50]])
    }

    func testPercentagesOfTheContainer() {
        // 25 % of 200 and 50 % of 100; margin left 10 % of the width 200 = 20.
        let a = yleaf() { s, y in s.width = .fraction(0.25); s.height = .fraction(0.5); y.margin.left = .fraction(0.1) }
        let l = rootLayout(row({ _, _ in }, [a]), exact(200, 100))
        XCTAssertEqual(frames(l), [[20, 0, 50, 50]])
    }

    // MARK: Rounding

    func testRoundingAtScale2() {
        // 33.3 as a float is 33.29999924: ×2 = 66.6 rounds to 67 → 33.5; the next x likewise.
        let l = rootLayout(row({ _, _ in }, [yleaf(33.3, 10), yleaf(10, 10)]), exact(100, 10), scale: 2)
        XCTAssertEqual(frames(l), [[0, 0, 33.5, 10], [33.5, 0, 10, 10]])
    }

    func testThirdsAtScale3AndTheQuirk() {
        // 32 / 3 in floats is 10.66666698, just above the grid by more than FLT_EPSILON:
        // Texture's ceil moves it up a whole pixel, to 11, and the next x too (§4.2).
        let kids = (0..<3).map { _ in yleaf(nil, 10) { s, _ in s.flexGrow = 1 } }
        let l = rootLayout(row({ _, _ in }, kids), exact(32, 10), scale: 3)
        XCTAssertEqual(l.sublayouts[0].layout.size.width, 11)
        XCTAssertEqual(l.sublayouts[1].position.x, 11)
        // 31 / 3 is 10.33333302, below the grid: it stays 10.3333.
        let kids31 = (0..<3).map { _ in yleaf(nil, 10) { s, _ in s.flexGrow = 1 } }
        let m = rootLayout(row({ _, _ in }, kids31), exact(31, 10), scale: 3)
        XCTAssertEqual(m.sublayouts[0].layout.size.width, 31.0 / 3, accuracy: 1e-12)
    }

    func testMeasuredLeafOriginFloorsAndFarEdgeCeils() {
        // Column 100.3 wide with padding left 0.6, scale 1; both children stretched to 99.7.
        // The measured ("text") leaf floors its left 0.6 to 0 and ceils its far edge 100.3 to
        // 101 (its width has a fraction): 101 wide. The plain leaf rounds: left 1, right 100 → 99.
        let m = ynode(intrinsic: Size(width: 10, height: 10))
        let p = yleaf(nil, 10)
        let root = ynode({ _, y in y.padding.left = .points(0.6) }, children: [m, p])
        let l = rootLayout(root, exact(100.3, 50), scale: 1)
        XCTAssertEqual(frames(l), [[0, 0, 101, 10], [1, 10, 99, 10]])
    }

    // MARK: Baselines

    func testBaselineFirstAndLast() {
        // First: ascents 10 and 8 → b's top 10 - 8 = 2; the line is 10 + 20 high.
        let a = ynode(intrinsic: Size(width: 20, height: 30)) { s, _ in s.ascender = 10; s.descender = -5 }
        let b = ynode(intrinsic: Size(width: 20, height: 10)) { s, _ in s.ascender = 8; s.descender = -2 }
        let first = rootLayout(row({ _, y in y.alignItems = .baselineFirst }, [a, b]), range(100, 0, 100, inf))
        XCTAssertEqual(frames(first), [[0, 0, 20, 30], [20, 2, 20, 10]])
        assertSize(first, 100, 30)
        // Last: baselines are height + descender, 25 and 8 → b's top 25 - 8 = 17.
        let a2 = ynode(intrinsic: Size(width: 20, height: 30)) { s, _ in s.descender = -5 }
        let b2 = ynode(intrinsic: Size(width: 20, height: 10)) { s, _ in s.descender = -2 }
        let last = rootLayout(row({ _, y in y.alignItems = .baselineLast }, [a2, b2]), range(100, 0, 100, inf))
        XCTAssertEqual(frames(last), [[0, 0, 20, 30], [20, 17, 20, 10]])
    }

    // MARK: Texture's glue

    func testRootWidthIsNotClampedToTheRange() {
        // §2.4: width 500 in a 375 range is 500 wide.
        let root = ynode({ s, _ in s.width = .points(500) }, children: [yleaf(10, 10)])
        assertSize(rootLayout(root, range(0, 0, 375, inf)), 500, 10)
    }

    func testUnconstrainedRootIsContentSized() {
        // [0…∞]²: undefined available size, the root takes its content (service decision of §2).
        let root = row({ _, _ in }, [yleaf(30, 10), yleaf(20, 15)])
        assertSize(rootLayout(root, range(0, 0, inf, inf)), 50, 15)
    }

    func testFatalAssertionIsReported() {
        // A percentage margin against an undefined width: the child's main size 10 + NaN is
        // passed as exact, Yoga's assertion, reported on the root.
        let child = yleaf(10, 10) { _, y in y.margin.left = .fraction(0.1) }
        let root = row({ _, _ in }, [child])
        let context = LayoutContext(scale: 2)
        _ = calculateRootLayout(root, sizeRange: range(0, 0, inf, inf), context: context)
        XCTAssertEqual(context.yogaFailure?.root, ObjectIdentifier(root))
    }

    func testBaselineOfALeafNeverLaidOutIsFatal() {
        // Measuring the outer row, the inner row (height 16: cross exact, not performing
        // layout) skips flexing, so its leaf is never laid out and its height stays NaN. The
        // outer row is baseline-aligned: the leaf's baselineLast (height + descender) is NaN,
        // Yoga's "custom baseline function" assertion.
        let leaf = ynode(intrinsic: Size(width: 50, height: 20)) { s, _ in s.width = .points(20) }
        let inner = row({ s, y in y.alignItems = .baselineLast; s.height = .points(16) }, [leaf])
        let outer = row({ _, y in y.alignItems = .baselineFirst }, [inner])
        let root = ynode(children: [outer])
        let context = LayoutContext(scale: 2)
        _ = calculateRootLayout(root, sizeRange: range(0, 0, inf, inf), context: context)
        XCTAssertEqual(context.yogaFailure?.root, ObjectIdentifier(root))
    }

    func testRepeatedCallReturnsTheLastLayoutAndOthersRunAgain() {
        // §2: only a call equal to the previous one is answered from memory.
        let root = ynode(children: [yleaf(10, 10)])
        let context = LayoutContext(scale: 2)
        let a = root.layoutThatFits(exact(100, 100), parentSize: Size(width: 100, height: 100), context: context)
        XCTAssertTrue(a === root.layoutThatFits(exact(100, 100), parentSize: Size(width: 100, height: 100), context: context))
        _ = root.layoutThatFits(exact(50, 50), parentSize: Size(width: 50, height: 50), context: context)
        let before = context.computedLayouts
        let again = root.layoutThatFits(exact(100, 100), parentSize: Size(width: 100, height: 100), context: context)
        XCTAssertEqual(context.computedLayouts, before + 1)
        XCTAssertEqual(frames(again), frames(a))
    }

    func testBudgetBoundsAYogaTree() {
        let kids = (0..<500).map { _ in yleaf(1, 1) }
        let budget = LayoutBudget(limits: LayoutLimits(measurements: 100))
        let context = LayoutContext(scale: 2, budget: budget)
        _ = calculateRootLayout(row({ _, _ in }, kids), sizeRange: exact(100, 100), context: context)
        XCTAssertNotNil(budget.stop)
    }

    func testDeepNestIsLinear() {
        // 200 nested rows of stretched, flexing containers: the work stays linear in the depth.
        var node = yleaf(nil, nil) { s, _ in s.flexGrow = 1 }
        for k in 0..<200 {
            let inner = node
            node = ynode({ s, y in y.flexDirection = k % 2 == 0 ? .horizontal : .vertical; s.flexGrow = 1; y.padding.all = .points(0.5) },
                         children: [inner])
        }
        let budget = LayoutBudget(limits: LayoutLimits(measurements: 200_000))
        let context = LayoutContext(scale: 2, budget: budget)
        _ = calculateRootLayout(node, sizeRange: range(0, 0, 375, inf), context: context)
        XCTAssertNil(budget.stop)
        XCTAssertLessThan(budget.spent.measurements, 200 * 20)
    }
}

final class YogaMixedEngineTests: XCTestCase {
    func testYogaRootInsideAMeasuredLeafsOwnLayout() {
        // The leaf is measured through its inset (atMost 200×100 → the inner root gets
        // [0…190]×[0…90], exact on both axes by §2.3 → 190×90 → leaf 200×100), then laid
        // out again at 200×100 (§5.4): the inner root sits at (5, 5) with its boxes in a row.
        let inner = ynode({ _, y in y.flexDirection = .horizontal }, children: [
            ynode { s, _ in s.width = .points(10); s.height = .points(10) },
            ynode { s, _ in s.width = .points(10); s.height = .points(10) }])
        let leaf = ynode(spec: InsetLayoutSpec(insets: EdgeInsets(top: 5, left: 5, bottom: 5, right: 5), child: inner))
        let root = ynode({ _, y in y.flexDirection = .horizontal; y.alignItems = .start }, children: [leaf])
        let l = rootLayout(root, exact(200, 100))
        XCTAssertEqual(frames(l), [[0, 0, 200, 100]])
        let insetLayout = l.sublayouts[0].layout.sublayouts[0].layout
        XCTAssertEqual(frames(insetLayout), [[5, 5, 190, 90]])
        XCTAssertEqual(frames(insetLayout.sublayouts[0].layout), [[0, 0, 10, 10], [10, 0, 10, 10]])
    }

    func testYogaRootsFlexedByAStackKeepTheirLayouts() {
        // A horizontal stack measures its Yoga children more than once (flex pass): each
        // Yoga root is 100 wide by style, shrinks are 0, so they stay 100 and overflow 150.
        let make = { ynode({ s, y in s.width = .points(100); y.flexDirection = .horizontal }, children: [
            ynode { s, _ in s.width = .points(30); s.height = .points(20) }]) }
        let stack = StackLayoutSpec(direction: .horizontal, children: [make(), make()])
        let l = rootLayout(stack, range(150, 0, 150, inf))
        XCTAssertEqual(frames(l), [[0, 0, 100, 20], [100, 0, 100, 20]])
        XCTAssertEqual(frames(l.sublayouts[1].layout), [[0, 0, 30, 20]])
    }
}

final class YogaPathDependenceTests: XCTestCase {
    func testFlexBasisComputedWhileTheMainSizeWasUndefinedIsKept() {
        // §2 "Repeated measurement": measured first in [0…∞]², the child's points flexBasis 50
        // is skipped (main size undefined) and its basis is its content, 0; Yoga keeps that
        // computed basis, so the next pass at exactly 100×10 leaves it 0 wide. A fresh tree
        // measured at 100×10 at once gives 50.
        func make() -> DisplayNode {
            ynode({ _, y in y.flexDirection = .horizontal }, children: [
                ynode { s, _ in s.flexBasis = .points(50); s.height = .points(10) }])
        }
        let context = LayoutContext(scale: 2)
        let root = make()
        _ = root.layoutThatFits(range(0, 0, inf, inf), parentSize: Size(width: inf, height: inf), context: context)
        let second = root.layoutThatFits(exact(100, 10), parentSize: Size(width: 100, height: 10), context: context)
        XCTAssertEqual(frames(second), [[0, 0, 0, 10]])
        let fresh = make().layoutThatFits(exact(100, 10), parentSize: Size(width: 100, height: 10), context: context)
        XCTAssertEqual(frames(fresh), [[0, 0, 50, 10]])
    }
}
