/// The identity one body object of a notification claims: Apple sends one body object, and
/// a payload carrying two that name different apps or environments is not one app's.
public struct NotificationBodyIdentity: Hashable, Sendable {
  /// The body object's member name (`data`, `summary`, or one this release does not model).
  public var object: String
  public var environment: AppStoreEnvironment?
  public var bundleId: String?
  public var appAppleId: Int64?

  public init(
    object: String, environment: AppStoreEnvironment?, bundleId: String?, appAppleId: Int64?
  ) {
    self.object = object
    self.environment = environment
    self.bundleId = bundleId
    self.appAppleId = appAppleId
  }

  /// The first field on which two identities both name a value and the values differ.
  public func conflict(with other: NotificationBodyIdentity) -> Field? {
    if let a = environment, let b = other.environment, a != b { return .environment }
    if let a = bundleId, let b = other.bundleId, a != b { return .bundleId }
    if let a = appAppleId, let b = other.appAppleId, a != b { return .appAppleId }
    return nil
  }

  /// An identity field.
  public enum Field: String, Sendable {
    case environment, bundleId, appAppleId
  }
}
