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

  /// Whether threads keep spares: yes unless the environment variable
  /// `ENVELOPEKIT_NO_SPARE_TAPE` is set (to anything but `0`, the empty string included), read
  /// once per process. It turns off every spare buffer (`SpareBuffer`).
  static let isEnabled: Bool = {
    guard let value = ProcessInfo.processInfo.environment["ENVELOPEKIT_NO_SPARE_TAPE"] else {
      return true
    }
    return value == "0"
  }()

  /// A buffer of at least `minimumCapacity` tokens: the thread's spare if it is large enough.
  static func take(minimumCapacity: Int) -> (base: UnsafeMutablePointer<JSONToken>, capacity: Int) {
    SpareBuffer.take(.tape, minimumCapacity: minimumCapacity, of: JSONToken.self)
  }

  /// Keeps `base` as the thread's spare if it is the largest yet and not too large; frees it
  /// otherwise.
  static func giveBack(_ base: UnsafeMutablePointer<JSONToken>, capacity: Int) {
    SpareBuffer.giveBack(.tape, base, capacity: capacity, largestKept: largestKept)
  }
}

/// One spare buffer per thread and purpose, reused by the next call on that thread: fresh large
/// buffers cost page faults on every call (the tape's measurements are above; the encoder's
/// arena and members showed the same, 31% of a canada encode in the kernel zeroing pages).
///
/// Buffers of trivial types (no references) are kept, and objects that hold nothing of a call
/// (`SpareDocument`); a spare is freed when its thread ends. Every thread that scans or encodes
/// pays one slot array (two words a purpose) and what its spares hold.
enum SpareBuffer {
  /// What a spare buffer is for; one slot each.
  enum Purpose: Int, CaseIterable {
    case tape, encoderBytes, encoderMembers
    /// A small input's copy (`JSONDocument.copying`).
    case input
  }

  /// What a spare object is for; one slot each, after the buffers' slots.
  enum ObjectPurpose: Int, CaseIterable {
    case document
    /// A root decoder between decodes (`DecoderImpl+Spare.swift`).
    case decoder
  }

  /// The thread's spare object for `purpose`, taken out of its slot; nil when there is none.
  static func takeObject<Object: AnyObject>(_ purpose: ObjectPurpose, as type: Object.Type)
    -> Object?
  {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
      if SpareTape.isEnabled, let slot = slot(purpose), let raw = slot.pointee.base {
        slot.pointee.base = nil
        return Unmanaged<Object>.fromOpaque(raw).takeRetainedValue()
      }
    #endif
    return nil
  }

  /// Keeps `object` as the thread's spare for `purpose` when the slot is free (a reference
  /// taken); otherwise it is left to its other owners.
  static func keepObject<Object: AnyObject>(_ object: Object, _ purpose: ObjectPurpose) {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
      if SpareTape.isEnabled, let slot = slot(purpose), slot.pointee.base == nil {
        slot.pointee.base = Unmanaged.passRetained(object).toOpaque()
      }
    #endif
  }

  /// A buffer of at least `minimumCapacity` elements: the thread's spare if it is large enough.
  static func take<Element>(
    _ purpose: Purpose, minimumCapacity: Int, of type: Element.Type
  ) -> (base: UnsafeMutablePointer<Element>, capacity: Int) {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
      if SpareTape.isEnabled, let slot = slot(purpose), let raw = slot.pointee.base,
        slot.pointee.bytes >= minimumCapacity * MemoryLayout<Element>.stride
      {
        slot.pointee.base = nil
        let capacity = slot.pointee.bytes / MemoryLayout<Element>.stride
        return (raw.bindMemory(to: Element.self, capacity: capacity), capacity)
      }
    #endif
    return (.allocate(capacity: minimumCapacity), minimumCapacity)
  }

  /// Keeps `base` as the thread's spare for `purpose` if it is the largest yet and holds at most
  /// `largestKept` elements; frees it otherwise.
  static func giveBack<Element>(
    _ purpose: Purpose, _ base: UnsafeMutablePointer<Element>, capacity: Int, largestKept: Int
  ) {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
      if SpareTape.isEnabled, capacity <= largestKept, let slot = slot(purpose) {
        let bytes = capacity * MemoryLayout<Element>.stride
        if let kept = slot.pointee.base {
          guard slot.pointee.bytes < bytes else {
            base.deallocate()
            return
          }
          kept.deallocate()
        }
        slot.pointee = SpareSlot(base: UnsafeMutableRawPointer(base), bytes: bytes)
        return
      }
    #endif
    base.deallocate()
  }

  #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    /// The key of the thread's slots; each thread's are freed with it (`freeSpares`).
    private static let key: pthread_key_t? = {
      var key = pthread_key_t()
      return pthread_key_create(&key, { freeSpares($0) }) == 0 ? key : nil
    }()

    private static func slot(_ purpose: Purpose) -> UnsafeMutablePointer<SpareSlot>? {
      slot(at: purpose.rawValue)
    }

    private static func slot(_ purpose: ObjectPurpose) -> UnsafeMutablePointer<SpareSlot>? {
      slot(at: Purpose.allCases.count + purpose.rawValue)
    }

    /// The thread's slot at `offset`: buffers' slots first, then objects' (`freeSpares`).
    private static func slot(at offset: Int) -> UnsafeMutablePointer<SpareSlot>? {
      guard let key else { return nil }
      if let raw = pthread_getspecific(key) {
        return raw.assumingMemoryBound(to: SpareSlot.self) + offset
      }
      let count = slotCount
      let slots = UnsafeMutablePointer<SpareSlot>.allocate(capacity: count)
      slots.initialize(repeating: SpareSlot(base: nil, bytes: 0), count: count)
      guard pthread_setspecific(key, slots) == 0 else {
        slots.deallocate()
        return nil
      }
      return slots + offset
    }
  #endif

  /// Frees the calling thread's spares and slots now, as the thread's end would; the next call
  /// on the thread starts without spares. For leak checkers that count what a thread keeps
  /// between calls (the fuzz targets call it after each input, so that LeakSanitizer checks
  /// every input with the spares in use).
  static func freeThreadSpares() {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
      guard let key, let raw = pthread_getspecific(key) else { return }
      guard pthread_setspecific(key, nil) == 0 else { return }
      freeSpares(raw)
    #endif
  }

  /// The slots of a thread: one per buffer purpose, then one per object purpose.
  fileprivate static var slotCount: Int { Purpose.allCases.count + ObjectPurpose.allCases.count }
}

#if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
  private struct SpareSlot {
    var base: UnsafeMutableRawPointer?
    var bytes: Int
  }

  private func freeSpares(_ raw: UnsafeMutableRawPointer?) {
    guard let slots = raw?.assumingMemoryBound(to: SpareSlot.self) else { return }
    let buffers = SpareBuffer.Purpose.allCases.count
    for index in 0..<buffers { slots[index].base?.deallocate() }
    for index in buffers..<SpareBuffer.slotCount {
      slots[index].base.map { Unmanaged<AnyObject>.fromOpaque($0).release() }
    }
    slots.deallocate()
  }
#endif
