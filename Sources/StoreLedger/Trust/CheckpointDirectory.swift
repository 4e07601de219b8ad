import Foundation

/// Where checkpoints are published: `checkpoints/<tree size>.json`, each signed, and
/// `leaves/<from>-<to>.txt`, the row hashes (hex, one per line, feed order) each checkpoint
/// added to the one before. The leaves let an auditor name the exact row that no longer
/// matches; they are hashes only, no content, so the directory holds no personal data.
public struct CheckpointDirectory: Sendable {
  public let url: URL

  public init(_ url: URL) { self.url = url }

  var checkpointsURL: URL { url.appendingPathComponent("checkpoints", isDirectory: true) }
  var leavesURL: URL { url.appendingPathComponent("leaves", isDirectory: true) }

  static func padded(_ number: Int) -> String {
    let digits = String(number)
    return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
  }

  /// The name the checkpointer gives the checkpoint of a tree of `size` rows.
  public static func checkpointName(treeSize size: Int) -> String {
    "checkpoints/\(padded(size)).json"
  }

  /// Whether `name` is a checkpoint file's name: 20 digits and `.json`.
  static func isCheckpointName(_ name: String) -> Bool {
    name.count == 25 && name.hasSuffix(".json") && isPadded(name.prefix(20))
  }

  /// Whether `text` is a number as `padded` writes it: 20 ASCII digits.
  private static func isPadded(_ text: Substring) -> Bool {
    text.count == 20 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
  }

  /// The bounds a leaves file's name states (`<from>-<to>.txt`, 20 digits each), or nil.
  static func leafRange(_ name: String) -> (from: Int, to: Int)? {
    guard name.count == 45, name.hasSuffix(".txt") else { return nil }
    let bounds = name.dropLast(4).split(separator: "-", omittingEmptySubsequences: false)
    guard bounds.count == 2, bounds.allSatisfy(isPadded),
      let from = Int(bounds[0]), let to = Int(bounds[1]), from < to
    else { return nil }
    return (from, to)
  }

  /// Files in `checkpoints/` and `leaves/` the checkpointer never writes (another name, a
  /// folder): the audit reads only what it can name, so anything else is reported rather
  /// than silently passed over. Hidden files (a write under way) are not counted.
  public func strayFiles() throws(CheckpointError) -> [String] {
    var stray: [String] = []
    for (folder, url, fits) in [
      ("checkpoints", checkpointsURL, Self.isCheckpointName),
      ("leaves", leavesURL, { Self.leafRange($0) != nil }),
    ] as [(String, URL, (String) -> Bool)] {
      for name in try files(in: url, suffix: "") {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(
          atPath: url.appendingPathComponent(name).path, isDirectory: &isDirectory)
        if isDirectory.boolValue || !fits(name) { stray.append("\(folder)/\(name)") }
      }
    }
    return stray
  }

  /// Every checkpoint, smallest tree first, with its file name; files not named as the
  /// checkpointer names them are left to ``strayFiles()``.
  public func checkpoints() throws(CheckpointError) -> [(name: String, checkpoint: LogCheckpoint)] {
    let names = try files(in: checkpointsURL, suffix: ".json").filter(Self.isCheckpointName)
    var found: [(name: String, checkpoint: LogCheckpoint)] = []
    for name in names {
      let file = checkpointsURL.appendingPathComponent(name)
      guard let bytes = FileManager.default.contents(atPath: file.path) else {
        throw CheckpointError(.unusableDirectory, "checkpoints/\(name) cannot be read")
      }
      found.append(
        ("checkpoints/\(name)", try LogCheckpoint.read(bytes, name: "checkpoints/\(name)")))
    }
    return found.sorted { $0.checkpoint.treeSize < $1.checkpoint.treeSize }
  }

  /// Every published row hash, in feed order. The files must follow one another without a gap.
  public func leaves() throws(CheckpointError) -> [MerkleTree.Hash] {
    let flat = try leafBytes()
    return stride(from: 0, to: flat.count, by: 32).map { Array(flat[$0..<($0 + 32)]) }
  }

  /// The published row hashes as one run of bytes, 32 per row in feed order: a log of millions
  /// of rows in one allocation.
  public func leafBytes() throws(CheckpointError) -> [UInt8] {
    var ranges: [(from: Int, to: Int, name: String)] = []
    for name in try files(in: leavesURL, suffix: ".txt") {
      // Other names are reported by strayFiles().
      guard let (from, to) = Self.leafRange(name) else { continue }
      ranges.append((from, to, name))
    }
    ranges.sort { $0.from < $1.from }
    var flat: [UInt8] = []
    flat.reserveCapacity((ranges.last?.to ?? 0) * 32)
    for range in ranges {
      guard range.from == flat.count / 32 else {
        throw CheckpointError(
          .malformedCheckpoint,
          "leaves/\(range.name) starts at row \(range.from), but the files before it end at row "
            + "\(flat.count / 32): a leaves file is missing or overlaps")
      }
      let file = leavesURL.appendingPathComponent(range.name)
      guard let bytes = FileManager.default.contents(atPath: file.path) else {
        throw CheckpointError(.unusableDirectory, "leaves/\(range.name) cannot be read")
      }
      for line in bytes.split(separator: UInt8(ascii: "\n")) {
        guard line.count == 64, let hash = Hex.decode(String(decoding: line, as: UTF8.self)) else {
          throw CheckpointError(
            .malformedCheckpoint, "leaves/\(range.name) holds a line that is not a 32-byte hex hash"
          )
        }
        flat.append(contentsOf: hash)
      }
      guard flat.count / 32 == range.to else {
        throw CheckpointError(
          .malformedCheckpoint,
          "leaves/\(range.name) should hold \(range.to - range.from) hashes, not "
            + "\(flat.count / 32 - range.from)")
      }
    }
    return flat
  }

  /// Publishes `leaves` (rows `from`…; hex lines, 65 bytes a row) and then the checkpoint
  /// that covers them, each file written whole before it is renamed into place.
  func publish(leaves: [UInt8], from start: Int, checkpoint: LogCheckpoint)
    throws(CheckpointError)
  {
    do {
      try FileManager.default.createDirectory(at: leavesURL, withIntermediateDirectories: true)
      try FileManager.default.createDirectory(
        at: checkpointsURL, withIntermediateDirectories: true)
      if !leaves.isEmpty {
        let rows = leaves.count / 65
        try Data(leaves).write(
          to: leavesURL.appendingPathComponent(
            "\(Self.padded(start))-\(Self.padded(start + rows)).txt"),
          options: .atomic)
      }
      try checkpoint.encoded().write(
        to: checkpointsURL.appendingPathComponent("\(Self.padded(checkpoint.treeSize)).json"),
        options: .atomic)
    } catch {
      throw CheckpointError(
        .unusableDirectory, "cannot write to \(url.path): \(error.localizedDescription)")
    }
  }

  private func files(in directory: URL, suffix: String) throws(CheckpointError) -> [String] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
      return []
    }
    guard isDirectory.boolValue,
      let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
    else {
      throw CheckpointError(.unusableDirectory, "\(directory.path) is not a readable directory")
    }
    return names.filter { $0.hasSuffix(suffix) && !$0.hasPrefix(".") }.sorted()
  }
}
