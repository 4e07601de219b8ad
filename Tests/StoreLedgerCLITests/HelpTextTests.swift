import Foundation
import Testing

/// Every command's help reads as paragraphs the argument parser wraps: no sentence broken at
/// an odd place (a short line in the middle of a paragraph, from a hard line break in the
/// source wrapped again at 80 columns), no example wider than the terminal.
@Suite struct HelpTextTests {
  /// Every command, subcommands of groups included.
  static func commands() throws -> [[String]] {
    var commands: [[String]] = []
    var groups: [[String]] = [[]]
    while let group = groups.popLast() {
      let help = try CommandLineRunner.run(group + ["--help"]).standardOutput
      let names = subcommands(in: help)
      if !group.isEmpty { commands.append(group) }
      groups += names.map { group + [$0] }.filter { $0.count < 3 && $0.last != "help" }
    }
    return commands
  }

  static func subcommands(in help: String) -> [String] {
    guard let section = help.components(separatedBy: "SUBCOMMANDS:").last,
      help.contains("SUBCOMMANDS:")
    else { return [] }
    return section.split(separator: "\n").compactMap { line in
      guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
      guard let name = line.split(separator: " ").first,
        name.allSatisfy({ $0.isLowercase || $0 == "-" })
      else { return nil }
      return String(name)
    }
  }

  @Test func everyHelpIsWrappedAsParagraphs() throws {
    let commands = try Self.commands()
    #expect(commands.count > 25)
    for command in commands {
      let help = try CommandLineRunner.run(command + ["--help"], environment: ["COLUMNS": "80"])
      let text = help.standardOutput.components(separatedBy: "\nUSAGE:").first ?? ""
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      for (line, next) in zip(lines, lines.dropFirst()) {
        #expect(line.count <= 80, "\(command.joined(separator: " ")): too wide: \(line)")
        let prose = { (line: String) in !line.isEmpty && !line.hasPrefix(" ") }
        if line.hasPrefix("  "), prose(next), !next.hasSuffix(":") {
          Issue.record(
            "\(command.joined(separator: " ")): an example wider than 80 columns: \"\(line)\" / \"\(next)\""
          )
        }
        if prose(line), prose(next), !line.hasSuffix(":") {
          #expect(
            line.count >= 50,
            "\(command.joined(separator: " ")): a paragraph breaks early: \"\(line)\" / \"\(next)\""
          )
        }
      }
    }
  }
}
