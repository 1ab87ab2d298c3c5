import Foundation

extension LenientDecoder {
  /// Reads the model's key `key` from the first of `paths` that is present (and not null),
  /// relative to the model's own object: nested paths and alternatives (ObjectMapper's
  /// `"user.name"`, SmartCodable's `mappingForKey`), with the model left synthesised.
  ///
  /// ```swift
  /// var decoder = LenientDecoder()
  /// decoder.map(User.self, key: "name", to: "profile.name", "nickname")
  /// ```
  ///
  /// Applies in both policies. Paths are JSON keys as they are in the document (the key
  /// decoding strategy does not convert them); errors and report entries name the path read.
  ///
  /// - Parameters:
  ///   - model: the model type.
  ///   - key: the model's coding key, as its `CodingKeys` spell it.
  ///   - paths: where to read it, tried in order.
  public mutating func map<Model: Decodable>(
    _ model: Model.Type, key: String, to paths: JSONPath...
  ) {
    keyMappings.update(Model.self, key) { $0.paths = paths }
  }

  /// Produces the model's key `key` from its raw JSON with `transform`.
  ///
  /// ```swift
  /// decoder.transform(Event.self, key: "at", .millisecondsSince1970)
  /// ```
  ///
  /// The transform's value type must be the property's type (or the type an Optional property
  /// wraps); otherwise decoding throws a `DecodingError.typeMismatch` naming the model and key.
  /// Combines with `map(_:key:to:)`: the mapped path's JSON is transformed.
  ///
  /// - Parameters:
  ///   - model: the model type.
  ///   - key: the model's coding key.
  ///   - transform: the transform.
  public mutating func transform<Model: Decodable, Value>(
    _ model: Model.Type, key: String, _ transform: ValueTransform<Value>
  ) {
    keyMappings.update(Model.self, key) {
      $0.transform = AnyValueTransform(model: Model.self, key: key, transform)
    }
  }
}

/// Every model's key mappings, by model type.
struct KeyMappings: Sendable {
  private var byModel: [ObjectIdentifier: [String: KeyMapping]] = [:]

  var isEmpty: Bool { byModel.isEmpty }

  /// The mappings of one model; nil for most models (their keyed containers pay nothing).
  func mappings(for type: Any.Type) -> [String: KeyMapping]? {
    byModel.isEmpty ? nil : byModel[ObjectIdentifier(type)]
  }

  mutating func update<Model>(
    _ model: Model.Type, _ key: String, _ change: (inout KeyMapping) -> Void
  ) {
    change(&byModel[ObjectIdentifier(model), default: [:]][key, default: KeyMapping()])
  }
}

/// One model's key mappings, as its keyed containers look them up: once for every key of every
/// container of the model. A few mappings are found by comparing names (two literal keys
/// compare by their bits) rather than by hashing each key the model asks for, which was a
/// twentieth of a GitHub events decode (four models there have date transforms).
struct ModelKeyMappings: Sendable {
  /// The mappings by model key.
  let byName: [String: KeyMapping]
  /// The same, in a list, for models with few mappings; empty when there are many.
  private let entries: [(name: String, mapping: KeyMapping)]

  /// Mappings up to this many are compared by name, more are hashed.
  private static var listLimit: Int { 8 }

  init(_ byName: [String: KeyMapping]) {
    self.byName = byName
    entries =
      byName.count <= Self.listLimit ? byName.map { (name: $0.key, mapping: $0.value) } : []
  }

  /// The mapping of the model key `name`, if any.
  @inline(__always)
  func mapping(for name: String) -> KeyMapping? {
    guard byName.count <= Self.listLimit else { return byName[name] }
    for entry in entries where entry.name == name { return entry.mapping }
    return nil
  }
}

/// Where one key is read from and how its value is made.
struct KeyMapping: Sendable {
  /// Paths relative to the model's object, tried in order; empty for the key itself.
  var paths: [JSONPath] = []
  /// The value transform, if any.
  var transform: AnyValueTransform?
}

/// A `ValueTransform` with its value type erased, and the model and key it is set for.
struct AnyValueTransform: Sendable {
  let read: @Sendable (JSON) throws -> Any
  /// The write side: the JSON for a value, or nil when the value is not the transform's type.
  let write: (@Sendable (Any) throws -> JSON?)?
  let valueType: Any.Type
  let owner: String

  init<Model, Value>(model: Model.Type, key: String, _ transform: ValueTransform<Value>) {
    read = { try transform.read($0) }
    if let write = transform.write {
      self.write = { (value: Any) throws -> JSON? in
        guard let value = value as? Value else { return nil }
        return try write(value)
      }
    } else {
      self.write = nil
    }
    valueType = Value.self
    owner = "\(Model.self).\(key)"
  }
}
