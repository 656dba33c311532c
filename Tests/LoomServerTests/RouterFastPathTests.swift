import Foundation
import LoomLayout
import XCTest
@testable import LoomService
@testable import LoomServer

/// The router's per-request shortcuts give what the straightforward code gave: the in-place
/// Content-Type check and metrics by route number. (The encoder's and the service's
/// shortcuts are tested in LoomServiceTests: EncoderFastPathTests, RecentBodiesTests.)
final class RouterFastPathTests: XCTestCase {
    // MARK: Content-Type

    func testContentTypeCheck() {
        let accepted = ["application/json", "Application/JSON", " application/json\t", "application/json; charset=utf-8",
                        "application/json;charset=UTF-8", "application/vnd.api+json", "APPLICATION/X+JSON ; q=1",
                        "application/+json", "application/problem+json; ä=1"]
        let refused = ["", "text/json", "application/jsonx", "application/json+x", "application", "application/",
                       "+json", "application+json", "application/ json", "app/json", "application/jsön",
                       "applicatiön/x+json", ";application/json", "application/json\u{301}"]
        for s in accepted { XCTAssertTrue(Router.isJSON(s), s) }
        for s in refused { XCTAssertFalse(Router.isJSON(s), s) }
        XCTAssertFalse(Router.isJSON(nil))
        // Generated variants agree with the reference.
        let mimes = ["application/json", "APPLICATION/Json", "application/ld+json", "application/+json", "text/plain",
                     "application/jsonp", "x/y+json", "application/\u{212A}+json", "ap\u{130}lication/json", ""]
        let before = ["", " ", "\t", " \t "]
        let after = ["", " ", "\t", ";", "; charset=utf-8", " ;x", ";\u{301}", "\u{301}", "é"]
        for m in mimes {
            for b in before {
                for a in after {
                    let s = b + m + a
                    XCTAssertEqual(Router.isJSON(s), Router.isJSONUnicode(s), s.debugDescription)
                }
            }
        }
    }

    // MARK: metrics

    func testMetricsByRouteNumberAreTheSameSeries() {
        let service = ServiceMetrics()
        let metrics = HTTPMetrics(factory: service.factory)
        metrics.request(route: Router.Route.layout.rawValue, label: "/layout", method: "POST", status: 200, nanoseconds: 300_000)
        metrics.request(route: Router.Route.layout.rawValue, label: "/layout", method: "POST", status: 200, nanoseconds: 2_000_000)
        metrics.request(route: "/layout", method: "POST", status: 200, seconds: 0.000_1)
        metrics.request(route: Router.Route.layout.rawValue, label: "/layout", method: "POST", status: 415, nanoseconds: 1)
        metrics.request(route: Router.Route.layout.rawValue, label: "/layout", method: "PUT", status: 405, nanoseconds: 1)
        metrics.request(route: Router.Route.other.rawValue, label: "other", method: "GET", status: 404, nanoseconds: 1)
        let text = String(decoding: service.render(cache: .init(), subtree: .init(), text: nil), as: UTF8.self)
        func value(_ series: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.map { String($0.dropFirst(series.count + 1)) }
        }
        XCTAssertEqual(value(#"loom_http_requests_total{route="/layout",method="POST",status="200"}"#), "3", text)
        XCTAssertEqual(value(#"loom_http_requests_total{route="/layout",method="POST",status="415"}"#), "1", text)
        XCTAssertEqual(value(#"loom_http_requests_total{route="/layout",method="PUT",status="405"}"#), "1", text)
        XCTAssertEqual(value(#"loom_http_requests_total{route="other",method="GET",status="404"}"#), "1", text)
        XCTAssertEqual(value(#"loom_http_request_duration_seconds_count{route="/layout"}"#), "5", text)
        // 100 µs, 300 µs, 2 ms (and two 1 ns): 3 at or below 250 µs... 4 below 500 µs.
        XCTAssertEqual(value(#"loom_http_request_duration_seconds_bucket{route="/layout",le="0.0005"}"#), "4", text)
        XCTAssertEqual(value(#"loom_http_request_duration_seconds_bucket{route="/layout",le="0.00025"}"#), "3", text)
    }
}
