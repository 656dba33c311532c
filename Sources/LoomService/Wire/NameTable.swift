import Foundation

/// The wire format's fixed names (member names, enum values) looked up straight from the
/// request's bytes: names are bucketed by length and compared with `memcmp`, so reading a
/// member name or an enum value makes no `String`.
struct NameTable<Value> {
    private let storage: [UInt8]
    /// (where the name is in `storage`, its index in `names`), sorted by name length.
    private let entries: [(offset: Int, index: Int)]
    let values: [Value]
    /// `Self.words` of each entry's name (names of up to 16 bytes).
    private let words: [(head: UInt64, tail: UInt64)]
    /// Entries of length `n` are `entries[starts[n] ..< starts[n + 1]]`.
    private let starts: [Int]
    let names: [String]
    /// `names` as path components (the bytes are never freed: tables are static).
    let staticNames: [StaticName]

    init(_ pairs: [(String, Value)]) {
        let sorted = pairs.enumerated().sorted { ($0.element.0.utf8.count, $0.offset) < ($1.element.0.utf8.count, $1.offset) }
        let longest = pairs.map { $0.0.utf8.count }.max() ?? 0
        var storage: [UInt8] = [], entries: [(offset: Int, index: Int)] = []
        var starts = [Int](repeating: 0, count: longest + 2)
        for (index, (name, _)) in sorted {
            entries.append((storage.count, index))
            storage.append(contentsOf: name.utf8)
            starts[name.utf8.count + 1] = entries.count
        }
        for n in 1..<starts.count { starts[n] = Swift.max(starts[n], starts[n - 1]) }
        self.storage = storage; self.entries = entries; self.starts = starts
        words = storage.withUnsafeBufferPointer { s in
            entries.map { e in
                let length = pairs[e.index].0.utf8.count
                return length <= 16 ? Self.words(s.baseAddress! + e.offset, length) : (0, 0)
            }
        }
        names = pairs.map(\.0)
        values = pairs.map(\.1)
        staticNames = pairs.map { name, _ in
            let bytes = Array(name.utf8)
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: Swift.max(bytes.count, 1))
            copy.initialize(from: bytes, count: bytes.count)
            return StaticName(start: copy, count: bytes.count)
        }
    }

    func lookup(_ name: UnsafeBufferPointer<UInt8>) -> Value? {
        index(of: name).map { values[$0] }
    }

    /// The position of `name` in `names`.
    func index(of name: UnsafeBufferPointer<UInt8>) -> Int? {
        let n = name.count
        guard n + 1 < starts.count, let p = name.baseAddress else { return nil }
        // Names of up to 16 bytes compare as two 8-byte words (overlapping when shorter).
        if n <= 16 {
            let (head, tail) = Self.words(p, n)
            for k in starts[n] ..< starts[n + 1] where words[k].head == head && words[k].tail == tail {
                return entries[k].index
            }
            return nil
        }
        return storage.withUnsafeBufferPointer { s in
            for k in starts[n] ..< starts[n + 1] where memcmp(s.baseAddress! + entries[k].offset, p, n) == 0 {
                return entries[k].index
            }
            return nil
        }
    }

    /// The first and the last 8 bytes of a name of up to 16 bytes (shorter names: the bytes
    /// little-endian in `head`, and `tail` = `head`).
    @inline(__always) private static func words(_ p: UnsafePointer<UInt8>, _ n: Int) -> (head: UInt64, tail: UInt64) {
        if n >= 8 {
            let raw = UnsafeRawPointer(p)
            return (UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)),
                    UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)))
        }
        var w: UInt64 = 0
        for k in 0..<n { w |= UInt64(p[k]) << UInt64(8 * k) }
        return (w, w)
    }
}

extension NameTable where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// Every case by its raw value.
    init(cases: Value.Type) { self.init(Value.allCases.map { ($0.rawValue, $0) }) }
}
