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
    @Option(help: "Layouts computed at once: auto or a number (env LOOM_WORKERS, default auto: the cores this process may use).")
    var workers: String?
    @Option(help: "Layouts waiting beyond the workers before 503 (env LOOM_QUEUE_LIMIT, default 256).") var queueLimit: Int?
    @Option(help: "libmicrohttpd threads (env LOOM_HTTP_THREADS, default 2).") var httpThreads: Int?
    @Option(help: "Largest request body, a byte size (env LOOM_MAX_BODY_BYTES, default 4Mi).") var maxBodyBytes: String?
    @Option(help: "Open connections at most (env LOOM_MAX_CONNECTIONS, default 1024).") var maxConnections: Int?
    @Option(help: "Seconds a connection may idle or stall (env LOOM_CONNECTION_TIMEOUT, default 10).") var connectionTimeout: Int?
    @Option(help: "Seconds a client has to send a request's headers, in all (env LOOM_HEADER_TIMEOUT, default 10; 0 = none).") var headerTimeout: Int?
    @Option(help: "Seconds a client has to send a request's body, in all (env LOOM_BODY_TIMEOUT, default 30; 0 = none).") var bodyTimeout: Int?
    @Option(help: "Slowest body accepted after 5 s, bytes per second (env LOOM_MIN_BODY_RATE, default 1024; 0 = any).") var minBodyRate: Int?
    @Option(help: "Bytes of request bodies held while they arrive, all connections together (env LOOM_MAX_BUFFERED_BODY_BYTES, default 128Mi).")
    var maxBufferedBodyBytes: String?
    @Option(help: "Response cache entries (env LOOM_CACHE_ENTRIES, default 10000; 0 = no response cache).") var cacheEntries: Int?
    @Option(help: "Response cache size, a byte size such as 64Mi, 64MiB, 64MB or 67108864 (env LOOM_CACHE_BYTES, default 64Mi).")
    var cacheBytes: String?
    @Option(help: "Text measurement cache size, a byte size (env LOOM_TEXT_CACHE_BYTES, default 32Mi).") var textCacheBytes: String?
    @Option(help: "Word advance cache size, a byte size (env LOOM_WORD_CACHE_BYTES, default 16Mi).") var wordCacheBytes: String?
    @Option(help: "Allowed CORS origins, comma-separated, * for any (env LOOM_CORS_ORIGINS, default none: CORS off).") var corsOrigins: String?
    @Option(help: "Port of the admin listener: /healthz, /readyz, /metrics (env LOOM_ADMIN_PORT, default off; 0 = any free port).")
    var adminPort: Int?
    @Option(help: "Address of the admin listener (env LOOM_ADMIN_HOST, default: --host).") var adminHost: String?
    @Option(name: .customLong("font-dir"), help: "Extra font directory, repeatable (env LOOM_FONT_DIRS, colon-separated).") var fontDirs: [String] = []
    @Option(help: "trace, debug, info, notice, warning, error, critical (env LOOM_LOG_LEVEL, default info).") var logLevel: String?
    @Option(help: "text or json: one JSON object per line (env LOOM_LOG_FORMAT, default text).") var logFormat: String?
    @Option(help: "Seconds to finish in-flight requests after SIGTERM (env LOOM_DRAIN_TIMEOUT, default 20).") var drainTimeout: Int?
    @OptionGroup var limits: LimitOptions

    /// Every setting, checked, before anything starts.
    struct Settings {
        var level: Logger.Level
        var logFormat: LogFormat
        var fontDirs: [String]
        var textCacheBytes: Int
        var wordCacheBytes: Int
        var service: ServiceConfiguration
        var http: HTTPServer.Configuration
        var corsOrigins: [String]
        var workers: Int
        var queueLimit: Int
        var adminPort: Int?
        var adminHost: String
        var drainSeconds: Int
    }

    /// Checked when the command line is parsed: a bad flag or environment value stops
    /// `serve` with its message before fonts load or a socket opens.
    func validate() throws {
        _ = try settings()
    }

    func settings() throws -> Settings {
        let levelName = try Setting("--log-level", "LOOM_LOG_LEVEL").choice(logLevel, default: "info", Logger.Level.allCases.map(\.rawValue))
        let format = try Setting("--log-format", "LOOM_LOG_FORMAT").choice(logFormat, default: "text", LogFormat.allCases.map(\.rawValue))
        let dirs = try checkedFontDirs(fontDirs)
        let textBytes = try Setting("--text-cache-bytes", "LOOM_TEXT_CACHE_BYTES").bytes(textCacheBytes, default: 32 << 20)
        let wordBytes = try Setting("--word-cache-bytes", "LOOM_WORD_CACHE_BYTES").bytes(wordCacheBytes, default: 16 << 20)
        var service = ServiceConfiguration()
        try limits.apply(to: &service)
        // 0 turns the response cache off; a negative size is a mistake, not another way to say it.
        service.cacheEntries = try Setting("--cache-entries", "LOOM_CACHE_ENTRIES").int(cacheEntries, default: 10_000, 0...Int.max, ">= 0")
        service.cacheBytes = try Setting("--cache-bytes", "LOOM_CACHE_BYTES").bytes(cacheBytes, default: 64 << 20)
        service.fontSetIdentity = dirs.joined(separator: ":")
        let origins = Setting("--cors-origins", "LOOM_CORS_ORIGINS").string(corsOrigins, default: "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        let http = HTTPServer.Configuration(
            host: Setting("--host", "HOST").string(host, default: "0.0.0.0"),
            port: try Setting("--port", "PORT").int(port, default: 8080, 0...65535, "0…65535"),
            maxBodyBytes: try Setting("--max-body-bytes", "LOOM_MAX_BODY_BYTES").bytes(maxBodyBytes, default: 4 << 20),
            maxConnections: try Setting("--max-connections", "LOOM_MAX_CONNECTIONS").int(maxConnections, default: 1024, 1...1_000_000, "1…1000000"),
            connectionTimeoutSeconds: try Setting("--connection-timeout", "LOOM_CONNECTION_TIMEOUT").int(
                connectionTimeout, default: 10, 0...86_400, "0…86400 seconds"),
            threads: try Setting("--http-threads", "LOOM_HTTP_THREADS").int(httpThreads, default: 2, 1...1024, "1…1024"),
            corsAllowedOrigins: origins,
            headerTimeoutSeconds: try Setting("--header-timeout", "LOOM_HEADER_TIMEOUT").int(headerTimeout, default: 10, 0...86_400, "0…86400 seconds"),
            bodyTimeoutSeconds: try Setting("--body-timeout", "LOOM_BODY_TIMEOUT").int(bodyTimeout, default: 30, 0...86_400, "0…86400 seconds"),
            minBodyBytesPerSecond: try Setting("--min-body-rate", "LOOM_MIN_BODY_RATE").int(minBodyRate, default: 1024, 0...Int.max, ">= 0"),
            maxBufferedBodyBytes: try Setting("--max-buffered-body-bytes", "LOOM_MAX_BUFFERED_BODY_BYTES").bytes(
                maxBufferedBodyBytes, default: 128 << 20))
        let admin = Setting("--admin-port", "LOOM_ADMIN_PORT")
        let adminPortValue = admin.raw(adminPort.map(String.init)) == nil ? nil
            : try admin.int(adminPort, default: 0, 0...65535, "0…65535")
        return Settings(
            level: Logger.Level(rawValue: levelName)!, logFormat: LogFormat(rawValue: format)!, fontDirs: dirs,
            textCacheBytes: textBytes, wordCacheBytes: wordBytes, service: service, http: http, corsOrigins: origins,
            workers: try Setting("--workers", "LOOM_WORKERS").count(workers, maximum: 4096),
            queueLimit: try Setting("--queue-limit", "LOOM_QUEUE_LIMIT").int(queueLimit, default: 256, 0...1_000_000, "0…1000000"),
            adminPort: adminPortValue, adminHost: Setting("--admin-host", "LOOM_ADMIN_HOST").string(adminHost, default: http.host),
            drainSeconds: try Setting("--drain-timeout", "LOOM_DRAIN_TIMEOUT").int(drainTimeout, default: 20, 0...86_400, "0…86400 seconds"))
    }

    func run() throws {
        let s = try settings()
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: s.level, format: s.logFormat) }
        let logger = Logger(label: "loom")
        // SIGTERM / SIGINT are taken over first, before the fonts load and long before the
        // socket listens: libdispatch registers a signal source some time after `resume()`,
        // and a signal that came between `SIG_IGN` and then would be lost. Until the server
        // runs, a signal just exits; then it drains (below).
        let shutdown = ShutdownHandler()
        let signals = shutdown.takeOverSignals()

        let measurer = try makeTextMeasurer(fontDirs: s.fontDirs, cacheBytes: s.textCacheBytes, wordCacheBytes: s.wordCacheBytes)
        let (server, router) = Router.makeServer(
            service: s.service, textMeasurer: measurer, workers: s.workers, queueLimit: s.queueLimit,
            http: s.http, logger: logger,
            fonts: { measurer.availableFamilies() },
            textCacheStatistics: { measurer.cacheStatistics })
        // The access log line per request, written as LineLogHandler would write it (the
        // logger has no metadata of its own) without a swift-log record per request.
        server.accessLogWriter = LogOutput.shared.accessLineWriter(label: logger.label, format: s.logFormat)
        // The probes and /metrics on a listener of their own, when asked for.
        let admin = s.adminPort.map { Router.makeAdminServer(router: router, host: s.adminHost, port: $0, logger: logger) }
        try server.start()
        try admin?.start()
        logger.info("loom listening", metadata: startMetadata(s, port: server.boundPort, workers: router.pool.workers,
                                                             adminPort: admin?.boundPort, fonts: measurer.availableFamilies().map(\.name)))

        // SIGTERM / SIGINT: stop accepting, report not ready, finish in-flight work, exit 0.
        let drain = Double(s.drainSeconds)
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

    /// Every effective setting, for the start line (sizes in bytes, times in seconds).
    private func startMetadata(_ s: Settings, port: Int, workers: Int, adminPort: Int?, fonts: [String]) -> Logger.Metadata {
        let h = s.http, c = s.service, b = c.budget
        var m: Logger.Metadata = [
            "version": "\(LoomVersion.current)", "host": "\(h.host)", "port": "\(port)", "workers": "\(workers)",
            "queue_limit": "\(s.queueLimit)", "http_threads": "\(h.threads)", "max_body_bytes": "\(h.maxBodyBytes)",
            "max_connections": "\(h.maxConnections)", "connection_timeout": "\(h.connectionTimeoutSeconds)",
            "header_timeout": "\(h.headerTimeoutSeconds)", "body_timeout": "\(h.bodyTimeoutSeconds)",
            "min_body_rate": "\(h.minBodyBytesPerSecond)", "max_buffered_body_bytes": "\(h.maxBufferedBodyBytes)",
            "max_depth": "\(c.limits.maxDepth)", "max_nodes": "\(c.limits.maxNodes)", "max_text_bytes": "\(c.limits.maxTextBytes)",
            "deadline": "\(c.deadlineSeconds)", "budget_measurements": "\(b.measurements)",
            "budget_per_element": "\(b.measurementsPerElement)", "budget_text_bytes": "\(b.characters)",
            "budget_lines": "\(b.lines)", "budget_per_text_byte": "\(b.perTextByte)",
            "cache_entries": "\(c.cacheEntries)", "cache_bytes": "\(c.cacheBytes)",
            "text_cache_bytes": "\(s.textCacheBytes)", "word_cache_bytes": "\(s.wordCacheBytes)",
            "cors": "\(s.corsOrigins)", "font_dirs": "\(s.fontDirs)", "fonts": "\(fonts)",
            "log_level": "\(s.level.rawValue)", "log_format": "\(s.logFormat.rawValue)", "drain_timeout": "\(s.drainSeconds)",
            "allocator": "\(Allocator.description)",
        ]
        if let adminPort { m["admin_port"] = "\(adminPort)"; m["admin_host"] = "\(s.adminHost)" }
        return m
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
