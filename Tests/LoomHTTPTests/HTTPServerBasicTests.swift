import Dispatch
import Foundation
import XCTest
@testable import LoomHTTP

final class HTTPServerBasicTests: HTTPServerTestCase {
    func testHandlerAnswerIsSent() throws {
        let server = try startServer(handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let body = Array(#"{"hello":"world"}"#.utf8)
        let response = try client.roundTrip("POST", "/layout?format=svg&name=a%20b+c&flag",
                                            headers: [("X-Test", "yes"), ("Content-Type", "application/json")],
                                            body: body)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, body)
        XCTAssertEqual(response.header("X-Method"), "POST")
        XCTAssertEqual(response.header("X-Path"), "/layout")
        XCTAssertEqual(response.header("X-Query"), "flag=&format=svg&name=a b c")
        XCTAssertEqual(response.header("X-Test-Header"), "yes")
        XCTAssertEqual(response.header("X-Remote"), "127.0.0.1")
        XCTAssertEqual(response.header("Content-Length"), String(body.count))
        XCTAssertEqual(handlerCalls.current, 1)
        XCTAssertTrue(waitFor(2) { server.inFlight == 0 })
    }

    func testHeadersAreLowercasedAndRepeatedOnesJoined() throws {
        let seen = Locked<[String: String]>([:])
        let server = try startServer { request, respond in
            seen.withValue { $0 = request.headers }
            respond(HTTPResponse(status: 204))
        }
        let client = try RawHTTPClient(port: server.boundPort)
        let response = try client.roundTrip("GET", "/", headers: [("X-Multi", "a"), ("X-MULTI", "b"), ("Accept", "*/*")])
        XCTAssertEqual(response.status, 204)
        XCTAssertEqual(seen.current["x-multi"], "a, b")
        XCTAssertEqual(seen.current["accept"], "*/*")
        XCTAssertNil(seen.current["Accept"])
    }

    func testHandlerAnsweringLaterFromAnotherThread() throws {
        let answeredOn = Locked<String>("")
        let server = try startServer { request, respond in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
                answeredOn.withValue { $0 = Thread.isMainThread ? "main" : "global" }
                respond(HTTPResponse(status: 201, headers: [("X-Late", "1")], body: Array("late \(request.path)".utf8)))
            }
        }
        let client = try RawHTTPClient(port: server.boundPort)
        let started = Date()
        try client.send(RawHTTPClient.request("GET", "/slow"))
        // While the handler works, the request counts as in flight.
        XCTAssertTrue(waitFor(1) { server.inFlight == 1 })
        let response = try client.readResponse()
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(response.status, 201)
        XCTAssertEqual(response.text, "late /slow")
        XCTAssertEqual(response.header("X-Late"), "1")
        XCTAssertEqual(answeredOn.current, "global")
        XCTAssertGreaterThanOrEqual(elapsed, 0.25)
        XCTAssertTrue(waitFor(2) { server.inFlight == 0 })
    }

    func testSlowHandlerDoesNotHoldTheOnlyDaemonThread() throws {
        // One libmicrohttpd thread: if it waited for the handler, /fast would wait too.
        // The slow handler answers only when the test lets it, after the fast ones.
        let release = DispatchSemaphore(value: 0)
        let server = try startServer(configuration { $0.threads = 1 }) { request, respond in
            let slow = request.path == "/slow"
            DispatchQueue.global().async {
                if slow { release.wait() }
                respond(HTTPResponse(status: 200, body: Array(request.path.utf8)))
            }
        }
        let slow = try RawHTTPClient(port: server.boundPort)
        try slow.send(RawHTTPClient.request("GET", "/slow"))
        XCTAssertTrue(waitFor(1) { server.inFlight == 1 })
        for _ in 0..<5 {
            let fast = try RawHTTPClient(port: server.boundPort, timeout: 30)
            XCTAssertEqual(try fast.roundTrip("GET", "/fast").text, "/fast")
        }
        // (the last fast one leaves inFlight when libmicrohttpd reports it complete)
        XCTAssertTrue(waitFor(5) { server.inFlight == 1 }, "the slow request should still be in flight")
        release.signal()
        XCTAssertEqual(try slow.readResponse().text, "/slow")
    }

    func testAnswerImmediatelyFromAnotherThreadRacesTheSuspend() throws {
        // respond() from another thread as soon as possible: it lands before, during or
        // after MHD_suspend_connection. Every request must still get its own answer.
        let server = try startServer { request, respond in
            DispatchQueue.global().async {
                respond(HTTPResponse(status: 200, body: request.body))
            }
        }
        let client = try RawHTTPClient(port: server.boundPort)
        for i in 0..<300 {
            let body = Array("request-\(i)".utf8)
            let response = try client.roundTrip("POST", "/race", body: body)
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.body, body)
        }
        XCTAssertEqual(handlerCalls.current, 300)
    }

    func testTwoHundredConcurrentRequestsEachGetTheirOwnAnswer() throws {
        let maxInFlight = Locked(0)
        let serverBox = Locked<HTTPServer?>(nil)
        let server = try startServer { request, respond in
            let n = serverBox.current?.inFlight ?? 0
            maxInFlight.withValue { $0 = max($0, n) }
            let mode = request.body.count % 3
            let echo = HTTPResponse(status: 200, headers: [("X-Path", request.path)], body: request.body)
            switch mode {
            case 0: respond(echo)
            case 1: DispatchQueue.global().async { respond(echo) }
            default:
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 50...300))) {
                    respond(echo)
                }
            }
        }
        serverBox.withValue { $0 = server }

        let count = 200
        var clients: [RawHTTPClient] = []
        var bodies: [[UInt8]] = []
        for i in 0..<count {
            let client = try RawHTTPClient(port: server.boundPort, timeout: 20)
            let body = Array("body number \(i) ".utf8) + [UInt8](repeating: UInt8(i % 251), count: i * 7)
            try client.send(RawHTTPClient.request("POST", "/echo/\(i)", body: body))
            clients.append(client)
            bodies.append(body)
        }
        for i in 0..<count {
            let response = try clients[i].readResponse()
            XCTAssertEqual(response.status, 200, "request \(i)")
            XCTAssertEqual(response.header("X-Path"), "/echo/\(i)")
            XCTAssertEqual(response.body, bodies[i], "request \(i) got another body")
        }
        XCTAssertEqual(handlerCalls.current, count)
        XCTAssertGreaterThan(maxInFlight.current, 10, "requests were not in flight concurrently")
        XCTAssertTrue(waitFor(5) { server.inFlight == 0 })
    }

    func testKeepAliveServesTwoRequestsOnOneConnection() throws {
        let server = try startServer(handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let first = try client.roundTrip("POST", "/one", body: Array("first".utf8))
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.text, "first")
        XCTAssertNotEqual(first.header("Connection")?.lowercased(), "close")
        let second = try client.roundTrip("POST", "/two", body: Array("second".utf8))
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(second.text, "second")
        XCTAssertEqual(second.header("X-Path"), "/two")
        // Pipelined: two requests sent at once, answered in order.
        try client.send(RawHTTPClient.request("POST", "/three", body: Array("3".utf8))
                        + RawHTTPClient.request("POST", "/four", body: Array("4".utf8)))
        XCTAssertEqual(try client.readResponse().text, "3")
        XCTAssertEqual(try client.readResponse().text, "4")
        XCTAssertEqual(handlerCalls.current, 4)
    }

    func testHeadIsAnsweredWithHeadersOnly() throws {
        let server = try startServer(handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        try client.send(RawHTTPClient.request("HEAD", "/healthz", headers: [("X-Test", "h")]))
        let head = try client.readResponse(noBody: true)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("X-Method"), "GET", "HEAD reaches the handler as GET")
        XCTAssertTrue(head.body.isEmpty)
        // The connection is still in sync: a body would be read as the next status line.
        let next = try client.roundTrip("POST", "/after", body: Array("after-head".utf8))
        XCTAssertEqual(next.status, 200)
        XCTAssertEqual(next.text, "after-head")
    }

    func testAccessLogLinePerRequest() throws {
        let server = try startServer(handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        _ = try client.roundTrip("POST", "/logged", body: Array("12345".utf8))
        XCTAssertTrue(waitFor(2) { self.log.lines.contains { $0.1.hasPrefix("POST /logged ") } })
        let entry = try XCTUnwrap(log.lines.first { $0.1.hasPrefix("POST /logged ") }?.1)
        // Method, path, status 200, 5 bytes, and nothing after the time: the request ended "ok".
        XCTAssertNotNil(entry.range(of: #"^POST /logged 200 5B [0-9]+\.[0-9]ms$"#, options: .regularExpression), entry)
        XCTAssertEqual(handlerCalls.current, 1)
        let lines = log.lines.filter { $0.0 == .info && $0.1.hasPrefix("POST /logged 200 5B ") && $0.1.hasSuffix("ms") }
        XCTAssertEqual(lines.count, 1, "\(log.lines)")
    }

    func testRespondingTwiceIsIgnored() throws {
        let server = try startServer { _, respond in
            respond(HTTPResponse(status: 200, body: Array("first".utf8)))
            respond(HTTPResponse(status: 500, body: Array("second".utf8)))
        }
        let client = try RawHTTPClient(port: server.boundPort)
        let response = try client.roundTrip("GET", "/twice")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "first")
        let next = try client.roundTrip("GET", "/again")
        XCTAssertEqual(next.text, "first")
        XCTAssertTrue(log.lines.contains { $0.0 == .warning && $0.1.contains("more than once") })
    }

    func testPortAlreadyInUseThrowsAClearError() throws {
        let first = try startServer(handler: Self.echo)
        let second = HTTPServer(configuration: configuration { $0.port = first.boundPort }, logger: log.logger(),
                                handler: Self.echo)
        XCTAssertThrowsError(try second.start()) { error in
            XCTAssertEqual(error as? HTTPServerError, .addressInUse(host: "127.0.0.1", port: first.boundPort))
            XCTAssertTrue(String(describing: error).contains("already in use"))
        }
        // The first one is unaffected.
        let client = try RawHTTPClient(port: first.boundPort)
        XCTAssertEqual(try client.roundTrip("GET", "/").status, 200)
    }

    func testGarbageFromClientsDoesNotCrashTheServer() throws {
        let server = try startServer(handler: Self.echo)
        let garbage: [[UInt8]] = [
            Array("NOT HTTP AT ALL\r\n\r\n".utf8),
            Array("GET\r\n\r\n".utf8),
            Array("GET / HTTP/9.9\r\n\r\n".utf8),
            Array("GET / HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\r\n\r\n".utf8),
            Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n".utf8),
            Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999999\r\n\r\n".utf8),
            Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n".utf8),
            Array("GET /%zz%00?a=%ff%fe&=&&b HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
            Array("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n".utf8),
            [0, 1, 2, 255, 254, 13, 10, 13, 10],
            (0..<4096).map { _ in UInt8.random(in: 0...255) },
        ]
        for bytes in garbage {
            let client = try RawHTTPClient(port: server.boundPort, timeout: 3)
            try? client.send(bytes)
            _ = try? client.readResponse()
            client.close()
        }
        let client = try RawHTTPClient(port: server.boundPort)
        let response = try client.roundTrip("POST", "/still-alive", body: Array("ok".utf8))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "ok")
    }

    func testClientClosingWhileHandlerWorksIsHarmless() throws {
        let responders = Locked<[@Sendable (HTTPResponse) -> Void]>([])
        let server = try startServer { request, respond in
            if request.path == "/abandoned" {
                responders.withValue { $0.append(respond) }
            } else {
                respond(HTTPResponse(status: 200))
            }
        }
        let client = try RawHTTPClient(port: server.boundPort)
        try client.send(RawHTTPClient.request("GET", "/abandoned"))
        XCTAssertTrue(waitFor(2) { server.inFlight == 1 })
        client.close()
        usleep(100_000)
        for respond in responders.current { respond(HTTPResponse(status: 200, body: Array("too late".utf8))) }
        XCTAssertTrue(waitFor(3) { server.inFlight == 0 })
        let other = try RawHTTPClient(port: server.boundPort)
        XCTAssertEqual(try other.roundTrip("GET", "/").status, 200)
        XCTAssertTrue(waitFor(2) { server.inFlight == 0 })
    }
}
