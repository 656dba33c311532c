/// The keys an `LRUCache` shard was offered and did not store: an exact set of 64-bit
/// fingerprints (never 0) in two generations of fixed size, each an open-addressing table
/// (linear probing) at most half full. A fingerprint goes into the current generation; once
/// it holds `generation` of them it becomes the previous one and the older generation is
/// emptied to become the current one. So a key is remembered until at least `generation`
/// other first sightings have come after it, whatever their hashes (a table of one slot per
/// key would forget a key whenever another lands on its slot, which makes what a second
/// request stores depend on the process's random hash seed), and never more than
/// 2 × `generation` keys are held. Both tables are made once, at their full size.
struct Doorkeeper {
    private var current: [UInt64]
    private var previous: [UInt64]
    private var count = 0
    /// Fingerprints a generation takes: half its slots.
    let generation: Int
    /// 64 - log2 of a table's slots: a fingerprint's home slot is its mixed hash's leading bits.
    private let shift: UInt64

    /// `keys`: how many first sightings are remembered at least (rounded up to a power of
    /// two); 0 makes an empty doorkeeper that remembers nothing (`slots` 0).
    init(keys: Int) {
        guard keys > 0 else { current = []; previous = []; generation = 0; shift = 64; return }
        var size = 2, bits: UInt64 = 1
        while size / 2 < keys { size *= 2; bits += 1 }
        current = Array(repeating: 0, count: size)
        previous = Array(repeating: 0, count: size)
        generation = size / 2
        shift = 64 - bits
    }

    /// Slots in both tables (8 bytes each).
    var slots: Int { current.count + previous.count }

    /// Whether `mark` was met before (and is still remembered); if not, it is remembered now.
    mutating func sighted(_ mark: UInt64) -> Bool {
        guard generation > 0 else { return false }
        if Self.contains(mark, in: current, shift) || Self.contains(mark, in: previous, shift) { return true }
        let mask = current.count - 1
        var i = Self.home(mark, shift)
        while current[i] != 0 { i = (i + 1) & mask }
        current[i] = mark
        count += 1
        if count == generation {
            swap(&current, &previous)
            for k in current.indices { current[k] = 0 }
            count = 0
        }
        return false
    }

    mutating func removeAll() {
        for k in current.indices { current[k] = 0 }
        for k in previous.indices { previous[k] = 0 }
        count = 0
    }

    @inline(__always) private static func home(_ mark: UInt64, _ shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (mark &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    @inline(__always) private static func contains(_ mark: UInt64, in table: [UInt64], _ shift: UInt64) -> Bool {
        let mask = table.count - 1
        var i = home(mark, shift)
        while true {
            let v = table[i]
            if v == mark { return true }
            if v == 0 { return false }
            i = (i + 1) & mask
        }
    }
}
