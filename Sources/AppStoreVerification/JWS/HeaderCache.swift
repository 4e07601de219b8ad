/// Headers already parsed, keyed by the exact bytes of the header segment.
///
/// Every JWS from one signing chain carries the same header, so remembering it skips its
/// base64 and JSON decoding. Only well-formed ES256 headers with a three-certificate chain
/// are kept; anything else is parsed (and rejected) every time.
final class HeaderCache: Sendable {
  /// The header segment, hashed by its length and first bytes (the algorithm and the leaf's
  /// serial number and issuer): hashing all ~4 KB would cost as much as decoding it.
  /// Equality still compares every byte.
  struct Key: Hashable, Sendable {
    let segment: [UInt8]

    func hash(into hasher: inout Hasher) {
      hasher.combine(segment.count)
      segment.prefix(256).withUnsafeBytes { hasher.combine(bytes: $0) }
    }
  }

  private let entries: BoundedCache<Key, JWSHeader>

  init(capacity: Int) {
    self.entries = BoundedCache(capacity: capacity)
  }

  func header(for segment: ArraySlice<UInt8>) throws(VerificationError) -> JWSHeader {
    let key = Key(segment: Array(segment))
    if let header = entries[key] { return header }
    let header = try JWSHeader(json: try CompactJWS.decode(segment))
    if header.isCacheable { entries.insert(header, for: key) }
    return header
  }
}
