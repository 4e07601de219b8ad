/// SHA-1 (FIPS 180-4) over bytes, for the name-based UUIDs RFC 9562 defines with it, and for
/// nothing that needs a secure hash. Core imports Foundation only, so the ids every storage
/// gives an event are computed here rather than by a crypto library.
package enum SHA1Digest {
  package static func of(_ message: [UInt8]) -> [UInt8] {
    var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
      0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )
    var padded = message
    padded.append(0x80)
    while padded.count % 64 != 56 { padded.append(0) }
    let bits = UInt64(message.count) &* 8
    for shift in stride(from: 56, through: 0, by: -8) {
      padded.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
    }
    var w = [UInt32](repeating: 0, count: 80)
    for block in stride(from: 0, to: padded.count, by: 64) {
      for i in 0..<16 {
        let j = block + i * 4
        w[i] =
          UInt32(padded[j]) << 24 | UInt32(padded[j + 1]) << 16 | UInt32(padded[j + 2]) << 8
          | UInt32(padded[j + 3])
      }
      for i in 16..<80 { w[i] = rotate(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
      var (a, b, c, d, e) = h
      for i in 0..<80 {
        let (f, k): (UInt32, UInt32)
        switch i {
        case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
        case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
        case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
        default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
        }
        let t = rotate(a, 5) &+ f &+ e &+ k &+ w[i]
        (e, d, c, b, a) = (d, c, rotate(b, 30), a, t)
      }
      h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
    }
    var digest: [UInt8] = []
    digest.reserveCapacity(20)
    for word in [h.0, h.1, h.2, h.3, h.4] {
      for shift in stride(from: 24, through: 0, by: -8) {
        digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
      }
    }
    return digest
  }

  private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
    value << count | value >> (32 - count)
  }
}
