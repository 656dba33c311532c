import Dispatch
import Foundation
import XCTest
@testable import LoomHTTP

/// Issue 17, finding 3: slow clients. libmicrohttpd's timeout counts idle time only, so a
/// client sending a byte now and then held its connection for ever; the header and body
/// deadlines and the minimum body rate count the total.
final class HTTPServerHostileSlowClientTests: HTTPServerHostileTestCase {
    func testHeadersTrickledPastTheHeaderDeadlineAreCut() throws {
        let server = try startServer(configuration {
            $0.headerTimeoutSeconds = 2
            $0.connectionTimeoutSeconds = 30
            $0.threads = 1
        }, handler: Self.echo)
        let slow = try RawHTTPClient(port: server.boundPort)
        // Meanwhile a normal request on another connection is answered (one daemon thread).
        let other = Locked<Int?>(nil)
        let port = server.boundPort
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.0) {
            let status = (try? RawHTTPClient(port: port, timeout: 3).roundTrip("GET", "/other").status) ?? -1
            other.withValue { $0 = status }
        }
        let closedAfter = secondsUntilClosed(slow, start: Array("GET /slow HTTP/1.1\r\nHost: x\r\n".utf8),
                                             lines: 12, interval: 0.7) { Array("X-Trickle-\($0): a\r\n".utf8) }
        let seconds = try XCTUnwrap(closedAfter, "a connection trickling its headers was never closed")
        XCTAssertGreaterThan(seconds, 1.5)
        XCTAssertLessThan(seconds, 6.0)
        XCTAssertTrue(waitFor(3) { other.current != nil })
        XCTAssertEqual(other.current, 200)
        XCTAssertEqual(handlerCalls.current, 1, "only the other request reaches the handler")
        XCTAssertTrue(waitFor(2) { self.log.lines.contains { $0.1 == "closed slow connections" } }, "\(log.lines)")
    }

    func testBodyTrickledPastTheBodyDeadlineIsCut() throws {
        let server = try startServer(configuration {
            $0.bodyTimeoutSeconds = 2
            $0.minBodyBytesPerSecond = 0 // the total deadline alone
            $0.connectionTimeoutSeconds = 30
            $0.threads = 1
        }, handler: Self.echo)
        let slow = try RawHTTPClient(port: server.boundPort)
        let start = RawHTTPClient.request("POST", "/trickle", contentLength: 100_000)
        let other = Locked<Int?>(nil)
        let port = server.boundPort
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.0) {
            let status = (try? RawHTTPClient(port: port, timeout: 3).roundTrip("POST", "/other", body: [1, 2, 3]).status) ?? -1
            other.withValue { $0 = status }
        }
        let closedAfter = secondsUntilClosed(slow, start: start, lines: 30, interval: 0.3) { _ in [UInt8(ascii: "a")] }
        let seconds = try XCTUnwrap(closedAfter, "a body trickled a byte at a time was never cut")
        XCTAssertGreaterThan(seconds, 1.5)
        XCTAssertLessThan(seconds, 6.0)
        XCTAssertTrue(waitFor(3) { other.current != nil })
        XCTAssertEqual(other.current, 200)
        XCTAssertEqual(handlerCalls.current, 1, "the cut body must never reach the handler")
        XCTAssertTrue(waitFor(2) { self.accessLines.contains { $0.hasPrefix("POST /trickle 0 0B") && $0.hasSuffix(" timeout") } },
                      "\(log.lines)")
        XCTAssertTrue(waitFor(2) { server.bufferedBodyBytes.load(ordering: .relaxed) == 0 })
    }

    func testBodyBelowTheMinimumRateIsCutAfterTheGrace() throws {
        let server = try startServer(configuration {
            $0.bodyTimeoutSeconds = 60
            $0.minBodyBytesPerSecond = 1024
            $0.bodyRateGraceSeconds = 1
            $0.connectionTimeoutSeconds = 30
        }, handler: Self.echo)
        let slow = try RawHTTPClient(port: server.boundPort)
        let start = RawHTTPClient.request("POST", "/slow-body", contentLength: 100_000)
        // 10 bytes every 0.2 s: 50 B/s, far below 1 KiB/s.
        let closedAfter = secondsUntilClosed(slow, start: start, lines: 40, interval: 0.2) { _ in
            [UInt8](repeating: 98, count: 10)
        }
        let seconds = try XCTUnwrap(closedAfter, "a body arriving at 50 B/s was never cut")
        XCTAssertGreaterThan(seconds, 0.9, "cut before the grace")
        XCTAssertLessThan(seconds, 6.0)

        // A body in pieces at a fair rate (about 40 KiB/s for 1.6 s) is not cut.
        let fair = try RawHTTPClient(port: server.boundPort)
        let body = (0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0) }
        try fair.send(RawHTTPClient.request("POST", "/fair", contentLength: body.count))
        for piece in stride(from: 0, to: body.count, by: 4096) {
            usleep(100_000)
            try fair.send(Array(body[piece..<min(piece + 4096, body.count)]))
        }
        let response = try fair.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, body)
    }

    func testNoDeadlineWhileTheHandlerWorks() throws {
        // The deadlines are for receiving: a handler slower than them is not cut, and the
        // kept-alive connection then serves the next request.
        let server = try startServer(configuration {
            $0.headerTimeoutSeconds = 1
            $0.bodyTimeoutSeconds = 1
            $0.bodyRateGraceSeconds = 0
        }) { request, respond in
            DispatchQueue.global().asyncAfter(deadline: .now() + 1.6) {
                respond(HTTPResponse(status: 200, body: request.body))
            }
        }
        let client = try RawHTTPClient(port: server.boundPort)
        let first = try client.roundTrip("POST", "/slow-handler", body: Array("one".utf8))
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.text, "one")
        let second = try client.roundTrip("POST", "/slow-handler", body: Array("two".utf8))
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(second.text, "two")
    }

    func testIdleKeptAliveConnectionCountsTowardsTheHeaderDeadline() throws {
        let server = try startServer(configuration {
            $0.headerTimeoutSeconds = 1
            $0.connectionTimeoutSeconds = 30
        }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        XCTAssertEqual(try client.roundTrip("GET", "/").status, 200)
        let started = Date()
        XCTAssertTrue(client.waitForClose(timeout: 5), "an idle kept-alive connection outlived the header deadline")
        XCTAssertLessThan(Date().timeIntervalSince(started), 4)
    }
}
