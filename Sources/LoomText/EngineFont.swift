import CPango
import LoomLayout

/// A font loaded in one engine: its Pango description, the Pango font and its metrics.
final class EngineFont {
    let resolved: ResolvedFont
    let description: OpaquePointer          // PangoFontDescription*
    let font: UnsafeMutablePointer<PangoFont>?
    let metrics: FontMetrics
    /// The same description with the core chain only (FontCatalog.coreSuffix), made when
    /// first needed; for texts whose fallback characters all take a family of it.
    private var core: OpaquePointer?
    /// The word cache's key for this font and the face's word profile (looked up once).
    private var wordID: Int32 = -1
    private var faceID: Int32 = -1
    private var profile: FaceWordProfile?
    /// Per index of the fallback chain, that family's font like this one, made when a
    /// fallback word first needs it (PangoEngine.chainFont); emptied by the engine when it
    /// drops its fonts (two fonts can hold each other here).
    var chainFonts: [EngineFont?] = []
    /// This family's character set (FontCatalog.charset(of:)), once looked up.
    var familyCharset: OpaquePointer?
    var familyCharsetLooked = false
    /// Per ASCII character, whether the word path knows it is kerned against a space after
    /// it (2), knows it is not (1) or has not looked (0) (PangoEngine.lastKernsSpace).
    var spaceKern: [UInt8] = []

    init(resolved: ResolvedFont, description: OpaquePointer, font: UnsafeMutablePointer<PangoFont>?, metrics: FontMetrics) {
        self.resolved = resolved; self.description = description; self.font = font; self.metrics = metrics
    }

    func wordFontID(_ cache: WordCache) -> Int32 {
        if wordID < 0 { wordID = cache.fontID(resolved) }
        return wordID
    }

    /// The word cache's number for this face in every size (its resolved font without the size).
    func wordFaceID(_ cache: WordCache) -> Int32 {
        if faceID < 0 {
            var face = resolved
            face.pixelSize = 0
            faceID = cache.fontID(face)
        }
        return faceID
    }

    /// The profile, once wordProfile has looked it up.
    var cachedProfile: FaceWordProfile? { profile }

    func wordProfile(_ cache: WordCache, _ font: UnsafeMutablePointer<PangoFont>) -> FaceWordProfile {
        if let profile { return profile }
        let p = cache.profile(file: resolved.file, font: font)
        profile = p
        return p
    }

    func coreDescription(_ catalog: FontCatalog) -> OpaquePointer {
        if let core { return core }
        let d = pango_font_description_copy(description)!
        pango_font_description_set_family(d, resolved.family + catalog.coreSuffix)
        core = d
        return d
    }

    deinit {
        if let core { pango_font_description_free(core) }
        pango_font_description_free(description)
        if let font { loom_object_unref(font) }
    }
}

extension PangoEngine {
    /// "Noto Sans CJK JP 15|ja": a font and a language as `poisonedBy` records them (only on
    /// that path).
    static func describe(_ font: UnsafeMutablePointer<PangoFont>, _ language: OpaquePointer?) -> String {
        var name = ""
        if let d = pango_font_describe(font) {
            if let c = pango_font_description_to_string(d) { name = String(cString: c); g_free(c) }
            pango_font_description_free(d)
        }
        let tag = language.flatMap { pango_language_to_string($0) }.map { String(cString: $0) } ?? ""
        return name + "|" + tag
    }
}
