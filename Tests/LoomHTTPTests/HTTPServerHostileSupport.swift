import Foundation
import Logging
import XCTest
@testable import LoomHTTP

/// Servers for the hostile-client tests (issue 17): a precheck can be given, and raw
/// exchanges read everything the server sends until it closes.
class HTTPServerHostileTestCase: HTTPServerTestCase {
    /// Starts a server with a precheck (nil: none), counting handler calls like
    /// `startServer`.
    @discardableResult
    func startServer(_ configuration: HTTPServer.Configuration? = nil, precheck: HTTPServer.Precheck?,
                     prepare: (HTTPServer) -> Void = { _ in },
                     handler: @escaping HTTPServer.Handler) throws -> HTTPServer {
        let calls = handlerCalls
        let server = HTTPServer(configuration: configuration ?? self.configuration(), logger: log.logger(),
                                precheck: precheck) { request, respond in
            calls.withValue { $0 += 1 }
            handler(request, respond)
        }
        prepare(server)
        try server.start()
        servers.append(server)
        return server
    }

    /// Sends `bytes` on a new connection and returns all the server answered until it closed
    /// the connection (`closed`), or until `timeout` seconds passed.
    func exchange(_ server: HTTPServer, _ bytes: [UInt8], timeout: Double = 5) throws -> (text: String, closed: Bool) {
        let client = try RawHTTPClient(port: server.boundPort)
        try client.send(bytes)
        let (answer, closed) = client.readUntilClose(timeout: timeout)
        return (String(decoding: answer, as: UTF8.self), closed)
    }

    func exchange(_ server: HTTPServer, _ text: String, timeout: Double = 5) throws -> (text: String, closed: Bool) {
        try exchange(server, Array(text.utf8), timeout: timeout)
    }

    /// Status lines ("HTTP/1.1 400") in a raw answer, in order.
    func statusLines(_ text: String) -> [String] {
        text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.") }.map { String($0.prefix(12)) }
    }

    /// Sends a header line every `interval` seconds (at most `lines`) until the server
    /// closes the connection; the seconds from the first byte to the close, nil if it never
    /// closed.
    func secondsUntilClosed(_ client: RawHTTPClient, start: [UInt8], lines: Int, interval: Double,
                            line: (Int) -> [UInt8]) -> Double? {
        let started = Date()
        guard (try? client.send(start)) != nil else { return 0 }
        for i in 0..<lines {
            if client.waitForClose(timeout: interval) { return Date().timeIntervalSince(started) }
            if (try? client.send(line(i))) == nil { return Date().timeIntervalSince(started) }
        }
        return client.waitForClose(timeout: interval) ? Date().timeIntervalSince(started) : nil
    }

    /// The access log lines captured so far.
    var accessLines: [String] { log.lines.filter { $0.0 == .info }.map { $0.1 } }
}
