import Crypto
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

    /// Digest every element, mark the subtrees worth sharing, and return the tree's SHA-256
    /// (first 128 bits) and a digest of all ids and URLs (pre-order), which change the
    /// response but not the layout.
    /// `elementCount` (if known) sizes the record buffer once.
    public static func compute(_ root: LayoutElement, elementCount: Int = 0) -> (tree: ElementDigest, ids: ElementDigest) {
        // Only subtrees below the root's children can be large enough to share, and only a
        // child with children of its own can hold one.
        let shareable = root.layoutChildren.contains { !$0.layoutChildren.isEmpty }
        var walk = RecordWalk(elementCount: elementCount, tracksSubtrees: shareable)
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
    /// The subtree digests' key, read once per walk rather than from its lazy global per subtree.
    private let key = TreeDigestKey.key
    /// The next element's pre-order index.
    private var next = 0

    init(elementCount: Int, tracksSubtrees: Bool) {
        self.tracksSubtrees = tracksSubtrees
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
        let url = ObjectIdentifier(type(of: e)) == ObjectIdentifier(ImageNode.self) ? unsafeDowncast(e, to: ImageNode.self).url : nil
        if e.id != nil || url != nil {
            ids.u64(UInt64(index))
            if let id = e.id { ids.byte(1); ids.string(id) }
            if let url { ids.byte(2); ids.string(url) }
        }
        let kids = e.layoutChildren
        for child in kids { visit(child) }
        let start = records.count
        Self.record(e, &records)
        records.count(kids.count)
        if tracksSubtrees {
            counts[index] = next - index
            recordRanges[index] = start ..< records.count
        }
    }

    /// The subtree digest of `e` (pre-order index `index`), marking shared subtrees.
    mutating func subtreeDigest(_ e: LayoutElement, _ index: Int) -> ElementDigest {
        var h = SipHash128(key: key)
        var k = index + 1
        for child in e.layoutChildren {
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

    /// The layout-relevant fields of one element.
    static func record(_ e: LayoutElement, _ w: inout CanonicalBytes) {
        let kind = ObjectIdentifier(type(of: e))
        if kind == ObjectIdentifier(DisplayNode.self) {
            let n = unsafeDowncast(e, to: DisplayNode.self)
            // The most common record, written at one pointer: kind, style, size, spec flag.
            w.fixed(1 + w.styleRoom + CanonicalBytes.maxOptionalSizeBytes + 1) { p in
                CanonicalBytes.putByte(1, &p)
                CanonicalBytes.style(e.style, &p)
                CanonicalBytes.putOptionalSize(n.intrinsicSize, &p)
                CanonicalBytes.putByte(n.layoutSpec != nil ? 1 : 0, &p)
            }
        } else if kind == ObjectIdentifier(StackLayoutSpec.self) {
            let s = unsafeDowncast(e, to: StackLayoutSpec.self)
            w.byte(2); w.style(e.style)
            w.name(s.direction.rawValue); w.double(s.spacing); w.name(s.justifyContent.rawValue)
            w.name(s.alignItems.rawValue); w.name(s.flexWrap.rawValue); w.name(s.alignContent.rawValue)
            w.double(s.lineSpacing)
            // `concurrent` and the alignment sugar never change a frame (the effective
            // justify/alignItems above already include the alignments).
        } else if kind == ObjectIdentifier(InsetLayoutSpec.self) {
            w.byte(3); w.style(e.style); w.insets(unsafeDowncast(e, to: InsetLayoutSpec.self).insets)
        } else if kind == ObjectIdentifier(ImageNode.self) {
            w.byte(4); w.style(e.style); w.optionalSize(unsafeDowncast(e, to: ImageNode.self).intrinsicSize)
        } else if kind == ObjectIdentifier(TextNode.self) {
            let n = unsafeDowncast(e, to: TextNode.self)
            w.byte(5); w.style(e.style); w.text(n.attributes); w.insets(n.textContainerInset)
        } else if kind == ObjectIdentifier(OverlayLayoutSpec.self) {
            w.byte(6); w.style(e.style)
        } else if kind == ObjectIdentifier(BackgroundLayoutSpec.self) {
            w.byte(7); w.style(e.style)
        } else if kind == ObjectIdentifier(RatioLayoutSpec.self) {
            w.byte(8); w.style(e.style); w.double(unsafeDowncast(e, to: RatioLayoutSpec.self).ratio)
        } else if kind == ObjectIdentifier(CenterLayoutSpec.self) {
            let s = unsafeDowncast(e, to: CenterLayoutSpec.self)
            w.byte(9); w.style(e.style); w.name(s.centeringOptions.rawValue); w.name(s.sizingOptions.rawValue)
        } else if kind == ObjectIdentifier(RelativeLayoutSpec.self) {
            let s = unsafeDowncast(e, to: RelativeLayoutSpec.self)
            w.byte(10); w.style(e.style)
            w.name(s.horizontalPosition.rawValue); w.name(s.verticalPosition.rawValue); w.u64(UInt64(s.sizingOption.rawValue))
        } else if kind == ObjectIdentifier(AbsoluteLayoutSpec.self) {
            // `static` is answered with its own type name, so it is its own kind.
            let s = unsafeDowncast(e, to: AbsoluteLayoutSpec.self)
            w.byte(11); w.style(e.style); w.name(s.sizing.rawValue); w.name(s.typeName)
        } else if kind == ObjectIdentifier(CornerLayoutSpec.self) {
            let s = unsafeDowncast(e, to: CornerLayoutSpec.self)
            w.byte(12); w.style(e.style)
            w.name(s.cornerLocation.rawValue); w.double(s.offset.x); w.double(s.offset.y); w.byte(s.wrapsCorner ? 1 : 0)
        } else if kind == ObjectIdentifier(ButtonNode.self) {
            let n = unsafeDowncast(e, to: ButtonNode.self)
            w.byte(13); w.style(e.style)
            w.double(n.contentSpacing); w.byte(n.laysOutHorizontally ? 1 : 0)
            w.name(n.contentHorizontalAlignment.rawValue); w.name(n.contentVerticalAlignment.rawValue)
            w.insets(n.contentEdgeInsets); w.name(n.imageAlignment.rawValue)
            w.byte(n.titleNode != nil ? 1 : 0); w.byte(n.imageNode != nil ? 1 : 0)
        } else {
            // Specs without fields of their own (wrapper, spacer, the button's inner stack …).
            w.byte(0); w.style(e.style); w.name(e.typeName)
        }
    }
}

/// The subtree digests' key (random per process).
private enum TreeDigestKey {
    static let key: SipHash128.Key = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
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

/// Canonical bytes: fixed-width little-endian numbers, length-prefixed strings. A growable
/// buffer written through a pointer (records are written a few bytes at a time, per element).
struct CanonicalBytes {
    private final class Storage {
        var base: UnsafeMutablePointer<UInt8>
        var capacity: Int
        init(_ capacity: Int) { base = .allocate(capacity: capacity); self.capacity = capacity }
        deinit { base.deallocate() }
    }
    private let storage = Storage(256)
    private(set) var count = 0
    /// `maxStyleBytes`, read once per buffer: it is computed (a lazy global), and each read
    /// of it checks that it was made.
    let styleRoom = CanonicalBytes.maxStyleBytes

    mutating func reserve(_ n: Int) { if n > storage.capacity { grow(to: n) } }
    private func grow(to n: Int) {
        let capacity = Swift.max(n, storage.capacity * 2)
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        base.update(from: storage.base, count: count)
        storage.base.deallocate()
        storage.base = base
        storage.capacity = capacity
    }
    /// Room for `n` more bytes; returns where they go.
    @inline(__always) private mutating func claim(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if count + n > storage.capacity { grow(to: count + n) }
        let p = storage.base + count
        count += n
        return p
    }
    @inline(__always) mutating func byte(_ b: UInt8) { claim(1).pointee = b }
    @inline(__always) mutating func u64(_ v: UInt64) {
        UnsafeMutableRawPointer(claim(8)).storeBytes(of: v.littleEndian, as: UInt64.self)
    }
    /// A whole number in [-2^31, 2^31) as a tag and 4 bytes, anything else as a tag and its
    /// bit pattern, with -0 folded into +0 (they lay out identically): one spelling per value,
    /// and sizes and factors, mostly whole, hash in half the bytes.
    @inline(__always) mutating func double(_ v: Double) { fixed(9) { Self.putDouble(v, &$0) } }
    /// A count, 7 bits a byte (LEB128).
    @inline(__always) mutating func count(_ n: Int) {
        var v = UInt(n)
        while v >= 0x80 { byte(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        byte(UInt8(v))
    }
    private mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) {
        guard let source = b.baseAddress, b.count > 0 else { return }
        claim(b.count).update(from: source, count: b.count)
    }
    mutating func string(_ s: String) {
        u64(UInt64(s.utf8.count))
        var s = s
        s.withUTF8 { bytes($0) }
    }
    /// A short name (enum raw values, type names).
    mutating func name(_ s: String) { fixed(1 + s.utf8.count) { Self.putName(s, &$0) } }
    mutating func insets(_ e: EdgeInsets) {
        fixed(4 * 9) { p in
            Self.putDouble(e.top, &p); Self.putDouble(e.left, &p); Self.putDouble(e.bottom, &p); Self.putDouble(e.right, &p)
        }
    }
    mutating func optionalSize(_ s: Size?) { fixed(Self.maxOptionalSizeBytes) { Self.putOptionalSize(s, &$0) } }
    mutating func font(_ f: FontDescriptor) { lowercased(f.family); double(f.size); u64(UInt64(f.weight)); byte(f.italic ? 1 : 0) }
    /// `string(s.lowercased())` (families match case-insensitively), an ASCII name
    /// lowercased straight into the buffer.
    private mutating func lowercased(_ s: String) {
        var s = s
        let done = s.withUTF8 { utf8 -> Bool in
            guard utf8.allSatisfy({ $0 < 0x80 }) else { return false }
            u64(UInt64(utf8.count))
            guard utf8.count > 0 else { return true }
            let out = claim(utf8.count)
            for (k, b) in utf8.enumerated() { out[k] = b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
            return true
        }
        if !done { string(s.lowercased()) }
    }

    /// The style fields that differ from the defaults: a bit mask, then their values.
    /// Written through one pointer after one capacity check (every element has a style: a
    /// check and a store of `count` per value was most of the records' cost).
    mutating func style(_ s: LayoutElementStyle) {
        fixed(styleRoom) { p in Self.style(s, &p) }
    }

    /// The most bytes `style` writes: the mask, seven dimensions, six numbers, alignSelf's
    /// name (the longest value's), two coordinates.
    static let maxStyleBytes = 2 + 7 * 10 + 6 * 9 + (1 + AlignSelf.allCases.map(\.rawValue.utf8.count).max()!) + 2 * 9
    /// The most bytes `optionalSize` writes: a flag, two numbers.
    static let maxOptionalSizeBytes = 1 + 2 * 9

    /// Up to `maxBytes` written at a pointer, `count` advanced once.
    @inline(__always) mutating func fixed(_ maxBytes: Int, _ write: (inout UnsafeMutablePointer<UInt8>) -> Void) {
        if count + maxBytes > storage.capacity { grow(to: count + maxBytes) }
        let start = storage.base + count
        var p = start
        write(&p)
        count += p - start
    }

    @inline(__always) static func putByte(_ b: UInt8, _ p: inout UnsafeMutablePointer<UInt8>) {
        p.pointee = b
        p += 1
    }
    /// `double(_:)`'s bytes at a pointer.
    @inline(__always) static func putDouble(_ v: Double, _ p: inout UnsafeMutablePointer<UInt8>) {
        // In range (NaN is not), the conversion truncates; it is whole when it converts back
        // (a conversion and a compare, where `rounded(.towardZero)` is a call into libm).
        if v >= -2_147_483_648 && v < 2_147_483_648 && Double(Int32(v)) == v {
            p.pointee = 0xF0
            UnsafeMutableRawPointer(p + 1).storeBytes(of: Int32(v).littleEndian, as: Int32.self)
            p += 5
        } else {
            p.pointee = 0xF1
            UnsafeMutableRawPointer(p + 1).storeBytes(of: v.bitPattern.littleEndian, as: UInt64.self)
            p += 9
        }
    }
    /// A dimension: a tag (auto, points, fraction), then its value.
    @inline(__always) static func putDimension(_ d: Dimension, _ p: inout UnsafeMutablePointer<UInt8>) {
        switch d {
        case .auto: putByte(0, &p)
        case .points(let v): putByte(1, &p); putDouble(v, &p)
        case .fraction(let v): putByte(2, &p); putDouble(v, &p)
        }
    }
    /// `name(_:)`'s bytes at a pointer: the length in one byte, then the bytes.
    @inline(__always) static func putName(_ s: String, _ p: inout UnsafeMutablePointer<UInt8>) {
        var s = s
        s.withUTF8 { utf8 in
            putByte(UInt8(truncatingIfNeeded: utf8.count), &p)
            if let base = utf8.baseAddress { p.update(from: base, count: utf8.count) }
            p += utf8.count
        }
    }

    /// `optionalSize(_:)`'s bytes at a pointer.
    @inline(__always) static func putOptionalSize(_ s: Size?, _ p: inout UnsafeMutablePointer<UInt8>) {
        guard let s else { return putByte(0, &p) }
        putByte(1, &p); putDouble(s.width, &p); putDouble(s.height, &p)
    }

    static func style(_ s: LayoutElementStyle, _ p: inout UnsafeMutablePointer<UInt8>) {
        var mask: UInt16 = 0
        if !s.width.isAuto { mask |= 1 << 0 }
        if !s.height.isAuto { mask |= 1 << 1 }
        if !s.minWidth.isAuto { mask |= 1 << 2 }
        if !s.maxWidth.isAuto { mask |= 1 << 3 }
        if !s.minHeight.isAuto { mask |= 1 << 4 }
        if !s.maxHeight.isAuto { mask |= 1 << 5 }
        if s.flexGrow != 0 { mask |= 1 << 6 }
        if s.flexShrink != 0 { mask |= 1 << 7 }
        if !s.flexBasis.isAuto { mask |= 1 << 8 }
        if s.alignSelf != .auto { mask |= 1 << 9 }
        if s.spacingBefore != 0 { mask |= 1 << 10 }
        if s.spacingAfter != 0 { mask |= 1 << 11 }
        if s.ascender != 0 { mask |= 1 << 12 }
        if s.descender != 0 { mask |= 1 << 13 }
        if s.layoutPosition.x != 0 || s.layoutPosition.y != 0 { mask |= 1 << 14 }
        putByte(UInt8(mask & 0xFF), &p); putByte(UInt8(mask >> 8), &p)
        if mask == 0 { return }
        if mask & (1 << 0) != 0 { putDimension(s.width, &p) }
        if mask & (1 << 1) != 0 { putDimension(s.height, &p) }
        if mask & (1 << 2) != 0 { putDimension(s.minWidth, &p) }
        if mask & (1 << 3) != 0 { putDimension(s.maxWidth, &p) }
        if mask & (1 << 4) != 0 { putDimension(s.minHeight, &p) }
        if mask & (1 << 5) != 0 { putDimension(s.maxHeight, &p) }
        if mask & (1 << 6) != 0 { putDouble(s.flexGrow, &p) }
        if mask & (1 << 7) != 0 { putDouble(s.flexShrink, &p) }
        if mask & (1 << 8) != 0 { putDimension(s.flexBasis, &p) }
        if mask & (1 << 9) != 0 { putName(s.alignSelf.rawValue, &p) }
        if mask & (1 << 10) != 0 { putDouble(s.spacingBefore, &p) }
        if mask & (1 << 11) != 0 { putDouble(s.spacingAfter, &p) }
        if mask & (1 << 12) != 0 { putDouble(s.ascender, &p) }
        if mask & (1 << 13) != 0 { putDouble(s.descender, &p) }
        if mask & (1 << 14) != 0 { putDouble(s.layoutPosition.x, &p); putDouble(s.layoutPosition.y, &p) }
    }

    mutating func text(_ a: TextAttributes) {
        u64(UInt64(a.spans.count))
        for span in a.spans {
            string(span.text)
            if let f = span.font { byte(1); font(f) } else { byte(0) }
            if let l = span.letterSpacing { byte(1); double(l) } else { byte(0) }
        }
        font(a.font)
        if let lh = a.lineHeight { byte(1); double(lh) } else { byte(0) }
        double(a.lineSpacing); double(a.letterSpacing); name(a.alignment.rawValue)
        u64(UInt64(a.maximumNumberOfLines)); name(a.truncationMode.rawValue); string(a.truncationText)
    }

    func withBytes<T>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        body(UnsafeRawBufferPointer(start: storage.base + range.lowerBound, count: range.count))
    }
    func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        body(UnsafeRawBufferPointer(start: storage.base, count: count))
    }
}
