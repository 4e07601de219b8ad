import Foundation

/// The instant at which certificate validity is judged.
public enum ValidationTime: Hashable, Sendable {
  /// The payload's own signing time (`signedDate`, or `receiptCreationDate` for an app
  /// transaction); the current time if the payload has none. Stored data stays verifiable
  /// after Apple's signing certificates expire.
  case signedDate
  /// The current time, for data that has just arrived.
  case now
  /// A fixed instant.
  case fixed(Date)
}
