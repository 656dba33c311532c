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

    /// The paths served, each with its one method; the metrics' `route` label is the path
    /// (`/layouts/{key}` for every stored layout), or "other" for any other path.
    enum Route: Int, CaseIterable {
        case layout, batch, healthz, readyz, metrics, fonts, openapi, playground, storedLayout, openapiJSON, asset, other

        static let storedLayoutPrefix = "/layouts/"

        init(path: String) {
            switch path {
            case "/layout": self = .layout
            case "/layout/batch": self = .batch
            case "/healthz": self = .healthz
            case "/readyz": self = .readyz
            case "/metrics": self = .metrics
            case "/fonts": self = .fonts
            case "/openapi.yaml": self = .openapi
            case "/openapi.json": self = .openapiJSON
            case "/": self = .playground
            // The playground's files (EmbeddedFiles.assets): /loom.js, /playground.js, …
            default:
                if EmbeddedFiles.assets[path] != nil { self = .asset } else {
                    self = path.hasPrefix(Route.storedLayoutPrefix) ? .storedLayout : .other
                }
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
            case .openapiJSON: return "/openapi.json"
            case .playground: return "/"
            case .storedLayout: return "/layouts/{key}"
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

        /// Every method the route answers (`Allow`, the same in a 405 and in the answer to
        /// OPTIONS): HEAD with GET, and OPTIONS, which the server answers on every route.
        var allow: String {
            method == "POST" ? "POST, OPTIONS" : "GET, HEAD, OPTIONS"
        }
    }

    /// The `Allow` value of a path (the HTTP server's `allowedMethods`).
    @Sendable static func allowedMethods(path: String) -> String { Route(path: path).allow }

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
            r.headers.append(("Allow", route.allow))
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
            r.headers.append(("Allow", route.allow))
            return finish(r)
        }
        switch route {
        case .healthz, .readyz, .metrics, .fonts, .openapi, .openapiJSON, .playground:
            finish(answer(route))
        case .storedLayout:
            finish(storedLayout(request))
        case .asset:
            finish(EmbeddedFiles.response(for: request.path))
        case .layout, .batch:
            guard Router.isJSON(request.header("content-type")) else { return finish(Router.error(.unsupportedMediaType)) }
            let format: OutputFormat
            switch Router.outputFormat(request.query["format"], accept: request.header("accept"), route: route) {
            case .success(let f): format = f
            case .failure(let error): return finish(Router.error(error))
            }
            let ifNoneMatch = request.header("if-none-match")
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
                    if let key = outcome.key, Router.matches(ifNoneMatch, key: key) {
                        return finish(Router.notModified(outcome, route: .layout))
                    }
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
                    // Answered before the request's tree and layout are freed (`run(budget:deliver:)`).
                    pending.run(budget: budget) { outcome in
                        if let key = outcome.key, Router.matches(ifNoneMatch, key: key) {
                            return finish(Router.notModified(outcome, route: .layout))
                        }
                        finish(Router.layoutResponse(outcome))
                    }
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
        case .openapiJSON:
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: EmbeddedFiles.openapiJSON)
        case .playground:
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"),
                                                       ("Content-Security-Policy", Router.playgroundPolicy)],
                                body: EmbeddedFiles.playgroundHTML)
        case .healthz:
            return Router.json(200, #"{"status":"ok"}"#)
        case .layout, .batch, .storedLayout, .asset, .other:
            // Not answered here (`handle` lays them out, looks them up, serves the file or answers 404).
            return Router.error(.notFound)
        }
    }

    /// The format asked for: the `format` query parameter, json (also when empty) or svg;
    /// without it, `Accept` (svg when it prefers `image/svg+xml` to JSON; the batch route
    /// answers JSON whatever it says).
    static func outputFormat(_ value: String?, accept: String? = nil, route: Route) -> Result<OutputFormat, WireError> {
        guard let value else {
            return .success(route == .layout && Router.prefersSVG(accept) ? .svg : .json)
        }
        switch value {
        case "json", "": return .success(.json)
        case "svg" where route == .batch:
            // Batch results are JSON objects; refused rather than answered in another format than asked.
            return .failure(.invalidSpec("/layout/batch answers JSON only; ask POST /layout?format=svg for one tree's SVG",
                                         path: "format"))
        case "svg": return .success(.svg)
        case let other: return .failure(.invalidSpec("format must be \"json\" or \"svg\", not '\(other)'", path: "format"))
        }
    }

    /// `GET /fonts`: `{"families": [{"family", "aliases", "faces": [{"style", "weight", "italic"}]}],
    /// "fallback": [family]}` (the fallback chain in order), keys sorted (no file paths: they
    /// are the server's business).
    static func fontsBody(_ families: [FontFamilyInfo]) -> [UInt8] {
        let list: [[String: Any]] = families.map { family in
            ["family": family.name, "aliases": family.aliases,
             "faces": family.faces.map { ["style": $0.style, "weight": $0.weight, "italic": $0.italic] as [String: Any] }]
        }
        let chain = families.filter { $0.fallbackOrder != nil }.sorted { $0.fallbackOrder! < $1.fallbackOrder! }.map(\.name)
        let body: [String: Any] = ["families": list, "fallback": chain]
        return Array((try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data())
    }

    /// The playground loads nothing from elsewhere and posts only to this server: its
    /// script and style are files of this server (no inline code).
    static let playgroundPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; "
        + "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// How long a shared cache may keep `GET /layouts/{key}`: a key names one answer for
    /// good, but a release of Loom that changes a layout keeps its key, so a day, not a year.
    static let storedLayoutMaxAge = 86_400
    static let storedLayoutCacheControl = "public, max-age=\(storedLayoutMaxAge), immutable"

    /// The access-line fields of a cache hit and a miss (made once: every request takes one).
    static let cacheHitFields = [("cache", "hit")]
    static let cacheMissFields = [("cache", "miss")]

    /// The answer to `POST /layout`: the layout with its key (`X-Layout-Key`), where it can
    /// be fetched again (`Content-Location`), its validator (`ETag`, weak: the same for gzip
    /// and identity) and `Vary: Accept` (Accept picks the format); or the error.
    static func layoutResponse(_ outcome: LayoutOutcome) -> HTTPResponse {
        var headers: [(String, String)]
        var fields: [(String, String)]
        if let key = outcome.key {
            headers = [("Content-Type", outcome.contentType), ("X-Layout-Cache", outcome.cacheHit ? "hit" : "miss"),
                       ("X-Layout-Key", key), ("Content-Location", concatenated(Route.storedLayoutPrefix, key)),
                       ("ETag", etag(key)), ("Vary", "Accept")]
            fields = outcome.cacheHit ? cacheHitFields : cacheMissFields
        } else {
            headers = [("Content-Type", outcome.contentType), ("Vary", "Accept")]
            // 503s (deadline, cancelled) are the server's condition: say when to come back.
            if outcome.status == 503 { headers.append(("Retry-After", "1")) }
            fields = errorFields(outcome.errorCode, outcome.errorPath)
        }
        return HTTPResponse(status: outcome.status, headers: headers, body: outcome.body, accessLogFields: fields)
    }

    /// `304 Not Modified` for a client that holds the layout `outcome` is: the headers the
    /// 200 would carry, no body.
    static func notModified(_ outcome: LayoutOutcome, route: Route) -> HTTPResponse {
        let key = outcome.key ?? ""
        var headers: [(String, String)] = [("ETag", etag(key)), ("X-Layout-Key", key),
                                           ("X-Layout-Cache", outcome.cacheHit ? "hit" : "miss")]
        if route == .storedLayout {
            headers.append(("Cache-Control", storedLayoutCacheControl))
        } else {
            headers.append(("Content-Location", concatenated(Route.storedLayoutPrefix, key)))
            headers.append(("Vary", "Accept"))
        }
        return HTTPResponse(status: 304, headers: headers, body: [],
                            accessLogFields: outcome.cacheHit ? cacheHitFields : cacheMissFields)
    }

    /// `GET /layouts/{key}`: the response cache's answer under that key, or 404 when this
    /// replica does not hold it (the client then POSTs the tree).
    func storedLayout(_ request: HTTPRequest) -> HTTPResponse {
        let hex = request.path.dropFirst(Route.storedLayoutPrefix.count)
        guard let outcome = service.cachedAnswer(key: String(hex)), let key = outcome.key else {
            var r = Router.error(.notFound, message: "no layout with this key is cached here; POST the tree to /layout")
            r.accessLogFields.append(contentsOf: Router.cacheMissFields)
            return r
        }
        if Router.matches(request.header("if-none-match"), key: key) {
            return Router.notModified(outcome, route: .storedLayout)
        }
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", outcome.contentType), ("Cache-Control", Router.storedLayoutCacheControl),
            ("ETag", Router.etag(key)), ("X-Layout-Key", key), ("X-Layout-Cache", "hit"),
        ], body: outcome.body, reuseKey: outcome.cacheEntry?.resourceToken, accessLogFields: Router.cacheHitFields)
    }

    /// The weak entity tag of a layout key.
    static func etag(_ key: String) -> String { concatenated("W/\"", key, "\"") }

    /// `a + b + c` in one allocation (the answer's headers are built per miss).
    static func concatenated(_ a: String, _ b: String, _ c: String = "") -> String {
        var a = a, b = b, c = c
        return a.withUTF8 { a in
            b.withUTF8 { b in
                c.withUTF8 { c in
                    String(unsafeUninitializedCapacity: a.count + b.count + c.count) { out in
                        var at = 0
                        for byte in a { out[at] = byte; at += 1 }
                        for byte in b { out[at] = byte; at += 1 }
                        for byte in c { out[at] = byte; at += 1 }
                        return at
                    }
                }
            }
        }
    }

    /// Whether an `If-None-Match` value names the layout `key` (weak comparison: `W/` or not,
    /// as RFC 9110 compares for If-None-Match), or is `*`.
    static func matches(_ ifNoneMatch: String?, key: String) -> Bool {
        guard let ifNoneMatch, !ifNoneMatch.isEmpty else { return false }
        for item in ifNoneMatch.split(separator: ",") {
            var tag = item.trimmingCharacters(in: .whitespaces)[...]
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag.count == key.utf8.count + 2, tag.first == "\"", tag.last == "\"", tag.dropFirst().dropLast() == key[...] {
                return true
            }
        }
        return false
    }

    /// Whether `Accept` ranks `image/svg+xml` above JSON (q values; a missing q is 1; the
    /// most specific range matching a type gives its q). No Accept, `*/*`, or a tie: JSON.
    static func prefersSVG(_ accept: String?) -> Bool {
        guard let accept, accept.lowercased().contains("image") else { return false }
        func quality(_ type: String, _ subtype: String) -> Double {
            var best = (specificity: -1, q: 0.0)
            for item in accept.split(separator: ",") {
                let parts = item.split(separator: ";")
                guard let range = parts.first?.trimmingCharacters(in: .whitespaces).lowercased() else { continue }
                let pieces = range.split(separator: "/", maxSplits: 1).map(String.init)
                guard pieces.count == 2 else { continue }
                let specificity: Int
                if pieces[0] == type && pieces[1] == subtype { specificity = 2 }
                else if pieces[0] == type && pieces[1] == "*" { specificity = 1 }
                else if pieces[0] == "*" && pieces[1] == "*" { specificity = 0 }
                else { continue }
                var q = 1.0
                for p in parts.dropFirst() {
                    let kv = p.split(separator: "=", maxSplits: 1)
                    if kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces).lowercased() == "q" {
                        q = Double(kv[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
                if specificity > best.specificity { best = (specificity, q) }
            }
            return best.q
        }
        return quality("image", "svg+xml") > quality("application", "json")
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
        HTTPResponse(status: e.status, headers: [("Content-Type", "application/json")], body: e.jsonBytes,
                     accessLogFields: errorFields(e.code, e.path))
    }

    /// `e` with another message.
    static func error(_ e: WireError, message: String) -> HTTPResponse {
        var e = e
        e.message = message
        return error(e)
    }

    /// The access-line fields of an error answer: its code and, when it has one, the path
    /// of the offending field.
    static func errorFields(_ code: String?, _ path: String?) -> [(String, String)] {
        guard let code else { return [] }
        guard let path else { return [("error", code)] }
        return [("error", code), ("error_path", path)]
    }

    /// The wire format's error for an answer the HTTP server gives itself.
    @Sendable static func refusalResponse(_ refusal: HTTPRefusal) -> HTTPResponse {
        let code: String
        switch refusal {
        case .malformedFraming, .undecodableBody: code = "bad_request"
        case .bodyTooLarge: code = "too_large"
        case .unsupportedContentEncoding: code = "unsupported_media_type"
        case .bodiesBuffered, .shuttingDown: code = "overloaded"
        }
        return error(WireError(status: refusal.status, code: code, message: refusal.message))
    }

    static func json(_ status: Int, _ s: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(s.utf8))
    }
}
