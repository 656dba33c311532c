import LoomLayout

/// A decoded `LayoutRequest`: the element tree and everything that changes its answer.
public final class LayoutRequest {
    public let sizeRange: SizeRange
    public let root: LayoutElement
    public let scale: Double
    public let includeSpecs: Bool
    /// Whether text nodes carry their laid-out lines (`options.includeText`).
    public let includeText: Bool
    /// What the response holds (`options.output`).
    public let output: ResponseOutput
    /// Elements decoded (button internals excluded).
    public let elementCount: Int
    /// Whether the tree holds text (needs the text measurer and the font set in its key).
    public let hasText: Bool
    /// UTF-8 bytes of every text in the tree (spans and truncation texts): part of its budget.
    public let textBytes: Int
    /// Whether some element has Yoga style fields.
    public let hasYoga: Bool
    /// `hashTree()`'s answer, once it has been asked.
    private var treeDigests: (tree: ElementDigest, ids: ElementDigest)?

    init(sizeRange: SizeRange, root: LayoutElement, scale: Double, includeSpecs: Bool, includeText: Bool = false,
         output: ResponseOutput = .both, elementCount: Int, hasText: Bool, textBytes: Int, hasYoga: Bool) {
        self.sizeRange = sizeRange; self.root = root; self.scale = scale; self.includeSpecs = includeSpecs; self.output = output
        self.includeText = includeText
        self.elementCount = elementCount; self.hasText = hasText; self.textBytes = textBytes; self.hasYoga = hasYoga
    }

    /// The tree's canonical digests (`TreeDigest.compute`): the response key's tree and ids
    /// parts. Hashing also stamps the subtree cache's keys on the tree's shareable subtrees,
    /// so call it before a layout that uses the subtree cache. The tree is hashed by the
    /// first call; later calls return the same digests.
    @discardableResult
    public func hashTree() -> (tree: ElementDigest, ids: ElementDigest) {
        if let treeDigests { return treeDigests }
        let digests = TreeDigest.compute(root, elementCount: elementCount, hasYoga: hasYoga)
        treeDigests = digests
        return digests
    }
}

/// What a JSON response holds besides `size` (`options.output`): the `layout` tree, the
/// `frames` map, or both (the default). A client that reads one does not pay for the other.
public enum ResponseOutput: String, CaseIterable, Sendable {
    case both, layout, frames
    var hasLayout: Bool { self != .frames }
    var hasFrames: Bool { self != .layout }
}

/// Limits a decode enforces (over a limit: 413 `too_large`).
public struct DecodeLimits: Sendable {
    /// Element nesting depth.
    public var maxDepth: Int
    /// Elements in one request.
    public var maxNodes: Int
    /// UTF-8 bytes of one text (its `text`, or all its spans).
    public var maxTextBytes: Int
    public init(maxDepth: Int = 512, maxNodes: Int = 100_000, maxTextBytes: Int = 100_000) {
        self.maxDepth = maxDepth; self.maxNodes = maxNodes; self.maxTextBytes = maxTextBytes
    }
    /// No limits beyond memory (benchmarks).
    public static let unlimited = DecodeLimits(maxDepth: 1 << 30, maxNodes: Int.max, maxTextBytes: Int.max)
    /// JSON nesting allowed for an element depth: two JSON levels per element level
    /// (`children` array + element object) plus room for styles and the envelope.
    var jsonNesting: Int { maxDepth >= (1 << 29) ? Int.max : 2 * maxDepth + 8 }
    /// The same inside a batch body (`{"items": [ … ]}` adds two levels).
    var batchNesting: Int { jsonNesting == Int.max ? Int.max : jsonNesting + 2 }
}
