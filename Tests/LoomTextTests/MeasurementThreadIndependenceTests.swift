import XCTest
import Foundation
import LoomLayout
import LoomText

/// Measurements must not depend on threads: Pango 1.50 computes a font's metrics once, and
/// under a process-wide flag that another thread's computation can make it skip part of
/// the work (PangoEngine: a font's approximate character width left at 0, which moves line
/// breaks). These tests run fresh measurers (fresh engines and fonts, when that race
/// happens) on 8 threads and compare every answer with a sequential run.
final class MeasurementThreadIndependenceTests: XCTestCase {
    /// Texts whose line breaks depend on that width (found by comparing threads before the
    /// fix), then random ones of WordPathTests (all fonts, non-ASCII words, over-long words).
    static let cases: [(TextAttributes, Size)] = {
        func text(_ s: String, _ family: String, _ size: Double) -> TextAttributes {
            TextAttributes(spans: [TextSpan(text: s)], font: FontDescriptor(family: family, size: size))
        }
        var cases: [(TextAttributes, Size)] = [
            (text("brown aaaaaaaaaaaaaaaaaaaaaa AVA WWWWWWWW naïve", "Liberation Sans", 12), Size(width: 182.94, height: .infinity)),
            (text("mmmmmmmmmmmmmmm quick the Zoë TTTTTTTTTTTTTTTTTTTTTTTTTTTTT lazy AVA fox über café over brown fox fox brown dog. AVA über T. AVA the dog.",
                  "Liberation Sans", 12), Size(width: 225.45, height: .infinity)),
            (text("AVA Zoë @h üüüüüüüüüü dog. AVA café AVA x mañana üüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüü naïve brown café T. Zoë @h T. T.",
                  "Liberation Sans", 12), Size(width: 108.26, height: .infinity)),
            (text("WWWWWWWWWWWWWWWWWWW AVA fox café über TTTTTTTTTTTTTTTTTTTTTTTTTTTT", "Roboto", 13), Size(width: 212.06, height: .infinity)),
        ]
        var r = WordPathTests.Rng(state: 2024)
        while cases.count < 160 { cases.append(WordPathTests.randomCase(&r)) }
        return cases
    }()

    static func sequential(_ measurer: PangoTextMeasurer) -> [TextMeasurement] {
        cases.map { measurer.measureUncached($0.0, in: $0.1) }
    }

    /// Runs `body(thread)` on `count` threads started together.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for t in 0..<count {
            group.enter()
            let thread = Thread {
                body(t)
                group.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
    }

    final class Mismatches: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var list: [String] = []
        func add(_ s: String) { lock.lock(); list.append(s); lock.unlock() }
    }

    private func check(_ label: String, _ got: TextMeasurement, _ c: Int, _ expected: [TextMeasurement], _ out: Mismatches) {
        if got != expected[c] {
            let (t, size) = Self.cases[c]
            out.add("\(label) case \(c): \(t.font) width \(size.width) \(t.string.debugDescription): \(got) ≠ sequential \(expected[c])")
        }
    }

    /// Fresh measurers measured in another order agree with each other, word cache or not.
    func testFreshMeasurersAgree() throws {
        let expected = Self.sequential(try PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: 0))
        let other = try PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: 0)
        let withWords = try PangoTextMeasurer(cacheCapacity: 0)
        for c in Self.cases.indices.reversed() {
            XCTAssertEqual(other.measureUncached(Self.cases[c].0, in: Self.cases[c].1), expected[c], "case \(c)")
            XCTAssertEqual(withWords.measureUncached(Self.cases[c].0, in: Self.cases[c].1), expected[c], "case \(c)")
        }
    }

    /// 8 threads, each with a fresh measurer of its own (all engines load their fonts at the
    /// same time), then 8 threads on one shared fresh measurer; several rounds. Every answer
    /// must be the sequential one.
    func testEightThreadsAgreeWithSequentialRun() throws {
        let expected = Self.sequential(try PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: 0))
        let out = Mismatches()
        let n = Self.cases.count
        for round in 0..<6 {
            // Own measurers (Pango path only, and with the word path on odd threads).
            Self.onThreads(8) { t in
                guard let m = try? PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: t % 2 == 0 ? 0 : 64) else {
                    out.add("thread \(t): no measurer"); return
                }
                for i in 0..<n {
                    let c = (i + t * 23) % n
                    self.check("round \(round) own thread \(t)", m.measureUncached(Self.cases[c].0, in: Self.cases[c].1), c, expected, out)
                }
            }
            // One shared measurer (its pool creates an engine per concurrent caller), cached
            // too: the measurement cache must hand out the same answers.
            let shared = try PangoTextMeasurer(cacheCapacity: round % 2 == 0 ? 0 : 1000)
            Self.onThreads(8) { t in
                for i in 0..<n {
                    let c = (i * 7 + t * 37) % n
                    self.check("round \(round) shared thread \(t)", shared.measure(Self.cases[c].0, in: Self.cases[c].1), c, expected, out)
                }
            }
            if !out.list.isEmpty { break }
        }
        for line in out.list.prefix(10) { XCTFail(line) }
        XCTAssertEqual(out.list.count, 0)
    }
}
