/// A JWS in compact serialization, split and decoded but not yet trusted.
struct CompactJWS {
  /// The UTF-8 bytes of the whole token.
  let token: [UInt8]
  /// `header "." payload`: the bytes the signature covers.
  let signingInput: ArraySlice<UInt8>
  let headerJSON: [UInt8]
  let payloadJSON: [UInt8]
  let signature: [UInt8]

  /// Splits `compact` into exactly three base64url segments and decodes each.
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
    guard let headerJSON = Base64Bytes.decode(header, alphabet: .urlUnpadded),
      let payloadJSON = Base64Bytes.decode(payload, alphabet: .urlUnpadded),
      let signatureBytes = Base64Bytes.decode(signature, alphabet: .urlUnpadded)
    else {
      throw VerificationError(.malformedJWS, "a JWS segment is not canonical base64url")
    }
    self.token = token
    self.signingInput = token[..<dots[1]]
    self.headerJSON = headerJSON
    self.payloadJSON = payloadJSON
    self.signature = signatureBytes
  }
}
