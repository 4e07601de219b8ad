import Foundation
import StoreLedger
import Testing

/// The README's dependency lines are what its program needs: every module the program
/// imports is a product the lines declare, every product comes from a package the lines
/// declare, StoreLedger's products exist, and the other packages are named at the URL and
/// version this package itself depends on. (The lines once declared one product of the five
/// the program imports, building only on transitive visibility.)
struct ReadmePackageTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// The values of `label: "…"` in `line`, in order.
  static func strings(_ line: Substring) -> [String] {
    line.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
      .filter { $0.offset % 2 == 1 }.map { String($0.element) }
  }

  @Test func theDependencyLinesDeclareEveryModuleTheProgramImports() throws {
    let readme = try Self.text("README.md")
    let marker = "<!-- readme-package: Examples/ReadmeExample/main.swift -->"
    let block = try #require(
      readme.components(separatedBy: marker).dropFirst().first?
        .components(separatedBy: "```").dropFirst().first)
    var packages: [String: (url: String, version: String)] = [:]
    var products: [String: String] = [:]
    for line in block.split(separator: "\n") {
      let values = Self.strings(line)
      if line.hasPrefix(".package("), values.count == 2 {
        let name = String(
          values[0].split(separator: "/").last?.replacingOccurrences(of: ".git", with: "") ?? "")
        packages[name] = (values[0], values[1])
      } else if line.hasPrefix(".product("), values.count == 2 {
        products[values[0]] = values[1]
      }
    }
    let program = try Self.text("Examples/ReadmeExample/main.swift")
    let imports = program.split(separator: "\n").filter { $0.hasPrefix("import ") }
      .map { String($0.dropFirst("import ".count)) }.filter { $0 != "Foundation" }
    #expect(imports.count >= 5)
    for module in imports {
      #expect(products[module] != nil, "the README declares no product for `import \(module)`")
    }
    let manifest = try Self.text("Package.swift")
    for (product, package) in products {
      #expect(packages[package] != nil, "\(product) comes from \(package), which is not declared")
      if package == "storeledger" {
        #expect(manifest.contains(".library(name: \"\(product)\""), "no product \(product)")
      }
    }
    // The release the lines name is this one: what `storeledger --version` prints and the
    // changelog's newest.
    #expect(packages["storeledger"]?.version == StoreLedgerVersion.current)
    let changelog = try Self.text("CHANGELOG.md")
    let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
    #expect(
      newest == "## \(StoreLedgerVersion.current)", "the changelog's newest: \(newest ?? "none")")
    let printed = try CommandLineRunner.run(["--version"])
    #expect(
      printed.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        == StoreLedgerVersion.current)
    for (name, package) in packages where name != "storeledger" {
      #expect(
        manifest.contains(".package(url: \"\(package.url)\", from: \"\(package.version)\")"),
        "\(name) is not declared as this package depends on it")
    }
  }
}
