import Foundation

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
    var compact = compact
    let token = compact.withUTF8 { Array($0) }
    let dots = token.withUnsafeBufferPointer { bytes in
      Self.dotPositions(in: bytes)
    }
    guard dots.count == 2, let first = dots.first, let second = dots.last else {
      throw VerificationError(.malformedJWS, "a compact JWS has exactly three segments")
    }
    let header = token[..<first]
    let payload = token[(first + 1)..<second]
    let signature = token[(second + 1)...]
    guard !header.isEmpty, !payload.isEmpty, !signature.isEmpty else {
      throw VerificationError(.malformedJWS, "a JWS segment is empty")
    }
    self.headerSegment = header
    self.signingInput = token[..<second]
    self.payloadJSON = try Self.decode(payload)
    self.signature = try Self.decode(signature)
  }

  /// Where the dots are, up to three of them; memchr scans kilobytes of token far faster
  /// than a byte loop.
  private static func dotPositions(in bytes: UnsafeBufferPointer<UInt8>) -> [Int] {
    guard let base = bytes.baseAddress else { return [] }
    var positions: [Int] = []
    var offset = 0
    while positions.count < 3, offset < bytes.count,
      let found = memchr(base + offset, Int32(UInt8(ascii: ".")), bytes.count - offset)
    {
      let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
      positions.append(position)
      offset = position + 1
    }
    return positions
  }

  static func decode(_ segment: ArraySlice<UInt8>) throws(VerificationError) -> [UInt8] {
    guard let bytes = Base64Bytes.decode(segment, alphabet: .urlUnpadded) else {
      throw VerificationError(.malformedJWS, "a JWS segment is not canonical base64url")
    }
    return bytes
  }
}
