/// How StoreLedger answers Apple's refund requests, as the operator configures it (a JSON
/// file): whether the app obtains the customer's consent (without it nothing may be sent), and
/// which refund to prefer by what the ledger knows of the purchase.
///
/// ```json
/// { "consent": "recorded", "undelivered": "GRANT_FULL",
///   "consumables": { "grantFullBelowPercent": 10, "declineAbovePercent": 50,
///                    "between": "GRANT_PRORATED" },
///   "autoRenewable": "GRANT_PRORATED", "nonConsumable": "DECLINE", "nonRenewing": null }
/// ```
public struct ConsumptionPolicy: Hashable, Sendable {
  /// Where the customer's consent to share consumption data comes from. Without consent
  /// StoreLedger sends nothing and closes the request as skipped.
  public enum ConsentSource: String, Hashable, Sendable, Codable, CaseIterable {
    /// The app does not obtain consent: nothing is ever sent.
    case none
    /// Only a consent the app recorded for the customer (``RefundConsent``), in force when the
    /// request is answered.
    case recorded
    /// The operator states the app collects consent at purchase: sent unless the customer
    /// withdrew it (a recorded withdrawal).
    case atPurchase
  }

  public var consent: ConsentSource
  /// Whether the policy may ever send (any consent source but `none`).
  public var customerConsented: Bool { consent != .none }
  /// The preference when the ledger never delivered the purchase.
  public var undelivered: RefundPreference?
  public var consumables: Consumables
  public var autoRenewable: RefundPreference?
  public var nonConsumable: RefundPreference?
  public var nonRenewing: RefundPreference?

  /// Consumables by the share of the purchase spent: a full refund below one bound, a
  /// decline above the other, `between` in the middle.
  public struct Consumables: Hashable, Sendable {
    public var grantFullBelowPercent: Int
    public var declineAbovePercent: Int
    public var between: RefundPreference?

    public init(
      grantFullBelowPercent: Int = 10, declineAbovePercent: Int = 50,
      between: RefundPreference? = .grantProrated
    ) {
      self.grantFullBelowPercent = grantFullBelowPercent
      self.declineAbovePercent = declineAbovePercent
      self.between = between
    }
  }

  /// `customerConsented`, when given, is the older form: true as `atPurchase`, false as `none`.
  public init(
    consent: ConsentSource = .recorded, customerConsented: Bool? = nil,
    undelivered: RefundPreference? = .grantFull,
    consumables: Consumables = .init(), autoRenewable: RefundPreference? = nil,
    nonConsumable: RefundPreference? = nil, nonRenewing: RefundPreference? = nil
  ) {
    self.consent = customerConsented.map { $0 ? .atPurchase : .none } ?? consent
    self.undelivered = undelivered
    self.consumables = consumables
    self.autoRenewable = autoRenewable
    self.nonConsumable = nonConsumable
    self.nonRenewing = nonRenewing
  }

  /// What the policy answers for a purchase: an answer and the reasons for it, or why
  /// nothing may be sent.
  public struct Decision: Hashable, Sendable, Codable {
    public var answer: ConsumptionInformation?
    public var reasons: [String]
    /// Set when nothing may be sent.
    public var skipReason: String?

    public init(answer: ConsumptionInformation?, reasons: [String], skipReason: String?) {
      self.answer = answer
      self.reasons = reasons
      self.skipReason = skipReason
    }
  }

  public func decide(_ facts: ConsumptionFacts) -> Decision {
    if facts.familyShared {
      return Decision(
        answer: nil, reasons: [],
        skipReason: "Apple takes no consumption information for a family-shared purchase")
    }
    let consentReason: String
    switch (consent, facts.consent) {
    case (.none, _):
      return Decision(
        answer: nil, reasons: [],
        skipReason: "the policy says the app does not obtain the customer's consent")
    case (_, let recorded?) where !recorded.consented:
      return Decision(
        answer: nil, reasons: [],
        skipReason: "the customer withdrew consent on \(recorded.collectedAt)")
    case (_, let recorded?):
      consentReason = "the customer consented on \(recorded.collectedAt) (recorded by the app)"
    case (.recorded, nil):
      return Decision(
        answer: nil, reasons: [],
        skipReason: "no consent is recorded for the customer: the app records it "
          + "(POST /v1/accounts/{token}/consent), or the policy's consent is atPurchase")
    case (.atPurchase, nil):
      consentReason = "consent collected at purchase (the policy's consent is atPurchase)"
    }
    var reasons = [consentReason, facts.deliveryReason]
    let delivery: DeliveryStatus = facts.delivered ? .delivered : .undeliveredOther
    var percentage: Int32? = nil
    if facts.productType == .consumable {
      percentage = facts.delivered ? (facts.consumedMilliunits ?? 0) : 0
      reasons.append("\(Self.percent(percentage ?? 0)) of the purchase's units spent")
    }
    let preference = self.preference(facts, percentage: percentage, reasons: &reasons)
    reasons.append(
      facts.sampleContentProvided
        ? "the catalog says a sample was available" : "the catalog names no sample")
    let answer = ConsumptionInformation(
      customerConsented: true, deliveryStatus: delivery,
      sampleContentProvided: facts.sampleContentProvided, consumptionPercentage: percentage,
      refundPreference: preference)
    return Decision(answer: answer, reasons: reasons, skipReason: nil)
  }

  private func preference(
    _ facts: ConsumptionFacts, percentage: Int32?, reasons: inout [String]
  ) -> RefundPreference? {
    func chosen(_ preference: RefundPreference?, _ why: String) -> RefundPreference? {
      reasons.append("preference \(preference?.rawValue ?? "none"): \(why)")
      return preference
    }
    guard facts.delivered else { return chosen(undelivered, "the purchase was not delivered") }
    switch facts.productType {
    case .consumable:
      let spent = Int(percentage ?? 0)
      if spent < consumables.grantFullBelowPercent * 1000 {
        return chosen(.grantFull, "less than \(consumables.grantFullBelowPercent) % spent")
      }
      if spent > consumables.declineAbovePercent * 1000 {
        return chosen(.decline, "more than \(consumables.declineAbovePercent) % spent")
      }
      // Apple takes a prorated refund of a one-time purchase only strictly between 0 and 100 %.
      if consumables.between == .grantProrated, spent == 0 || spent == 100_000 {
        return chosen(spent == 0 ? .grantFull : .decline, "nothing or everything spent")
      }
      return chosen(consumables.between, "between the policy's bounds")
    case .autoRenewableSubscription: return chosen(autoRenewable, "the policy for subscriptions")
    case .nonConsumable: return chosen(nonConsumable, "the policy for non-consumables")
    case .nonRenewingSubscription:
      return chosen(nonRenewing, "the policy for non-renewing subscriptions")
    default: return chosen(nil, "a product type the policy has no rule for")
    }
  }

  static func percent(_ milliunits: Int32) -> String {
    let tenths = (Int(milliunits) + 50) / 100
    return "\(tenths / 10).\(tenths % 10) %"
  }
}

extension ConsumptionPolicy: Codable {
  /// A policy file that cannot be used; `description` names the member and what to write.
  public struct ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    public let code = "invalid_policy"
    public let description: String
  }

  private enum Keys: String, CodingKey, CaseIterable {
    case consent, customerConsented, undelivered, consumables, autoRenewable, nonConsumable
    case nonRenewing
  }
  private enum ConsumableKeys: String, CodingKey, CaseIterable {
    case grantFullBelowPercent, declineAbovePercent, between
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: AnyKey.self)
    try Self.refuseUnknown(container, Keys.allCases.map(\.rawValue), in: "the policy")
    func member<T: Decodable>(_ key: Keys, _ type: T.Type) throws -> T? {
      try container.decodeIfPresent(T.self, forKey: AnyKey(key.rawValue))
    }
    // `consent` decides when given; the older `customerConsented` only without it.
    let legacy = try member(.customerConsented, Bool.self)
    if let source = try member(.consent, String.self) {
      guard let known = ConsentSource(rawValue: source) else {
        throw ValidationError(
          description: "consent: \"\(source)\" is not one of none, recorded, atPurchase")
      }
      consent = known
    } else {
      consent = legacy.map { $0 ? .atPurchase : .none } ?? .recorded
    }
    undelivered = try Self.preference(container, .undelivered, default: .grantFull)
    autoRenewable = try Self.preference(container, .autoRenewable, default: nil)
    nonConsumable = try Self.preference(container, .nonConsumable, default: nil)
    nonRenewing = try Self.preference(container, .nonRenewing, default: nil)
    consumables = Consumables()
    let key = AnyKey(Keys.consumables.rawValue)
    if container.contains(key), try !container.decodeNil(forKey: key) {
      let nested = try container.nestedContainer(keyedBy: AnyKey.self, forKey: key)
      try Self.refuseUnknown(nested, ConsumableKeys.allCases.map(\.rawValue), in: "consumables")
      consumables.grantFullBelowPercent =
        try nested.decodeIfPresent(Int.self, forKey: AnyKey("grantFullBelowPercent")) ?? 10
      consumables.declineAbovePercent =
        try nested.decodeIfPresent(Int.self, forKey: AnyKey("declineAbovePercent")) ?? 50
      consumables.between = try Self.preference(nested, "between", default: .grantProrated)
    }
    try validate()
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(consent, forKey: .consent)
    try container.encode(undelivered, forKey: .undelivered)
    var nested = container.nestedContainer(keyedBy: ConsumableKeys.self, forKey: .consumables)
    try nested.encode(consumables.grantFullBelowPercent, forKey: .grantFullBelowPercent)
    try nested.encode(consumables.declineAbovePercent, forKey: .declineAbovePercent)
    try nested.encode(consumables.between, forKey: .between)
    try container.encode(autoRenewable, forKey: .autoRenewable)
    try container.encode(nonConsumable, forKey: .nonConsumable)
    try container.encode(nonRenewing, forKey: .nonRenewing)
  }

  /// Bounds within 0–100. Bands that overlap (grantFullBelowPercent over declineAbovePercent)
  /// are a policy too: where they overlap, GRANT_FULL wins (it is decided first).
  public func validate() throws {
    let (low, high) = (consumables.grantFullBelowPercent, consumables.declineAbovePercent)
    guard (0...100).contains(low), (0...100).contains(high) else {
      throw ValidationError(description: "consumables: the percentages must be 0 to 100")
    }
  }

  private static func preference(
    _ container: KeyedDecodingContainer<AnyKey>, _ key: Keys, default value: RefundPreference?
  ) throws -> RefundPreference? {
    try preference(container, key.rawValue, default: value)
  }

  private static func preference(
    _ container: KeyedDecodingContainer<AnyKey>, _ name: String, default value: RefundPreference?
  ) throws -> RefundPreference? {
    let key = AnyKey(name)
    guard container.contains(key) else { return value }
    if try container.decodeNil(forKey: key) { return nil }
    let preference = try container.decode(RefundPreference.self, forKey: key)
    guard RefundPreference.knownValues.contains(preference) else {
      throw ValidationError(
        description: "\(name): \"\(preference.rawValue)\" is not one of "
          + RefundPreference.knownValues.map(\.rawValue).joined(separator: ", ")
          + " (or null for none)")
    }
    return preference
  }

  private static func refuseUnknown(
    _ container: KeyedDecodingContainer<AnyKey>, _ known: [String], in place: String
  ) throws {
    if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: {
      !known.contains($0)
    }) {
      throw ValidationError(
        description: "\(place): unknown member \"\(unknown)\" (known: "
          + known.joined(separator: ", ") + ")")
    }
  }
}

/// A coding key for any member name (to refuse the unknown ones by name).
struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ name: String) { stringValue = name }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}
