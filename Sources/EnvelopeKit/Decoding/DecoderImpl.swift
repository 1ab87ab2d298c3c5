import Foundation

/// The `Decoder` that walks a `JSONDocument`. `LenientDecoder` is its public front.
///
/// One instance serves a whole decode: `unbox` points it at a value, calls `T(from: self)` and
/// restores it, as swift-foundation's `JSONDecoderImpl` does. Containers copy the position they
/// were made at, so they stay valid while the decoder moves on.
final class DecoderImpl: Decoder {
  let state: DecodingState
  /// The value `T(from:)` is decoding now.
  var value: ValueRef
  var pathNode: CodingPathNode
  /// Whether a scalar read directly from this value may fall back to an empty value. False for
  /// array elements (they are dropped instead), `RawRepresentable` values and Optionals.
  var allowsFallback = true
  /// The Swift type being decoded, for report entries about the container itself.
  var currentType: Any.Type = Any.self
  /// Fallbacks from a `LenientDecodable` type's `init()`, consumed by the next keyed container.
  var pendingDefaults: [String: Any]?

  init(state: DecodingState, value: ValueRef, path: CodingPathNode) {
    self.state = state
    self.value = value
    self.pathNode = path
  }

  var codingPath: [any CodingKey] { pathNode.path }
  var userInfo: [CodingUserInfoKey: Any] { state.userInfo }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    let defaults = pendingDefaults
    pendingDefaults = nil
    let object = try objectRef(
      value, path: pathNode, allowsFallback: allowsFallback, expected: currentType)
    return KeyedDecodingContainer(
      KeyedContainer<Key>(decoder: self, object: object, path: pathNode, defaults: defaults))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let source = try arraySource(
      value, path: pathNode, allowsFallback: allowsFallback, expected: currentType)
    return UnkeyedContainer(decoder: self, source: source, path: pathNode)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleValueContainer(
      decoder: self, value: value, path: pathNode, allowsFallback: allowsFallback)
  }

  // MARK: - Unboxing

  /// Reads a scalar: the strict read first, then (lenient) a lossless coercion, then a fallback.
  @inline(__always)
  func scalar<T: JSONScalar>(
    _ type: T.Type, _ value: ValueRef, parent: CodingPathNode, key: (any CodingKey)?,
    allowsFallback: Bool = true, defaults: [String: Any]? = nil
  ) throws -> T {
    var unrepresentable = false
    if let index = value.index {
      switch T.strictValue(value.document, index, state) {
      case .value(let result): return result
      case .mismatch: break
      case .unrepresentable: unrepresentable = true
      }
      if state.isLenient, let coerced = T.coerce(value.document, index, state) {
        state.report(.coerced, T.self, value, parent, key)
        return coerced
      }
    }
    guard state.isLenient, allowsFallback else {
      throw state.strictError(
        T.self, value, parent, key, unrepresentable: unrepresentable)
    }
    return fallback(T.emptyValue, value, parent: parent, key: key, defaults: defaults)
  }

  /// A lenient fallback: the `LenientDecodable` initial value if there is one, else `empty`.
  func fallback<T>(
    _ empty: T, _ value: ValueRef, parent: CodingPathNode, key: (any CodingKey)?,
    defaults: [String: Any]?
  ) -> T {
    state.report(.defaulted, T.self, value, parent, key)
    if let key, let initial = defaults?[key.stringValue] as? T { return initial }
    return empty
  }

  /// Decodes any `Decodable` at `value`.
  func unbox<T: Decodable>(
    _ type: T.Type, _ value: ValueRef, parent: CodingPathNode, key: (any CodingKey)?,
    allowsFallback: Bool = true, defaults: [String: Any]? = nil
  ) throws -> T {
    if let result = try unboxScalar(T.self, value, parent, key, allowsFallback, defaults) {
      return result
    }
    let traits = state.traits(of: T.self)
    if traits.isSpecial,
      let special = try unboxSpecial(T.self, value, parent, key, allowsFallback, defaults, traits)
    {
      return special
    }
    if state.isLenient, let key, isMissingOrNull(value),
      let initial = defaults?[key.stringValue] as? T
    {
      state.report(.defaulted, T.self, value, parent, key)
      return initial
    }
    let path = parent.appending(key)
    let saved = (self.value, pathNode, self.allowsFallback, currentType)
    setPosition(value, path)
    self.allowsFallback = allowsFallback && !traits.isRawRepresentable
    currentType = T.self
    defer { (self.value, pathNode, self.allowsFallback, currentType) = saved }

    if state.isLenient {
      if let lenient = traits.lenientDecodable {
        pendingDefaults = initialValues(of: lenient)
      }
      if let defaultable = traits.caseDefaultable {
        do {
          return try T(from: self)
        } catch {
          guard let fallback = defaultCase(of: defaultable) as? T else { throw error }
          state.report(.defaulted, T.self, value, parent, key)
          return fallback
        }
      }
    }
    return try T(from: self)
  }

  func setPosition(_ value: ValueRef, _ path: CodingPathNode) {
    self.value = value
    pathNode = path
  }

  func isMissingOrNull(_ value: ValueRef) -> Bool {
    guard let index = value.index else { return true }
    return value.document.kind(index) == .null
  }

  @inline(__always)
  private func unboxScalar<T: Decodable>(
    _ type: T.Type, _ value: ValueRef, _ parent: CodingPathNode, _ key: (any CodingKey)?,
    _ allowsFallback: Bool, _ defaults: [String: Any]?
  ) throws -> T? {
    func read<S: JSONScalar>(_ scalarType: S.Type) throws -> T? {
      try scalar(
        S.self, value, parent: parent, key: key, allowsFallback: allowsFallback, defaults: defaults)
        as? T
    }
    if T.self == String.self { return try read(String.self) }
    if T.self == Int.self { return try read(Int.self) }
    if T.self == Double.self { return try read(Double.self) }
    if T.self == Bool.self { return try read(Bool.self) }
    if T.self == Int64.self { return try read(Int64.self) }
    if T.self == Float.self { return try read(Float.self) }
    if T.self == UInt64.self { return try read(UInt64.self) }
    if T.self == Int32.self { return try read(Int32.self) }
    if T.self == UInt.self { return try read(UInt.self) }
    if T.self == UInt32.self { return try read(UInt32.self) }
    if T.self == Int16.self { return try read(Int16.self) }
    if T.self == UInt16.self { return try read(UInt16.self) }
    if T.self == Int8.self { return try read(Int8.self) }
    if T.self == UInt8.self { return try read(UInt8.self) }
    return nil
  }

  /// The initial values of a `LenientDecodable` type's stored properties, by name.
  private func initialValues(of type: any LenientDecodable.Type) -> [String: Any] {
    var values: [String: Any] = [:]
    for child in Mirror(reflecting: type.init()).children {
      guard var label = child.label else { continue }
      // Property wrappers store `_name`.
      if label.hasPrefix("_") { label.removeFirst() }
      values[label] = child.value
    }
    return values
  }

  private func defaultCase<C: CaseDefaultable>(of type: C.Type) -> Any { C.defaultCase }
}
