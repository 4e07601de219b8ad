import Dispatch
import Foundation

/// Runs `body` on `threads` threads at once for `seconds` and returns the combined rate: shows
/// whether the shared caches let verification scale across cores.
enum ParallelRun {
  static func rate(threads: Int, seconds: Double, _ body: @escaping @Sendable () throws -> Void)
    -> Double
  {
    let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: threads)
    defer { counts.deallocate() }
    counts.initialize(repeating: 0)
    let start = DispatchTime.now().uptimeNanoseconds
    let deadline = start + UInt64(seconds * 1e9)
    nonisolated(unsafe) let slots = counts
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      var done = 0
      while DispatchTime.now().uptimeNanoseconds < deadline {
        for _ in 0..<20 { try? body() }
        done += 20
      }
      slots[thread] = done
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return Double(counts.reduce(0, +)) / elapsed
  }
}
