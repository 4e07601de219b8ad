import Foundation

/// One leased relay delivery: the notification (its key, where it is in the log and its signed
/// payload) and the attempt this is.
public struct RelayDeliveryClaim: Sendable, Hashable {
  /// The notification event's idempotency key (`asn2:<notificationUUID>`).
  public let notificationKey: String
  public let streamId: String
  public let streamVersion: Int64
  public let notificationType: String?
  public let environment: String?
  /// The attempt this is, from 1.
  public let attempt: Int
  public let firstAttemptAt: Date
  /// The signed payload as Apple sent it; nil when an erasure removed it.
  public let signedPayload: String?
  /// The HTTP body exactly as Apple sent it, kept when it was not the plain
  /// `{"signedPayload":"…"}` of ``signedPayload``.
  public let originalBody: String?

  public init(
    notificationKey: String, streamId: String, streamVersion: Int64, notificationType: String?,
    environment: String?, attempt: Int, firstAttemptAt: Date, signedPayload: String?,
    originalBody: String?
  ) {
    self.notificationKey = notificationKey
    self.streamId = streamId
    self.streamVersion = streamVersion
    self.notificationType = notificationType
    self.environment = environment
    self.attempt = attempt
    self.firstAttemptAt = firstAttemptAt
    self.signedPayload = signedPayload
    self.originalBody = originalBody
  }

  /// The bytes relayed: the body Apple sent. Apple's body is `{"signedPayload":"<JWS>"}`;
  /// when the webhook received exactly that, only the JWS is stored and the body is rebuilt
  /// from it byte for byte (a JWS needs no JSON escaping); any other body is stored as sent.
  public var body: [UInt8]? {
    if let originalBody { return Array(originalBody.utf8) }
    return signedPayload.map(Self.plainBody)
  }

  public static func plainBody(_ signedPayload: String) -> [UInt8] {
    Array("{\"signedPayload\":\"\(signedPayload)\"}".utf8)
  }
}
