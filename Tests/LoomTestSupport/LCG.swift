/// Knuth's MMIX linear congruential generator, the seeded pseudo-random source of the tests
/// (a test that draws its cases at random draws the same ones on every run).
public enum LCG {
    public static let multiplier: UInt64 = 6364136223846793005
    public static let increment: UInt64 = 1442695040888963407

    /// The state after `state`.
    @inline(__always) public static func step(_ state: UInt64) -> UInt64 {
        state &* multiplier &+ increment
    }
}

/// A `RandomNumberGenerator` on the LCG, for `Int.random(in:using:)` and the like: the same
/// seed, the same draws. Its output is the state's bits mixed (the LCG's low bits are weak).
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state = LCG.step(state)
        var z = state
        z = (z ^ (z >> 33)) &* 0xff51afd7ed558ccd
        return z ^ (z >> 29)
    }
}
