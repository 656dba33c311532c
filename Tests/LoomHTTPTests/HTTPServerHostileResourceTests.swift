import Dispatch
import Foundation
import XCTest
@testable import LoomHTTP

/// Issue 17: memory held in partial bodies (finding 3), work for clients that left
/// (finding 2), the drain of bodies still arriving (finding 12), methods handed over as is
/// (finding 4).
final class HTTPServerHostileResourceTests: HTTPServerHostileTestCase {
    private func buffered(_ server: HTTPServer) -> Int { server.bufferedBodyBytes.load(ordering: .relaxed) }

    func testPartialBodiesAreBoundedServerWide() throws {
        let server = try startServer(configuration {
            $0.maxBodyBytes = 10_000
            $0.maxBufferedBodyBytes = 1000
        }, handler: Self.echo)
        let a = try RawHTTPClient(port: server.boundPort)
        try a.send(RawHTTPClient.request("POST", "/a", contentLength: 900) + [UInt8](repeating: 97, count: 500))
        XCTAssertTrue(waitFor(3) { self.buffered(server) == 500 }, "held \(buffered(server))")

        // 500 held + 600 announced > 1000: refused before its body is read.
        let b = try RawHTTPClient(port: server.boundPort)
        try b.send(RawHTTPClient.request("POST", "/b", contentLength: 600))
        let refused = try b.readResponse()
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertTrue(refused.text.contains(#""code":"overloaded""#), refused.text)
        XCTAssertTrue(b.waitForClose(timeout: 3))

        // 500 + 400 fits: served.
        let c = try RawHTTPClient(port: server.boundPort)
        XCTAssertEqual(try c.roundTrip("POST", "/c", body: [UInt8](repeating: 99, count: 400)).status, 200)
        XCTAssertTrue(waitFor(3) { self.buffered(server) == 500 })

        // The cap passed mid-body (announced lengths fit, arrived bytes do not): the body
        // that passes it is dropped, the rest discarded, and 503 answered at its end.
        let d = try RawHTTPClient(port: server.boundPort)
        try d.send(RawHTTPClient.request("POST", "/d", contentLength: 450) + [UInt8](repeating: 100, count: 200))
        XCTAssertTrue(waitFor(3) { self.buffered(server) == 700 }, "held \(buffered(server))")
        try a.send([UInt8](repeating: 97, count: 350))
        XCTAssertTrue(waitFor(3) { self.buffered(server) == 200 }, "held \(buffered(server))")
        try a.send([UInt8](repeating: 97, count: 50))
        let late = try a.readResponse()
        XCTAssertEqual(late.status, 503)
        XCTAssertEqual(late.header("Retry-After"), "1")
        XCTAssertTrue(a.waitForClose(timeout: 3))
        try d.send([UInt8](repeating: 100, count: 250))
        let served = try d.readResponse()
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.body.count, 450)
        XCTAssertTrue(waitFor(3) { self.buffered(server) == 0 })
        XCTAssertEqual(handlerCalls.current, 2)
    }

    func testHeldBytesAreReleasedWhenTheClientLeavesMidBody() throws {
        let server = try startServer(configuration { $0.maxBufferedBodyBytes = 1000 }, handler: Self.echo)
        for _ in 0..<3 {
            let client = try RawHTTPClient(port: server.boundPort)
            try client.send(RawHTTPClient.request("POST", "/gone", contentLength: 900) + [UInt8](repeating: 1, count: 800))
            XCTAssertTrue(waitFor(3) { self.buffered(server) == 800 })
            client.close()
            XCTAssertTrue(waitFor(3) { self.buffered(server) == 0 }, "held \(buffered(server)) after the client left")
        }
        XCTAssertEqual(try RawHTTPClient(port: server.boundPort).roundTrip("POST", "/x", body: [UInt8](repeating: 2, count: 900)).status, 200)
    }

    func testClientLeavingWhileTheHandlerWorksCancelsTheRequest() throws {
        let started = Locked(false)
        let sawCancellation = Locked<Date?>(nil)
        let onCancelRan = Locked(false)
        let server = try startServer(precheck: nil) { request, respond in
            guard request.path == "/work" else { return respond(HTTPResponse(status: 200)) }
            request.cancellation.onCancel { onCancelRan.withValue { $0 = true } }
            DispatchQueue.global().async {
                started.withValue { $0 = true }
                let limit = Date(timeIntervalSinceNow: 30)
                while !request.cancellation.isCancelled && Date() < limit { usleep(5_000) }
                sawCancellation.withValue { $0 = Date() }
                respond(HTTPResponse(status: 200, body: Array("nobody listens".utf8)))
            }
        }
        let client = try RawHTTPClient(port: server.boundPort)
        try client.send(RawHTTPClient.request("GET", "/work"))
        XCTAssertTrue(waitFor(3) { started.current })
        XCTAssertTrue(waitFor(3) { server.inFlight == 1 })
        usleep(300_000) // suspended by now: the watch polls its socket
        let closedAt = Date()
        client.close()
        XCTAssertTrue(waitFor(5) { sawCancellation.current != nil }, "the handler never saw the cancellation")
        if let seen = sawCancellation.current {
            XCTAssertLessThan(seen.timeIntervalSince(closedAt), 3.0)
        }
        XCTAssertTrue(onCancelRan.current)
        // The connection was closed on our side too, and the late answer went nowhere.
        XCTAssertTrue(waitFor(3) { server.inFlight == 0 })
        XCTAssertTrue(waitFor(3) { self.log.lines.contains { $0.1.hasPrefix("GET /work ") && $0.1.hasSuffix(" client_closed") } },
                      "\(log.lines)")
        XCTAssertEqual(try RawHTTPClient(port: server.boundPort).roundTrip("GET", "/after").status, 200)
    }

    func testCancellationObject() {
        let cancellation = HTTPCancellation()
        let runs = Locked(0)
        XCTAssertFalse(cancellation.isCancelled)
        cancellation.onCancel { runs.withValue { $0 += 1 } }
        XCTAssertEqual(runs.current, 0)
        cancellation.cancel()
        XCTAssertTrue(cancellation.isCancelled)
        XCTAssertEqual(runs.current, 1)
        cancellation.cancel()
        XCTAssertEqual(runs.current, 1, "cancelled twice ran the bodies twice")
        cancellation.onCancel { runs.withValue { $0 += 10 } } // already cancelled: at once
        XCTAssertEqual(runs.current, 11)
    }

    func testDrainFinishesBodiesStillArriving() throws {
        let server = try startServer(configuration { $0.headerTimeoutSeconds = 30 }, handler: Self.echo)
        let port = server.boundPort
        var clients: [RawHTTPClient] = []
        for i in 0..<4 {
            let client = try RawHTTPClient(port: port)
            let body = Array("body number \(i)".utf8)
            try client.send(RawHTTPClient.request("POST", "/drain", contentLength: body.count) + body.prefix(6))
            clients.append(client)
        }
        // Headers in, bodies half-way: in flight, though the handler has not seen them.
        XCTAssertTrue(waitFor(3) { server.inFlight == 4 }, "in flight: \(server.inFlight)")
        XCTAssertEqual(handlerCalls.current, 0)

        server.stopAccepting()
        let idle = Locked<Bool?>(nil)
        DispatchQueue.global().async {
            let result = server.waitUntilIdle(timeout: 10)
            idle.withValue { $0 = result }
        }
        usleep(300_000)
        XCTAssertNil(idle.current, "the drain did not wait for the bodies")
        for (i, client) in clients.enumerated() {
            try client.send(Array("body number \(i)".utf8).dropFirst(6).map { $0 })
        }
        for (i, client) in clients.enumerated() {
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "body number \(i)")
            XCTAssertEqual(response.header("Connection")?.lowercased(), "close")
        }
        XCTAssertTrue(waitFor(5) { idle.current != nil })
        XCTAssertEqual(idle.current, true)
        server.stop()
    }

    func testHugeUnknownMethodIsHandedOverAsIs() throws {
        let method = String((0..<4096).map { _ in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".randomElement()! })
        let seenByPrecheck = Locked<String?>(nil)
        let server = try startServer(precheck: { head in
            seenByPrecheck.withValue { $0 = head.method }
            return nil
        }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let response = try client.roundTrip(method, "/healthz")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("X-Method"), method)
        XCTAssertEqual(seenByPrecheck.current, method)
    }
}
