import Foundation

/// A target of docs/performance.md, checked against a figure of this run: a ratio against a
/// ceiling measured in the same run, or a latency.
public enum Target {
  public static func line(_ name: String, _ value: Double, atLeast target: Double) -> String {
    String(
      format: "TARGET %@: %.2f (≥ %.2f) %@", name, value, target,
      value >= target ? "met" : "NOT MET")
  }

  public static func line(_ name: String, _ value: Double, atMost target: Double) -> String {
    String(
      format: "TARGET %@: %.2f (≤ %.2f) %@", name, value, target,
      value <= target ? "met" : "NOT MET")
  }
}
