import LoomLayout
import Prometheus
import Synchronization

/// The service's metrics (caches, layouts, the process) in a Prometheus registry; the HTTP
/// metrics (`LoomServer.HTTPMetrics`) join the same registry. Each service owns its registry
/// (no global bootstrap), so tests can run several. Every family has a `# HELP` line;
/// counters end in `_total`. Figures kept by the caches and by /proc are written at scrape
/// time after the registry's families. docs/observability.md lists every name.
public final class ServiceMetrics: @unchecked Sendable {
    public let registry = PrometheusCollectorRegistry()
    /// The factory of `registry`: its duration buckets are the ones every timer uses.
    public let factory: PrometheusMetricsFactory
    private let hits: Prometheus.Counter
    private let misses: Prometheus.Counter
    private let inFlight: Prometheus.Gauge
    private let computed: Prometheus.Counter

    public init() {
        var f = PrometheusMetricsFactory(registry: registry)
        f.defaultDurationHistogramBuckets = [.microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
                                             .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25),
                                             .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
                                             .seconds(1), .seconds(2.5), .seconds(5)]
        factory = f
        hits = registry.makeCounter(descriptor: ServiceMetrics.named("loom_cache_hits_total", "Layout requests answered from the response cache."))
        misses = registry.makeCounter(descriptor: ServiceMetrics.named("loom_cache_misses_total", "Layout requests not found in the response cache."))
        inFlight = registry.makeGauge(descriptor: ServiceMetrics.named("loom_layouts_in_flight", "Layouts being computed now."))
        computed = registry.makeCounter(descriptor: ServiceMetrics.named("loom_layouts_computed_total",
                                         "Element layouts computed (not taken from a cache), over all requests."))
        // Set once: the version, as `loom --version` prints it.
        registry.makeGauge(descriptor: ServiceMetrics.named("loom_build_info", "Always 1; the label is the version of the running loom."),
                           labels: [("version", LoomVersion.current)]).set(to: 1.0)
    }

    /// A family's name and help (no unit appended: the names carry their own).
    public static func named(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    func cacheHit() { hits.increment() }
    func cacheMiss() { misses.increment() }
    func layoutStarted() { inFlight.increment() }
    func layoutFinished(computed n: Int) { inFlight.decrement(); computed.increment(by: Int64(n)) }

    /// The families written at scrape time, in order: name, type, help. The text figures
    /// are left out when the service has no text measurer.
    static let scrapedFamilies: [(name: String, type: String, help: String)] = [
        ("loom_cache_evictions_total", "counter", "Responses evicted from the response cache to stay within its entries and bytes."),
        ("loom_cache_entries", "gauge", "Responses held in the response cache."),
        ("loom_cache_bytes", "gauge", "Bytes held in the response cache (bodies and keys)."),
        ("loom_subtree_cache_entries", "gauge", "Subtree layouts held in the shared subtree cache."),
        ("loom_subtree_cache_hits_total", "counter", "Subtree layouts taken from the shared subtree cache."),
        ("loom_subtree_cache_misses_total", "counter", "Subtree layouts looked for in the shared subtree cache and not found."),
        ("loom_subtree_cache_bytes", "gauge", "Bytes held in the shared subtree cache."),
        ("loom_subtree_cache_first_sightings_total", "counter",
         "Subtree layouts not stored in the shared subtree cache: the first sighting of their key (stored from the second on)."),
        ("loom_text_cache_hits_total", "counter", "Text measurements answered from the text measurement cache."),
        ("loom_text_cache_misses_total", "counter", "Text measurements computed with Pango."),
        ("loom_text_cache_entries", "gauge", "Measurements held in the text measurement cache."),
        ("loom_text_cache_bytes", "gauge", "Bytes held in the text measurement cache."),
        ("loom_word_cache_entries", "gauge", "Word advances held in the word cache."),
        ("loom_word_cache_bytes", "gauge", "Bytes held in the word cache."),
        ("process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds."),
        ("process_resident_memory_bytes", "gauge", "Resident memory size in bytes."),
        ("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes."),
        ("process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch, in seconds."),
        ("process_open_fds", "gauge", "Open file descriptors."),
        ("process_max_fds", "gauge", "The most file descriptors the process may open (soft limit)."),
    ]

    /// Prometheus text format, with cache figures and the process's read at scrape time.
    public func render(cache: LRUCache<LayoutService.ResponseKey, LayoutService.CachedResponse>.Statistics,
                       subtree: LRUCache<SubtreeLayoutKey, CachedSubtreeLayout>.Statistics,
                       text: TextCacheStatistics?) -> [UInt8] {
        var values: [String: Double] = [
            "loom_cache_evictions_total": Double(cache.evictions), "loom_cache_entries": Double(cache.entries),
            "loom_cache_bytes": Double(cache.bytes), "loom_subtree_cache_entries": Double(subtree.entries),
            "loom_subtree_cache_hits_total": Double(subtree.hits),
            "loom_subtree_cache_misses_total": Double(subtree.misses), "loom_subtree_cache_bytes": Double(subtree.bytes),
            "loom_subtree_cache_first_sightings_total": Double(subtree.deferred),
        ]
        if let text {
            values["loom_text_cache_hits_total"] = Double(text.hits)
            values["loom_text_cache_misses_total"] = Double(text.misses)
            values["loom_text_cache_entries"] = Double(text.entries)
            values["loom_text_cache_bytes"] = Double(text.bytes)
            values["loom_word_cache_entries"] = Double(text.wordEntries)
            values["loom_word_cache_bytes"] = Double(text.wordBytes)
        }
        if let p = ProcessFacts.figures() {
            values["process_cpu_seconds_total"] = p.cpuSeconds
            values["process_resident_memory_bytes"] = Double(p.residentBytes)
            values["process_virtual_memory_bytes"] = Double(p.virtualBytes)
            values["process_start_time_seconds"] = p.startTimeSeconds
            if let fds = p.openFDs { values["process_open_fds"] = Double(fds) }
            if let fds = p.maxFDs { values["process_max_fds"] = Double(fds) }
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 << 10)
        registry.emit(into: &buffer)
        for family in Self.scrapedFamilies {
            guard let value = values[family.name] else { continue }
            let number = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
            buffer.append(contentsOf: "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.type)\n\(family.name) \(number)\n".utf8)
        }
        return buffer
    }
}
