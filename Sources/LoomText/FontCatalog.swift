import CPango
import LoomLayout
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A face as fontconfig describes it (the raw values Pango needs to select it exactly).
struct CatalogFace: Sendable {
    var family: String
    var style: String
    var weight: Int          // CSS weight
    var slant: Int32         // FC_SLANT_*
    var width: Int32         // FC_WIDTH_* (100 = normal)
    var file: String
    var index: Int32
}

/// A fully resolved font request: exactly one face at one pixel size.
struct ResolvedFont: Hashable, Sendable {
    var family: String
    var weight: Int
    var slant: Int32
    var width: Int32
    var pixelSize: Double
    var file: String
    var index: Int32 = 0
}

/// The private fontconfig configuration and the table of families, aliases and faces.
/// Immutable after init, so it is safe to read from any thread.
final class FontCatalog: @unchecked Sendable {
    /// The FcConfig* shared (read-only) by every engine's font map.
    let config: OpaquePointer
    /// Lower-cased family name → faces.
    private let faces: [String: [CatalogFace]]
    /// Lower-cased family name → the family name as reported.
    private let canonicalNames: [String: String]
    let families: [FontFamilyInfo]
    /// The union of the fonts' character sets (FcCharSet*).
    private let coverage: OpaquePointer
    /// Lower-cased family → the union of its faces' character sets (FcCharSet*).
    private let familyCharsets: [String: OpaquePointer]
    /// HarfBuzz faces by file and index, made when first needed (Emoji.swift); never freed.
    private let hbFaces = Mutex<[String: OpaquePointer]>([:])

    /// `familyCharsets` also under each canonical name (the same sets, not owned), so that a
    /// look-up by a resolved font's family lowercases nothing.
    private let charsetsByName: [String: OpaquePointer]
    /// The character set of each family of `fallbackChain`, in its order.
    private let chainCharsets: [OpaquePointer?]

    /// Whether the family (canonical or lower-cased name) has a glyph for `v`.
    func family(_ name: String, has v: UInt32) -> Bool {
        guard let set = charset(of: name) else { return false }
        return FcCharSetHasChar(set, v) != 0
    }

    /// Whether `v` is a character that draws something and that family `name` lacks (a
    /// fallback font draws it): a space beside such a character gets the family as an
    /// attribute of its own in Pango's layout (EmojiLayout.findSpaces), and the word path
    /// follows the same rule (FallbackWords.swift).
    func lacksDrawn(_ v: UInt32, in name: String) -> Bool {
        v >= 0x80 && !FontCatalog.drawsNothing(v) && !family(name, has: v)
    }

    /// The family's character set (FcCharSet*), or nil for an unknown family: for asking
    /// about many characters with one look-up of the name.
    func charset(of name: String) -> OpaquePointer? { charsetsByName[name] ?? familyCharsets[name.lowercased()] }

    /// The character set of the family at `index` of `fallbackChain`.
    func chainCharset(_ index: Int) -> OpaquePointer? { chainCharsets[index] }

    /// The families of the chain for the scripts most texts use (`coreScripts`), and Noto
    /// Sans, the CJK and the emoji fonts: per index of `fallbackChain`, whether it is one.
    let inCore: [Bool]
    /// `inCore`'s families joined with commas, in the chain's order (see `fallbackSuffix`).
    let coreSuffix: String
    /// Script faces of the core chain (`Noto Sans <Script>`): the scripts of the issue's
    /// contract, and the other scripts with the most writers.
    static let coreScripts = ["Arabic", "Hebrew", "Devanagari", "Thai", "Bengali", "Tamil", "Telugu", "Gujarati",
                              "Gurmukhi", "Kannada", "Malayalam", "Oriya", "Sinhala", "Khmer", "Lao", "Myanmar",
                              "Georgian", "Armenian", "Ethiopic", "Syriac", "Thaana"]

    /// The index in `fallbackChain` of the first family that has `v`, or -1.
    func chainIndex(of v: UInt32) -> Int {
        for (k, set) in chainCharsets.enumerated() where set.map({ FcCharSetHasChar($0, v) != 0 }) ?? false { return k }
        return -1
    }

    /// The HarfBuzz face of a resolved font's file (shared by all threads: faces are immutable).
    func hbFace(_ font: ResolvedFont) -> OpaquePointer? {
        let key = font.file + "#\(font.index)"
        return hbFaces.withLock { faces in
            if let f = faces[key] { return f }
            guard let f = loom_hb_face_from_file(font.file, UInt32(font.index)) else { return nil }
            faces[key] = f
            return f
        }
    }

    /// Request family (lower-cased) → family it stands for.
    static let aliases: [String: String] = [
        "system": "Inter",
        "-apple-system": "Inter",
        "san francisco": "Inter",
        "sf pro": "Inter",
        "sf pro text": "Inter",
        "sf pro display": "Inter",
        "helvetica": "Liberation Sans",
        "helvetica neue": "Liberation Sans",
        "arial": "Liberation Sans",
        "times new roman": "Liberation Serif",
        "times": "Liberation Serif",
        "courier": "Liberation Mono",
        "courier new": "Liberation Mono",
    ]
    /// `aliases` with the targets lower-cased too (the keys `faces` is indexed by), made once
    /// rather than on every lookup of an alias.
    static let aliasKeys: [String: String] = aliases.mapValues { $0.lowercased() }

    /// The project's font files: directory candidates (first that has matches wins),
    /// file-name prefix, accepted suffixes, and names to exclude.
    private struct FileSet {
        var directories: [String]
        var prefixes: [String]
        var excludedPrefixes: [String] = []
        var suffixes: [String]
        var excludedParts: [String] = []
    }

    private static let projectFonts: [FileSet] = [
        // fonts-roboto(-unhinted)
        FileSet(directories: ["/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF",
                              "/usr/share/fonts/truetype/roboto/hinted",
                              "/usr/share/fonts/truetype/roboto/unhinted",
                              "/usr/share/fonts/truetype/roboto"],
                prefixes: ["Roboto-"], suffixes: [".ttf"]),
        // fonts-inter (the text family, not Inter Display)
        FileSet(directories: ["/usr/share/fonts/opentype/inter", "/usr/share/fonts/truetype/inter"],
                prefixes: ["Inter-"], suffixes: [".otf", ".ttf"]),
        // fonts-liberation2 (v2 only: never the v1 files of fonts-liberation)
        FileSet(directories: ["/usr/share/fonts/truetype/liberation2"],
                prefixes: ["LiberationSans-", "LiberationSerif-", "LiberationMono-"], suffixes: [".ttf"]),
        // fonts-dejavu-core: DejaVu Sans only
        FileSet(directories: ["/usr/share/fonts/truetype/dejavu"],
                prefixes: ["DejaVuSans.", "DejaVuSans-"], suffixes: [".ttf"]),
        // fonts-noto-core: Noto Sans, and the script faces of the fallback chain (Noto Sans
        // <Script>; not the UI, Display, Mono, Math, Symbols or variant families)
        FileSet(directories: ["/usr/share/fonts/truetype/noto"],
                prefixes: ["NotoSans"],
                excludedPrefixes: ["NotoSansDisplay", "NotoSansMono", "NotoSansMath", "NotoSansSymbols",
                                   "NotoSansAdlamUnjoined", "NotoSansTamilSupplement", "NotoSansIndicSiyaqNumbers",
                                   "NotoSansMayanNumerals", "NotoSansTifinagh"],
                suffixes: [".ttf"], excludedParts: ["UI-"]),
        FileSet(directories: ["/usr/share/fonts/truetype/noto"],
                prefixes: ["NotoSansTifinagh-"], suffixes: [".ttf"]),
        // fonts-noto-cjk: Noto Sans CJK (SC is the chain's; the collection holds JP, KR, TC, HK too)
        FileSet(directories: ["/usr/share/fonts/opentype/noto"],
                prefixes: ["NotoSansCJK-"], suffixes: [".ttc", ".otf"]),
        // fonts-noto-color-emoji
        FileSet(directories: ["/usr/share/fonts/truetype/noto"],
                prefixes: ["NotoColorEmoji"], suffixes: [".ttf"]),
    ]

    /// Families tried, in this order, after the requested one for characters it lacks (the
    /// fallback contract): Noto Sans, every Noto Sans <Script> face (by name), Noto Sans CJK SC,
    /// Noto Color Emoji. Only those present on this machine.
    let fallbackChain: [String]
    /// `fallbackChain` joined with commas: what follows the family in a Pango description.
    let fallbackSuffix: String
    static let cjkFamily = "Noto Sans CJK SC"
    static let emojiFamily = "Noto Color Emoji"
    /// The family a browser's default font resolves to here (Chromium's standard font, Times
    /// New Roman, is Liberation Serif under fontconfig's metric aliases).
    static let browserDefaultFamily = "Liberation Serif"

    private static let fontSuffixes = [".ttf", ".otf", ".ttc", ".otc", ".pfb", ".pfa", ".woff", ".woff2"]

    /// Font files in `dir` and its subdirectories (sorted, at most 8 levels deep).
    static func fontFiles(under dir: String, depth: Int = 0) -> [String] {
        guard depth < 8 else { return [] }
        var files: [String] = []
        for name in listDirectory(dir).sorted() where !name.hasPrefix(".") {
            let path = dir.hasSuffix("/") ? dir + name : dir + "/" + name
            var st = stat()
            guard stat(path, &st) == 0 else { continue }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                files += fontFiles(under: path, depth: depth + 1)
            } else if fontSuffixes.contains(where: { name.lowercased().hasSuffix($0) }) {
                files.append(path)
            }
        }
        return files
    }

    /// The font files of the project that exist on this machine.
    static func projectFontFiles() -> [String] {
        var files: [String] = []
        for set in projectFonts {
            for dir in set.directories {
                let names = listDirectory(dir).filter { name in
                    set.prefixes.contains(where: { name.hasPrefix($0) })
                        && set.suffixes.contains(where: { name.hasSuffix($0) })
                        && !set.excludedPrefixes.contains(where: { name.hasPrefix($0) })
                        && !set.excludedParts.contains(where: { name.contains($0) })
                }
                if !names.isEmpty {
                    files += names.sorted().map { dir + "/" + $0 }
                    break
                }
            }
        }
        return files
    }

    init(extraFontDirectories: [String]) throws {
        guard let config = FcConfigCreate() else { throw TextMeasuringError("fontconfig: cannot create a configuration") }
        for file in FontCatalog.projectFontFiles() {
            _ = FcConfigAppFontAddFile(config, file)
        }
        for dir in extraFontDirectories {
            var st = stat()
            guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
                FcConfigDestroy(config)
                throw TextMeasuringError("font directory not found: \(dir)")
            }
            // File by file (FcConfigAppFontAddDir would also try to write a cache).
            for file in FontCatalog.fontFiles(under: dir) {
                _ = FcConfigAppFontAddFile(config, file)
            }
        }
        self.config = config

        var byFamily: [String: [CatalogFace]] = [:]
        var names: [String: String] = [:]
        if let set = FcConfigGetFonts(config, FcSetApplication) {
            let count = Int(set.pointee.nfont)
            for i in 0..<count {
                guard let pattern = set.pointee.fonts[i], let face = FontCatalog.face(from: pattern) else { continue }
                let key = face.family.lowercased()
                byFamily[key, default: []].append(face)
                if names[key] == nil { names[key] = face.family }
            }
        }
        self.faces = byFamily
        self.canonicalNames = names
        // Every character some font of the catalog has.
        let coverage = FcCharSetCreate()!
        if let set = FcConfigGetFonts(config, FcSetApplication) {
            for i in 0..<Int(set.pointee.nfont) {
                var chars: OpaquePointer? = nil
                if let pattern = set.pointee.fonts[i], FcPatternGetCharSet(pattern, FC_CHARSET, 0, &chars) == FcResultMatch,
                   let chars {
                    _ = FcCharSetMerge(coverage, chars, nil)
                }
            }
        }
        self.coverage = coverage
        var familyChars: [String: OpaquePointer] = [:]
        if let set = FcConfigGetFonts(config, FcSetApplication) {
            for i in 0..<Int(set.pointee.nfont) {
                var chars: OpaquePointer? = nil
                guard let pattern = set.pointee.fonts[i], let face = FontCatalog.face(from: pattern),
                      FcPatternGetCharSet(pattern, FC_CHARSET, 0, &chars) == FcResultMatch, let chars else { continue }
                let key = face.family.lowercased()
                if let existing = familyChars[key] { _ = FcCharSetMerge(existing, chars, nil) }
                else { familyChars[key] = FcCharSetCopy(chars) }
            }
        }
        self.familyCharsets = familyChars

        var infos: [FontFamilyInfo] = []
        for (key, list) in byFamily {
            let name = names[key]!
            let aliases = FontCatalog.aliasKeys.filter { $0.value == key }.map(\.key).sorted()
            let faceInfos = list.map {
                FontFaceInfo(style: $0.style, weight: $0.weight, italic: $0.slant != 0, file: $0.file, index: Int($0.index))
            }.sorted { ($0.italic ? 1 : 0, $0.weight, $0.file) < ($1.italic ? 1 : 0, $1.weight, $1.file) }
            infos.append(FontFamilyInfo(name: name, aliases: aliases, faces: faceInfos))
        }
        var chain: [String] = []
        if let n = names["noto sans"] { chain.append(n) }
        chain += names.filter { key, _ in
            key.hasPrefix("noto sans ") && !key.hasPrefix("noto sans cjk") && !key.hasPrefix("noto sans mono")
        }.map(\.value).sorted()
        if let n = names[FontCatalog.cjkFamily.lowercased()] { chain.append(n) }
        if let n = names[FontCatalog.emojiFamily.lowercased()] { chain.append(n) }
        self.fallbackChain = chain
        self.fallbackSuffix = chain.map { "," + $0 }.joined()
        let core = Set(["noto sans", FontCatalog.cjkFamily.lowercased(), FontCatalog.emojiFamily.lowercased()]
            + FontCatalog.coreScripts.map { "noto sans " + $0.lowercased() })
        let inCore = chain.map { core.contains($0.lowercased()) }
        self.inCore = inCore
        self.coreSuffix = zip(chain, inCore).filter(\.1).map { "," + $0.0 }.joined()
        var byName = familyChars
        for (key, name) in names { if let set = familyChars[key] { byName[name] = set } }
        self.charsetsByName = byName
        self.chainCharsets = chain.map { familyChars[$0.lowercased()] }
        for i in infos.indices { infos[i].fallbackOrder = chain.firstIndex(of: infos[i].name) }
        self.families = infos.sorted { $0.name < $1.name }
    }

    deinit {
        FcCharSetDestroy(coverage)
        for set in familyCharsets.values { FcCharSetDestroy(set) }
        hbFaces.withLock { faces in for f in faces.values { hb_face_destroy(f) } }
        FcConfigDestroy(config)
    }

    /// The characters of `text` (its spans and, as it may be shown, its truncation text) that
    /// no font of the catalog has, distinct and ascending. Controls and default-ignorable
    /// characters (joiners, variation selectors, marks of direction) draw nothing and count
    /// as present.
    func missingCodePoints(_ text: TextAttributes) -> [UInt32] {
        var missing: [UInt32] = []
        func scan(_ s: String) {
            for u in s.unicodeScalars {
                let v = u.value
                if v < 0xA0 || FontCatalog.drawsNothing(v) || FcCharSetHasChar(coverage, v) != 0 { continue }
                missing.append(v)
            }
        }
        for span in text.spans { scan(span.text) }
        scan(text.truncationText)
        if missing.count > 1 { missing = Array(Set(missing)).sorted() }
        if missing.count > FontCatalog.maxReportedCodePoints { missing.removeLast(missing.count - FontCatalog.maxReportedCodePoints) }
        return missing
    }

    /// At most this many missing code points are reported per text (the lowest).
    static let maxReportedCodePoints = 64

    /// Controls, separators and Default_Ignorable_Code_Point characters (no glyph is drawn).
    static func drawsNothing(_ v: UInt32) -> Bool {
        switch v {
        case 0xAD, 0x34F, 0x61C, 0x115F...0x1160, 0x17B4...0x17B5, 0x180B...0x180F, 0x200B...0x200F,
             0x2028...0x202E, 0x2060...0x206F, 0x3164, 0xFE00...0xFE0F, 0xFEFF, 0xFFA0, 0xFFF0...0xFFF8,
             0x1BCA0...0x1BCA3, 0x1D173...0x1D17A, 0xE0000...0xE0FFF:
            return true
        default:
            return false
        }
    }

    private static func face(from pattern: OpaquePointer) -> CatalogFace? {
        func string(_ object: String) -> String? {
            var value: UnsafeMutablePointer<FcChar8>? = nil
            guard FcPatternGetString(pattern, object, 0, &value) == FcResultMatch, let value else { return nil }
            return String(cString: UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self))
        }
        func number(_ object: String) -> Double? {
            var i: Int32 = 0
            if FcPatternGetInteger(pattern, object, 0, &i) == FcResultMatch { return Double(i) }
            var d: Double = 0
            if FcPatternGetDouble(pattern, object, 0, &d) == FcResultMatch { return d }
            return nil
        }
        guard let family = string(FC_FAMILY), let file = string(FC_FILE) else { return nil }
        let fcWeight = number(FC_WEIGHT) ?? Double(FC_WEIGHT_REGULAR)
        let cssWeight = Int(FcWeightToOpenTypeDouble(fcWeight).rounded())
        return CatalogFace(family: family, style: string(FC_STYLE) ?? "",
                           weight: cssWeight,
                           slant: Int32(number(FC_SLANT) ?? 0),
                           width: Int32(number(FC_WIDTH) ?? 100),
                           file: file, index: Int32(number(FC_INDEX) ?? 0))
    }

    /// The family a request's family name stands for (alias or a family name, any case,
    /// optional quotes), or nil.
    func familyKey(for requested: String) -> String? {
        // Most names are plain ASCII ("Roboto", "Liberation Sans"): lowercased byte by byte,
        // without the Unicode-aware trimming, quote and case rules below (which give the same
        // name for them, at a microsecond a call).
        if let lower = FontCatalog.plainLowercased(requested) { return key(forLowercased: lower) }
        var name = requested.trimmingWhitespace()
        if name.count >= 2, let first = name.first, let last = name.last,
           (first == "\"" && last == "\"") || (first == "'" && last == "'") {
            name = String(name.dropFirst().dropLast()).trimmingWhitespace()
        }
        return key(forLowercased: name.lowercased())
    }

    private func key(forLowercased lower: String) -> String? {
        if faces[lower] != nil { return lower }
        if let target = FontCatalog.aliasKeys[lower], faces[target] != nil { return target }
        return nil
    }

    /// `name` lowercased when it is ASCII, not empty, and neither starts nor ends with white
    /// space nor starts with a quote (so that trimming and unquoting leave it as it is);
    /// otherwise nil.
    static func plainLowercased(_ name: String) -> String? {
        var name = name
        return name.withUTF8 { u -> String? in
            guard let first = u.first, let last = u.last else { return nil }
            func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
            guard !isSpace(first), !isSpace(last), first != UInt8(ascii: "\""), first != UInt8(ascii: "'"),
                  u.allSatisfy({ $0 < 0x80 }) else { return nil }
            return String(unsafeUninitializedCapacity: u.count) { out in
                for k in u.indices { out[k] = u[k] >= 0x41 && u[k] <= 0x5A ? u[k] | 0x20 : u[k] }
                return u.count
            }
        }
    }

    func validate(_ font: FontDescriptor) -> TextMeasuringError? {
        if familyKey(for: font.family) == nil {
            if let target = FontCatalog.aliases[font.family.trimmingWhitespace().lowercased()] {
                return TextMeasuringError("font family '\(font.family)' (an alias of '\(target)') is not available")
            }
            return TextMeasuringError("unknown font family '\(font.family)'")
        }
        if !font.size.isFinite || font.size <= 0 || font.size > FontCatalog.maximumSize {
            return TextMeasuringError("invalid font size \(font.size) for '\(font.family)' (must be > 0 and ≤ \(Int(FontCatalog.maximumSize)))")
        }
        if font.weight < 1 || font.weight > 1000 {
            return TextMeasuringError("invalid font weight \(font.weight) for '\(font.family)' (must be 1–1000)")
        }
        return nil
    }

    static let maximumSize: Double = 10_000

    /// The face CSS font matching picks for `font` (font-stretch normal, then style, then
    /// weight: CSS Fonts 4 §5.2). Invalid requests fall back to Liberation Sans (or any
    /// family) and a valid size, so that measuring never fails.
    func resolve(_ font: FontDescriptor) -> ResolvedFont {
        let key = familyKey(for: font.family)
            ?? familyKey(for: "Liberation Sans")
            ?? faces.keys.sorted().first
        let size = (font.size.isFinite && font.size > 0) ? min(font.size, FontCatalog.maximumSize) : 12
        guard let key, let candidates = faces[key], !candidates.isEmpty else {
            return ResolvedFont(family: font.family, weight: 400, slant: 0, width: 100, pixelSize: size, file: "")
        }
        let weight = min(max(font.weight, 1), 1000)
        let face = FontCatalog.match(candidates, weight: weight, italic: font.italic)
        return ResolvedFont(family: canonicalNames[key] ?? face.family, weight: face.weight, slant: face.slant,
                            width: face.width, pixelSize: size, file: face.file, index: face.index)
    }

    static func match(_ all: [CatalogFace], weight desired: Int, italic: Bool) -> CatalogFace {
        // font-stretch: normal (100): narrower-or-equal widths first (widest of them), else the narrowest wider one.
        let widths = Set(all.map(\.width))
        let width = widths.filter { $0 <= 100 }.max() ?? widths.min()!
        var set = all.filter { $0.width == width }
        // font-style: italic → italic, oblique, normal; normal → normal, oblique, italic.
        let order: [Int32] = italic ? [Int32(FC_SLANT_ITALIC), Int32(FC_SLANT_OBLIQUE), Int32(FC_SLANT_ROMAN)]
                                    : [Int32(FC_SLANT_ROMAN), Int32(FC_SLANT_OBLIQUE), Int32(FC_SLANT_ITALIC)]
        for slant in order {
            let s = set.filter { $0.slant == slant }
            if !s.isEmpty { set = s; break }
        }
        // font-weight.
        let weights = Set(set.map(\.weight))
        let chosen: Int
        if weights.contains(desired) {
            chosen = desired
        } else if desired >= 400 && desired <= 500 {
            chosen = weights.filter { $0 > desired && $0 <= 500 }.min()
                ?? weights.filter { $0 < desired }.max()
                ?? weights.filter { $0 > 500 }.min()!
        } else if desired < 400 {
            chosen = weights.filter { $0 < desired }.max() ?? weights.filter { $0 > desired }.min()!
        } else {
            chosen = weights.filter { $0 > desired }.min() ?? weights.filter { $0 < desired }.max()!
        }
        return set.filter { $0.weight == chosen }.min { $0.file < $1.file }!
    }
}

func listDirectory(_ path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

extension String {
    /// Without the Unicode whitespace around it (a font family as written in a request).
    fileprivate func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
