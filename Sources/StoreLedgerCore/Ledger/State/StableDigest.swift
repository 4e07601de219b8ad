/// FNV-1a over 64-bit words: the same value on every run and platform (Swift's `Hasher` is
/// seeded per process), so an order decided by it never depends on the process.
public struct StableDigest: Sendable {
  public private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

  public init() {}

  public mutating func add(_ word: UInt64) {
    value = (value ^ word) &* 0x0000_0100_0000_01B3
  }

  public mutating func add(_ number: Int64?) {
    // Absent and present-but-zero must differ.
    guard let number else { return add(0x9E37_79B9_7F4A_7C15) }
    add(UInt64(bitPattern: number))
  }

  public mutating func add(_ text: String?) {
    guard var text else { return add(0x9E37_79B9_7F4A_7C15) }
    // The contiguous bytes, not the UTF-8 view's iterator: the same bytes, a third of the time.
    text.withUTF8 { bytes in
      for byte in bytes { add(UInt64(byte)) }
    }
    add(0xFF)  // ends the string, so "ab"+"c" and "a"+"bc" differ
  }
}
