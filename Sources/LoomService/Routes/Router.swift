import Foundation
import LoomHTTP
import LoomLayout
import Synchronization

/// Maps HTTP requests to the service: every route of the wire format. Layout work runs on
/// the pool; the HTTP thread only parses the route and hands the job over.
public final class Router: @unchecked Sendable {
    public let service: LayoutService
    public let pool: LayoutPool
    public let metrics: ServiceMetrics
    private let fontsJSON: @Sendable () -> [UInt8]
    private let textCacheStatistics: @Sendable () -> (hits: Int, misses: Int)?
    private let draining = Atomic<Bool>(false)

    public init(service: LayoutService, pool: LayoutPool, metrics: ServiceMetrics,
                fontsJSON: @escaping @Sendable () -> [UInt8],
                textCacheStatistics: @escaping @Sendable () -> (hits: Int, misses: Int)? = { nil }) {
        self.service = service
        self.pool = pool
        self.metrics = metrics
        self.fontsJSON = fontsJSON
        self.textCacheStatistics = textCacheStatistics
    }

    /// After SIGTERM: /readyz answers 503 so load balancers stop sending.
    public func setDraining() { draining.store(true, ordering: .relaxed) }
    private var isDraining: Bool { draining.load(ordering: .relaxed) }

    static let routes: [String: Set<String>] = [
        "/layout": ["POST"], "/layout/batch": ["POST"], "/healthz": ["GET"], "/readyz": ["GET"],
        "/metrics": ["GET"], "/fonts": ["GET"], "/openapi.yaml": ["GET"], "/": ["GET"],
    ]

    /// The HTTP server's handler.
    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let start = DispatchTime.now().uptimeNanoseconds
        let route = Router.routes[request.path] != nil ? request.path : "other"
        let metrics = self.metrics
        let answer: @Sendable (HTTPResponse) -> Void = { response in
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            metrics.request(route: route, method: request.method, status: response.status, seconds: seconds)
            respond(response)
        }
        guard let methods = Router.routes[request.path] else { return answer(Router.error(.notFound)) }
        guard methods.contains(request.method) else {
            var r = Router.error(.methodNotAllowed)
            r.headers.append(("Allow", methods.sorted().joined(separator: ", ")))
            return answer(r)
        }
        switch request.path {
        case "/healthz":
            answer(Router.json(200, #"{"status":"ok"}"#))
        case "/readyz":
            answer(isDraining ? Router.json(503, #"{"status":"draining"}"#) : Router.json(200, #"{"status":"ok"}"#))
        case "/metrics":
            let body = metrics.render(cache: service.responseCache.statistics, subtree: service.subtreeCache.storage.statistics,
                                      text: textCacheStatistics())
            answer(HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")], body: body))
        case "/fonts":
            answer(HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: fontsJSON()))
        case "/openapi.yaml":
            answer(HTTPResponse(status: 200, headers: [("Content-Type", "application/yaml; charset=utf-8")], body: EmbeddedFiles.openapiYAML))
        case "/":
            answer(HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: EmbeddedFiles.playgroundHTML))
        case "/layout", "/layout/batch":
            guard Router.isJSON(request.header("content-type")) else { return answer(Router.error(.unsupportedMediaType)) }
            let format: OutputFormat
            switch request.query["format"] ?? "json" {
            case "json", "": format = .json
            case "svg": format = .svg
            case let other:
                return answer(Router.error(.invalidSpec("format must be \"json\" or \"svg\", not '\(other)'", path: "format")))
            }
            let service = self.service
            let batch = request.path == "/layout/batch"
            // A byte-identical request already answered: reply from the cache right here,
            // without a trip through the pool or suspending the connection.
            let missKey: LayoutService.RawKey?
            if batch {
                missKey = nil
            } else {
                switch service.lookup(body: request.body, format: format) {
                case .hit(let outcome): return answer(Router.layoutResponse(outcome))
                case .miss(let raw): missKey = raw
                }
            }
            let accepted = pool.submit {
                if let raw = missKey {
                    answer(Router.layoutResponse(service.layout(body: request.body, format: format, miss: raw)))
                } else {
                    let outcome = service.batch(body: request.body, forEachParallel: LayoutPool.forEachParallel)
                    answer(HTTPResponse(status: outcome.status, headers: [("Content-Type", outcome.contentType)], body: outcome.body))
                }
            }
            if !accepted {
                var r = Router.error(.overloaded)
                r.headers.append(("Retry-After", "1"))
                answer(r)
            }
        default:
            answer(Router.error(.notFound))
        }
    }

    static func layoutResponse(_ outcome: LayoutOutcome) -> HTTPResponse {
        var headers = [("Content-Type", outcome.contentType)]
        if let key = outcome.key {
            headers.append(("X-Layout-Cache", outcome.cacheHit ? "hit" : "miss"))
            headers.append(("X-Layout-Key", key))
        }
        return HTTPResponse(status: outcome.status, headers: headers, body: outcome.body)
    }

    /// `application/json` or `application/…+json`, with any parameters (charset …).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
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

    /// The body the HTTP server uses for the errors it answers itself (413 before reading).
    public static func errorBody(status: Int, code: String, message: String) -> HTTPResponse {
        error(WireError(status: status, code: code, message: message))
    }

    static func json(_ status: Int, _ s: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(s.utf8))
    }
}
