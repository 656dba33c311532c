import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// A frame in points.
public struct Frame: Sendable, Hashable {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// The laid-out tree, flattened as Texture flattens it (nodes only, unless `includeSpecs`);
/// each frame relative to its parent, as a client assigns `view.frame`.
public struct LayoutTree: Sendable, Hashable {
    public var id: String?
    public var type: String
    public var frame: Frame
    public var children: [LayoutTree]
    /// Text nodes: the number of lines and whether the text was truncated.
    public var lines: Int?
    public var truncated: Bool?
    /// Text nodes, with `includeText`: the visible lines, and what a truncated text shows.
    public var textLines: [TextLine]?
    public var truncatedString: String?
    public var url: String?
}

/// One laid-out line of a text node (`LayoutRequest.includeText`): points in the node's
/// frame, its range in the text in UTF-16 code units (`NSRange`).
public struct TextLine: Sendable, Hashable {
    public var text: String
    public var location: Int
    public var length: Int
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var baseline: Double
    public var rightToLeft: Bool
    /// Families that draw the line, fallbacks included.
    public var fonts: [String]
}

/// Something about a request that did not stop its layout but that the client should know
/// (`missing_glyphs`: characters no font has, in `codePoints` as "U+XXXX").
public struct LayoutWarning: Sendable, Hashable {
    public var code: String
    public var path: String
    public var message: String
    public var codePoints: [String]
}

/// A computed layout.
public struct LayoutResult: Sendable {
    public var size: Size
    /// Every id of the request (given or generated) with its frame in the root's space.
    public var frames: [String: Frame]
    public var layout: LayoutTree
    /// `X-Layout-Key`: the server's cache key of this request (nil in batch items).
    public var key: String?
    /// `X-Layout-Cache`: "hit" or "miss" ("hit" too when a `304` let the client reuse what it kept).
    public var cache: String?
    /// Empty when nothing needs saying.
    public var warnings: [LayoutWarning]
    /// The weak `ETag` of the answer (`W/"key"`), nil in batch items.
    public var etag: String?

    public func frame(_ id: String) -> Frame? { frames[id] }
}

/// An error answered by the server, with its code, message and the path of the offending
/// field (`root.children[2].ratio`); or a request the builder refused before sending.
public struct LoomError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status (0 when the request was refused before sending).
    public var status: Int
    /// `invalid_spec`, `malformed_json`, `too_large`, `overloaded`, …
    public var code: String
    public var message: String
    public var path: String?
    /// Seconds, from `Retry-After`.
    public var retryAfter: Double?

    public var description: String { "\(code)\(path.map { " at \($0)" } ?? ""): \(message) (HTTP \(status))" }
}

/// Talks to a Loom server: `layout`, `batch`, `svg`, async/await.
///
/// A `503` is retried after its `Retry-After` (`retries` times, each wait capped at
/// `maxRetryDelay` seconds); answers that carry an `ETag` are kept (up to `etagEntries`)
/// and asked for again with `If-None-Match`, so a `304` costs no body.
public struct LoomClient: Sendable {
    private let client: Client

    public init(baseURL: URL, retries: Int = 2, maxRetryDelay: Double = 5, etagEntries: Int = 256,
                transport: (any ClientTransport)? = nil) {
        // Outermost first: errors are read from the final answer, after retries.
        let middlewares: [any ClientMiddleware] = [
            ErrorMiddleware(),
            ETagMiddleware(capacity: etagEntries),
            RetryMiddleware(retries: retries, maxDelay: maxRetryDelay),
        ]
        client = Client(serverURL: baseURL, transport: transport ?? URLSessionTransport(), middlewares: middlewares)
    }

    /// Lays out one request.
    public func layout(_ request: LayoutRequest) async throws -> LayoutResult {
        let wire = try Self.wire(request)
        let output = try await call { try await client.layout(body: .json(wire)) }
        let ok = try output.ok
        var result = LayoutResult(try ok.body.json, key: ok.headers.xLayoutKey, cache: ok.headers.xLayoutCache.rawValue)
        result.etag = ok.headers.eTag
        return result
    }

    /// Lays out several requests in one call. Each item is a result or the item's error:
    /// one bad item does not fail the others (its error path starts with `items[k]`).
    public func batch(_ requests: [LayoutRequest]) async throws -> [Result<LayoutResult, LoomError>] {
        let items = try requests.map(Self.wire)
        let output = try await call { try await client.layoutBatch(body: .json(.init(items: items))) }
        return try output.ok.body.json.results.map { item in
            switch item {
            case .LayoutResponse(let r): return .success(LayoutResult(r, key: nil, cache: nil))
            case ._Error(let e): return .failure(LoomError(e, status: 400))
            }
        }
    }

    /// The layout drawn as SVG.
    public func svg(_ request: LayoutRequest) async throws -> String {
        let wire = try Self.wire(request)
        let output = try await call {
            try await client.layout(query: .init(format: .svg), headers: .init(accept: [.init(contentType: .imageSvgXml)]),
                                    body: .json(wire))
        }
        let body = try output.ok.body.imageSvgXml
        return try await String(collecting: body, upTo: 64 << 20)
    }

    private static func wire(_ request: LayoutRequest) throws -> Components.Schemas.LayoutRequest {
        do { return try request.wire() } catch let e as ElementError {
            throw LoomError(status: 0, code: "invalid_spec", message: e.message, path: e.path)
        }
    }

    /// Unwraps the errors the middlewares throw from OpenAPIRuntime's `ClientError`.
    private func call<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let e as ClientError {
            if let loom = e.underlyingError as? LoomError { throw loom }
            throw LoomError(status: e.response.map { $0.status.code } ?? 0, code: "transport",
                            message: String(describing: e.underlyingError), path: nil)
        }
    }
}

extension LayoutResult {
    init(_ r: Components.Schemas.LayoutResponse, key: String?, cache: String?) {
        size = Size(width: r.size.width, height: r.size.height)
        // A part left out (`LayoutRequest.output`) reads as empty.
        frames = r.frames?.additionalProperties.mapValues(Frame.init) ?? [:]
        layout = r.layout.map(LayoutTree.init)
            ?? LayoutTree(type: "node", frame: Frame(x: 0, y: 0, width: size.width, height: size.height), children: [])
        warnings = (r.warnings ?? []).map {
            LayoutWarning(code: $0.code, path: $0.path, message: $0.message, codePoints: $0.codePoints ?? [])
        }
        self.key = key
        self.cache = cache
    }
}

extension Frame {
    init(_ f: Components.Schemas.Frame) { self.init(x: f.x, y: f.y, width: f.width, height: f.height) }
}

extension LayoutTree {
    init(_ l: Components.Schemas.Layout) {
        self.init(id: l.id, type: l._type.rawValue, frame: Frame(l.frame), children: l.children.map(LayoutTree.init),
                  lines: l.lines, truncated: l.truncated,
                  textLines: l.textLines?.map {
                      TextLine(text: $0.text, location: $0.location, length: $0.length, x: $0.x, y: $0.y, width: $0.width,
                               height: $0.height, baseline: $0.baseline, rightToLeft: $0.rightToLeft, fonts: $0.fonts)
                  },
                  truncatedString: l.truncatedString, url: l.url)
    }
}

extension LoomError {
    init(_ e: Components.Schemas._Error, status: Int, retryAfter: Double? = nil) {
        self.init(status: status, code: e.error.code.rawValue, message: e.error.message, path: e.error.path,
                  retryAfter: retryAfter)
    }
}
