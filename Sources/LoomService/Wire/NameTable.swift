import Foundation

/// The wire format's fixed names (member names, enum values) looked up straight from the
/// request's bytes: names are bucketed by length and compared a word at a time, so reading
/// a member name or an enum value makes no `String`.
///
/// Tables are made once, as static constants; the lookup data lives in buffers that are
/// never freed, so a lookup does no reference counting and no bounds checks.
struct NameTable<Value> {
    private let storage: UnsafeBufferPointer<UInt8>
    /// (where the name is in `storage`, its index in `names`), sorted by name length.
    private let entries: UnsafeBufferPointer<(offset: Int, index: Int)>
    let values: UnsafeBufferPointer<Value>
    /// `Self.words` of each entry's name (names of up to 16 bytes), with the entry's index
    /// next to them (a match reads nothing else).
    private let words: UnsafeBufferPointer<(head: UInt64, tail: UInt64, index: Int)>
    /// Entries of length `n` are `entries[starts[n] ..< starts[n + 1]]`.
    private let starts: UnsafeBufferPointer<Int>
    let names: UnsafeBufferPointer<String>
    /// `names` as path components (the bytes are never freed: tables are static).
    let staticNames: UnsafeBufferPointer<StaticName>
    /// By position in `names`: the name and its closing quote as `Self.words` (length 0 for
    /// names of more than 15 bytes), for `quotedLength`.
    private let quoted: UnsafeBufferPointer<(head: UInt64, tail: UInt64, length: Int)>

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
        let words = storage.withUnsafeBufferPointer { s in
            entries.map { e in
                let length = pairs[e.index].0.utf8.count
                let (head, tail) = length <= 16 ? Self.words(s.baseAddress! + e.offset, length) : (0, 0)
                return (head: head, tail: tail, index: e.index)
            }
        }
        self.storage = Self.immortal(storage); self.entries = Self.immortal(entries)
        self.starts = Self.immortal(starts); self.words = Self.immortal(words)
        names = Self.immortal(pairs.map(\.0))
        values = Self.immortal(pairs.map(\.1))
        quoted = Self.immortal(pairs.map { name, _ in
            let bytes = Array(name.utf8) + [UInt8(ascii: "\"")]
            guard bytes.count <= 16 else { return (head: 0, tail: 0, length: 0) }
            let (head, tail) = bytes.withUnsafeBufferPointer { Self.words($0.baseAddress!, bytes.count) }
            return (head: head, tail: tail, length: bytes.count)
        })
        staticNames = Self.immortal(pairs.map { name, _ in
            let bytes = Self.immortal(Array(name.utf8))
            return StaticName(start: bytes.baseAddress!, count: bytes.count)
        })
    }

    /// A copy of `a` that is never freed.
    private static func immortal<T>(_ a: [T]) -> UnsafeBufferPointer<T> {
        let copy = UnsafeMutablePointer<T>.allocate(capacity: Swift.max(a.count, 1))
        copy.initialize(from: a, count: a.count)
        return UnsafeBufferPointer(start: copy, count: a.count)
    }

    /// The position of `name` in `names`. `readable`: bytes that may be read from the
    /// name's start (at least its length; 8 or more lets a short name load as one word).
    @inline(__always) func index(of name: UnsafeBufferPointer<UInt8>, readable: Int = 0) -> Int? {
        let n = name.count
        guard n + 1 < starts.count, let p = name.baseAddress else { return nil }
        // Names of up to 16 bytes compare as two 8-byte words (overlapping when shorter).
        if n <= 16 {
            let (head, tail) = n < 8 && readable >= 8 ? Self.shortWord(p, n) : Self.words(p, n)
            for k in starts[n] ..< starts[n + 1] where words[k].head == head && words[k].tail == tail {
                return words[k].index
            }
            return nil
        }
        return longIndex(p, n)
    }

    /// When the bytes at `p` are name `index` and its closing quote, how many bytes they
    /// take; else 0. `readable`: bytes that may be read from `p`.
    @inline(__always) func quotedLength(of index: Int, at p: UnsafePointer<UInt8>, readable: Int) -> Int {
        let q = quoted[index]
        let n = q.length
        if n < 8 {
            guard n > 0, readable >= 8 else { return 0 }
            return Self.shortWord(p, n).head == q.head ? n : 0
        }
        guard readable >= n else { return 0 }
        let raw = UnsafeRawPointer(p)
        let head = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        let tail = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
        return head == q.head && tail == q.tail ? n : 0
    }

    private func longIndex(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        for k in starts[n] ..< starts[n + 1] where memcmp(storage.baseAddress! + entries[k].offset, p, n) == 0 {
            return entries[k].index
        }
        return nil
    }

    /// `words` of a name shorter than 8 bytes, from one 8-byte load (8 bytes are readable).
    @inline(__always) private static func shortWord(_ p: UnsafePointer<UInt8>, _ n: Int) -> (head: UInt64, tail: UInt64) {
        let w = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)) & ((1 << UInt64(8 * n)) - 1)
        return (w, w)
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

/// The order in which one table's names came in this request: after each name, the name
/// that followed it last time (in an object, the first name follows `start`), kept apart per
/// context (an element's kind, say). Generated JSON writes an object's members in the same
/// order each time, so the guess lets a member name be checked against one name instead of
/// being scanned and looked up.
struct MemberOrder: ~Copyable {
    private let next: UnsafeMutablePointer<UInt8>
    /// The name before an object's first member.
    let start: Int
    static let noGuess = 0xFF

    /// For a table of `names` names (fewer than 255), in `contexts` contexts.
    init(names: Int, contexts: Int = 1) {
        precondition(names < Self.noGuess)
        start = names
        next = .allocate(capacity: (names + 1) * contexts)
        next.initialize(repeating: UInt8(Self.noGuess), count: (names + 1) * contexts)
    }
    deinit { next.deallocate() }

    /// Where context `k`'s guesses start (`context` of `guess` and `follow`).
    @inline(__always) func context(_ k: Int) -> Int { k &* (start &+ 1) }
    @inline(__always) func guess(after previous: Int, in context: Int) -> Int { Int(next[context &+ previous]) }
    @inline(__always) func follow(_ previous: Int, with k: Int, in context: Int) {
        next[context &+ previous] = UInt8(truncatingIfNeeded: k)
    }
}
