import Foundation

/// An App Store time: milliseconds since 1970-01-01T00:00:00Z, as Apple signs it.
///
/// Production data carries whole milliseconds; StoreKit testing in Xcode writes
/// fractional ones, which are rounded down to the millisecond they fall in.
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public var milliseconds: Int64

  public init(milliseconds: Int64) {
    self.milliseconds = milliseconds
  }

  public init(_ date: Date) {
    self.milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
  }

  public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let whole = try? container.decode(Int64.self) {
      self.milliseconds = whole
      return
    }
    let fractional = try container.decode(Double.self)
    guard fractional.isFinite, abs(fractional) < 9.2e18 else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "timestamp out of range")
    }
    self.milliseconds = Int64(fractional.rounded(.down))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(milliseconds)
  }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.milliseconds < rhs.milliseconds
  }

  public var description: String {
    date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
  }
}
