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

  @Test(arguments: [0, 1, 0x5EED, -7])
  func equalKeysHashAlikeAndNumericKeysNeverCollide(seed: Int) {
    for identifier in ["2000000123456789", "0123", "sub-1", ""] {
      let copy = String(decoding: Array(identifier.utf8), as: UTF8.self)
      #expect(
        RecordKey(identifier)._rawHashValue(seed: seed)
          == RecordKey(copy)._rawHashValue(seed: seed))
    }
    // The numeric mix is a bijection of 64 bits: consecutive ids never share a hash.
    let start = 2_000_000_000_000_000
    let hashes = Set(
      (start..<start + 100_000).map { RecordKey(String($0))._rawHashValue(seed: seed) })
    #expect(hashes.count == 100_000)
    // And their low bits (what a table's bucket index uses) spread evenly over 1,024 buckets.
    var buckets = [Int](repeating: 0, count: 1024)
    for hash in hashes { buckets[hash & 1023] += 1 }
    #expect(buckets.max()! < 2 * 100_000 / 1024)
  }

  @Test func stableDigestsSeparateWhatConcatenationWouldMerge() {
    func digest(_ parts: [String?]) -> UInt64 {
      var digest = StableDigest()
      for part in parts { digest.add(part) }
      return digest.value
    }
    #expect(digest(["ab", "c"]) != digest(["a", "bc"]))
    #expect(digest([nil]) != digest([""]))
    #expect(digest(["DID_RENEW", nil]) == digest(["DID_RENEW", nil]))
    var absent = StableDigest()
    absent.add(nil as Int64?)
    var zero = StableDigest()
    zero.add(0 as Int64?)
    #expect(absent.value != zero.value)
  }
}
