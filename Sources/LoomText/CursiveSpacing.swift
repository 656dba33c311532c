import CPango

// Which scalars of a text the browser leaves without letter spacing because they belong to a
// cursive script's run (Arabic, Syriac, N'Ko, Mongolian: scripts whose letters join).
//
// Chromium decides by the script of the run a character is shaped in, not by the character
// alone: a digit, a hyphen, a full stop, an Arabic comma or an emoji after an Arabic word is
// in that word's (Arabic) run and is not spaced ("يقيس 9725" takes one spacing, for its
// space, at Liberation Sans 14 with 2 px: 69.156 → 71.156 px), while the same characters
// after a Latin word are ("abc 9725": eight). Runs are found as a script itemizer finds them
// (Blink's ScriptRunIterator, ICU's and Pango's alike): a character of the Common or
// Inherited script takes the script of the run it follows, characters before the first
// letter of a real script take that letter's, and a closing bracket takes the script of the
// bracket it closes. Spaces (U+0020, U+00A0 and the other space separators) are spaced in
// every run (seen: "يقيس السلام" takes one spacing, "يقيس -abc" four: the space, a, b, c).
enum CursiveSpacing {
    /// Arabic, Syriac, N'Ko and Mongolian letters (scripts whose letters join), and the
    /// Arabic presentation forms: never spaced, whatever run they are in.
    @inline(__always)
    static func isCursive(_ v: UInt32) -> Bool {
        (v >= 0x600 && v <= 0x7FF && v != 0x60C && v != 0x61B && v != 0x61F) || (v >= 0x860 && v <= 0x8FF)
            || (v >= 0x1800 && v <= 0x18AF) || (v >= 0xFB50 && v <= 0xFDFF) || (v >= 0xFE70 && v <= 0xFEFF)
    }

    /// Whether `script` is one of the cursive scripts above.
    @inline(__always)
    static func isCursiveScript(_ script: GUnicodeScript) -> Bool {
        script == G_UNICODE_SCRIPT_ARABIC || script == G_UNICODE_SCRIPT_SYRIAC || script == G_UNICODE_SCRIPT_NKO
            || script == G_UNICODE_SCRIPT_MONGOLIAN
    }

    /// Per scalar of `scalars`: whether it is in a cursive script's run and not a space; nil
    /// when no scalar is (no cursive letter in the text: one pass, the common case).
    static func unspacedScalars(_ scalars: [Unicode.Scalar]) -> [Bool]? {
        guard scalars.contains(where: { isCursive($0.value) }) else { return nil }
        let n = scalars.count
        var unspaced = [Bool](repeating: false, count: n)
        // The current run's script (nil before the first letter of a real script), the
        // scalars since the text's start still waiting for it, and the open brackets (their
        // closing partner, their index; the run's script when they opened, nil if none yet).
        var current: GUnicodeScript?
        var waiting = 0
        var brackets: [(close: UInt32, script: GUnicodeScript?)] = []
        func mark(_ k: Int, _ script: GUnicodeScript) {
            let v = scalars[k].value
            if isCursive(v) || (isCursiveScript(script) && g_unichar_type(v) != G_UNICODE_SPACE_SEPARATOR) {
                unspaced[k] = true
            }
        }
        for k in 0..<n {
            let v = scalars[k].value
            let script = g_unichar_get_script(v)
            if script != G_UNICODE_SCRIPT_COMMON && script != G_UNICODE_SCRIPT_INHERITED && script != G_UNICODE_SCRIPT_UNKNOWN {
                if current == nil {
                    for w in 0..<waiting { mark(w, script) }
                    for b in brackets.indices where brackets[b].script == nil { brackets[b].script = script }
                }
                current = script
                mark(k, script)
                continue
            }
            var resolved = current
            switch g_unichar_type(v) {
            case G_UNICODE_OPEN_PUNCTUATION:
                var mirror: gunichar = 0
                // At most 64 open brackets are remembered (as Blink's iterator does).
                if g_unichar_get_mirror_char(v, &mirror) != 0 && brackets.count < 64 {
                    brackets.append((close: mirror, script: current))
                }
            case G_UNICODE_CLOSE_PUNCTUATION:
                if let b = brackets.lastIndex(where: { $0.close == v }) {
                    if let script = brackets[b].script { resolved = script; current = script }
                    brackets.removeSubrange(b...)
                }
            default:
                break
            }
            if let resolved { mark(k, resolved) } else { waiting = k + 1 }
        }
        return unspaced
    }
}
