/// Headers of JWS that verified, keyed by the exact bytes of the header segment.
///
/// Every JWS from one signing chain carries the same header, so remembering it skips its
/// base64 and JSON decoding. A header is only remembered once its JWS has fully verified, so
/// data that fails verification cannot push good entries out.
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

  var count: Int { entries.count }

  func header(for segment: ArraySlice<UInt8>) -> JWSHeader? {
    entries[Key(segment: Array(segment))]
  }

  func remember(_ header: JWSHeader, for segment: ArraySlice<UInt8>) {
    entries.insert(header, for: Key(segment: Array(segment)))
  }
}
