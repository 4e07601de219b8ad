import Foundation
import Testing

@testable import StoreLedgerServer

/// Members named twice are found in any object, after their escapes are read; strings that
/// hold braces, quotes, colons and commas do not confuse the scan; arrays have no names.
struct DuplicateKeyScanTests {
  func scan(_ text: String) -> String? { DuplicateKeyScan.duplicate(in: Array(text.utf8)) }

  @Test func namesHeldTwiceByOneObjectAreFound() {
    #expect(scan(#"{"signedPayload":"a","signedPayload":"b"}"#) == "signedPayload")
    #expect(scan(#"{"signedPayload":"a","signed\u0050ayload":"b"}"#) == "signedPayload")
    #expect(scan(#"{ "a" : 1 , "b" : { "c" : 2, "c" : 3 } }"#) == "c")
    #expect(scan(#"[{"a":1},{"a":2,"a":3}]"#) == "a")
  }

  @Test func namesInOtherObjectsValuesAndArraysAreNotDuplicates() {
    #expect(scan(#"{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}"#) == nil)
    #expect(scan(#"{"a":"a","b":["a","a"],"c":"{\"a\":1,\"a\":2}"}"#) == nil)
    #expect(scan(#"{"a":"x\\","b":"\"a\":"}"#) == nil)
    #expect(scan(#"{"signedPayload":"eyJ.eyJ.sig"}"#) == nil)
  }
}
