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
  /// reads back (AccountViewSlice): consumables without the account token each repeats, in
  /// PostgreSQL's `jsonb` layout, so that a fold and the stored view answer the same bytes.
  public func json(of part: AccountViewSlice.Part) -> [UInt8] {
    var json = JSONTextWriter(layout: .jsonb)
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
          json.member("environments") { $0.strings(balance.environments) }
        }
      }
    }
    return json.bytes
  }
}
