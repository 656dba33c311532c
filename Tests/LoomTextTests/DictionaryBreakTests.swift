import XCTest
import LoomLayout
@testable import LoomText

/// Thai written without spaces breaks where the browser breaks it: at ICU's dictionary word
/// boundaries, not libthai's (DictionaryBreaks.swift). Where the two dictionaries disagree
/// (ICU splits เมือง|หลวง and ภาษา|ไทย, which libthai keeps; libthai splits กรุงเทพ|มหา|นคร,
/// which ICU keeps), the lines follow ICU, from words and by Pango's layout alike.
final class DictionaryBreakTests: XCTestCase {
    typealias Rng = WordPathTests.Rng
    static let font = FontDescriptor(family: "Noto Sans", size: 16)
    static let unbounded = Double.infinity

    func measure(_ text: String, width: Double, _ m: PangoTextMeasurer = WordPathTests.withWords) -> TextMeasurement {
        m.measureUncached(TextAttributes(spans: [TextSpan(text: text)], font: Self.font),
                          in: Size(width: width, height: Self.unbounded))
    }

    func lines(_ text: String, width: Double) -> [String] {
        let lines = WordPathTests.withWords.lines(TextAttributes(spans: [TextSpan(text: text)], font: Self.font),
                                                  in: Size(width: width, height: Self.unbounded))
        return lines?.lines.map(\.text) ?? []
    }

    func testICUBreaksBetweenDictionaryWords() {
        func breaks(_ s: String) -> [Int]? { DictionaryBreaks.icuBreaks(Array(s.unicodeScalars)) }
        // ภาษา|ไทย: 4 scalars, then 3.
        XCTAssertEqual(breaks("ภาษาไทย"), [4])
        // เมือง|หลวง (5 scalars, then 4); libthai keeps เมืองหลวง whole.
        XCTAssertEqual(breaks("เมืองหลวง"), [5])
        // Only between two SA characters: a space or a Latin word ends the run.
        XCTAssertEqual(breaks("abc def"), [])
        XCTAssertEqual(breaks("ภาษา ไทย"), [])
    }

    /// Each line of a Thai text at a width between a word's end and the next word's is
    /// the words up to there: greedy at ICU's boundaries.
    func testLinesBreakAtICUWords() {
        // กรุงเทพมหานคร is one ICU word: at a width that holds it but not it and เป็น, the
        // first line is the whole word (libthai would allow กรุงเทพ|มหา|นคร before it).
        let city = measure("กรุงเทพมหานคร", width: Self.unbounded).size.width
        let cityIs = measure("กรุงเทพมหานครเป็น", width: Self.unbounded).size.width
        let text = "กรุงเทพมหานครเป็นเมืองหลวง"
        let width = (city + cityIs) / 2
        XCTAssertEqual(lines(text, width: width).first, "กรุงเทพมหานคร")
        let m = measure(text, width: width)
        XCTAssertEqual(m.size.width, max(city, measure("เป็นเมืองหลวง", width: Self.unbounded).size.width), accuracy: 1e-9)
        XCTAssertEqual(m.lineCount, 2)

        // เป็น|เมือง|หลวง: at a width between เป็นเมือง and เป็นเมืองหลวง the second line is หลวง
        // (libthai: เป็น, then เมืองหลวง).
        let two = measure("เป็นเมือง", width: Self.unbounded).size.width
        let three = measure("เป็นเมืองหลวง", width: Self.unbounded).size.width
        XCTAssertEqual(lines("เป็นเมืองหลวง", width: (two + three) / 2), ["เป็นเมือง", "หลวง"])
        XCTAssertEqual(measure("เป็นเมืองหลวง", width: (two + three) / 2).size.width, two, accuracy: 1e-9)
    }

    /// A text with more Thai characters than `DictionaryBreaks.maxScalars` keeps Pango's
    /// (libthai's) breaks, from words and by Pango's layout alike: its cost stays linear.
    func testLongThaiTextKeepsPangosBreaks() {
        let two = measure("เป็นเมือง", width: Self.unbounded).size.width
        let three = measure("เป็นเมืองหลวง", width: Self.unbounded).size.width
        let width = (two + three) / 2
        var filler = ""
        // Sentences and spaces: more Thai characters than the limit, spaces apart.
        while filler.unicodeScalars.filter({ $0 != " " }).count <= DictionaryBreaks.maxScalars {
            filler += " " + Self.sentences[filler.count % Self.sentences.count]
        }
        XCTAssertEqual(lines("เป็นเมืองหลวง" + filler, width: width).first, "เป็น", "libthai keeps เมืองหลวง")
        XCTAssertEqual(lines("เป็นเมืองหลวง ภาษาไทย", width: width).first, "เป็นเมือง", "under the limit: ICU's words")
        for w in [width, 90, 150.5, 333] {
            let text = TextAttributes(spans: [TextSpan(text: "เป็นเมืองหลวง" + filler)], font: FontDescriptor(family: "Roboto", size: 15))
            let size = Size(width: w, height: .infinity)
            XCTAssertEqual(WordPathTests.withWords.measureUncached(text, in: size), WordPathTests.pangoOnly.measureUncached(text, in: size), "width \(w)")
        }
    }

    static let sentences = [
        "วันนี้อากาศดีมากเราไปเที่ยวทะเลกันเถอะ", "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย",
        "ร้านกาแฟแห่งนี้เปิดตั้งแต่เจ็ดโมงเช้าจนถึงสี่ทุ่ม", "ภาษาไทยเป็นภาษาราชการของประเทศไทย",
        "ตลาดน้ำดำเนินสะดวกเป็นสถานที่ท่องเที่ยวที่มีชื่อเสียง", "ฝนตกหนักทำให้น้ำท่วมถนนหลายสาย",
        "แอปพลิเคชันนี้สามารถดาวน์โหลดได้ฟรี", "บริษัทของเรามีพนักงานมากกว่าหนึ่งพันคน",
        "เครื่องบินจะออกเดินทางในอีกสามสิบนาที", "ประเทศไทยมีจังหวัดทั้งหมดเจ็ดสิบเจ็ดจังหวัด",
    ]

    /// Thai paragraphs (sentences, spaces, Latin words) in fonts without Thai, measured from
    /// words and by Pango's layout, agree exactly at any width: both break at ICU's words.
    func testWordPathAgreesWithPangoOnThai() {
        var r = Rng(state: 66)
        var mismatches = 0, fromWords = 0
        let before = WordPathTests.withWords.measurementPaths
        for index in 0..<300 {
            var text = ""
            for k in 0..<(1 + r.int(4)) {
                if k > 0 { text += " " }
                text += r.chance(0.2) ? r.pick(WordPathTests.plainVocabulary) : r.pick(Self.sentences)
            }
            let font = r.pick(WordPathTests.fonts)
            let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font,
                                            maximumNumberOfLines: r.chance(0.7) ? 0 : 1 + r.int(3))
            let size = Size(width: Double(40 + r.int(360)) + Double(r.int(64)) / 64, height: .infinity)
            let words = WordPathTests.withWords.measureUncached(attributes, in: size)
            let pango = WordPathTests.pangoOnly.measureUncached(attributes, in: size)
            if words != pango {
                mismatches += 1
                if mismatches <= 5 { XCTFail("case \(index): \(font) \(size) \(text.debugDescription): words \(words) ≠ pango \(pango)") }
            }
        }
        fromWords = WordPathTests.withWords.measurementPaths.fromWords - before.fromWords
        XCTAssertEqual(mismatches, 0)
        XCTAssertGreaterThan(fromWords, 100, "most Thai paragraphs are measured from words")
    }
}
