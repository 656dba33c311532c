import LoomService
import Prometheus
import Synchronization

/// HTTP metrics: answers per (route, method, status) and durations per route, in the
/// service's Prometheus registry. Every label comes from a closed set: routes are the
/// router's (unknown paths are "other"), methods the common ones (any other is "other"),
/// statuses the ones the server sends. Made in the registry itself (not through
/// swift-metrics' factory, which gives no help text), with the factory's duration buckets.
public final class HTTPMetrics: @unchecked Sendable {
    private let factory: PrometheusMetricsFactory
    static let requestsHelp = "HTTP requests answered, by route, method and status."
    static let durationHelp = "Seconds from a request's arrival to its answer, by route."
    /// Per-(route, method, status) counters and per-route timers, made on first use.
    private let perRoute = Mutex<(counters: [String: Prometheus.Counter], timers: [String: DurationHistogram])>(([:], [:]))
    /// The same metrics for the router's routes by number: a short list per route, searched
    /// without hashing or formatting a key (every request passes here).
    private let byRoute = Mutex<[RouteMetrics]>([])
    private struct RouteMetrics {
        var timer: DurationHistogram?
        var counters: [(method: String, status: Int, counter: Prometheus.Counter)] = []
    }

    public init(factory: PrometheusMetricsFactory) { self.factory = factory }

    /// The methods counted by name; any other is counted as "other", so that a client
    /// cannot add label values (and memory) by inventing methods.
    static let countedMethods: [String] = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    /// `method` if it is one of `countedMethods`, else "other".
    @inline(__always) static func methodLabel(_ method: String) -> String {
        for m in countedMethods where m == method { return m }
        return "other"
    }

    /// One answered HTTP request.
    public func request(route: String, method: String, status: Int, seconds: Double) {
        let (counter, timer) = metrics(route: route, method: HTTPMetrics.methodLabel(method),
                                       status: status)
        counter.increment()
        timer.recordNanoseconds(Int64(seconds * 1e9))
    }

    /// One answered HTTP request, the route given by a small number (`route`, the same one
    /// for the same `label`, below 64) as well as by its label.
    public func request(route: Int, label: String, method rawMethod: String, status: Int, nanoseconds: UInt64) {
        let method = HTTPMetrics.methodLabel(rawMethod)
        let found = byRoute.withLock { table -> (Prometheus.Counter, DurationHistogram)? in
            guard route < table.count, let timer = table[route].timer else { return nil }
            for c in table[route].counters where c.status == status && c.method == method { return (c.counter, timer) }
            return nil
        }
        let (counter, timer): (Prometheus.Counter, DurationHistogram)
        if let found {
            (counter, timer) = found
        } else {
            (counter, timer) = metrics(route: label, method: method, status: status)
            byRoute.withLock { table in
                if table.count <= route { table.append(contentsOf: repeatElement(RouteMetrics(), count: route + 1 - table.count)) }
                table[route].timer = timer
                if !table[route].counters.contains(where: { $0.status == status && $0.method == method }) {
                    table[route].counters.append((method, status, counter))
                }
            }
        }
        counter.increment()
        // As `request(route:method:status:seconds:)` rounds it.
        timer.recordNanoseconds(Int64(Double(nanoseconds) / 1e9 * 1e9))
    }

    /// The counter and timer of (route, method, status), made on first use.
    private func metrics(route: String, method: String, status: Int) -> (Prometheus.Counter, DurationHistogram) {
        let key = "\(route) \(method) \(status)"
        let factory = self.factory
        return perRoute.withLock { maps -> (Prometheus.Counter, DurationHistogram) in
            let c = maps.counters[key] ?? factory.registry.makeCounter(
                descriptor: ServiceMetrics.named("loom_http_requests_total", HTTPMetrics.requestsHelp),
                labels: [("route", route), ("method", method), ("status", String(status))])
            let t = maps.timers[route] ?? factory.registry.makeDurationHistogram(
                descriptor: ServiceMetrics.named("loom_http_request_duration_seconds", HTTPMetrics.durationHelp),
                labels: [("route", route)], buckets: factory.defaultDurationHistogramBuckets)
            maps.counters[key] = c
            maps.timers[route] = t
            return (c, t)
        }
    }

}
