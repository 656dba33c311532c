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
                                  fonts: @escaping @Sendable () -> [FontFamilyInfo],
                                  textCacheStatistics: @escaping @Sendable () -> TextCacheStatistics?)
        -> (server: HTTPServer, router: Router) {
        let metrics = ServiceMetrics()
        let service = LayoutService(configuration: configuration, textMeasurer: textMeasurer, metrics: metrics)
        let pool = LayoutPool(workers: workers, queueLimit: queueLimit)
        let router = Router(service: service, pool: pool, metrics: metrics, fonts: fonts,
                            textCacheStatistics: textCacheStatistics)
        let server = HTTPServer(configuration: Router.serving(http), logger: logger,
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
        return HTTPServer(configuration: Router.serving(config), logger: adminLogger,
                          precheck: { router.adminPrecheck($0) }) { request, respond in
            router.handleAdmin(request, respond: respond)
        }
    }

    /// `configuration` with what the wire format adds to any HTTP server: request ids in
    /// `X-Request-Id`, gzip request bodies, the headers a page of another origin may send
    /// and read, each path's `Allow`, and its error bodies for the server's own refusals.
    static func serving(_ configuration: HTTPServer.Configuration) -> HTTPServer.Configuration {
        var configuration = configuration
        configuration.exposedHeaders = ["ETag", "Content-Location", "Retry-After", "X-Request-Id",
                                        "X-Layout-Cache", "X-Layout-Key"]
        configuration.corsAllowedHeaders = ["Content-Type", "Accept", "Accept-Encoding", "Content-Encoding",
                                            "If-None-Match", "X-Request-Id"]
        configuration.requestIDHeader = "X-Request-Id"
        configuration.decodesGzipBodies = true
        configuration.allowedMethods = Router.allowedMethods
        configuration.refusalResponse = Router.refusalResponse
        return configuration
    }
}
