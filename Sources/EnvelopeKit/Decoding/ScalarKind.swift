/// `value` as `T`, which the caller has proven to be `U`'s type (a generic result whose type
/// was found by metatype identity, so that no `as?` cast or metadata lookup is paid). The one
/// place values are reinterpreted; debug builds check the types. `value` is consumed: borrowed,
/// it was copied into the result and then destroyed (a retain and a release per array decoded
/// in unspecialised code, 8% of canada's decode).
@inline(__always)
package func reinterpret<U, T>(_ value: consuming U, as type: T.Type) -> T {
  assert(U.self == T.self, "reinterpret \(U.self) as \(T.self)")
  return unsafeBitCast(consume value, to: T.self)
}

/// The scalar types of the `Codable` container protocols (the types every container has its own
/// `decode`, `decodeIfPresent` and `encode` overloads for), told apart by metatype identity
/// (pointer comparisons, no conformance lookup). The one list of them: the decoder reads these
/// from tokens, and `ScalarListTests` drives every container of the decoder and of the encoder
/// through each case, so a type one side handles and the other does not fails there.
enum ScalarKind: CaseIterable {
  case string, int, double, bool, int64, float, uint64, int32, uint, uint32, int16, uint16, int8
  case uint8, int128, uint128

  @inline(__always)
  init?<T>(_ type: T.Type) {
    if T.self == String.self {
      self = .string
    } else if T.self == Int.self {
      self = .int
    } else if T.self == Double.self {
      self = .double
    } else if T.self == Bool.self {
      self = .bool
    } else if T.self == Int64.self {
      self = .int64
    } else if T.self == Float.self {
      self = .float
    } else if T.self == UInt64.self {
      self = .uint64
    } else if T.self == Int32.self {
      self = .int32
    } else if T.self == UInt.self {
      self = .uint
    } else if T.self == UInt32.self {
      self = .uint32
    } else if T.self == Int16.self {
      self = .int16
    } else if T.self == UInt16.self {
      self = .uint16
    } else if T.self == Int8.self {
      self = .int8
    } else if T.self == UInt8.self {
      self = .uint8
    } else if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *),
      T.self == Int128.self
    {
      self = .int128
    } else if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *),
      T.self == UInt128.self
    {
      self = .uint128
    } else {
      return nil
    }
  }
}
