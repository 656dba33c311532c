import CoreMetrics
import LoomLayout
import Prometheus
import Synchronization

/// The service's metrics (caches, layouts) through swift-metrics, with a Prometheus
/// registry as the backend; the HTTP metrics (`LoomServer.HTTPMetrics`) join the same
/// registry. Each service owns its registry (no global bootstrap), so tests can run several.
public final class ServiceMetrics: @unchecked Sendable {
    public let registry = PrometheusCollectorRegistry()
    /// The factory of `registry`, for other metrics of the same process (HTTP's).
    public let factory: PrometheusMetricsFactory
    private let hits: CoreMetrics.Counter
    private let misses: CoreMetrics.Counter
    private let inFlight: CoreMetrics.Meter
    private let computed: CoreMetrics.Counter
    private let cacheEvictions: CoreMetrics.Gauge
    private let cacheEntries: CoreMetrics.Gauge
    private let cacheBytes: CoreMetrics.Gauge
    private let subtreeEntries: CoreMetrics.Gauge
    private let subtreeHits: CoreMetrics.Gauge
    private let subtreeBytes: CoreMetrics.Gauge
    private let textHits: CoreMetrics.Gauge
    private let textMisses: CoreMetrics.Gauge
    private let textEntries: CoreMetrics.Gauge
    private let textBytes: CoreMetrics.Gauge
    private let wordEntries: CoreMetrics.Gauge
    private let wordBytes: CoreMetrics.Gauge

    public init() {
        var f = PrometheusMetricsFactory(registry: registry)
        f.defaultDurationHistogramBuckets = [.microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
                                             .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25),
                                             .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
                                             .seconds(1), .seconds(2.5), .seconds(5)]
        factory = f
        hits = CoreMetrics.Counter(label: "loom_cache_hits_total", factory: f)
        misses = CoreMetrics.Counter(label: "loom_cache_misses_total", factory: f)
        inFlight = CoreMetrics.Meter(label: "loom_layouts_in_flight", factory: f)
        computed = CoreMetrics.Counter(label: "loom_layouts_computed_total", factory: f)
        cacheEvictions = CoreMetrics.Gauge(label: "loom_cache_evictions", factory: f)
        cacheEntries = CoreMetrics.Gauge(label: "loom_cache_entries", factory: f)
        cacheBytes = CoreMetrics.Gauge(label: "loom_cache_bytes", factory: f)
        subtreeEntries = CoreMetrics.Gauge(label: "loom_subtree_cache_entries", factory: f)
        subtreeHits = CoreMetrics.Gauge(label: "loom_subtree_cache_hits", factory: f)
        subtreeBytes = CoreMetrics.Gauge(label: "loom_subtree_cache_bytes", factory: f)
        textHits = CoreMetrics.Gauge(label: "loom_text_cache_hits", factory: f)
        textMisses = CoreMetrics.Gauge(label: "loom_text_cache_misses", factory: f)
        textEntries = CoreMetrics.Gauge(label: "loom_text_cache_entries", factory: f)
        textBytes = CoreMetrics.Gauge(label: "loom_text_cache_bytes", factory: f)
        wordEntries = CoreMetrics.Gauge(label: "loom_word_cache_entries", factory: f)
        wordBytes = CoreMetrics.Gauge(label: "loom_word_cache_bytes", factory: f)
    }

    func cacheHit() { hits.increment() }
    func cacheMiss() { misses.increment() }
    func layoutStarted() { inFlight.increment() }
    func layoutFinished(computed n: Int) { inFlight.decrement(); computed.increment(by: n) }

    /// Prometheus text format, with cache figures read at scrape time.
    public func render(cache: LRUCache<LayoutService.ResponseKey, LayoutService.CachedResponse>.Statistics,
                       subtree: LRUCache<SubtreeLayoutKey, CachedSubtreeLayout>.Statistics,
                       text: TextCacheStatistics?) -> [UInt8] {
        cacheEvictions.record(cache.evictions)
        cacheEntries.record(cache.entries)
        cacheBytes.record(cache.bytes)
        subtreeEntries.record(subtree.entries)
        subtreeHits.record(subtree.hits)
        subtreeBytes.record(subtree.bytes)
        if let text {
            textHits.record(text.hits); textMisses.record(text.misses)
            textEntries.record(text.entries); textBytes.record(text.bytes)
            wordEntries.record(text.wordEntries); wordBytes.record(text.wordBytes)
        }
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

