import Foundation

/// Apple's conformance data and certificates, kept in the repository under `Tests/Fixtures`
/// (where each file came from: `Tests/Fixtures/README.md`). `STORELEDGER_FIXTURES` points at
/// another copy with the same layout.
public enum SharedFixtures {
  public static let root: URL = {
    if let path = ProcessInfo.processInfo.environment["STORELEDGER_FIXTURES"] {
      return URL(fileURLWithPath: path)
    }
    return URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
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
