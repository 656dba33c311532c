import LoomLayout
import XCTest

/// The budget over Yoga roots nested through measured leaves' own layouts: a pass that finds
/// such a chain in the shared subtree cache is charged what the cold pass was, so the verdict
/// does not depend on what earlier requests left in the cache.
final class YogaBudgetTests: XCTestCase {
    /// Yoga root → measured leaf with its own layout → Yoga root → … → a 3×4 leaf. The leaves
    /// with their own layout carry a digest that depends on their depth only (as the
    /// service's depend on the subtree only); the Yoga containers none, so that they measure
    /// their leaf again on every call (the leaf then replays what it answered from the cache).
    private static func chain(depth: Int) -> DisplayNode {
        var element = DisplayNode(intrinsicSize: Size(width: 3, height: 4))
        element.digest = ElementDigest(high: 0, low: 0xD1CE)
        for k in 1..<depth {
            if k % 2 == 1 {
                let container = DisplayNode()
                container.yogaChildren = [element]
                element = container
            } else {
                element = DisplayNode(layoutSpec: element)
            }
            if k % 2 == 0 { element.digest = ElementDigest(high: UInt64(k), low: 0xD1CE) }
        }
        return element
    }

    /// The chain alone, or inside an inset (another root digest, the same chain digests).
    private static func request(wrapped: Bool, depth: Int) -> LayoutElement {
        let chain = self.chain(depth: depth)
        guard wrapped else { return chain }
        let inset = InsetLayoutSpec(insets: EdgeInsets(top: 1, left: 1, bottom: 1, right: 1), child: chain)
        inset.digest = ElementDigest(high: 0xFFFF, low: 0xD1CE)
        return inset
    }

    private func spent(_ root: LayoutElement, cache: DictionarySubtreeCache?, limit: Int = .max) -> (LayoutCost, LayoutStop?) {
        let budget = LayoutBudget(limits: LayoutLimits(measurements: limit, characters: .max, lines: .max))
        let context = LayoutContext(subtreeCache: cache, budget: budget)
        _ = calculateRootLayout(root, sizeRange: range(0, 0, .infinity, .infinity), context: context)
        return (budget.spent, budget.stop)
    }

    func testANestedChainFromTheCacheIsChargedAsTheColdPass() {
        let depth = 60
        // Cold: the wrapped chain with nothing cached.
        let (cold, _) = spent(Self.request(wrapped: true, depth: depth), cache: DictionarySubtreeCache())
        // Warm: the bare chain first fills the cache, then the wrapped one finds every level.
        let cache = DictionarySubtreeCache()
        _ = spent(Self.request(wrapped: false, depth: depth), cache: cache)
        XCTAssertGreaterThan(cache.count, 0)
        let (warm, _) = spent(Self.request(wrapped: true, depth: depth), cache: cache)
        XCTAssertEqual(warm.measurements, cold.measurements,
                       "each level found in the cache must not charge its whole subtree again")
        // The same verdict warm as cold around the cost (each warm pass on a cache filled by
        // the bare chain only).
        for limit in [cold.measurements - 1, cold.measurements] {
            let (_, coldStop) = spent(Self.request(wrapped: true, depth: depth), cache: DictionarySubtreeCache(), limit: limit)
            let warmCache = DictionarySubtreeCache()
            _ = spent(Self.request(wrapped: false, depth: depth), cache: warmCache)
            let (_, warmStop) = spent(Self.request(wrapped: true, depth: depth), cache: warmCache, limit: limit)
            XCTAssertEqual(coldStop == nil, warmStop == nil, "limit \(limit): cold \(String(describing: coldStop)), warm \(String(describing: warmStop))")
            XCTAssertEqual(coldStop == nil, limit == cold.measurements)
        }
    }

    func testAChainFromTheCacheGivesTheColdFrames() {
        let cache = DictionarySubtreeCache()
        _ = calculateRootLayout(Self.request(wrapped: false, depth: 21), sizeRange: range(0, 0, .infinity, .infinity),
                                context: LayoutContext(subtreeCache: cache))
        let warm = calculateRootLayout(Self.request(wrapped: true, depth: 21), sizeRange: range(0, 0, .infinity, .infinity),
                                       context: LayoutContext(subtreeCache: cache))
        let cold = calculateRootLayout(Self.request(wrapped: true, depth: 21), sizeRange: range(0, 0, .infinity, .infinity),
                                       context: LayoutContext())
        XCTAssertEqual(warm.size, cold.size)
        // Unbounded: every Yoga root takes its content's size (docs/yoga.md §2), the 3×4 leaf,
        // inside 1 pt of inset on each side.
        XCTAssertEqual(cold.size, Size(width: 5, height: 6))
    }
}
