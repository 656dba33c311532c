// What a text measurer reports about its caches (plain data: the service's metrics read it
// without knowing the measurer).

/// Hit and miss counts and sizes of the measurement cache, and the size of the word cache.
public struct TextCacheStatistics: Hashable, Sendable, Codable {
    public var hits: Int
    public var misses: Int
    /// Measurements currently stored.
    public var entries: Int
    /// Maximum number of measurements (0 = caching disabled).
    public var capacity: Int
    /// Bytes the stored texts take: their keys (every span's text, font family and the
    /// truncation text, byte for byte) and each text's fixed share (its answers, its slot).
    public var bytes: Int
    /// Maximum bytes of the measurement cache.
    public var byteCapacity: Int
    /// Word advances stored in the word cache, and the bytes they take (maximum
    /// `wordByteCapacity`).
    public var wordEntries: Int
    public var wordBytes: Int
    public var wordByteCapacity: Int

    public init(hits: Int, misses: Int, entries: Int, capacity: Int, bytes: Int = 0, byteCapacity: Int = 0,
                wordEntries: Int = 0, wordBytes: Int = 0, wordByteCapacity: Int = 0) {
        self.hits = hits; self.misses = misses; self.entries = entries; self.capacity = capacity
        self.bytes = bytes; self.byteCapacity = byteCapacity
        self.wordEntries = wordEntries; self.wordBytes = wordBytes; self.wordByteCapacity = wordByteCapacity
    }
}
