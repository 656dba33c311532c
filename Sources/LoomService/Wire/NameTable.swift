import Foundation

/// The wire format's fixed names (member names, enum values) looked up straight from the
/// request's bytes: names are bucketed by length and compared with `memcmp`, so reading a
/// member name or an enum value makes no `String`.
struct NameTable<Value> {
    private let storage: [UInt8]
    /// (where the name is in `storage`, its index in `names`), sorted by name length.
    private let entries: [(offset: Int, index: Int)]
    let values: [Value]
    /// Entries of length `n` are `entries[starts[n] ..< starts[n + 1]]`.
    private let starts: [Int]
    let names: [String]

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
        names = pairs.map(\.0)
        values = pairs.map(\.1)
    }

    func lookup(_ name: UnsafeBufferPointer<UInt8>) -> Value? {
        index(of: name).map { values[$0] }
    }

    /// The position of `name` in `names`.
    func index(of name: UnsafeBufferPointer<UInt8>) -> Int? {
        let n = name.count
        guard n + 1 < starts.count, let p = name.baseAddress else { return nil }
        return storage.withUnsafeBufferPointer { s in
            for k in starts[n] ..< starts[n + 1] where memcmp(s.baseAddress! + entries[k].offset, p, n) == 0 {
                return entries[k].index
            }
            return nil
        }
    }
}

extension NameTable where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// Every case by its raw value.
    init(cases: Value.Type) { self.init(Value.allCases.map { ($0.rawValue, $0) }) }
}
