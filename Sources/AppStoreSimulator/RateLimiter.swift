import Foundation
import Synchronization

/// Apple's rate limit, compressed: each endpoint may take `requestsPerSecond` on average
/// with bursts of as many (at least one); past that a request is refused until the returned time (UNIX
/// milliseconds, as Apple's `Retry-After` says).
final class RateLimiter: Sendable {
  let requestsPerSecond: Double
  private let buckets = Mutex<[String: Bucket]>([:])

  struct Bucket {
    var tokens: Double
    var updated: Date
  }

  init(requestsPerSecond: Double) {
    self.requestsPerSecond = requestsPerSecond
  }

  /// Nil when `endpoint` may be called now; else when it may be called again.
  func admit(_ endpoint: String, now: Date = Date()) -> Date? {
    buckets.withLock { buckets in
      let burst = max(1, requestsPerSecond)
      var bucket = buckets[endpoint] ?? Bucket(tokens: burst, updated: now)
      let elapsed = max(0, now.timeIntervalSince(bucket.updated))
      bucket.tokens = min(burst, bucket.tokens + elapsed * requestsPerSecond)
      bucket.updated = now
      defer { buckets[endpoint] = bucket }
      guard bucket.tokens >= 1 else {
        return now.addingTimeInterval((1 - bucket.tokens) / requestsPerSecond)
      }
      bucket.tokens -= 1
      return nil
    }
  }
}
