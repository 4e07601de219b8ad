import Foundation

/// Apple's conformance data and certificates, read in place from `../shared` (or from
/// `STORELEDGER_SHARED`, which `scripts/test` sets).
public enum SharedFixtures {
  public static let root: URL = {
    if let path = ProcessInfo.processInfo.environment["STORELEDGER_SHARED"] {
      return URL(fileURLWithPath: path)
    }
    return URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("shared")
  }()

  public static func data(_ relativePath: String) throws -> Data {
    try Data(contentsOf: root.appendingPathComponent(relativePath))
  }

  public static func model(_ name: String) throws -> Data {
    try data("conformance/apple-swift-library/models/\(name)")
  }
}

extension SharedFixtures {
  public static func text(_ relativePath: String) throws -> String {
    String(decoding: try data(relativePath), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  public static func bytes(_ relativePath: String) throws -> [UInt8] {
    Array(try data(relativePath))
  }

  public static func realApple(_ file: String) throws -> String {
    try text("conformance/real-apple/\(file)")
  }

  public static func mockSigned(_ file: String) throws -> String {
    try text("conformance/apple-swift-library/mock_signed_data/\(file)")
  }

  public static func xcode(_ file: String) throws -> String {
    try text("conformance/apple-swift-library/xcode/\(file)")
  }

  public static func realAppleFiles() throws -> [String] {
    try FileManager.default.contentsOfDirectory(
      atPath: root.appendingPathComponent("conformance/real-apple").path
    ).filter { $0.hasSuffix(".jws") }.sorted()
  }
}
