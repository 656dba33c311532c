import LoomLayout

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
    /// A short name (enum raw values, kind names): its length in one byte, then its bytes.
    mutating func name(_ s: String) { fixed(1 + s.utf8.count) { Self.putName(s, &$0) } }
    mutating func name(_ s: StaticString) {
        fixed(1 + s.utf8CodeUnitCount) { p in
            Self.putByte(UInt8(truncatingIfNeeded: s.utf8CodeUnitCount), &p)
            p.update(from: s.utf8Start, count: s.utf8CodeUnitCount)
            p += s.utf8CodeUnitCount
        }
    }
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

    /// Yoga style fields that differ from the defaults: tag 14 (no other record has it), a
    /// bit mask, their values; nothing at all when every field is a default.
    /// As `fixed`, written out: a borrowed style cannot be captured by its closure.
    mutating func yoga(_ s: borrowing YogaStyle) {
        if count + Self.maxYogaBytes > storage.capacity { grow(to: count + Self.maxYogaBytes) }
        let start = storage.base + count
        var p = start
        Self.putYoga(s, &p)
        count += p - start
    }

    /// The most bytes `yoga` writes: tag, mask, six names, four edges, a number.
    static let maxYogaBytes: Int = {
        func longest<E: RawRepresentable & CaseIterable>(_: E.Type) -> Int where E.RawValue == String {
            1 + E.allCases.map(\.rawValue.utf8.count).max()!
        }
        return 3 + longest(YogaFlexDirection.self) + longest(YogaDirection.self) + longest(StackLayoutJustifyContent.self)
            + longest(StackLayoutAlignItems.self) + longest(YogaWrap.self) + longest(YogaPositionType.self)
            + 4 * (2 + 9 * 10) + 9
    }()

    static func putYoga(_ s: borrowing YogaStyle, _ p: inout UnsafeMutablePointer<UInt8>) {
        var mask: UInt16 = 0
        if s.flexDirection != .vertical { mask |= 1 << 0 }
        if s.direction != .inherit { mask |= 1 << 1 }
        if s.justifyContent != .start { mask |= 1 << 2 }
        if s.alignItems != .stretch { mask |= 1 << 3 }
        if s.flexWrap != .noWrap { mask |= 1 << 4 }
        if s.positionType != .relative { mask |= 1 << 5 }
        if isSet(s.position) { mask |= 1 << 6 }
        if isSet(s.margin) { mask |= 1 << 7 }
        if isSet(s.padding) { mask |= 1 << 8 }
        if isSet(s.border) { mask |= 1 << 9 }
        if s.aspectRatio != nil { mask |= 1 << 10 }
        if mask == 0 { return }
        putByte(14, &p)
        putByte(UInt8(mask & 0xFF), &p); putByte(UInt8(mask >> 8), &p)
        if mask & (1 << 0) != 0 { putName(s.flexDirection.rawValue, &p) }
        if mask & (1 << 1) != 0 { putName(s.direction.rawValue, &p) }
        if mask & (1 << 2) != 0 { putName(s.justifyContent.rawValue, &p) }
        if mask & (1 << 3) != 0 { putName(s.alignItems.rawValue, &p) }
        if mask & (1 << 4) != 0 { putName(s.flexWrap.rawValue, &p) }
        if mask & (1 << 5) != 0 { putName(s.positionType.rawValue, &p) }
        if mask & (1 << 6) != 0 { putEdges(s.position, &p) }
        if mask & (1 << 7) != 0 { putEdges(s.margin, &p) }
        if mask & (1 << 8) != 0 { putEdges(s.padding, &p) }
        if mask & (1 << 9) != 0 { putEdges(s.border, &p) }
        if let ratio = s.aspectRatio { putDouble(ratio, &p) }
    }

    /// Whether any side is set (`auto` is unset).
    private static func isSet(_ e: YogaEdges) -> Bool { !e.isEmpty }

    /// The sides that are set: their bit mask (one bit per side, in the order top, left,
    /// bottom, right, start, end, horizontal, vertical, all), then their dimensions.
    private static func putEdges(_ e: YogaEdges, _ p: inout UnsafeMutablePointer<UInt8>) {
        let mask = e.setSides
        putByte(UInt8(mask & 0xFF), &p); putByte(UInt8(mask >> 8), &p)
        for i in 0..<9 where mask & (1 << UInt16(i)) != 0 { putDimension(e[YogaEdges.Side(rawValue: i)!]!, &p) }
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
