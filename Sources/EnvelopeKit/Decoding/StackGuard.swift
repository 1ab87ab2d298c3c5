#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Keeps the recursive Codable walk inside the current thread's stack.
///
/// Decoding a nested value recurses (`init(from:)` calls back into the decoder), so deep input
/// could overflow a small thread stack (512 KB on Apple platforms' secondary threads) whatever
/// `maxDepth` says. The guard reads the thread's stack bounds once per decode and, before each
/// nested container, checks that at least `reserve` bytes remain; otherwise the decode throws.
///
/// The stack budget per nesting level (x86_64; the decoder's frames, without the model's own
/// `init(from:)`): release builds about 0.7 KB for an array read through `unkeyedContainer()`,
/// 1.3 KB for a keyed model with an Optional child, 2.6 KB for a model in an array of models
/// (two levels); debug builds 1.5, 1.9 and 6.3 KB. With the 64 KB reserve a 512 KB thread
/// decodes 200 levels of arrays and of keyed models in debug builds (`DecoderSafetyTests`
/// holds it; release: about 600 and 330). Every level passes through `DecoderImpl.unbox`,
/// which keeps everything but a plain model's `init(from:)` out of line: a frame added on that
/// path is paid once per level, so measure before adding one (a test that records the address
/// of a local in a recursive model's `init(from:)` gives the bytes per level).
///
/// Under AddressSanitizer with fake stacks (`detect_stack_use_after_return`, on by default in
/// recent toolchains) locals live on the heap, so the guard cannot see the depth and refuses at
/// once ("nested too deeply ... depth 0"): run sanitised tests with
/// `ASAN_OPTIONS=detect_stack_use_after_return=0`. Treating such frames as having room instead
/// was tried: the real stack still overflows on deep input, so refusing is the safe side.
struct StackGuard {
  /// The lowest address a nested decode may start at; 0 when the bounds are unknown.
  private let floor: UInt

  /// - Parameter reserve: the stack kept free for one more level and for throwing.
  init(reserve: UInt = 64 * 1024) {
    floor = Self.cachedLowestAddress().map { $0 + reserve } ?? 0
  }

  /// The thread's stack bounds never change while it runs, and reading them can be slow (glibc
  /// parses /proc/self/maps for the main thread), so each thread reads them once and keeps them
  /// in thread-specific storage.
  private static func cachedLowestAddress() -> UInt? {
    guard let key = boundsKey else { return lowestAddress() }
    if let stored = pthread_getspecific(key) {
      let value = UInt(bitPattern: stored)
      return value == 1 ? nil : value
    }
    let lowest = lowestAddress()
    // 1 records "unknown" (a stack never starts at address 1).
    pthread_setspecific(key, UnsafeRawPointer(bitPattern: lowest ?? 1))
    return lowest
  }

  /// Whether there is room for one more nested level.
  @inline(__always)
  var hasRoom: Bool { Self.currentAddress() > floor }

  @inline(never)
  private static func currentAddress() -> UInt {
    var marker: UInt8 = 0
    return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
  }

  /// The low end of the current thread's stack (stacks grow down on every supported platform).
  private static func lowestAddress() -> UInt? {
    #if canImport(Darwin)
      let thread = pthread_self()
      let top = UInt(bitPattern: pthread_get_stackaddr_np(thread))
      let size = UInt(pthread_get_stacksize_np(thread))
      return top > size ? top - size : nil
    #elseif canImport(Glibc) || canImport(Musl)
      guard let getAttributes = threadAttributesFunction else { return nil }
      var attributes = pthread_attr_t()
      guard getAttributes(pthread_self(), &attributes) == 0 else { return nil }
      defer { pthread_attr_destroy(&attributes) }
      var address: UnsafeMutableRawPointer?
      var size = 0
      guard pthread_attr_getstack(&attributes, &address, &size) == 0, let address else {
        return nil
      }
      return UInt(bitPattern: address)
    #else
      return nil
    #endif
  }
}

/// The thread-specific storage key for each thread's stack bounds; nil if none could be made.
private let boundsKey: pthread_key_t? = {
  var key = pthread_key_t()
  return pthread_key_create(&key, nil) == 0 ? key : nil
}()

#if !canImport(Darwin) && (canImport(Glibc) || canImport(Musl))
  /// `pthread_getattr_np`, which the C module does not export to Swift (it needs `_GNU_SOURCE`),
  /// looked up once in the already loaded C library.
  private let threadAttributesFunction:
    (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32)? = {
      // RTLD_DEFAULT: search the global symbol table.
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np") else {
        return nil
      }
      return unsafeBitCast(
        symbol,
        to: (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32).self)
    }()
#endif
