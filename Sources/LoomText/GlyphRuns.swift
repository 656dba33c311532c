import CPango

// Walking a Pango layout's lines and each line's glyph runs: the one loop over Pango's
// linked lists that the line analysis, the scalar fonts of includeText and the token widths
// of truncation share.

/// Each line of `layout`, first to last.
@inline(__always)
func forEachLine(of layout: OpaquePointer, _ body: (UnsafeMutablePointer<PangoLayoutLine>) -> Void) {
    var node = pango_layout_get_lines_readonly(layout)
    while let current = node {
        node = current.pointee.next
        guard let line = current.pointee.data?.assumingMemoryBound(to: PangoLayoutLine.self) else { continue }
        body(line)
    }
}

/// Each glyph run of `line` that has an item and glyphs, in visual order.
@inline(__always)
func forEachGlyphRun(of line: UnsafeMutablePointer<PangoLayoutLine>,
                     _ body: (UnsafeMutablePointer<PangoItem>, UnsafeMutablePointer<PangoGlyphString>) -> Void) {
    var run = line.pointee.runs
    while let r = run {
        run = r.pointee.next
        guard let glyphItem = r.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self),
              let item = glyphItem.pointee.item, let glyphs = glyphItem.pointee.glyphs else { continue }
        body(item, glyphs)
    }
}

/// Each glyph run of every line of `layout`.
@inline(__always)
func forEachGlyphRun(of layout: OpaquePointer,
                     _ body: (UnsafeMutablePointer<PangoItem>, UnsafeMutablePointer<PangoGlyphString>) -> Void) {
    forEachLine(of: layout) { line in forEachGlyphRun(of: line, body) }
}
