import StoreLedgerCore
import StoreLedgerPostgres

/// What one account has at one time: its entitlements, its subscriptions and its consumable
/// balances. The per-account read model stores one, with the span of time it holds for.
public struct AccountSummary: Hashable, Sendable, Codable {
  public var entitlements: [EntitlementView]
  public var subscriptions: [SubscriptionView]
  public var consumables: [ConsumableView]

  public init(
    entitlements: [EntitlementView], subscriptions: [SubscriptionView],
    consumables: [ConsumableView]
  ) {
    self.entitlements = entitlements
    self.subscriptions = subscriptions
    self.consumables = consumables
  }

  /// The account's part of `view` at `time`.
  public init(_ view: LedgerView, for appAccountToken: String, at time: Timestamp) {
    let snapshot = view.snapshot(at: time)
    self.init(
      entitlements: snapshot.entitlements.filter { $0.appAccountToken == appAccountToken },
      subscriptions: snapshot.subscriptions.filter { $0.appAccountToken == appAccountToken },
      consumables: snapshot.consumables.filter { $0.appAccountToken == appAccountToken })
  }
}

extension AccountSummary {
  /// The summary as JSON text, as its `Encodable` writes it (the stored read model).
  public var jsonText: String {
    var json = JSONTextWriter()
    json.object { json in
      json.member("entitlements") { $0.array(entitlements) { $1.write(to: &$0) } }
      json.member("subscriptions") { $0.array(subscriptions) { $1.write(to: &$0) } }
      json.member("consumables") { $0.array(consumables) { $1.write(to: &$0) } }
    }
    return json.text
  }
}

extension AccountSummary {
  /// One part as the account API returns it (a JSON array), written as the stored view's part
  /// reads back (AccountViewSlice): consumables without the account token each repeats.
  public func json(of part: AccountViewSlice.Part) -> [UInt8] {
    var json = JSONTextWriter()
    switch part {
    case .entitlements: json.array(entitlements) { $1.write(to: &$0) }
    case .subscriptions: json.array(subscriptions) { $1.write(to: &$0) }
    case .consumables:
      json.array(consumables) { json, balance in
        json.object { json in
          json.member("productId", balance.productId)
          json.member("purchased", balance.purchased)
          json.member("refunded", balance.refunded)
          json.member("debited", balance.debited)
          json.member("balance", balance.balance)
        }
      }
    }
    return json.bytes
  }
}
