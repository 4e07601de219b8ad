import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The process's peak resident memory (Linux VmHWM), resettable so each phase is measured
/// on its own.
enum PeakMemory {
  /// Hands freed heap back to the system, so the seeding's garbage does not count as the next
  /// phase's peak.
  static func trim() {
    #if canImport(Glibc)
      // malloc_trim is glibc's and not in the Glibc module map.
      typealias Trim = @convention(c) (Int) -> Int32
      if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
      }
    #endif
  }

  static func reset() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
  }

  /// Megabytes, or nil where /proc is not there.
  static func megabytes() -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return nil }
    return kilobytes / 1024
  }
}
