import Foundation

/// A relay target added or removed, as the log records it (`ledger.relay_target.v1` in
/// `relay:<target>`): the first and last events of what a target received.
public struct RelayTargetRecord: Sendable, Hashable, Codable {
  public enum Action: String, Sendable, Hashable, Codable {
    case added, removed
  }

  public static let eventType = EventTypes.relayTarget
  public static let member = "relayTarget"

  public let action: Action
  public let target: String
  /// The destination's host, port and path (never its query).
  public let urlKey: String
  public let environments: [String]
  public let notificationTypes: [String]?
  /// The API key's name (or `cli`) that acted.
  public let by: String
  public let at: Timestamp

  public init(_ action: Action, _ target: RelayTarget, by: String, at: Timestamp) {
    self.action = action
    self.target = target.name
    self.urlKey = target.urlKey
    self.environments = target.environments
    self.notificationTypes = target.notificationTypes
    self.by = by
    self.at = at
  }
}
