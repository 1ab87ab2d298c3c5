import Foundation

/// The `Encoder` handed to `encode(to:)`: it produces the value of one member of the tree.
///
/// It is also its own single-value container, as a value is one slot.
final class EncoderImpl: Encoder, SingleValueEncodingContainer, ExactNumberEncoder {
  let context: EncodingContext
  /// The member whose value this encoder produces.
  @exclusivity(unchecked) var slot: Int
  /// Nesting level of a container this encoder makes (1 at the top).
  @exclusivity(unchecked) var depth: Int
  /// The type whose `encode(to:)` is running: its key mappings apply to its keyed container.
  @exclusivity(unchecked) var model: Any.Type
  /// The encoder whose value holds this one, and the key it is at. As in JSONEncoder, a value
  /// inside a nested container has its encoder's path plus its key: the nested container's
  /// keys are in the container's `codingPath`, not in the value's.
  @exclusivity(unchecked) var parent: EncoderImpl?
  @exclusivity(unchecked) var key: (any CodingKey)?
  /// A child kept for the next nested value (most values nest one at a time).
  @exclusivity(unchecked) private var spare: EncoderImpl?

  init(
    context: EncodingContext, slot: Int, depth: Int, model: Any.Type, parent: EncoderImpl?,
    key: (any CodingKey)?
  ) {
    self.context = context
    tree = context.tree
    self.slot = slot
    self.depth = depth
    self.model = model
    self.parent = parent
    self.key = key
  }

  /// The context's tree, held here so that each value reaches it without a retain.
  let tree: EncodedTree

  var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

  var codingPath: [any CodingKey] { path(adding: nil) }

  /// This encoder's path, then the nested containers' keys in `node`, then `last`.
  func path(through node: CodingPathNode? = nil, adding last: (any CodingKey)?) -> [any CodingKey] {
    var reversed: [any CodingKey] = []
    if let last { reversed.append(last) }
    var nested = node
    while let current = nested {
      reversed.append(current.key)
      nested = current.parent
    }
    var encoder: EncoderImpl? = self
    while let current = encoder {
      if let key = current.key { reversed.append(key) }
      encoder = current.parent
    }
    return reversed.reversed()
  }

  // MARK: - Containers

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    let container = containerInSlot(isObject: true)
    return KeyedEncodingContainer(
      KeyedEncoding<Key>(encoder: self, container: container, path: nil, depth: depth))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    let container = containerInSlot(isObject: false)
    return UnkeyedEncoding(encoder: self, container: container, path: nil, depth: depth)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  /// The container in this encoder's slot: the one made before (asking twice gives the same
  /// container, as JSONEncoder does), or a new one.
  private func containerInSlot(isObject: Bool) -> Int {
    let member = tree.members[slot]
    if let existing = member.container, tree.containers[existing].isObject == isObject {
      return existing
    }
    if !member.isPending {
      context.recordMisuse(
        "Attempt to push a new \(isObject ? "keyed" : "unkeyed") container when a value was "
          + "already encoded at this path.", at: codingPath)
      // Write into a new member nobody reads, so the model's own code runs on.
      let detached = tree.appendMember(to: nil, keyStart: -1, keyLength: 0)
      return tree.attachContainer(to: detached, isObject: isObject, depth: depth)
    }
    return tree.attachContainer(to: slot, isObject: isObject, depth: depth)
  }

  // MARK: - Single value

  /// Whether the slot may take a value; a second value is a misuse (JSONEncoder traps).
  @inline(__always)
  private func slotIsFree() -> Bool {
    if tree.members[slot].isPending { return true }
    context.recordMisuse(
      "Attempt to encode a value through a single value container when a value was already "
        + "encoded.", at: codingPath)
    return false
  }

  func encodeNil() throws {
    guard slotIsFree() else { return }
    write(into: slot) { $0.append("null") }
  }

  func encode(_ value: Bool) throws {
    guard slotIsFree() else { return }
    write(into: slot) { $0.append(value ? "true" : "false") }
  }

  func encode(_ value: String) throws {
    guard slotIsFree() else { return }
    write(into: slot) { $0.appendString(value) }
  }

  func encode(_ value: Double) throws {
    guard slotIsFree() else { return }
    try writeFloatingPoint(value, into: slot, key: nil)
  }

  func encode(_ value: Float) throws {
    guard slotIsFree() else { return }
    try writeFloatingPoint(value, into: slot, key: nil)
  }

  func encode(_ value: Int) throws { try encodeInteger(value) }
  func encode(_ value: Int8) throws { try encodeInteger(value) }
  func encode(_ value: Int16) throws { try encodeInteger(value) }
  func encode(_ value: Int32) throws { try encodeInteger(value) }
  func encode(_ value: Int64) throws { try encodeInteger(value) }
  func encode(_ value: UInt) throws { try encodeInteger(value) }
  func encode(_ value: UInt8) throws { try encodeInteger(value) }
  func encode(_ value: UInt16) throws { try encodeInteger(value) }
  func encode(_ value: UInt32) throws { try encodeInteger(value) }
  func encode(_ value: UInt64) throws { try encodeInteger(value) }

  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  func encode(_ value: Int128) throws { try encodeInteger(value) }

  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  func encode(_ value: UInt128) throws { try encodeInteger(value) }

  private func encodeInteger(_ value: some FixedWidthInteger) throws {
    guard slotIsFree() else { return }
    write(into: slot) { $0.appendInteger(value) }
  }

  /// A `JSON` number, written as its text (as `UnknownKeys` members are).
  func encodeExactly(_ number: JSONNumber) throws {
    guard slotIsFree() else { return }
    write(into: slot) { tree in
      var text = number.text
      text.withUTF8 { tree.append(UnsafeRawBufferPointer($0)) }
    }
  }

  func encode<T: Encodable>(_ value: T) throws {
    guard slotIsFree() else { return }
    // The value fills this encoder's own slot, at this encoder's path (JSONEncoder's too); a
    // value that throws leaves the slot empty.
    try tree.undoingOnError(emptying: slot) {
      try encodeValue(value, into: slot, key: nil, depth: depth)
    }
  }

  // MARK: - Writing a member's value

  /// Renders a scalar into the arena as `member`'s value.
  @inline(__always)
  func write(into member: Int, _ render: (EncodedTree) -> Void) {
    let start = tree.byteCount
    render(tree)
    tree.finishValue(of: member, from: start)
  }

  /// A finite number as `JSONEncoder` writes it; a non-finite one by the strategy.
  @inline(__always)
  func writeFloatingPoint<Number: JSONFloatingPoint>(
    _ value: Number, into member: Int, key: (any CodingKey)?,
    strategy: JSONEncoder.NonConformingFloatEncodingStrategy? = nil
  ) throws {
    try writeFloatingPoint(value, into: member, path: self.path(adding: key), strategy: strategy)
  }

  /// A finite number as `JSONEncoder` writes it; a non-finite one by the strategy, or an error
  /// at `path`.
  @inline(__always)
  func writeFloatingPoint<Number: JSONFloatingPoint>(
    _ value: Number, into member: Int, path: @autoclosure () -> [any CodingKey],
    strategy: JSONEncoder.NonConformingFloatEncodingStrategy? = nil
  ) throws {
    guard value.isFinite else {
      switch strategy ?? context.options.nonConformingFloatEncodingStrategy {
      case .convertToString(let positiveInfinity, let negativeInfinity, let nan):
        let text = value.isNaN ? nan : value > 0 ? positiveInfinity : negativeInfinity
        write(into: member) { $0.appendString(text) }
        return
      default:
        throw EncodingError.invalidValue(
          value,
          EncodingError.Context(
            codingPath: path(),
            debugDescription: "Unable to encode \(Number.self).\(value) directly in JSON."))
      }
    }
    write(into: member) { $0.appendFloatingPoint(value) }
  }

  /// Encodes any value as `member`'s value: the types JSONEncoder treats specially first
  /// (Date, Data, URL, Decimal, String-keyed dictionaries under a key strategy), then the
  /// value's own `encode(to:)` through a child encoder.
  ///
  /// - Parameters:
  ///   - value: the value.
  ///   - member: the member it is the value of.
  ///   - key: the key the value is at (nil when it fills this encoder's own slot).
  ///   - depth: the nesting level of a container the value makes.
  /// - Throws: `EncodingError`, or what the value's `encode(to:)` throws.
  func encodeValue<T: Encodable>(
    _ value: T, into member: Int, key: (any CodingKey)?, depth: Int
  ) throws {
    if T.self == String.self {
      write(into: member) { $0.appendString(reinterpret(value, as: String.self)) }
      return
    }
    if T.self == Date.self {
      try encodeDate(reinterpret(value, as: Date.self), into: member, key: key, depth: depth)
      return
    }
    if T.self == Data.self {
      try encodeData(reinterpret(value, as: Data.self), into: member, key: key, depth: depth)
      return
    }
    if T.self == URL.self {
      write(into: member) { $0.appendString((reinterpret(value, as: URL.self)).absoluteString) }
      return
    }
    if T.self == Decimal.self {
      write(into: member) { tree in
        var text = (reinterpret(value, as: Decimal.self)).description
        text.withUTF8 { bytes in tree.append(UnsafeRawBufferPointer(bytes)) }
      }
      return
    }
    if let array = try encodeScalarArray(value, into: member, key: key, depth: depth), array {
      return
    }
    if context.options.convertsKeys, let dictionary = value as? any StringKeyedDictionary {
      try dictionary.encodeKeepingKeys(into: member, encoder: self, key: key, depth: depth)
      return
    }
    // A tagged variant's value on its way through `TaggedObjectEncoder` is the model itself.
    let model =
      T.self == TaggedObjectValue.self
      ? reinterpret(value, as: TaggedObjectValue.self).model : T.self
    try withChild(member: member, key: key, depth: depth, model: model) {
      try value.encode(to: $0)
    }
  }

  /// Arrays of numbers and strings, written straight into an array container (JSONEncoder
  /// has the same shortcut): what `Array.encode(to:)` would write through an unkeyed
  /// container, element paths included, without a child encoder per array.
  ///
  /// - Returns: true when `value` was such an array, nil otherwise.
  @inline(__always)
  private func encodeScalarArray<T>(
    _ value: T, into member: Int, key: (any CodingKey)?, depth: Int
  ) throws -> Bool? {
    // Generic metadata (`[Double].self`) is looked up at run time on every call: compare with
    // identifiers looked up once.
    let type = ObjectIdentifier(T.self)
    if type == context.scalarArrays.doubles {
      try reinterpret(value, as: [Double].self).withUnsafeBufferPointer {
        try writeNumbers($0, into: member, depth: depth, key: key, tree: tree)
      }
    } else if type == context.scalarArrays.doubleRows {
      // Rows of numbers (coordinates, matrices): one generic call per row would dominate.
      let rows = reinterpret(value, as: [[Double]].self)
      guard depth <= JSONWriter.encoderDepthLimit else { throw ModelEncoder.tooDeep() }
      let tree = self.tree
      let container = tree.attachContainer(to: member, isObject: false, depth: depth)
      // Rows borrowed from the buffer, not copied (a copy retains and releases each row).
      try rows.withUnsafeBufferPointer { rows in
        for index in rows.indices {
          let item = tree.appendMember(to: container, keyStart: -1, keyLength: 0)
          try rows[index].withUnsafeBufferPointer {
            try writeNumbers($0, into: item, depth: depth + 1, key: key, row: index, tree: tree)
          }
        }
      }
    } else if type == context.scalarArrays.floats {
      try reinterpret(value, as: [Float].self).withUnsafeBufferPointer {
        try writeNumbers($0, into: member, depth: depth, key: key, tree: tree)
      }
    } else if type == context.scalarArrays.ints {
      try writeElements(
        reinterpret(value, as: [Int].self), into: member, depth: depth,
        key: key
      ) {
        value, item, _ in
        self.write(into: item) { $0.appendInteger(value) }
      }
    } else if type == context.scalarArrays.int64s {
      try writeElements(
        reinterpret(value, as: [Int64].self), into: member, depth: depth,
        key: key
      ) { value, item, _ in
        self.write(into: item) { $0.appendInteger(value) }
      }
    } else if type == context.scalarArrays.strings {
      try writeElements(
        reinterpret(value, as: [String].self), into: member, depth: depth,
        key: key
      ) {
        value, item, _ in
        self.write(into: item) { $0.appendString(value) }
      }
    } else {
      return nil
    }
    return true
  }

  /// The numbers of a `[Double]` or `[Float]` as members of a new array container at
  /// `member`: a finite one straight into the arena, any other by `writeFloatingPoint`.
  ///
  /// - Parameters:
  ///   - numbers: the array's elements, borrowed (no retain per row).
  ///   - member: the member the array is the value of.
  ///   - depth: the array container's nesting level.
  ///   - key: the key of the array (or of the rows it is one of).
  ///   - row: the array's index among rows (`[[Double]]`), or nil.
  ///   - tree: this encoder's tree, fetched once by the caller.
  /// - Throws: `EncodingError` for a non-finite number under `.throw`, or past the depth limit.
  @inline(__always)
  private func writeNumbers<Number: JSONFloatingPoint>(
    _ numbers: UnsafeBufferPointer<Number>, into member: Int, depth: Int, key: (any CodingKey)?,
    row: Int? = nil,
    tree: EncodedTree
  ) throws {
    guard depth <= JSONWriter.encoderDepthLimit else { throw ModelEncoder.tooDeep() }
    let container = tree.attachContainer(to: member, isObject: false, depth: depth)
    for (index, number) in numbers.enumerated() {
      let item = tree.appendMember(to: container, keyStart: -1, keyLength: 0)
      guard number.isFinite else {
        try writeFloatingPoint(
          number, into: item,
          path: self.path(adding: key) + (row.map { [AnyCodingKey(intValue: $0)] } ?? [])
            + [AnyCodingKey(intValue: index)])
        continue
      }
      let start = tree.byteCount
      tree.appendFloatingPoint(number)
      tree.finishValue(of: item, from: start)
    }
  }

  /// The elements of a scalar array as members of a new array container at `member`.
  ///
  /// - Parameters:
  ///   - elements: the array.
  ///   - member: the member the array is the value of.
  ///   - depth: the array container's nesting level.
  ///   - key: the key of the array.
  ///   - write: writes an element into a member; its third argument makes the element's path.
  /// - Throws: what `write` throws; `EncodingError` past the depth limit.
  @inline(__always)
  private func writeElements<Element>(
    _ elements: [Element], into member: Int, depth: Int, key: (any CodingKey)?,
    _ write: (Element, Int, () -> [any CodingKey]) throws -> Void
  ) throws {
    guard depth <= JSONWriter.encoderDepthLimit else { throw ModelEncoder.tooDeep() }
    let container = tree.attachContainer(to: member, isObject: false, depth: depth)
    for (index, element) in elements.enumerated() {
      let item = tree.appendMember(to: container, keyStart: -1, keyLength: 0)
      try write(element, item) {
        // The path a non-finite element is reported at: the array's, then its index.
        self.path(adding: key) + [AnyCodingKey(intValue: index)]
      }
    }
  }

  /// Runs `body` with a child encoder producing `member`'s value. A child that encodes nothing
  /// leaves the member pending, which the writer lays out as `{}` (JSONEncoder's too).
  func withChild(
    member: Int, key: (any CodingKey)?, depth: Int, model: Any.Type,
    _ body: (EncoderImpl) throws -> Void
  ) throws {
    guard depth <= JSONWriter.encoderDepthLimit else {
      // The container holding this value is already too deep to write: stop recursing.
      throw ModelEncoder.tooDeep()
    }
    guard context.stack.hasRoom else {
      throw EncodingError.invalidValue(
        model,
        EncodingError.Context(
          codingPath: self.path(adding: key),
          debugDescription: "Nested too deeply for the current thread's stack."))
    }
    var child: EncoderImpl
    if key == nil, member == slot {
      // The same slot at the same path: this encoder itself (a value through a single-value
      // container), with the inner type's mappings.
      let outer = self.model
      self.model = model
      defer { self.model = outer }
      try body(self)
      if tree.members[member].isPending {
        // A value through a single-value container that encoded nothing is `{}`, even at the
        // top level (JSONEncoder's too).
        _ = tree.attachContainer(to: member, isObject: true, depth: depth)
      }
      return
    }
    if let spare {
      self.spare = nil
      spare.parent = self
      spare.slot = member
      spare.depth = depth
      spare.model = model
      spare.key = key
      child = spare
    } else {
      child = EncoderImpl(
        context: context, slot: member, depth: depth, model: model, parent: self, key: key)
    }
    try body(child)
    if spare == nil, isKnownUniquelyReferenced(&child) {
      // A kept child must not hold its parent: parent and spare would keep each other alive.
      child.parent = nil
      child.key = nil
      spare = child
    }
  }

  private func encodeDate(
    _ date: Date, into member: Int, key: (any CodingKey)?, depth: Int
  ) throws {
    switch context.options.dateEncodingStrategy {
    case .deferredToDate:
      try writeFloatingPoint(date.timeIntervalSinceReferenceDate, into: member, key: key)
    case .secondsSince1970:
      try writeFloatingPoint(
        date.timeIntervalSince1970, into: member, key: key, strategy: .throw)
    case .millisecondsSince1970:
      try writeFloatingPoint(
        1000.0 * date.timeIntervalSince1970, into: member, key: key, strategy: .throw)
    case .iso8601:
      write(into: member) { $0.appendString(date.formatted(.iso8601)) }
    #if canImport(Darwin)
      case .formatted(let formatter):
        write(into: member) { $0.appendString(formatter.string(from: date)) }
    #endif
    case .custom(let custom):
      try withChild(member: member, key: key, depth: depth, model: Date.self) {
        try custom(date, $0)
      }
    @unknown default:
      try writeFloatingPoint(date.timeIntervalSinceReferenceDate, into: member, key: key)
    }
  }

  private func encodeData(
    _ data: Data, into member: Int, key: (any CodingKey)?, depth: Int
  ) throws {
    switch context.options.dataEncodingStrategy {
    case .base64:
      write(into: member) { $0.appendString(data.base64EncodedString()) }
    case .deferredToData:
      try withChild(member: member, key: key, depth: depth, model: Data.self) {
        try data.encode(to: $0)
      }
    case .custom(let custom):
      try withChild(member: member, key: key, depth: depth, model: Data.self) {
        try custom(data, $0)
      }
    @unknown default:
      write(into: member) { $0.appendString(data.base64EncodedString()) }
    }
  }
}

/// The array types written by `encodeScalarArray`, identified once per encode and kept in its
/// context (a `static let` costs a `swift_once` call on every value).
struct ScalarArrays {
  let doubles = ObjectIdentifier([Double].self)
  let doubleRows = ObjectIdentifier([[Double]].self)
  let floats = ObjectIdentifier([Float].self)
  let ints = ObjectIdentifier([Int].self)
  let int64s = ObjectIdentifier([Int64].self)
  let strings = ObjectIdentifier([String].self)
}

/// `[String: Value]` keeps its keys whatever the key strategy (as JSONEncoder does): they are
/// data, not property names.
protocol StringKeyedDictionary {
  func encodeKeepingKeys(
    into member: Int, encoder: EncoderImpl, key: (any CodingKey)?, depth: Int) throws
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Encodable {
  func encodeKeepingKeys(
    into member: Int, encoder: EncoderImpl, key: (any CodingKey)?, depth: Int
  ) throws {
    // The dictionary's own key is not in its values' paths (JSONEncoder's paths).
    try encoder.withChild(member: member, key: nil, depth: depth, model: Self.self) {
      child in
      let tree = child.tree
      let container = tree.attachContainer(to: member, isObject: true, depth: depth)
      for (name, value) in self {
        let item = tree.appendMember(named: name, to: container)
        try child.encodeValue(
          value, into: item, key: AnyCodingKey(stringValue: name), depth: depth + 1)
      }
    }
  }
}

extension JSONEncoder.KeyEncodingStrategy {
  var isDefault: Bool {
    if case .useDefaultKeys = self { return true }
    return false
  }
}
