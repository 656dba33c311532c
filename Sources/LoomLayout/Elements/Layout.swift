/// `ASLayout`: the computed size of one element and the positions of the elements it laid
/// out. A layout does not point at its element: `Sublayout.slot` indexes the parent
/// element's `layoutChildren`, so a layout computed for one subtree can be reused for any
/// structurally identical subtree (the subtree cache relies on this). Layouts are immutable
/// and may be shared between threads.
public final class Layout: @unchecked Sendable {
    /// Pixel-ceiled; 0×0 if the requested size was not a valid size (Texture's release fallback).
    public let size: Size
    public let sublayouts: [Sublayout]
    /// Baseline metrics read by a parent stack after measuring (`style.ascender`/`descender`
    /// as Texture leaves them: text nodes and vertical stacks set them while measuring).
    public let ascender: Double
    public let descender: Double
    /// Text nodes: what the measurer reported.
    public let text: TextLayoutInfo?
    /// Number of layouts in this subtree including this one (cheap reuse accounting).
    public let subtreeCount: Int
    /// The size computed for the element was not a valid size (a side NaN, negative, or
    /// 1e7 or more) and 0×0 stands in its place: Texture's release-build fallback, where a
    /// debug build asserts. The service reports it as a warning.
    public let replacedInvalidSize: Bool

    public init(size rawSize: Size, sublayouts: [Sublayout] = [], ascender: Double, descender: Double,
                text: TextLayoutInfo? = nil, grid: PixelGrid) {
        let valid = validSize(rawSize)
        self.size = valid ? grid.ceil(rawSize) : .zero
        self.replacedInvalidSize = !valid
        self.sublayouts = sublayouts
        self.ascender = ascender
        self.descender = descender
        self.text = text
        var count = 1
        // Read in place: iterating copies each sublayout, a retain and release of its layout.
        sublayouts.withUnsafeBufferPointer { buffer in
            for i in buffer.indices { count &+= buffer[i].layout.subtreeCount }
        }
        self.subtreeCount = count
    }
}

/// One child layout placed by its parent. Positions are stored raw (not rounded), as
/// Texture stores the positions parents assign.
public struct Sublayout: Sendable {
    /// Index into the parent element's `layoutChildren`.
    public let slot: Int
    public var position: Point
    public let layout: Layout
    public init(slot: Int, position: Point, layout: Layout) {
        self.slot = slot; self.position = position; self.layout = layout
    }
}

public struct TextLayoutInfo: Hashable, Sendable {
    public var lineCount: Int
    public var truncated: Bool
    /// Characters of the text that no font has (drawn as a missing-glyph box), ascending;
    /// the service reports them as a `missing_glyphs` warning.
    public var missingCodePoints: [UInt32]
    /// The container the text was measured in (the offered size less the insets, at least
    /// 0): where its lines are laid out again for `options.includeText`.
    public var container: Size
    public init(lineCount: Int, truncated: Bool, missingCodePoints: [UInt32] = [], container: Size = .zero) {
        self.lineCount = lineCount; self.truncated = truncated; self.missingCodePoints = missingCodePoints
        self.container = container
    }
}
