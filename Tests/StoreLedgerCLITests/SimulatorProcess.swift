import Foundation

/// `storeledger simulate` as a process for the tests: started with no webhook, read until its
/// API port, issuer and final count are printed, terminated when the test ends.
final class SimulatorProcess {
  let folder: URL
  let process = Process()
  let lines = LogLines()
  private(set) var port = ""
  private(set) var issuer = ""
  /// Notifications the run sent.
  private(set) var sent = ""

  init(label: String) {
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(label)-\(UUID().uuidString)")
  }

  /// Runs 25 customers over 3 months with seed 4 and waits until all are played.
  func start() async throws {
    process.executableURL = CommandLineRunner.executable
    process.arguments = [
      "simulate", "--customers", "25", "--months", "3", "--seed", "4", "--day-seconds", "0",
      "--port", "0", "--out", folder.path,
      // Recovery reads the whole simulated past; Apple would keep 30 days of the Sandbox's.
      "--history-days", "0",
    ]
    let log = Pipe()
    process.standardOutput = log
    process.standardError = log
    let lines = self.lines
    log.fileHandleForReading.readabilityHandler = { handle in lines.append(handle.availableData) }
    try process.run()
    port = try await lines.match(#"API on http://127\.0\.0\.1:(\d+)"#, within: .seconds(60))
    issuer = try await lines.match(#"issuer ([0-9a-f-]+),"#, within: .seconds(5))
    sent = try await lines.match(#"done: \d+ steps, (\d+) notifications"#, within: .seconds(60))
  }

  /// The options that reach this simulator's API with its key and trust its root.
  func apiOptions() -> [String] {
    [
      "--api-url", "http://127.0.0.1:\(port)", "--key-id", "SIM4", "--issuer-id", issuer,
      "--p8", folder.appendingPathComponent("api-key.p8").path,
    ]
  }

  var rootPath: String { folder.appendingPathComponent("root.der").path }

  func stop() {
    if process.isRunning { process.terminate() }
    try? FileManager.default.removeItem(at: folder)
  }
}
