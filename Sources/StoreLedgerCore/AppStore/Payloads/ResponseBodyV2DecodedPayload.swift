/// The decoded `signedPayload` of an App Store Server Notification V2.
///
/// One body object is present: `data`, `summary`, `externalPurchaseToken`, `appData`,
/// `unclaimInfo`, or one Apple adds later. Apple has added a body object four times since
/// 2021, so members this release does not model are kept in ``unknownMembers`` (whole, as
/// JSON) instead of being dropped, and the app's identity is read from whichever object
/// carries it, known or not. Nested JWS strings stay strings here; the verifier decodes and
/// verifies them separately.
public struct ResponseBodyV2DecodedPayload: Hashable, Sendable {
  public var notificationType: NotificationType?
  public var subtype: NotificationSubtype?
  public var notificationUUID: String?
  public var version: String?
  public var signedDate: Timestamp?
  public var data: NotificationData?
  public var summary: NotificationSummary?
  public var externalPurchaseToken: ExternalPurchaseToken?
  public var appData: AppData?
  public var unclaimInfo: UnclaimInfo?
  /// Top-level members this release does not model, by name: a body object Apple added
  /// after it (kept whole) or any other new field.
  public var unknownMembers: [String: JSONValue] = [:]

  public init() {}

  /// The members of the payload this release models.
  public static let modelledMembers: Set<String> = [
    "notificationType", "subtype", "notificationUUID", "version", "signedDate", "data",
    "summary", "externalPurchaseToken", "appData", "unclaimInfo",
  ]

  /// The body objects this release models.
  public static let knownBodyObjects = [
    "data", "summary", "externalPurchaseToken", "appData", "unclaimInfo",
  ]

  /// The names of the body objects present (an unknown member that is a JSON object counts
  /// as a body), known ones first.
  public var bodyObjects: [String] {
    let known: [(String, Bool)] = [
      ("data", data != nil), ("summary", summary != nil),
      ("externalPurchaseToken", externalPurchaseToken != nil), ("appData", appData != nil),
      ("unclaimInfo", unclaimInfo != nil),
    ]
    return known.filter(\.1).map(\.0) + unknownBodyObjects
  }

  /// The body objects this release does not model, sorted by name.
  public var unknownBodyObjects: [String] {
    unknownMembers.compactMap { name, value in
      if case .object = value { name } else { nil }
    }.sorted()
  }

  /// Whether this release understands the notification: its type is one it knows and it
  /// has no body object it does not model.
  public var isUnderstood: Bool {
    guard let notificationType, NotificationType.knownValues.contains(notificationType) else {
      return false
    }
    return unknownBodyObjects.isEmpty
  }

  /// The environment the notification belongs to, read from whichever body carries it.
  ///
  /// An external purchase token carries no environment: as Apple's libraries do, an id that
  /// starts with `SANDBOX` means Sandbox and any other id means Production. A body object
  /// this release does not model is read for an `environment` member; nil when no body
  /// names one (the notification cannot be routed).
  public var environment: AppStoreEnvironment? {
    if let data { return data.environment }
    if let summary { return summary.environment }
    if let token = externalPurchaseToken {
      guard let id = token.externalPurchaseId else { return nil }
      return id.hasPrefix("SANDBOX") ? .sandbox : .production
    }
    if let appData { return appData.environment }
    if let environment = unclaimInfo?.environment { return environment }
    return unknownIdentity(\.environment)
  }

  /// The bundle id, read from whichever body carries it.
  public var bundleId: String? {
    data?.bundleId ?? summary?.bundleId ?? externalPurchaseToken?.bundleId ?? appData?.bundleId
      ?? unclaimInfo?.bundleId ?? unknownIdentity(\.bundleId)
  }

  /// The app's App Store id, read from whichever body carries it (absent in Sandbox).
  public var appAppleId: Int64? {
    if let data { return data.appAppleId }
    if let summary { return summary.appAppleId }
    if let token = externalPurchaseToken { return token.appAppleId }
    if let appData { return appData.appAppleId }
    if let id = unclaimInfo?.appAppleId { return id }
    return unknownIdentity(\.appAppleId)
  }

  /// The identity each body object present claims, known objects first, unknown ones in
  /// name order. The external purchase token's environment is read from its id's prefix.
  public var bodyIdentities: [NotificationBodyIdentity] {
    var identities: [NotificationBodyIdentity] = []
    if let data {
      identities.append(
        .init(
          object: "data", environment: data.environment, bundleId: data.bundleId,
          appAppleId: data.appAppleId))
    }
    if let summary {
      identities.append(
        .init(
          object: "summary", environment: summary.environment, bundleId: summary.bundleId,
          appAppleId: summary.appAppleId))
    }
    if let token = externalPurchaseToken {
      let environment: AppStoreEnvironment? = token.externalPurchaseId.map {
        $0.hasPrefix("SANDBOX") ? .sandbox : .production
      }
      identities.append(
        .init(
          object: "externalPurchaseToken", environment: environment, bundleId: token.bundleId,
          appAppleId: token.appAppleId))
    }
    if let appData {
      identities.append(
        .init(
          object: "appData", environment: appData.environment, bundleId: appData.bundleId,
          appAppleId: appData.appAppleId))
    }
    if let unclaimInfo {
      identities.append(
        .init(
          object: "unclaimInfo", environment: unclaimInfo.environment,
          bundleId: unclaimInfo.bundleId, appAppleId: unclaimInfo.appAppleId))
    }
    for name in unknownBodyObjects {
      guard let identity = BodyIdentity(unknownMembers[name]) else { continue }
      identities.append(
        .init(
          object: name, environment: identity.environment, bundleId: identity.bundleId,
          appAppleId: identity.appAppleId))
    }
    return identities
  }

  /// Two body objects that name different apps or environments, and the field they differ
  /// on; nil when every body that names a field names the same value. The app is read from
  /// the first body, so a second one naming another app must refuse the whole notification.
  public var identityConflict:
    (first: String, second: String, field: NotificationBodyIdentity.Field)?
  {
    let identities = bodyIdentities
    for (index, first) in identities.enumerated() {
      for second in identities[(index + 1)...] {
        if let field = first.conflict(with: second) { return (first.object, second.object, field) }
      }
    }
    return nil
  }

  /// The first value an unknown body object (in name order) carries for an identity field.
  private func unknownIdentity<Value>(_ field: KeyPath<BodyIdentity, Value?>) -> Value? {
    for name in unknownBodyObjects {
      if let value = BodyIdentity(unknownMembers[name])?[keyPath: field] { return value }
    }
    return nil
  }

  /// The identity members Apple's body objects have carried so far, read from an object
  /// this release does not model.
  private struct BodyIdentity {
    var environment: AppStoreEnvironment?
    var bundleId: String?
    var appAppleId: Int64?

    init?(_ value: JSONValue?) {
      guard case .object(let members) = value else { return nil }
      if case .string(let raw) = members["environment"] {
        environment = AppStoreEnvironment(rawValue: raw)
      }
      if case .string(let raw) = members["bundleId"] { bundleId = raw }
      if case .number(let raw) = members["appAppleId"], raw == raw.rounded(),
        abs(raw) < 9_007_199_254_740_992
      {
        appAppleId = Int64(raw)
      }
    }
  }
}

extension ResponseBodyV2DecodedPayload: Codable {
  private struct Member: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Member.self)
    func value<T: Decodable>(_ type: T.Type, _ name: String) throws -> T? {
      try container.decodeIfPresent(type, forKey: Member(name))
    }
    notificationType = try value(NotificationType.self, "notificationType")
    subtype = try value(NotificationSubtype.self, "subtype")
    notificationUUID = try value(String.self, "notificationUUID")
    version = try value(String.self, "version")
    signedDate = try value(Timestamp.self, "signedDate")
    data = try value(NotificationData.self, "data")
    summary = try value(NotificationSummary.self, "summary")
    externalPurchaseToken = try value(ExternalPurchaseToken.self, "externalPurchaseToken")
    appData = try value(AppData.self, "appData")
    unclaimInfo = try value(UnclaimInfo.self, "unclaimInfo")
    for key in container.allKeys where !Self.modelledMembers.contains(key.stringValue) {
      unknownMembers[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Member.self)
    for (name, value) in unknownMembers where !Self.modelledMembers.contains(name) {
      try container.encode(value, forKey: Member(name))
    }
    try container.encodeIfPresent(notificationType, forKey: Member("notificationType"))
    try container.encodeIfPresent(subtype, forKey: Member("subtype"))
    try container.encodeIfPresent(notificationUUID, forKey: Member("notificationUUID"))
    try container.encodeIfPresent(version, forKey: Member("version"))
    try container.encodeIfPresent(signedDate, forKey: Member("signedDate"))
    try container.encodeIfPresent(data, forKey: Member("data"))
    try container.encodeIfPresent(summary, forKey: Member("summary"))
    try container.encodeIfPresent(externalPurchaseToken, forKey: Member("externalPurchaseToken"))
    try container.encodeIfPresent(appData, forKey: Member("appData"))
    try container.encodeIfPresent(unclaimInfo, forKey: Member("unclaimInfo"))
  }
}
