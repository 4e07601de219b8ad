import Foundation

/// Another system that receives Apple's notifications as this ledger received them: a staging
/// backend, or the vendor an app is moving from. Apple allows one notification URL per
/// environment and app; a relay target gets the same signed bodies from StoreLedger.
public struct RelayTarget: Sendable, Hashable {
  /// Lower-case letters, digits, `-` and `_`; names its stream `relay:<name>` in the log.
  public let name: String
  /// Where the notifications are POSTed. It may carry a credential in its query, so it is
  /// never shown, logged or recorded: ``urlKey`` is.
  public let url: String
  /// The URL's host, port and path: what names the destination everywhere it is shown.
  public let urlKey: String
  /// The environments whose notifications are relayed (`Production`, `Sandbox`).
  public let environments: [String]
  /// The notification types relayed; nil relays every type, also types this release does
  /// not know yet.
  public let notificationTypes: [String]?
  public let createdAt: Date
  /// The API key's name (or `cli`) that added it.
  public let createdBy: String

  public init(
    name: String, url: String, urlKey: String, environments: [String],
    notificationTypes: [String]?, createdAt: Date, createdBy: String
  ) {
    self.name = name
    self.url = url
    self.urlKey = urlKey
    self.environments = environments
    self.notificationTypes = notificationTypes
    self.createdAt = createdAt
    self.createdBy = createdBy
  }

  /// The log stream of the target's configuration and attempts.
  public var streamId: String { Self.streamId(of: name) }

  public static func streamId(of name: String) -> String { "relay:\(name)" }

  /// Whether a notification of `type` in `environment` is relayed to this target.
  public func relays(type: String?, environment: String?) -> Bool {
    guard let environment, environments.contains(environment) else { return false }
    guard let notificationTypes else { return true }
    return type.map(notificationTypes.contains) ?? false
  }
}

extension RelayTarget {
  /// The target as it may be shown: everything but its URL (whose query may hold a
  /// credential).
  public struct Shown: Sendable, Hashable, Encodable {
    public let name: String
    public let urlKey: String
    public let environments: [String]
    public let notificationTypes: [String]?
    public let createdAt: Timestamp
    public let createdBy: String

    public init(_ target: RelayTarget) {
      name = target.name
      urlKey = target.urlKey
      environments = target.environments
      notificationTypes = target.notificationTypes
      createdAt = Timestamp(target.createdAt)
      createdBy = target.createdBy
    }
  }
}
