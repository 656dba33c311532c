import Foundation
import XCTest

/// `options.includeText` over HTTP: the answer with lines has its own key, and
/// `GET /layouts/{key}` gives it back with the lines.
final class IncludeTextOverHTTPTests: ServiceOverHTTPTestCase {
    private func body(_ includeText: Bool) -> String {
        #"{"options": {"includeText": \#(includeText)}, "sizeRange": {"max": {"width": 120}}, "#
            + #""root": {"type": "text", "id": "t", "text": "Lines for a client to draw, one by one", "#
            + #""font": {"family": "Liberation Sans", "size": 16}}}"#
    }

    func testGetByKeyReturnsTheAnswerWithItsLines() throws {
        let loom = try startLoom()
        let with = try postJSON(loom, "/layout", body(true))
        let without = try postJSON(loom, "/layout", body(false))
        XCTAssertEqual(with.status, 200)
        XCTAssertNotEqual(with.header("X-Layout-Key"), without.header("X-Layout-Key"))
        XCTAssertTrue(String(decoding: with.body, as: UTF8.self).contains(#""textLines":[{"text":"Lines for a"#))
        XCTAssertFalse(String(decoding: without.body, as: UTF8.self).contains("textLines"))
        let got = try request(loom, "GET", try XCTUnwrap(with.header("Content-Location")))
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.body, with.body)
    }
}
