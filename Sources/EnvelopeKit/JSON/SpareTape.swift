import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One spare tape buffer per thread, reused by the next scan on that thread.
///
/// A tape is the reader's largest buffer (16 bytes a token; 0.9-2.7x the input). Allocated
/// afresh for every scan, it cost a large `malloc` (glibc maps it fresh past its threshold: 22
/// minor page faults per twitter.json scan, counted with `getrusage`) and cold memory. A scan
/// now takes the thread's spare buffer when it is large enough, and a document gives its buffer
/// back when it is freed: reader-alone rows +3-5% in full benchmark runs (twitter.json 1.19 ->
/// 1.25 GB/s, citm_catalog.json 1.40 -> 1.44, canada.json 1.06 -> 1.11).
///
/// The spare is freed when its thread ends. Tapes of more than `largestKept` tokens go back to
/// `malloc`, so a thread never keeps a large document's tape alive.
enum SpareTape {
  /// The largest tape kept (in tokens: 8 MB).
  static let largestKept = 1 << 19

  /// Whether threads keep a spare: yes unless the environment variable
  /// `ENVELOPEKIT_NO_SPARE_TAPE` is set (to anything but `0`, the empty string included), read
  /// once per process.
  static let isEnabled: Bool = {
    guard let value = ProcessInfo.processInfo.environment["ENVELOPEKIT_NO_SPARE_TAPE"] else {
      return true
    }
    return value == "0"
  }()

  /// A buffer of at least `minimumCapacity` tokens and its capacity: the thread's spare when it
  /// is large enough, otherwise a new one.
  static func take(minimumCapacity: Int) -> (base: UnsafeMutablePointer<JSONToken>, capacity: Int) {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
      if let slot = slot(), let base = slot.pointee.base,
        slot.pointee.capacity >= minimumCapacity
      {
        slot.pointee.base = nil
        return (base, slot.pointee.capacity)
      }
    #endif
    return (.allocate(capacity: minimumCapacity), minimumCapacity)
  }

  /// Keeps `base` as the thread's spare when there is none (or a smaller one) and it is not
  /// too large; frees it otherwise.
  static func giveBack(_ base: UnsafeMutablePointer<JSONToken>, capacity: Int) {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
      if isEnabled, capacity <= largestKept, let slot = slot() {
        if let kept = slot.pointee.base {
          guard slot.pointee.capacity < capacity else {
            base.deallocate()
            return
          }
          kept.deallocate()
        }
        slot.pointee = SpareTapeSlot(base: base, capacity: capacity)
        return
      }
    #endif
    base.deallocate()
  }

  #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    /// The thread-specific key; its destructor frees a thread's spare when the thread ends. (A
    /// document freed by another key's destructor after that makes a new slot, which the system
    /// destroys on its next pass over the keys.)
    private static let key: pthread_key_t? = {
      var key = pthread_key_t()
      return pthread_key_create(&key, { freeSpare($0) }) == 0 ? key : nil
    }()

    /// This thread's slot, created on first use (nil only if the system refuses one).
    private static func slot() -> UnsafeMutablePointer<SpareTapeSlot>? {
      guard let key else { return nil }
      if let raw = pthread_getspecific(key) {
        return raw.assumingMemoryBound(to: SpareTapeSlot.self)
      }
      let slot = UnsafeMutablePointer<SpareTapeSlot>.allocate(capacity: 1)
      slot.initialize(to: SpareTapeSlot(base: nil, capacity: 0))
      guard pthread_setspecific(key, slot) == 0 else {
        slot.deallocate()
        return nil
      }
      return slot
    }
  #endif
}

#if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
  /// A thread's spare tape (`base` nil when it has none).
  private struct SpareTapeSlot {
    var base: UnsafeMutablePointer<JSONToken>?
    var capacity: Int
  }

  /// The key's destructor (the parameter is optional on some platforms, not on others).
  private func freeSpare(_ raw: UnsafeMutableRawPointer?) {
    guard let slot = raw?.assumingMemoryBound(to: SpareTapeSlot.self) else { return }
    slot.pointee.base?.deallocate()
    slot.deallocate()
  }
#endif
