import Foundation
import StoreLedgerCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A real headless Chromium driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`: commands in on fd 3, answers out on fd 4, each message JSON
/// ended by a NUL byte). One page; enough to navigate, read, type, press keys and take
/// screenshots. Blocking reads run on their own thread, never on the concurrency pool the
/// server under test answers on.
final class HeadlessChromium: @unchecked Sendable {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  private let process: pid_t
  private let toBrowser: Int32
  private let fromBrowser: Int32
  private let profile: URL
  private var nextId = 0
  private var buffered: [UInt8] = []
  private var session: String = ""
  private let queue = DispatchQueue(label: "headless-chromium")

  /// The browser binary: STORELEDGER_CHROMIUM (scripts/test sets it), else the usual places.
  static var executable: String? {
    let environment = ProcessInfo.processInfo.environment["STORELEDGER_CHROMIUM"]
    return ([environment].compactMap { $0 } + ["/usr/bin/chromium", "/usr/bin/chromium-browser"])
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  init() throws {
    guard let executable = Self.executable else {
      throw Failure(description: "no Chromium: run scripts/test, which installs it")
    }
    profile = FileManager.default.temporaryDirectory.appendingPathComponent(
      "chromium-\(UUID().uuidString)")
    var input: [Int32] = [0, 0]
    var output: [Int32] = [0, 0]
    guard pipe(&input) == 0, pipe(&output) == 0 else { throw Failure(description: "pipe failed") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, input[0], 3)
    posix_spawn_file_actions_adddup2(&actions, output[1], 4)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let arguments = [
      executable, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
      "--no-first-run", "--no-default-browser-check", "--disable-extensions",
      "--disable-background-networking", "--disable-sync", "--hide-scrollbars",
      "--force-color-profile=srgb", "--window-size=1280,1600",
      "--user-data-dir=\(profile.path)", "about:blank",
    ]
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
    close(input[0])
    close(output[1])
    guard spawned == 0 else {
      close(input[1])
      close(output[0])
      throw Failure(description: "could not start \(executable): \(spawned)")
    }
    process = pid
    toBrowser = input[1]
    fromBrowser = output[0]
    let target = try call("Target.createTarget", ["url": "about:blank"], inPage: false)
    guard let targetId = target["targetId"] as? String else {
      throw Failure(description: "no target: \(target)")
    }
    let attached = try call(
      "Target.attachToTarget", ["targetId": targetId, "flatten": true], inPage: false)
    session = attached["sessionId"] as? String ?? ""
    _ = try call("Page.enable", [:])
    _ = try call("Runtime.enable", [:])
  }

  deinit {
    kill(process, SIGKILL)
    var status: Int32 = 0
    waitpid(process, &status, 0)
    close(toBrowser)
    close(fromBrowser)
    try? FileManager.default.removeItem(at: profile)
  }

  // MARK: What tests do

  /// Opens `url` and waits until the page has loaded.
  func open(_ url: String) async throws {
    try await background { _ = try self.call("Page.navigate", ["url": url]) }
    try await waitForLoad()
  }

  /// Waits until the document is complete (after a navigation or a form's submission).
  func waitForLoad() async throws {
    for _ in 0..<200 {
      try await Task.sleep(for: .milliseconds(50))
      if try await evaluate("document.readyState") as? String == "complete" { return }
    }
    throw Failure(description: "the page did not load")
  }

  /// The value of a JavaScript expression in the page.
  func evaluate(_ expression: String) async throws -> Any? {
    try await background {
      let answer = try self.call(
        "Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
      if let exception = answer["exceptionDetails"] {
        throw Failure(description: "\(expression): \(exception)")
      }
      return (answer["result"] as? [String: Any])?["value"]
    }
  }

  func text() async throws -> String {
    try await evaluate("document.body.innerText") as? String ?? ""
  }

  func html() async throws -> String {
    try await evaluate("document.documentElement.outerHTML") as? String ?? ""
  }

  func url() async throws -> String { try await evaluate("location.href") as? String ?? "" }

  /// Types into the focused element as a person would, key by key.
  func type(_ text: String) async throws {
    try await background { _ = try self.call("Input.insertText", ["text": text]) }
  }

  /// Presses a key such as Tab or Enter (with Shift when asked).
  func press(_ key: String, code: Int, shift: Bool = false) async throws {
    try await background { () throws -> Void in
      for kind in ["rawKeyDown", "keyUp"] {
        var event: [String: Any] = [
          "type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code,
          "modifiers": shift ? 8 : 0,
        ]
        if key == "Enter", kind == "rawKeyDown" { event["text"] = "\r" }
        _ = try self.call("Input.dispatchKeyEvent", event)
        if key == "Enter", kind == "rawKeyDown" {
          _ = try self.call(
            "Input.dispatchKeyEvent",
            ["type": "char", "key": "Enter", "text": "\r", "windowsVirtualKeyCode": 13])
        }
      }
    }
  }

  /// The whole page as a PNG; with `scale`, only `height` CSS pixels from `top`, scaled.
  func screenshot(to file: URL, scale: Double? = nil, top: Double = 0, height: Double = 1400)
    async throws
  {
    var parameters: [String: Any] = ["format": "png", "captureBeyondViewport": true]
    if let scale {
      parameters["clip"] = ["x": 0, "y": top, "width": 1280, "height": height, "scale": scale]
    }
    let request = Unchecked(value: parameters)
    let shot = try await background {
      try self.call("Page.captureScreenshot", request.value)
    }
    guard let data = (shot["data"] as? String).flatMap({ Data(base64Encoded: $0) }) else {
      throw Failure(description: "no screenshot")
    }
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: file)
  }

  // MARK: The protocol

  /// A value of the protocol's untyped JSON, handed across the reading thread.
  private struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
  }

  private func background<Value>(_ body: @escaping @Sendable () throws -> Value)
    async throws -> Value
  {
    let boxed = try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Unchecked<Value>, any Error>) in
      queue.async {
        continuation.resume(with: Swift.Result { Unchecked(value: try body()) })
      }
    }
    return boxed.value
  }

  /// Sends a command and reads until its answer (events are passed over).
  private func call(_ method: String, _ parameters: [String: Any], inPage: Bool = true) throws
    -> [String: Any]
  {
    nextId += 1
    var message: [String: Any] = ["id": nextId, "method": method, "params": parameters]
    if inPage { message["sessionId"] = session }
    var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
    bytes.append(0)
    try bytes.withUnsafeBytes { buffer in
      var sent = 0
      while sent < buffer.count {
        let written = write(toBrowser, buffer.baseAddress! + sent, buffer.count - sent)
        guard written > 0 else { throw Failure(description: "the browser closed its pipe") }
        sent += written
      }
    }
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
      let reply = try readMessage()
      guard reply["id"] as? Int == nextId else { continue }
      if let error = reply["error"] { throw Failure(description: "\(method): \(error)") }
      return reply["result"] as? [String: Any] ?? [:]
    }
    throw Failure(description: "\(method): no answer in 30 s")
  }

  private func readMessage() throws -> [String: Any] {
    while true {
      if let end = buffered.firstIndex(of: 0) {
        let message = Array(buffered[..<end])
        buffered.removeSubrange(...end)
        return try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] ?? [:]
      }
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      let count = chunk.withUnsafeMutableBytes { read(fromBrowser, $0.baseAddress, $0.count) }
      guard count > 0 else { throw Failure(description: "the browser ended") }
      buffered += chunk[..<count]
    }
  }
}
