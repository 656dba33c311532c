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
            w.key("family"); w.string(f.name)
            w.key("aliases"); w.beginArray(); for a in f.aliases { w.string(a) }; w.endArray()
            w.key("faces"); w.beginArray()
            for face in f.faces {
                w.beginObject()
                w.key("style"); w.string(face.style)
                w.key("weight"); w.int(face.weight)
                w.key("italic"); w.bool(face.italic)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}
