import AppStoreServerAPI
import Foundation
import StoreLedgerCore

/// Who holds a purchase, and the backend's word on it: a link of a purchase chain to an
/// account, or a transfer that moves it from its holder, decided under the account's lock.
struct AccountLinks: Sendable {
  let reader: AccountReader
  let writer: AccountWriter
  /// Who holds which streams, and the refund request streams a linked chain brings along.
  let index: any AccountIndex
  let erasure: any AccountErasureStore
  let calls: StorageCalls
  let configuration: LedgerConfiguration

  /// The backend says `appAccountToken` owns the purchase chain `originalTransactionId`.
  ///
  /// A purchase has one owner. Linking a purchase another account holds (Apple signed that
  /// account's token into it, or it was linked or transferred there) is refused with
  /// `purchase_held_by_another_account`, naming nothing of that account, unless `transfer`
  /// is true: a transfer moves the purchase — its entitlements and balances, its events and
  /// the token at Apple — in one event that both accounts hold, explain and are told of.
  /// With `apple`, the token is first set at Apple (Set App Account Token), so later
  /// transactions and notifications carry it; Apple's refusal is thrown (`apple_refused`, with
  /// Apple's error code) and nothing is stored. A refused link never calls Apple.
  func link(
    appAccountToken: String, originalTransactionId: String, at time: Date = Date(),
    apple: AppStoreServerAPIClient? = nil, transfer: Bool = false
  ) async throws(LedgerError) -> IngestReceipt {
    guard !appAccountToken.isEmpty, !originalTransactionId.isEmpty else {
      throw LedgerError(.invalidRequest, "a link needs an account token and a transaction id")
    }
    let appAccountToken = try AppAccountToken.checked(appAccountToken)
    let holder = try await holder(ofChain: originalTransactionId)
    let moving = holder.map { $0 != appAccountToken } ?? false
    // A purchase of an erased account is re-linked, as a transfer, without asking for one.
    var fromErased = false
    if moving, !transfer, let holder {
      fromErased = try await isRetired(holder, holding: originalTransactionId)
    }
    if moving, !transfer, !fromErased {
      throw LedgerError(
        .purchaseHeldByAnotherAccount,
        "this purchase belongs to another account; to move it to this one, link it again with "
          + "\"transfer\": true (its entitlements then leave the other account)")
    }
    if let apple {
      do {
        try await apple.setAppAccountToken(
          appAccountToken, originalTransactionId: originalTransactionId)
      } catch {
        throw LedgerError.apple(error, doing: "setting the account token")
      }
    }
    let chainStreams =
      configuration.purchaseStreams(ofChain: originalTransactionId)
      + (try await refundRequestStreams(ofChain: originalTransactionId))
    guard moving, let holder else {
      let link = AccountLinked(
        appAccountToken: appAccountToken, originalTransactionId: originalTransactionId,
        linkedAt: Timestamp(time), setAtApple: apple == nil ? nil : Timestamp(time))
      return try await writer.decideAndAppend(
        .link(link), for: appAccountToken,
        idempotencyKey: "\(appAccountToken):\(originalTransactionId)",
        alsoIndexing: chainStreams)
    }
    // The transfer lives in the chain's own stream, which both accounts hold: each one's
    // history and explanation show it, and neither holds the other's account stream.
    let moved = AccountLinked(
      appAccountToken: appAccountToken, originalTransactionId: originalTransactionId,
      linkedAt: Timestamp(time), setAtApple: apple == nil ? nil : Timestamp(time),
      transferredFrom: holder)
    return try await writer.decideAndAppend(
      .link(moved), for: appAccountToken,
      idempotencyKey:
        "transfer:\(originalTransactionId):\(holder):\(appAccountToken):\(Timestamp(time).milliseconds)",
      alsoIndexing: chainStreams, in: Self.transferStream(originalTransactionId),
      alsoFor: [holder])
  }

  static func transferStream(_ originalTransactionId: String) -> String {
    "transfer:\(originalTransactionId)"
  }

  /// The account holding the purchase chain now: as its events and transfers decide, else
  /// (a purchase linked before transfers were recorded in the chain's own stream) an account
  /// that holds the chain's streams.
  func holder(ofChain originalTransactionId: String) async throws(LedgerError) -> String? {
    let streams =
      configuration.purchaseStreams(ofChain: originalTransactionId) + [
        Self.transferStream(originalTransactionId)
      ]
    let view = try await reader.view(ofStreams: streams, skippingErased: true)
    let records = view.state.transactions.values.filter {
      $0.facts.originalTransactionId == originalTransactionId
    }
    if let token = view.accountToken(ofChain: originalTransactionId, records: Array(records)) {
      return token
    }
    let index = self.index
    return try await calls.run { try await index.accounts(holding: streams).first }
  }

  /// Whether `token`, the holder of the chain by Apple's signature, names an account an
  /// erasure removed that does not hold the chain since (its later data quarantined): such a
  /// purchase moves freely.
  func isRetired(_ token: String, holding originalTransactionId: String)
    async throws(LedgerError) -> Bool
  {
    let (erasure, index) = (self.erasure, self.index)
    let streams = configuration.purchaseStreams(ofChain: originalTransactionId)
    return try await calls.run {
      guard try await erasure.erasure(ofAccount: token) != nil else { return false }
      return !(try await index.accounts(holding: streams).contains(token))
    }
  }

  /// The streams of the refund requests about the chain's purchases: a link joins them too.
  func refundRequestStreams(ofChain originalTransactionId: String) async throws(LedgerError)
    -> [String]
  {
    let index = self.index
    return try await calls.run {
      try await index.refundRequestStreams(ofChain: originalTransactionId)
    }
  }
}
