/// A JWS in compact serialization, split and decoded but not yet trusted.
struct CompactJWS {
  /// The base64url header segment, still encoded: headers repeat, so it is parsed lazily.
  let headerSegment: ArraySlice<UInt8>
  /// `header "." payload`: the bytes the signature covers.
  let signingInput: ArraySlice<UInt8>
  let payloadJSON: [UInt8]
  let signature: [UInt8]

  /// Splits `compact` into exactly three base64url segments and decodes payload and signature.
  ///
  /// Strict: any byte that is not base64url or one of the two dots, whitespace included,
  /// makes the token malformed, so no two different strings verify as the same token.
  init(_ compact: String) throws(VerificationError) {
    let token = Array(compact.utf8)
    var dots: [Int] = []
    for (index, byte) in token.enumerated() where byte == UInt8(ascii: ".") {
      dots.append(index)
      if dots.count > 2 { break }
    }
    guard dots.count == 2 else {
      throw VerificationError(.malformedJWS, "a compact JWS has exactly three segments")
    }
    let header = token[..<dots[0]]
    let payload = token[(dots[0] + 1)..<dots[1]]
    let signature = token[(dots[1] + 1)...]
    guard !header.isEmpty, !payload.isEmpty, !signature.isEmpty else {
      throw VerificationError(.malformedJWS, "a JWS segment is empty")
    }
    self.headerSegment = header
    self.signingInput = token[..<dots[1]]
    self.payloadJSON = try Self.decode(payload)
    self.signature = try Self.decode(signature)
  }

  static func decode(_ segment: ArraySlice<UInt8>) throws(VerificationError) -> [UInt8] {
    guard let bytes = Base64Bytes.decode(segment, alphabet: .urlUnpadded) else {
      throw VerificationError(.malformedJWS, "a JWS segment is not canonical base64url")
    }
    return bytes
  }
}
