extension KeyedDecodingContainer {
  /// The one member of `kinds` present: the stored and scenario formats name an event's kind
  /// by its only member. Refused as `dataCorrupted` when none or several are there.
  func onlyKind(of kinds: [Key], for what: String) throws -> Key {
    let present = kinds.filter { contains($0) }
    guard present.count == 1, let kind = present.first else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: codingPath,
          debugDescription: "\(what) needs exactly one of "
            + kinds.map(\.stringValue).joined(separator: ", ")))
    }
    return kind
  }
}
