import XCTest
import LoomLayout

/// §7.2.2 (alignment sugar), §7.2.7 (line cross, baselines), §7.2.10 (positioning), §7.2.13 (stack
/// ascender/descender), §12 golden cases.
final class StackJustifyAlignTests: XCTestCase {

    /// Texture's `testStackLayoutSpecWithJustify`: horizontal stack, alignItems start, three 50×50 boxes.
    private func justified(_ justify: StackLayoutJustifyContent, _ r: SizeRange) -> (StackLayoutSpec, Layout) {
        let stack = StackLayoutSpec(direction: .horizontal, justifyContent: justify, alignItems: .start,
                                    children: [box(50, 50, id: "a"), box(50, 50, id: "b"), box(50, 50, id: "c")])
        return (stack, rootLayout(stack, r))
    }

    // MARK: justifyContent, underflow (children shorter than the minimum)

    func testGoldenJustifyCenterUnderflow() {
        // §12.1: range [300,0]–[300,300]; sum 150, violation +150, no grow → v = 150.
        // Single line, cross not exact: line cross = 50. center offset 75 → x = 75, 125, 175; y = 0.
        // Stack = clamp((150, 50)) = 300×50.
        let (_, l) = justified(.center, range(300, 0, 300, 300))
        assertSize(l, 300, 50)
        assertFrame(l, 0, 75, 0, 50, 50, slot: 0)
        assertFrame(l, 1, 125, 0, 50, 50, slot: 1)
        assertFrame(l, 2, 175, 0, 50, 50, slot: 2)
    }

    func testJustifyStartEndUnderflow() {
        // §7.2.10: start offset 0 → 0, 50, 100; end offset v = 150 → 150, 200, 250.
        var (_, l) = justified(.start, range(300, 0, 300, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.x), [0, 50, 100])
        (_, l) = justified(.end, range(300, 0, 300, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.x), [150, 200, 250])
        assertSize(l, 300, 50)
    }

    func testJustifySpaceBetweenAndAroundUnderflow() {
        // spaceBetween: gap 150/(3−1) = 75 → 0, 125, 250.
        var (_, l) = justified(.spaceBetween, range(300, 0, 300, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.x), [0, 125, 250])
        // spaceAround: unit 150/6 = 25, offset 25, extra gap 2·25 = 50 → 25, 25+50+50 = 125, 225.
        (_, l) = justified(.spaceAround, range(300, 0, 300, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.x), [25, 125, 225])
    }

    func testGoldenSpaceAroundWithRemainingSpace() {
        // §12 table: [305,0]–[305,300]; v = 155, unit = 155/6 = 25.8333…, gap 51.666…
        // raw x = 25.833…, 25.833 + 50 + 51.667 = 127.5, 229.1666…; no rounding in positioning (§7.2.10).
        let (stack, l) = justified(.spaceAround, range(305, 0, 305, 300))
        assertSize(l, 305, 50)
        assertFrame(l, 0, 155.0 / 6.0, 0, 50, 50, accuracy: 1e-9)
        assertFrame(l, 1, 127.5, 0, 50, 50, accuracy: 1e-9)
        assertFrame(l, 2, 155.0 / 6.0 + 2 * (50 + 155.0 / 3.0), 0, 50, 50, accuracy: 1e-9)
        // §8: flattened node positions are ceiled at 2x → 26, 127.5, 229.5.
        XCTAssertEqual(flattenedChildren(of: stack, l).map(\.x), [26, 127.5, 229.5])
    }

    func testGoldenSpaceBetweenWithRemainingSpace() {
        // §12 table: [301,0]–[301,300]; v = 151, gap 75.5 → 0, 125.5, 251.
        let (_, l) = justified(.spaceBetween, range(301, 0, 301, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.x), [0, 125.5, 251])
        assertSize(l, 301, 50)
    }

    func testJustifyHasNoEffectInsideRangeSlack() {
        // §7.2.10: v is measured against `used` [0,300]: sum 150 is inside → v = 0; end has no visible effect
        // and the stack is 150 long (clamp of 150 into [0,300]).
        let (_, l) = justified(.end, range(0, 0, 300, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.x), [0, 50, 100])
        assertSize(l, 150, 50)
    }

    func testSingleChildSpaceBetweenIsStartAndSpaceAroundIsCenter() {
        // §7.2.10: one item → spaceBetween = start, spaceAround = center (v = 250 → offset 125).
        // (Texture: testJustifiedSpaceBetweenWithOneChild / testJustifiedSpaceAroundWithOneChild, [300,0]–[300,inf].)
        var l = rootLayout(StackLayoutSpec(justifyContent: .spaceBetween, alignItems: .start, children: [box(50, 50)]),
                           range(300, 0, 300, inf))
        assertFrame(l, 0, 0, 0, 50, 50)
        l = rootLayout(StackLayoutSpec(justifyContent: .spaceAround, alignItems: .start, children: [box(50, 50)]),
                       range(300, 0, 300, inf))
        assertFrame(l, 0, 125, 0, 50, 50)
        assertSize(l, 300, 50)
    }

    // MARK: justifyContent, overflow

    func testGoldenJustifyCenterOverflow() {
        // §12 table: [110,0]–[110,300]; sum 150 > 110 → v = −40; center shifts by |v|/2 = 20 → −20, 30, 80.
        // Stack = clamp((150,50)) = 110×50.
        let (_, l) = justified(.center, range(110, 0, 110, 300))
        assertSize(l, 110, 50)
        XCTAssertEqual(l.sublayouts.map(\.position.x), [-20, 30, 80])
    }

    func testOverflowWithEveryJustifyValue() {
        // §7.2.10 with v = −40: start 0,50,100; end shifted by 40 → −40,10,60; spaceBetween (v < ε) → start;
        // spaceAround (v < ε) → center → −20,30,80.
        let expected: [(StackLayoutJustifyContent, [Double])] = [
            (.start, [0, 50, 100]), (.center, [-20, 30, 80]), (.end, [-40, 10, 60]),
            (.spaceBetween, [0, 50, 100]), (.spaceAround, [-20, 30, 80]),
        ]
        for (justify, xs) in expected {
            let (_, l) = justified(justify, range(110, 0, 110, 300))
            XCTAssertEqual(l.sublayouts.map(\.position.x), xs, "\(justify)")
            assertSize(l, 110, 50, "\(justify)")
        }
    }

    func testJustifiedCenterWithChildSpacing() {
        // Texture testJustifiedCenterWithChildSpacing: vertical, justify center, range [0,300]–[300,300],
        // sizes 50×50, 100×70, 150×90, spacingBefore 0/20/30 (alignItems start).
        // sum = 50 + 210 = 260 → v = 40 → offset 20: y = 20, 20+50+20 = 90, 90+70+30 = 190.
        // Cross [0,300] not exact → line cross = max 150; stack 150×300.
        let stack = StackLayoutSpec(direction: .vertical, justifyContent: .center, alignItems: .start, children: [
            box(50, 50), box(100, 70) { $0.spacingBefore = 20 }, box(150, 90) { $0.spacingBefore = 30 },
        ])
        let l = rootLayout(stack, range(0, 300, 300, 300))
        assertSize(l, 150, 300)
        assertFrame(l, 0, 0, 20, 50, 50)
        assertFrame(l, 1, 0, 90, 100, 70)
        assertFrame(l, 2, 0, 190, 150, 90)
    }

    // MARK: spacing

    func testChildSpacingBeforeAfterAndBalancedOut() {
        // Texture testChildSpacing: vertical, alignItems start, [0,0]–[inf,inf], boxes 50×50, 100×70, 150×90.
        func make(_ spacing: Double, _ b: (inout LayoutElementStyle) -> Void, _ c: (inout LayoutElementStyle) -> Void) -> Layout {
            rootLayout(StackLayoutSpec(direction: .vertical, spacing: spacing, alignItems: .start,
                                       children: [box(50, 50), box(100, 70, b), box(150, 90, c)]),
                       SizeRange.unconstrained)
        }
        // spacingBefore 10 / 20: y = 0, 50+10 = 60, 60+70+20 = 150; length 50+70+90+30 = 240.
        var l = make(0, { $0.spacingBefore = 10 }, { $0.spacingBefore = 20 })
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 60, 150])
        assertSize(l, 150, 240)
        // spacingAfter 10 / 20: y = 0, 50, 50+70+10 = 130; length 240 (the last spacingAfter counts in the sum).
        l = make(0, { $0.spacingAfter = 10 }, { $0.spacingAfter = 20 })
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 50, 130])
        assertSize(l, 150, 240)
        // spacingBalancedOut: spacing 10, middle before/after −10: y = 0, 50−10+10 = 50, 50+70−10+10 = 120;
        // length = 2×10 − 20 + 210 = 210 (negative spacings simply move items, §7.2.10).
        l = make(10, { $0.spacingBefore = -10; $0.spacingAfter = -10 }, { _ in })
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 50, 120])
        assertSize(l, 150, 210)
    }

    func testFirstItemSpacingBeforeIsApplied() {
        // §7.2.10: "The first item's spacingBefore is applied": p = 0 + 7 → x = 7; sum = 7 + 50 = 57.
        let l = rootLayout(StackLayoutSpec(alignItems: .start, children: [box(50, 50) { $0.spacingBefore = 7 }]),
                           SizeRange.unconstrained)
        assertFrame(l, 0, 7, 0, 50, 50)
        assertSize(l, 57, 50)
    }

    func testZeroSizeChildrenStillTakeSpacing() {
        // Zero-size children: spacing 10 between 0×0, 50×50, 0×0 → x = 0, 0+0+10 = 10, 10+50+10 = 70;
        // sum = 20 + 50 = 70; cross max 50.
        let l = rootLayout(StackLayoutSpec(spacing: 10, alignItems: .start,
                                           children: [box(0, 0), box(50, 50), box(0, 0)]), SizeRange.unconstrained)
        XCTAssertEqual(frames(l), [[0, 0, 0, 0], [10, 0, 50, 50], [70, 0, 0, 0]])
        assertSize(l, 70, 50)
    }

    func testEmptyStackTakesMin() {
        // §7.2.3 step 0 (Texture testEmptyStack): no children → used.min = 50×50.
        let l = rootLayout(StackLayoutSpec(children: []), range(50, 50, 300, 300))
        assertSize(l, 50, 50)
        XCTAssertTrue(l.sublayouts.isEmpty)
    }

    // MARK: alignItems / alignSelf

    /// Horizontal stack with an exact cross size 100 (line cross = 100, §7.2.7), children a 50×50, b 50×20, c 50×25.5.
    private func aligned(_ align: StackLayoutAlignItems) -> Layout {
        rootLayout(StackLayoutSpec(alignItems: align, children: [box(50, 50), box(50, 20), box(50, 25.5)]),
                   exact(300, 100))
    }

    func testAlignItemsStart() {
        XCTAssertEqual(aligned(.start).sublayouts.map(\.position.y), [0, 0, 0])
    }

    func testAlignItemsEnd() {
        // §7.2.10 end: line.cross − cross(item) = 100−50, 100−20, 100−25.5.
        XCTAssertEqual(aligned(.end).sublayouts.map(\.position.y), [50, 80, 74.5])
    }

    func testAlignItemsCenterFloorsToPixel() {
        // center: floorPx((100−50)/2) = 25, floorPx(40) = 40, floorPx(37.25) = floor(74.5 + ε)/2 = 37.
        XCTAssertEqual(aligned(.center).sublayouts.map(\.position.y), [25, 40, 37])
    }

    func testAlignItemsStretchKeepsExplicitSizes() {
        // stretch: offsets 0; explicitly sized children are not stretched (§7.2.3 quirk).
        let l = aligned(.stretch)
        XCTAssertEqual(frames(l), [[0, 0, 50, 50], [50, 0, 50, 20], [100, 0, 50, 25.5]])
    }

    func testAlignItemsStretchStretchesAutoHeight() {
        // A width-only child: stretch → cross range [crossMin 100, crossMax 100] → plain node (50,100).
        let l = rootLayout(StackLayoutSpec(alignItems: .stretch, children: [plain { $0.width = .points(50) }]),
                           exact(300, 100))
        assertFrame(l, 0, 0, 0, 50, 100)
    }

    func testAlignSelfOverridesAlignItems() {
        // §7.2.3: alignSelf end/center on children of an alignItems-start stack with exact cross 100.
        let l = rootLayout(StackLayoutSpec(alignItems: .start, children: [
            box(50, 50) { $0.alignSelf = .end }, box(50, 20) { $0.alignSelf = .center }, box(50, 10),
            plain { $0.width = .points(10); $0.alignSelf = .stretch },
        ]), exact(300, 100))
        // end: 100−50 = 50; center floorPx(40) = 40; auto → start 0; stretch: plain node gets [100,100] → 10×100.
        XCTAssertEqual(frames(l), [[0, 50, 50, 50], [50, 40, 50, 20], [100, 0, 50, 10], [150, 0, 10, 100]])
    }

    func testAlignEndWithNonExactCross() {
        // §7.2.7: cross not exact ([0,300]) → line cross = max child cross = 50; b (20) at 50−20 = 30.
        let l = rootLayout(StackLayoutSpec(alignItems: .end, children: [box(50, 50), box(50, 20)]), range(0, 0, 300, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 30])
        assertSize(l, 100, 50)
    }

    func testAlignCenterWithIndefiniteCrossDimension() {
        // Texture testAlignCenterWithIndefiniteCrossDimension: [150,0]–[150,inf], 100×100 (start) and
        // 50×50 alignSelf center. Line cross = 100 (clamp into [0,inf]); centre: floorPx(25) = 25.
        let l = rootLayout(StackLayoutSpec(alignItems: .start, children: [
            box(100, 100), box(50, 50) { $0.alignSelf = .center },
        ]), range(150, 0, 150, inf))
        XCTAssertEqual(frames(l), [[0, 0, 100, 100], [100, 25, 50, 50]])
        assertSize(l, 150, 100)
    }

    func testAlignedStartEndCenterVertical() {
        // Texture testAlignedStart/End/Center: vertical, justify center, exact 300×300, sizes 50×50, 100×70,
        // 150×90, spacingBefore 0/20/30 → sum 260, v = 40 → y = 20, 90, 190.
        func make(_ a: StackLayoutAlignItems) -> Layout {
            rootLayout(StackLayoutSpec(direction: .vertical, justifyContent: .center, alignItems: a, children: [
                box(50, 50), box(100, 70) { $0.spacingBefore = 20 }, box(150, 90) { $0.spacingBefore = 30 },
            ]), exact(300, 300))
        }
        XCTAssertEqual(make(.start).sublayouts.map(\.position), [Point(x: 0, y: 20), Point(x: 0, y: 90), Point(x: 0, y: 190)])
        // end: 300 − width.
        XCTAssertEqual(make(.end).sublayouts.map(\.position.x), [250, 200, 150])
        // center: floorPx((300 − w)/2) = 125, 100, 75.
        XCTAssertEqual(make(.center).sublayouts.map(\.position.x), [125, 100, 75])
    }

    // MARK: §7.2.2 horizontal/verticalAlignment

    func testAlignmentSugarMapping() {
        // §7.2.2 table.
        var s = StackLayoutSpec(direction: .horizontal, horizontalAlignment: .right, verticalAlignment: .bottom, children: [])
        XCTAssertEqual(s.justifyContent, .end); XCTAssertEqual(s.alignItems, .end)
        s = StackLayoutSpec(direction: .vertical, horizontalAlignment: .middle, verticalAlignment: .top, children: [])
        XCTAssertEqual(s.alignItems, .center); XCTAssertEqual(s.justifyContent, .start)
        // `none` leaves the explicit property alone.
        s = StackLayoutSpec(direction: .vertical, justifyContent: .end, horizontalAlignment: .middle, children: [])
        XCTAssertEqual(s.justifyContent, .end); XCTAssertEqual(s.alignItems, .center)
        s = StackLayoutSpec(direction: .horizontal, alignItems: .baselineFirst, horizontalAlignment: .left, children: [])
        XCTAssertEqual(s.justifyContent, .start); XCTAssertEqual(s.alignItems, .baselineFirst)
        // Service decision (§7.2.2): the alignment wins over the property it maps to.
        s = StackLayoutSpec(direction: .horizontal, justifyContent: .start, horizontalAlignment: .right, children: [])
        XCTAssertEqual(s.justifyContent, .end)
    }

    func testHorizontalAndVerticalAlignmentsLayout() {
        // Texture testHorizontalAndVerticalAlignments: 3×(50×50), exact 200×200.
        func make(_ d: StackLayoutDirection, _ h: HorizontalAlignment, _ v: VerticalAlignment) -> [Point] {
            rootLayout(StackLayoutSpec(direction: d, horizontalAlignment: h, verticalAlignment: v,
                                       children: [box(50, 50), box(50, 50), box(50, 50)]), exact(200, 200))
                .sublayouts.map(\.position)
        }
        // horizontal middle/center → justify center (v = 50 → offset 25), alignItems center (floorPx(75) = 75).
        XCTAssertEqual(make(.horizontal, .middle, .center), [Point(x: 25, y: 75), Point(x: 75, y: 75), Point(x: 125, y: 75)])
        // horizontal right/bottom → justify end (offset 50), alignItems end (150).
        XCTAssertEqual(make(.horizontal, .right, .bottom), [Point(x: 50, y: 150), Point(x: 100, y: 150), Point(x: 150, y: 150)])
        // vertical left/top → alignItems start, justify start.
        XCTAssertEqual(make(.vertical, .left, .top), [Point(x: 0, y: 0), Point(x: 0, y: 50), Point(x: 0, y: 100)])
        // vertical right/bottom → alignItems end (x 150), justify end (y offset 50).
        XCTAssertEqual(make(.vertical, .right, .bottom), [Point(x: 150, y: 50), Point(x: 150, y: 100), Point(x: 150, y: 150)])
    }

    // MARK: baselines §7.2.7

    /// a: 50×40 asc 30 desc −10; b: 50×20 asc 12 desc −6.
    private func baselineChildren() -> [LayoutElement] {
        [box(50, 40) { $0.ascender = 30; $0.descender = -10 }, box(50, 20) { $0.ascender = 12; $0.descender = -6 }]
    }

    func testBaselineFirst() {
        // baselineOf = ascender: a 30, b 12. A = 30; D = max(40−30, 20−12) = 10; M = 0 → line cross 40,
        // baseline 30. Offsets: a 30−30 = 0, b 30−12 = 18. Stack = (100, 40).
        let l = rootLayout(StackLayoutSpec(alignItems: .baselineFirst, children: baselineChildren()), range(0, 0, 300, 300))
        XCTAssertEqual(frames(l), [[0, 0, 50, 40], [50, 18, 50, 20]])
        assertSize(l, 100, 40)
    }

    func testBaselineLast() {
        // baselineOf = cross + descender: a 40−10 = 30, b 20−6 = 14. A = 30; D = max(10, 6) = 10 → 40.
        // Offsets: a 0, b 30−14 = 16.
        let l = rootLayout(StackLayoutSpec(alignItems: .baselineLast, children: baselineChildren()), range(0, 0, 300, 300))
        XCTAssertEqual(frames(l), [[0, 0, 50, 40], [50, 16, 50, 20]])
        assertSize(l, 100, 40)
    }

    func testBaselineLineCrossIsAscentPlusDescent() {
        // a 50×40 asc 30; b 50×50 asc 10. A = 30, D = max(40−30, 50−10) = 40 → line cross 70 (> any child).
        // Offsets: a 0, b 20. A non-baseline child (alignSelf start) 50×60 does not raise it: M = 60 < 70.
        let l = rootLayout(StackLayoutSpec(alignItems: .baselineFirst, children: [
            box(50, 40) { $0.ascender = 30 }, box(50, 50) { $0.ascender = 10 }, box(50, 60) { $0.alignSelf = .start },
        ]), range(0, 0, 300, 300))
        XCTAssertEqual(frames(l), [[0, 0, 50, 40], [50, 20, 50, 50], [100, 0, 50, 60]])
        assertSize(l, 150, 70)
    }

    func testBaselineWithTallerNonBaselineItem() {
        // a 50×40 asc 30, b 50×20 asc 12 → A + D = 40; c (start) 50×60 → M = 60 → line cross 60.
        let l = rootLayout(StackLayoutSpec(alignItems: .baselineFirst, children: baselineChildren() + [
            box(50, 60) { $0.alignSelf = .start },
        ]), range(0, 0, 300, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 18, 0])
        assertSize(l, 150, 60)
    }

    func testBaselineWithExactCross() {
        // §7.2.7 single line, exact cross: line cross = 100, baseline = max(0, 30, 12) = 30 → same offsets 0, 18.
        let l = rootLayout(StackLayoutSpec(alignItems: .baselineFirst, children: baselineChildren()), exact(300, 100))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 18])
        assertSize(l, 300, 100)
    }

    // MARK: §7.2.13 nested vertical stacks

    /// V = vertical stack (start) of t1 50×20 asc 15 desc −5 and t2 50×30 asc 20 desc −8; t3 50×40 asc 30 desc −6.
    private func nested(_ align: StackLayoutAlignItems) -> Layout {
        let v = StackLayoutSpec(direction: .vertical, alignItems: .start, children: [
            box(50, 20) { $0.ascender = 15; $0.descender = -5 }, box(50, 30) { $0.ascender = 20; $0.descender = -8 },
        ])
        let t3 = box(50, 40) { $0.ascender = 30; $0.descender = -6 }
        return rootLayout(StackLayoutSpec(alignItems: align, children: [v, t3]), range(0, 0, 300, 300))
    }

    func testVerticalStackTakesAscenderOfFirstAndDescenderOfLastChild() {
        // §7.2.13: V's ascender = first child's 15 (not offset by position), descender = last child's −8. V = 50×50.
        let vLayout = nested(.baselineFirst).sublayouts[0].layout
        assertSize(vLayout, 50, 50)
        XCTAssertEqual(vLayout.ascender, 15)
        XCTAssertEqual(vLayout.descender, -8)
    }

    func testNestedBaselineFirst() {
        // baselineOf: V 15, t3 30 → A = 30; D = max(50−15, 40−30) = 35 → line cross 65.
        // Offsets: V 30−15 = 15, t3 0. Stack (100, 65).
        let l = nested(.baselineFirst)
        XCTAssertEqual(frames(l), [[0, 15, 50, 50], [50, 0, 50, 40]])
        assertSize(l, 100, 65)
    }

    func testNestedBaselineLast() {
        // baselineOf: V 50−8 = 42, t3 40−6 = 34 → A = 42; D = max(8, 6) = 8 → 50. Offsets: V 0, t3 8.
        let l = nested(.baselineLast)
        XCTAssertEqual(frames(l), [[0, 0, 50, 50], [50, 8, 50, 40]])
        assertSize(l, 100, 50)
    }

    func testHorizontalStackKeepsItsStyleBaselineMetrics() {
        // §7.2.13: a horizontal stack sets nothing: its layout carries its own style values (default 0, here 7/−3).
        let h = StackLayoutSpec(children: [box(10, 10) { $0.ascender = 99; $0.descender = -99 }],
                                style: style { $0.ascender = 7; $0.descender = -3 })
        let l = rootLayout(h, SizeRange.unconstrained)
        XCTAssertEqual(l.ascender, 7)
        XCTAssertEqual(l.descender, -3)
        let plainH = rootLayout(StackLayoutSpec(children: [box(10, 10) { $0.ascender = 99 }]), SizeRange.unconstrained)
        XCTAssertEqual(plainH.ascender, 0)
    }

    func testDoublyNestedVerticalStacksPropagate() {
        // §7.2.13 recursively: inner vertical [x asc 4, y desc −2] inside outer vertical [inner, z desc −9]:
        // outer ascender = inner's ascender = 4; outer descender = z's −9.
        let inner = StackLayoutSpec(direction: .vertical, children: [box(10, 10) { $0.ascender = 4 }, box(10, 10) { $0.descender = -2 }])
        let outer = StackLayoutSpec(direction: .vertical, children: [inner, box(10, 10) { $0.descender = -9 }])
        let l = rootLayout(outer, SizeRange.unconstrained)
        XCTAssertEqual(l.ascender, 4)
        XCTAssertEqual(l.descender, -9)
    }
}
