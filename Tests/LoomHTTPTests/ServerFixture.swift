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

    static let errorBody: HTTPServer.ErrorBody = { status, code, message in
        let json = #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(json.utf8))
    }

    func configuration(_ change: (inout HTTPServer.Configuration) -> Void = { _ in }) -> HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
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
                                logger: log.logger(level: logLevel), errorBody: Self.errorBody) { request, respond in
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
