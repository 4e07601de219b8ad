/// A scanned JSON text: its bytes, its tokens, and one hash table of every object's members,
/// so finding a member costs the same in an object of 3 members as in one of 40.
final class JSONDocument {
  /// The text: a copy owned by the document (so values can be read for as long as a decoder
  /// lives), or the caller's bytes, borrowed for a read that ends before they do.
  private let storage: UnsafeRawBufferPointer
  private let ownsStorage: Bool
  let tokens: UnsafeMutableBufferPointer<JSONToken>
  /// Open addressing, linear probing; `value == 0` marks an empty slot (token 0 is the
  /// root, never a member's value).
  private let members: UnsafeMutableBufferPointer<MemberSlot>

  private struct MemberSlot {
    var object: UInt32
    var value: UInt32
  }

  convenience init(copying bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) {
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
    copy.copyMemory(from: bytes)
    try self.init(UnsafeRawBufferPointer(rebasing: copy[..<bytes.count]), owned: true)
  }

  /// `bytes` must outlive the document and every value read from it while it lives.
  convenience init(borrowing bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) {
    try self.init(bytes, owned: false)
  }

  private init(_ bytes: UnsafeRawBufferPointer, owned: Bool) throws(JSONSyntaxError) {
    do {
      tokens = try JSONScanner.tokens(of: bytes)
    } catch {
      if owned { bytes.deallocate() }
      throw error
    }
    (storage, ownsStorage) = (bytes, owned)
    var capacity = 16
    while capacity < tokens.count { capacity <<= 1 }
    members = .allocate(capacity: capacity)
    members.initialize(repeating: MemberSlot(object: 0, value: 0))
    indexMembers()
  }

  deinit {
    if ownsStorage { storage.deallocate() }
    tokens.deallocate()
    members.deallocate()
  }

  /// The document `null`, for values a decoder asks for that the text does not have.
  static func null() throws -> JSONDocument {
    var text = "null"
    return try text.withUTF8 { try JSONDocument(copying: UnsafeRawBufferPointer($0)) }
  }

  var bytes: UnsafeRawBufferPointer { storage }

  /// The token after `index` and all its descendants.
  @inline(__always)
  func next(after index: Int) -> Int {
    let token = tokens[index]
    return token.kind == .object || token.kind == .array ? Int(token.end) : index + 1
  }

  /// Puts every object's members in the table; where a key repeats, the first one stays.
  private func indexMembers() {
    for object in tokens.indices where tokens[object].kind == .object {
      var key = object + 1
      for _ in 0..<tokens[object].info {
        if tokens[key].isComplex { tokens[key].info = escapedKeyHash(key) }
        insert(object: object, key: key)
        key = next(after: key + 1)
      }
    }
  }

  private func insert(object: Int, key: Int) {
    var slot = self.slot(object: object, hash: tokens[key].info)
    while members[slot].value != 0 {
      let other = Int(members[slot].value) - 1
      if members[slot].object == UInt32(object), tokens[other].info == tokens[key].info,
        keyBytes(other).elementsEqual(keyBytes(key))
      {
        return
      }
      slot = (slot + 1) & (members.count - 1)
    }
    members[slot] = MemberSlot(object: UInt32(object), value: UInt32(key + 1))
  }

  @inline(__always)
  private func slot(object: Int, hash: UInt32) -> Int {
    var mixed = UInt64(hash) ^ (UInt64(object) &* 0x9E37_79B9_7F4A_7C15)
    mixed ^= mixed >> 29
    return Int(truncatingIfNeeded: mixed) & (members.count - 1)
  }

  private func escapedKeyHash(_ key: Int) -> UInt32 {
    let decoded = keyBytes(key)
    return decoded.withUnsafeBytes { JSONKeyHash.of($0) }
  }

  /// A key's bytes, unescaped.
  private func keyBytes(_ key: Int) -> [UInt8] {
    let token = tokens[key]
    let raw = UnsafeRawBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)])
    guard token.isComplex else { return Array(raw) }
    return (try? JSONUnescaping.bytes(raw, at: Int(token.start))) ?? Array(raw)
  }

  /// The value of `object`'s member named `key` (its first, should the text repeat it).
  func member(of object: Int, named key: UnsafeRawBufferPointer, hash: UInt32) -> Int? {
    var slot = self.slot(object: object, hash: hash)
    while true {
      let entry = members[slot]
      if entry.value == 0 { return nil }
      let name = tokens[Int(entry.value) - 1]
      if entry.object == UInt32(object), name.info == hash {
        if name.isComplex {
          if keyBytes(Int(entry.value) - 1).elementsEqual(key) { return Int(entry.value) }
        } else if Int(name.end - name.start) == key.count, memoryEquals(Int(name.start), key) {
          return Int(entry.value)
        }
      }
      slot = (slot + 1) & (members.count - 1)
    }
  }

  /// The key and value token indexes of `object`'s members, in document order.
  func members(of object: Int) -> [(key: Int, value: Int)] {
    var (members, index) = ([(key: Int, value: Int)](), object + 1)
    members.reserveCapacity(Int(tokens[object].info))
    for _ in 0..<tokens[object].info {
      members.append((index, index + 1))
      index = next(after: index + 1)
    }
    return members
  }

  private func memoryEquals(_ offset: Int, _ key: UnsafeRawBufferPointer) -> Bool {
    for index in 0..<key.count where storage[offset + index] != key[index] { return false }
    return true
  }

  /// The string token at `index`, unescaped.
  func string(at index: Int) throws(JSONSyntaxError) -> String {
    let token = tokens[index]
    let raw = UnsafeRawBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)])
    if !token.isComplex {
      let utf8 = raw.bindMemory(to: UInt8.self)
      // Plain ASCII needs no validation (almost every string Apple signs).
      if utf8.allSatisfy({ $0 < 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
      guard let text = String(validating: utf8, as: UTF8.self) else {
        throw JSONSyntaxError(.invalidUTF8, at: Int(token.start))
      }
      return text
    }
    let unescaped = try JSONUnescaping.bytes(raw, at: Int(token.start))
    guard let text = String(validating: unescaped, as: UTF8.self) else {
      throw JSONSyntaxError(.invalidUTF8, at: Int(token.start))
    }
    return text
  }

  /// The number token at `index` as `T`, nil when it is not exactly one.
  func integer<T: FixedWidthInteger>(at index: Int, as _: T.Type) -> T? {
    let token = tokens[index]
    if token.isComplex {
      guard let double = double(at: index) else { return nil }
      return T(exactly: double)
    }
    var offset = Int(token.start)
    let negative = bytes[offset] == UInt8(ascii: "-")
    if negative { offset += 1 }
    var magnitude: UInt64 = 0
    while offset < Int(token.end) {
      let digit = UInt64(bytes[offset] &- UInt8(ascii: "0"))
      let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times10.addingReportingOverflow(digit)
      if overflow1 || overflow2 { return nil }
      magnitude = sum
      offset += 1
    }
    guard negative, magnitude != 0 else { return T(exactly: magnitude) }
    guard T.isSigned, magnitude <= UInt64(T.max) + 1 else { return nil }
    return magnitude == UInt64(T.max) + 1 ? T.min : 0 - T(magnitude)
  }

  /// The number token at `index` as the nearest `Double`.
  func double(at index: Int) -> Double? {
    let token = tokens[index]
    let raw = UnsafeRawBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)])
    if !token.isComplex, raw.count <= 15, let whole = integer(at: index, as: Int64.self) {
      return Double(whole)
    }
    return Double(String(decoding: raw, as: UTF8.self))
  }
}
