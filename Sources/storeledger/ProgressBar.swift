import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A one-line progress bar on standard error, redrawn at most ten times a second. It draws
/// only on a terminal (or with STORELEDGER_PROGRESS=1), so piped output and `--json` stay
/// clean.
final class ProgressBar: Sendable {
  private struct State {
    var lastDraw = ContinuousClock.now - .seconds(1)
    var drawn = false
  }
  private let label: String
  private let enabled: Bool
  private let state = Mutex(State())

  init(_ label: String, enabled: Bool = true) {
    self.label = label
    self.enabled =
      enabled
      && (isatty(STDERR_FILENO) == 1
        || ProcessInfo.processInfo.environment["STORELEDGER_PROGRESS"] == "1")
  }

  /// Shows `done` of `total` (an unknown total shows a count only) and a detail.
  func update(_ done: Int, of total: Int?, _ detail: String = "", force: Bool = false) {
    guard enabled else { return }
    let line = Self.line(label, done, total, detail)
    state.withLock { state in
      let now = ContinuousClock.now
      guard force || now - state.lastDraw >= .milliseconds(100) else { return }
      state.lastDraw = now
      state.drawn = true
      StandardStreams.error("\r\u{1B}[2K" + line)
    }
  }

  /// Ends the line the bar was drawn on.
  func finish() {
    guard enabled else { return }
    state.withLock { state in
      if state.drawn { StandardStreams.error("\n") }
      state.drawn = false
    }
  }

  static func line(_ label: String, _ done: Int, _ total: Int?, _ detail: String) -> String {
    let suffix = detail.isEmpty ? "" : "  \(detail)"
    guard let total, total > 0 else {
      return done == 0 ? "\(label)\(suffix)" : "\(label)  \(done.grouped)\(suffix)"
    }
    let fraction = min(1, Double(done) / Double(total))
    let width = 24
    let filled = Int((fraction * Double(width)).rounded(.down))
    let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    let percent = String(Int((fraction * 100).rounded(.down))).leftPadded(3)
    return "\(label)  \(bar) \(percent)%  \(done.grouped)/\(total.grouped)\(suffix)"
  }
}

extension Int {
  /// 1234567 → "1,234,567".
  var grouped: String {
    let digits = String(magnitude)
    var out = ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
      out.append(digit)
    }
    return self < 0 ? "-" + out : out
  }
}

extension String {
  func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
