/// The body of Configure Default Message (Retention Messaging API): the approved message
/// shown for a product and locale when the real-time endpoint gives none.
public struct DefaultConfigurationRequest: Hashable, Sendable, Codable {
  public var messageIdentifier: String?

  public init(messageIdentifier: String? = nil) {
    self.messageIdentifier = messageIdentifier
  }
}
