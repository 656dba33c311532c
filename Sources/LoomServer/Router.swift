import Foundation
import LoomHTTP
import LoomService
import LoomLayout
import Synchronization

/// Maps HTTP requests to the service: every route of the wire format. Layout work runs on
/// the pool; the HTTP thread only parses the route and hands the job over.
public final class Router: @unchecked Sendable {
    public let service: LayoutService
    public let pool: LayoutPool
    public let metrics: ServiceMetrics
    public let httpMetrics: HTTPMetrics
    private let fonts: @Sendable () -> [FontFamilyInfo]
    private let textCacheStatistics: @Sendable () -> TextCacheStatistics?
    private let draining = Atomic<Bool>(false)

    public init(service: LayoutService, pool: LayoutPool, metrics: ServiceMetrics,
                fonts: @escaping @Sendable () -> [FontFamilyInfo],
                textCacheStatistics: @escaping @Sendable () -> TextCacheStatistics? = { nil }) {
        self.service = service
        self.pool = pool
        self.metrics = metrics
        self.httpMetrics = HTTPMetrics(factory: metrics.factory)
        self.fonts = fonts
        self.textCacheStatistics = textCacheStatistics
    }

    /// After SIGTERM: /readyz answers 503 so load balancers stop sending.
    public func setDraining() { draining.store(true, ordering: .relaxed) }
    private var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// The paths served, each with its one method; the metrics' `route` label is the path,
    /// or "other" for any other path.
    enum Route: Int, CaseIterable {
        case layout, batch, healthz, readyz, metrics, fonts, openapi, playground, asset, other

        init(path: String) {
            switch path {
            case "/layout": self = .layout
            case "/layout/batch": self = .batch
            case "/healthz": self = .healthz
            case "/readyz": self = .readyz
            case "/metrics": self = .metrics
            case "/fonts": self = .fonts
            case "/openapi.yaml": self = .openapi
            case "/": self = .playground
            // The playground's files (EmbeddedFiles.assets): /loom.js, /playground.js, …
            default: self = EmbeddedFiles.assets[path] != nil ? .asset : .other
            }
        }

        var label: String {
            switch self {
            case .layout: return "/layout"
            case .batch: return "/layout/batch"
            case .healthz: return "/healthz"
            case .readyz: return "/readyz"
            case .metrics: return "/metrics"
            case .fonts: return "/fonts"
            case .openapi: return "/openapi.yaml"
            case .playground: return "/"
            case .asset: return "asset"
            case .other: return "other"
            }
        }

        /// The method the route answers; nil for unknown paths (404 whatever the method).
        var method: String? {
            switch self {
            case .layout, .batch: return "POST"
            case .other: return nil
            default: return "GET"
            }
        }
    }

    /// Checked when a request's headers have arrived, before any of its body is read (and
    /// before libmicrohttpd invites an `Expect: 100-continue` upload): an unknown path is
    /// 404, a method the path does not serve 405, a layout body that is not JSON 415.
    /// OPTIONS on a known path passes (the server answers the CORS preflight). Cheap: it
    /// runs on libmicrohttpd's thread. The same answers `handle` would give.
    public func precheck(_ head: HTTPRequestHead) -> HTTPResponse? {
        let route = Route(path: head.path)
        guard let allowed = route.method else { return counted(Router.error(.notFound), route, head.method) }
        if head.method == "OPTIONS" { return nil }
        guard head.method == allowed else {
            var r = Router.error(.methodNotAllowed)
            r.headers.append(("Allow", allowed))
            return counted(r, route, head.method)
        }
        if (route == .layout || route == .batch) && !Router.isJSON(head.header("content-type")) {
            return counted(Router.error(.unsupportedMediaType), route, head.method)
        }
        return nil
    }

    /// The precheck of the admin listener: the probes and /metrics, nothing else.
    public func adminPrecheck(_ head: HTTPRequestHead) -> HTTPResponse? {
        switch Route(path: head.path) {
        case .healthz, .readyz, .metrics: return precheck(head)
        default: return counted(Router.error(.notFound), .other, head.method)
        }
    }

    /// `response`, counted in the metrics as an answer of `route` (answers the router gives
    /// before the handler runs are counted like the others).
    private func counted(_ response: HTTPResponse, _ route: Route, _ method: String) -> HTTPResponse {
        httpMetrics.request(route: route.rawValue, label: route.label, method: method, status: response.status, nanoseconds: 0)
        return response
    }

    /// The admin listener's handler: `/healthz`, `/readyz` and `/metrics` only (404 for
    /// anything else), on a port of its own that public traffic cannot starve.
    public func handleAdmin(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        switch Route(path: request.path) {
        case .healthz, .readyz, .metrics: handle(request, respond: respond)
        default: respond(Router.error(.notFound))
        }
    }

    /// The HTTP server's handler.
    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let start = DispatchTime.now().uptimeNanoseconds
        let route = Route(path: request.path)
        let httpMetrics = self.httpMetrics
        let method = request.method
        // Every answer is counted and timed (route, method, status) on its way out, here and
        // now or later from the pool.
        @Sendable func finish(_ response: HTTPResponse) {
            httpMetrics.request(route: route.rawValue, label: route.label, method: method, status: response.status,
                            nanoseconds: DispatchTime.now().uptimeNanoseconds &- start)
            respond(response)
        }
        guard let allowed = route.method else { return finish(Router.error(.notFound)) }
        guard method == allowed else {
            var r = Router.error(.methodNotAllowed)
            r.headers.append(("Allow", allowed))
            return finish(r)
        }
        switch route {
        case .healthz, .readyz, .metrics, .fonts, .openapi, .playground:
            finish(answer(route))
        case .asset:
            finish(EmbeddedFiles.response(for: request.path))
        case .layout, .batch:
            guard Router.isJSON(request.header("content-type")) else { return finish(Router.error(.unsupportedMediaType)) }
            let format: OutputFormat
            switch Router.outputFormat(request.query["format"], route: route) {
            case .success(let f): format = f
            case .failure(let error): return finish(Router.error(error))
            }
            let service = self.service
            let pending: LayoutService.PendingLayout?
            if route == .batch {
                pending = nil
            } else {
                switch service.answer(body: request.body, format: format) {
                case .ready(let outcome):
                    // Answered from the cache right here, without a trip through the pool or
                    // suspending the connection. The same cache entry always answers alike:
                    // the server may reuse what it built for it (headers, gzip, its own
                    // response object).
                    var response = Router.layoutResponse(outcome)
                    response.reuseKey = outcome.cacheEntry
                    return finish(response)
                case .layoutNeeded(let layout): pending = layout
                }
            }
            // The deadline counts from now: time spent queued is part of it. A client that
            // goes away stops its layout (a queued one is then dropped when its turn comes).
            let budget = service.makeBudget()
            request.cancellation.onCancel { budget.cancel() }
            let accepted = pool.submit {
                if let pending {
                    finish(Router.layoutResponse(pending.run(budget: budget)))
                } else {
                    // Each item gets its own budget, drawn from the request's.
                    let outcome = service.batch(body: request.body, budget: budget, forEachParallel: LayoutPool.forEachParallel)
                    finish(HTTPResponse(status: outcome.status, headers: [("Content-Type", outcome.contentType)], body: outcome.body))
                }
            }
            if !accepted {
                var r = Router.error(.overloaded)
                r.headers.append(("Retry-After", "1"))
                finish(r)
            }
        case .other:
            finish(Router.error(.notFound))
        }
    }

    /// The answer of a route that needs no layout: the probes, /metrics, /fonts and the
    /// embedded files.
    private func answer(_ route: Route) -> HTTPResponse {
        switch route {
        case .readyz:
            // Not ready while draining, or while a new layout would be refused.
            if isDraining { return Router.json(503, #"{"status":"draining"}"#) }
            if pool.isFull { return Router.json(503, #"{"status":"overloaded"}"#) }
            return Router.json(200, #"{"status":"ok"}"#)
        case .metrics:
            let body = metrics.render(cache: service.responseCache.statistics, subtree: service.subtreeCache.storage.statistics,
                                      text: textCacheStatistics())
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")], body: body)
        case .fonts:
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Router.fontsBody(fonts()))
        case .openapi:
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/yaml; charset=utf-8")],
                                body: EmbeddedFiles.openapiYAML)
        case .playground:
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"),
                                                       ("Content-Security-Policy", Router.playgroundPolicy)],
                                body: EmbeddedFiles.playgroundHTML)
        case .healthz:
            return Router.json(200, #"{"status":"ok"}"#)
        case .layout, .batch, .asset, .other:
            // Not answered here (`handle` lays them out or answers 404).
            return Router.error(.notFound)
        }
    }

    /// The `format` query parameter: json (also when absent or empty) or svg.
    static func outputFormat(_ value: String?, route: Route) -> Result<OutputFormat, WireError> {
        switch value ?? "json" {
        case "json", "": return .success(.json)
        case "svg" where route == .batch:
            // Batch results are JSON objects; refused rather than answered in another format than asked.
            return .failure(.invalidSpec("/layout/batch answers JSON only; ask POST /layout?format=svg for one tree's SVG",
                                         path: "format"))
        case "svg": return .success(.svg)
        case let other: return .failure(.invalidSpec("format must be \"json\" or \"svg\", not '\(other)'", path: "format"))
        }
    }

    /// `GET /fonts`: `{"families": [{"family", "aliases", "faces": [{"style", "weight", "italic"}]}]}`,
    /// keys sorted (no file paths: they are the server's business).
    static func fontsBody(_ families: [FontFamilyInfo]) -> [UInt8] {
        let list: [[String: Any]] = families.map { family in
            ["family": family.name, "aliases": family.aliases,
             "faces": family.faces.map { ["style": $0.style, "weight": $0.weight, "italic": $0.italic] as [String: Any] }]
        }
        return Array((try? JSONSerialization.data(withJSONObject: ["families": list], options: [.sortedKeys])) ?? Data())
    }

    /// The playground loads nothing from elsewhere and posts only to this server: its
    /// script and style are files of this server (no inline code).
    static let playgroundPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; "
        + "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func layoutResponse(_ outcome: LayoutOutcome) -> HTTPResponse {
        var headers: [(String, String)]
        if let key = outcome.key {
            headers = [("Content-Type", outcome.contentType), ("X-Layout-Cache", outcome.cacheHit ? "hit" : "miss"),
                       ("X-Layout-Key", key)]
        } else {
            headers = [("Content-Type", outcome.contentType)]
            // 503s (deadline, cancelled) are the server's condition: say when to come back.
            if outcome.status == 503 { headers.append(("Retry-After", "1")) }
        }
        return HTTPResponse(status: outcome.status, headers: headers, body: outcome.body)
    }

    /// `application/json` or `application/…+json`, with any parameters (charset …).
    static func isJSON(_ contentType: String?) -> Bool {
        guard var contentType else { return false }
        // ASCII (every real Content-Type): compared in place, without a lower-cased copy.
        let ascii: Bool? = contentType.withUTF8 { u -> Bool? in
            var end = 0
            while end < u.count && u[end] != UInt8(ascii: ";") {
                if u[end] >= 0x80 { return nil }
                end += 1
            }
            // A mark combining with the ';' would make it another character.
            if end + 1 < u.count && u[end + 1] >= 0x80 { return nil }
            var start = 0
            while start < end && (u[start] == 0x20 || u[start] == 0x09) { start += 1 }
            while end > start && (u[end - 1] == 0x20 || u[end - 1] == 0x09) { end -= 1 }
            func matches(_ at: Int, _ s: StaticString) -> Bool {
                guard at >= start, at + s.utf8CodeUnitCount <= end else { return false }
                for i in 0..<s.utf8CodeUnitCount {
                    var b = u[at + i]
                    if b >= 65 && b <= 90 { b |= 0x20 }
                    if b != s.utf8Start[i] { return false }
                }
                return true
            }
            if end - start == 16 && matches(start, "application/json") { return true }
            return matches(start, "application/") && matches(end - 5, "+json")
        }
        if let ascii { return ascii }
        return isJSONUnicode(contentType)
    }

    /// `isJSON` for values with non-ASCII bytes: by characters, Unicode lower-casing (any
    /// value; the tests check the in-place ASCII path against it).
    static func isJSONUnicode(_ contentType: String) -> Bool {
        var mime = Substring(contentType)
        if let semicolon = mime.firstIndex(of: ";") { mime = mime[..<semicolon] }
        while mime.first == " " || mime.first == "\t" { mime = mime.dropFirst() }
        while mime.last == " " || mime.last == "\t" { mime = mime.dropLast() }
        let m = mime.lowercased()
        return m == "application/json" || (m.hasPrefix("application/") && m.hasSuffix("+json"))
    }

    public static func error(_ e: WireError) -> HTTPResponse {
        HTTPResponse(status: e.status, headers: [("Content-Type", "application/json")], body: e.jsonBytes)
    }

    /// The wire format's error for an answer the HTTP server gives itself.
    @Sendable static func refusalResponse(_ refusal: HTTPRefusal) -> HTTPResponse {
        let code: String
        switch refusal {
        case .malformedFraming: code = "bad_request"
        case .bodyTooLarge: code = "too_large"
        case .bodiesBuffered, .shuttingDown: code = "overloaded"
        }
        return error(WireError(status: refusal.status, code: code, message: refusal.message))
    }

    static func json(_ status: Int, _ s: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(s.utf8))
    }
}
