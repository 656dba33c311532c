import Dispatch
import Foundation
import LoomHTTP
import LoomLayout
import LoomService
import LoomServer
import XCTest

/// The router called directly, without sockets: labels, readiness and headers.
final class RouterTests: XCTestCase {
    private func router(workers: Int = 2, queueLimit: Int = 8) -> Router {
        let metrics = ServiceMetrics()
        let service = LayoutService(textMeasurer: nil, metrics: metrics)
        return Router(service: service, pool: LayoutPool(workers: workers, queueLimit: queueLimit), metrics: metrics,
                      fonts: { [] })
    }

    /// Calls the router and waits for its answer.
    private func call(_ router: Router, _ request: HTTPRequest) -> HTTPResponse {
        let box = ResponseBox()
        router.handle(request) { box.set($0) }
        return box.wait()
    }

    func testInventedMethodsAreCountedAsOther() {
        // Finding 4: every distinct method used to make a permanent counter.
        let router = self.router()
        var random = SystemRandomNumberGenerator()
        for k in 0..<3000 {
            let token = String((0..<(64 + k % 64)).map { _ in Character(Unicode.Scalar(UInt8.random(in: 65...90, using: &random))) })
            let response = call(router, HTTPRequest(method: token, path: k % 2 == 0 ? "/healthz" : "/nope\(k)"))
            XCTAssertTrue([404, 405].contains(response.status))
        }
        _ = call(router, HTTPRequest(method: "GET", path: "/healthz"))
        let metrics = call(router, HTTPRequest(method: "GET", path: "/metrics"))
        let text = String(decoding: metrics.body, as: UTF8.self)
        XCTAssertLessThan(metrics.body.count, 1 << 20, "/metrics stays small")
        let requestLines = text.split(separator: "\n").filter { $0.hasPrefix("loom_http_requests_total{") }
        // Routes × methods × statuses seen: /healthz 405 and GET 200, other 404, /metrics GET 200.
        XCTAssertLessThanOrEqual(requestLines.count, 6, requestLines.joined(separator: "\n"))
        XCTAssertTrue(text.contains(#"method="other""#), text)
        XCTAssertTrue(text.contains(#"route="other""#), text)
    }

    func testReadyzSaysNotReadyWhileTheQueueIsFull() {
        let router = self.router(workers: 1, queueLimit: 1)
        XCTAssertEqual(call(router, HTTPRequest(method: "GET", path: "/readyz")).status, 200)
        let release = DispatchSemaphore(value: 0), running = DispatchSemaphore(value: 0)
        XCTAssertTrue(router.pool.submit { running.signal(); release.wait() })
        running.wait()
        XCTAssertTrue(router.pool.submit { })
        let full = call(router, HTTPRequest(method: "GET", path: "/readyz"))
        XCTAssertEqual(full.status, 503)
        XCTAssertEqual(String(decoding: full.body, as: UTF8.self), #"{"status":"overloaded"}"#)
        release.signal()
        // Ready again once the queue drains.
        var status = 0
        for _ in 0..<200 {
            status = call(router, HTTPRequest(method: "GET", path: "/readyz")).status
            if status == 200 { break }
            usleep(10_000)
        }
        XCTAssertEqual(status, 200)
    }

    func testTheAdminHandlerServesOnlyTheProbesAndMetrics() {
        let router = self.router()
        func admin(_ method: String, _ path: String) -> Int {
            let box = ResponseBox()
            router.handleAdmin(HTTPRequest(method: method, path: path, headers: ["content-type": "application/json"],
                                           body: Array("{}".utf8))) { box.set($0) }
            return box.wait().status
        }
        XCTAssertEqual(admin("GET", "/healthz"), 200)
        XCTAssertEqual(admin("GET", "/readyz"), 200)
        XCTAssertEqual(admin("GET", "/metrics"), 200)
        XCTAssertEqual(admin("POST", "/layout"), 404)
        XCTAssertEqual(admin("GET", "/"), 404)
        XCTAssertEqual(admin("GET", "/openapi.yaml"), 404)
    }

    func testThePlaygroundHasAContentSecurityPolicy() {
        let response = call(router(), HTTPRequest(method: "GET", path: "/"))
        XCTAssertEqual(response.status, 200)
        let csp = response.headers.first { $0.0 == "Content-Security-Policy" }?.1 ?? ""
        XCTAssertTrue(csp.contains("default-src 'none'"), csp)
        XCTAssertTrue(csp.contains("connect-src 'self'"), csp)
    }

    func testALayoutPastItsDeadlineIs503WithRetryAfter() {
        var config = ServiceConfiguration()
        config.deadlineSeconds = 1e-9
        let metrics = ServiceMetrics()
        let router = Router(service: LayoutService(configuration: config, textMeasurer: nil, metrics: metrics),
                            pool: LayoutPool(workers: 1, queueLimit: 4), metrics: metrics, fonts: { [] })
        let body = Array(#"{"root":{"type":"node","style":{"width":10,"height":10}}}"#.utf8)
        let response = call(router, HTTPRequest(method: "POST", path: "/layout", headers: ["content-type": "application/json"], body: body))
        XCTAssertEqual(response.status, 503)
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("deadline_exceeded"))
        XCTAssertEqual(response.headers.first { $0.0 == "Retry-After" }?.1, "1")
    }
}

private final class ResponseBox: @unchecked Sendable {
    private let lock = NSLock()
    private var response: HTTPResponse?
    private let done = DispatchSemaphore(value: 0)
    func set(_ r: HTTPResponse) { lock.withLock { response = r }; done.signal() }
    func wait() -> HTTPResponse { done.wait(); return lock.withLock { response! } }
}
