import Foundation

/// RFC 9562 version-5 UUIDs (SHA-1, name-based) in StoreLedger's own namespace.
package enum NameBasedUUID {
  /// The namespace of event ids; fixed forever, since stored ids depend on it.
  package static let namespace = UUID(uuidString: "5b0e1d2c-8f3a-4c6e-9d71-3a2f4b5c6d7e")!

  package static func make(name: String, namespace: UUID = namespace) -> UUID {
    var input = withUnsafeBytes(of: namespace.uuid) { Array($0) }
    input.append(contentsOf: name.utf8)
    var bytes = Array(SHA1Digest.of(input).prefix(16))
    bytes[6] = (bytes[6] & 0x0F) | 0x50
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }
}

extension NewEvent {
  /// The event id: a UUIDv5 of the idempotency key, the same on every retry and on every
  /// storage.
  public var eventId: UUID { NameBasedUUID.make(name: idempotencyKey) }
}
