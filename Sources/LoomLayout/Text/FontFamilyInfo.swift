// What a text measurer offers: its font families, their aliases and faces. Plain data, so
// that the server can list them (`GET /fonts`) without knowing the measurer.

/// One font file (face) the measurer can use.
public struct FontFaceInfo: Hashable, Sendable, Codable {
    /// fontconfig's style name, e.g. "Bold Italic".
    public var style: String
    /// CSS weight (100–900), from the face's OS/2 weight class.
    public var weight: Int
    /// Italic or oblique.
    public var italic: Bool
    /// Path of the font file and index of the face in it.
    public var file: String
    public var index: Int

    public init(style: String, weight: Int, italic: Bool, file: String, index: Int = 0) {
        self.style = style; self.weight = weight; self.italic = italic; self.file = file; self.index = index
    }
}

/// A font family the measurer can use (`GET /fonts`).
public struct FontFamilyInfo: Hashable, Sendable, Codable {
    /// The family name as fontconfig reports it (e.g. "Liberation Sans").
    public var name: String
    /// Family names a request may use instead (case-insensitive), e.g. "Helvetica".
    public var aliases: [String]
    /// The faces, sorted by italic then weight.
    public var faces: [FontFaceInfo]
    /// The family's place (0 first) in the fallback chain tried after the requested family
    /// for characters it lacks; nil when it is not in the chain.
    public var fallbackOrder: Int?

    public init(name: String, aliases: [String], faces: [FontFaceInfo], fallbackOrder: Int? = nil) {
        self.name = name; self.aliases = aliases; self.faces = faces; self.fallbackOrder = fallbackOrder
    }

    /// The distinct weights available, ascending.
    public var weights: [Int] { Array(Set(faces.map(\.weight))).sorted() }
}
