import Crypto
import Foundation
import StoreLedgerCore

/// Operators' grants of entitlements: give an account a month of "pro" after an outage or a
/// complaint, end it, list them, and grant many accounts at once. Grants are StoreLedger's own
/// events (`ledger.grant.v1` in the account's command stream), never mixed with Apple's
/// evidence: they decide entitlements by rule E7 with the source `grant:<id>`, and the change
/// feed tells them as `grant.started` and `grant.ended`. Nothing changes at Apple (billing
/// is untouched).
public struct SupportGrants: Sendable {
  let reader: AccountReader
  let writer: AccountWriter
  let erasures: AccountErasure
  let lists: AccountLists

  /// The most accounts one bulk grant names.
  public static let bulkLimit = 10_000

  /// Grants the entitlement; the same request with the same `idempotencyKey` again grants
  /// once (and answers the first grant).
  public func grant(_ request: SupportGrantRequest, now: Date = Date()) async throws(LedgerError)
    -> SupportGrantStatus
  {
    try await granting(request, now: now).status
  }

  /// The grant, and whether an earlier request under the same key had made it already (the
  /// append found the key: nothing stored).
  func granting(_ request: SupportGrantRequest, now: Date) async throws(LedgerError)
    -> (status: SupportGrantStatus, wasDuplicate: Bool)
  {
    let token = try AppAccountToken.checked(request.appAccountToken)
    let entitlement = request.entitlement.trimmingCharacters(in: .whitespaces)
    // Lengths count Unicode code points, as the HTTP contract's JSON Schema does.
    guard !entitlement.isEmpty, entitlement.unicodeScalars.count <= 255 else {
      throw LedgerError(.invalidRequest, "name the entitlement to grant (1 to 255 characters)")
    }
    let reason = try Self.reason(request.reason)
    if let key = request.idempotencyKey, key.isEmpty || key.unicodeScalars.count > 255 {
      throw LedgerError(.invalidRequest, "an idempotency key is 1 to 255 characters")
    }
    try await refuseIfQuarantined(token)
    let grantId =
      request.idempotencyKey.map { Self.grantId(token: token, key: $0) }
      ?? UUID().uuidString.lowercased()
    let event = SupportGrantEvent(
      .started, grantId: grantId, appAccountToken: token, entitlement: entitlement,
      startsAt: request.startsAt.map(Timestamp.init), endsAt: request.endsAt.map(Timestamp.init),
      reason: reason, by: Self.who(request.by), batch: request.idempotencyKey,
      forced: request.force, occurredAt: Timestamp(now))
    let stored = try await writer.decideAndAppend(
      .grant(event), for: token, idempotencyKey: "\(grantId):started", source: "grants")
    return (try await status(of: grantId, for: token, at: now), stored.wasDuplicate)
  }

  /// Ends a grant of the account now; ending it again changes nothing.
  public func end(
    grantId: String, of appAccountToken: String, reason: String, by: String, now: Date = Date()
  ) async throws(LedgerError) -> SupportGrantStatus {
    let token = try AppAccountToken.checked(appAccountToken)
    let id = grantId.lowercased()
    guard UUID(uuidString: id) != nil else {
      throw LedgerError(.invalidRequest, "a grant id is a UUID, as the grant's answer gave it")
    }
    let event = SupportGrantEvent(
      .ended, grantId: id, appAccountToken: token, entitlement: "-",
      reason: try Self.reason(reason),
      by: Self.who(by), occurredAt: Timestamp(now))
    _ = try await writer.decideAndAppend(
      .grant(event), for: token, idempotencyKey: "\(id):ended", source: "grants")
    return try await status(of: id, for: token, at: now)
  }

  /// Every grant given to the account by `time`, newest first, with where it stands then.
  public func grants(of appAccountToken: String, at time: Date = Date())
    async throws(LedgerError) -> [SupportGrantStatus]
  {
    let token = try AppAccountToken.checked(appAccountToken)
    let view = try await reader.view(of: token)
    return view.supportGrants(at: Timestamp(time)).filter {
      $0.started?.appAccountToken == token
    }.compactMap { SupportGrantStatus($0, at: Timestamp(time)) }
  }

  /// Grants the entitlement to each account, idempotently by `idempotencyKey`: a second run
  /// with the same key grants nobody twice. An account that cannot be granted (not a token, an
  /// erased account) is reported and the others are granted; what is wrong for every account
  /// (an unknown entitlement, a period that ends before it starts) is thrown, nobody granted.
  public func grant(
    _ tokens: [String], entitlement: String, startsAt: Date? = nil, endsAt: Date? = nil,
    reason: String, by: String, idempotencyKey: String, force: Bool = false, now: Date = Date()
  ) async throws(LedgerError) -> BulkGrantReceipt {
    guard !tokens.isEmpty, tokens.count <= Self.bulkLimit else {
      throw LedgerError(
        .invalidRequest, "a bulk grant names 1 to \(Self.bulkLimit) accounts")
    }
    guard !idempotencyKey.isEmpty, idempotencyKey.unicodeScalars.count <= 255 else {
      throw LedgerError(
        .invalidRequest,
        "a bulk grant needs an idempotency key (1 to 255 characters): running it again then grants nobody twice"
      )
    }
    _ = try Self.reason(reason)
    var receipt = BulkGrantReceipt(
      idempotencyKey: idempotencyKey, granted: [], alreadyGranted: [], refused: [])
    var seen = Set<String>()
    for raw in tokens {
      guard let token = AppAccountToken.fromAnySpelling(raw) else {
        receipt.refused.append(
          .init(appAccountToken: raw, code: "invalid_request", message: "not an appAccountToken"))
        continue
      }
      guard seen.insert(token).inserted else { continue }
      do {
        let (status, before) = try await granting(
          SupportGrantRequest(
            appAccountToken: token, entitlement: entitlement, startsAt: startsAt, endsAt: endsAt,
            reason: reason, by: by, idempotencyKey: idempotencyKey, force: force), now: now)
        if before {
          receipt.alreadyGranted.append(status)
        } else {
          receipt.granted.append(status)
        }
      } catch
        where error.code == .invalidRequest || error.code == .idempotencyKeyReused
        || error.code == .accountErased
      {
        receipt.refused.append(
          .init(appAccountToken: token, code: error.code.rawValue, message: error.message))
      }
    }
    return receipt
  }

  /// The accounts whose subscriptions entered `status` in `[from, before)`: who to grant to
  /// after an outage ("everyone who went into billing retry").
  public func accounts(enteredStatus status: Int32, from: Date, before: Date)
    async throws(LedgerError) -> [String]
  {
    let filter = StatusTransitionFilter(
      status: status, from: Timestamp(from), before: Timestamp(before))
    var tokens: [String] = []
    var page = try await lists.statusTransitions(filter, limit: AccountLists.pageLimit)
    while true {
      tokens += page.rows.map(\.appAccountToken).filter { !$0.isEmpty }
      guard let cursor = page.nextCursor else { break }
      page = try await lists.statusTransitions(
        filter, limit: AccountLists.pageLimit, cursor: cursor)
    }
    var seen = Set<String>()
    return tokens.filter { seen.insert($0).inserted }
  }

  private func status(of grantId: String, for token: String, at now: Date)
    async throws(LedgerError) -> SupportGrantStatus
  {
    let view = try await reader.view(of: token)
    guard let record = view.state.supportGrants[grantId],
      let status = SupportGrantStatus(record, at: Timestamp(now))
    else {
      throw LedgerError(.notFound, "this account holds no grant \(grantId)")
    }
    return status
  }

  /// A grant for an account erased with its later data quarantined would be stored attached
  /// to no account: written, yet never found (a retry writes another). It is refused before
  /// anything is written.
  func refuseIfQuarantined(_ token: String) async throws(LedgerError) {
    guard let erasure = try await erasures.erasure(ofAccount: token),
      erasure.later == .quarantine
    else { return }
    throw LedgerError(
      .accountErased,
      "this account was erased (erasure \(erasure.erasureId.uuidString.lowercased())) and what "
        + "names it since is quarantined: nothing was granted; grant to the customer's new "
        + "appAccountToken")
  }

  /// The grant id of `key` on `token`: the same on every run, another on another account.
  static func grantId(token: String, key: String) -> String {
    var bytes = Array(
      SHA256.hash(data: Data("storeledger grant\n\(token)\n\(key)".utf8)).prefix(16))
    bytes[6] = (bytes[6] & 0x0f) | 0x50
    bytes[8] = (bytes[8] & 0x3f) | 0x80
    let hex = Hex.encode(bytes)
    let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map {
      String(
        hex[
          hex.index(
            hex.startIndex, offsetBy: $0.lowerBound)..<hex.index(
              hex.startIndex, offsetBy: $0.upperBound)])
    }
    return parts.joined(separator: "-")
  }

  static func reason(_ text: String) throws(LedgerError) -> String {
    let reason = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !reason.isEmpty, reason.unicodeScalars.count <= 500 else {
      throw LedgerError(
        .invalidRequest, "say why (`reason`, 1 to 500 characters): it is kept in the log")
    }
    return reason
  }

  static func who(_ by: String) -> String {
    let who = by.trimmingCharacters(in: .whitespacesAndNewlines)
    return who.isEmpty ? "unnamed operator" : String(who.prefix(200))
  }
}
