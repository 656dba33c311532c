import Crypto
import LoomLayout

/// Canonical tree hashing, over the decoded tree with every default resolved, so the same
/// tree spelled differently (key order, whitespace, `50` vs `50.0`, defaults written or left
/// out) hashes the same, and any change that can change a frame changes the hash.
///
/// Each element is written as a canonical record (type, style, fields, child count) in
/// post-order. The request key is SHA-256 over all records (deterministic across replicas,
/// collision-resistant, returned as `X-Layout-Key`). Each subtree also gets a 128-bit digest
/// for the shared subtree cache: SipHash (Swift's `Hasher`, keyed with this process's
/// random seed) over its record and its children's digests, so clients can neither see nor
/// aim at these keys. Ids and image URLs are not in any record (they never change a
/// frame); the request key adds them separately, so cells that differ only in them share
/// measurements.
public enum TreeDigest {
    /// Subtrees at least this large are offered to the shared subtree cache.
    public static let sharedSubtreeMinimumElements = 6

    /// Two independent streams for a 128-bit subtree digest.
    private static let salts: (UInt64, UInt64) = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))

    /// Digest every element, mark the ones worth sharing, and return the tree's SHA-256
    /// (first 128 bits) and a digest of all ids and URLs (pre-order), which change the
    /// response but not the layout.
    public static func compute(_ root: LayoutElement) -> (tree: ElementDigest, ids: ElementDigest) {
        var writer = DigestWriter()
        var tree: [UInt8] = []
        tree.reserveCapacity(4096)
        var ids = SHA256()
        var preorder: UInt64 = 0
        _ = visit(root, &writer, &tree, &ids, &preorder, isRoot: true)
        return (ElementDigest(SHA256.hash(data: tree)), ElementDigest(ids.finalize()))
    }

    private static func visit(_ e: LayoutElement, _ w: inout DigestWriter, _ tree: inout [UInt8], _ ids: inout SHA256,
                              _ preorder: inout UInt64, isRoot: Bool) -> (ElementDigest, Int) {
        // What changes the response but never a frame: ids and image URLs.
        let url = (e as? ImageNode)?.url
        if e.id != nil || url != nil {
            var idx = preorder
            withUnsafeBytes(of: &idx) { ids.update(bufferPointer: $0) }
            // Length-prefixed: ids and URLs may contain any byte (\u0000 included), so a
            // terminator alone would let one crafted id spell another tree's id + URL entries.
            func put(_ tag: UInt8, _ s: String) {
                var n = UInt64(s.utf8.count).littleEndian
                ids.update(data: [tag])
                withUnsafeBytes(of: &n) { ids.update(bufferPointer: $0) }
                ids.update(data: Array(s.utf8))
            }
            if let id = e.id { put(1, id) }
            if let url { put(2, url) }
        }
        preorder &+= 1
        let kids = e.layoutChildren
        var h1 = Hasher(), h2 = Hasher()
        h1.combine(salts.0)
        h2.combine(salts.1)
        var count = 1
        for child in kids {
            let (d, n) = visit(child, &w, &tree, &ids, &preorder, isRoot: false)
            h1.combine(d.high); h1.combine(d.low)
            h2.combine(d.high); h2.combine(d.low)
            count += n
        }
        w.reset()
        w.string(e.typeName)
        w.style(e.style)
        fields(e, &w)
        w.int(kids.count)
        w.withBytes { bytes in
            tree.append(contentsOf: bytes)
            h1.combine(bytes: bytes)
            h2.combine(bytes: bytes)
        }
        let digest = ElementDigest(high: UInt64(bitPattern: Int64(h1.finalize())), low: UInt64(bitPattern: Int64(h2.finalize())))
        e.digest = (!isRoot && count >= sharedSubtreeMinimumElements) ? digest : nil
        return (digest, count)
    }

    /// The layout-relevant fields of each element kind.
    private static func fields(_ e: LayoutElement, _ w: inout DigestWriter) {
        switch e {
        case let s as StackLayoutSpec:
            w.string(s.direction.rawValue); w.double(s.spacing); w.string(s.justifyContent.rawValue)
            w.string(s.alignItems.rawValue); w.string(s.flexWrap.rawValue); w.string(s.alignContent.rawValue)
            w.double(s.lineSpacing)
            // `concurrent` and the alignment sugar never change a frame (the effective
            // justify/alignItems above already include the alignments).
        case let s as InsetLayoutSpec:
            w.insets(s.insets)
        case let s as CenterLayoutSpec:
            w.string(s.centeringOptions.rawValue); w.string(s.sizingOptions.rawValue)
        case let s as RelativeLayoutSpec:
            w.string(s.horizontalPosition.rawValue); w.string(s.verticalPosition.rawValue); w.int(s.sizingOption.rawValue)
        case let s as RatioLayoutSpec:
            w.double(s.ratio)
        case let s as AbsoluteLayoutSpec:
            w.string(s.sizing.rawValue)
        case let s as CornerLayoutSpec:
            w.string(s.cornerLocation.rawValue); w.double(s.offset.x); w.double(s.offset.y); w.bool(s.wrapsCorner)
        case let n as TextNode:
            w.text(n.attributes); w.insets(n.textContainerInset)
        case let n as ButtonNode:
            w.double(n.contentSpacing); w.bool(n.laysOutHorizontally)
            w.string(n.contentHorizontalAlignment.rawValue); w.string(n.contentVerticalAlignment.rawValue)
            w.insets(n.contentEdgeInsets); w.string(n.imageAlignment.rawValue)
            w.bool(n.titleNode != nil); w.bool(n.imageNode != nil)
        case let n as ImageNode:
            w.optionalSize(n.intrinsicSize)
        case let n as DisplayNode:
            w.optionalSize(n.intrinsicSize); w.bool(n.layoutSpec != nil)
        default:
            break
        }
    }
}

extension ElementDigest {
    init<D: Digest>(_ d: D) {
        var high: UInt64 = 0, low: UInt64 = 0
        d.withUnsafeBytes { raw in
            for k in 0..<8 { high = high << 8 | UInt64(raw[k]) }
            for k in 8..<16 { low = low << 8 | UInt64(raw[k]) }
        }
        self.init(high: high, low: low)
    }
}

/// Canonical bytes of one element, hashed with SHA-256.
struct DigestWriter {
    private var buffer: [UInt8] = []
    init() { buffer.reserveCapacity(256) }
    mutating func reset() { buffer.removeAll(keepingCapacity: true) }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }
    mutating func int(_ v: Int) { u64(UInt64(bitPattern: Int64(v))) }
    /// Bit pattern with -0 folded into +0 (they lay out identically).
    mutating func double(_ v: Double) { u64(v == 0 ? 0 : v.bitPattern) }
    mutating func bool(_ v: Bool) { buffer.append(v ? 1 : 0) }
    mutating func string(_ s: String) { int(s.utf8.count); buffer.append(contentsOf: s.utf8) }
    mutating func dimension(_ d: Dimension) {
        switch d {
        case .auto: buffer.append(0)
        case .points(let v): buffer.append(1); double(v)
        case .fraction(let v): buffer.append(2); double(v)
        }
    }
    mutating func insets(_ e: EdgeInsets) { double(e.top); double(e.left); double(e.bottom); double(e.right) }
    mutating func optionalSize(_ s: Size?) {
        if let s { bool(true); double(s.width); double(s.height) } else { bool(false) }
    }
    mutating func font(_ f: FontDescriptor) { string(f.family.lowercased()); double(f.size); int(f.weight); bool(f.italic) }
    mutating func style(_ s: LayoutElementStyle) {
        dimension(s.width); dimension(s.height); dimension(s.minWidth); dimension(s.maxWidth)
        dimension(s.minHeight); dimension(s.maxHeight); double(s.flexGrow); double(s.flexShrink)
        dimension(s.flexBasis); string(s.alignSelf.rawValue); double(s.spacingBefore); double(s.spacingAfter)
        double(s.ascender); double(s.descender); double(s.layoutPosition.x); double(s.layoutPosition.y)
    }
    mutating func text(_ a: TextAttributes) {
        int(a.spans.count)
        for span in a.spans {
            string(span.text)
            if let f = span.font { bool(true); font(f) } else { bool(false) }
            if let l = span.letterSpacing { bool(true); double(l) } else { bool(false) }
        }
        font(a.font)
        if let lh = a.lineHeight { bool(true); double(lh) } else { bool(false) }
        double(a.lineSpacing); double(a.letterSpacing); string(a.alignment.rawValue)
        int(a.maximumNumberOfLines); string(a.truncationMode.rawValue); string(a.truncationText)
    }
    func withBytes(_ body: (UnsafeRawBufferPointer) -> Void) { buffer.withUnsafeBytes(body) }
}
