/// A text that is not JSON: what was wrong and at which byte.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
  public enum Code: String, Sendable {
    case unexpectedEnd, unexpectedCharacter, expectedKey, controlCharacterInString
    case invalidEscape, invalidNumber, invalidUTF8, tooDeep
  }

  public var code: Code
  public var offset: Int

  init(_ code: Code, at offset: Int) {
    self.code = code
    self.offset = offset
  }

  public var description: String { "not valid JSON (\(code.rawValue) at byte \(offset))" }
}
