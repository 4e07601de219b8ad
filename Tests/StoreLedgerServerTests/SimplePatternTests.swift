import Foundation
import StoreLedgerCore
import Testing

@testable import StoreLedgerServer

/// The one-pass matcher answers as ICU does on the pattern read as JSON Schema reads it
/// (`SchemaCheck.icuPattern`), on every pattern of the served document it takes, for values
/// built from the pattern's own characters and for their near misses.
@Suite struct SimplePatternTests {
  /// Every `pattern` in the served document.
  static func documentPatterns() throws -> [String] {
    let document = try JSONDecoder().decode(JSONValue.self, from: try OpenAPIDocument.data())
    var found: Set<String> = []
    func walk(_ value: JSONValue) {
      switch value {
      case .object(let members):
        for (name, member) in members {
          if name == "pattern", case .string(let pattern) = member {
            found.insert(pattern)
          } else {
            walk(member)
          }
        }
      case .array(let items): items.forEach(walk)
      default: break
      }
    }
    walk(document)
    return found.sorted()
  }

  @Test func agreesWithICUOnEveryDocumentPatternItTakes() throws {
    let patterns = try Self.documentPatterns()
    let taken = patterns.compactMap { pattern in SimplePattern(pattern).map { (pattern, $0) } }
    // The signed payload's, the token's and the key's patterns are among those taken.
    #expect(taken.count >= 12, "\(taken.count) of \(patterns.count) patterns taken")
    #expect(taken.contains { $0.0 == "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$" })
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array(
      "aZ09._-+/=:@ ~\u{7F}\u{21}\u{7E}é\u{1F600}\n\t\\[]{}".unicodeScalars)
    for (pattern, simple) in taken {
      let icu = try NSRegularExpression(pattern: SchemaCheck.icuPattern(pattern))
      var candidates = ["", "\n", "a\n", "0", "00000000-0000-4000-8000-000000000000"]
      // A value that fits: each atom filled with its own characters, then mutated.
      for _ in 0..<300 {
        var text = String.UnicodeScalarView()
        for atom in simple.atoms {
          let members = (0..<128).compactMap(Unicode.Scalar.init).filter(atom.holds)
          let upper = min(atom.maximum, atom.minimum + 4)
          for _ in 0..<Int.random(in: atom.minimum...upper, using: &generator) {
            text.append(members.randomElement(using: &generator)!)
          }
        }
        var scalars = Array(text)
        switch Int.random(in: 0..<5, using: &generator) {
        case 0 where !scalars.isEmpty: scalars.remove(at: Int.random(in: 0..<scalars.count))
        case 1: scalars.insert(alphabet.randomElement()!, at: Int.random(in: 0...scalars.count))
        case 2 where !scalars.isEmpty:
          scalars[Int.random(in: 0..<scalars.count)] = alphabet.randomElement()!
        case 3:
          // A final line break, of each kind ICU knows, alone or doubled: none fits a `$`.
          let breaks: [String] = [
            "\n", "\r", "\r\n", "\n\n", "\u{0B}", "\u{85}", "\u{2028}", "\n\r",
          ]
          scalars += breaks.randomElement(using: &generator)!.unicodeScalars
        default: break
        }
        candidates.append(String(String.UnicodeScalarView(scalars)))
      }
      for text in candidates {
        let expected =
          icu.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        #expect(simple.matches(text) == expected, "\(pattern) on \(text.debugDescription)")
      }
    }
  }

  /// JSON Schema's `$` holds at the end of the text alone: a final line break does not fit a
  /// pattern that forbids it, whichever matcher reads the pattern (an alias's control
  /// characters, a token's letters).
  @Test func aFinalLineBreakDoesNotFitAnAnchoredPattern() {
    let alias =
      "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$"
    #expect(SimplePattern(alias) == nil)
    #expect(SchemaCheck.matches("Ä²É", alias))
    #expect(!SchemaCheck.matches("Ä²É\n", alias))
    #expect(!SchemaCheck.matches("Ä²É\r\n", alias))
    #expect(SchemaCheck.matches("a$b", "^a[$]b$"))
    #expect(SchemaCheck.matches("a$b", "^a\\$b$"))
    #expect(!SchemaCheck.matches("ab\n", "^[a-z]+$"))
    #expect(SchemaCheck.matches("xab", "ab$"))
    #expect(!SchemaCheck.matches("ab\n", "ab$"))
    #expect(SchemaCheck.icuPattern("^a[$]\\$b$") == "^a[$]\\$b\\z")
  }

  @Test func patternsOfOtherShapesAreLeftToICU() {
    for pattern in [
      "\\S", "^(a|b)$", "^[^a-z]+$", "^[a-z]+[a-z0-9]*$", "^[a-z]+?$", "^\\d{3}$", "^a{2,1}$",
      "^[[a-z]&&[aeiou]]$", "^[a-z]++$",
    ] {
      #expect(SimplePattern(pattern) == nil, "\(pattern)")
    }
    // A run followed by a class sharing characters only after a required class is fine.
    #expect(SimplePattern("^[a-z]+-[a-z]+$") != nil)
  }

}
