import XCTest
import LoomLayout
@testable import LoomText

/// The measurement cache's identity of a text (TextIdentity) and its table (MeasurementCache):
/// a cached answer must only ever come back for the very same text and container.
final class MeasurementCacheTests: XCTestCase {
    static let base = TextAttributes(
        spans: [TextSpan(text: "Café au lait, "), TextSpan(text: "s'il vous plaît", font: FontDescriptor(family: "Inter", size: 13),
                                                          letterSpacing: 0.5)],
        font: FontDescriptor(family: "Roboto", size: 14, weight: 500), lineHeight: 18, lineSpacing: 2,
        letterSpacing: 0.25, alignment: .center, maximumNumberOfLines: 3, truncationMode: .tail, truncationText: "…")

    /// Every field, changed alone: none of these may be the base text.
    static var variants: [(String, TextAttributes)] {
        var v: [(String, TextAttributes)] = []
        func add(_ name: String, _ change: (inout TextAttributes) -> Void) {
            var t = base
            change(&t)
            v.append((name, t))
        }
        add("span text") { $0.spans[0].text = "Cafe au lait, " }
        // The same string for Swift's == (canonically equivalent), different bytes.
        add("decomposed é") { $0.spans[0].text = "Cafe\u{301} au lait, " }
        add("one span split differently") { $0.spans[0].text = "Café au lait"; $0.spans[1].text = ", s'il vous plaît" }
        add("spans merged") { $0.spans = [TextSpan(text: "Café au lait, s'il vous plaît")] }
        add("span letter spacing nil") { $0.spans[1].letterSpacing = nil }
        add("span letter spacing 0") { $0.spans[0].letterSpacing = 0 }
        add("span letter spacing negated") { $0.spans[1].letterSpacing = -0.5 }
        add("span font nil") { $0.spans[1].font = nil }
        add("span font set") { $0.spans[0].font = $0.font }
        add("span font family case") { $0.spans[1].font?.family = "inter" }
        add("span font size") { $0.spans[1].font?.size = 13.000001 }
        add("family") { $0.font.family = "Roboto " }
        add("size") { $0.font.size = 15 }
        add("weight") { $0.font.weight = 400 }
        add("italic") { $0.font.italic = true }
        add("line height nil") { $0.lineHeight = nil }
        add("line height") { $0.lineHeight = 18.5 }
        add("line spacing") { $0.lineSpacing = 0 }
        add("letter spacing") { $0.letterSpacing = 0 }
        add("alignment") { $0.alignment = .natural }
        add("line limit") { $0.maximumNumberOfLines = 0 }
        add("truncation mode") { $0.truncationMode = .wordWrap }
        add("truncation text") { $0.truncationText = "..." }
        add("truncation text empty") { $0.truncationText = "" }
        add("empty spans") { $0.spans = [] }
        add("a third, empty span") { $0.spans.append(TextSpan(text: "")) }
        return v
    }

    func testTheIdentityTellsEveryFieldApart() {
        let key = TextIdentity.encode(Self.base)
        key.withUnsafeBytes { key in
            XCTAssertTrue(TextIdentity.matches(Self.base, key))
            // A copy built afresh (other string storage) is the same text.
            var copy = Self.base
            copy.spans[0].text = String(decoding: Array("Café au lait, ".utf8), as: UTF8.self)
            XCTAssertTrue(TextIdentity.matches(copy, key))
            XCTAssertEqual(TextIdentity.fingerprint(copy), TextIdentity.fingerprint(Self.base))
            for (name, variant) in Self.variants {
                XCTAssertFalse(TextIdentity.matches(variant, key), name)
                // Each variant's own key matches it and not the base.
                TextIdentity.encode(variant).withUnsafeBytes { own in
                    XCTAssertTrue(TextIdentity.matches(variant, own), name)
                    XCTAssertFalse(TextIdentity.matches(Self.base, own), name)
                }
            }
        }
        // -0 and +0 letter spacing are told apart (bit patterns), and NaN is itself.
        var plus = Self.base, minus = Self.base, nan = Self.base
        plus.letterSpacing = 0; minus.letterSpacing = -0.0; nan.letterSpacing = .nan
        TextIdentity.encode(plus).withUnsafeBytes { XCTAssertFalse(TextIdentity.matches(minus, $0)) }
        TextIdentity.encode(nan).withUnsafeBytes { XCTAssertTrue(TextIdentity.matches(nan, $0)) }
        // Fingerprints of distinct texts differ (64 bits: a collision here would be a bug).
        let prints = Set(Self.variants.map { TextIdentity.fingerprint($0.1) } + [TextIdentity.fingerprint(Self.base)])
        XCTAssertEqual(prints.count, Set(Self.variants.map(\.0)).count + 1)
    }

    /// Long strings (hashed and compared sixteen bytes at a time, with an overlapping last
    /// step) differ from their copies with one byte changed at any position.
    func testEveryByteOfALongTextCounts() {
        let text = String(repeating: "abcdefghij", count: 7)   // 70 bytes
        let original = TextAttributes(spans: [TextSpan(text: text)])
        TextIdentity.encode(original).withUnsafeBytes { key in
            for length in [1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 70] {
                let prefix = TextAttributes(spans: [TextSpan(text: String(text.prefix(length)))])
                let own = TextIdentity.encode(prefix)
                var utf8 = Array(text.prefix(length).utf8)
                for i in utf8.indices {
                    let saved = utf8[i]
                    utf8[i] = saved == UInt8(ascii: "Z") ? UInt8(ascii: "Y") : UInt8(ascii: "Z")
                    let changed = TextAttributes(spans: [TextSpan(text: String(decoding: utf8, as: UTF8.self))])
                    own.withUnsafeBytes { XCTAssertFalse(TextIdentity.matches(changed, $0), "length \(length), byte \(i)") }
                    XCTAssertNotEqual(TextIdentity.fingerprint(changed), TextIdentity.fingerprint(prefix), "length \(length), byte \(i)")
                    utf8[i] = saved
                }
                XCTAssertEqual(TextIdentity.matches(prefix, key), length == 70)
            }
        }
    }

    private func answer(_ id: Int, _ width: Double) -> TextMeasurement {
        TextMeasurement(size: Size(width: Double(id) * 1000 + width, height: 1), lineCount: id, truncated: false,
                        ascender: width, descender: 0)
    }

    /// Texts crafted (here: forced) to share a fingerprint are told apart by their identity;
    /// past the probe bound they are simply not cached.
    func testCollidingFingerprintsNeverAnswerForEachOther() {
        let cache = MeasurementCache(capacity: 1000, shardCount: 1)
        let texts = (0..<60).map { TextAttributes(spans: [TextSpan(text: "text \($0)")]) }
        let size = Size(width: 100, height: .infinity)
        for (i, t) in texts.enumerated() { cache.store(t, fingerprint: 42, in: size, answer(i, 100)) }
        var cached = 0
        for (i, t) in texts.enumerated() {
            if let hit = cache.lookup(t, fingerprint: 42, in: size).hit {
                XCTAssertEqual(hit, answer(i, 100))
                cached += 1
            }
        }
        XCTAssertEqual(cached, MeasurementCache.maxProbes)
        XCTAssertEqual(cache.statistics.entries, MeasurementCache.maxProbes)
    }

    /// A text known by a record digest and a text known by its attributes never answer for
    /// each other, even where the digest's low half is the attributes' fingerprint (the same
    /// shard, home slot and tag); a digest lookup that misses is counted only when asked.
    func testDigestsAndAttributesNeverAnswerForEachOther() {
        let cache = MeasurementCache(capacity: 100, shardCount: 1)
        let text = TextAttributes(spans: [TextSpan(text: "same place")])
        let print = 0x1234_5678_9ABC_0000
        let digest = ElementDigest(high: 7, low: UInt64(print))
        let size = Size(width: 100, height: .infinity)
        cache.store(text, fingerprint: print, in: size, answer(1, 100))
        XCTAssertNil(cache.lookup(digest: digest, in: size).hit)
        XCTAssertEqual(cache.statistics.misses, 1)
        XCTAssertNil(cache.lookup(digest: digest, in: size, countingMiss: false).hit)
        XCTAssertEqual(cache.statistics.misses, 1)
        cache.store(digest: digest, in: size, answer(2, 100))
        XCTAssertEqual(cache.lookup(digest: digest, in: size, countingMiss: false).hit, answer(2, 100))
        XCTAssertEqual(cache.lookup(text, fingerprint: print, in: size).hit, answer(1, 100))
        // A digest differing in either half is another text.
        XCTAssertNil(cache.lookup(digest: ElementDigest(high: 8, low: UInt64(print)), in: size).hit)
        XCTAssertNil(cache.lookup(digest: ElementDigest(high: 7, low: UInt64(print) ^ 1 << 40), in: size).hit)
        XCTAssertEqual(cache.statistics.hits, 2)
        XCTAssertEqual(cache.statistics.entries, 2)
        // The digest's text keeps answers per container like any other.
        cache.store(digest: digest, in: Size(width: .infinity, height: .infinity), answer(2, 0))
        let found = cache.lookup(digest: digest, in: Size(width: 50, height: .infinity))
        XCTAssertNil(found.hit)
        XCTAssertEqual(found.unlimitedWidth, answer(2, 0))
    }

    /// Random stores and lookups against a model, with few fingerprints (long probe runs
    /// that wrap around the table, deletions in their middle) and a small capacity (constant
    /// eviction), half the texts known by their attributes and half by a digest whose low
    /// half is a fingerprint the others use: every hit is the answer last stored for that
    /// text and container, the answers held never exceed the capacity, and what was just
    /// stored can be found.
    func testRandomUseAgreesWithAModel() {
        var rng = WordPathTests.Rng(state: 7)
        for capacity in [1, 4, 8, 40] {
            let cache = MeasurementCache(capacity: capacity, shardCount: 2)
            var model: [String: TextMeasurement] = [:]
            let texts = (0..<30).map { TextAttributes(spans: [TextSpan(text: "t\($0)")]) }
            let widths: [Double] = [.infinity, 50, 100, 150, 200, 250]
            for step in 0..<20_000 {
                let t = Int(rng.next() % 30)
                let width = widths[Int(rng.next() % UInt64(widths.count))]
                let size = Size(width: width, height: .infinity)
                // Each text keeps one fingerprint; ten in all (shard: the low bit; home slot:
                // bits 12 and up). Texts 15 and up are known by a digest.
                let print = (t * 7919) % 5 << 12 | t % 2
                let digest = t >= 15 ? ElementDigest(high: UInt64(t), low: UInt64(print)) : nil
                func lookup() -> TextMeasurement? {
                    if let digest { return cache.lookup(digest: digest, in: size).hit }
                    return cache.lookup(texts[t], fingerprint: print, in: size).hit
                }
                let key = "\(t)/\(width)"
                if rng.next() % 3 == 0 {
                    let value = answer(t * 100 + step % 97, width)
                    if let digest {
                        cache.store(digest: digest, in: size, value)
                    } else {
                        cache.store(texts[t], fingerprint: print, in: size, value)
                    }
                    model[key] = value
                    XCTAssertEqual(lookup(), value, "step \(step)")
                } else if let hit = lookup() {
                    XCTAssertEqual(hit, model[key], "step \(step)")
                }
                XCTAssertLessThanOrEqual(cache.statistics.entries, capacity)
            }
        }
    }

    /// A text holds at most `answersPerText` answers, replaced oldest first; the answer in
    /// unlimited width comes with a lookup in any width of the same height.
    func testAnswersPerTextAndTheUnlimitedWidthAnswer() {
        let cache = MeasurementCache(capacity: 100, shardCount: 1)
        let text = TextAttributes(spans: [TextSpan(text: "one text")])
        let print = TextIdentity.fingerprint(text)
        cache.store(text, fingerprint: print, in: Size(width: .infinity, height: 30), answer(1, 0))
        let found = cache.lookup(text, fingerprint: print, in: Size(width: 80, height: 30))
        XCTAssertNil(found.hit)
        XCTAssertEqual(found.unlimitedWidth, answer(1, 0))
        XCTAssertNil(cache.lookup(text, fingerprint: print, in: Size(width: 80, height: 31)).unlimitedWidth)
        for w in 1...5 { cache.store(text, fingerprint: print, in: Size(width: Double(w), height: 30), answer(1, Double(w))) }
        XCTAssertEqual(cache.statistics.entries, MeasurementCache.answersPerText)
        // The unlimited-width answer and width 1 (the oldest) made way for widths 4 and 5.
        XCTAssertNil(cache.lookup(text, fingerprint: print, in: Size(width: .infinity, height: 30)).hit)
        XCTAssertNil(cache.lookup(text, fingerprint: print, in: Size(width: 1, height: 30)).hit)
        for w in 2...5 {
            XCTAssertEqual(cache.lookup(text, fingerprint: print, in: Size(width: Double(w), height: 30)).hit, answer(1, Double(w)))
        }
        cache.clear()
        XCTAssertEqual(cache.statistics.entries, 0)
        XCTAssertNil(cache.lookup(text, fingerprint: print, in: Size(width: 2, height: 30)).hit)
    }
}
