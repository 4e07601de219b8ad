import Foundation
import Testing

@testable import StoreLedgerCore

/// Event and change ids are UUIDv5 of their keys: the ids already stored depend on every bit
/// of the hash, so the digest is held to FIPS 180-4's vectors and the ids to RFC 9562's
/// construction as Python's `uuid.uuid5` computes it.
struct NameBasedUUIDTests {
  @Test(arguments: [
    ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
    ),
    (String(repeating: "a", count: 1_000_000), "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
  ])
  func theDigestMeetsTheStandardsVectors(message: String, digest: String) {
    let hex = SHA1Digest.of(Array(message.utf8)).map { String(format: "%02x", $0) }.joined()
    #expect(hex == digest)
  }

  @Test func messagesAroundABlocksEdgeAreHashedWhole() {
    // 55, 56 and 64 bytes put the length in the same block, a block of its own, and after a
    // full block: the padding's three cases.
    let digests = [55, 56, 63, 64, 65].map {
      SHA1Digest.of([UInt8](repeating: 0x61, count: $0)).map { String(format: "%02x", $0) }
        .joined()
    }
    #expect(
      digests == [
        "c1c8bbdc22796e28c0e15163d20899b65621d65a",
        "c2db330f6083854c99d4b5bfb6e8f29f201be699",
        "03f09f5b158a7a8cdad920bddc29b81c18a551f5",
        "0098ba824b5c16427bd7a1122a5a442a25ec644d",
        "11655326c708d70319be2610e8a57d9a5b959d3b",
      ])
  }

  @Test(arguments: [
    ("asn2:002e14d5-51f5-4503-b5a8-c3a1a2b3c4d5", "3e792e94-16f8-50b4-8954-049a34b65a28"),
    ("", "ace3595c-f5e9-5804-98ac-e200f88b722f"),
    (String(repeating: "é", count: 40), "39c1c832-8c61-5c68-8aab-1bbdd56f4941"),
  ])
  func anEventsIdIsTheUUIDv5OfItsKey(key: String, id: String) {
    let event = NewEvent(eventType: "t", idempotencyKey: key, payload: Array("{}".utf8))
    #expect(event.eventId == UUID(uuidString: id))
  }

  @Test func aChangesIdIsTheUUIDv5OfItsAccountAndOrdinal() {
    #expect(
      ChangeRecord.id(account: "6f0a3b1e-0000-4000-8000-000000000001", ordinal: 1)
        == UUID(uuidString: "693dfded-8e40-5178-9ea7-7a3e0b768574"))
  }
}
