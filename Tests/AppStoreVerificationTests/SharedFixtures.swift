import Foundation

/// Apple's conformance data and certificates, read in place from `../shared`.
enum SharedFixtures {
  static let root: URL = {
    if let path = ProcessInfo.processInfo.environment["STORELEDGER_SHARED"] {
      return URL(fileURLWithPath: path)
    }
    return URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("shared")
  }()

  static func data(_ relativePath: String) throws -> Data {
    try Data(contentsOf: root.appendingPathComponent(relativePath))
  }

  static func model(_ name: String) throws -> Data {
    try data("conformance/apple-swift-library/models/\(name)")
  }
}

extension SharedFixtures {
  static func text(_ relativePath: String) throws -> String {
    String(decoding: try data(relativePath), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static func bytes(_ relativePath: String) throws -> [UInt8] {
    Array(try data(relativePath))
  }

  static func realApple(_ file: String) throws -> String {
    try text("conformance/real-apple/\(file)")
  }

  static func mockSigned(_ file: String) throws -> String {
    try text("conformance/apple-swift-library/mock_signed_data/\(file)")
  }

  static func xcode(_ file: String) throws -> String {
    try text("conformance/apple-swift-library/xcode/\(file)")
  }

  static func realAppleFiles() throws -> [String] {
    try FileManager.default.contentsOfDirectory(
      atPath: root.appendingPathComponent("conformance/real-apple").path
    ).filter { $0.hasSuffix(".jws") }.sorted()
  }
}
