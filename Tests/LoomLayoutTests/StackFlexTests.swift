import XCTest
import LoomLayout

/// §7.2.4 (first pass, flexBasis), §7.2.5 (grow/shrink), §7.2.6 (optimized flexing), §12 golden cases.
/// Unless stated, stacks use alignItems start (as Texture's ASStackLayoutSpecStyle struct default does).
final class StackFlexTests: XCTestCase {

    private func hstack(_ children: [LayoutElement], spacing: Double = 0) -> StackLayoutSpec {
        StackLayoutSpec(direction: .horizontal, spacing: spacing, alignItems: .start, children: children)
    }
    private func vstack(_ children: [LayoutElement]) -> StackLayoutSpec {
        StackLayoutSpec(direction: .vertical, alignItems: .start, children: children)
    }

    // MARK: grow

    func testGoldenGrowRemainderGoesToFirstGrowingChild() {
        // §12.3 / §7.2.5 (testRemainingViolationIsAppliedProperlyToFirstFlexibleChild): vertical, exact 300×300,
        // heights 25, 0, 100 (width 50), grow 0/1/1. Violation 300 − 125 = 175, F = 2, adj floor(87.5) = 87 each,
        // remaining 175 − 174 = 1 → first growing child: 0 + 87 + 1 = 88; 100 + 87 = 187. y = 0, 25, 113.
        let l = rootLayout(vstack([box(50, 25), box(50, 0) { $0.flexGrow = 1 }, box(50, 100) { $0.flexGrow = 1 }]),
                           exact(300, 300))
        XCTAssertEqual(frames(l), [[0, 0, 50, 25], [0, 25, 50, 88], [0, 113, 50, 187]])
        assertSize(l, 300, 300)
    }

    func testGrowWithArbitraryFloatFactors() {
        // Same with grow 0.5/0.5: share = floor(175 × 0.5/1) = 87 → identical result.
        let l = rootLayout(vstack([box(50, 25), box(50, 0) { $0.flexGrow = 0.5 }, box(50, 100) { $0.flexGrow = 0.5 }]),
                           exact(300, 300))
        XCTAssertEqual(l.sublayouts.map(\.layout.size.height), [25, 88, 187])
    }

    func testGrowProportionally() {
        // testPositiveViolationIsDistributedProportionally: vertical exact 350, 3×50, grow 1/2/1:
        // v = 200, F = 4 → floor(50) = 50, floor(100) = 100, 50; remaining 0 → 100, 150, 100; y = 0, 100, 250.
        let l = rootLayout(vstack([box(50, 50) { $0.flexGrow = 1 }, box(50, 50) { $0.flexGrow = 2 },
                                   box(50, 50) { $0.flexGrow = 1 }]), exact(350, 350))
        XCTAssertEqual(l.sublayouts.map(\.layout.size.height), [100, 150, 100])
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 100, 250])
    }

    func testGrowAmongMixedChildren() {
        // testPositiveViolationIsDistributedEquallyAmongMixedChildren: exact 400, 4×50, shrink1/grow1/shrink0/grow1.
        // v = 200 > 0 → factors are the grow values 0,1,0,1 → F = 2 → +100 each to b and d → 50,150,50,150.
        let l = rootLayout(hstack([box(50, 50) { $0.flexShrink = 1 }, box(50, 50) { $0.flexGrow = 1 },
                                   box(50, 50), box(50, 50) { $0.flexGrow = 1 }]), exact(400, 400))
        XCTAssertEqual(l.sublayouts.map(\.position.x), [0, 50, 200, 250])
        XCTAssertEqual(l.sublayouts.map(\.layout.size.width), [50, 150, 50, 150])
    }

    func testGrowWithSpacingAndUnequalFactors() {
        // exact 300×50, spacing 10, 50 + 50 with grow 1 and 2: sum 110, v = 190, F = 3:
        // floor(63.33) = 63, floor(126.67) = 126; remaining 1 → first: 50+63+1 = 114; 50+126 = 176. x = 0, 124.
        let l = rootLayout(hstack([box(50, 50) { $0.flexGrow = 1 }, box(50, 50) { $0.flexGrow = 2 }], spacing: 10),
                           exact(300, 50))
        XCTAssertEqual(frames(l), [[0, 0, 114, 50], [124, 0, 176, 50]])
    }

    func testGrowShareFlooringToZeroGrowsNothing() {
        // §7.2.5: violation 0.5 (≥ ε) with one grow item: floor(0.5) = 0 → nothing grows; child stays 100.
        let l = rootLayout(hstack([box(100, 50) { $0.flexGrow = 1 }]), exact(100.5, 50))
        assertFrame(l, 0, 0, 0, 100, 50)
        assertSize(l, 100.5, 50)
    }

    func testViolationBelowEpsilonDoesNotFlex() {
        // §7.2.5: |violation| = 0.005 < ε = 0.01 → factors 0 → no flexing even though grow is set.
        let l = rootLayout(hstack([box(100, 50) { $0.flexGrow = 1 }]), exact(100.005, 50))
        assertFrame(l, 0, 0, 0, 100, 50)
    }

    func testGoldenUnderflowFlexWithUnequalIntrinsicSizes() {
        // testFlexWithUnequalIntrinsicSizes underflow: [300,0]–[300,150], 50×50, 150×150, 50×50, all grow 1 shrink 1
        // (three flexible children → no optimized flexing). v = 300 − 250 = 50, F = 3, floor(16.67) = 16 each,
        // remaining 2 → first: 68, 166, 66. x = 0, 68, 234. Cross [0,150], line = 150.
        let kids = [box(50, 50), box(150, 150), box(50, 50)]
        for k in kids { k.style.flexGrow = 1; k.style.flexShrink = 1 }
        let l = rootLayout(hstack(kids), range(300, 0, 300, 150))
        XCTAssertEqual(frames(l), [[0, 0, 68, 50], [68, 0, 166, 150], [234, 0, 66, 50]])
        assertSize(l, 300, 150)
    }

    // MARK: shrink

    func testGoldenSizeWeightedShrink() {
        // §12.2 (testNegativeViolationIsDistributedBasedOnSizeAndFlexFactorDoesNotShrinkToZero — its comment
        // "flex by 50" is stale, §12.1): exact 400×400, widths 300/100/200 (h 50), shrink 1/2/1.
        // v = −200, F = 4, w = 75/50/50, W = 175; adj = −85.714…, −57.142…, −57.142…;
        // targets 214.2857…, 42.857…, 142.857… → ceilPx 214.5, 43, 143.
        // Frames (0,0,214.5,50), (214.5,0,43,50), (257.5,0,143,50); stack 400×400.
        let l = rootLayout(hstack([box(300, 50) { $0.flexShrink = 1 }, box(100, 50) { $0.flexShrink = 2 },
                                   box(200, 50) { $0.flexShrink = 1 }]), exact(400, 400))
        XCTAssertEqual(frames(l), [[0, 0, 214.5, 50], [214.5, 0, 43, 50], [257.5, 0, 143, 50]])
        assertSize(l, 400, 400)
    }

    func testSizeWeightedShrinkAtOtherScales() {
        // §0/§6: results depend on the scale. Same targets 214.2857…, 42.857…, 142.857…:
        // 3x: ceil(642.86)/3 = 643/3, ceil(128.57)/3 = 129/3 = 43, ceil(428.57)/3 = 143 → x = 0, 643/3, 643/3 + 43.
        // 1x: 215, 43, 143 → x = 0, 215, 258.
        func make(_ scale: Double) -> Layout {
            rootLayout(hstack([box(300, 50) { $0.flexShrink = 1 }, box(100, 50) { $0.flexShrink = 2 },
                               box(200, 50) { $0.flexShrink = 1 }]), exact(400, 400), scale: scale)
        }
        let l3 = make(3)
        XCTAssertEqual(l3.sublayouts.map(\.layout.size.width), [643.0 / 3.0, 43, 143])
        XCTAssertEqual(l3.sublayouts.map(\.position.x), [0, 643.0 / 3.0, 643.0 / 3.0 + 43])
        let l1 = make(1)
        XCTAssertEqual(l1.sublayouts.map(\.layout.size.width), [215, 43, 143])
        XCTAssertEqual(l1.sublayouts.map(\.position.x), [0, 215, 258])
    }

    func testStackWithInvertedStyleRange() {
        // min > max on the stack's own style: minWidth 200 > maxWidth 100 → hi <= lo → [200,200] (§3.2, min wins);
        // ∩ root [0,300] → [200,200]. Children 50 + grow 1 → the grower takes 150.
        let s = StackLayoutSpec(alignItems: .start, children: [box(50, 10), box(0, 10) { $0.flexGrow = 1 }],
                                style: style { $0.minWidth = .points(200); $0.maxWidth = .points(100) })
        let l = rootLayout(s, range(0, 0, 300, 300))
        assertSize(l, 200, 10)
        XCTAssertEqual(frames(l), [[0, 0, 50, 10], [50, 0, 150, 10]])
    }

    func testShrinkBasedOnSize() {
        // testNegativeViolationIsDistributedBasedOnSize: 300/100/200 shrink 1/0/1, exact 400:
        // F = 2, w = 150, 0, 100, W = 250 → −120, 0, −80 → 180, 100, 120; x = 0, 180, 280.
        let l = rootLayout(hstack([box(300, 50) { $0.flexShrink = 1 }, box(100, 50), box(200, 50) { $0.flexShrink = 1 }]),
                           exact(400, 400))
        XCTAssertEqual(frames(l), [[0, 0, 180, 50], [180, 0, 100, 50], [280, 0, 120, 50]])
    }

    func testShrinkBasedOnSizeAndFactorVertical() {
        // testNegativeViolationIsDistributedBasedOnSizeAndFlexFactor: vertical heights 300/100/200 shrink 2/1/2.
        // F = 5; w = 120, 20, 80; W = 220; adj = −109.09…, −18.18…, −72.72…;
        // targets 190.909 → ceil(381.8)/2 = 191; 81.818 → 82; 127.27 → ceil(254.5)/2 = 127.5. y = 0, 191, 273.
        let l = rootLayout(vstack([box(50, 300) { $0.flexShrink = 2 }, box(50, 100) { $0.flexShrink = 1 },
                                   box(50, 200) { $0.flexShrink = 2 }]), exact(400, 400))
        XCTAssertEqual(frames(l), [[0, 0, 50, 191], [0, 191, 50, 82], [0, 273, 50, 127.5]])
    }

    func testShrinkAmongMixedChildren() {
        // testNegativeViolationIsDistributedBasedOnSizeAndFlexFactorAmongMixedChildren: vertical, heights
        // 150/100/150/200, grow1/shrink1/grow0/shrink3, exact 400. v = −200, F = 0+1+0+3 = 4;
        // w = 0, 25, 0, 150; W = 175 → adj 0, −28.571…, 0, −171.428… → 71.43 → ceilPx 71.5; 28.57 → 29.
        // y = 0, 150, 221.5, 371.5.
        let l = rootLayout(vstack([box(50, 150) { $0.flexGrow = 1 }, box(50, 100) { $0.flexShrink = 1 },
                                   box(50, 150), box(50, 200) { $0.flexShrink = 3 }]), exact(400, 400))
        XCTAssertEqual(l.sublayouts.map(\.layout.size.height), [150, 71.5, 150, 29])
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 150, 221.5, 371.5])
    }

    func testGoldenGrowOneShrinkOneOverflow() {
        // §12 table: 3×(50×50) grow 1 shrink 1 in [110,0]–[110,300]: v = −40, F = 3, w = 50/3 each, W = 50,
        // adj = −13.33… each (+ float dust on the first, which also grows) → 36.67 → ceilPx 37; x = 0, 37, 74.
        // Line 111 → stack clamp → 110×50.
        let kids = [box(50, 50), box(50, 50), box(50, 50)]
        for k in kids { k.style.flexGrow = 1; k.style.flexShrink = 1 }
        let l = rootLayout(StackLayoutSpec(alignItems: .start, children: kids), range(110, 0, 110, 300))
        XCTAssertEqual(frames(l), [[0, 0, 37, 50], [37, 0, 37, 50], [74, 0, 37, 50]])
        assertSize(l, 110, 50)
    }

    func testOverflowFlexWithUnequalIntrinsicSizes() {
        // testFlexWithUnequalIntrinsicSizes overflow: [200,0]–[200,150]; v = −50, F = 3, w = 16.67, 50, 16.67,
        // W = 83.33 → adj −10, −30, −10 → 40, 120, 40; x = 0, 40, 160.
        let kids = [box(50, 50), box(150, 150), box(50, 50)]
        for k in kids { k.style.flexGrow = 1; k.style.flexShrink = 1 }
        let l = rootLayout(hstack(kids), range(200, 0, 200, 150))
        XCTAssertEqual(frames(l), [[0, 0, 40, 50], [40, 0, 120, 150], [160, 0, 40, 50]])
    }

    func testZeroSizedItemNeverShrinks() {
        // testNegativeViolationAndFlexFactorIsNotRespected: exact 40×50, 50×50 (shrink 0) and 0×0 (shrink 1):
        // v = −10, F = 1, w = 0 → W = 0 → no adjustment; widths stay 50, 0; stack 40×50.
        let l = rootLayout(hstack([box(50, 50), box(0, 0) { $0.flexShrink = 1 }]), exact(40, 50))
        XCTAssertEqual(frames(l), [[0, 0, 50, 50], [50, 0, 0, 0]])
        assertSize(l, 40, 50)
    }

    func testZeroWeightItemAmongShrinkers() {
        // a 0 wide (shrink 1), b 150 wide (shrink 1), exact 100: F = 2, w = 0, 75, W = 75; adj a = −0 (not a
        // change), b = −50 → 100. x = 0, 0.
        let l = rootLayout(hstack([box(0, 10) { $0.flexShrink = 1 }, box(150, 10) { $0.flexShrink = 1 }]), exact(100, 10))
        XCTAssertEqual(frames(l), [[0, 0, 0, 10], [0, 0, 100, 10]])
    }

    func testNegativeRemainingSpaceClampsTargetAtZero() {
        // testOverflowBehaviorsWhenAllFlexShrinkChildrenHaveBeenClampedToZeroButViolationStillExists:
        // [75,0]–[75,150], 3×50 with the middle shrink 1: v = −75, W = 50 → adj −75 → target −25 → MAX(…, 0) = 0.
        // x = 0, 50, 50; line 100 → stack clamp → 75×50 (overflow remains).
        let l = rootLayout(hstack([box(50, 50), box(50, 50) { $0.flexShrink = 1 }, box(50, 50)]), range(75, 0, 75, 150))
        XCTAssertEqual(frames(l), [[0, 0, 50, 50], [50, 0, 0, 50], [50, 0, 50, 50]])
        assertSize(l, 75, 50)
    }

    func testShrinkOnlyTheShrinkableChild() {
        // a 100 (no shrink), b 100 (shrink 1), exact 150: v = −50, W = 100 → b −50 → 50. x = 0, 100.
        let l = rootLayout(hstack([box(100, 10), box(100, 10) { $0.flexShrink = 1 }]), exact(150, 10))
        XCTAssertEqual(frames(l), [[0, 0, 100, 10], [100, 0, 50, 10]])
    }

    func testShrinkWithMaxOnlyRange() {
        // Shrink against the MAX of a non-exact range [0,0]–[100,300]: a 80 (shrink 1), b 50 (shrink 1), c 40:
        // v = 100 − 170 = −70, F = 2, w = 40, 25, W = 65 → a −43.08 → 36.92 → ceilPx 37; b −26.92 → 23.08 → 23.5.
        // x = 0, 37, 60.5; line 100.5 → clamp 100.
        let l = rootLayout(hstack([box(80, 10) { $0.flexShrink = 1 }, box(50, 10) { $0.flexShrink = 1 }, box(40, 10)]),
                           range(0, 0, 100, 300))
        XCTAssertEqual(frames(l), [[0, 0, 37, 10], [37, 0, 23.5, 10], [60.5, 0, 40, 10]])
        assertSize(l, 100, 10)
    }

    // MARK: flexBasis §7.2.4

    func testFixedFlexBasisOverridesIntrinsicSizeForNonFlexingChildren() {
        // testFixedFlexBasisOverridesIntrinsicSizeForNonFlexingChildren: [300,0]–[300,150], sizes 50×50, 150×150,
        // 150×50, basis 20 → first pass main [20,20] (constrained wins over the style width) → widths 20;
        // v = 240, no grow → x = 0, 20, 40; heights 50, 150, 50; stack 300×150.
        let kids = [box(50, 50), box(150, 150), box(150, 50)]
        for k in kids { k.style.flexBasis = .points(20) }
        let l = rootLayout(hstack(kids), range(300, 0, 300, 150))
        XCTAssertEqual(frames(l), [[0, 0, 20, 50], [20, 0, 20, 150], [40, 0, 20, 50]])
        assertSize(l, 300, 150)
    }

    func testFixedFlexBasisAppliedWhenFlexingItems() {
        // testFixedFlexBasisAppliedWhenFlexingItems: basis 10, grow 1 each, 50×50 / 150×150 / 50×50.
        let kids = { () -> [LayoutElement] in
            let k = [box(50, 50), box(150, 150), box(50, 50)]
            for c in k { c.style.flexGrow = 1; c.style.flexBasis = .points(10) }
            return k
        }
        // Underflow [300,0]–[300,150]: sum 30, v = 270, F = 3 → +90 each → 100, 100, 100.
        var l = rootLayout(hstack(kids()), range(300, 0, 300, 150))
        XCTAssertEqual(l.sublayouts.map(\.position.x), [0, 100, 200])
        XCTAssertEqual(l.sublayouts.map(\.layout.size.width), [100, 100, 100])
        // Overflow [200,0]–[200,150]: v = 170, floor(56.67) = 56 each, remaining 2 → 68, 66, 66; x = 0, 68, 134.
        l = rootLayout(hstack(kids()), range(200, 0, 200, 150))
        XCTAssertEqual(l.sublayouts.map(\.position.x), [0, 68, 134])
        XCTAssertEqual(l.sublayouts.map(\.layout.size.width), [68, 66, 66])
    }

    func testFractionalFlexBasisResolvesAgainstExactStack() {
        // testFractionalFlexBasisResolvesAgainstParentSize: [200,0]–[200,inf], 3×(50×50) grow 1, first basis 50%.
        // Main exact 200 → parent width 200 → basis 100 → [100,100]; sum 200 → v = 0 → x = 0, 100, 150.
        let kids = [box(50, 50) { $0.flexBasis = .fraction(0.5) }, box(50, 50), box(50, 50)]
        for k in kids { k.style.flexGrow = 1 }
        let l = rootLayout(hstack(kids), range(200, 0, 200, inf))
        XCTAssertEqual(frames(l), [[0, 0, 100, 50], [100, 0, 50, 50], [150, 0, 50, 50]])
    }

    func testFractionalFlexBasisInNonExactStackCollapses() {
        // §7.2.4: main axis not exact → parent NaN → basis NaN → main range [NaN, NaN] → child's intersect gives
        // [NaN,NaN] → size NaN → invalid → 0×0 (§4.4, §14).
        let l = rootLayout(hstack([box(50, 50) { $0.flexBasis = .fraction(0.5) }, box(30, 30)]), range(0, 0, 200, 200))
        XCTAssertEqual(frames(l), [[0, 0, 0, 0], [0, 0, 30, 30]])
    }

    // MARK: fractions inside auto-sized parents (§7.2.3 step 1)

    func testFractionWidthIgnoredWhenStackMainIsNotExact() {
        // Range [0,0]–[300,100]: parent size (NaN, NaN) → width 50% = "no exact value" → plain node gets main
        // [0,inf] → max (inf, 100) invalid → (0,0) → clamp → 0×0.
        var l = rootLayout(hstack([plain { $0.width = .fraction(0.5) }]), range(0, 0, 300, 100))
        assertFrame(l, 0, 0, 0, 0, 0)
        // Exact 300×100: parent (300,100) → width 150 → [150,150] ∩ main [0,inf]; cross [0,100] → 150×100.
        l = rootLayout(hstack([plain { $0.width = .fraction(0.5) }]), exact(300, 100))
        assertFrame(l, 0, 0, 0, 150, 100)
    }

    func testFractionOnCrossAndMainOfVerticalStack() {
        // Vertical, exact 300×200, alignItems start: child width 50% (cross) → 150, height 25% (main) → 50;
        // the first pass main range [0,inf] ∩ [50,50] → 50.
        let l = rootLayout(vstack([plain { $0.width = .fraction(0.5); $0.height = .fraction(0.25) }]), exact(300, 200))
        assertFrame(l, 0, 0, 0, 150, 50)
        // Only the width is exact ([300,0]–[300,inf]): height 25% of NaN is ignored → plain node (150, inf max)
        // → invalid → (0,0) → clamp into [150,150]×[0,inf] → 150×0.
        let l2 = rootLayout(vstack([plain { $0.width = .fraction(0.5); $0.height = .fraction(0.25) }]), range(300, 0, 300, inf))
        assertFrame(l2, 0, 0, 0, 150, 0)
    }

    // MARK: optimized flexing §7.2.6

    func testGoldenChildThatChangesCrossSizeWhenMainSizeIsFlexed() {
        // testChildThatChangesCrossSizeWhenMainSizeIsFlexed: [150,0]–[150,inf]; child1 = ratio 1.5 over a plain node,
        // basis 100%, grow 1, shrink 1; child2 50×50. Exactly one grow&shrink child and exact main → optimized:
        // child1 is a 0×0 placeholder, sum 50, v = 100 → child1 target 100 → ratio with [100,100]×[0,inf]:
        // option (100, floorPx(150)) → plain node 100×150. Line cross 150. x = 0, 100. Stack 150×150.
        let ratio = RatioLayoutSpec(ratio: 1.5, child: plain(), style: style {
            $0.flexBasis = .fraction(1); $0.flexGrow = 1; $0.flexShrink = 1
        })
        let l = rootLayout(hstack([ratio, box(50, 50)]), range(150, 0, 150, inf))
        XCTAssertEqual(frames(l), [[0, 0, 100, 150], [100, 0, 50, 50]])
        assertSize(l, 150, 150)
    }

    func testOptimizedChildIgnoresItsNaturalSizeWhenGrowing() {
        // §7.2.6: exact 300: a 50; b grow1 shrink1 style width 100 → placeholder 0 → sum 50, v = 250 → b = 250.
        let l = rootLayout(hstack([box(50, 10), box(100, 10) { $0.flexGrow = 1; $0.flexShrink = 1 }]), exact(300, 10))
        XCTAssertEqual(frames(l), [[0, 0, 50, 10], [50, 0, 250, 10]])
    }

    func testOptimizedChildWithNoViolationIsMeasuredAtZeroMain() {
        // §7.2.6 / §7.2.5 F == 0: exact 100: a 100, b (grow1 shrink1, 30×10): sum 100 → v = 0 → F = 0 →
        // b measured with main [0,0] and cross [0, 10] (start) → 0×10 (main constrained wins over style 30).
        let l = rootLayout(hstack([box(100, 10), box(30, 10) { $0.flexGrow = 1; $0.flexShrink = 1 }]), exact(100, 10))
        XCTAssertEqual(frames(l), [[0, 0, 100, 10], [100, 0, 0, 10]])
    }

    func testOptimizedChildKeepsPlaceholderWhenShrinking() {
        // §7.2.6 shrink: exact 100: a 80 (shrink 1), b (grow1 shrink1, 50×10) placeholder, c 40.
        // sum 120 → v = −20, F = 2, w = 40, 0 → W = 40 → a −20 → 60; b adj −0 → not re-measured; it stays a
        // placeholder and is finally measured with the exact range 0×0 (§15) → 0×0. x = 0, 60, 60.
        let l = rootLayout(hstack([box(80, 10) { $0.flexShrink = 1 }, box(50, 10) { $0.flexGrow = 1; $0.flexShrink = 1 },
                                   box(40, 10)]), exact(100, 10))
        XCTAssertEqual(frames(l), [[0, 0, 60, 10], [60, 0, 0, 0], [60, 0, 40, 10]])
    }

    func testOptimizedChildWhoseGrowShareFloorsToZero() {
        // §7.2.6: exact 100.5: a 100, b optimized → v = 0.5, F = 1, floor(0.5) = 0 → nothing flexes; b stays a
        // placeholder and is measured at exactly 0×0 (its height 10 is overridden) — unlike the F == 0 case above.
        let l = rootLayout(hstack([box(100, 10), box(30, 10) { $0.flexGrow = 1; $0.flexShrink = 1 }]), exact(100.5, 10))
        XCTAssertEqual(frames(l), [[0, 0, 100, 10], [100, 0, 0, 0]])
    }

    func testNotOptimizedWhenMainIsNotExact() {
        // Same children as the shrinking case but range [0,0]–[100,10] (main not exact): b is measured (50),
        // sum 170 → v = −70 → see testShrinkWithMaxOnlyRange: a 37, b 23.5, c 40.
        let l = rootLayout(hstack([box(80, 10) { $0.flexShrink = 1 }, box(50, 10) { $0.flexGrow = 1; $0.flexShrink = 1 },
                                   box(40, 10)]), range(0, 0, 100, 10))
        XCTAssertEqual(frames(l), [[0, 0, 37, 10], [37, 0, 23.5, 10], [60.5, 0, 40, 10]])
    }

    func testSpacerGrows() {
        // §7.1: a plain spec (spacer) is measured at its min (0) and grows only through flexGrow:
        // exact 300×50: 50 + spacer + 50, v = 200 → spacer 200; x = 0, 50, 250. Cross: start → [0,50] → min 0.
        let spacer = LayoutSpec(style: style { $0.flexGrow = 1 })
        let l = rootLayout(hstack([box(50, 50), spacer, box(50, 50)]), exact(300, 50))
        XCTAssertEqual(frames(l), [[0, 0, 50, 50], [50, 0, 200, 0], [250, 0, 50, 50]])
    }
}
