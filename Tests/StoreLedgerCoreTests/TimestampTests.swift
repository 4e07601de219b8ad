import Foundation
import StoreLedgerCore
import Testing

@Suite struct TimestampTests {
  struct Holder: Codable { var at: Timestamp }

  @Test(arguments: [
    ("1697679936049.7297", Int64(1_697_679_936_049)),
    ("1698148900000", Int64(1_698_148_900_000)),
    ("-62135769600000", Int64(-62_135_769_600_000)),
    ("1.5e3", Int64(1500)),
  ])
  func decodesWholeAndFractionalMilliseconds(json: String, milliseconds: Int64) throws {
    let holder = try JSONDecoder().decode(Holder.self, from: Data(#"{"at":\#(json)}"#.utf8))
    #expect(holder.at.milliseconds == milliseconds)
  }

  @Test(arguments: ["\"1698148900000\"", "1e300", "true"])
  func rejectsNonNumbersAndOutOfRange(json: String) {
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(Holder.self, from: Data(#"{"at":\#(json)}"#.utf8))
    }
  }

  @Test func convertsToAndFromDate() {
    let timestamp = Timestamp(milliseconds: 1_760_592_122_788)
    #expect(Timestamp(timestamp.date) == timestamp)
    #expect(timestamp.description == "2025-10-16T05:22:02.788Z")
    #expect(Timestamp(milliseconds: 1) < Timestamp(milliseconds: 2))
  }

  @Test func encodesWholeMilliseconds() throws {
    let data = try JSONEncoder().encode(Holder(at: Timestamp(milliseconds: 1_698_148_900_000)))
    #expect(String(decoding: data, as: UTF8.self) == #"{"at":1698148900000}"#)
  }
}
