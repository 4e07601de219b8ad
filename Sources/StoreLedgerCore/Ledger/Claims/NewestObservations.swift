/// The newest snapshot the log holds of each transaction and of each subscription's renewal
/// info, whichever event brought it (a notification, a forwarded or fetched transaction, a
/// status observation). Apple signs every API response anew, so a fetched snapshot that says
/// what the newest one already says is a repeat, not a new event (design.md, "Events"): it is
/// compared with the newest only, so A, then B, then A again still ends on A.
public struct NewestObservations: Sendable {
  /// By `transactionId`: the newest snapshot and the index of the event that brought it.
  public private(set) var transactions:
    [String: (payload: JWSTransactionDecodedPayload, event: Int)] = [:]
  /// By `originalTransactionId`.
  public private(set) var renewalInfos:
    [String: (payload: JWSRenewalInfoDecodedPayload, event: Int)] = [:]

  /// Of the claims of a stream's events (nil for events without claims, such as backend
  /// commands); an entry's `event` is its index in `claims`.
  public init(_ claims: [AppleClaims?]) {
    for (index, claims) in claims.enumerated() {
      if let claims { note(claims, index: index) }
    }
  }

  private mutating func note(_ claims: AppleClaims, index: Int) {
    switch claims {
    case .notification(let received):
      received.transaction.map { note($0, index: index) }
      received.renewalInfo.map { note($0, index: index) }
    case .transaction(let observed): note(observed.transaction, index: index)
    case .renewalInfo(let observed): note(observed.renewalInfo, index: index)
    case .status(let observed):
      observed.transaction.map { note($0, index: index) }
      observed.renewalInfo.map { note($0, index: index) }
    }
  }

  private mutating func note(_ payload: JWSTransactionDecodedPayload, index: Int) {
    guard let id = payload.transactionId else { return }
    Self.keepNewest(payload, index: index, in: &transactions[id])
  }

  private mutating func note(_ payload: JWSRenewalInfoDecodedPayload, index: Int) {
    guard let id = payload.originalTransactionId else { return }
    Self.keepNewest(payload, index: index, in: &renewalInfos[id])
  }

  private static func keepNewest<Payload: SignedSnapshot>(
    _ payload: Payload, index: Int, in newest: inout (payload: Payload, event: Int)?
  ) {
    if newest.map({ signed(payload.signedDate) > signed($0.payload.signedDate) }) ?? true {
      newest = (payload, index)
    }
  }

  /// The event holding the newest snapshot of the transaction, when `payload` says the same
  /// (every field but `signedDate`) and is not older.
  public func repeated(_ payload: JWSTransactionDecodedPayload) -> Int? {
    Self.repeated(payload, newest: payload.transactionId.flatMap { transactions[$0] })
  }

  /// The same for a renewal info.
  public func repeated(_ payload: JWSRenewalInfoDecodedPayload) -> Int? {
    Self.repeated(payload, newest: payload.originalTransactionId.flatMap { renewalInfos[$0] })
  }

  private static func repeated<Payload: SignedSnapshot>(
    _ payload: Payload, newest: (payload: Payload, event: Int)?
  ) -> Int? {
    guard let newest, signed(payload.signedDate) >= signed(newest.payload.signedDate) else {
      return nil
    }
    var resigned = payload
    resigned.signedDate = newest.payload.signedDate
    return resigned == newest.payload ? newest.event : nil
  }

  private static func signed(_ date: Timestamp?) -> Int64 { date?.milliseconds ?? .min }
}

/// A payload Apple signs with a `signedDate` (what differs between two signings of the same
/// facts).
protocol SignedSnapshot: Equatable {
  var signedDate: Timestamp? { get set }
}

extension JWSTransactionDecodedPayload: SignedSnapshot {}
extension JWSRenewalInfoDecodedPayload: SignedSnapshot {}
