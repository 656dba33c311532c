import ArgumentParser
import Dispatch
import Foundation
import Logging
import Synchronization
import LoomHTTP
import LoomService
import LoomServer
import LoomText

/// `loom serve`: the HTTP service. Every setting is a flag or an environment variable
/// (flags win); see the README's settings table.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Serve /layout over HTTP.")

    @Option(help: "Address to listen on (env HOST, default 0.0.0.0).") var host: String?
    @Option(help: "Port (env PORT, default 8080; 0 = any free port).") var port: Int?
    @Option(help: "Layouts computed at once (env LOOM_WORKERS, default: cores).") var workers: Int?
    @Option(help: "Layouts waiting beyond the workers before 503 (env LOOM_QUEUE_LIMIT, default 256).") var queueLimit: Int?
    @Option(help: "libmicrohttpd threads (env LOOM_HTTP_THREADS, default 2).") var httpThreads: Int?
    @Option(help: "Largest request body in bytes (env LOOM_MAX_BODY_BYTES, default 4 MiB).") var maxBodyBytes: Int?
    @Option(help: "Open connections at most (env LOOM_MAX_CONNECTIONS, default 1024).") var maxConnections: Int?
    @Option(help: "Seconds a connection may idle or stall (env LOOM_CONNECTION_TIMEOUT, default 10).") var connectionTimeout: Int?
    @Option(help: "Seconds a client has to send a request's headers, in all (env LOOM_HEADER_TIMEOUT, default 10; 0 = none).") var headerTimeout: Int?
    @Option(help: "Seconds a client has to send a request's body, in all (env LOOM_BODY_TIMEOUT, default 30; 0 = none).") var bodyTimeout: Int?
    @Option(help: "Slowest body accepted after 5 s, bytes per second (env LOOM_MIN_BODY_RATE, default 1024; 0 = any).") var minBodyRate: Int?
    @Option(help: "Bytes of request bodies held while they arrive, all connections together (env LOOM_MAX_BUFFERED_BODY_BYTES, default 128 MiB).")
    var maxBufferedBodyBytes: Int?
    @Option(help: "Response cache entries (env LOOM_CACHE_ENTRIES, default 10000).") var cacheEntries: Int?
    @Option(help: "Response cache bytes (env LOOM_CACHE_BYTES, default 64 MiB).") var cacheBytes: Int?
    @Option(help: "Text measurement cache bytes (env LOOM_TEXT_CACHE_BYTES, default 32 MiB).") var textCacheBytes: Int?
    @Option(help: "Word advance cache bytes (env LOOM_WORD_CACHE_BYTES, default 16 MiB).") var wordCacheBytes: Int?
    @Option(help: "Allowed CORS origins, comma-separated, * for any (env LOOM_CORS_ORIGINS, default none: CORS off).") var corsOrigins: String?
    @Option(help: "Port of the admin listener: /healthz, /readyz, /metrics (env LOOM_ADMIN_PORT, default off; 0 = any free port).")
    var adminPort: Int?
    @Option(help: "Address of the admin listener (env LOOM_ADMIN_HOST, default: --host).") var adminHost: String?
    @Option(name: .customLong("font-dir"), help: "Extra font directory, repeatable (env LOOM_FONT_DIRS, colon-separated).") var fontDirs: [String] = []
    @Option(help: "trace, debug, info, notice, warning, error, critical (env LOOM_LOG_LEVEL, default info).") var logLevel: String?
    @Option(help: "Seconds to finish in-flight requests after SIGTERM (env LOOM_DRAIN_TIMEOUT, default 20).") var drainTimeout: Int?
    @OptionGroup var limits: LimitOptions

    func run() throws {
        let level = Logger.Level(rawValue: setting(logLevel, "LOOM_LOG_LEVEL", "info")) ?? .info
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: level) }
        let logger = Logger(label: "loom")
        // SIGTERM / SIGINT are taken over first, before the fonts load and long before the
        // socket listens: libdispatch registers a signal source some time after `resume()`,
        // and a signal that came between `SIG_IGN` and then would be lost. Until the server
        // runs, a signal just exits; then it drains (below).
        let shutdown = ShutdownHandler()
        let signals = shutdown.takeOverSignals()

        let dirs = resolveFontDirs(fontDirs)
        let textBytes = setting(textCacheBytes, "LOOM_TEXT_CACHE_BYTES", 32 << 20)
        let wordBytes = setting(wordCacheBytes, "LOOM_WORD_CACHE_BYTES", 16 << 20)
        guard textBytes >= 0, wordBytes >= 0 else { throw ValidationError("--text-cache-bytes and --word-cache-bytes must be >= 0") }
        let measurer = try makeTextMeasurer(fontDirs: dirs, cacheBytes: textBytes, wordCacheBytes: wordBytes)

        let config = try serviceConfiguration(fontDirs: dirs)
        let origins = setting(corsOrigins, "LOOM_CORS_ORIGINS", "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        let httpConfig = try httpConfiguration(corsOrigins: origins)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let (server, router) = Router.makeServer(
            service: config, textMeasurer: measurer,
            workers: setting(workers, "LOOM_WORKERS", cores), queueLimit: setting(queueLimit, "LOOM_QUEUE_LIMIT", 256),
            http: httpConfig, logger: logger,
            fonts: { measurer.availableFamilies() },
            textCacheStatistics: { measurer.cacheStatistics })
        // The access log line per request, written as LineLogHandler would write it (the
        // logger has no metadata of its own) without a swift-log record per request.
        server.accessLogWriter = LogOutput.shared.accessLineWriter(label: logger.label)
        // The probes and /metrics on a listener of their own, when asked for.
        var admin: HTTPServer?
        if let port = adminPort ?? getenvString("LOOM_ADMIN_PORT").flatMap({ Int($0) }) {
            guard (0...65535).contains(port) else { throw ValidationError("--admin-port / LOOM_ADMIN_PORT must be 0…65535") }
            admin = Router.makeAdminServer(router: router, host: setting(adminHost, "LOOM_ADMIN_HOST", httpConfig.host),
                                           port: port, logger: logger)
        }
        try server.start()
        try admin?.start()
        var started: Logger.Metadata = ["host": "\(httpConfig.host)", "port": "\(server.boundPort)",
                                        "workers": "\(router.pool.workers)", "fonts": "\(dirs)",
                                        "allocator": "\(Allocator.description)",
                                        "deadline": "\(config.deadlineSeconds)", "cors": "\(origins)"]
        if let admin { started["admin_port"] = "\(admin.boundPort)" }
        logger.info("loom listening", metadata: started)

        // SIGTERM / SIGINT: stop accepting, report not ready, finish in-flight work, exit 0.
        let drain = Double(setting(drainTimeout, "LOOM_DRAIN_TIMEOUT", 20))
        shutdown.install {
            logger.info("draining", metadata: ["in_flight": "\(server.inFlight)"])
            router.setDraining()
            server.stopAccepting()
            let idle = server.waitUntilIdle(timeout: drain)
            server.stop()
            admin?.stop()
            logger.info("stopped", metadata: ["drained": "\(idle)"])
        }
        withExtendedLifetime(signals) { dispatchMain() }
    }

    /// The service's settings: the limits, the response cache, the font set.
    private func serviceConfiguration(fontDirs dirs: [String]) throws -> ServiceConfiguration {
        var config = ServiceConfiguration()
        try limits.apply(to: &config)
        config.cacheEntries = setting(cacheEntries, "LOOM_CACHE_ENTRIES", 10_000)
        config.cacheBytes = setting(cacheBytes, "LOOM_CACHE_BYTES", 64 << 20)
        // 0 turns the response cache off; a negative size is a mistake, not another way to say it.
        guard config.cacheEntries >= 0, config.cacheBytes >= 0 else {
            throw ValidationError("--cache-entries / LOOM_CACHE_ENTRIES and --cache-bytes / LOOM_CACHE_BYTES must be >= 0")
        }
        config.fontSetIdentity = dirs.joined(separator: ":")
        return config
    }

    /// The HTTP server's settings, checked.
    private func httpConfiguration(corsOrigins origins: [String]) throws -> HTTPServer.Configuration {
        let httpConfig = HTTPServer.Configuration(
            host: setting(host, "HOST", "0.0.0.0"), port: setting(port, "PORT", 8080),
            maxBodyBytes: setting(maxBodyBytes, "LOOM_MAX_BODY_BYTES", 4 << 20),
            maxConnections: setting(maxConnections, "LOOM_MAX_CONNECTIONS", 1024),
            connectionTimeoutSeconds: setting(connectionTimeout, "LOOM_CONNECTION_TIMEOUT", 10),
            threads: setting(httpThreads, "LOOM_HTTP_THREADS", 2), corsAllowedOrigins: origins,
            headerTimeoutSeconds: setting(headerTimeout, "LOOM_HEADER_TIMEOUT", 10),
            bodyTimeoutSeconds: setting(bodyTimeout, "LOOM_BODY_TIMEOUT", 30),
            minBodyBytesPerSecond: setting(minBodyRate, "LOOM_MIN_BODY_RATE", 1024),
            maxBufferedBodyBytes: setting(maxBufferedBodyBytes, "LOOM_MAX_BUFFERED_BODY_BYTES", 128 << 20))
        for (name, value) in [("--header-timeout", httpConfig.headerTimeoutSeconds), ("--body-timeout", httpConfig.bodyTimeoutSeconds),
                              ("--min-body-rate", httpConfig.minBodyBytesPerSecond), ("--max-buffered-body-bytes", httpConfig.maxBufferedBodyBytes)]
        where value < 0 {
            throw ValidationError("\(name) must be >= 0")
        }
        return httpConfig
    }
}

/// What SIGTERM / SIGINT do: the drain once the server runs, before that nothing; then the
/// logs are flushed and the process exits 0. Runs once however many signals arrive.
final class ShutdownHandler: @unchecked Sendable {
    private struct State {
        var action: (() -> Void)?
        var started = false
    }
    private let state = Mutex(State())

    /// Ignores SIGTERM and SIGINT and runs `run()` on them instead; keep the sources alive.
    func takeOverSignals() -> [DispatchSourceSignal] {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let signals = [SIGTERM, SIGINT].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for source in signals {
            source.setEventHandler { self.run() }
            source.resume()
        }
        return signals
    }

    func install(_ action: @escaping () -> Void) {
        state.withLock { $0.action = action }
    }

    func run() {
        let (first, action) = state.withLock { s in
            defer { s.started = true }
            return (!s.started, s.action)
        }
        guard first else { return }
        action?()
        LogOutput.shared.flush()
        Foundation.exit(0)
    }
}
