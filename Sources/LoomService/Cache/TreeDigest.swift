import LoomLayout

/// Canonical tree hashing, over the decoded tree with every default resolved, so the same
/// tree spelled differently (key order, whitespace, `50` vs `50.0`, defaults written or left
/// out) hashes the same, and any change that can change a frame changes the hash.
///
/// Each element is written as a canonical record (kind, the style fields that differ from
/// the defaults, the kind's fields, child count) in post-order. The request key is SHA-256
/// over all records (deterministic across replicas, collision-resistant, returned as
/// `X-Layout-Key`). Subtrees of at least `sharedSubtreeMinimumElements` elements below the
/// root also get a 128-bit digest for the shared subtree cache: SipHash-1-3 with a 128-bit
/// output (`SipHash128`), keyed with a random key per process, over the children's digests
/// and the subtree root's record, so clients can neither see nor aim at these keys. A text
/// node in such a subtree keeps its own digest (`TextNode.recordDigest`): the text measurer
/// keys its answers by it. Ids and image URLs
/// are not in any record (they never change a frame); the request key adds them
/// separately, so cells that differ only in them share measurements.
public enum TreeDigest {
    /// Subtrees at least this large are offered to the shared subtree cache.
    public static let sharedSubtreeMinimumElements = 6

    /// Digest every element and return the tree's SHA-256 (first 128 bits) and a digest of
    /// all ids and URLs (pre-order), which change the response but not the layout.
    ///
    /// It also stamps the tree for the layout that follows: the root of each subtree worth
    /// sharing gets its `LayoutElement.digest` (the engine's subtree cache key), and each
    /// text inside such a subtree its `TextNode.recordDigest` (the text measurer's key).
    /// Call it before laying the tree out with a subtree cache (`LayoutRequest.hashTree()`
    /// calls it once per request). `elementCount` (if known) sizes the record buffer once.
    /// `hasYoga`: whether any element may carry Yoga style fields (false skips looking).
    public static func compute(_ root: LayoutElement, elementCount: Int = 0, hasYoga: Bool = true) -> (tree: ElementDigest, ids: ElementDigest) {
        // Only subtrees below the root's children can be large enough to share, and only a
        // child with children of its own can hold one.
        let shareable = root.layoutChildren.contains { !$0.layoutChildren.isEmpty }
        var walk = RecordWalk(elementCount: elementCount, tracksSubtrees: shareable, hasYoga: hasYoga)
        walk.visit(root)
        let tree = walk.records.withUnsafeBytes { ElementDigest(SHA256.hash(data: $0)) }
        let ids = walk.ids.withUnsafeBytes { ElementDigest(SHA256.hash(data: $0)) }
        // A subtree too small to share has no large subtree inside either.
        var k = 1
        for child in shareable ? root.layoutChildren : [] {
            if walk.counts[k] >= sharedSubtreeMinimumElements { _ = walk.subtreeDigest(child, k) }
            k += walk.counts[k]
        }
        return (tree, ids)
    }
}

/// One walk over the tree: canonical records (post-order, into `records`), ids and URLs
/// (`ids`), and per element in pre-order its subtree size and where its record is.
private struct RecordWalk {
    var records = CanonicalBytes()
    var ids = CanonicalBytes()
    /// By pre-order index: elements in the subtree, and the record's byte range (kept only
    /// when some subtree may be shared).
    var counts: [Int] = []
    var recordRanges: [Range<Int>] = []
    let tracksSubtrees: Bool
    let hasYoga: Bool
    /// The subtree digests' key and the kind table, read once per walk rather than from
    /// their lazy globals per element.
    private let key = TreeDigestKey.key
    private let kinds = ElementKinds.shared
    /// The next element's pre-order index.
    private var next = 0

    init(elementCount: Int, tracksSubtrees: Bool, hasYoga: Bool) {
        self.tracksSubtrees = tracksSubtrees
        self.hasYoga = hasYoga
        // Most records are a kind byte, a two-byte style mask, a few values and a child count.
        records.reserve(Swift.max(1 << 12, elementCount * 64))
        if tracksSubtrees {
            counts.reserveCapacity(Swift.max(256, elementCount))
            recordRanges.reserveCapacity(Swift.max(256, elementCount))
        }
    }

    mutating func visit(_ e: LayoutElement) {
        let index = next
        next += 1
        if tracksSubtrees {
            counts.append(0)
            recordRanges.append(0 ..< 0)
        }
        // What changes the response but never a frame: ids and image URLs, length-prefixed
        // (they may hold any byte, so a terminator would let one id spell another's entries).
        let kind = kinds.kind(of: e)
        let id = e.id, url = kind.url(of: e)
        if id != nil || url != nil {
            ids.u64(UInt64(index))
            if let id { ids.byte(1); ids.string(id) }
            if let url { ids.byte(2); ids.string(url) }
        }
        let kids = e.layoutChildren
        kids.forEachUnretained { visit($0) }
        let start = records.count
        if hasYoga && kind.isNode { records.yogaStyle(of: e) }
        records.record(kind, e)
        records.count(kids.count)
        if tracksSubtrees {
            counts[index] = next - index
            recordRanges[index] = start ..< records.count
        }
    }

    /// The subtree digest of `e` (pre-order index `index`), stamping shared subtrees and
    /// the texts inside them.
    mutating func subtreeDigest(_ e: LayoutElement, _ index: Int) -> ElementDigest {
        var h = SipHash128(key: key)
        var k = index + 1
        e.layoutChildren.forEachUnretained { child in
            let d = subtreeDigest(child, k)
            h.combine(d.high)
            h.combine(d.low)
            k += counts[k]
        }
        records.withBytes(recordRanges[index]) { h.combine(bytes: $0) }
        let (high, low) = h.finalize()
        let digest = ElementDigest(high: high, low: low)
        if counts[index] >= TreeDigest.sharedSubtreeMinimumElements {
            e.digest = digest
        } else if ObjectIdentifier(type(of: e)) == ObjectIdentifier(TextNode.self) {
            // A text's record digest identifies its attributes: the text measurer keys its
            // answers by it instead of hashing and comparing them again.
            unsafeDowncast(e, to: TextNode.self).recordDigest = digest
        }
        return digest
    }
}

extension Array where Element == LayoutElement {
    /// `body` with each element, not retained (the array holds them): the walks call it
    /// once per element, and a retain and release per child was a large part of their cost.
    @inline(__always) func forEachUnretained(_ body: (LayoutElement) -> Void) {
        withUnsafeBufferPointer { elements in
            guard let base = elements.baseAddress else { return }
            let references = UnsafeRawPointer(base), stride = MemoryLayout<Unmanaged<LayoutElement>>.stride
            for k in 0 ..< elements.count {
                references.load(fromByteOffset: k &* stride, as: Unmanaged<LayoutElement>.self)._withUnsafeGuaranteedRef(body)
            }
        }
    }
}

/// The subtree digests' key (random per process).
private enum TreeDigestKey {
    static let key: SipHash128.Key = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
}

extension ElementDigest {
    init(_ d: SHA256.Digest) {
        var high: UInt64 = 0, low: UInt64 = 0
        d.withUnsafeBytes { raw in
            for k in 0..<8 { high = high << 8 | UInt64(raw[k]) }
            for k in 8..<16 { low = low << 8 | UInt64(raw[k]) }
        }
        self.init(high: high, low: low)
    }
}
