import LoomHTTP

/// Files served as they are, compiled into the binary (so the container needs no data files).
enum EmbeddedFiles {
    static let openapiYAML: [UInt8] = PackageResources.openapi_yaml
    /// openapi.yaml as JSON, made by `scripts/openapi-json.py` (its `x-source-fnv1a64` is the
    /// YAML's FNV-1a hash: a test fails when the two part).
    static let openapiJSON: [UInt8] = PackageResources.openapi_json
    static let playgroundHTML: [UInt8] = PackageResources.playground_html

    /// The files of examples/, by name without ".json", in name order.
    static let examples: [(name: String, json: [UInt8])] = [
        ("button-with-icon", PackageResources.button_with_icon_json),
        ("header-with-left-right-justified-text", PackageResources.header_with_left_right_justified_text_json),
        ("photo-with-inset-text-overlay", PackageResources.photo_with_inset_text_overlay_json),
        ("photo-with-outset-icon-overlay", PackageResources.photo_with_outset_icon_overlay_json),
        ("ratio-photo-with-corner-badge", PackageResources.ratio_photo_with_corner_badge_json),
        ("simple-inset-text-cell", PackageResources.simple_inset_text_cell_json),
        ("text-cell-title-subtitle", PackageResources.text_cell_title_subtitle_json),
        ("top-bottom-separator-lines", PackageResources.top_bottom_separator_lines_json),
        ("wrapped-tag-stack", PackageResources.wrapped_tag_stack_json),
        ("yoga-card-row", PackageResources.yoga_card_row_json),
        ("yoga-chip-absolute", PackageResources.yoga_chip_absolute_json),
        ("yoga-toolbar-in-stack", PackageResources.yoga_toolbar_in_stack_json),
    ]

    /// `GET /examples.json`: `{"examples": [{"name": …, "request": <the file>}, …]}` (the
    /// files are JSON, copied in as they are).
    static let examplesJSON: [UInt8] = {
        var out = Array(#"{"examples":["#.utf8)
        for (k, e) in examples.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"name":""#.utf8) + Array(e.name.utf8) + Array(#"","request":"#.utf8) + e.json + [UInt8(ascii: "}")]
        }
        return out + Array("]}".utf8)
    }()

    /// The playground's other files, by path (`Router.Route.asset`).
    static let assets: [String: (contentType: String, body: [UInt8])] = [
        "/loom.js": ("text/javascript; charset=utf-8", PackageResources.loom_js),
        "/playground.js": ("text/javascript; charset=utf-8", PackageResources.playground_js),
        "/playground.css": ("text/css; charset=utf-8", PackageResources.playground_css),
        "/examples.json": ("application/json", examplesJSON),
    ]

    /// The answer for an asset path (404 if there is none).
    static func response(for path: String) -> HTTPResponse {
        guard let asset = assets[path] else { return Router.error(.notFound) }
        // (The HTTP server adds `nosniff`.)
        return HTTPResponse(status: 200, headers: [("Content-Type", asset.contentType), ("Cache-Control", "no-cache")],
                            body: asset.body)
    }
}
