/// What an explanation cites: which event, of what type, signed when, about which transaction.
public struct EventReference: Hashable, Sendable, Codable {
  /// The event's idempotency key, or its index in a scenario.
  public var key: String?
  public var eventType: String
  /// `NOTIFICATION_TYPE` or `NOTIFICATION_TYPE/SUBTYPE` for notifications.
  public var notification: String?
  /// Apple's `signedDate`, or the backend's time for its commands.
  public var signedDate: Timestamp?
  public var transactionId: String?

  public init(
    key: String?, eventType: String, notification: String? = nil, signedDate: Timestamp?,
    transactionId: String? = nil
  ) {
    self.key = key
    self.eventType = eventType
    self.notification = notification
    self.signedDate = signedDate
    self.transactionId = transactionId
  }
}

extension LedgerEvent {
  /// How explanations cite this event.
  public var reference: EventReference { compiled.reference }
}

extension EventReference {
  /// How explanations cite the event of `body` stored under `key`.
  init(_ body: LedgerEvent.Body, key: String?) {
    self.init(key: key, eventType: body.eventType, signedDate: body.effectiveDate)
    transactionId = body.transactionFacts?.transactionId
    if case .notification(let facts) = body {
      notification = Self.notificationName(facts.notificationType, facts.subtype)
    }
  }
}

extension EventReference {
  /// `NOTIFICATION_TYPE` or `NOTIFICATION_TYPE/SUBTYPE` ("?" for a notification without a type).
  static func notificationName(_ type: NotificationType?, _ subtype: NotificationSubtype?)
    -> String
  {
    let type = type?.rawValue ?? "?"
    guard let subtype else { return type }
    return type + "/" + subtype.rawValue
  }

  /// An arbitrary but fixed order, for choosing between two events that carry the same facts:
  /// the record then cites the same event whatever the arrival order.
  func ordersAfter(_ other: EventReference) -> Bool {
    (eventType, notification ?? "", key ?? "", transactionId ?? "")
      > (other.eventType, other.notification ?? "", other.key ?? "", other.transactionId ?? "")
  }
}

extension EventReference {
  /// Whether Apple signed the event: its time is Apple's `signedDate`. The ledger's own events
  /// (grants, debits, links, seat claims) carry the backend's time instead, and nobody signed
  /// them.
  public var isSignedByApple: Bool { eventType.hasPrefix("appstore.") }

  /// How a citation dates the event: "signed T" for Apple's data, "at T" for the ledger's own
  /// events, each instant written by `instant`.
  public func dated(_ instant: (Timestamp) -> String) -> String {
    switch (isSignedByApple, signedDate) {
    case (true, let time?): "signed \(instant(time))"
    case (true, nil): "signed at an unknown time"
    case (false, let time?): "at \(instant(time))"
    case (false, nil): "at an unknown time"
    }
  }
}
