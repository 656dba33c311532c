import Dispatch
import Foundation
import XCTest
@testable import LoomHTTP

/// `Configuration.answerWait`: libmicrohttpd's thread waits a while for the handler's answer
/// instead of suspending the connection at once, and never longer than asked.
final class HTTPAnswerWaitTests: HTTPServerTestCase {
    /// Whether the server holds a suspended (or suspending) request now.
    private func hasParked(_ server: HTTPServer) -> Bool {
        server.state.lock()
        defer { server.state.unlock() }
        return !server.parked.isEmpty
    }

    /// A handler answering from another thread after `delay` seconds, and recording whether
    /// a request was parked when it answered.
    private func lateHandler(delay: Double, parked: Locked<[Bool]>, server: @escaping @Sendable () -> HTTPServer?)
        -> HTTPServer.Handler {
        { request, respond in
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
                if let s = server() { parked.withValue { $0.append(self.hasParked(s)) } }
                respond(HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: request.body))
            }
        }
    }

    func testAnAnswerWithinTheWaitIsSentWithoutSuspending() throws {
        for wait in [5.0, 0] {
            let parked = Locked<[Bool]>([])
            let holder = Locked<HTTPServer?>(nil)
            let server = try startServer(configuration { $0.answerWait = { _ in wait } },
                                         handler: lateHandler(delay: 0.02, parked: parked, server: { holder.current }))
            holder.withValue { $0 = server }
            let client = try RawHTTPClient(port: server.boundPort)
            for k in 0..<3 {
                let response = try client.roundTrip("POST", "/x", body: Array("body \(k)".utf8))
                XCTAssertEqual(response.status, 200)
                XCTAssertEqual(response.text, "body \(k)")
            }
            // Waiting (5 s, far over the handler's 20 ms): never parked. No wait: parked
            // each time, as before `answerWait`.
            XCTAssertEqual(parked.current, Array(repeating: wait == 0, count: 3), "wait \(wait)")
            holder.withValue { $0 = nil }
        }
    }

    func testAnAnswerAfterTheWaitComesThroughTheSuspendedConnection() throws {
        let parked = Locked<[Bool]>([])
        let holder = Locked<HTTPServer?>(nil)
        let server = try startServer(configuration { $0.answerWait = { _ in 0.01 } },
                                     handler: lateHandler(delay: 0.2, parked: parked, server: { holder.current }))
        holder.withValue { $0 = server }
        let client = try RawHTTPClient(port: server.boundPort)
        let response = try client.roundTrip("POST", "/x", body: Array("late".utf8))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "late")
        XCTAssertEqual(parked.current, [true])
        holder.withValue { $0 = nil }
    }

    /// One libmicrohttpd thread, waiting 50 ms for a layout that takes 2 s: a quick request
    /// on another connection is answered long before the slow one.
    func testAQuickRequestIsAnsweredWhileTheThreadWaitedForASlowOne() throws {
        let server = try startServer(configuration {
            $0.threads = 1
            $0.answerWait = { $0.path == "/slow" ? 0.05 : 0 }
        }) { request, respond in
            if request.path == "/slow" {
                DispatchQueue.global().asyncAfter(deadline: .now() + 2) { respond(HTTPResponse(status: 200, body: Array("slow".utf8))) }
            } else {
                respond(HTTPResponse(status: 200, body: Array("quick".utf8)))
            }
        }
        let slow = try RawHTTPClient(port: server.boundPort, timeout: 10)
        try slow.send(RawHTTPClient.request("POST", "/slow", body: Array("x".utf8)))
        XCTAssertTrue(waitFor(2) { server.inFlight == 1 })
        let started = DispatchTime.now().uptimeNanoseconds
        let quick = try RawHTTPClient(port: server.boundPort).roundTrip("GET", "/quick")
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        XCTAssertEqual(quick.text, "quick")
        XCTAssertLessThan(seconds, 1, "the quick request waited behind the slow one")
        XCTAssertEqual(try slow.readResponse().text, "slow")
    }
}
