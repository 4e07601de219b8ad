import Dispatch
import Foundation

/// Runs `body` in `tasks` tasks at once for `seconds` and returns the combined rate: shows
/// whether the shared caches let verification scale across cores.
enum ParallelRun {
  static func rate(tasks: Int, seconds: Double, _ body: @escaping @Sendable () async throws -> Void)
    async -> Double
  {
    let start = DispatchTime.now().uptimeNanoseconds
    let deadline = start + UInt64(seconds * 1e9)
    let total = await withTaskGroup(of: Int.self) { group in
      for _ in 0..<tasks {
        group.addTask {
          var done = 0
          while DispatchTime.now().uptimeNanoseconds < deadline {
            for _ in 0..<20 { try? await body() }
            done += 20
          }
          return done
        }
      }
      return await group.reduce(0, +)
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return Double(total) / elapsed
  }
}
