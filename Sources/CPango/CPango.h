// C shim for LoomText: Pango (FT2 backend), HarfBuzz, fontconfig, FreeType.
// Only LoomText imports this module. The inline helpers hide GObject casts and
// macros that Swift cannot call directly.
#ifndef LOOM_CPANGO_H
#define LOOM_CPANGO_H

#include <pango/pango.h>
#include <pango/pangofc-fontmap.h>
#include <pango/pangofc-font.h>
#include <pango/pangoft2.h>
#include <hb.h>
#include <hb-ot.h>
#include <fontconfig/fontconfig.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <string.h>
#include <math.h>

static const int LOOM_PANGO_SCALE = PANGO_SCALE;

/// Asks fontconfig for fonts without colour: fontconfig ranks colour before family, so a
/// colour emoji font would otherwise come first in every fallback list (and draw digits and
/// spaces). Emoji are measured by the engine itself (Emoji.swift).
static void loom_no_color_substitute(FcPattern *pattern, gpointer data) {
    (void)data;
    FcPatternDel(pattern, FC_COLOR);
    FcPatternAddBool(pattern, FC_COLOR, FcFalse);
}

/// A PangoFT2 font map that uses `config` (referenced, not adopted) instead of the
/// process-wide fontconfig configuration.
static inline PangoFontMap *loom_font_map_new(FcConfig *config) {
    PangoFontMap *map = pango_ft2_font_map_new();
    pango_fc_font_map_set_config(PANGO_FC_FONT_MAP(map), config);
    pango_ft2_font_map_set_default_substitute(PANGO_FT2_FONT_MAP(map), loom_no_color_substitute, NULL, NULL);
    return map;
}

/// A context on `map` with subpixel glyph positions and a fixed language.
static inline PangoContext *loom_context_new(PangoFontMap *map, const char *language) {
    PangoContext *context = pango_font_map_create_context(map);
    pango_context_set_round_glyph_positions(context, FALSE);
    pango_context_set_language(context, pango_language_from_string(language));
    return context;
}

/// The file (and face index) a Pango font was loaded from; NULL when unknown.
static inline const char *loom_font_file(PangoFont *font, int *index) {
    if (font == NULL || !PANGO_IS_FC_FONT(font)) return NULL;
    FcPattern *pattern = pango_fc_font_get_pattern(PANGO_FC_FONT(font));
    if (pattern == NULL) return NULL;
    FcChar8 *file = NULL;
    if (FcPatternGetString(pattern, FC_FILE, 0, &file) != FcResultMatch) return NULL;
    int idx = 0;
    if (FcPatternGetInteger(pattern, FC_INDEX, 0, &idx) != FcResultMatch) idx = 0;
    if (index) *index = idx;
    return (const char *)file;
}

/// Vertical metrics in font units as HarfBuzz reports them (`hb_ot_metrics_get_position`:
/// hhea, or OS/2 typo metrics when the font sets USE_TYPO_METRICS). Returns 0 on failure.
static inline int loom_face_metrics(hb_face_t *face, int *upem, int *ascender, int *descender, int *line_gap) {
    if (face == NULL) return 0;
    hb_font_t *font = hb_font_create(face);  /* scale = upem: positions in font units */
    hb_position_t a = 0, d = 0, g = 0;
    hb_ot_metrics_get_position(font, HB_OT_METRICS_TAG_HORIZONTAL_ASCENDER, &a);
    hb_ot_metrics_get_position(font, HB_OT_METRICS_TAG_HORIZONTAL_DESCENDER, &d);
    hb_ot_metrics_get_position(font, HB_OT_METRICS_TAG_HORIZONTAL_LINE_GAP, &g);
    hb_font_destroy(font);
    *upem = (int)hb_face_get_upem(face);
    *ascender = a; *descender = d; *line_gap = g;
    return *upem > 0;
}

/// Metrics of the face behind a Pango font (see loom_face_metrics).
static inline int loom_font_metrics(PangoFont *font, int *upem, int *ascender, int *descender, int *line_gap) {
    hb_font_t *hb = pango_font_get_hb_font(font);
    if (hb == NULL) return 0;
    return loom_face_metrics(hb_font_get_face(hb), upem, ascender, descender, line_gap);
}

/// The absolute (pixel) size a Pango font was loaded at.
static inline double loom_font_pixel_size(PangoFont *font) {
    PangoFontDescription *desc = pango_font_describe_with_absolute_size(font);
    double size = (double)pango_font_description_get_size(desc) / PANGO_SCALE;
    pango_font_description_free(desc);
    return size;
}

/// The direction of the first strong character of `text` (`length` bytes), or
/// PANGO_DIRECTION_NEUTRAL: what PangoLayout uses, with auto direction, for a paragraph
/// (pango_find_base_dir is deprecated as API, not in Pango's own use).
static inline PangoDirection loom_find_base_dir(const char *text, int length) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    PangoDirection direction = pango_find_base_dir(text, length);
    G_GNUC_END_IGNORE_DEPRECATIONS
    return direction;
}

static inline void loom_object_ref(void *object) { g_object_ref(object); }
static inline void loom_object_unref(void *object) { g_object_unref(object); }

/// Makes `font` forget the metrics it keeps for `language` (NULL: the default language), so
/// that the next pango_font_get_metrics() computes them again. Pango 1.50 keeps them in the
/// font's public `metrics_by_lang` list, one `{ sample string, metrics }` entry per sample
/// string (PangoFcMetricsInfo in its pangofc-private.h, allocated with g_slice). Other
/// versions may keep them otherwise: there nothing is forgotten. Returns 1 when an entry
/// was dropped (the metrics stay alive for whoever holds a reference to them).
static inline int loom_font_forget_metrics(PangoFont *font, PangoLanguage *language) {
#if PANGO_VERSION_MAJOR == 1 && PANGO_VERSION_MINOR == 50
    struct loom_metrics_entry { const char *sample_str; PangoFontMetrics *metrics; };
    if (!PANGO_IS_FC_FONT(font)) return 0;
    PangoFcFont *fc = PANGO_FC_FONT(font);
    const char *sample = pango_language_get_sample_string(language);
    for (GSList *node = fc->metrics_by_lang; node; node = node->next) {
        struct loom_metrics_entry *entry = node->data;
        if (entry->sample_str != sample) continue;
        fc->metrics_by_lang = g_slist_delete_link(fc->metrics_by_lang, node);
        pango_font_metrics_unref(entry->metrics);
        g_slice_free1(sizeof *entry, entry);
        return 1;
    }
#else
    (void)font; (void)language;
#endif
    return 0;
}

// ---- Word shaping (the measurer's word cache) ----------------------------------------

/// Shapes `text` (UTF-8, `length` bytes) on its own with `font`, as Pango shapes an item of
/// a layout whose context has unrounded glyph positions: left to right, the given script
/// (a `PangoScript`), language "en", no extra attributes.
static inline void loom_shape_word(PangoFont *font, int script, const char *text, int length,
                                   PangoGlyphString *glyphs) {
    PangoAnalysis analysis;
    memset(&analysis, 0, sizeof analysis);
    analysis.font = font;
    analysis.level = 0;
    analysis.gravity = PANGO_GRAVITY_SOUTH;
    analysis.script = (guint8)script;
    analysis.language = pango_language_from_string("en");
    pango_shape_with_flags(text, length, text, length, &analysis, glyphs, PANGO_SHAPE_NONE);
}

static inline unsigned loom_be16(const uint8_t *d, unsigned len, unsigned off) {
    return off + 2 <= len ? ((unsigned)d[off] << 8 | d[off + 1]) : 0;
}

/// GPOS lookup `index`: 1 when it is pair positioning (type 2, or 9 extending type 2) whose
/// subtables (format 1 or 2) all adjust the first glyph only (valueFormat2 == 0): such a
/// lookup changes a glyph's values by the glyph that follows it, and nothing else; 2 when
/// it is pair positioning otherwise; 0 when it is something else.
static inline int loom_gpos_lookup_pair_kind(hb_face_t *face, unsigned index) {
    hb_blob_t *blob = hb_face_reference_table(face, HB_OT_TAG_GPOS);
    unsigned len = 0;
    const uint8_t *d = (const uint8_t *)hb_blob_get_data(blob, &len);
    int ok = 0;
    unsigned lookupList = d ? loom_be16(d, len, 8) : 0;
    if (lookupList && index < loom_be16(d, len, lookupList)) {
        unsigned lookup = lookupList + loom_be16(d, len, lookupList + 2 + 2 * index);
        unsigned type = loom_be16(d, len, lookup);
        unsigned subtables = loom_be16(d, len, lookup + 4);
        ok = subtables > 0;
        for (unsigned s = 0; s < subtables && ok == 1; s++) {
            unsigned sub = lookup + loom_be16(d, len, lookup + 6 + 2 * s);
            unsigned t = type;
            if (type == 9) {
                t = loom_be16(d, len, sub + 2);
                sub += (loom_be16(d, len, sub + 4) << 16) | loom_be16(d, len, sub + 6);
            }
            unsigned format = loom_be16(d, len, sub);
            if (t != 2) ok = 0;
            else if (sub + 8 > len || (format != 1 && format != 2) || loom_be16(d, len, sub + 6) != 0) ok = 2;
        }
    }
    hb_blob_destroy(blob);
    return ok;
}

/// The lookups HarfBuzz applies to horizontal Latin or Common text with no feature
/// settings: its default features (hb-ot-shape.cc: rvrn, ltra, ltrm, abvm, blwm, ccmp, locl,
/// mark, mkmk, rlig, calt, clig, curs, dist, kern, liga, rclt) under the scripts 'latn',
/// 'DFLT' and 'dflt', any language system (more than are used: conservative). frac, numr
/// and dnom act only around U+2044, which the word path never sees.
static inline void loom_default_lookups(hb_face_t *face, hb_tag_t table, hb_set_t *lookups) {
    static const hb_tag_t scripts[] = { HB_TAG('l','a','t','n'), HB_TAG('D','F','L','T'), HB_TAG('d','f','l','t'), HB_TAG_NONE };
    static const hb_tag_t features[] = {
        HB_TAG('r','v','r','n'), HB_TAG('l','t','r','a'), HB_TAG('l','t','r','m'), HB_TAG('a','b','v','m'),
        HB_TAG('b','l','w','m'), HB_TAG('c','c','m','p'), HB_TAG('l','o','c','l'), HB_TAG('m','a','r','k'),
        HB_TAG('m','k','m','k'), HB_TAG('r','l','i','g'), HB_TAG('c','a','l','t'), HB_TAG('c','l','i','g'),
        HB_TAG('c','u','r','s'), HB_TAG('d','i','s','t'), HB_TAG('k','e','r','n'), HB_TAG('l','i','g','a'),
        HB_TAG('r','c','l','t'), HB_TAG_NONE };
    hb_ot_layout_collect_lookups(face, table, scripts, NULL, features, lookups);
}

/// Lookup `index` of `table` (GSUB or GPOS) as the word path can evaluate it by itself: its
/// subtables (behind extension subtables) are all contextual or chained contextual, format 3
/// (a coverage per position), and its flags skip no glyph (no ignore bits, no mark filtering
/// set, no attachment class). Stores the offsets of the subtables (from the table start) in
/// `subtables` (at most `max`) and returns how many, or -1 when the lookup is not of that kind.
static inline int loom_format3_subtables(const uint8_t *d, unsigned len, int gpos, unsigned index,
                                         unsigned *subtables, int max) {
    unsigned lookupList = loom_be16(d, len, 8);
    if (!lookupList || index >= loom_be16(d, len, lookupList)) return -1;
    unsigned lookup = lookupList + loom_be16(d, len, lookupList + 2 + 2 * index);
    unsigned type = loom_be16(d, len, lookup), flag = loom_be16(d, len, lookup + 2);
    unsigned count = loom_be16(d, len, lookup + 4);
    unsigned context = gpos ? 7 : 5, chain = gpos ? 8 : 6, extension = gpos ? 9 : 7;
    if ((flag & 0xFF1E) != 0 || count == 0 || (int)count > max || lookup + 6 + 2 * count > len) return -1;
    for (unsigned s = 0; s < count; s++) {
        unsigned sub = lookup + loom_be16(d, len, lookup + 6 + 2 * s);
        unsigned t = type;
        if (type == extension) {
            t = loom_be16(d, len, sub + 2);
            sub += (loom_be16(d, len, sub + 4) << 16) | loom_be16(d, len, sub + 6);
        }
        if (sub + 6 > len || (t != context && t != chain) || loom_be16(d, len, sub) != 3) return -1;
        subtables[s] = (t == chain ? 0x80000000u : 0) | sub;
    }
    return (int)count;
}

/// Whether `glyph` is in the Coverage table at `offset` (formats 1 and 2).
static inline int loom_covered(const uint8_t *d, unsigned len, unsigned offset, unsigned glyph) {
    unsigned format = loom_be16(d, len, offset), count = loom_be16(d, len, offset + 2);
    if (format == 1) {
        unsigned lo = 0, hi = count;
        while (lo < hi) {
            unsigned mid = (lo + hi) / 2, g = loom_be16(d, len, offset + 4 + 2 * mid);
            if (g == glyph) return 1;
            if (g < glyph) lo = mid + 1; else hi = mid;
        }
    } else if (format == 2) {
        unsigned lo = 0, hi = count;
        while (lo < hi) {
            unsigned mid = (lo + hi) / 2, r = offset + 4 + 6 * mid;
            unsigned start = loom_be16(d, len, r), end = loom_be16(d, len, r + 2);
            if (glyph < start) hi = mid; else if (glyph > end) lo = mid + 1; else return 1;
        }
    }
    return 0;
}

/// Where the input of the format-3 (chained) contextual subtable at `sub` is: the number of
/// input glyphs, and the offset of the first of their coverage offsets (after the glyph
/// count and the lookup count of a context subtable; after the backtrack coverages and the
/// input count of a chained one).
static inline unsigned loom_format3_input(const uint8_t *d, unsigned len, unsigned sub, int chained,
                                          unsigned *coverages) {
    unsigned countAt = chained ? sub + 4 + 2 * loom_be16(d, len, sub + 2) : sub + 2;
    *coverages = chained ? countAt + 2 : sub + 6;
    return loom_be16(d, len, countAt);
}

/// Whether the format-3 (chained) contextual subtable at `sub` matches `glyphs` (`count` of
/// them, no glyph skipped) with its first input glyph at `pos`: 0 when not, 1 when it does
/// and does nothing (no nested lookup: an "ignore" rule), 2 when it does and applies
/// lookups. A position outside the array does not match: the array is the whole run of
/// text the lookup sees.
static inline int loom_format3_matches(const uint8_t *d, unsigned len, unsigned sub, int chained,
                                       const uint32_t *glyphs, int count, int pos) {
    unsigned inputAt;
    unsigned input = loom_format3_input(d, len, sub, chained, &inputAt);
    unsigned back = chained ? loom_be16(d, len, sub + 2) : 0;
    unsigned aheadAt = inputAt + 2 * input;
    unsigned ahead = chained ? loom_be16(d, len, aheadAt) : 0;
    if (pos - (int)back < 0 || pos + (int)input + (int)ahead > count) return 0;
    for (unsigned k = 0; k < input; k++)
        if (!loom_covered(d, len, sub + loom_be16(d, len, inputAt + 2 * k), glyphs[pos + k])) return 0;
    if (!chained) return loom_be16(d, len, sub + 4) == 0 ? 1 : 2;
    for (unsigned k = 0; k < back; k++)   /* backtrack[0] is the glyph just before the input */
        if (!loom_covered(d, len, sub + loom_be16(d, len, sub + 4 + 2 * k), glyphs[pos - 1 - k])) return 0;
    for (unsigned k = 0; k < ahead; k++)
        if (!loom_covered(d, len, sub + loom_be16(d, len, aheadAt + 2 + 2 * k), glyphs[pos + input + k])) return 0;
    return loom_be16(d, len, aheadAt + 2 + 2 * ahead) == 0 ? 1 : 2;
}

/// Of the `n` subtables of a lookup (`subtables`, as loom_format3_subtables gives them, in
/// the table `d`), those whose rules can start at `glyph`, one bit each in the order
/// HarfBuzz tries them (bit s: subtable s): those whose first input coverage has the glyph,
/// and any without input glyphs.
static inline uint64_t loom_rules_start_subtables(const uint8_t *d, unsigned len, const unsigned *subtables, int n,
                                                  unsigned glyph) {
    uint64_t found = 0;
    for (int s = 0; s < n && s < 64; s++) {
        unsigned sub = subtables[s] & 0x7FFFFFFFu, first;
        unsigned input = loom_format3_input(d, len, sub, (subtables[s] >> 31) != 0, &first);
        if (input == 0 || loom_covered(d, len, sub + loom_be16(d, len, first), glyph))
            found |= (uint64_t)1 << s;
    }
    return found;
}

/// Whether a lookup (its `n` subtables `subtables` in the table `d`, as
/// loom_format3_subtables gives them; none: 0) applied to `glyphs` changes nothing: at each
/// position, of the subtables whose rules can start there (`candidates[codes[pos]]`, as
/// loom_rules_start_subtables gives them for the position's glyph; code 0: none), the first
/// that matches, as HarfBuzz tries them, if any, applies no lookup (the others cannot match
/// there). Then it changes nothing either on any part of `glyphs` (with less context no
/// subtable that failed can match, and the first one that matched can only fail).
/// Returns 1 when so.
static inline int loom_rules_change_nothing(const uint8_t *d, unsigned len, const unsigned *subtables, int n,
                                            const uint64_t *candidates, const uint32_t *glyphs, int count,
                                            const uint8_t *codes) {
    if (n <= 0 || n > 64 || d == NULL) return 0;
    uint64_t all = n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
    for (int pos = 0; pos < count; pos++) {
        uint64_t m = candidates[codes[pos]] & all;
        while (m) {
            int s = __builtin_ctzll(m);
            m &= m - 1;
            int r = loom_format3_matches(d, len, subtables[s] & 0x7FFFFFFFu, (subtables[s] >> 31) != 0, glyphs, count, pos);
            if (r == 2) return 0;
            if (r != 0) break;
        }
    }
    return 1;
}

/// The tags of the GSUB and GPOS tables (HarfBuzz's macros are not imported into Swift).
static inline hb_tag_t loom_tag_gsub(void) { return HB_OT_TAG_GSUB; }
static inline hb_tag_t loom_tag_gpos(void) { return HB_OT_TAG_GPOS; }

/// Whether words of this face can be shaped apart and their advances added (the word
/// cache). Of the lookups HarfBuzz applies (loom_default_lookups), every one that involves
/// the space glyph (hb_ot_layout_lookup_collect_glyphs, any position) must be either a
/// first-glyph pair adjustment (the advance of the glyph before a space, or of a space
/// before a glyph: the cache shapes a word with its neighbouring spaces) or a lookup whose
/// input glyphs are added to `triggers` (texts containing them are not measured from
/// words) and which never takes a space as input or output; and no pair lookup may adjust
/// its second glyph (it could pair a space through class 0, which collect_glyphs does not
/// list). Faces with AAT tables, or a legacy 'kern' table that HarfBuzz would apply, do not
/// qualify. Returns 1 when the face qualifies. A touching lookup whose rules the word path
/// can evaluate itself (loom_format3_subtables) goes to `soft` (its index, plus 1 << 16 in
/// GPOS) and its input glyphs to `softTriggers` instead of `triggers`: a text with those is
/// measured from words when none of these rules matches anywhere in it.
static inline int loom_face_word_analysis(hb_face_t *face, hb_codepoint_t space, hb_set_t *triggers,
                                          hb_set_t *soft, hb_set_t *softTriggers) {
    hb_blob_t *morx = hb_face_reference_table(face, HB_TAG('m', 'o', 'r', 'x'));
    hb_blob_t *kern = hb_face_reference_table(face, HB_TAG('k', 'e', 'r', 'n'));
    int hasMorx = hb_blob_get_length(morx) > 0, hasKern = hb_blob_get_length(kern) > 0;
    hb_blob_destroy(morx);
    hb_blob_destroy(kern);
    if (hasMorx) return 0;
    if (hasKern) {
        /* HarfBuzz applies a 'kern' table when GPOS has no 'kern' feature. */
        int found = 0;
        hb_tag_t tags[32];
        for (unsigned start = 0;; start += 32) {
            unsigned count = 32;
            hb_ot_layout_table_get_feature_tags(face, HB_OT_TAG_GPOS, start, &count, tags);
            for (unsigned i = 0; i < count; i++) if (tags[i] == HB_TAG('k', 'e', 'r', 'n')) found = 1;
            if (count < 32) break;
        }
        if (!found) return 0;
    }
    int ok = 1;
    hb_tag_t tables[2] = { HB_OT_TAG_GSUB, HB_OT_TAG_GPOS };
    hb_set_t *lookups = hb_set_create();
    hb_set_t *before = hb_set_create(), *input = hb_set_create(), *after = hb_set_create(), *output = hb_set_create();
    for (int t = 0; t < 2 && ok; t++) {
        hb_blob_t *blob = hb_face_reference_table(face, tables[t]);
        unsigned len = 0;
        const uint8_t *d = (const uint8_t *)hb_blob_get_data(blob, &len);
        hb_set_clear(lookups);
        loom_default_lookups(face, tables[t], lookups);
        hb_codepoint_t l = HB_SET_VALUE_INVALID;
        while (ok && hb_set_next(lookups, &l)) {
            hb_set_clear(before); hb_set_clear(input); hb_set_clear(after); hb_set_clear(output);
            hb_ot_layout_lookup_collect_glyphs(face, tables[t], l, before, input, after, output);
            int touches = hb_set_has(before, space) || hb_set_has(input, space) || hb_set_has(after, space)
                || hb_set_has(output, space);
            int pair = t == 1 ? loom_gpos_lookup_pair_kind(face, l) : 0;
            if (pair == 2) { ok = 0; break; }
            if (!touches || pair == 1) continue;
            if (hb_set_has(input, space) || hb_set_has(output, space)) { ok = 0; break; }
            unsigned subtables[64];
            if (d && loom_format3_subtables(d, len, t, l, subtables, 64) > 0) {
                hb_set_add(soft, (t << 16) | l);
                hb_set_union(softTriggers, input);
            } else {
                hb_set_union(triggers, input);
            }
        }
        hb_blob_destroy(blob);
    }
    hb_set_destroy(lookups);
    hb_set_destroy(before); hb_set_destroy(input); hb_set_destroy(after); hb_set_destroy(output);
    return ok;
}

/// The face behind a Pango font (NULL when there is none).
static inline hb_face_t *loom_font_face(PangoFont *font) {
    hb_font_t *hb = pango_font_get_hb_font(font);
    return hb ? hb_font_get_face(hb) : NULL;
}

/// The nominal glyph of `c` in the font's face, or 0 when it has none.
static inline unsigned loom_nominal_glyph(PangoFont *font, uint32_t c) {
    hb_font_t *hb = pango_font_get_hb_font(font);
    hb_codepoint_t g = 0;
    if (hb == NULL || !hb_font_get_nominal_glyph(hb, c, &g)) return 0;
    return g;
}

// ---- Emoji and fallback clusters measured with HarfBuzz directly ----------------------

/// A face of the font file `path` (index `index`), or NULL. The caller keeps it.
static inline hb_face_t *loom_hb_face_from_file(const char *path, unsigned index) {
    hb_blob_t *blob = hb_blob_create_from_file_or_fail(path);
    if (blob == NULL) return NULL;
    hb_face_t *face = hb_face_create(blob, index);
    hb_blob_destroy(blob);
    return face;
}

/// The advance of `text` (UTF-8, `length` bytes) shaped on its own by HarfBuzz with `face` at
/// `px` pixels per em: the glyph advances added, each rounded to a whole pixel when
/// `round_each` (what Chromium does for a colour bitmap font).
static inline double loom_hb_advance(hb_face_t *face, const char *text, int length, double px, int round_each) {
    hb_font_t *font = hb_font_create(face);  /* scale = upem */
    hb_buffer_t *buffer = hb_buffer_create();
    hb_buffer_add_utf8(buffer, text, length, 0, length);
    hb_buffer_guess_segment_properties(buffer);
    hb_shape(font, buffer, NULL, 0);
    unsigned count = 0;
    hb_glyph_position_t *pos = hb_buffer_get_glyph_positions(buffer, &count);
    double scale = px / (double)hb_face_get_upem(face), sum = 0;
    for (unsigned i = 0; i < count; i++) {
        double a = pos[i].x_advance * scale;
        sum += round_each ? floor(a + 0.5) : a;
    }
    hb_buffer_destroy(buffer);
    hb_font_destroy(font);
    return sum;
}

#endif
