import LoomService
import LoomText

/// `GET /fonts`: the families the text measurer can use, with their aliases.
enum FontListing {
    static func json(_ measurer: PangoTextMeasurer) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("families"); w.beginArray()
        for f in measurer.availableFamilies() {
            w.beginObject()
            w.key("family"); w.string(f.family)
            w.key("aliases"); w.beginArray(); for a in f.aliases { w.string(a) }; w.endArray()
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}
