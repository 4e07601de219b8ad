/// A pattern of the served document that is a run of ASCII character classes, each repeated
/// a number of times (`^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$`, `^[0-9]{1,64}$`),
/// matched in one pass over the text's scalars. Most of the document's patterns are of this
/// shape, and the webhook's signed payload (kilobytes) is checked against one on every call:
/// ICU's matcher first copies the text into UTF-16 and costs several times more.
///
/// Only patterns where one greedy pass decides exactly are taken: every class that repeats a
/// variable number of times shares no character with the classes that may follow it up to
/// the next required one, so no shorter run could let the rest match. `$` matches as JSON
/// Schema's (ECMA-262) does: at the end of the text only, never before a final line break as
/// ICU's would. Anything else (groups, alternatives, negated classes) is left to
/// `NSRegularExpression`, through `SchemaCheck.icuPattern`.
struct SimplePattern: Sendable {
  struct Atom: Sendable {
    /// Which of the 128 ASCII scalars the class holds, as two 64-bit halves.
    var low: UInt64 = 0
    var high: UInt64 = 0
    var minimum: Int
    var maximum: Int

    func holds(_ scalar: Unicode.Scalar) -> Bool {
      let value = scalar.value
      if value < 64 { return low & (1 << UInt64(value)) != 0 }
      if value < 128 { return high & (1 << UInt64(value - 64)) != 0 }
      return false
    }

    func shares(with other: Atom) -> Bool { low & other.low != 0 || high & other.high != 0 }

    mutating func insert(_ value: UInt32) {
      if value < 64 { low |= 1 << UInt64(value) } else { high |= 1 << UInt64(value - 64) }
    }
  }

  let atoms: [Atom]

  /// Nil when `pattern` is not of the simple shape.
  init?(_ pattern: String) {
    var scalars = Array(pattern.unicodeScalars)[...]
    guard scalars.first == "^", scalars.last == "$" else { return nil }
    scalars = scalars.dropFirst().dropLast()
    var atoms: [Atom] = []
    while let first = scalars.first {
      var atom = Atom(minimum: 1, maximum: 1)
      if first == "[" {
        guard let end = Self.readClass(&scalars, into: &atom) else { return nil }
        scalars = scalars[end...]
      } else {
        guard let value = Self.readLiteral(&scalars, inClass: false) else { return nil }
        atom.insert(value)
      }
      guard Self.readCount(&scalars, into: &atom) else { return nil }
      atoms.append(atom)
    }
    // One greedy pass is exact only when a variable run cannot give way to what follows.
    for (index, atom) in atoms.enumerated() where atom.minimum != atom.maximum {
      for next in atoms[(index + 1)...] {
        if atom.shares(with: next) { return nil }
        if next.minimum > 0 { break }
      }
    }
    self.atoms = atoms
  }

  func matches(_ text: String) -> Bool {
    var scalars = text.unicodeScalars.makeIterator()
    var pending = scalars.next()
    for atom in atoms {
      var count = 0
      while count < atom.maximum, let scalar = pending, atom.holds(scalar) {
        count += 1
        pending = scalars.next()
      }
      if count < atom.minimum { return false }
    }
    return pending == nil
  }

  /// Reads `[…]` after its opening bracket; returns where the class ends.
  private static func readClass(_ scalars: inout ArraySlice<Unicode.Scalar>, into atom: inout Atom)
    -> ArraySlice<Unicode.Scalar>.Index?
  {
    var rest = scalars.dropFirst()
    guard let first = rest.first, first != "^", first != "]" else { return nil }
    var previous: UInt32?
    while let scalar = rest.first {
      if scalar == "]" { return rest.index(after: rest.startIndex) }
      if scalar == "-", let low = previous, rest.count > 1, rest.dropFirst().first != "]" {
        rest = rest.dropFirst()
        guard let high = readLiteral(&rest, inClass: true), low <= high else { return nil }
        for value in low...high { atom.insert(value) }
        previous = nil
        continue
      }
      // `--` and `&&` are set operations in ICU's classes: not this shape.
      if (scalar == "-" || scalar == "&"), rest.dropFirst().first == scalar { return nil }
      guard let value = readLiteral(&rest, inClass: true) else { return nil }
      atom.insert(value)
      previous = value
    }
    return nil
  }

  /// One ASCII character, plain or escaped (`\.`, `\-`, `\x21`); nil for a class escape such
  /// as `\s` or `\d`, a metacharacter (in a class only `[` is one here), or anything outside
  /// ASCII.
  private static func readLiteral(_ scalars: inout ArraySlice<Unicode.Scalar>, inClass: Bool)
    -> UInt32?
  {
    guard let scalar = scalars.popFirst(), scalar.isASCII else { return nil }
    if scalar != "\\" {
      let special = inClass ? "[" : "^$.|?*+()[]{}"
      return special.unicodeScalars.contains(scalar) ? nil : scalar.value
    }
    guard let escaped = scalars.popFirst(), escaped.isASCII else { return nil }
    if escaped == "x" {
      guard scalars.count >= 2,
        let value = UInt32(String(String.UnicodeScalarView(scalars.prefix(2))), radix: 16),
        value < 128
      else { return nil }
      scalars = scalars.dropFirst(2)
      return value
    }
    let properties = escaped.properties
    return properties.isAlphabetic || properties.numericType != nil ? nil : escaped.value
  }

  /// An optional `+`, `*`, `?`, `{n}`, `{m,}` or `{m,n}` after an atom.
  private static func readCount(_ scalars: inout ArraySlice<Unicode.Scalar>, into atom: inout Atom)
    -> Bool
  {
    switch scalars.first {
    case "+"?: (atom.minimum, atom.maximum) = (1, .max)
    case "*"?: (atom.minimum, atom.maximum) = (0, .max)
    case "?"?: (atom.minimum, atom.maximum) = (0, 1)
    case "{"?:
      guard let close = scalars.firstIndex(of: "}") else { return false }
      let inside = String(
        String.UnicodeScalarView(scalars[scalars.index(after: scalars.startIndex)..<close]))
      let parts = inside.split(separator: ",", omittingEmptySubsequences: false)
      guard let low = parts.first.flatMap({ Int($0) }), parts.count <= 2 else { return false }
      let high = parts.count == 1 ? low : parts[1].isEmpty ? Int.max : Int(parts[1])
      guard let high, low <= high else { return false }
      (atom.minimum, atom.maximum) = (low, high)
      scalars = scalars[scalars.index(after: close)...]
      return !Self.followsCount(scalars.first)
    default: return true
    }
    scalars = scalars.dropFirst()
    // A lazy or possessive count (`+?`, `*+`) or a second count is not this shape.
    return !Self.followsCount(scalars.first)
  }

  private static func followsCount(_ scalar: Unicode.Scalar?) -> Bool {
    guard let scalar else { return false }
    return scalar == "+" || scalar == "?" || scalar == "*" || scalar == "{"
  }
}
