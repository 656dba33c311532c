import LoomLayout

/// Settings of the layout service (not of HTTP).
public struct ServiceConfiguration: Sendable {
    public var limits = DecodeLimits()
    /// Response cache bounds.
    public var cacheEntries = 10_000
    public var cacheBytes = 64 << 20
    /// Shared subtree cache bounds (layouts of repeated cells across requests).
    public var subtreeCacheEntries = 50_000
    public var subtreeCacheBytes = 32 << 20
    /// Changes whenever the font set does (extra font directories): part of every key.
    public var fontSetIdentity = ""
    /// What one layout (one request, one batch item) may cost: over it, 422 `budget_exceeded`.
    public var budget = BudgetPolicy()
    /// Seconds from a request's arrival until its layout is abandoned with 503
    /// `deadline_exceeded` (queue wait included).
    public var deadlineSeconds = 5.0
    public init() {}
}

/// The work budget of one layout, grown with the request: a fixed allowance plus a share
/// per element and per byte of text, so that a small request that multiplies its work is
/// stopped early while every realistic tree (the largest feed the body and element limits
/// admit among them) fits with room to spare.
public struct BudgetPolicy: Sendable, Hashable {
    /// Measurements: `measurements + measurementsPerElement × elements`.
    public var measurements = 50_000
    public var measurementsPerElement = 10
    /// Bytes of text measured: `characters + perTextByte × text bytes in the request`.
    public var characters = 1_000_000
    /// Lines of text produced: `lines + perTextByte × text bytes in the request`.
    public var lines = 100_000
    public var perTextByte = 8
    public init() {}

    /// The limits for a request of `elements` elements holding `textBytes` bytes of text,
    /// with `allowances` times the fixed allowance (a batch has two: one item that uses up
    /// its own whole budget leaves the others what they need).
    public func limits(elements: Int, textBytes: Int, allowances: Int = 1) -> LayoutLimits {
        func grown(_ base: Int, _ factor: Int, _ n: Int) -> Int {
            let (product, o1) = factor.multipliedReportingOverflow(by: n)
            let (sum, o2) = base.addingReportingOverflow(product)
            return o1 || o2 ? .max : sum
        }
        return LayoutLimits(measurements: grown(grown(0, measurements, allowances), measurementsPerElement, elements),
                            characters: grown(grown(0, characters, allowances), perTextByte, textBytes),
                            lines: grown(grown(0, lines, allowances), perTextByte, textBytes))
    }
}

public enum OutputFormat: String, Sendable { case json, svg }

/// The answer to one layout request, before HTTP.
public struct LayoutOutcome: Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    /// Hex cache key (tree hash + size range + options); nil for errors.
    public var key: String?
    public var cacheHit: Bool
    /// For answers from the response cache: the cache entry answered (the same entry always
    /// answers with the same bytes).
    public var cacheEntry: LayoutService.CachedResponse? = nil
    /// For errors: the error's code and path (for the access log).
    public var errorCode: String? = nil
    public var errorPath: String? = nil
}

extension LayoutOutcome {
    /// The answer for an error: the only place an error becomes an outcome.
    public init(error: Error) {
        let e = WireError.reporting(error)
        self.init(status: e.status, contentType: "application/json", body: e.jsonBytes, key: nil, cacheHit: false,
                  errorCode: e.code, errorPath: e.path)
    }
}

extension WireError {
    /// How the wire reports `error`: itself when it is a `WireError`, else 500 `internal`.
    static func reporting(_ error: Error) -> WireError {
        error as? WireError ?? WireError(status: 500, code: "internal", message: "\(error)")
    }
}

/// Decodes, lays out, encodes and caches. Synchronous and thread-safe: the HTTP layer calls
/// it on the pool's threads; `loom layout` and tests call it directly.
public final class LayoutService: @unchecked Sendable {
    public let configuration: ServiceConfiguration
    public let textMeasurer: TextMeasuring?
    public let decoder: RequestDecoder
    /// Encoded responses by request key.
    public let responseCache: LRUCache<ResponseKey, CachedResponse>
    /// Raw body digest → request key, so a byte-identical request is answered without decoding.
    public let rawIndex: LRUCache<RawKey, ResponseKey>
    public let subtreeCache: SubtreeLayoutCache
    public let metrics: ServiceMetrics?
    /// Bodies recently answered from the cache and their raw keys (see RecentBodies).
    let recentBodies = RecentBodies()

    /// The key of a response: what it depends on, in two digests.
    public struct ResponseKey: Hashable, Sendable {
        /// The tree's digest (types, styles, texts; not ids).
        public var tree: ElementDigest
        /// SHA-256 of everything else the answer depends on: ids and URLs, size range,
        /// scale, options, format, font set.
        public var settings: ElementDigest
        /// `tree.description + settings.description`, written in one string.
        public var hex: String {
            String(unsafeUninitializedCapacity: 64) { out in
                func put(_ word: UInt64, at offset: Int) {
                    for k in 0..<16 {
                        let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * k)) & 0xF
                        out[offset + k] = nibble < 10 ? 48 + nibble : 87 + nibble
                    }
                }
                put(tree.high, at: 0); put(tree.low, at: 16); put(settings.high, at: 32); put(settings.low, at: 48)
                return 64
            }
        }

        /// The key `hex` spells (64 lowercase hex digits, as `hex` writes them), else nil.
        public init?(hex: String) {
            let u = Array(hex.utf8)
            guard u.count == 64 else { return nil }
            var words: [UInt64] = [0, 0, 0, 0]
            for (i, b) in u.enumerated() {
                let v: UInt8
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): v = b - 48
                case UInt8(ascii: "a")...UInt8(ascii: "f"): v = b - 87
                default: return nil
                }
                words[i / 16] = words[i / 16] << 4 | UInt64(v)
            }
            tree = ElementDigest(high: words[0], low: words[1])
            settings = ElementDigest(high: words[2], low: words[3])
        }

        public init(tree: ElementDigest, settings: ElementDigest) { self.tree = tree; self.settings = settings }
    }
    /// The key of a request's raw bytes: SHA-256 of the body and the format's name, in two
    /// halves.
    public struct RawKey: Hashable, Sendable {
        var firstHalf: ElementDigest, secondHalf: ElementDigest
    }
    public final class CachedResponse: @unchecked Sendable {
        public let body: [UInt8]
        /// The key in hex, formatted once (it is a header of every hit).
        public let keyHex: String
        /// The format of `body` (a key names one format).
        public let format: OutputFormat
        /// Stands for this entry answered as `GET /layouts/{key}` (other headers than the
        /// POST's, so another `HTTPResponse.reuseKey`).
        public let resourceToken = Token()
        public final class Token: Sendable { init() {} }
        init(body: [UInt8], keyHex: String, format: OutputFormat) { self.body = body; self.keyHex = keyHex; self.format = format }
    }

    public init(configuration: ServiceConfiguration = ServiceConfiguration(), textMeasurer: TextMeasuring?,
                metrics: ServiceMetrics? = nil) {
        self.configuration = configuration
        self.textMeasurer = textMeasurer
        self.decoder = RequestDecoder(limits: configuration.limits, textMeasurer: textMeasurer)
        self.responseCache = LRUCache(maxEntries: configuration.cacheEntries, maxBytes: configuration.cacheBytes)
        self.rawIndex = LRUCache(maxEntries: configuration.cacheEntries, maxBytes: Swift.max(1, configuration.cacheEntries) * 128)
        self.subtreeCache = SubtreeLayoutCache(maxEntries: configuration.subtreeCacheEntries, maxBytes: configuration.subtreeCacheBytes)
        self.metrics = metrics
    }

    /// The service's answer to a request body: ready now, or the layout that makes it.
    public enum Answer {
        /// These bytes were answered before: the response cache's answer.
        case ready(LayoutOutcome)
        /// Not cached: run it (on a worker thread, when the caller has them).
        case layoutNeeded(PendingLayout)
    }

    /// A request body the response cache had no answer for.
    public struct PendingLayout: @unchecked Sendable {
        let service: LayoutService
        let body: [UInt8]
        let format: OutputFormat
        let rawKey: RawKey

        /// Decodes, lays out, encodes and caches; `budget` (default: `makeBudget()` now)
        /// bounds the layout's work and time. A budget already stopped (its client left,
        /// its deadline passed while it waited) stops it before decoding.
        public func run(budget: LayoutBudget? = nil) -> LayoutOutcome {
            runKeepingTree(budget: budget).0
        }

        /// `run(budget:)`, handing the outcome to `deliver` (once) while the decoded tree and
        /// its layout are still alive: they are freed after `deliver` returns, so that an
        /// answer waits for the encoding, not for freeing every element and layout of a
        /// large tree.
        public func run(budget: LayoutBudget? = nil, deliver: (LayoutOutcome) -> Void) {
            let (outcome, kept) = runKeepingTree(budget: budget)
            withExtendedLifetime(kept) { deliver(outcome) }
        }

        /// The outcome, and what it was made from for the caller to free: the decoded request
        /// (nil when the body did not decode) and its layout (nil when the response cache
        /// answered the decoded tree, or the layout stopped).
        func runKeepingTree(budget: LayoutBudget?) -> (LayoutOutcome, kept: (request: LayoutRequest, layout: Layout?)?) {
            if let budget, budget.shouldStop() { return (LayoutOutcome(error: LayoutService.error(for: budget)), nil) }
            let request: LayoutRequest
            do {
                request = try service.decoder.decode(body: body)
            } catch {
                return (LayoutOutcome(error: error), nil)
            }
            do {
                let (key, outcome, layout) = try service.layoutKeepingTree(request, format: format,
                                                                           budget: budget ?? service.makeBudget())
                service.rawIndex.set(key, for: rawKey, cost: 128)
                return (outcome, (request, layout))
            } catch {
                // A layout stopped by its budget is often a large tree: freed after the answer too.
                return (LayoutOutcome(error: error), (request, nil))
            }
        }
    }

    /// The answer to one request body. A body answered before is answered from the cache at
    /// once (a digest of the body and two lookups, no decoding: cheap enough for the HTTP
    /// thread); any other comes back as the layout to run.
    public func answer(body: [UInt8], format: OutputFormat = .json) -> Answer {
        let remembered = recentBodies.key(for: body, format: format)
        let raw = remembered ?? rawKey(body, format)
        guard let key = rawIndex.value(for: raw), let cached = responseCache.value(for: key) else {
            return .layoutNeeded(PendingLayout(service: self, body: body, format: format, rawKey: raw))
        }
        // A body answered from the cache is likely to come again: skip its SHA-256 then.
        if remembered == nil { recentBodies.remember(body, format: format, key: raw) }
        return .ready(answer(from: cached, format))
    }

    /// The cached answer whose key is `hex` (`ResponseKey.hex`: 64 lowercase hex digits),
    /// as the response cache holds it; nil when it does not (or `hex` is no key). A found
    /// entry counts as a hit, as a POST answered from the cache does.
    public func cachedAnswer(key hex: String) -> LayoutOutcome? {
        guard let key = ResponseKey(hex: hex), let cached = responseCache.value(for: key) else { return nil }
        return answer(from: cached, cached.format)
    }

    /// The answer from a cache entry (counted as a hit).
    private func answer(from cached: CachedResponse, _ format: OutputFormat) -> LayoutOutcome {
        metrics?.cacheHit()
        return LayoutOutcome(status: 200, contentType: format.contentType, body: cached.body, key: cached.keyHex, cacheHit: true,
                             cacheEntry: cached)
    }

    /// A budget for one layout, its deadline counted from now (make it when the request
    /// arrives, so that time spent queued counts); its limits are set from the request once
    /// it is decoded (`BudgetPolicy`).
    public func makeBudget() -> LayoutBudget {
        LayoutBudget(limits: .unlimited, seconds: configuration.deadlineSeconds)
    }

    /// One request body → one response, on this thread.
    public func layout(body: [UInt8], format: OutputFormat = .json, budget: LayoutBudget? = nil) -> LayoutOutcome {
        switch answer(body: body, format: format) {
        case .ready(let outcome): return outcome
        case .layoutNeeded(let pending): return pending.run(budget: budget)
        }
    }

    /// A decoded request → its response, through the response cache. Throws a `WireError`
    /// when the layout stops before its end (budget, deadline, cancellation).
    public func layout(_ request: LayoutRequest, format: OutputFormat = .json,
                       budget: LayoutBudget) throws -> (ResponseKey, LayoutOutcome) {
        let (key, outcome, _) = try layoutKeepingTree(request, format: format, budget: budget)
        return (key, outcome)
    }

    /// `layout(_:format:budget:)`, also returning the layout it computed (nil for a cached
    /// answer), for a caller that frees it after answering.
    func layoutKeepingTree(_ request: LayoutRequest, format: OutputFormat,
                           budget: LayoutBudget) throws -> (ResponseKey, LayoutOutcome, Layout?) {
        let key = responseKey(request, format)
        if let cached = responseCache.value(for: key) { return (key, answer(from: cached, format), nil) }
        metrics?.cacheMiss()
        let layout = try computeLayout(request, budget: budget)
        if request.includeText && request.output.hasLayout && format == .json {
            try TextLinesLimits.check(root: request.root, layout: layout, scale: request.scale)
        }
        let body: [UInt8]
        switch format {
        case .json:
            body = ResponseEncoder(scale: request.scale, includeSpecs: request.includeSpecs, output: request.output,
                                   textLines: request.includeText ? textMeasurer : nil)
                .encode(root: request.root, layout: layout)
        case .svg: body = SVGRenderer(scale: request.scale).render(root: request.root, layout: layout)
        }
        let hex = key.hex
        responseCache.set(CachedResponse(body: body, keyHex: hex, format: format), for: key, cost: body.count + 224)
        return (key, LayoutOutcome(status: 200, contentType: format.contentType, body: body, key: hex, cacheHit: false), layout)
    }

    /// Lay a decoded request out (no response cache; the subtree cache is used), without
    /// a budget: for tools and tests that lay out trees they made themselves.
    /// A Yoga tree that hit one of Yoga's fatal assertions is returned as laid out.
    public func computeLayout(_ request: LayoutRequest, useSubtreeCache: Bool = true) -> Layout {
        // An unlimited budget never stops a pass.
        try! pass(request, useSubtreeCache: useSubtreeCache, budget: nil).layout
    }

    /// Lay a decoded request out within `budget`; throws 422 `budget_exceeded` (with the
    /// path of the element being measured when it ran out), 503 `deadline_exceeded` or
    /// 503 `cancelled` when the pass stops before its end, and 400 `invalid_spec` at the
    /// Yoga root when a Yoga tree hits one of Yoga's fatal assertions (Texture crashes).
    public func computeLayout(_ request: LayoutRequest, useSubtreeCache: Bool = true, budget: LayoutBudget?) throws -> Layout {
        let (layout, context) = try pass(request, useSubtreeCache: useSubtreeCache, budget: budget)
        if let failure = context.yogaFailure { throw LayoutService.error(for: failure, request) }
        return layout
    }

    /// One layout pass over `request` (its context tells of a Yoga failure).
    private func pass(_ request: LayoutRequest, useSubtreeCache: Bool, budget: LayoutBudget?) throws -> (layout: Layout, context: LayoutContext) {
        if let budget {
            budget.limits = configuration.budget.limits(elements: request.elementCount, textBytes: request.textBytes)
            if budget.shouldStop() { throw LayoutService.error(for: budget, request) }
        }
        // Stamps the subtree cache keys on the tree (hashed once per request).
        if useSubtreeCache { request.hashTree() }
        // The pass's own memo in front of the shared cache, which keeps a subtree from its
        // second sighting on.
        let context = LayoutContext(scale: request.scale, textMeasurer: textMeasurer,
                                    subtreeCache: useSubtreeCache ? PassSubtreeCache(shared: subtreeCache) : nil, budget: budget)
        metrics?.layoutStarted()
        defer { metrics?.layoutFinished(computed: context.computedLayouts) }
        let layout = calculateRootLayout(request.root, sizeRange: request.sizeRange, context: context)
        if let budget, budget.isStopped { throw LayoutService.error(for: budget, request) }
        return (layout, context)
    }

    /// The wire error for a Yoga tree that hit one of Yoga's fatal assertions: the request
    /// is invalid, at the path of the Yoga root.
    public static func error(for failure: YogaFailure, _ request: LayoutRequest) -> WireError {
        .invalidSpec("Yoga cannot lay this tree out (\(failure.reason)); Texture crashes here",
                     path: ElementPath.of(failure.root, in: request.root))
    }

    /// The wire error for a pass that stopped (`request`, when known, names the element
    /// where a budget ran out).
    public static func error(for budget: LayoutBudget, _ request: LayoutRequest? = nil) -> WireError {
        switch budget.stop {
        case .budgetExceeded(let which, let element)?:
            let limit: Int
            switch which {
            case .measurements: limit = budget.limits.measurements
            case .characters: limit = budget.limits.characters
            case .lines: limit = budget.limits.lines
            }
            return .budgetExceeded(which, limit: limit, path: element.flatMap { e in request.flatMap { ElementPath.of(e, in: $0.root) } })
        case .cancelled?: return .cancelled
        case .deadlineExceeded?, nil: return .deadlineExceeded
        }
    }

    /// The key of a decoded request: tree digest, ids/URLs, size range, scale, options, fonts.
    public func responseKey(_ request: LayoutRequest, _ format: OutputFormat) -> ResponseKey {
        let (tree, ids) = request.hashTree()
        var h = SHA256()
        func put(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { h.update(bufferPointer: $0) } }
        put(ids.high); put(ids.low)
        for v in [request.sizeRange.min.width, request.sizeRange.min.height, request.sizeRange.max.width,
                  request.sizeRange.max.height, request.scale] { put(v == 0 ? 0 : v.bitPattern) }
        // `includeSpecs` shapes only the layout tree; an output other than both adds its own
        // bits (the default's keys are what they were before `output` existed).
        switch request.output {
        case .both: put(request.includeSpecs ? 1 : 0)
        case .layout: put(request.includeSpecs ? 3 : 2)
        case .frames: put(4)
        }
        // Lines shape only the layout tree (and keys without them stay as they were).
        if request.includeText && request.output.hasLayout { put(8) }
        // Strings fed in place (the same bytes as one array of their concatenation).
        func putString(_ s: String) { var s = s; s.withUTF8 { h.update(bufferPointer: UnsafeRawBufferPointer($0)) } }
        putString(format.rawValue)
        if request.hasText { putString("fonts:"); putString(configuration.fontSetIdentity) }
        return ResponseKey(tree: tree, settings: ElementDigest(h.finalize()))
    }

    /// SHA-256 of the body followed by the format's name ("json", "svg"), as four
    /// big-endian words.
    private func rawKey(_ body: [UInt8], _ format: OutputFormat) -> RawKey {
        var h = SHA256()
        body.withUnsafeBytes { h.update(bufferPointer: $0) }
        let name: StaticString = format == .json ? "json" : "svg"
        h.update(bufferPointer: UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        return h.finalize().withUnsafeBytes { d in
            func u64(_ o: Int) -> UInt64 { UInt64(bigEndian: d.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }
            return RawKey(firstHalf: ElementDigest(high: u64(0), low: u64(8)), secondHalf: ElementDigest(high: u64(16), low: u64(24)))
        }
    }

    // MARK: batch

    /// `{"items": [LayoutRequest, …]}` → `{"results": [LayoutResponse or Error, …]}`; items laid
    /// out in parallel by `forEachParallel`, each error in its own slot.
    /// Each item has its own budget, a part of `budget` (default: `makeBudget()` now): the
    /// items share its deadline and cancellation, and all draw from one allowance for the
    /// whole batch (the policy's for every element and text of every item together, with
    /// twice the fixed part), so that a batch costs about what one request of its size may
    /// however many items it holds.
    public func batch(body: [UInt8], maxItems: Int = 1000, budget: LayoutBudget? = nil,
                      forEachParallel: (Int, (Int) -> Void) -> Void) -> LayoutOutcome {
        let items: [Range<Int>]
        do {
            items = try decoder.batchItems(body: body, maxItems: maxItems)
        } catch {
            return LayoutOutcome(error: error)
        }
        let shared = budget ?? makeBudget()
        var results = [[UInt8]](repeating: [], count: items.count)
        // Decoded first (decoding is bounded by the body's size), so that the shared
        // allowance is known before any item is laid out.
        var requests = [Result<LayoutRequest, Error>](repeating: .failure(WireError.cancelled), count: items.count)
        requests.withUnsafeMutableBufferPointer { out in
            let decoded = out
            forEachParallel(items.count) { k in
                decoded[k] = Result { try self.decoder.decode(body: body, range: items[k]) }
            }
        }
        var elements = 0, textBytes = 0
        for case .success(let r) in requests { elements += r.elementCount; textBytes += r.textBytes }
        shared.limits = configuration.budget.limits(elements: elements, textBytes: textBytes, allowances: 2)
        results.withUnsafeMutableBufferPointer { out in
            let buffer = out
            forEachParallel(items.count) { k in
                do {
                    let request = try requests[k].get()
                    buffer[k] = try self.layout(request, budget: shared.part(limits: .unlimited)).1.body
                } catch {
                    var err = WireError.reporting(error)
                    err.path = "items[\(k)]" + (err.path.map { "." + $0 } ?? "")
                    buffer[k] = err.jsonBytes
                }
            }
        }
        var w = JSONWriter(capacity: results.reduce(32) { $0 + $1.count + 1 })
        w.beginObject()
        w.key("results"); w.beginArray()
        for r in results { w.raw(r) }
        w.endArray()
        w.endObject()
        return LayoutOutcome(status: 200, contentType: "application/json", body: w.bytes, key: nil, cacheHit: false)
    }
}

extension OutputFormat {
    var contentType: String { self == .json ? "application/json" : "image/svg+xml" }
}
