import Foundation

/// The `Decoder` that walks a `JSONDocument`. `LenientDecoder` is its public front.
///
/// One instance serves a whole decode. Its only mutable state is `position`, the value
/// `init(from:)` is decoding now; `with(_:_:)` swaps a new position in for a nested decode and
/// restores the old one afterwards, as swift-foundation's `JSONDecoderImpl.with(value:path:)`
/// does. Containers copy what they need from the position they were made at, so they stay valid
/// while the decoder moves on. Policy questions go to `leniency`; there are no policy branches.
///
/// It is its own `ReportRecorder` (a subclass: one allocation per decode instead of two); a
/// decoder sharing another's decode (`superDecoder()`) records into that one's.
final class DecoderImpl: ReportRecorder, Decoder {
  let options: DecodingOptions
  let leniency: Leniency
  /// The recorder of the decoder this one shares a decode with; nil: this decoder records.
  private let sharedRecorder: ReportRecorder?
  @exclusivity(unchecked) private(set) var position: DecodingPosition
  @exclusivity(unchecked) private var traitCache = TraitsByType()
  /// Traits looked up outside `traitCache` so far.
  @exclusivity(unchecked) private var lookups = 0
  /// The traits asked for last, checked before hashing: an array's elements ask for the same.
  @exclusivity(unchecked) private var lastTraits: TypeTraits?
  /// `lastTraits.shape`, read on every value without retaining `lastTraits`.
  @exclusivity(unchecked) private var lastShape: TypeTraits.Shape?
  /// `lastTraits.keyedContainer`, read by `container(keyedBy:)` without retaining `lastTraits`.
  @exclusivity(unchecked) private var lastKeyedContainer: KeyedContainerMaker?
  /// Shared traits asked for lately, kept across the decodes of a spare decoder.
  @exclusivity(unchecked) private var recentShared = RecentTraits()
  /// The stack budget of the thread decoding; a `FrameDecoder` renews it for each frame (a
  /// stream's frames may be decoded on different threads).
  @exclusivity(unchecked) var stack: StackGuard

  /// A decoder at the root of `document`.
  init(options: DecodingOptions, document: JSONDocument) {
    // The call and the read first: stored before them, both arguments were retained and
    // released around the call (2 of a small decode's retains and releases).
    stack = StackGuard()
    let limit = options.settings.maxReportEntries
    self.options = options
    leniency = options.leniency
    sharedRecorder = nil
    position = DecodingPosition(
      parent: ContainerFrame(root: document), index: 0, key: nil, type: Any.self)
    super.init(limit: limit)
  }

  /// A decoder at `position` sharing everything else with `other` (`superDecoder()`).
  init(sharing other: DecoderImpl, at position: DecodingPosition) {
    options = other.options
    leniency = other.leniency
    sharedRecorder = other.recorder
    self.position = position
    traitCache = other.traitCache
    stack = other.stack
    super.init(limit: 0)
  }

  /// Readies a root decoder that nothing else holds for another decode with the same options
  /// (`DecoderImpl+Spare.swift`): its position moves to `idle` (so the decode's root frame and
  /// document are released), and the report and the traits of the decode are forgotten. The
  /// traits asked for last stay when they are shared (`TypeTraits.shared`: they hold only
  /// metatypes and flags), so the next decode of the same model finds them without a lookup,
  /// and so do the last few shared traits (`RecentTraits`).
  /// False, and the decoder left as it is, when it is not a root decoder at its root.
  func resetForReuse() -> Bool {
    guard sharedRecorder == nil, position.key == nil, position.index == 0 else { return false }
    position = DecodingPosition(parent: Self.idle, index: 0, key: nil, type: Any.self)
    clear()
    if !traitCache.isEmpty { traitCache.removeAll() }
    lookups = 0
    if let last = lastTraits, last.belongsToOneDecode {
      lastTraits = nil
      lastShape = nil
      lastKeyedContainer = nil
    }
    return true
  }

  /// Where a spare decoder stands between decodes: no document of a decode. (Unsafe only to
  /// the checker: a `ContainerFrame` itself is immutable, and the placeholder document too.)
  nonisolated(unsafe) private static let idle = ContainerFrame(root: .placeholder)

  /// Moves a decoder readied by `resetForReuse()` to the root of `document`. Its stack guard
  /// stays: a spare decoder is its thread's, and the thread's stack bounds do not change.
  func restart(at document: JSONDocument) {
    position = DecodingPosition(
      parent: ContainerFrame(root: document), index: 0, key: nil, type: Any.self)
  }

  /// Where this decode's report entries go.
  var recorder: ReportRecorder { sharedRecorder ?? self }

  /// The recorder's mark (see `ReportRecorder.mark`), asked on the hot path without retaining
  /// the recorder (`recorder` returns it +1).
  @inline(__always)
  var reportMark: Int { sharedRecorder?.mark ?? mark }

  /// `ReportRecorder.rollback(to:)` on this decode's recorder.
  @inline(__always)
  func rollbackReport(to mark: Int) {
    if let sharedRecorder { sharedRecorder.rollback(to: mark) } else { rollback(to: mark) }
  }

  var codingPath: [any CodingKey] { position.codingPath }
  var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

  /// Runs `body` with the decoder at `position`, then restores the previous position.
  /// Positions are moved in and out (swapped), not copied: a copy retains what they hold.
  @inline(__always)
  func with<R>(_ position: consuming DecodingPosition, _ body: () throws -> R) rethrows -> R {
    swap(&self.position, &position)
    defer { swap(&self.position, &position) }
    return try body()
  }

  // MARK: - Containers

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    // The position's fields are read one by one, not copied whole: a copy retains and releases
    // what it holds, and the container keeps only some of it. An object in place is
    // `objectValue(at:)`'s first case, read without copying the position; every other value
    // (coerced, defaulted, an error) goes through it.
    let object: Int?
    let embedded: JSONDocument?
    if let index = position.index, position.document.kind(index) == .object {
      (object, embedded) = (index, nil)
    } else {
      let value = try objectValue(at: position)
      (object, embedded) = (value.index, value.document)
    }
    // Only a decoder with mappings looks them up, and only a `LenientDecodable` its declared
    // values: every other decode pays two bool checks.
    let mappings = options.hasKeyMappings ? traits(of: position.type).keyMappings : nil
    let fallbacks = position.hasOwnFallbacks ? traits(of: position.type).initialValues : nil
    return keyedContainerMaker(Key.self).make(
      decoder: self, parent: position.parent, key: position.key, type: position.type,
      object: object, embedded: embedded, fallbacks: fallbacks, mappings: mappings)
  }

  /// `KeyedContainer<Key>`'s metatype for the model at the position: kept in the model's
  /// traits, read without a reference count when they were asked for last (as `unbox` just did
  /// before `init(from:)`).
  @inline(__always)
  private func keyedContainerMaker<Key: CodingKey>(_ keys: Key.Type)
    -> any KeyedContainerMaking<Key>.Type
  {
    if let shape = lastShape, shape.id == ObjectIdentifier(position.type),
      let maker = lastKeyedContainer, maker.key == ObjectIdentifier(keys)
    {
      return maker.making(keys)
    }
    return newKeyedContainerMaker(keys)
  }

  /// The maker for `Key`, kept in the model's shared traits when they keep none yet (a model
  /// whose `init(from:)` asks for several key types keeps the first). Traits of one decode
  /// (key mappings, declared initial values) keep none: they are made again for each decode.
  @inline(never)
  private func newKeyedContainerMaker<Key: CodingKey>(_ keys: Key.Type)
    -> any KeyedContainerMaking<Key>.Type
  {
    let maker = KeyedContainerMaker(keys)
    if let last = lastTraits, last.id == ObjectIdentifier(position.type),
      last.keyedContainer == nil, !last.belongsToOneDecode
    {
      let kept = TypeTraits.sharedKeeping(maker, in: last)
      lastTraits = kept
      lastShape = kept.shape
      lastKeyedContainer = maker
      if traitCache[kept.id] != nil { traitCache.keep(kept) }
      recentShared.keep(kept)
    }
    return KeyedContainer<Key>.self
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let elements = try arrayElements(at: position)
    return UnkeyedContainer(
      decoder: self, elements: elements,
      frame: position.frame(document: elements.document(at: position)))
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleValueContainer(decoder: self, position: position)
  }

  // MARK: - Decoding a value

  /// Decodes any `Decodable` at `position`. `type` may be a subclass's metatype: the dynamic
  /// type is what gets built, as in Foundation.
  ///
  /// Called unspecialised (through `KeyedDecodingContainer`'s box), so it avoids naming `T?`
  /// or casting with `as? T`: each costs a runtime metadata lookup per value (a sixth of
  /// citm_catalog's decode before). Results of a known type are reinterpreted once the type
  /// is proven equal.
  ///
  /// Every nesting level holds this frame on the stack (see `StackGuard` for the budget), so
  /// only the usual case is here: a model's `init(from:)` with the decoder moved to the value.
  /// Scalars, special types, declared values, default cases and `didFinishDecoding()` are out
  /// of line.
  func unbox<T: Decodable>(_ type: T.Type, at position: DecodingPosition) throws -> T {
    if let scalar = ScalarKind(T.self) { return try unboxScalar(scalar, as: type, at: position) }
    guard stack.hasRoom else { throw abort(tooDeepAt: position) }
    // A value that throws leaves no report entries: the model that asked for it may catch the
    // error and read something else (`try? container.decode(A.self, forKey: k)`, then B), and
    // strict policy, which read the same, reports nothing. (Scalars above record an entry only
    // with the value they return.)
    let mark = reportMark
    do {
      let traits = shape(of: type)
      // (The policy and the value are asked first: this runs for every value, and asking
      // `fallsBack(at:)` first cost +0.8% on citm_catalog.)
      guard traits.isPlain,
        !leniency.fallsBack || !position.allowsFallback || !position.isMissingOrNull
      else { return try unboxUncommon(type, traits, at: position) }
      // `with(_:_:)` spelled out: its closure would be two more frames per level in debug builds.
      var position = position
      position.type = type
      position.hasOwnFallbacks = false
      swap(&self.position, &position)
      defer { swap(&self.position, &position) }
      return try type.init(from: self)
    } catch {
      rollbackReport(to: mark)
      throw error
    }
  }

  /// `unbox` for everything but a plain model whose value is there: a declared initial value
  /// for a missing or null value, special types, `RawRepresentable` raw values, declared
  /// initial values for the model's own keys, default cases and `didFinishDecoding()`.
  ///
  /// The position is borrowed all the way down to the special type or `init(from:)`: a copy
  /// retains and releases what it holds, and this runs for every array, Optional and
  /// dictionary value (a copy here was 7% of canada's decode). It is copied only when it names
  /// another type than `type` (a subclass's metatype, a strategy's inner read).
  @inline(never)
  private func unboxUncommon<T: Decodable>(
    _ type: T.Type, _ traits: TypeTraits.Shape, at position: DecodingPosition
  ) throws -> T {
    guard ObjectIdentifier(position.type) == ObjectIdentifier(type) else {
      return try unboxUncommon(type, traits, at: position.reading(type))
    }
    // A declared initial value stands in for a missing or null value of any type but an
    // Optional (nil stays nil: strict decodes it so).
    if !traits.isOptional, leniency.fallsBack, position.allowsFallback, position.isMissingOrNull,
      leniency.fallsBack(at: position), let declared = position.declaredFallback
    {
      return try declaredOrDecoded(type, traits, declared, at: position)
    }
    return try decoded(type, traits, at: position)
  }

  /// `declared` when it is a `T`, else the decode. Apart from `unbox` so that its `T?` costs
  /// nothing when there is no declared value.
  @inline(never)
  private func declaredOrDecoded<T: Decodable>(
    _ type: T.Type, _ traits: TypeTraits.Shape, _ declared: Any, at position: DecodingPosition
  ) throws -> T {
    if let declared = declared as? T {
      record(.defaulted, at: position)
      return declared
    }
    return try decoded(type, traits, at: position)
  }

  /// A special type, or `init(from:)` with the decoder at `position`; then the type's
  /// `didFinishDecoding()` when it has one (one flag check for every other type).
  @inline(__always)
  private func decoded<T: Decodable>(
    _ type: T.Type, _ traits: TypeTraits.Shape, at position: DecodingPosition
  ) throws -> T {
    if traits.finishesDecoding { return try finished(type, traits, at: position) }
    return try constructed(type, traits, at: position)
  }

  /// `constructed`, then the value's `didFinishDecoding()`. Apart from `decoded` so that its
  /// casts cost nothing for other types, and so that `constructed` is inlined once (twice, it
  /// made the frame of every array and Optional level larger).
  @inline(never)
  private func finished<T: Decodable>(
    _ type: T.Type, _ traits: TypeTraits.Shape, at position: DecodingPosition
  ) throws -> T {
    let value = try constructed(type, traits, at: position)
    guard var finishing = value as? any DecodingFinishing else { return value }
    finishing.didFinishDecoding()
    return finishing as? T ?? value
  }

  /// A special type, or `init(from:)` with the decoder at `position`. Optionals, arrays and
  /// dictionaries are called from here, each one frame away from their elements.
  @inline(__always)
  private func constructed<T: Decodable>(
    _ type: T.Type, _ traits: TypeTraits.Shape, at position: DecodingPosition
  ) throws -> T {
    switch traits.special {
    case .optional(let optional):
      return try optional.decodeOptional(self, at: position, as: T.self)
    case .array(let array):
      return try array.decodeArray(self, at: position, as: T.self)
    case .dictionary(let dictionary):
      return try dictionary.decodeDictionary(self, at: position, as: T.self)
    case .value(let value):
      return try unboxFoundationValue(type, value, at: position)
    case nil:
      return try constructedModel(type, traits, at: position)
    }
  }

  /// `init(from:)` of a type that is not plain: a raw value, declared initial values, a default
  /// case. Apart from `constructed` so that an array's or an Optional's level (which passes
  /// through `constructed`) does not hold this frame too.
  @inline(never)
  private func constructedModel<T: Decodable>(
    _ type: T.Type, _ traits: TypeTraits.Shape, at position: DecodingPosition
  ) throws -> T {
    var position = position
    if traits.isRawRepresentable { position.allowsFallback = false }
    position.hasOwnFallbacks = traits.hasInitialValues
    if leniency.usesDefaultCases, let defaultable = traits.caseDefaultable {
      return try decodedOrDefaultCase(type, defaultable, at: position)
    }
    return try with(position) { try type.init(from: self) }
  }

  /// `init(from:)`, or the type's default case (reported) when that fails. Apart from
  /// `decoded` so that its `T?` and cast cost nothing for other types.
  @inline(never)
  private func decodedOrDefaultCase<T: Decodable>(
    _ type: T.Type, _ defaultable: any CaseDefaultable.Type, at position: DecodingPosition
  ) throws -> T {
    try with(position) {
      let mark = reportMark
      do {
        return try type.init(from: self)
      } catch {
        guard !DecodeStop.stops(error), let fallback = defaultCase(of: defaultable) as? T else {
          throw error
        }
        rollbackReport(to: mark)
        record(.defaulted, at: position)
        return fallback
      }
    }
  }

  /// Reads a scalar: the strict read first, then a lossless coercion, then a fallback.
  @inline(__always)
  func scalar<S: JSONScalar>(_ type: S.Type, at position: DecodingPosition) throws -> S {
    var unrepresentable = false
    if let index = position.index {
      switch S.strictValue(position.document, index, options) {
      case .value(let result): return result
      case .mismatch: break
      case .unrepresentable: unrepresentable = true
      }
      if leniency.coercesKinds, let coerced = S.coerce(position.document, index, options) {
        record(.coerced, at: position)
        return coerced
      }
    }
    guard leniency.fallsBack(at: position) else {
      throw strictError(S.self, at: position, unrepresentable: unrepresentable)
    }
    return fallback(S.emptyValue, at: position)
  }

  /// The value a fallback gives a `T` with no declared initial value: 0, `""`, `false`, the
  /// 1970 epoch, `about:blank`, empty `Data`, nil, `[]`, `[:]`; nil when `T` has none (the
  /// caller then throws, and the enclosing array element or Optional is dropped or nulled
  /// instead). The one table of empty values (a `Date` under `.deferredToDate` falls back to
  /// its own reference date, as `Date.init(from:)` counts from it).
  func emptyValue<T>(of type: T.Type) -> T? {
    // Metatype comparisons before the conformance lookups: the special types ask on every value.
    if T.self == Date.self { return Date(timeIntervalSince1970: 0) as? T }
    if T.self == URL.self { return Self.blankURL as? T }
    if T.self == Decimal.self { return Decimal(0) as? T }
    if T.self == Data.self { return Data() as? T }
    if let scalar = T.self as? any JSONScalar.Type { return scalar.emptyValue as? T }
    return emptyContainer(T.self)
  }

  /// The empty URL, parsed once.
  private static let blankURL = URL(string: "about:blank")

  /// A fallback: the declared initial value if there is one, else `empty`; reported `defaulted`.
  func fallback<T>(_ empty: T, at position: DecodingPosition) -> T {
    record(.defaulted, at: position)
    return position.declaredFallback as? T ?? empty
  }

  /// Runs `body`; when it throws an error that does not stop the decode, forgets the report entries it
  /// made and returns nil, so the caller can drop or null the value (and report that instead).
  /// Inlined: it runs once per array element and present Optional.
  @inline(__always)
  func recovering<R>(_ body: () throws -> R) throws -> R? {
    let mark = reportMark
    do {
      return try body()
    } catch {
      try recover(from: error, to: mark)
      return nil
    }
  }

  /// After a value threw `error`: rethrows an error that stops the decode, else forgets the
  /// report entries made since `mark` (the caller then drops or nulls the value).
  func recover(from error: any Error, to mark: Int) throws {
    if DecodeStop.stops(error) { throw error }
    rollbackReport(to: mark)
  }

  /// A scalar `T`, proven to be the Swift type `kind` names: the strict read first, with the
  /// position's type set only when a report entry or an error needs it.
  private func unboxScalar<T>(_ kind: ScalarKind, as type: T.Type, at position: DecodingPosition)
    throws -> T
  {
    func read<S: JSONScalar>(_ scalarType: S.Type) throws -> T {
      if let index = position.index,
        case .value(let value) = S.strictValue(position.document, index, options)
      {
        return reinterpret(value, as: T.self)
      }
      return reinterpret(try scalar(S.self, at: position.reading(S.self)), as: T.self)
    }
    switch kind {
    case .string: return try read(String.self)
    case .int: return try read(Int.self)
    case .double: return try read(Double.self)
    case .bool: return try read(Bool.self)
    case .int64: return try read(Int64.self)
    case .float: return try read(Float.self)
    case .uint64: return try read(UInt64.self)
    case .int32: return try read(Int32.self)
    case .uint: return try read(UInt.self)
    case .uint32: return try read(UInt32.self)
    case .int16: return try read(Int16.self)
    case .uint16: return try read(UInt16.self)
    case .int8: return try read(Int8.self)
    case .uint8: return try read(UInt8.self)
    case .int128:
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else {
        preconditionFailure("Int128 is unavailable here")
      }
      return try read(Int128.self)
    case .uint128:
      guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else {
        preconditionFailure("UInt128 is unavailable here")
      }
      return try read(UInt128.self)
    }
  }

  /// The traits of `type`, cached for the rest of this decode.
  @inline(__always)
  func traits(of type: Any.Type) -> TypeTraits {
    let id = ObjectIdentifier(type)
    if let last = lastTraits, last.id == id { return last }
    let traits: TypeTraits
    // (Empty until a ninth type or a type of this decode's own: no hashing before then.)
    if !traitCache.isEmpty, let cached = traitCache[id] {
      traits = cached
    } else if let recent = recentShared.traits(id) {
      traits = recent
    } else {
      let mappings = options.settings.keyMappings.mappings(for: type)
      traits =
        mappings.map { options.mappedTraits.mapped(type, $0) } ?? TypeTraits.shared(type)
      // A small decode asks for a handful of types: the shared cache answers them, and this
      // decode's own table (`TraitsByType`, an array to allocate) starts with the ninth. Traits made for
      // this decode alone (mappings, initial values) are kept from the first.
      lookups += 1
      if lookups > 8 || traits.belongsToOneDecode { traitCache.keep(traits) }
      if !traits.belongsToOneDecode { recentShared.keep(traits) }
    }
    lastTraits = traits
    lastShape = traits.shape
    lastKeyedContainer = traits.keyedContainer
    return traits
  }

  /// `traits(of: type).shape`; no reference count when `type` is the type asked for last.
  @inline(__always)
  func shape(of type: Any.Type) -> TypeTraits.Shape {
    if let last = lastShape, last.id == ObjectIdentifier(type) { return last }
    return traits(of: type).shape
  }

  /// The default case of `type` for the value at the decoder's position: `defaultCase(for:)`
  /// when a raw value can be read there (its report entries are rolled back by the caller),
  /// else `defaultCase`.
  private func defaultCase<C: CaseDefaultable>(of type: C.Type) -> Any {
    if let rawType = C.RawValue.self as? any Decodable.Type,
      let raw = (try? rawType.init(from: self)) as? C.RawValue
    {
      return C.defaultCase(for: raw)
    }
    return C.defaultCase
  }

  // MARK: - The root

  /// Decodes `type` at `path` from the root of the document (the decoder's own position); nil
  /// or an empty path is the root itself.
  func decodeRoot<T: Decodable>(_ type: T.Type, at path: JSONPath?) throws -> T {
    // The root (most decodes): no steps, no key, no frame to make.
    guard let path, !path.components.isEmpty else {
      return try unbox(
        type, at: DecodingPosition(parent: position.parent, index: 0, key: nil, type: type))
    }
    var node = position.parent
    let document = node.document
    var index = 0
    // The last component is the value's key in its position, not a frame: a frame is made
    // for each step before it (an envelope's `data` costs no allocation).
    var key: AnyCodingKey?
    for component in path.components {
      if let key { node = node.appending(key) }
      var next = AnyCodingKey(component)
      if case .index = component, document.kind(index) == .object {
        next = AnyCodingKey(stringValue: component.memberName)  // an object's member (RFC 6901)
      }
      guard let found = document.child(component, of: index) else {
        return try missingStep(type, next, in: node, at: index, of: path)
      }
      index = found
      key = next
    }
    return try unbox(type, at: DecodingPosition(parent: node, index: index, key: key, type: type))
  }

  /// nil for an Optional `type` whose path is missing; otherwise `keyNotFound` naming the
  /// step. Apart from `decodeRoot` so that its `T?` costs a decode nothing when the path is
  /// there (a generic function looks up `Optional<T>`'s metadata on entry).
  @inline(never)
  private func missingStep<T: Decodable>(
    _ type: T.Type, _ key: AnyCodingKey, in node: ContainerFrame, at index: Int, of path: JSONPath
  ) throws -> T {
    if let optional = type as? any DecodableOptional.Type, let none = optional.nilValue as? T {
      return none
    }
    throw DecodingError.keyNotFound(
      key,
      DecodingError.Context(
        codingPath: node.path,
        debugDescription:
          "No value at path \(path): \(describeMissingStep(key, in: node.document, at: index))"))
  }

  private func describeMissingStep(_ key: AnyCodingKey, in document: JSONDocument, at index: Int)
    -> String
  {
    let step = key.intValue.map { "index \($0)" } ?? "key \"\(key.stringValue)\""
    let here = DecodingPosition(
      parent: ContainerFrame(root: document), index: index, key: nil, type: Any.self)
    return "\(step) not found in \(describe(here))."
  }
}
