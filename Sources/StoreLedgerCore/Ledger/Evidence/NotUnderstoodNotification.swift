import Foundation

/// A verified notification stored but not understood by this release: one whose app could
/// not be read (kept as unrouted evidence), or one routed to this app whose type or body
/// object this release does not know. Either grants and revokes nothing.
public struct NotUnderstoodNotification: Sendable, Hashable, Codable {
  public var notificationUUID: String
  public var notificationType: String?
  public var subtype: String?
  /// When Apple signed it.
  public var signedDate: Timestamp?
  /// When the log stored it.
  public var recordedAt: Date
  /// The body objects it carries (`data`, `unclaimInfo`, or a name no release knew).
  public var bodyObjects: [String]
  /// Where it is stored: `unrouted:<notificationUUID>` for evidence no app could be read
  /// from, else the stream it was routed to.
  public var streamId: String
  /// Its version in that stream: with `streamId`, its place in the log (``key``).
  public var streamVersion: Int64
  /// The stream a later re-examination (or a redelivery) stored it in, once its app could be
  /// read; nil while it stays unrouted (and for a routed notification).
  public var routedTo: String?

  public init(
    notificationUUID: String, notificationType: String?, subtype: String?,
    signedDate: Timestamp?, recordedAt: Date, bodyObjects: [String], streamId: String,
    streamVersion: Int64, routedTo: String?
  ) {
    self.notificationUUID = notificationUUID
    self.notificationType = notificationType
    self.subtype = subtype
    self.signedDate = signedDate
    self.recordedAt = recordedAt
    self.bodyObjects = bodyObjects
    self.streamId = streamId
    self.streamVersion = streamVersion
    self.routedTo = routedTo
  }

  /// Where its list's next page starts after it.
  public var key: NotUnderstoodKey {
    NotUnderstoodKey(streamId: streamId, streamVersion: streamVersion)
  }

  /// Kept as unrouted evidence: no app could be read from it.
  public var isUnrouted: Bool { streamId.hasPrefix(Self.unroutedStreamPrefix) }

  /// The stream family of notifications whose app cannot be read.
  public static let unroutedStreamPrefix = "unrouted:"
}
