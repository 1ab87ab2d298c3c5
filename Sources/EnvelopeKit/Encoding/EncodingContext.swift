import Foundation

/// What one `ModelEncoder.encode` call shares: the tree, the options, and a misuse of the
/// `Encoder` API recorded by a call that cannot throw (JSONEncoder traps; we throw at the end).
final class EncodingContext {
  let tree: EncodedTree
  let options: ModelEncoder
  let userInfo: [CodingUserInfoKey: Any]
  let stack = StackGuard()
  let scalarArrays = ScalarArrays()
  /// The first misuse of the `Encoder` API, thrown when the encode ends.
  var misuse: EncodingError?
  /// The first key the matched decoder cannot read back, thrown when the encode ends.
  var failure: EncodingError?
  /// The options' key mappings, nil when there are none (most encodes: no lookup per
  /// container).
  private let keyMappings: KeyMappings?
  /// Snake-case conversions already made in this call.
  private var snakeCase: [String: String] = [:]
  /// How keys are written, worked out once (the options' enums carry closures: switching on
  /// them per key retains and releases).
  private let keyRule: KeyRule

  private enum KeyRule {
    case asIs, snakeCase, readBack, custom
  }

  init(options: ModelEncoder, tree: EncodedTree) {
    self.options = options
    self.tree = tree
    var info: [CodingUserInfoKey: Any] = [:]
    for (key, value) in options.userInfo { info[key] = value }
    userInfo = info
    keyMappings = options.keyMappings.isEmpty ? nil : options.keyMappings
    if options.keysReadBy != nil {
      keyRule = .readBack
    } else {
      switch options.keyEncodingStrategy {
      case .useDefaultKeys: keyRule = .asIs
      case .convertToSnakeCase: keyRule = .snakeCase
      default: keyRule = .custom
      }
    }
  }

  /// The key mappings of `model`, if it has any.
  @inline(__always)
  func mappings(for model: Any.Type) -> [String: KeyMapping]? {
    keyMappings?.mappings(for: model)
  }

  /// The JSON key for `key` under the key encoding strategy, or the matched decoder's.
  @inline(__always)
  func convert(_ key: some CodingKey, path: @autoclosure () -> [any CodingKey]) -> String {
    switch keyRule {
    case .asIs: return key.stringValue
    case .snakeCase:
      let name = key.stringValue
      if let converted = snakeCase[name] { return converted }
      let converted = convertToSnakeCase(name)
      snakeCase[name] = converted
      return converted
    case .readBack:
      guard let strategy = options.keysReadBy else { return key.stringValue }
      return readBack(key, strategy, path)
    case .custom:
      guard case .custom(let custom) = options.keyEncodingStrategy else { return key.stringValue }
      return custom(path() + [key]).stringValue
    }
  }

  /// The JSON key `strategy` reads back as `key` (`init(matching:)`). A key none reads back
  /// as is written as it is and the encode throws at its end (the containers that ask cannot
  /// throw).
  private func readBack(
    _ key: some CodingKey, _ strategy: LenientDecoder.KeyDecodingStrategy,
    _ path: () -> [any CodingKey]
  ) -> String {
    let name = key.stringValue
    // Under snake case the answer depends on the name alone: worked out once per encode.
    if case .convertFromSnakeCase = strategy, let known = snakeCase[name] { return known }
    let base = path()
    guard let written = strategy.writtenKey(for: name, at: base) else {
      if failure == nil {
        failure = .invalidValue(
          name,
          EncodingError.Context(
            codingPath: base + [key],
            debugDescription: "No JSON key reads back as the key \"\(name)\" under the "
              + "decoder's \(strategy.name) key strategy, so ModelEncoder(matching:) cannot "
              + "write it: map the key (map(_:key:to:)) or give it another name."))
      }
      return name
    }
    if case .convertFromSnakeCase = strategy { snakeCase[name] = written }
    return written
  }

  /// Objects that mapped paths made and a model's own key then wrote into (member, object,
  /// the error if the key's value replaced the object): checked when the encode ends.
  private var mappedObjects: [(member: Int, object: Int, error: EncodingError)] = []

  /// Notes that `member` must still hold `object` when the encode ends (`checkMappedObjects`).
  func expectObject(_ object: Int, at member: Int, _ message: String, codingPath: [any CodingKey]) {
    mappedObjects.append(
      (
        member, object,
        .invalidValue(
          message, EncodingError.Context(codingPath: codingPath, debugDescription: message))
      ))
  }

  /// The error of the first object that mapped paths made which a value of the model's own
  /// then replaced (its mapped members would be lost); nil when none was.
  var replacedMappedObject: EncodingError? {
    mappedObjects.first { tree.members[$0.member].container != $0.object }?.error
  }

  func recordMisuse(_ message: String, at path: [any CodingKey]) {
    guard misuse == nil else { return }
    misuse = .invalidValue(
      message, EncodingError.Context(codingPath: path, debugDescription: message))
  }
}

/// A key path of nested containers inside one encoder, for `codingPath`.
final class CodingPathNode {
  let key: any CodingKey
  let parent: CodingPathNode?

  init(_ key: any CodingKey, parent: CodingPathNode?) {
    self.key = key
    self.parent = parent
  }
}
