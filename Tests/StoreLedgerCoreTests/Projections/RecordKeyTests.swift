import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Record keys pack canonical decimal ids into integers; every other id stays text, and no
/// two different ids ever become one key.
@Suite struct RecordKeyTests {
  @Test(arguments: [
    "2000000123456789", "0", "7", "9223372036854775807", "9223372036854775808", "0123", "00",
    "-1", "+1", "12a", "", "sub-1", "２０００", "1 ",
  ])
  func everyIdentifierComesBackAsItWasWritten(identifier: String) {
    #expect(RecordKey(identifier).description == identifier)
  }

  @Test func differentIdentifiersAreDifferentKeys() {
    let identifiers = [
      "123", "0123", "00123", "+123", "123 ", "9223372036854775807", "9223372036854775808",
      "0", "00", "", "a",
    ]
    let keys = Set(identifiers.map(RecordKey.init))
    #expect(keys.count == identifiers.count)
    #expect(RecordKey("2000000123456789") == RecordKey(String(2_000_000_123_456_789)))
  }

  @Test func aStateFoldedWithTextAndNumericIdsKeepsBothApart() {
    typealias F = LedgerFixtures
    let events = [
      F.observed(F.transaction("123", purchased: 0, expires: 30)),
      F.observed(F.transaction("0123", purchased: 1, expires: 31)),
    ]
    let state = LedgerState.fold(events)
    #expect(state.transactions.count == 2)
    #expect(state.transactions[RecordKey("0123")]?.facts.transactionId == "0123")
  }
}
