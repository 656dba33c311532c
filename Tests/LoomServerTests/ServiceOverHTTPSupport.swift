import Foundation
import Logging
import XCTest
import LoomHTTP
import LoomService
import LoomServer
import LoomText

/// The real Loom service (Pango text measurer, layout service, pool, router) behind the real
/// HTTP server on 127.0.0.1 with an ephemeral port, wired exactly as `loom serve` wires it.
final class LoomTestServer {
    let server: HTTPServer
    let service: LayoutService
    let pool: LayoutPool
    let router: Router
    let metrics: ServiceMetrics
    var port: Int { server.boundPort }

    struct Settings {
        var workers = 4
        var queueLimit = 256
        var maxBodyBytes = 4 << 20
        var maxDepth = 512
        var maxNodes = 100_000
        var maxConnections = 1024
        var connectionTimeout = 10
        var httpThreads = 2
        var cacheEntries = 10_000
        var cacheBytes = 64 << 20
        var corsOrigins = ["*"]
        var budget = BudgetPolicy()
        var deadlineSeconds = 5.0
    }

    /// One measurer for the whole test process (it loads the font catalog once).
    static let measurer: PangoTextMeasurer = {
        do { return try PangoTextMeasurer() } catch { fatalError("PangoTextMeasurer: \(error)") }
    }()

    init(_ settings: Settings, logger: Logger) throws {
        let measurer = LoomTestServer.measurer
        var config = ServiceConfiguration()
        config.limits = DecodeLimits(maxDepth: settings.maxDepth, maxNodes: settings.maxNodes)
        config.cacheEntries = settings.cacheEntries
        config.cacheBytes = settings.cacheBytes
        config.fontSetIdentity = ""
        config.budget = settings.budget
        config.deadlineSeconds = settings.deadlineSeconds
        let httpConfig = HTTPServer.Configuration(
            host: "127.0.0.1", port: 0, maxBodyBytes: settings.maxBodyBytes,
            maxConnections: settings.maxConnections, connectionTimeoutSeconds: settings.connectionTimeout,
            threads: settings.httpThreads, corsAllowedOrigins: settings.corsOrigins)
        let (server, router) = Router.makeServer(
            service: config, textMeasurer: measurer, workers: settings.workers, queueLimit: settings.queueLimit,
            http: httpConfig, logger: logger,
            fonts: { measurer.availableFamilies() },
            textCacheStatistics: { measurer.cacheStatistics })
        try server.start()
        self.server = server
        self.service = router.service
        self.pool = router.pool
        self.router = router
        self.metrics = router.metrics
    }
}

/// Starts Loom servers and stops them after each test; HTTP and JSON helpers.
class ServiceOverHTTPTestCase: XCTestCase {
    var loomServers: [LoomTestServer] = []
    let capturedLog = CapturedLog()

    override func tearDown() {
        for s in loomServers { s.server.stop() }
        loomServers = []
        super.tearDown()
    }

    func startLoom(_ change: (inout LoomTestServer.Settings) -> Void = { _ in }) throws -> LoomTestServer {
        var settings = LoomTestServer.Settings()
        change(&settings)
        let loom = try LoomTestServer(settings, logger: capturedLog.logger(level: .warning))
        loomServers.append(loom)
        XCTAssertGreaterThan(loom.port, 0)
        return loom
    }

    static let json = [("Content-Type", "application/json")]

    /// One request on a fresh connection.
    func request(_ loom: LoomTestServer, _ method: String, _ path: String, headers: [(String, String)] = [],
                 body: [UInt8] = [], timeout: Double = 10) throws -> RawHTTPClient.Response {
        let client = try RawHTTPClient(port: loom.port, timeout: timeout)
        defer { client.close() }
        return try client.roundTrip(method, path, headers: headers, body: body)
    }

    func postJSON(_ loom: LoomTestServer, _ path: String, _ body: String,
                  headers: [(String, String)] = []) throws -> RawHTTPClient.Response {
        try request(loom, "POST", path, headers: Self.json + headers, body: Array(body.utf8))
    }

    // MARK: JSON

    func object(_ response: RawHTTPClient.Response, file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        object(response.body, file: file, line: line)
    }

    func object(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        TestJSON.object(bytes, file: file, line: line)
    }

    /// `{"error": {...}}` of an error response.
    func errorObject(_ response: RawHTTPClient.Response) -> [String: Any] {
        TestJSON.error(response.body)
    }

    /// The `frames` map as [id: [x, y, width, height]].
    func frames(_ value: Any?) -> [String: [Double]] { TestJSON.frames(of: value) }

    func frames(_ response: RawHTTPClient.Response) -> [String: [Double]] {
        frames(object(response)["frames"])
    }

    // MARK: trees

    /// A row whose frames are known without a layout engine: a horizontal stack, no
    /// spacing, of `lead` (n × 10) then `mark` (7 × 5): `mark` is at x = n, and the root
    /// is (n + 7) × 10 (stack cross size = tallest child). Integral sizes are on every
    /// pixel grid.
    static func row(_ n: Int, tag: String = "") -> String {
        """
        {"sizeRange": {"min": {"width": 0, "height": 0}, "max": {"width": null, "height": null}},
         "root": {"type": "stack", "id": "row\(tag)", "direction": "horizontal", "children": [
           {"type": "node", "id": "lead", "style": {"preferredSize": {"width": \(n), "height": 10}}},
           {"type": "node", "id": "mark", "style": {"preferredSize": {"width": 7, "height": 5}}}]}}
        """
    }

    /// A vertical stack of `count` nodes of 3 × 2 (ids n0…): node k at y = 2k.
    static func column(_ count: Int) -> String {
        let children = (0..<count).map {
            #"{"type": "node", "id": "n\#($0)", "style": {"preferredSize": {"width": 3, "height": 2}}}"#
        }.joined(separator: ",")
        return #"{"root": {"type": "stack", "direction": "vertical", "children": [\#(children)]}}"#
    }

    /// `depth` elements nested: insets around insets around a node.
    static func nested(_ depth: Int) -> String {
        var element = #"{"type": "node", "style": {"preferredSize": {"width": 1, "height": 1}}}"#
        for _ in 1..<max(1, depth) {
            element = #"{"type": "inset", "insets": {"top": 0, "left": 0, "bottom": 0, "right": 0}, "child": \#(element)}"#
        }
        return #"{"root": \#(element)}"#
    }

}
