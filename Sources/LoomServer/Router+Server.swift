import LoomHTTP
import LoomService
import LoomLayout
import Logging

extension Router {
    /// The service behind the HTTP server, wired as `loom serve` runs it: one metrics
    /// registry, the layout service with `textMeasurer`, the pool, and a router that answers
    /// every request (errors the server answers itself get the wire format's error body).
    /// The server is made, not started.
    public static func makeServer(service configuration: ServiceConfiguration, textMeasurer: TextMeasuring?,
                                  workers: Int, queueLimit: Int, http: HTTPServer.Configuration, logger: Logger,
                                  fontsJSON: @escaping @Sendable () -> [UInt8],
                                  textCacheStatistics: @escaping @Sendable () -> TextCacheFigures?)
        -> (server: HTTPServer, router: Router) {
        let metrics = ServiceMetrics()
        let service = LayoutService(configuration: configuration, textMeasurer: textMeasurer, metrics: metrics)
        let pool = LayoutPool(workers: workers, queueLimit: queueLimit)
        let router = Router(service: service, pool: pool, metrics: metrics, fontsJSON: fontsJSON,
                            textCacheStatistics: textCacheStatistics)
        let server = HTTPServer(configuration: http, logger: logger,
                                errorBody: { Router.errorBody(status: $0, code: $1, message: $2) },
                                precheck: { router.precheck($0) }) { request, respond in
            router.handle(request, respond: respond)
        }
        return (server, router)
    }

    /// The admin listener for `router`: the probes and `/metrics` on their own port and
    /// libmicrohttpd daemon, with a few connections of their own (made, not started).
    public static func makeAdminServer(router: Router, host: String, port: Int, logger: Logger) -> HTTPServer {
        // Two threads: libmicrohttpd takes a pool of one as none (and says so).
        let config = HTTPServer.Configuration(host: host, port: port, maxBodyBytes: 0, maxConnections: 64,
                                              connectionTimeoutSeconds: 10, threads: 2, corsAllowedOrigins: [])
        var adminLogger = logger
        adminLogger[metadataKey: "listener"] = "admin"
        return HTTPServer(configuration: config, logger: adminLogger,
                          errorBody: { Router.errorBody(status: $0, code: $1, message: $2) },
                          precheck: { router.adminPrecheck($0) }) { request, respond in
            router.handleAdmin(request, respond: respond)
        }
    }
}
