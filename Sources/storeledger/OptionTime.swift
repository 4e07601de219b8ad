import ArgumentParser
import Foundation
import StoreLedgerCore

/// Times given as options: every command reads them with ``InstantText``, so each option
/// accepts the same forms and a refusal names them all (exit 64, a usage error).
enum OptionTime {
  static func instant(_ text: String, _ option: String) throws -> Timestamp {
    guard let time = InstantText.parse(text) else {
      throw ValidationError(InstantText.problem(option, text))
    }
    return time
  }

  static func instant(_ text: String?, _ option: String) throws -> Timestamp? {
    try text.map { try instant($0, option) }
  }

  static func date(_ text: String, _ option: String) throws -> Date {
    try instant(text, option).date
  }
}
