import AppStoreVerification
import Foundation
import StoreLedgerCore

/// How verified App Store data and backend commands become events of the log, and back.
///
/// Streams and keys follow design.md ("Events"): `sub:<env>:<originalTransactionId>` for a
/// purchase chain, `app:<env>:<bundleId>` for notifications without a purchase,
/// `acct:<appAccountToken>` for backend commands; keys `asn2:<notificationUUID>`,
/// `tx:<env>:<transactionId>:<signedDate>`, `renewal:<env>:<originalTransactionId>:<signedDate>`.
/// The payload is the event's facts (`EventCodec`), made from Apple's claims by the one
/// mapping in Core; the claims sit beside them in the scenario format (`{"notification": …}`
/// with the nested transaction and renewal info as objects), built from the exact JSON Apple
/// signed, so unknown fields are kept; `raw_signed` is the original JWS.
public struct LedgerRecord: Sendable, Hashable {
  public var streamId: String
  public var event: NewEvent

  /// Why a payload cannot become an event.
  public struct MappingError: Error, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// `stream`: where the ledger routed a notification that carries no purchase (the seat claims
  /// an `UNCLAIM_SEATS` releases are kept in `seats:<env>:<originalTransactionId>`); nil: by
  /// what it carries.
  public static func notification(
    _ verified: VerifiedNotification, source: String, body: String? = nil,
    stream routed: String? = nil
  ) throws -> LedgerRecord {
    let payload = verified.payload
    guard let uuid = payload.notificationUUID, !uuid.isEmpty else {
      throw MappingError(description: "the notification has no notificationUUID")
    }
    let environment = payload.environment?.rawValue ?? "unknown"
    let stream: String
    if let transaction = verified.transaction?.payload {
      stream = try subscriptionStream(environment, transaction.originalTransactionId)
    } else if let renewal = verified.renewalInfo?.payload {
      stream = try subscriptionStream(environment, renewal.originalTransactionId)
    } else if let routed {
      stream = routed
    } else if let download = consentDownload(verified) {
      stream = consentStream(environment, download)
    } else {
      stream = "app:\(environment):\(payload.bundleId ?? "unknown")"
    }
    let claims = NotificationClaims(
      notification: payload, transaction: verified.transaction?.payload,
      renewalInfo: verified.renewalInfo?.payload,
      appTransaction: verified.appTransaction?.payload)
    return LedgerRecord(
      streamId: stream,
      event: EventCodec.newEvent(
        .notification(NotificationFacts(claims)), key: "asn2:\(uuid)", source: source,
        body: body, environment: environment, appleSignedAt: payload.signedDate?.date,
        rawSigned: verified.notification.compactJWS,
        claims: EventPayloadJSON.wrapping(
          try composedNotificationJSON(verified), as: "notification")))
  }

  /// A verified notification that names no app this release can read: unrouted evidence in
  /// its own stream, under a key of its own (a later routing takes `asn2:<notificationUUID>`).
  /// Its facts are a notification's facts (type, subtype, signedDate, nothing to fold); its
  /// claims are Apple's JSON as signed, unknown bodies included.
  public static func unrouted(
    _ verified: VerifiedNotification, source: String, body: String? = nil
  ) throws -> LedgerRecord {
    let payload = verified.payload
    guard let uuid = payload.notificationUUID, !uuid.isEmpty else {
      throw MappingError(description: "the notification has no notificationUUID")
    }
    let stream = NotUnderstoodNotification.unroutedStreamPrefix + uuid
    return LedgerRecord(
      streamId: stream,
      event: EventCodec.newEvent(
        .notification(NotificationFacts(NotificationClaims(notification: payload))), key: stream,
        source: source, body: body, appleSignedAt: payload.signedDate?.date,
        rawSigned: verified.notification.compactJWS,
        claims: EventPayloadJSON.wrapping(verified.notification.payloadJSON, as: "notification")))
  }

  public static func transaction(
    _ verified: VerifiedTransaction, appAccountToken: String? = nil, source: String
  ) throws -> LedgerRecord {
    let transaction = verified.payload
    let environment = transaction.environment?.rawValue ?? "unknown"
    guard let id = transaction.transactionId, let signed = transaction.signedDate else {
      throw MappingError(description: "the transaction has no transactionId or signedDate")
    }
    let claims = EventPayloadJSON.wrapping(
      verified.payloadJSON, as: "transaction",
      extras: appAccountToken.map { [("appAccountToken", $0)] } ?? [])
    let facts = try facts(
      of: .transaction(
        SignedTransactionClaims(transaction: transaction, appAccountToken: appAccountToken)))
    return LedgerRecord(
      streamId: try subscriptionStream(environment, transaction.originalTransactionId ?? id),
      event: EventCodec.newEvent(
        facts, key: "tx:\(environment):\(id):\(signed.milliseconds)", source: source,
        environment: environment, appleSignedAt: signed.date, rawSigned: verified.compactJWS,
        claims: claims))
  }

  public static func renewalInfo(_ verified: VerifiedRenewalInfo, source: String) throws
    -> LedgerRecord
  {
    let renewal = verified.payload
    let environment = renewal.environment?.rawValue ?? "unknown"
    guard let id = renewal.originalTransactionId, let signed = renewal.signedDate else {
      throw MappingError(description: "the renewal info has no originalTransactionId or signedDate")
    }
    let facts = try facts(of: .renewalInfo(RenewalInfoClaims(renewalInfo: renewal)))
    return LedgerRecord(
      streamId: try subscriptionStream(environment, id),
      event: EventCodec.newEvent(
        facts, key: "renewal:\(environment):\(id):\(signed.milliseconds)", source: source,
        environment: environment, appleSignedAt: signed.date, rawSigned: verified.compactJWS,
        claims: EventPayloadJSON.wrapping(verified.payloadJSON, as: "renewalInfo")))
  }

  /// What Get All Subscription Statuses said of one subscription, both signed items verified
  /// (Apple's `status` itself is not signed): kept as evidence in the purchase chain's stream,
  /// once per (subscription, newest signature).
  public static func status(
    _ status: SubscriptionStatus?, transaction: VerifiedTransaction,
    renewalInfo: VerifiedRenewalInfo, source: String
  ) throws -> LedgerRecord {
    let renewal = renewalInfo.payload
    let environment = renewal.environment?.rawValue ?? "unknown"
    guard let id = renewal.originalTransactionId else {
      throw MappingError(description: "the renewal info has no originalTransactionId")
    }
    let observed = StatusClaims(
      originalTransactionId: id,
      subscriptionGroupIdentifier: transaction.payload.subscriptionGroupIdentifier, status: status,
      transaction: transaction.payload, renewalInfo: renewal)
    let signed = observed.signedDate?.milliseconds ?? 0
    let facts = try facts(of: .status(observed))
    return LedgerRecord(
      streamId: try subscriptionStream(environment, id),
      event: EventCodec.newEvent(
        facts, key: "status:\(environment):\(id):\(signed):\(status?.rawValue ?? 0)",
        source: source, environment: environment, appleSignedAt: observed.signedDate?.date,
        claims: EventCodec.claims(.status(observed))))
  }

  /// A backend command (debit or link), kept in the account's stream under the caller's key.
  public static func command(_ body: LedgerEvent.Body, idempotencyKey: String, source: String)
    throws -> LedgerRecord
  {
    let (token, prefix, date): (String, String, Timestamp?) =
      switch body {
      case .debit(let debit): (debit.appAccountToken, "debit", debit.debitedAt)
      case .link(let link): (link.appAccountToken, "link", link.linkedAt)
      case .grant(let grant): (grant.appAccountToken, "grant", grant.occurredAt)
      default:
        throw MappingError(description: "only debits, links and grants are backend commands")
      }
    guard !token.isEmpty, !idempotencyKey.isEmpty else {
      throw MappingError(description: "a command needs an appAccountToken and an idempotency key")
    }
    return LedgerRecord(
      streamId: "acct:\(token)",
      event: EventCodec.newEvent(
        body, key: "\(prefix):\(idempotencyKey)", source: source, appleSignedAt: date?.date))
  }

  /// The download a `RESCIND_CONSENT` names.
  static func consentDownload(_ verified: VerifiedNotification) -> String? {
    guard verified.payload.notificationType == .rescindConsent,
      let id = verified.appTransaction?.payload.appTransactionId, !id.isEmpty
    else { return nil }
    return id
  }

  /// Where a download's withdrawn consent is kept: indexed under every account holding the
  /// download, so that their folds see it.
  public static func consentStream(_ environment: String, _ appTransactionId: String) -> String {
    "consent:\(environment):\(appTransactionId)"
  }

  /// Where a subscription's developer-hosted seat claims are kept.
  public static func seatsStream(_ environment: String, _ originalTransactionId: String) -> String {
    "seats:\(environment):\(originalTransactionId)"
  }

  /// The facts of verified claims, through the one mapping.
  private static func facts(of claims: AppleClaims) throws -> LedgerEvent.Body {
    guard let facts = LedgerEvent.Body(claims) else {
      throw MappingError(description: "the signed data holds no facts to keep")
    }
    return facts
  }

  private static func subscriptionStream(_ environment: String, _ id: String?) throws -> String {
    guard let id, !id.isEmpty else {
      throw MappingError(description: "the purchase has no originalTransactionId")
    }
    return "sub:\(environment):\(id)"
  }

  /// Apple's notification JSON with the nested JWS strings replaced by their verified JSON.
  private static func composedNotificationJSON(_ verified: VerifiedNotification) throws
    -> [UInt8]
  {
    var replacements: [(field: String, jws: String, json: [UInt8])] = []
    if let transaction = verified.transaction {
      replacements.append(
        ("signedTransactionInfo", transaction.compactJWS, transaction.payloadJSON))
    }
    if let renewal = verified.renewalInfo {
      replacements.append(("signedRenewalInfo", renewal.compactJWS, renewal.payloadJSON))
    }
    let outer = verified.notification.payloadJSON
    if let spliced = EventPayloadJSON.replacing(replacements, in: outer) { return spliced }
    return try recomposedNotificationJSON(verified)
  }

  /// The general way, for JSON the splice does not handle (a nested JWS written with
  /// whitespace or escapes): parse, replace, write.
  static func recomposedNotificationJSON(_ verified: VerifiedNotification) throws -> [UInt8] {
    var json = try object(verified.notification.payloadJSON)
    if var data = json["data"] as? [String: Any] {
      if let transaction = verified.transaction {
        data["signedTransactionInfo"] = try object(transaction.payloadJSON)
      }
      if let renewal = verified.renewalInfo {
        data["signedRenewalInfo"] = try object(renewal.payloadJSON)
      }
      json["data"] = data
    }
    return Array(try JSONSerialization.data(withJSONObject: json))
  }

  private static func object(_ bytes: [UInt8]) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
      throw MappingError(description: "a signed payload is not a JSON object")
    }
    return object
  }
}

extension LedgerRecord {
  /// `body`'s record, its mapping failure as the ledger's `invalid_payload`.
  static func mapped(_ body: () throws -> LedgerRecord) throws(LedgerError) -> LedgerRecord {
    do {
      return try body()
    } catch let error as LedgerRecord.MappingError {
      throw LedgerError(.invalidPayload, error.description)
    } catch {
      throw LedgerError(.invalidPayload, "the payload cannot become an event")
    }
  }
}
