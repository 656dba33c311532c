import XCTest
import LoomLayout

/// §9.2 / §9.4: the arithmetic around the text measurement (insets subtracted and added back, used width,
/// min with the offered size, clamp, pixel ceiling, font-based ascender/descender). The fake measurer
/// (TestSupport.swift) makes every character 0.5 × size wide and every line 1.25 × size tall; ascender
/// 0.9 × size, descender −0.25 × size. At size 14.5: 7.25 per character, 18.125 per line.
final class TextNodeArithmeticTests: XCTestCase {

    private let insets = EdgeInsets(top: 2, left: 3, bottom: 4, right: 5)

    func testInsetsSubtractedAndAddedBackAndCeiled() {
        // M = (200, inf) → container (200 − 8, inf − 6) = (192, inf). "Hello" → used rect 36.25 × 18.125.
        // + insets → (44.25, 24.125); fmin with M keeps it; clamp into [0,200]×[0,inf]; ceilPx → 44.5 × 24.5.
        let m = FakeTextMeasurer()
        let l = rootLayout(text("Hello", size: 14.5, inset: insets), range(0, 0, 200, inf), measurer: m)
        assertSize(l, 44.5, 24.5)
        XCTAssertEqual(m.containers, [Size(width: 192, height: inf)])
        XCTAssertEqual(l.text?.lineCount, 1)
        XCTAssertEqual(l.text?.truncated, false)
    }

    func testUsedWidthNotOfferedWidthUnlessMinForcesIt() {
        // §9.2: exact width range [200,0]–[200,inf] → the clamp raises 44.25 to 200; height 24.5.
        let l = rootLayout(text("Hello", size: 14.5, inset: insets), range(200, 0, 200, inf), measurer: FakeTextMeasurer())
        assertSize(l, 200, 24.5)
    }

    func testWrappingInNarrowContainer() {
        // 40 characters (290 on one line), max width 100: container 92 → 12 per line (87) → 4 lines (72.5);
        // + insets → (95, 78.5).
        let l = rootLayout(text(String(repeating: "x", count: 40), size: 14.5, inset: insets), range(0, 0, 100, inf),
                           measurer: FakeTextMeasurer())
        assertSize(l, 95, 78.5)
        XCTAssertEqual(l.text?.lineCount, 4)
    }

    func testUsedRectNeverExceedsContainerHeight() {
        // Max height 30 → container height 24; the measured 72.5 is cut to 24 (used rect ∩ container);
        // + 6 → 30; fmin(30, 30) = 30.
        let l = rootLayout(text(String(repeating: "x", count: 40), size: 14.5, inset: insets), range(0, 0, 100, 30),
                           measurer: FakeTextMeasurer())
        assertSize(l, 95, 30)
    }

    func testResultIsAtMostTheOfferedSize() {
        // Max width 5 < insets 8: container width −3 → the measurer sees 0; text width min(…, 0) = 0; + 8 = 8;
        // fmin(8, M.w = 5) = 5 → width 5.
        let m = FakeTextMeasurer()
        let l = rootLayout(text("Hello", size: 14.5, inset: insets), range(0, 0, 5, 200), measurer: m)
        XCTAssertEqual(l.size.width, 5)
        XCTAssertEqual(m.containers.first?.width, 0)
    }

    func testMaximumNumberOfLines() {
        // 40 characters, width 100, no insets: 13 per line (94.25) → 4 lines, limited to 2 → 36.25 tall, truncated.
        // ceilPx → 94.5 × 36.5.
        let l = rootLayout(text(String(repeating: "x", count: 40), size: 14.5, maxLines: 2), range(0, 0, 100, inf),
                           measurer: FakeTextMeasurer())
        assertSize(l, 94.5, 36.5)
        XCTAssertEqual(l.text?.lineCount, 2)
        XCTAssertEqual(l.text?.truncated, true)
    }

    func testAscenderDescenderFromFontNotInsets() {
        // §9.4: ascender 0.9 × 14.5 = 13.05, descender −0.25 × 14.5 = −3.625; the top inset is NOT added.
        let l = rootLayout(text("Hello", size: 14.5, inset: insets), range(0, 0, 200, inf), measurer: FakeTextMeasurer())
        XCTAssertEqual(l.ascender, 0.9 * 14.5)
        XCTAssertEqual(l.descender, -0.25 * 14.5)
    }

    func testTextStretchedInVerticalStack() {
        // Vertical stretch stack [320,0]–[320,inf]: text gets [320,320]×[0,inf] → 25×12.5 clamped → 320×12.5.
        let l = rootLayout(StackLayoutSpec(direction: .vertical, children: [text("Hello", size: 10)]), range(320, 0, 320, inf),
                           measurer: FakeTextMeasurer())
        assertFrame(l, 0, 0, 0, 320, 12.5)
    }

    func testFirstPassIsUnboundedThenShrinkWraps() {
        // §9.2: horizontal stack [100,0]–[100,inf], 30 characters at size 10 (5 each → 150 on one line), shrink 1:
        // first pass container width inf → 150×12.5; v = −50 → target 100 → container 100 → 20 per line → 2 lines
        // → 100×25. Stack 100×25.
        let m = FakeTextMeasurer()
        let l = rootLayout(StackLayoutSpec(alignItems: .start, children: [
            text(String(repeating: "y", count: 30), size: 10) { $0.flexShrink = 1 },
        ]), range(100, 0, 100, inf), measurer: m)
        assertFrame(l, 0, 0, 0, 100, 25)
        assertSize(l, 100, 25)
        XCTAssertEqual(m.containers.map(\.width), [inf, 100])
    }

    // MARK: baseline alignment with text (Texture testStackLayoutSpecWithBaselineAlignment, with fake metrics)

    /// "Hello" at 20 (50×25, asc 18, desc −5) and "Why, hello there! How are you?" at 12 (30 chars → 180×15,
    /// asc 10.8, desc −3) with flexShrink 1, horizontal stack [150,0]–[150,CGFLOAT_MAX].
    private func baselineStack(_ align: StackLayoutAlignItems) -> Layout {
        rootLayout(StackLayoutSpec(alignItems: align, children: [
            text("Hello", size: 20), text("Why, hello there! How are you?", size: 12) { $0.flexShrink = 1 },
        ]), range(150, 0, 150, cgFloatMax), measurer: FakeTextMeasurer())
    }

    func testBaselineFirstWithShrinkingText() {
        // Sum 230 → v = −80 → the second text (W = 180) shrinks to 100 → container 100 → 16 per line (96) → 2 lines:
        // 96×30, clamped into [100,100] → 100×30. Baselines: 18 and 10.8 → A = 18; D = max(25−18, 30−10.8) = 19.2
        // → line 37.2; second text at y = 18 − 10.8 = 7.2. Stack (150, ceilPx(37.2) = 37.5).
        let l = baselineStack(.baselineFirst)
        assertFrame(l, 0, 0, 0, 50, 25)
        assertFrame(l, 1, 50, 7.2, 100, 30, accuracy: 1e-9)
        assertSize(l, 150, 37.5)
    }

    func testBaselineLastWithShrinkingText() {
        // baselineOf: 25 − 5 = 20 and 30 − 3 = 27 → A = 27; D = max(5, 3) = 5 → line 32.
        // First text at y = 27 − 20 = 7, second at 0. Stack 150×32.
        let l = baselineStack(.baselineLast)
        assertFrame(l, 0, 0, 7, 50, 25, accuracy: 1e-9)
        assertFrame(l, 1, 50, 0, 100, 30, accuracy: 1e-9)
        assertSize(l, 150, 32)
    }

    func testTextInNestedVerticalStackProvidesBaseline() {
        // §7.2.13 with text: V = vertical [text "Ab" at 10 (10×12.5, asc 9), text "Cd" at 20 (20×25, desc −5)];
        // V ascender 9, descender −5, size 20×37.5. Beside it a text "E" at 30 (15×37.5, asc 27, desc −7.5).
        // baselineFirst: A = max(9, 27) = 27; D = max(37.5 − 9, 37.5 − 27) = 28.5 → 55.5. V at y = 18.
        let v = StackLayoutSpec(direction: .vertical, alignItems: .start, children: [text("Ab", size: 10), text("Cd", size: 20)])
        let l = rootLayout(StackLayoutSpec(alignItems: .baselineFirst, children: [v, text("E", size: 30)]),
                           SizeRange.unconstrained, measurer: FakeTextMeasurer())
        let vLayout = l.sublayouts[0].layout
        XCTAssertEqual(vLayout.ascender, 9, accuracy: 1e-9)
        XCTAssertEqual(vLayout.descender, -5, accuracy: 1e-9)
        assertFrame(l, 0, 0, 18, 20, 37.5, accuracy: 1e-9)
        assertFrame(l, 1, 20, 0, 15, 37.5)
        assertSize(l, 35, 55.5)
    }

    /// A measurer that answers from the memo a text node passes whenever it holds the same
    /// container (and records the containers it really measured).
    private final class MemoizingMeasurer: TextMeasuring, @unchecked Sendable {
        let inner: FakeTextMeasurer
        init(charFactor: Double) { inner = FakeTextMeasurer(charFactor: charFactor) }
        func measure(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement { inner.measure(text, in: containerSize) }
        func measure(_ text: TextAttributes, in containerSize: Size, memo: inout TextMeasurementMemo) -> TextMeasurement {
            if let e = memo.recent, e.container == containerSize { return e.measurement }
            let m = inner.measure(text, in: containerSize)
            memo.remember(m, in: containerSize)
            return m
        }
        func validate(_ font: FontDescriptor) -> TextMeasuringError? { nil }
    }

    func testTheMemoBelongsToOneMeasurer() {
        // The same node laid out again with another measurer (its memo reset, as for another
        // scale): the second measurer's answer, never the first one's from the node's memo.
        let node = text("Hello", size: 10)
        let narrow = MemoizingMeasurer(charFactor: 0.5), wide = MemoizingMeasurer(charFactor: 1)
        assertSize(rootLayout(node, range(0, 0, 200, inf), measurer: narrow), 25, 12.5)
        node.resetMemo()
        assertSize(rootLayout(node, range(0, 0, 200, inf), measurer: narrow), 25, 12.5)
        XCTAssertEqual(narrow.inner.containers.count, 1, "the second pass was answered from the memo")
        node.resetMemo()
        assertSize(rootLayout(node, range(0, 0, 200, inf), measurer: wide), 50, 12.5)
        XCTAssertEqual(wide.inner.containers.count, 1)
    }
}
