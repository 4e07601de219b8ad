import Foundation

/// Runs the built `storeledger` executable, as a user would.
enum CommandLineRunner {
  struct Result {
    var status: Int32
    var standardOutput: String
    var standardError: String
  }

  /// The executable sits next to the test bundle in the build folder.
  static let executable: URL = {
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var folder = testBinary.deletingLastPathComponent()
    while folder.path != "/" {
      let candidate = folder.appendingPathComponent("storeledger")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      folder = folder.deletingLastPathComponent()
    }
    return URL(fileURLWithPath: "storeledger")
  }()

  /// `environment` entries are added to (or, empty, removed from) the test's environment.
  static func run(
    _ arguments: [String], standardInput: String? = nil, environment: [String: String] = [:]
  ) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty {
      var merged = ProcessInfo.processInfo.environment
      for (name, value) in environment { merged[name] = value.isEmpty ? nil : value }
      process.environment = merged
    }
    let output = Pipe()
    let error = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = input
    try process.run()
    if let standardInput { input.fileHandleForWriting.write(Data(standardInput.utf8)) }
    try input.fileHandleForWriting.close()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus,
      standardOutput: String(decoding: outData, as: UTF8.self),
      standardError: String(decoding: errData, as: UTF8.self))
  }
}
