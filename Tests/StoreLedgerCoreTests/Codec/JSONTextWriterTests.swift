import StoreLedgerCore
import Testing

/// The writer's two layouts: compact in the order written (the stored read model), and
/// PostgreSQL's `jsonb` print (the account API's parts), which a stored view reads back as.
@Suite struct JSONTextWriterTests {
  static func write(_ layout: JSONTextWriter.Layout) -> String {
    var json = JSONTextWriter(layout: layout)
    json.object { json in
      json.member("b", 1)
      json.member("aa") { json in
        json.object { json in
          json.member("zz", true)
          json.member("y", nil as String?)
        }
      }
      json.member("a") { json in
        json.array([1, 2]) { json, index in
          json.object { json in
            json.member("dd", "x\u{8}\u{C}\n\u{1}")
            json.member("c", index)
          }
        }
      }
      json.member("ab", "")
    }
    return json.text
  }

  @Test func compactKeepsTheOrderWritten() {
    #expect(
      Self.write(.compact)
        == #"{"b":1,"aa":{"zz":true,"y":null},"a":[{"dd":"x\u0008\u000c\n\u0001","c":1},{"dd":"x\u0008\u000c\n\u0001","c":2}],"ab":""}"#
    )
  }

  /// What `SELECT '<compact>'::jsonb::text` prints for the same value (PostgreSQL 15): shorter
  /// keys first, keys of one length by their bytes, a space after each comma and colon.
  @Test func jsonbOrdersKeysAsPostgreSQLPrintsThem() {
    #expect(
      Self.write(.jsonb)
        == #"{"a": [{"c": 1, "dd": "x\b\f\n\u0001"}, {"c": 2, "dd": "x\b\f\n\u0001"}], "b": 1, "aa": {"y": null, "zz": true}, "ab": ""}"#
    )
  }
}
