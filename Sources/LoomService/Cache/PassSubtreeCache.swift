import LoomLayout
import Synchronization

/// The subtree cache of one layout pass (one request, one batch item): every subtree layout
/// the pass computes is kept in a memo of its own, so a subtree repeated in the request is
/// laid out once, and is offered to the shared cache, which keeps it from its second
/// sighting on (`SubtreeLayoutCache.offer`). A subtree met a second time within the pass (a
/// memo hit) is stored in the shared cache then, if its offer was not taken: it is repeated.
/// Lookups: the memo, then the shared cache. The memo is a dictionary under a lock (a
/// `concurrent` stack measures on several threads), allocated on the first store and freed
/// with the pass.
public final class PassSubtreeCache: SubtreeLayoutCaching, @unchecked Sendable {
    public let shared: SubtreeLayoutCache
    private struct Entry {
        var layout: CachedSubtreeLayout
        /// Whether the shared cache holds it (its offer was taken, or a memo hit stored it).
        var shared: Bool
    }
    private let memo = Mutex<[SubtreeLayoutKey: Entry]>([:])

    public init(shared: SubtreeLayoutCache) { self.shared = shared }

    public func layout(for key: SubtreeLayoutKey) -> CachedSubtreeLayout? {
        let found = memo.withLock { memo -> Entry? in
            guard !memo.isEmpty, let i = memo.index(forKey: key) else { return nil }
            let entry = memo.values[i]
            if !entry.shared { memo.values[i].shared = true }
            return entry
        }
        guard let found else { return shared.layout(for: key) }
        if !found.shared { shared.store(found.layout, for: key) }
        return found.layout
    }

    public func store(_ layout: CachedSubtreeLayout, for key: SubtreeLayoutKey) {
        let kept = shared.offer(layout, for: key)
        memo.withLock { $0[key] = Entry(layout: layout, shared: kept) }
    }

    /// Subtree layouts the memo holds (for tests).
    public var memoCount: Int { memo.withLock { $0.count } }
}
