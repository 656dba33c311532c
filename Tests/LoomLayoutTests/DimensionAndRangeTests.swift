import XCTest
import LoomLayout

/// §0 (MIN/MAX, scale), §1 (dimensions), §2 (ranges), §3.2 (style → range), §6 (pixel rounding).
final class DimensionAndRangeTests: XCTestCase {

    // MARK: §1.3 resolve

    func testResolveAutoPointsFraction() {
        // §1.3: auto → autoValue; points → value; fraction → value × parent.
        XCTAssertEqual(Dimension.auto.resolve(parent: 200, auto: 7), 7)
        XCTAssertEqual(Dimension.points(42).resolve(parent: 200, auto: 7), 42)
        XCTAssertEqual(Dimension.fraction(0.5).resolve(parent: 200, auto: 7), 100)
        // Points ignore the parent entirely, even an undefined one.
        XCTAssertEqual(Dimension.points(42).resolve(parent: .nan, auto: 7), 42)
    }

    func testResolveFractionAgainstUndefinedAndInfiniteParent() {
        // §1.3: NaN parent → NaN; +inf parent with value > 0 → +inf; value 0 with +inf → NaN (0 × inf).
        XCTAssertTrue(Dimension.fraction(0.5).resolve(parent: .nan, auto: 0).isNaN)
        XCTAssertEqual(Dimension.fraction(0.5).resolve(parent: inf, auto: 0), inf)
        XCTAssertTrue(Dimension.fraction(0).resolve(parent: inf, auto: 0).isNaN)
    }

    // MARK: §0 MIN / MAX macros

    func testCgMaxCgMinNaNBehaviour() {
        // §0: MAX(a,b) = a < b ? b : a → MAX(NaN, x) = NaN, MAX(x, NaN) = x.
        XCTAssertTrue(cgMax(.nan, 5).isNaN)
        XCTAssertEqual(cgMax(5, .nan), 5)
        // MIN(a,b) = a < b ? a : b → MIN(NaN, x) = x, MIN(x, NaN) = NaN.
        XCTAssertEqual(cgMin(.nan, 5), 5)
        XCTAssertTrue(cgMin(5, .nan).isNaN)
        // Ordinary values.
        XCTAssertEqual(cgMax(3, 5), 5)
        XCTAssertEqual(cgMin(3, 5), 3)
        // §7.3 quirk ingredient: MAX(0, NaN) = 0.
        XCTAssertEqual(cgMax(0, .nan), 0)
    }

    // MARK: §1.3 validity

    func testValidForSize() {
        // §1.3: 0 or normal, >= 0, < 1e7.
        XCTAssertTrue(validForSize(0))
        XCTAssertTrue(validForSize(9_999_999))
        XCTAssertFalse(validForSize(10_000_000))          // >= 1e7
        XCTAssertFalse(validForSize(-1))                  // negative
        XCTAssertFalse(validForSize(.nan))
        XCTAssertFalse(validForSize(inf))
        XCTAssertFalse(validForSize(cgFloatMax))          // CGFLOAT_MAX is finite but not a usable size (§0)
        XCTAssertFalse(validForSize(Double.leastNonzeroMagnitude)) // subnormal: neither 0 nor normal
        XCTAssertTrue(validSize(Size(width: 10, height: 0)))
        XCTAssertFalse(validSize(Size(width: 10, height: inf)))
    }

    // MARK: §2.2 clamp

    func testClamp() {
        // §2.2: MAX(min, MIN(max, size)) per axis.
        let r = range(10, 20, 100, 200)
        XCTAssertEqual(r.clamp(Size(width: 5, height: 300)), Size(width: 10, height: 200))
        XCTAssertEqual(r.clamp(Size(width: 50, height: 60)), Size(width: 50, height: 60))
    }

    func testClampInvertedRangeMinWins() {
        // §2.2: min > max → MIN(100, 150) = 100, MAX(200, 100) = 200: min wins.
        let r = range(200, 0, 100, 100)
        XCTAssertEqual(r.clamp(Size(width: 150, height: 50)).width, 200)
    }

    func testClampNaNSizeGoesToMin() {
        // §2.2: MIN(max, NaN) = NaN, MAX(min, NaN) = min.
        let r = range(10, 20, 100, 200)
        let c = r.clamp(Size(width: .nan, height: .nan))
        XCTAssertEqual(c.width, 10)
        XCTAssertEqual(c.height, 20)
    }

    // MARK: §2.3 intersect

    func testIntersectOverlapping() {
        // §2.3: lo = MAX(0,5) = 5, hi = MIN(10,15) = 10 → [5,10].
        let r = range(0, 0, 10, 10).intersect(range(5, 5, 15, 15))
        XCTAssertEqual(r, range(5, 5, 10, 10))
    }

    func testIntersectDisjointIsAsymmetric() {
        // §2.3 examples: [0,5] ∩ [10,15] = [5,5] (b above a → a.max); [10,15] ∩ [0,5] = [10,10] (a.min).
        let a = range(0, 10, 5, 15), b = range(10, 0, 15, 5)
        let ab = a.intersect(b)
        XCTAssertEqual(ab.min.width, 5); XCTAssertEqual(ab.max.width, 5)      // width: [0,5] ∩ [10,15]
        XCTAssertEqual(ab.min.height, 10); XCTAssertEqual(ab.max.height, 10)  // height: [10,15] ∩ [0,5]
        let ba = b.intersect(a)
        XCTAssertEqual(ba.min.width, 10); XCTAssertEqual(ba.max.width, 10)
        XCTAssertEqual(ba.min.height, 5); XCTAssertEqual(ba.max.height, 5)
    }

    func testIntersectWithInvertedFirstRange() {
        // §2.3: [300,200] ∩ [0,200]: lo = 300, hi = 200; 300 < 0 is false → [300,300].
        let r = range(300, 0, 200, 10).intersect(range(0, 0, 200, 10))
        XCTAssertEqual(r.min.width, 300)
        XCTAssertEqual(r.max.width, 300)
    }

    func testIntersectConstrainedWinsOverStyle() {
        // §3.3: a style of 150 inside [0,100] → lo 150 > hi 100, a.min 0 < 150 → [100,100];
        // inside [200,300] → lo 200 > hi 150, 200 < 150 false → [200,200].
        let style150 = SizeRange(exactly: Size(width: 150, height: 150))
        XCTAssertEqual(range(0, 0, 100, 100).intersect(style150).min.width, 100)
        XCTAssertEqual(range(0, 0, 100, 100).intersect(style150).max.width, 100)
        XCTAssertEqual(range(200, 200, 300, 300).intersect(style150).min.width, 200)
        XCTAssertEqual(range(200, 200, 300, 300).intersect(style150).max.width, 200)
    }

    // MARK: §3.1 / §3.2 resolveSize

    func testPreferredMinMaxSettersAreAliases() {
        // §3.1: preferredSize sets width/height points, minSize min*, maxSize max*.
        var s = LayoutElementStyle()
        s.setPreferredSize(Size(width: 10, height: 20))
        s.setMinSize(Size(width: 1, height: 2))
        s.setMaxSize(Size(width: 30, height: 40))
        XCTAssertEqual(s.width, .points(10)); XCTAssertEqual(s.height, .points(20))
        XCTAssertEqual(s.minWidth, .points(1)); XCTAssertEqual(s.minHeight, .points(2))
        XCTAssertEqual(s.maxWidth, .points(30)); XCTAssertEqual(s.maxHeight, .points(40))
    }

    func testResolveSizeDefaultsToUnconstrained() {
        // §3.2: all auto → exact NaN, lo = 0, hi = +inf → [0, inf].
        let r = LayoutElementStyle().resolveSize(parent: Size(width: 100, height: 100))
        XCTAssertEqual(r, SizeRange.unconstrained)
    }

    func testResolveSizeExact() {
        // §3.2: exact 150 within [0, inf] → [150,150].
        let r = style { $0.width = .points(150) }.resolveSize(parent: .undefined)
        XCTAssertEqual(r.min.width, 150); XCTAssertEqual(r.max.width, 150)
        XCTAssertEqual(r.min.height, 0); XCTAssertEqual(r.max.height, inf)
    }

    func testResolveSizeMinBeatsMaxBeatsExact() {
        // §3.2 precedence min > max > exact.
        // hi (50) <= lo (100): [lo, lo], exact 70 ignored.
        var r = style { $0.width = .points(70); $0.minWidth = .points(100); $0.maxWidth = .points(50) }
            .resolveSize(parent: .undefined)
        XCTAssertEqual(r.min.width, 100); XCTAssertEqual(r.max.width, 100)
        // exact 200 > hi 150 → [150,150].
        r = style { $0.width = .points(200); $0.maxWidth = .points(150) }.resolveSize(parent: .undefined)
        XCTAssertEqual(r.min.width, 150); XCTAssertEqual(r.max.width, 150)
        // exact 50 < lo 100 → [100,100].
        r = style { $0.width = .points(50); $0.minWidth = .points(100) }.resolveSize(parent: .undefined)
        XCTAssertEqual(r.min.width, 100); XCTAssertEqual(r.max.width, 100)
        // lo 100 <= exact 120 <= hi 150 → [120,120].
        r = style { $0.width = .points(120); $0.minWidth = .points(100); $0.maxWidth = .points(150) }
            .resolveSize(parent: .undefined)
        XCTAssertEqual(r.min.width, 120); XCTAssertEqual(r.max.width, 120)
        // No exact: [lo, hi] = [10, 20].
        r = style { $0.minHeight = .points(10); $0.maxHeight = .points(20) }.resolveSize(parent: .undefined)
        XCTAssertEqual(r.min.height, 10); XCTAssertEqual(r.max.height, 20)
        // min == max: hi <= lo → [lo, lo].
        r = style { $0.minHeight = .points(30); $0.maxHeight = .points(30); $0.height = .points(99) }
            .resolveSize(parent: .undefined)
        XCTAssertEqual(r.min.height, 30); XCTAssertEqual(r.max.height, 30)
    }

    func testResolveSizeFractions() {
        // §3.2: width 50% of parent 300 → 150; against an undefined parent it is "no exact value".
        let s = style { $0.width = .fraction(0.5); $0.height = .fraction(0.25) }
        var r = s.resolveSize(parent: Size(width: 300, height: 400))
        XCTAssertEqual(r.min.width, 150); XCTAssertEqual(r.max.width, 150)
        XCTAssertEqual(r.min.height, 100); XCTAssertEqual(r.max.height, 100)
        r = s.resolveSize(parent: .undefined)
        XCTAssertEqual(r, SizeRange.unconstrained)
        // Fractional min/max with an undefined parent: NaN (the debug-assert case of §3.2).
        r = style { $0.minWidth = .fraction(0.5) }.resolveSize(parent: .undefined)
        XCTAssertTrue(r.min.width.isNaN)
    }

    func testResolveSizeWithAutoRange() {
        // §3.2 autoRange: auto min/max take the given defaults (used by the absolute spec, §7.9).
        let r = LayoutElementStyle().resolveSize(parent: .undefined, autoRange: range(0, 0, 40, 60))
        XCTAssertEqual(r, range(0, 0, 40, 60))
        // autoMax negative (−10) and auto min 0: hi <= lo → [0,0].
        let n = LayoutElementStyle().resolveSize(parent: .undefined, autoRange: range(0, 0, -10, 60))
        XCTAssertEqual(n.min.width, 0); XCTAssertEqual(n.max.width, 0)
    }

    // MARK: §6 pixel rounding

    func testCeilPxOfZeroIsNegativeZero() {
        // §6: ceil((0 − E) × 2) / 2 = ceil(−2.4e−7) / 2 = −0.0.
        let v = PixelGrid(scale: 2).ceil(0)
        XCTAssertEqual(v, 0)
        XCTAssertEqual(v.sign, .minus)
    }

    func testCeilPx() {
        let g = PixelGrid(scale: 2)
        // ceil(20.6 − ε) / 2 = 21 / 2.
        XCTAssertEqual(g.ceil(10.3), 10.5)
        // On the grid: ceil(21 − 2.4e−7) = 21.
        XCTAssertEqual(g.ceil(10.5), 10.5)
        // Within E above a boundary snaps down: (10.5 + 1e−8 − 1.19e−7) × 2 < 21.
        XCTAssertEqual(g.ceil(10.5 + 1e-8), 10.5)
        // More than E above: (10.500001 − 1.19e−7) × 2 = 21.0000018 → 22.
        XCTAssertEqual(g.ceil(10.5 + 1e-6), 11)
        // Negative values ceil toward +inf: ceil(−20.6…) = −20 → −10.
        XCTAssertEqual(g.ceil(-10.3), -10)
        // Scale 3: ceil(30.3 − 3.6e−7) = 31 → 31/3.
        XCTAssertEqual(PixelGrid(scale: 3).ceil(10.1), 31.0 / 3.0)
        // Scale 1: whole points.
        XCTAssertEqual(PixelGrid(scale: 1).ceil(10.1), 11)
    }

    func testFloorPx() {
        let g = PixelGrid(scale: 2)
        // floor(21.4 + ε) / 2 = 21 / 2.
        XCTAssertEqual(g.floor(10.7), 10.5)
        // Within E below a boundary snaps up: (10.5 − 1e−8 + 1.19e−7) × 2 > 21.
        XCTAssertEqual(g.floor(10.5 - 1e-8), 10.5)
        // More than E below: 20.9999982 → 20.
        XCTAssertEqual(g.floor(10.5 - 1e-6), 10)
        XCTAssertEqual(g.floor(0), 0)
    }

    func testRoundPxHalvesAwayFromZero() {
        let g = PixelGrid(scale: 2)
        // round(20.5) = 21 → 10.5; round(−20.5) = −21 → −10.5 (C round).
        XCTAssertEqual(g.round(10.25), 10.5)
        XCTAssertEqual(g.round(-10.25), -10.5)
        // round(20.4) = 20 → 10.
        XCTAssertEqual(g.round(10.2), 10)
    }

    func testLayoutSizesAreCeiledAtCreation() {
        // §4.4: a layout's size is pixel-ceiled: 10.3 → 10.5, 0 → −0.0 (== 0).
        let l = Layout(size: Size(width: 10.3, height: 0), ascender: 0, descender: 0, grid: PixelGrid(scale: 2))
        XCTAssertEqual(l.size.width, 10.5)
        XCTAssertEqual(l.size.height, 0)
    }

    func testLayoutInvalidSizeBecomesZeroByZero() {
        // §4.4: NaN, negative, inf or >= 1e7 in either axis → the WHOLE size becomes 0×0.
        let g = PixelGrid(scale: 2)
        for bad in [Size(width: .nan, height: 10), Size(width: 10, height: -1), Size(width: inf, height: 10),
                    Size(width: 10, height: 1e7)] {
            let l = Layout(size: bad, ascender: 0, descender: 0, grid: g)
            XCTAssertEqual(l.size, Size.zero, "\(bad)")
        }
    }
}
