import Foundation
import Testing

/// Every Swift block of the documentation (README, docs/, the DocC articles, CONTRIBUTING) is a
/// region of a program under Examples/ that every build compiles, printed as it is there: a
/// renamed or changed API breaks the build, not the reader.
@Suite struct DocSnippetTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The regions between `// snippet:begin` and `// snippet:end` of every file under Examples/,
  /// each without the indentation its lines share.
  static func regions() throws -> [String] {
    var regions: [String] = []
    for file in try files(under: "Examples", ending: ".swift") {
      var current: [Substring]?
      for line in try String(contentsOf: file, encoding: .utf8).split(
        separator: "\n", omittingEmptySubsequences: false)
      {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed == "// snippet:begin" {
          current = []
        } else if trimmed == "// snippet:end", let lines = current {
          let indent =
            lines.filter { !$0.allSatisfy(\.isWhitespace) }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
          regions.append(
            lines.map { String($0.dropFirst(min(indent, $0.count))) }.joined(separator: "\n"))
          current = nil
        } else {
          current?.append(line)
        }
      }
    }
    return regions
  }

  /// The Swift blocks of a Markdown text, without their fences.
  static func swiftBlocks(of text: String) -> [String] {
    var blocks: [String] = []
    var current: [Substring]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line == "```swift" {
        current = []
      } else if let lines = current, line == "```" {
        blocks.append(lines.joined(separator: "\n"))
        current = nil
      } else {
        current?.append(line)
      }
    }
    return blocks
  }

  static func files(under folder: String, ending suffix: String) throws -> [URL] {
    let base = root.appendingPathComponent(folder)
    guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
    else { return [] }
    return enumerator.compactMap { $0 as? URL }.filter { $0.path.hasSuffix(suffix) }
      .filter { !$0.path.contains("/.build") }
  }

  static func documents() throws -> [URL] {
    try [root.appendingPathComponent("README.md"), root.appendingPathComponent("CONTRIBUTING.md")]
      + files(under: "docs", ending: ".md")
      + files(under: "Sources", ending: ".md").filter { $0.path.contains(".docc/") }
  }

  @Test func everySwiftBlockIsCompiled() throws {
    let regions = Set(try Self.regions())
    var checked = 0
    for document in try Self.documents() {
      guard let text = try? String(contentsOf: document, encoding: .utf8) else { continue }
      for block in Self.swiftBlocks(of: text) {
        // A manifest's dependency lines are a fragment of Package.swift, not a program.
        if block.hasPrefix("// Package.swift") { continue }
        checked += 1
        #expect(
          regions.contains(block),
          "\(document.lastPathComponent): a Swift block that no Examples/ region holds:\n\(block)")
      }
    }
    #expect(checked >= 7, "the documentation's Swift blocks were not found")
  }
}
