import Foundation

/// How the benchmark prints its figures.
enum Figures {
  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  static func rate(_ count: Int, _ elapsed: Double) -> String {
    String(format: "%9.0f", Double(count) / elapsed)
  }

  static func megabytes() -> String {
    PeakMemory.megabytes().map { String(format: "%6.0f MB", $0) } ?? "?"
  }
}
