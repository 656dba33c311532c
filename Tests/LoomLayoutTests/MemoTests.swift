import XCTest
import LoomLayout

/// §4.1 step 4: results are a pure function of (constrained, parentSize), so measurements can be memoised.
/// Deeply nested stretch stacks re-measure each child several times per level (first pass, flex, stretch);
/// without reuse the work grows exponentially with depth. `ctx.computedLayouts` must grow linearly.
final class MemoTests: XCTestCase {

    /// 200 nested vertical stretch stacks around a plain node.
    private func verticalChain(_ depth: Int) -> LayoutElement {
        var e: LayoutElement = plain()
        for _ in 0..<depth { e = StackLayoutSpec(direction: .vertical, children: [e]) }
        return e
    }

    func testDeepVerticalStretchChainResult() {
        // §12.6 applied at every level: in [320,0]–[320,inf] every stack passes [320,320]×[0,inf] to its child;
        // the plain leaf is 320×0, so every level is 320×0.
        let root = verticalChain(200)
        let ctx = LayoutContext(scale: 2)
        let l = calculateRootLayout(root, sizeRange: range(320, 0, 320, inf), context: ctx)
        assertSize(l, 320, 0)
        var inner = l
        var depth = 0
        while let s = inner.sublayouts.first { inner = s.layout; depth += 1 }
        XCTAssertEqual(depth, 200)
        assertSize(inner, 320, 0)
        XCTAssertLessThanOrEqual(ctx.computedLayouts, 10 * elementCount(root))
    }

    /// Each level: a stretch stack (alternating direction) of [deeper level (flexGrow 1), sibling box 2×2].
    /// In an exact root range every level measures its nested stack in the first pass (unbounded main axis)
    /// and again when it grows (exact main axis), and because directions alternate each of those measurements
    /// measures the next level more than once. Without reuse of identical measurements the work grows
    /// polynomially with depth (with the memo disabled: 48, 235, 658, 1413 layouts at depths 4, 8, 12, 16);
    /// with it, about 14 layouts per level.
    private func adversarialChain(_ depth: Int) -> LayoutElement {
        var e: LayoutElement = leaf(10, 10)
        for level in 1...depth {
            e.style.flexGrow = 1
            e = StackLayoutSpec(direction: level % 2 == 0 ? .horizontal : .vertical, alignItems: .stretch,
                                children: [e, box(2, 2)])
        }
        return e
    }

    func testDeepAdversarialStretchChainIsLinear() {
        var counts: [Int: Int] = [:]
        for depth in [50, 100, 200] {
            let root = adversarialChain(depth)
            let ctx = LayoutContext(scale: 2)
            let l = calculateRootLayout(root, sizeRange: exact(1000, 1000), context: ctx)
            // The root is exactly 1000×1000 (§3.3: the stack's used range is the exact root range; §7.2.12 clamp).
            assertSize(l, 1000, 1000)
            let elements = elementCount(root)
            XCTAssertLessThanOrEqual(ctx.computedLayouts, 10 * elements, "depth \(depth)")
            counts[depth] = ctx.computedLayouts
        }
        // Linear growth: doubling the depth at most (about) doubles the work.
        XCTAssertLessThanOrEqual(counts[200]!, 2 * counts[100]! + 100)
        XCTAssertLessThanOrEqual(counts[100]!, 2 * counts[50]! + 100)
    }

    func testDeepAdversarialChainWithUnboundedRange() {
        // Same chain in an unbounded range: no exact axes at the root, different ranges at every level.
        let root = adversarialChain(200)
        let ctx = LayoutContext(scale: 2)
        let l = calculateRootLayout(root, sizeRange: SizeRange.unconstrained, context: ctx)
        // Nothing is exact, so nothing grows. Level 1 (vertical) is the leaf 10×10 over a 2×2 box: 10×12.
        // Every vertical level adds 2 to the height and every horizontal level adds 2 to the width
        // (the nested stack is always the widest/tallest child, so the 2×2 box never changes the cross size).
        // 100 vertical levels → height 10 + 200 = 210; 100 horizontal levels → width 10 + 200 = 210.
        assertSize(l, 210, 210)
        XCTAssertLessThanOrEqual(ctx.computedLayouts, 10 * elementCount(root))
    }

    func testRepeatedLayoutOfSameTreeIsMemoised() {
        // A second identical pass over the same tree and range computes nothing new.
        let root = adversarialChain(30)
        let ctx1 = LayoutContext(scale: 2)
        let first = calculateRootLayout(root, sizeRange: exact(500, 500), context: ctx1)
        let ctx2 = LayoutContext(scale: 2)
        let second = calculateRootLayout(root, sizeRange: exact(500, 500), context: ctx2)
        XCTAssertTrue(layoutsIdentical(first, second))
        XCTAssertEqual(ctx2.computedLayouts, 0)
        // After resetMemo everything is computed again, with the same result.
        root.resetMemo()
        let ctx3 = LayoutContext(scale: 2)
        let third = calculateRootLayout(root, sizeRange: exact(500, 500), context: ctx3)
        XCTAssertTrue(layoutsIdentical(first, third))
        XCTAssertEqual(ctx3.computedLayouts, ctx1.computedLayouts)
    }

    func testDeepChainOfNodesWithOwnLayouts() {
        // 200 nested display nodes, each with its own vertical stack [inner node, box 10×1] in [320,0]–[320,inf]:
        // each level is 320 wide (stretch) and 1 taller than the level inside: leaf plain 320×0, so the root is
        // 320 × 200.
        var e: LayoutElement = plain()
        for _ in 0..<200 {
            e = DisplayNode(layoutSpec: StackLayoutSpec(direction: .vertical, children: [e, box(10, 1)]))
        }
        let ctx = LayoutContext(scale: 2)
        let l = calculateRootLayout(e, sizeRange: range(320, 0, 320, inf), context: ctx)
        assertSize(l, 320, 200)
        XCTAssertLessThanOrEqual(ctx.computedLayouts, 10 * elementCount(e))
    }
}

/// `ElementDigest.description` (the `X-Layout-Key` halves): 32 lowercase hex digits, high
/// word first, leading zeros kept.
final class ElementDigestDescriptionTests: XCTestCase {
    func testThirtyTwoLowercaseHexDigitsHighFirst() {
        XCTAssertEqual(ElementDigest(high: 0x0123_4567_89ab_cdef, low: 0xf).description,
                       "0123456789abcdef000000000000000f")
        XCTAssertEqual(ElementDigest(high: 0, low: 0).description, String(repeating: "0", count: 32))
        XCTAssertEqual(ElementDigest(high: .max, low: 0xA0B0_C0D0_E0F0_0010).description,
                       "ffffffffffffffff" + "a0b0c0d0e0f00010")
        for v: UInt64 in [1, 0xdead_beef, 1 << 63, 0x1234_5678_9abc_def0] {
            func hex(_ x: UInt64) -> String {
                let digits = String(x, radix: 16)
                return String(repeating: "0", count: 16 - digits.count) + digits
            }
            XCTAssertEqual(ElementDigest(high: v, low: ~v).description, hex(v) + hex(~v))
        }
    }
}
