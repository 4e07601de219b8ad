import Foundation

/// An `appAccountToken`: a UUID, compared without regard to case (RFC 9562; reference §8.1).
/// Apple writes it in lower case and Swift's `UUID().uuidString` in upper case, so every
/// token is kept in one canonical form, lower case, wherever it enters.
public enum AppAccountToken {
  /// What a valid token looks like, for error messages.
  public static let example = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

  /// The canonical form of a token the backend supplies; nil when it is not a UUID.
  public static func canonical(_ token: String) -> String? {
    guard token.utf8.count == 36, let uuid = UUID(uuidString: token) else { return nil }
    return uuid.uuidString.lowercased()
  }

  /// A token Apple signed, in canonical form. Apple's tokens are UUIDs; one that is not is
  /// kept (lower-cased ASCII), never dropped. Cheap when already canonical (the usual case):
  /// the fold calls it for every stored transaction.
  public static func normalized(_ token: String) -> String {
    guard token.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
    else { return token }
    return String(
      decoding: token.utf8.map { byte in
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
      }, as: UTF8.self)
  }
}
