import Foundation

/// Runs `appenders` loops side by side for `seconds` and returns appended events per second.
enum ConcurrentRun {
  static func eventsPerSecond(
    appenders: Int, seconds: Double,
    _ appendOne: @escaping @Sendable (_ appender: Int, _ index: Int) async throws -> Int
  ) async throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    let deadline = start + UInt64(seconds * 1e9)
    let events = try await withThrowingTaskGroup(of: Int.self) { group in
      for appender in 0..<appenders {
        group.addTask {
          var appended = 0
          var index = 0
          while DispatchTime.now().uptimeNanoseconds < deadline {
            appended += try await appendOne(appender, index)
            index += 1
          }
          return appended
        }
      }
      return try await group.reduce(0, +)
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return Double(events) / elapsed
  }
}
