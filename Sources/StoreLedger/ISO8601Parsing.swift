import Foundation

/// ISO 8601 times as people type them: with or without fractional seconds.
public enum ISO8601Parsing {
  public static func date(_ text: String) -> Date? {
    let plain = Date.ISO8601FormatStyle()
    let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    return (try? plain.parse(text)) ?? (try? fractional.parse(text))
  }
}
