import Foundation

/// Amounts and rates as people read them: milliunits in units of the currency (9990 →
/// "9.99", 8333 → "8.333"), fractions as percentages.
public enum MetricsFormat {
  public static func amount(_ milliunits: Int64) -> String {
    let sign = milliunits < 0 ? "-" : ""
    let magnitude = milliunits.magnitude
    var fraction = String(magnitude % 1000)
    fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
    if fraction.hasSuffix("0") { fraction.removeLast() }
    return "\(sign)\(magnitude / 1000).\(fraction)"
  }

  public static func percent(_ rate: Double?) -> String {
    rate.map { String(format: "%.1f%%", $0 * 100) } ?? "-"
  }
}
