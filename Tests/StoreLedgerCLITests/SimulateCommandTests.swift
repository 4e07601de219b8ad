import AppStoreVerification
import Foundation
import Testing

/// `storeledger simulate` as a process: progress per simulated month, the run's root and API
/// key written for the other side, usage errors.
@Suite struct SimulateCommandTests {
  @Test func aShortRunReportsEachMonthAndWritesTheRootAndKey() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("simulate-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try CommandLineRunner.run([
      "simulate", "--customers", "30", "--months", "2", "--seed", "5", "--day-seconds", "0",
      "--port", "0", "--out", folder.path, "--exit-when-done",
    ])
    #expect(result.status == 0, "\(result.standardError)")
    let lines = result.standardOutput.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("simulating 30 customers over 2 months (seed 5") == true)
    #expect(lines.contains { $0.hasPrefix("App Store Server API on http://127.0.0.1:") })
    #expect(lines.contains { $0.hasPrefix("month 1/2: ") })
    #expect(lines.contains { $0.hasPrefix("month 2/2: ") })
    #expect(lines.last?.hasPrefix("done: ") == true)
    let root = try Data(contentsOf: folder.appendingPathComponent("root.der"))
    #expect((try? TrustedRoots(derEncoded: [Array(root)])) != nil)
    let key = try String(contentsOf: folder.appendingPathComponent("api-key.p8"), encoding: .utf8)
    #expect(key.hasPrefix("-----BEGIN PRIVATE KEY-----"))
  }

  @Test func jsonProgressIsOneObjectPerLine() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("simulate-json-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try CommandLineRunner.run([
      "simulate", "--customers", "10", "--months", "2", "--day-seconds", "0", "--port", "0",
      "--out", folder.path, "--exit-when-done", "--json",
    ])
    #expect(result.status == 0, "\(result.standardError)")
    let objects = try result.standardOutput.split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(objects.count == 4 && objects.allSatisfy { $0 != nil })
    #expect((objects.first??["apiURL"] as? String)?.hasPrefix("http://127.0.0.1:") == true)
    #expect(objects.last??["isFinal"] as? Bool == true)
  }

  @Test(arguments: [
    ["--drop", "2"], ["--environment", "Xcode"], ["--customers", "0"],
  ])
  func badSettingsAreUsageErrors(arguments: [String]) throws {
    let result = try CommandLineRunner.run(["simulate", "--exit-when-done"] + arguments)
    #expect(result.status == 2)
  }
}
