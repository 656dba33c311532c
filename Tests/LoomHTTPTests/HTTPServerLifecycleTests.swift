import Dispatch
import Foundation
import XCTest
@testable import LoomHTTP
#if canImport(Glibc)
import Glibc
#endif

final class HTTPServerLifecycleTests: HTTPServerTestCase {
    func testStopAcceptingDrainsInFlightAndRefusesNewConnections() throws {
        let server = try startServer { request, respond in
            DispatchQueue.global().asyncAfter(deadline: .now() + 1.0) {
                respond(HTTPResponse(status: 200, body: request.body))
            }
        }
        let port = server.boundPort
        var clients: [RawHTTPClient] = []
        for i in 0..<3 {
            let client = try RawHTTPClient(port: port)
            try client.send(RawHTTPClient.request("POST", "/work", body: Array("job \(i)".utf8)))
            clients.append(client)
        }
        XCTAssertTrue(waitFor(2) { server.inFlight == 3 })

        server.stopAccepting()
        XCTAssertThrowsError(try RawHTTPClient(port: port, timeout: 1)) { error in
            guard case RawHTTPClient.ClientError.connect(let code) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(code, ECONNREFUSED)
        }
        XCTAssertEqual(server.inFlight, 3)

        XCTAssertTrue(server.waitUntilIdle(timeout: 5))
        XCTAssertEqual(server.inFlight, 0)
        for (i, client) in clients.enumerated() {
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "job \(i)")
            XCTAssertEqual(response.header("Connection")?.lowercased(), "close")
            XCTAssertTrue(client.waitForClose(timeout: 2))
        }
        server.stop()
        XCTAssertThrowsError(try RawHTTPClient(port: port, timeout: 1))
    }

    func testWaitUntilIdleTimesOutWhileAHandlerHangs() throws {
        let responders = Locked<[@Sendable (HTTPResponse) -> Void]>([])
        let server = try startServer { _, respond in responders.withValue { $0.append(respond) } }
        let client = try RawHTTPClient(port: server.boundPort)
        try client.send(RawHTTPClient.request("GET", "/hang"))
        XCTAssertTrue(waitFor(2) { server.inFlight == 1 })
        let started = Date()
        XCTAssertFalse(server.waitUntilIdle(timeout: 0.3))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.25)
        responders.current.first?(HTTPResponse(status: 202))
        XCTAssertTrue(server.waitUntilIdle(timeout: 3))
        XCTAssertEqual(try client.readResponse().status, 202)
    }

    func testStopWithSuspendedRequestsDoesNotCrashAndLateAnswersAreDropped() throws {
        let responders = Locked<[@Sendable (HTTPResponse) -> Void]>([])
        let server = try startServer { _, respond in responders.withValue { $0.append(respond) } }
        var clients: [RawHTTPClient] = []
        for _ in 0..<5 {
            let client = try RawHTTPClient(port: server.boundPort)
            try client.send(RawHTTPClient.request("GET", "/never"))
            clients.append(client)
        }
        XCTAssertTrue(waitFor(2) { server.inFlight == 5 })
        server.stop()
        XCTAssertEqual(server.inFlight, 0)
        for client in clients {
            XCTAssertTrue(client.waitForClose(timeout: 2))
        }
        // Answers after stop go nowhere (and must not touch freed connections).
        for respond in responders.current { respond(HTTPResponse(status: 200)) }
        server.stop() // idempotent
    }

    func testRefusalsThatPassSayWhenToComeBack() throws {
        // A 503 the server gives itself (bodies in flight, shutdown) carries Retry-After; a
        // refusal that retrying cannot help (framing, size) does not.
        let server = try startServer { _, respond in respond(HTTPResponse(status: 200)) }
        XCTAssertEqual(server.refusalResponse(.shuttingDown).header("retry-after"), "1")
        XCTAssertEqual(server.refusalResponse(.bodiesBuffered).header("retry-after"), "1")
        XCTAssertNil(server.refusalResponse(.bodyTooLarge(limit: 10)).header("retry-after"))
        XCTAssertNil(server.refusalResponse(.malformedFraming("x")).header("retry-after"))
    }

    func testRespondRacingStop() throws {
        // Handlers answer at about the moment stop() runs: no crash, no hang.
        for round in 0..<5 {
            let server = try startServer { _, respond in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0...40))) {
                    respond(HTTPResponse(status: 200))
                }
            }
            var clients: [RawHTTPClient] = []
            for _ in 0..<20 {
                let client = try RawHTTPClient(port: server.boundPort, timeout: 2)
                try client.send(RawHTTPClient.request("GET", "/r\(round)"))
                clients.append(client)
            }
            usleep(UInt32.random(in: 5_000...30_000))
            server.stop()
            XCTAssertEqual(server.inFlight, 0)
        }
    }

    func testRestartOnTheSamePortAfterStop() throws {
        let first = try startServer(handler: Self.echo)
        let port = first.boundPort
        let client = try RawHTTPClient(port: port)
        XCTAssertEqual(try client.roundTrip("GET", "/").status, 200)
        client.close()
        first.stop()
        let second = try startServer(configuration { $0.port = port }, handler: Self.echo)
        XCTAssertEqual(second.boundPort, port)
        XCTAssertEqual(try RawHTTPClient(port: port).roundTrip("GET", "/").status, 200)
    }

    func testStopClosesTheListeningSocketOnce() throws {
        // Neither a leaked nor a doubly closed descriptor: count open fds around a
        // start/stop cycle, with and without stopAccepting.
        func openDescriptors() -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        }
        for quiesce in [false, true] {
            let before = openDescriptors()
            let server = HTTPServer(configuration: configuration(), logger: log.logger(), handler: Self.echo)
            try server.start()
            XCTAssertEqual(try RawHTTPClient(port: server.boundPort).roundTrip("GET", "/").status, 200)
            if quiesce { server.stopAccepting() }
            server.stop()
            XCTAssertTrue(waitFor(2) { openDescriptors() == before }, "fds before \(before), after \(openDescriptors())")
        }
    }
}
