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
