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

  /// A token as people paste it, in canonical form: with or without dashes, in braces or
  /// quotes, as `urn:uuid:…`, in any letter case, with spaces around it. Nil for anything that
  /// is not 32 hexadecimal digits once those are taken away.
  public static func fromAnySpelling(_ text: String) -> String? {
    var value = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
    if value.lowercased().hasPrefix("urn:uuid:") { value = value.dropFirst(9) }
    let wrappers: [(Character, Character)] = [("{", "}"), ("\"", "\""), ("'", "'"), ("<", ">")]
    for (open, close) in wrappers where value.first == open && value.last == close {
      value = value.dropFirst().dropLast()
    }
    let digits = value.filter { $0 != "-" }
    guard digits.count == 32, digits.allSatisfy(\.isHexDigit) else { return nil }
    let hex = Array(digits.lowercased())
    let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }
    return groups.joined(separator: "-")
  }

  /// The start of a token as people paste it (any case, with or without dashes, after a brace
  /// or `urn:uuid:`), in canonical form: lower case with dashes where a whole token has them.
  /// Nil when it is not 1 to 32 hexadecimal digits once those are taken away.
  public static func prefixFromAnySpelling(_ text: String) -> String? {
    var value = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
    if value.lowercased().hasPrefix("urn:uuid:") { value = value.dropFirst(9) }
    while let first = value.first, "{\"'<".contains(first) { value = value.dropFirst() }
    while let last = value.last, "}\"'>".contains(last) { value = value.dropLast() }
    let digits = Array(value.filter { $0 != "-" }.lowercased())
    guard (1...32).contains(digits.count), digits.allSatisfy(\.isHexDigit) else { return nil }
    var prefix = ""
    for (index, digit) in digits.enumerated() {
      if [8, 12, 16, 20].contains(index) { prefix.append("-") }
      prefix.append(digit)
    }
    return prefix
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
