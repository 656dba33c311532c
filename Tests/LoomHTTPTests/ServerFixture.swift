import Foundation
import Logging
import XCTest
@testable import LoomHTTP

/// Starts servers on 127.0.0.1 with an ephemeral port and stops them after each test.
class HTTPServerTestCase: XCTestCase {
    var servers: [HTTPServer] = []
    let log = CapturedLog()
    /// How many times a handler was called.
    let handlerCalls = Locked(0)

    override func tearDown() {
        for server in servers { server.stop() }
        servers = []
        super.tearDown()
    }

    static let errorBody: @Sendable (_ status: Int, _ code: String, _ message: String) -> HTTPResponse = { status, code, message in
        let json = #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(json.utf8))
    }

    /// The server's own refusals with the service's error codes, as `loom serve` has them.
    static let refusalResponse: @Sendable (HTTPRefusal) -> HTTPResponse = { refusal in
        switch refusal {
        case .malformedFraming, .undecodableBody: return errorBody(refusal.status, "bad_request", refusal.message)
        case .unsupportedContentEncoding: return errorBody(refusal.status, "unsupported_media_type", refusal.message)
        case .bodyTooLarge: return errorBody(refusal.status, "too_large", refusal.message)
        case .bodiesBuffered, .shuttingDown: return errorBody(refusal.status, "overloaded", refusal.message)
        }
    }

    func configuration(_ change: (inout HTTPServer.Configuration) -> Void = { _ in }) -> HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.exposedHeaders = ["X-Layout-Cache", "X-Layout-Key"]
        configuration.refusalResponse = Self.refusalResponse
        change(&configuration)
        return configuration
    }

    /// Starts a server whose handler counts its calls and then runs `handler`; `prepare`
    /// sees it before it starts (hooks, access-log writers).
    @discardableResult
    func startServer(_ configuration: HTTPServer.Configuration? = nil, logLevel: Logger.Level = .info,
                     prepare: (HTTPServer) -> Void = { _ in },
                     handler: @escaping HTTPServer.Handler) throws -> HTTPServer {
        let calls = handlerCalls
        let server = HTTPServer(configuration: configuration ?? self.configuration(),
                                logger: log.logger(level: logLevel)) { request, respond in
            calls.withValue { $0 += 1 }
            handler(request, respond)
        }
        prepare(server)
        try server.start()
        servers.append(server)
        XCTAssertGreaterThan(server.boundPort, 0)
        return server
    }

    /// A handler answering with the request body, and its method/path/query in headers.
    static let echo: HTTPServer.Handler = { request, respond in
        let query = request.query.keys.sorted().map { "\($0)=\(request.query[$0]!)" }.joined(separator: "&")
        respond(HTTPResponse(status: 200, headers: [
            ("Content-Type", "application/octet-stream"),
            ("X-Method", request.method),
            ("X-Path", request.path),
            ("X-Query", query),
            ("X-Remote", request.remoteAddress),
            ("X-Test-Header", request.headers["x-test"] ?? "<none>"),
        ], body: request.body))
    }

}
