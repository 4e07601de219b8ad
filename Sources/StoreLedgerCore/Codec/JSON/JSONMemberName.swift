/// An object key known in advance, hashed once, for ``JSONObjectReader``.
struct JSONMemberName: Sendable {
  let name: StaticString
  let hash: UInt32

  init(_ name: StaticString) {
    self.name = name
    hash = JSONKeyHash.of(
      UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
  }

  var bytes: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
  }
}
