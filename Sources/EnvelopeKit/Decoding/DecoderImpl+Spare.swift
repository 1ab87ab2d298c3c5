// One spare root decoder per thread.
//
// A small decode made a `DecoderImpl` and freed it (an allocation, and seven releases in its
// deinit, per call). A thread now keeps the decoder of its last decode in its spare slot
// (`SpareBuffer`, the slot array the spare tape and document use), and the next decode with
// the same options takes it from there. (Its root `ContainerFrame` is made per decode: reusing
// it meant a frame's `document` could change, and a `var` there was retained and released on
// every read, +21 retains per call of a 253 B envelope's decode, +355 of a 4.9 KB page's.)
//
// A decode takes the spare out of the slot, so a nested decode on the same thread (a model
// whose `init(from:)` decodes again) finds none and makes its own. A decoder goes back only
// when nothing else holds it (a model may keep its `Decoder` or a container, which hold the
// decoder), and it is emptied first: no frame or document (so no input bytes or tape), no
// report entries, no traits of one decode. It keeps its options, so a thread keeps the
// options of its last decode alive until its next decode with other options or until it
// ends. Off with every spare buffer (`SpareTape.isEnabled`).

extension DecoderImpl {
  /// Runs `body` with a root decoder of `document` with `options`: the thread's spare decoder
  /// when it was made with these options, else a new one, kept as the spare afterwards when
  /// nothing else holds it (see above). Before `JSONDocument.scanning` finishes the document,
  /// so that the decoder holds the document no more.
  @inline(__always)
  static func rooted<R>(
    at document: JSONDocument, options: DecodingOptions, _ body: (DecoderImpl) throws -> R
  ) throws -> R {
    let decoder = spare(at: document, options: options)
    let result: R
    do {
      result = try body(decoder)
    } catch {
      keepAsSpare(consume decoder)
      throw error
    }
    keepAsSpare(consume decoder)
    return result
  }

  /// The thread's spare decoder pointed at `document` when it has `options`; else a new one
  /// (a spare with other options is dropped: the decoder of this decode takes its place).
  private static func spare(at document: JSONDocument, options: DecodingOptions) -> DecoderImpl {
    if let spare = SpareBuffer.takeObject(.decoder, as: DecoderImpl.self), spare.options === options
    {
      spare.restart(at: document)
      return spare
    }
    return DecoderImpl(options: options, document: document)
  }

  /// Keeps `decoder` as the thread's spare when nothing else holds it and the slot is free;
  /// otherwise it is released here (and freed when this was its last reference).
  private static func keepAsSpare(_ decoder: consuming DecoderImpl) {
    guard SpareTape.isEnabled else { return }
    var decoder = decoder
    guard isKnownUniquelyReferenced(&decoder), decoder.resetForReuse() else { return }
    SpareBuffer.keepObject(decoder, .decoder)
  }
}

/// The last few shared traits (`TypeTraits.shared`: metatypes and flags, the same for every
/// decode) a decoder looked up, compared by identity before the shared table, whose lookup
/// takes a lock and hashes.
///
/// A small decode asks for a handful of model types, and its decoder's `lastTraits` holds only
/// the last: a spare decoder's next decode of a 253 B envelope looked up the envelope's and the
/// user's traits in the shared table again (its lock and lookup 1.7% of the call in `perf`).
/// Four entries, replaced in turn; traits of one decode (key mappings, declared initial values)
/// are never kept here.
struct RecentTraits {
  private var first: TypeTraits?
  private var second: TypeTraits?
  private var third: TypeTraits?
  private var fourth: TypeTraits?
  /// The entry the next new traits replace.
  private var next = 0

  /// The kept traits of the type `id`, if any.
  @inline(__always)
  func traits(_ id: ObjectIdentifier) -> TypeTraits? {
    if let first, first.id == id { return first }
    if let second, second.id == id { return second }
    if let third, third.id == id { return third }
    if let fourth, fourth.id == id { return fourth }
    return nil
  }

  /// Keeps shared `traits`, in place of the kept traits of the same type (a newer version: one
  /// that keeps its keyed container's maker) or of the oldest entry.
  mutating func keep(_ traits: TypeTraits) {
    assert(!traits.belongsToOneDecode)
    let id = traits.id
    if first?.id == id {
      first = traits
    } else if second?.id == id {
      second = traits
    } else if third?.id == id {
      third = traits
    } else if fourth?.id == id {
      fourth = traits
    } else {
      switch next {
      case 0: first = traits
      case 1: second = traits
      case 2: third = traits
      default: fourth = traits
      }
      next = (next + 1) & 3
    }
  }
}
