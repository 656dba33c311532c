import Dispatch

/// The stack algorithm of `ASStackLayoutSpec` (semantics §7.2): first measurement, lines,
/// flexing once per line, line cross sizes and baselines, stretching, positioning.
/// Texture splits this into ASStackUnpositionedLayout and ASStackPositionedLayout; here it is
/// one value that runs the steps in order over a few parallel arrays.
final class StackLayoutAlgorithm {
    static let violationEpsilon = 0.01

    let spec: StackLayoutSpec
    let used: SizeRange
    let context: LayoutContext
    let vertical: Bool
    let children: [LayoutElement]
    let mainMin: Double, mainMax: Double, crossMin: Double, crossMax: Double
    /// Per axis the stack's exact size, else NaN (§7.2.3 step 1).
    let parentSize: Size
    let concurrent: Bool

    /// Per child: current layout and resolved alignment. A child not measured yet holds the
    /// context's `placeholder` (no child's measurement is ever that object). Layouts are
    /// held unretained: every layout `layoutThatFits` returns stays in the child's memo for as
    /// long as the tree lives, so the algorithm need not count references to each one it
    /// stores and reads.
    private var layouts: [Unmanaged<Layout>]
    let alignments: [StackLayoutAlignItems]

    struct Line {
        var range: Range<Int>
        var cross: Double = 0
        var baseline: Double = 0
    }

    /// A child (by index) and a main size for it. (A struct rather than a tuple: arrays
    /// of tuples look their type metadata up at run time on every allocation.)
    struct MainSize {
        var index: Int
        var main: Double
        init(index: Int, main: Double) { self.index = index; self.main = main }
    }

    init(spec: StackLayoutSpec, used: SizeRange, context: LayoutContext) {
        self.spec = spec
        self.used = used
        self.context = context
        self.vertical = spec.direction == .vertical
        self.children = spec.children
        self.mainMin = vertical ? used.min.height : used.min.width
        self.mainMax = vertical ? used.max.height : used.max.width
        self.crossMin = vertical ? used.min.width : used.min.height
        self.crossMax = vertical ? used.max.width : used.max.height
        self.parentSize = Size(width: used.min.width == used.max.width ? used.min.width : .nan,
                               height: used.min.height == used.max.height ? used.min.height : .nan)
        self.concurrent = spec.concurrent && context.allowsConcurrency && spec.children.count > 1
        let alignItems = spec.alignItems
        self.alignments = spec.children.map { child in
            switch child.style.alignSelf {
            case .auto: return alignItems
            case .start: return .start
            case .end: return .end
            case .center: return .center
            case .stretch: return .stretch
            }
        }
        self.layouts = []
    }

    // MARK: axis helpers

    @inline(__always) func main(_ s: Size) -> Double { vertical ? s.height : s.width }
    @inline(__always) func cross(_ s: Size) -> Double { vertical ? s.width : s.height }
    @inline(__always) func size(main m: Double, cross c: Double) -> Size {
        vertical ? Size(width: c, height: m) : Size(width: m, height: c)
    }
    @inline(__always) func point(main m: Double, cross c: Double) -> Point {
        vertical ? Point(x: c, y: m) : Point(x: m, y: c)
    }

    // MARK: the children's current layouts

    @inline(__always) func size(of i: Int) -> Size { layouts[i]._withUnsafeGuaranteedRef { $0.size } }
    @inline(__always) func ascender(of i: Int) -> Double { layouts[i]._withUnsafeGuaranteedRef { $0.ascender } }
    @inline(__always) func descender(of i: Int) -> Double { layouts[i]._withUnsafeGuaranteedRef { $0.descender } }
    @inline(__always) func isPlaceholder(_ i: Int) -> Bool {
        layouts[i].toOpaque() == Unmanaged.passUnretained(context.placeholder).toOpaque()
    }
    /// `layout` must be one `layoutThatFits` returned (kept alive by the child's memo).
    @inline(__always) func setLayout(_ i: Int, _ layout: Layout) { layouts[i] = Unmanaged.passUnretained(layout) }

    // MARK: measuring a child (crossChildLayout)

    /// §7.2.3 `measureChild`: a stretch child takes its cross range from its own style
    /// resolved against an undefined parent, where an explicit value is set.
    func measureChild(_ i: Int, stackMin: Double, stackMax: Double, crossMin cMin: Double, crossMax cMax: Double) -> Layout {
        // Borrowed: the spec's array holds every child while the algorithm runs (a retain and
        // release per measurement would be two atomic writes to the child's object).
        Unmanaged.passUnretained(children[i])._withUnsafeGuaranteedRef { child in
            measure(child, i, stackMin: stackMin, stackMax: stackMax, crossMin: cMin, crossMax: cMax)
        }
    }

    @inline(__always)
    private func measure(_ child: LayoutElement, _ i: Int, stackMin: Double, stackMax: Double,
                         crossMin cMin: Double, crossMax cMax: Double) -> Layout {
        let childCrossMin: Double, childCrossMax: Double
        if alignments[i] == .stretch {
            let r = child.style.resolveSize(parent: .undefined)
            let rMin = cross(r.min), rMax = cross(r.max)
            childCrossMin = rMin != 0 ? rMin : cMin
            childCrossMax = rMax != .infinity ? rMax : cMax
        } else {
            childCrossMin = 0
            childCrossMax = cMax
        }
        let range = SizeRange(min: size(main: stackMin, cross: childCrossMin), max: size(main: stackMax, cross: childCrossMax))
        return child.layoutThatFits(range, parentSize: parentSize, context: context)
    }

    /// Re-measures the children named in `jobs` (child index and a main-axis size), on
    /// several threads for `concurrent` stacks, and stores the new layouts.
    func remeasure(_ jobs: [MainSize], _ body: (Int, Double) -> Layout) {
        if concurrent && jobs.count > 1 {
            var results: [Layout?] = filled(nil, count: jobs.count)
            var costs: [LayoutCost] = filled(LayoutCost(), count: jobs.count)
            results.withUnsafeMutableBufferPointer { buf in
                costs.withUnsafeMutableBufferPointer { costBuf in
                    let out = buf, spent = costBuf
                    // Each job's cost is summed on its own thread and added to this one's
                    // measurement afterwards (an iteration may run on any thread).
                    DispatchQueue.concurrentPerform(iterations: jobs.count) { k in
                        (out[k], spent[k]) = PassTally.counting(context) { body(jobs[k].index, jobs[k].main) }
                    }
                }
            }
            for (k, job) in jobs.enumerated() {
                setLayout(job.index, results[k]!)
                PassTally.current?.pointee.frame += costs[k]
            }
        } else {
            for job in jobs {
                setLayout(job.index, body(job.index, job.main))
            }
        }
    }

    // MARK: the steps

    func run() -> Layout {
        let n = children.count
        if n == 0 { return spec.makeLayout(used.min, context: context) }

        // §7.2.6: optimized flexing.
        var flexibleBoth = 0
        for c in children where c.style.flexGrow > 0 && c.style.flexShrink > 0 { flexibleBoth += 1 }
        let optimized = flexibleBoth == 1 && mainMin == mainMax

        // §7.2.4: first pass with an unbounded (or flex-basis) main axis.
        layouts = filled(Unmanaged.passUnretained(context.placeholder), count: n)
        let parentMain = main(parentSize)
        var firstPass: [MainSize] = []
        firstPass.reserveCapacity(n)
        for i in 0..<n {
            let s = children[i].style
            if optimized && s.flexGrow > 0 && s.flexShrink > 0 { continue }
            firstPass.append(MainSize(index: i, main: 0))
        }
        remeasure(firstPass) { i, _ in
            let basis = children[i].style.flexBasis
            return measureChild(i, stackMin: basis.resolve(parent: parentMain, auto: 0),
                                stackMax: basis.resolve(parent: parentMain, auto: .infinity),
                                crossMin: crossMin, crossMax: crossMax)
        }

        // §7.2.9: lines.
        var lines = collectLines()

        // §7.2.5: flex each line once.
        for line in lines { flex(line.range, optimized: optimized) }

        // §7.2.7: line cross sizes and baselines.
        computeLinesCrossSizeAndBaseline(&lines)

        // §7.2.8: stretch lines and items.
        stretch(&lines)

        // Placeholders nobody measured (a shrinking optimized child): measured at exactly 0×0 (§15).
        for i in 0..<n where isPlaceholder(i) {
            setLayout(i, children[i].layoutThatFits(SizeRange(exactly: .zero), parentSize: .zero, context: context))
        }

        // §7.2.10 / §7.2.12: positions and size.
        return position(lines)
    }

    func lineSum(_ range: Range<Int>) -> Double {
        var sum = range.isEmpty ? 0 : spec.spacing * Double(range.count - 1)
        for i in range { sum += children[i].style.spacingBefore + children[i].style.spacingAfter }
        for i in range { sum += main(size(of: i)) }
        return sum
    }

    @inline(__always) func violation(_ sum: Double) -> Double {
        if sum < mainMin { return mainMin - sum }
        if sum > mainMax { return mainMax - sum }
        return 0
    }

    /// Lines from the first-pass sizes: a line breaks only when adding an item would exceed
    /// the max; every item's spacingBefore/After counts, `spacing` is not carried over a break.
    func collectLines() -> [Line] {
        let n = children.count
        if spec.flexWrap == .noWrap { return [Line(range: 0..<n)] }
        var lines: [Line] = []
        var start = 0, lineSum = 0.0, gap = 0.0
        for i in 0..<n {
            let s = children[i].style
            let extent = s.spacingBefore + main(size(of: i)) + s.spacingAfter
            if violation(lineSum + gap + extent) < 0 && i > start {
                lines.append(Line(range: start..<i))
                start = i; lineSum = 0; gap = 0
            }
            lineSum += gap + extent
            gap = spec.spacing
        }
        lines.append(Line(range: start..<n))
        return lines
    }

    func flex(_ range: Range<Int>, optimized: Bool) {
        let v = violation(lineSum(range))
        let eps = StackLayoutAlgorithm.violationEpsilon
        @inline(__always) func factor(_ i: Int) -> Double {
            if abs(v) < eps { return 0 }
            return v > 0 ? children[i].style.flexGrow : children[i].style.flexShrink
        }
        var flexSum = 0.0
        for i in range { flexSum += factor(i) }
        if flexSum == 0 {
            if optimized {
                var flexible: [MainSize] = []
                for i in range where children[i].style.flexGrow > 0 && children[i].style.flexShrink > 0 { flexible.append(MainSize(index: i, main: 0)) }
                remeasure(flexible) { i, _ in
                    measureChild(i, stackMin: 0, stackMax: 0, crossMin: crossMin, crossMax: crossMax)
                }
            }
            return
        }
        var adjustments = filled(0.0, count: range.count)
        if v > 0 {
            for (k, i) in range.enumerated() {
                adjustments[k] = (v * (children[i].style.flexGrow / flexSum)).rounded(.down)
            }
        } else {
            var scaledSum = 0.0
            for i in range { scaledSum += main(size(of: i)) * (children[i].style.flexShrink / flexSum) }
            if scaledSum != 0 {
                for (k, i) in range.enumerated() {
                    let scaled = main(size(of: i)) * (children[i].style.flexShrink / flexSum)
                    adjustments[k] = -abs((scaled / scaledSum) * v)
                }
            }
        }
        var remaining = v
        for a in adjustments { remaining -= a }
        guard let first = adjustments.firstIndex(where: { $0 != 0 }) else { return }
        let lower = range.lowerBound
        var flexing: [MainSize] = []
        flexing.reserveCapacity(adjustments.count)
        for (k, adjustment) in adjustments.enumerated() where adjustment != 0 {
            let i = lower + k
            let extra = (k == first && children[i].style.flexGrow > 0) ? remaining : 0
            flexing.append(MainSize(index: i, main: cgMax(main(size(of: i)) + adjustment + extra, 0)))
        }
        remeasure(flexing) { i, target in
            measureChild(i, stackMin: target, stackMax: target, crossMin: crossMin, crossMax: crossMax)
        }
    }

    func isBaseline(_ i: Int) -> Bool { alignments[i] == .baselineFirst || alignments[i] == .baselineLast }

    func baselineOf(_ i: Int) -> Double {
        switch alignments[i] {
        case .baselineFirst: return ascender(of: i)
        case .baselineLast: return cross(size(of: i)) + descender(of: i)
        default: return 0
        }
    }

    func computeLinesCrossSizeAndBaseline(_ lines: inout [Line]) {
        let single = lines.count == 1
        if single && crossMin == crossMax {
            lines[0].cross = crossMin
            var baseline = 0.0
            for i in lines[0].range where isBaseline(i) { baseline = cgMax(baseline, baselineOf(i)) }
            lines[0].baseline = baseline
            return
        }
        for li in lines.indices {
            var toBaseline = 0.0, fromBaseline = 0.0, maxCross = 0.0
            for i in lines[li].range {
                if isBaseline(i) {
                    let b = baselineOf(i)
                    toBaseline = cgMax(toBaseline, b)
                    fromBaseline = cgMax(fromBaseline, cross(size(of: i)) - b)
                } else {
                    maxCross = cgMax(maxCross, cross(size(of: i)))
                }
            }
            var c = cgMax(toBaseline + fromBaseline, maxCross)
            if single { c = cgMin(cgMax(crossMin, c), crossMax) }
            lines[li].cross = c
            lines[li].baseline = toBaseline
        }
    }

    func linesCrossSum(_ lines: [Line]) -> Double {
        var sum = spec.lineSpacing * Double(lines.count - 1)
        for l in lines { sum += l.cross }
        return sum
    }

    @inline(__always) func crossViolation(_ sum: Double) -> Double {
        if sum < crossMin { return crossMin - sum }
        if sum > crossMax { return crossMax - sum }
        return 0
    }

    func stretch(_ lines: inout [Line]) {
        let v = crossViolation(linesCrossSum(lines))
        let stretchLines = lines.count > 1 && spec.alignContent == .stretch && v > StackLayoutAlgorithm.violationEpsilon
        let extra = v / Double(lines.count)
        for li in lines.indices {
            if stretchLines { lines[li].cross += extra }
            let lineCross = lines[li].cross
            var candidates: [MainSize] = []
            for i in lines[li].range
            where alignments[i] == .stretch && lineCross - cross(size(of: i)) > StackLayoutAlgorithm.violationEpsilon {
                candidates.append(MainSize(index: i, main: main(size(of: i))))
            }
            if candidates.isEmpty { continue }
            remeasure(candidates) { i, s in
                measureChild(i, stackMin: s, stackMax: s, crossMin: lineCross, crossMax: lineCross)
            }
        }
    }

    func position(_ lines: [Line]) -> Layout {
        let eps = StackLayoutAlgorithm.violationEpsilon
        var stackMain = 0.0
        var sums: [Double] = []
        sums.reserveCapacity(lines.count)
        for l in lines {
            let s = lineSum(l.range)
            sums.append(s)
            stackMain = cgMax(s, stackMain)
        }
        let crossSum = linesCrossSum(lines)

        // alignContent: lines along the cross axis.
        let cv = crossViolation(crossSum)
        var alignContent = spec.alignContent
        if alignContent == .spaceBetween && (cv < eps || lines.count == 1) { alignContent = .start }
        if alignContent == .spaceAround && (cv < eps || lines.count == 1) { alignContent = .center }
        var crossOffset = 0.0, lineGap = 0.0
        switch alignContent {
        case .start, .stretch: break
        case .center: crossOffset = cv / 2
        case .end: crossOffset = cv
        case .spaceBetween: lineGap = cv / Double(lines.count - 1)
        case .spaceAround:
            let unit = cv / Double(2 * lines.count)
            crossOffset = unit; lineGap = 2 * unit
        }

        let grid = context.grid
        var subs: [Sublayout] = []
        subs.reserveCapacity(children.count)
        var lineCrossStart = crossOffset
        for (li, line) in lines.enumerated() {
            let v = violation(sums[li])
            let count = line.range.count
            var justify = spec.justifyContent
            if justify == .spaceBetween && (v < eps || count == 1) { justify = .start }
            if justify == .spaceAround && (v < eps || count == 1) { justify = .center }
            var p = 0.0, extraGap = 0.0
            switch justify {
            case .start: break
            case .center: p = v / 2
            case .end: p = v
            case .spaceBetween: extraGap = v / Double(count - 1)
            case .spaceAround:
                let unit = v / Double(2 * count)
                p = unit; extraGap = 2 * unit
            }
            for (k, i) in line.range.enumerated() {
                let s = children[i].style
                p += s.spacingBefore
                if k > 0 { p += spec.spacing + extraGap }
                let itemCross = cross(size(of: i))
                let offset: Double
                switch alignments[i] {
                case .end: offset = line.cross - itemCross
                case .center: offset = grid.floor((line.cross - itemCross) / 2)
                case .baselineFirst, .baselineLast: offset = line.baseline - baselineOf(i)
                case .start, .stretch: offset = 0
                }
                subs.append(Sublayout(slot: i, position: point(main: p, cross: lineCrossStart + offset), layout: layouts[i].takeUnretainedValue()))
                p += main(size(of: i)) + s.spacingAfter
            }
            lineCrossStart += line.cross + lineGap + spec.lineSpacing
        }

        let size = used.clamp(self.size(main: stackMain, cross: crossSum))
        var ascender = spec.style.ascender, descender = spec.style.descender
        if vertical {
            ascender = self.ascender(of: 0)
            descender = self.descender(of: children.count - 1)
        }
        return Layout(size: size, sublayouts: subs, ascender: ascender, descender: descender, grid: context.grid)
    }
}

/// `Array(repeating:count:)` (for Bool and Double, as measured) goes through the standard
/// library's unspecialized entry point, which looks the array's storage class up in the
/// runtime's metadata cache on every call: about 5 % of a layout when each stack did it.
/// Appending after one reservation is specialized here and looks nothing up. Every array
/// of this algorithm made with one value repeated is made here.
@inline(__always) func filled<T>(_ value: T, count: Int) -> [T] {
    var a: [T] = []
    a.reserveCapacity(count)
    for _ in 0..<count { a.append(value) }
    return a
}
