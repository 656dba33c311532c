import Crypto
import LoomLayout

/// Canonical tree hashing. Each element's digest is SHA-256 over its decoded, defaults-
/// resolved fields and its children's digests (a Merkle tree), so the same tree spelled
/// differently (key order, whitespace, `50` vs `50.0`, defaults written or left out) has
/// the same digest, and any change that can change a frame changes it. Ids and image URLs are
/// not part of an element's digest (they never change a frame); the request key adds them
/// separately, so subtrees that differ only in them share measurements.
public enum TreeDigest {
    /// Subtrees at least this large are offered to the shared subtree cache.
    public static let sharedSubtreeMinimumElements = 6

    /// Digest every element, mark the ones worth sharing, and return the root's digest and
    /// a digest of all ids and URLs (pre-order), which change the response but not the layout.
    public static func compute(_ root: LayoutElement) -> (tree: ElementDigest, ids: ElementDigest) {
        var writer = DigestWriter()
        var ids = SHA256()
        var preorder: UInt64 = 0
        let (digest, _) = visit(root, &writer, &ids, &preorder, isRoot: true)
        return (digest, ElementDigest(ids.finalize()))
    }

    private static func visit(_ e: LayoutElement, _ w: inout DigestWriter, _ ids: inout SHA256,
                              _ preorder: inout UInt64, isRoot: Bool) -> (ElementDigest, Int) {
        // What changes the response but never a frame: ids and image URLs.
        let url = (e as? ImageNode)?.url
        if e.id != nil || url != nil {
            var idx = preorder
            withUnsafeBytes(of: &idx) { ids.update(bufferPointer: $0) }
            if let id = e.id { ids.update(data: [1]); ids.update(data: Array(id.utf8)); ids.update(data: [0]) }
            if let url { ids.update(data: [2]); ids.update(data: Array(url.utf8)); ids.update(data: [0]) }
        }
        preorder &+= 1
        var childDigests: [ElementDigest] = []
        var count = 1
        let kids = e.layoutChildren
        childDigests.reserveCapacity(kids.count)
        for child in kids {
            let (d, n) = visit(child, &w, &ids, &preorder, isRoot: false)
            childDigests.append(d)
            count += n
        }
        w.reset()
        w.string(e.typeName)
        w.style(e.style)
        fields(e, &w)
        w.int(childDigests.count)
        for d in childDigests { w.u64(d.high); w.u64(d.low) }
        let digest = w.finish()
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
    func finish() -> ElementDigest { ElementDigest(SHA256.hash(data: buffer)) }
}
