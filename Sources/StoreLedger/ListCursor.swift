import Crypto
import Foundation

/// A page cursor: where the last page ended, which list and filters it belongs to, and the
/// list's total as counted on the first page (so later pages do not count again).
///
/// It is opaque to callers and carries a checksum, so an edited or truncated cursor, or one
/// from another list or other filters, is refused (`invalid_cursor`) rather than read as some
/// other position. It is not a secret and grants nothing: every value in it is a place in a
/// list the caller may read anyway.
struct ListCursor: Sendable, Equatable {
  var total: Int
  var key: [String]

  private static let version = "c1"

  /// The cursor's text for `list` under `filter` (the filter's canonical text).
  func text(list: String, filter: String) -> String {
    let body = ([Self.version, list, Self.digest(filter), String(total)] + key)
    let payload = (try? JSONEncoder().encode(body)) ?? Data()
    return Self.base64URL(payload) + "." + Self.base64URL(Self.checksum(payload))
  }

  /// The cursor `text` holds, when it is intact and belongs to `list` under `filter`.
  init(text: String, list: String, filter: String, keyParts: Int) throws(LedgerError) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2, text.utf8.count <= 2048,
      let payload = Self.data(base64URL: String(parts[0])),
      let sum = Self.data(base64URL: String(parts[1])),
      sum == Self.checksum(payload)
    else {
      throw Self.invalid("it was changed or cut short")
    }
    guard let body = try? JSONDecoder().decode([String].self, from: payload),
      body.count == 4 + keyParts, body[0] == Self.version, let total = Int(body[3]), total >= 0
    else {
      throw Self.invalid("it is not a cursor of this version")
    }
    guard body[1] == list, body[2] == Self.digest(filter) else {
      throw Self.invalid("it belongs to another list or to other filters")
    }
    self.total = total
    self.key = Array(body[4...])
  }

  init(total: Int, key: [String]) {
    self.total = total
    self.key = key
  }

  static func invalid(_ why: String) -> LedgerError {
    LedgerError(
      .invalidCursor,
      "this page cursor cannot be used: \(why). Ask for the list again without `cursor` and follow the `nextCursor` it returns"
    )
  }

  private static func digest(_ filter: String) -> String {
    Hex.encode(Array(SHA256.hash(data: Data(filter.utf8)).prefix(12)))
  }

  private static func checksum(_ payload: Data) -> Data {
    var input = Data("storeledger list cursor\n".utf8)
    input.append(payload)
    return Data(SHA256.hash(data: input).prefix(12))
  }

  private static func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  private static func data(base64URL text: String) -> Data? {
    guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
    else { return nil }
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(
      of: "_", with: "/")
    while base64.count % 4 != 0 { base64.append("=") }
    return Data(base64Encoded: base64)
  }
}
