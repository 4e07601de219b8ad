import Foundation

/// Console addresses with query values, percent-encoded.
enum ConsoleLinks {
  static let allowed: CharacterSet = {
    var set = CharacterSet.alphanumerics
    set.insert(charactersIn: "-._~")
    return set
  }()

  /// `path?name=value&…` in name order; empty values are left out.
  static func url(_ path: String, _ values: [String: String]) -> String {
    let query = values.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map {
      "\($0.key.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")="
        + ($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
    }.joined(separator: "&")
    return query.isEmpty ? path : "\(path)?\(query)"
  }

  /// A time as a `datetime-local` field holds it, in UTC: `2026-01-31T12:00`.
  static func formTime(_ date: Date) -> String {
    String(ISO8601DateFormatter().string(from: date).prefix(16))
  }
}
