/// Splits a SQL script into statements, as psql does: on semicolons outside quotes, quoted
/// identifiers, dollar-quoted bodies and comments. PostgresNIO's extended protocol runs one
/// statement at a time.
enum SQLScript {
  static func statements(_ script: String) -> [String] {
    var statements: [String] = []
    var current: [Character] = []
    var scanner = Scanner(Array(script))
    while let character = scanner.next() {
      switch character {
      case ";":
        append(current, to: &statements)
        current = []
      case "'", "\"":
        current.append(character)
        current.append(contentsOf: scanner.quoted(until: character))
      case "-" where scanner.peek() == "-":
        current.append(character)
        current.append(contentsOf: scanner.through("\n"))
      case "/" where scanner.peek() == "*":
        current.append(character)
        current.append(contentsOf: scanner.through("*/"))
      case "$":
        current.append(character)
        current.append(contentsOf: scanner.dollarQuoted())
      default:
        current.append(character)
      }
    }
    append(current, to: &statements)
    return statements
  }

  /// Keeps a statement unless it holds nothing but whitespace and comments.
  private static func append(_ characters: [Character], to statements: inout [String]) {
    let text = String(characters).trimmingWhitespace
    let meaningful = text.split(separator: "\n").contains { line in
      let trimmed = String(line).trimmingWhitespace
      return !trimmed.isEmpty && !trimmed.hasPrefix("--")
    }
    if meaningful { statements.append(text) }
  }

  private struct Scanner {
    let characters: [Character]
    var index = 0

    init(_ characters: [Character]) {
      self.characters = characters
    }

    mutating func next() -> Character? {
      guard index < characters.count else { return nil }
      defer { index += 1 }
      return characters[index]
    }

    func peek() -> Character? {
      index < characters.count ? characters[index] : nil
    }

    /// Up to and including the closing `quote`; a doubled quote is an escaped one.
    mutating func quoted(until quote: Character) -> [Character] {
      var taken: [Character] = []
      while let character = next() {
        taken.append(character)
        if character == quote {
          guard peek() == quote else { return taken }
          taken.append(next()!)
        }
      }
      return taken
    }

    /// Up to and including `terminator`.
    mutating func through(_ terminator: String) -> [Character] {
      let end = Array(terminator)
      var taken: [Character] = []
      while let character = next() {
        taken.append(character)
        if taken.count >= end.count, Array(taken.suffix(end.count)) == end { return taken }
      }
      return taken
    }

    /// After a `$`: the rest of a `$tag$ … $tag$` body, or nothing when it is not one (`$1`).
    mutating func dollarQuoted() -> [Character] {
      let start = index
      var tag: [Character] = ["$"]
      while let character = peek(), character == "_" || character.isLetter || character.isNumber {
        if tag.count == 1, character.isNumber { return [] }
        tag.append(character)
        index += 1
      }
      guard peek() == "$" else {
        index = start
        return []
      }
      index += 1
      tag.append("$")
      return Array(tag.dropFirst()) + through(String(tag))
    }
  }
}

extension String {
  fileprivate var trimmingWhitespace: String {
    var scalars = Substring(self)
    while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
    while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
    return String(scalars)
  }
}
