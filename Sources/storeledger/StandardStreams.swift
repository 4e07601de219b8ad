import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The CLI's output and error streams, written straight to their descriptors. A reader that
/// goes away (`storeledger events … | head`, quitting `less`) ends the command as it ends
/// `cat`: by SIGPIPE, quietly — never a trap with a backtrace, which Foundation's non-throwing
/// `FileHandle.write` gives when SIGPIPE is ignored (as the networking libraries set it).
enum StandardStreams {
  static func out(_ text: String) { write(text, to: STDOUT_FILENO) }

  static func error(_ text: String) { write(text, to: STDERR_FILENO) }

  private static func write(_ text: String, to descriptor: Int32) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes { buffer in
        systemWrite(descriptor, buffer.baseAddress, buffer.count)
      }
      if written < 0 {
        if errno == EINTR { continue }
        if errno == EPIPE { endAsAClosedPipeEndsCat() }
        return  // the stream is gone for another reason: nothing more can be said on it
      }
      offset += written
    }
  }

  private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int)
    -> Int
  {
    #if canImport(Glibc)
      Glibc.write(descriptor, bytes, count)
    #else
      Darwin.write(descriptor, bytes, count)
    #endif
  }

  private static func endAsAClosedPipeEndsCat() -> Never {
    signal(SIGPIPE, SIG_DFL)
    raise(SIGPIPE)
    exit(128 + SIGPIPE)
  }
}
