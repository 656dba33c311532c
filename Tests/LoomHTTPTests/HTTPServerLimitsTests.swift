import Dispatch
import Foundation
import XCTest
@testable import LoomHTTP

final class HTTPServerLimitsTests: HTTPServerTestCase {
    func testBodyOverLimitWithContentLengthIs413BeforeReadingIt() throws {
        let server = try startServer(configuration { $0.maxBodyBytes = 1000 }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        // Only the headers: the answer must come without the body ever being sent.
        try client.send(RawHTTPClient.request("POST", "/layout", headers: [("Content-Type", "application/json")],
                                              contentLength: 5000))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        XCTAssertTrue(response.text.contains(#""code":"too_large""#), response.text)
        XCTAssertEqual(handlerCalls.current, 0)
        XCTAssertTrue(client.waitForClose(timeout: 3), "connection should be closed after a 413")
    }

    func testExpectContinue() throws {
        let server = try startServer(configuration { $0.maxBodyBytes = 1000 }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        try client.send(RawHTTPClient.request("POST", "/layout", headers: [("Expect", "100-continue")],
                                              contentLength: 5))
        XCTAssertEqual(try client.readResponse().status, 100)
        try client.send(Array("hello".utf8))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "hello")

        // Too large: 413 at once, no 100 Continue, the body is never sent.
        let other = try RawHTTPClient(port: server.boundPort)
        try other.send(RawHTTPClient.request("POST", "/layout", headers: [("Expect", "100-continue")],
                                             contentLength: 1_000_000))
        XCTAssertEqual(try other.readResponse().status, 413)
        XCTAssertEqual(handlerCalls.current, 1)
    }

    func testBodyAtTheLimitIsAccepted() throws {
        let server = try startServer(configuration { $0.maxBodyBytes = 1000 }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let body = [UInt8](repeating: 65, count: 1000)
        let response = try client.roundTrip("POST", "/layout", body: body)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, body)
    }

    func testChunkedBodyOverLimitIs413() throws {
        let server = try startServer(configuration { $0.maxBodyBytes = 1000 }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let body = [UInt8](repeating: 66, count: 5000)
        try client.send(RawHTTPClient.request("POST", "/layout", headers: [("Transfer-Encoding", "chunked")])
                        + RawHTTPClient.chunked(body, chunkSize: 300))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertTrue(response.text.contains(#""code":"too_large""#), response.text)
        XCTAssertEqual(handlerCalls.current, 0)
    }

    func testChunkedBodyUnderLimitIsAssembled() throws {
        let server = try startServer(configuration { $0.maxBodyBytes = 10_000 }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let body = (0..<6000).map { UInt8($0 % 256) }
        try client.send(RawHTTPClient.request("POST", "/layout", headers: [("Transfer-Encoding", "chunked")])
                        + RawHTTPClient.chunked(body, chunkSize: 777))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, body)
    }

    func testEndlessChunkedBodyIsCutOff() throws {
        let server = try startServer(configuration { $0.maxBodyBytes = 1000 }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        try client.send(RawHTTPClient.request("POST", "/layout", headers: [("Transfer-Encoding", "chunked")]))
        let chunk = Array("1000\r\n".utf8) + [UInt8](repeating: 67, count: 4096) + [13, 10]
        var sent = 0
        var cutOff = false
        while sent < 8 << 20 {
            do { try client.send(chunk) } catch { cutOff = true; break }
            sent += chunk.count
        }
        XCTAssertTrue(cutOff || client.waitForClose(timeout: 3), "the server kept reading an endless body")
        XCTAssertEqual(handlerCalls.current, 0)
        let other = try RawHTTPClient(port: server.boundPort)
        XCTAssertEqual(try other.roundTrip("GET", "/").status, 200)
    }

    func testStalledClientDoesNotBlockOthersAndTimesOut() throws {
        // One libmicrohttpd thread: if a stalled upload held it, nobody else would be served.
        let server = try startServer(configuration {
            $0.threads = 1
            $0.connectionTimeoutSeconds = 2
        }, handler: Self.echo)
        let staller = try RawHTTPClient(port: server.boundPort)
        let stallStart = Date()
        try staller.send(RawHTTPClient.request("POST", "/stall", contentLength: 1000) + [UInt8](repeating: 1, count: 500))

        for i in 0..<5 {
            let client = try RawHTTPClient(port: server.boundPort, timeout: 2)
            let response = try client.roundTrip("POST", "/other", body: Array("other \(i)".utf8))
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "other \(i)")
        }
        // The others finished while the stalled upload was still open and unanswered.
        XCTAssertFalse(staller.waitForClose(timeout: 0.01), "the stalled connection ended before the others were served")
        XCTAssertEqual(handlerCalls.current, 5)

        XCTAssertTrue(staller.waitForClose(timeout: 6), "stalled connection was not closed")
        let closedAfter = Date().timeIntervalSince(stallStart)
        XCTAssertGreaterThan(closedAfter, 1.5)
        XCTAssertEqual(handlerCalls.current, 5, "the half body must never reach the handler")
        XCTAssertTrue(waitFor(2) { self.log.lines.contains { $0.1.hasPrefix("POST /stall 0 0B") && $0.1.hasSuffix("timeout") } },
                      "\(log.lines)")
    }

    func testIdleKeepAliveConnectionTimesOut() throws {
        let server = try startServer(configuration { $0.connectionTimeoutSeconds = 1 }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        XCTAssertEqual(try client.roundTrip("GET", "/").status, 200)
        XCTAssertTrue(client.waitForClose(timeout: 4))
    }

    func testSlowHandlerIsNotCutByTheConnectionTimeout() throws {
        // Suspended connections do not time out: the handler may take longer than the
        // connection timeout.
        let server = try startServer(configuration { $0.connectionTimeoutSeconds = 1 }) { _, respond in
            DispatchQueue.global().asyncAfter(deadline: .now() + 1.8) {
                respond(HTTPResponse(status: 200, body: Array("slow but fine".utf8)))
            }
        }
        let client = try RawHTTPClient(port: server.boundPort, timeout: 5)
        let response = try client.roundTrip("GET", "/slow")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "slow but fine")
    }

    func testConnectionLimit() throws {
        let server = try startServer(configuration {
            $0.maxConnections = 4
            $0.threads = 1
        }, handler: Self.echo)
        var open: [RawHTTPClient] = []
        for _ in 0..<4 {
            let client = try RawHTTPClient(port: server.boundPort)
            XCTAssertEqual(try client.roundTrip("GET", "/").status, 200)
            open.append(client)
        }
        // A fifth connection waits (in the kernel's backlog, libmicrohttpd stops accepting
        // at the limit): no answer while the four are open...
        let extra = try RawHTTPClient(port: server.boundPort, timeout: 1)
        try extra.send(RawHTTPClient.request("GET", "/fifth"))
        XCTAssertThrowsError(try extra.readResponse()) { error in
            guard case RawHTTPClient.ClientError.timeout = error else { return XCTFail("unexpected \(error)") }
        }
        XCTAssertEqual(handlerCalls.current, 4)
        // ...and is served once they are gone.
        open.removeAll() // closes them
        extra.setTimeout(5)
        let response = try extra.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("X-Path"), "/fifth")
    }
}
