import Foundation

/// HTTP load from `wrk` (a C load generator on epoll), when it is installed: it takes far less
/// of the machine's two cores than the Swift client, so the server gets more of them.
struct WrkLoad {
  let base: String
  let connections: Int

  struct Result {
    var requestsPerSecond: Double
    var p50: String
    var p99: String
    var non2xx: Int
  }

  static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") }

  /// GETs `path` for `seconds`; `{n}` in the path becomes a random number below `spread`,
  /// written with twelve digits (the last group of a UUID).
  func get(_ path: String, spread: Int = 1, bearer: String?, seconds: Int) throws -> Result {
    let script = FileManager.default.temporaryDirectory
      .appendingPathComponent("storeledger-wrk-\(UUID().uuidString).lua")
    try Self.script(path: path, spread: spread, bearer: bearer)
      .write(to: script, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: script) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
    process.arguments = [
      "-t1", "-c\(connections)", "-d\(seconds)s", "--latency", "-s", script.path, base,
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return Self.parse(text)
  }

  private static func script(path: String, spread: Int, bearer: String?) -> String {
    let parts = path.components(separatedBy: "{n}")
    let pathExpression =
      parts.count == 2
      ? "\"\(parts[0])\" .. string.format(\"%012d\", math.random(0, \(spread - 1))) .. \"\(parts[1])\""
      : "\"\(path)\""
    let headers = bearer.map { "{[\"Authorization\"] = \"Bearer \($0)\"}" } ?? "{}"
    return """
      request = function()
        return wrk.format("GET", \(pathExpression), \(headers))
      end
      """
  }

  static func parse(_ text: String) -> Result {
    func field(after label: String) -> String? {
      for line in text.split(separator: "\n") {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        if let index = words.firstIndex(where: { $0 == label }), index + 1 < words.count {
          return String(words[index + 1])
        }
      }
      return nil
    }
    let non2xx =
      text.split(separator: "\n").first { $0.contains("Non-2xx") }
      .flatMap { $0.split(separator: ":").last }
      .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
    return Result(
      requestsPerSecond: Double(field(after: "Requests/sec:") ?? "") ?? 0,
      p50: field(after: "50%") ?? "?", p99: field(after: "99%") ?? "?", non2xx: non2xx)
  }

  /// wrk's latency text (`850.00us`, `4.52ms`, `1.20s`) in milliseconds.
  static func milliseconds(_ text: String) -> Double? {
    for (unit, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(unit) {
      return Double(text.dropLast(unit.count)).map { $0 * scale }
    }
    return nil
  }
}
