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

static const int LOOM_PANGO_SCALE = PANGO_SCALE;

/// A PangoFT2 font map that uses `config` (referenced, not adopted) instead of the
/// process-wide fontconfig configuration.
static inline PangoFontMap *loom_font_map_new(FcConfig *config) {
    PangoFontMap *map = pango_ft2_font_map_new();
    pango_fc_font_map_set_config(PANGO_FC_FONT_MAP(map), config);
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

static inline void loom_object_ref(void *object) { g_object_ref(object); }
static inline void loom_object_unref(void *object) { g_object_unref(object); }

#endif
