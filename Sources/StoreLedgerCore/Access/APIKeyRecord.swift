import Foundation

/// A named API key as stored: never the key itself, only the SHA-256 of its secret part.
public struct APIKeyRecord: Sendable, Hashable {
  /// The key's public part (16 hex digits), which finds it: `slk_<id>_<secret>`.
  public var id: String
  /// Names the key in lists, the console and logs.
  public var name: String
  public var scopes: Set<APIKeyScope>
  public var secretHash: [UInt8]
  public var createdAt: Date
  public var revokedAt: Date?

  public init(
    id: String, name: String, scopes: Set<APIKeyScope>, secretHash: [UInt8], createdAt: Date,
    revokedAt: Date? = nil
  ) {
    self.id = id
    self.name = name
    self.scopes = scopes
    self.secretHash = secretHash
    self.createdAt = createdAt
    self.revokedAt = revokedAt
  }

  /// Whether `name` can name a key: 1–64 of letters, digits, `.`, `_`, `-`.
  public static func isValidName(_ name: String) -> Bool {
    (1...64).contains(name.count)
      && name.unicodeScalars.allSatisfy {
        ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || "._-".unicodeScalars.contains($0)
      }
  }
}
