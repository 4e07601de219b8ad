import Foundation
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The README's embedding snippet is part of a program the test command builds and runs
/// (``DocSnippetTests`` holds the two equal): the dependency line names this release's version,
/// and the program answers (its client runs) against a migrated database as the writer role.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ReadmeExampleTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  @Test func theReadmeNamesTheReleaseThisBuildIs() throws {
    let readme = try String(
      contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
    let version = try CommandLineRunner.run(["--version"]).standardOutput
      .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(readme.contains(#"from: "\#(version)")"#), "the README names \(version)")
  }

  @Test func theReadmeProgramRunsItsClientAndAnswers() async throws {
    try await TestDatabase.withMigrated { database in
      let binary = CommandLineRunner.executable.deletingLastPathComponent()
        .appendingPathComponent("ReadmeExample")
      let process = Process()
      process.executableURL = binary
      process.environment = ["DATABASE_URL": database.writerURL.description]
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      let deadline = ContinuousClock.now + .seconds(60)
      while process.isRunning, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(50))
      }
      if process.isRunning { process.terminate() }
      process.waitUntilExit()
      let text = String(
        decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      #expect(process.terminationStatus == 0)
      #expect(
        text == "9f1c2b7e-4c1d-4e8a-9b0f-2d7c1e5a3b64 has pro: false\nin memory: false\n",
        "\(text)")
    }
  }
}
