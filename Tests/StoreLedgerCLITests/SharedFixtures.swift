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
