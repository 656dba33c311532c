/// The memos of one pass (`YogaLayoutPass.layoutNode`): what a container's full layout or
/// measurement left, by the inputs of the call, so that the same call again in the same pass
/// is answered without laying the subtree out again.

/// The inputs of one call that lays a node out (bitwise).
struct YogaLayoutKey: Hashable {
    let bits: (UInt32, UInt32, UInt32, UInt32)
    let modes: Int16
    let direction: Int8
    init(_ aw: Float, _ ah: Float, _ ow: Float, _ oh: Float, _ wm: YogaMeasureMode, _ hm: YogaMeasureMode, _ d: YogaResolvedDirection) {
        bits = (aw.bitPattern, ah.bitPattern, ow.bitPattern, oh.bitPattern)
        modes = Int16(wm.rawValue) << 8 | Int16(hm.rawValue)
        direction = d.rawValue
    }
    @inline(__always) static func == (a: YogaLayoutKey, b: YogaLayoutKey) -> Bool {
        a.bits == b.bits && a.modes == b.modes && a.direction == b.direction
    }
    func hash(into h: inout Hasher) {
        h.combine(UInt64(bits.0) << 32 | UInt64(bits.1))
        h.combine(UInt64(bits.2) << 32 | UInt64(bits.3))
        h.combine(Int32(modes) << 8 | Int32(direction))
    }
}

/// A few results by key: scanned in order while small (a node is mostly called with one or
/// two inputs per pass), indexed by a dictionary once it grows past `linearLimit`.
struct YogaMemoTable<Value> {
    /// A struct rather than a tuple: an array of tuples is copied and moved through the
    /// runtime's generic tuple functions, an array of structs by inlined code.
    private struct Entry {
        let key: YogaLayoutKey
        var value: Value
    }
    private var entries: [Entry] = []
    private var index: [YogaLayoutKey: Int]?
    private static var linearLimit: Int { 8 }

    @inline(__always) func find(_ key: YogaLayoutKey) -> Value? {
        if let index { return index[key].map { entries[$0].value } }
        for e in entries where e.key == key { return e.value }
        return nil
    }

    mutating func set(_ key: YogaLayoutKey, _ value: Value) {
        let at = index != nil ? index![key] : entries.firstIndex { $0.key == key }
        if let at {
            entries[at].value = value
            return
        }
        entries.append(Entry(key: key, value: value))
        if index != nil {
            index![key] = entries.count - 1
        } else if entries.count > YogaMemoTable.linearLimit {
            var made: [YogaLayoutKey: Int] = [:]
            made.reserveCapacity(entries.count * 2)
            for (i, e) in entries.enumerated() { made[e.key] = i }
            index = made
        }
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        index = nil
    }
}

/// A container's results of the current pass: kept out of the node, as leaves (most nodes)
/// never need them.
final class YogaNodeMemo {
    /// Full layouts computed in the current pass.
    var layouts = YogaMemoTable<YogaLayoutRecord>()
    /// Measurements (no layout) computed in the current pass.
    var measurements = YogaMemoTable<YogaMeasureRecord>()
    /// The pass the memos belong to.
    var generation = 0
    /// The inputs of the node's last full layout.
    var lastLayoutKey: YogaLayoutKey?
}

/// One child as its container's full layout left it.
struct YogaChildRecord {
    let position: YogaFloat4
    /// Its size then (leaves have no record of their own).
    let size: (Float, Float)
    /// The inputs of its own last full layout.
    let key: YogaLayoutKey?
}

/// What a full layout of a node left: its size and direction, its children's positions and
/// sizes and the inputs of their own last full layouts.
struct YogaLayoutRecord {
    let measured: (Float, Float)
    let direction: YogaResolvedDirection
    let hadOverflow: Bool
    let children: [YogaChildRecord]
    /// The children's line numbers; empty when the node does not wrap (all are on line 0).
    let childLines: [Int]
}

/// What a measurement of a container left: its size and its children's line numbers (empty
/// when it does not wrap).
struct YogaMeasureRecord {
    let measured: (Float, Float)
    let childLines: [Int]
}

/// Whether a node's cached measurement answers a call (Yoga's cache, kept across passes).
extension YogaLayoutPass {
    /// `YGNodeCanUseCachedMeasurement` (sizes compared on the pixel grid).
    func canUseCached(_ widthMode: YogaMeasureMode, _ width: Float, _ heightMode: YogaMeasureMode, _ height: Float,
                      _ last: YogaCacheEntry, _ marginRow: Float, _ marginColumn: Float) -> Bool {
        if (!last.computedHeight.isNaN && last.computedHeight < 0) || (!last.computedWidth.isNaN && last.computedWidth < 0) {
            return false
        }
        let effWidth = YogaRounding.roundValue(Double(width), Double(scale), ceil: false, floor: false)
        let effHeight = YogaRounding.roundValue(Double(height), Double(scale), ceil: false, floor: false)
        let effLastWidth = YogaRounding.roundValue(Double(last.availableWidth), Double(scale), ceil: false, floor: false)
        let effLastHeight = YogaRounding.roundValue(Double(last.availableHeight), Double(scale), ceil: false, floor: false)
        let sameWidth = last.widthMode == widthMode.rawValue && ygEqual(effLastWidth, effWidth)
        let sameHeight = last.heightMode == heightMode.rawValue && ygEqual(effLastHeight, effHeight)
        let widthOK = sameWidth
            || YogaLayoutPass.exactMatchesOld(widthMode, width - marginRow, last.computedWidth)
            || YogaLayoutPass.oldUnspecifiedStillFits(widthMode, width - marginRow, last.widthMode, last.computedWidth)
            || YogaLayoutPass.stricterStillValid(widthMode, width - marginRow, last.widthMode, last.availableWidth, last.computedWidth)
        let heightOK = sameHeight
            || YogaLayoutPass.exactMatchesOld(heightMode, height - marginColumn, last.computedHeight)
            || YogaLayoutPass.oldUnspecifiedStillFits(heightMode, height - marginColumn, last.heightMode, last.computedHeight)
            || YogaLayoutPass.stricterStillValid(heightMode, height - marginColumn, last.heightMode, last.availableHeight, last.computedHeight)
        return widthOK && heightOK
    }

    fileprivate static func exactMatchesOld(_ mode: YogaMeasureMode, _ size: Float, _ lastComputed: Float) -> Bool {
        mode == .exactly && ygEqual(size, lastComputed)
    }
    fileprivate static func oldUnspecifiedStillFits(_ mode: YogaMeasureMode, _ size: Float, _ lastMode: Int8, _ lastComputed: Float) -> Bool {
        mode == .atMost && lastMode == YogaMeasureMode.undefined.rawValue && (size >= lastComputed || ygEqual(size, lastComputed))
    }
    fileprivate static func stricterStillValid(_ mode: YogaMeasureMode, _ size: Float, _ lastMode: Int8, _ lastSize: Float, _ lastComputed: Float) -> Bool {
        lastMode == YogaMeasureMode.atMost.rawValue && mode == .atMost && !lastSize.isNaN && !size.isNaN && !lastComputed.isNaN
            && lastSize > size && (lastComputed <= size || ygEqual(size, lastComputed))
    }
}
