import Foundation
import Testing

@testable import AppStoreVerification

@Suite struct Base64BytesTests {
  @Test func roundTripsEveryLengthInBothAlphabets() {
    for length in 0..<70 {
      let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
      for alphabet in [Base64Bytes.Alphabet.standardPadded, .urlUnpadded] {
        let text = Base64Bytes.encode(bytes, alphabet: alphabet)
        #expect(Base64Bytes.decode(text, alphabet: alphabet) == bytes)
      }
      #expect(
        Base64Bytes.encode(bytes, alphabet: .standardPadded) == Data(bytes).base64EncodedString())
    }
  }

  @Test(arguments: ["A", "AB=", "A===", "QQ=A", "QR==", "QUI=x", "Q@==", "QUJ", "QUJ\n"])
  func rejectsNonCanonicalStandardBase64(text: String) {
    #expect(Base64Bytes.decode(text, alphabet: .standardPadded) == nil)
  }

  @Test(arguments: ["A", "QR", "QUJ", "QUI=", "Q+I", "Q/I", "QU I"])
  func rejectsNonCanonicalBase64URL(text: String) {
    // "QUI" is the canonical encoding of "AB"; "QUJ" sets an unused bit.
    #expect(Base64Bytes.decode(text, alphabet: .urlUnpadded) == nil)
    #expect(Base64Bytes.decode("QUI", alphabet: .urlUnpadded) == Array("AB".utf8))
  }

  @Test func decodesTheURLAlphabet() {
    #expect(Base64Bytes.decode("-_8", alphabet: .urlUnpadded) == [0xFB, 0xFF])
    #expect(Base64Bytes.decode("+/8=", alphabet: .standardPadded) == [0xFB, 0xFF])
  }
}
