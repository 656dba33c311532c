import Foundation
import LoomLayout
import LoomService
import LoomText
import XCTest

/// `options.includeText`: text entries carry their laid-out lines, consistent with their
/// frames; the option is part of the cache key; without it the answer is unchanged.
final class IncludeTextTests: XCTestCase {
    static let measurer: PangoTextMeasurer = try! PangoTextMeasurer()

    private let tree = #"""
    "sizeRange": {"min": {"width": 200}, "max": {"width": 200}},
    "root": {"type": "stack", "direction": "vertical", "spacing": 4, "children": [
      {"type": "text", "id": "plain", "text": "Hello there, this text wraps onto a few lines at 200 points",
       "font": {"family": "Liberation Sans", "size": 16}, "textContainerInset": {"top": 3, "left": 5, "bottom": 2, "right": 7}},
      {"type": "text", "id": "cut", "text": "One two three four five six seven eight nine ten eleven twelve thirteen",
       "font": {"family": "Liberation Sans", "size": 16}, "maximumNumberOfLines": 2, "truncationMode": "tail",
       "truncationText": "..."},
      {"type": "text", "id": "centered", "text": "Mid", "alignment": "center", "style": {"alignSelf": "stretch"},
       "font": {"family": "Liberation Sans", "size": 16}},
      {"type": "button", "id": "b", "title": {"text": "Follow 中文", "font": {"family": "Liberation Sans", "size": 15}}}
    ]}
    """#

    private func body(_ options: String) -> [UInt8] { Array(("{" + options + tree + "}").utf8) }

    private func entry(_ layout: [String: Any], _ id: String) -> [String: Any]? {
        if layout["id"] as? String == id { return layout }
        for child in layout["children"] as? [[String: Any]] ?? [] { if let e = entry(child, id) { return e } }
        return nil
    }

    private func number(_ v: Any?) -> Double { (v as? NSNumber)?.doubleValue ?? .nan }

    func testLinesAreConsistentWithTheFrames() throws {
        let service = LayoutService(textMeasurer: Self.measurer)
        let plainAnswer = service.layout(body: body(""))
        let answer = service.layout(body: body(#""options": {"includeText": true}, "#))
        XCTAssertEqual(answer.status, 200, Svc.text(answer.body))
        XCTAssertNotEqual(answer.key, plainAnswer.key)
        XCTAssertFalse(Svc.text(plainAnswer.body).contains("textLines"))
        let root = try XCTUnwrap(Svc.object(answer.body)["layout"] as? [String: Any])
        let plainRoot = try XCTUnwrap(Svc.object(plainAnswer.body)["layout"] as? [String: Any])

        // The frames are those of the answer without lines.
        for id in ["plain", "cut", "centered", "b"] {
            XCTAssertEqual(entry(root, id)?["frame"] as? [String: Double], entry(plainRoot, id)?["frame"] as? [String: Double], id)
        }

        let plain = try XCTUnwrap(entry(root, "plain"))
        let frame = try XCTUnwrap(plain["frame"] as? [String: Double])
        let lines = try XCTUnwrap(plain["textLines"] as? [[String: Any]])
        XCTAssertEqual(lines.count, plain["lines"] as? Int)
        XCTAssertGreaterThan(lines.count, 1)
        var covered = 0
        for line in lines {
            XCTAssertEqual(number(line["x"]), 5)  // natural, left to right: the left inset
            XCTAssertLessThanOrEqual(number(line["x"]) + number(line["width"]), frame["width"]! - 7 + 1e-9)
            XCTAssertLessThanOrEqual(number(line["y"]) + number(line["height"]), frame["height"]! - 2 + 1e-9)
            XCTAssertEqual(line["location"] as? Int, covered)
            covered += line["length"] as? Int ?? 0
            XCTAssertEqual(line["fonts"] as? [String], ["Liberation Sans"])
            XCTAssertEqual(line["rightToLeft"] as? Bool, false)
        }
        XCTAssertEqual(covered, "Hello there, this text wraps onto a few lines at 200 points".utf16.count)
        XCTAssertEqual(number(lines[0]["y"]), 3)  // the top inset
        // Liberation Sans 16 px: ascent 0.905 em = 14.48 → 14, line gap 0.033 em = 0.53 → 1
        // (Chromium's rounding; half of it, floored, above): baseline 14 below the line's top.
        XCTAssertEqual(number(lines[0]["baseline"]), 3 + 14)
        XCTAssertEqual(number(lines[1]["baseline"]) - number(lines[0]["baseline"]), number(lines[0]["height"]))
        // The engine's first baseline (the node's ascender, unrounded: 14.48) is within a
        // pixel of the drawn one.
        XCTAssertEqual(number(lines[0]["baseline"]), 3 + 0.905 * 16, accuracy: 0.5)
        XCTAssertNil(plain["truncatedString"])

        let cut = try XCTUnwrap(entry(root, "cut"))
        XCTAssertEqual(cut["truncated"] as? Bool, true)
        let cutLines = try XCTUnwrap(cut["textLines"] as? [[String: Any]])
        XCTAssertEqual(cutLines.count, 2)
        let shown = try XCTUnwrap(cut["truncatedString"] as? String)
        XCTAssertTrue(shown.hasSuffix("..."), shown)
        XCTAssertTrue(shown.hasPrefix("One two"), shown)
        XCTAssertTrue((cutLines[1]["text"] as? String ?? "").hasSuffix("..."))
        let cutFrame = try XCTUnwrap(cut["frame"] as? [String: Double])
        XCTAssertEqual(cutLines.map { number($0["width"]) }.max()!, cutFrame["width"]!, accuracy: 1)

        // Centered in a stretched frame: the same space on both sides.
        let centered = try XCTUnwrap(entry(root, "centered"))
        let cFrame = try XCTUnwrap(centered["frame"] as? [String: Double])
        XCTAssertEqual(cFrame["width"], 200)
        let c = try XCTUnwrap((centered["textLines"] as? [[String: Any]])?.first)
        XCTAssertEqual(number(c["x"]) * 2 + number(c["width"]), 200, accuracy: 0.002)

        // The button's title is a text entry with lines, its CJK in a fallback font.
        let button = try XCTUnwrap(entry(root, "b"))
        let title = try XCTUnwrap((button["children"] as? [[String: Any]])?.first { $0["type"] as? String == "text" })
        let titleFonts = try XCTUnwrap((title["textLines"] as? [[String: Any]])?.first?["fonts"] as? [String])
        XCTAssertEqual(titleFonts.first, "Liberation Sans")
        XCTAssertTrue(titleFonts.contains { $0.hasPrefix("Noto Sans CJK") }, "\(titleFonts)")
        // A fallback font is information, not a warning.
        XCTAssertNil(Svc.object(answer.body)["warnings"])
    }

    func testTheOptionIsCachedAndServedByKey() throws {
        let service = LayoutService(textMeasurer: Self.measurer)
        let request = body(#""options": {"includeText": true}, "#)
        let first = service.layout(body: request)
        let again = service.layout(body: request)
        XCTAssertTrue(again.cacheHit)
        XCTAssertEqual(again.body, first.body)
        // Off: the same bytes as no options at all, under the same key.
        let off = service.layout(body: body(#""options": {"includeText": false}, "#))
        let none = service.layout(body: body(""))
        XCTAssertEqual(off.key, none.key)
        XCTAssertEqual(off.body, none.body)
        // Not a boolean: an error at its path.
        let bad = service.layout(body: body(#""options": {"includeText": 1}, "#))
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(Svc.text(bad.body).contains("options.includeText"), Svc.text(bad.body))
    }

    func testBatchItemsCarryLines() throws {
        let service = LayoutService(textMeasurer: Self.measurer)
        let item = "{" + #""options": {"includeText": true}, "# + tree + "}"
        let batch = service.batch(body: Array(#"{"items": [\#(item)]}"#.utf8)) { n, body in for k in 0..<n { body(k) } }
        XCTAssertTrue(Svc.text(batch.body).contains("\"textLines\""), Svc.text(batch.body))
    }

    /// The lines are laid out again after the pass and each is a JSON object: past the
    /// answer's bounds (`TextLinesLimits`) the request is refused at the option, and the same
    /// tree without lines, or with the frames only, is answered.
    func testAnswersWithLinesAreBounded() throws {
        let service = LayoutService(textMeasurer: Self.measurer)
        func request(_ texts: [String], width: Double, output: String? = nil) -> [UInt8] {
            let children = texts.map { t -> String in
                let escaped = t.replacingOccurrences(of: "\n", with: "\\n")
                return #"{"type": "text", "text": "\#(escaped)", "font": {"family": "Liberation Sans", "size": 12}}"#
            }.joined(separator: ",")
            let options = output.map { #""output": "\#($0)", "# } ?? ""
            return Array(#"{"options": {\#(options)"includeText": true}, "sizeRange": {"max": {"width": \#(width)}}, "root": {"type": "stack", "direction": "vertical", "children": [\#(children)]}}"#.utf8)
        }
        // One more line than an answer may carry: short hard-broken lines, few bytes.
        let manyLines = String(repeating: "a\n", count: TextLinesLimits.maxLines) + "a"
        XCTAssertLessThan(manyLines.utf8.count, TextLinesLimits.maxTextBytes)
        let tooManyLines = service.layout(body: request([manyLines], width: 300))
        XCTAssertEqual(tooManyLines.status, 413, Svc.text(tooManyLines.body))
        let error = try XCTUnwrap(Svc.object(tooManyLines.body)["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? String, "too_large")
        XCTAssertEqual(error["path"] as? String, "options.includeText")
        // The frames alone write no lines: answered.
        XCTAssertEqual(service.layout(body: request([manyLines], width: 300, output: "frames")).status, 200)

        // A few lines, but more bytes of text than may be laid out again.
        let long = String(repeating: "word ", count: 18_000)
        let texts = Array(repeating: long, count: TextLinesLimits.maxTextBytes / long.utf8.count + 1)
        let tooManyBytes = service.layout(body: request(texts, width: 1e7))
        XCTAssertEqual(tooManyBytes.status, 413, Svc.text(tooManyBytes.body))
        XCTAssertTrue(Svc.text(tooManyBytes.body).contains("bytes of text"), Svc.text(tooManyBytes.body))
        // One text fewer fits.
        let fits = service.layout(body: request(Array(texts.dropLast()), width: 1e7))
        XCTAssertEqual(fits.status, 200, Svc.text(fits.body))
    }
}
