import EnvelopeKit

/// What every sample seen at one place has in common, as a Swift type will hold it.
indirect enum Shape: Equatable {
  /// No sample yet (an empty array's elements).
  case unknown
  /// Only nulls so far.
  case null
  /// Booleans, numbers and strings: every sample, in order, so the type chosen for them can be
  /// checked against each (``ScalarType``).
  case scalars([JSON])
  /// Elements, and whether some element was null.
  case array(Shape, nullable: Bool)
  case object(ObjectShape)
  /// Samples disagree between containers, or between a container and a scalar: kept as `JSON`.
  case json

  /// The shape of one sample; `tags`: whether objects keep the samples of each string value of
  /// their keys apart (``ObjectShape/tags``).
  init(_ value: JSON, tags: Bool = true) {
    switch value {
    case .null: self = .null
    case .bool, .number, .string: self = .scalars([value])
    case .array(let elements):
      self = .array(
        Shape.merging(elements.map { Shape($0, tags: tags) }),
        nullable: elements.contains { $0.isNull })
    case .object(let object):
      self = .object(ObjectShape(object, tags: tags))
    }
  }

  /// Whether the models declare a struct for it: an object that is not a map.
  var isStruct: Bool {
    if case .object(let object) = self { return !object.isMap }
    return false
  }

  /// What kind of JSON value every sample is: the same for shapes a map's values may share.
  var kind: String {
    switch self {
    case .unknown: return "unknown"
    case .null: return "null"
    case .scalars(let values):
      let first = values.first?.kindName ?? "unknown"
      return values.allSatisfy { $0.kindName == first } ? first : "scalars"
    case .array: return "array"
    case .object: return "object"
    case .json: return "json"
    }
  }

  /// The shape that holds every one of `shapes`, merged in halves so that long arrays cost
  /// n log n rather than n² (a merge copies what it holds).
  static func merging(_ shapes: some Collection<Shape>) -> Shape {
    switch shapes.count {
    case 0: return .unknown
    case 1: return shapes.first ?? .unknown
    default:
      let middle = shapes.index(shapes.startIndex, offsetBy: shapes.count / 2)
      return merging(shapes[..<middle]).merged(with: merging(shapes[middle...]))
    }
  }

  /// The shape that holds every sample of both.
  func merged(with other: Shape) -> Shape {
    switch (self, other) {
    case (.unknown, let shape), (let shape, .unknown): return shape
    case (.null, .null): return .null
    case (.null, let shape), (let shape, .null): return shape  // optionality is the holder's
    case (.json, _), (_, .json): return .json
    case (.scalars(let a), .scalars(let b)): return .scalars(a + b)
    case (.array(let a, let aNull), .array(let b, let bNull)):
      return .array(a.merged(with: b), nullable: aNull || bNull)
    case (.object(let a), .object(let b)): return .object(a.merged(with: b))
    default: return .json
    }
  }
}

/// An object's keys in first-seen order, each with its shape and whether some sample lacked it
/// or held null.
struct ObjectShape: Equatable {
  struct Field: Equatable {
    var key: String
    var shape: Shape
    /// Missing from some sample, or null in some.
    var optional: Bool
    /// Null in some sample.
    var holdsNull: Bool
  }

  /// The samples of one value of a key that may be a tag: those whose key held `value`.
  struct Variant: Equatable {
    var value: String
    /// The samples' shape, without tags of its own.
    var shape: ObjectShape
  }

  /// A key held a short string in every sample: the samples of each value, apart, in first-seen
  /// order, so that the writer can tell whether the value picks the shape (``TaggedChoice``).
  struct Tag: Equatable {
    var key: String
    var variants: [Variant]
  }

  /// Distinct values past which a key is not a tag.
  static let maxVariants = 16
  /// Strings longer than this are not tags.
  static let maxTagLength = 64

  var fields: [Field] = []
  /// How many samples were merged.
  var samples: Int
  /// Keys that may be tags, in field order.
  var tags: [Tag] = []

  /// Every key is a number (`"205705993"`): ids used as keys, read as a dictionary.
  var isKeyedByIDs: Bool {
    !fields.isEmpty
      && fields.allSatisfy { field in
        !field.key.isEmpty
          && field.key.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
      }
  }

  /// Keys from which a map is told apart from a struct by the count alone, when their values
  /// are objects of one shape (Jenkins' `plugins`: hundreds of plugin names).
  static let manyKeys = 20

  /// Whether the object is read as a dictionary `[String: T]` rather than a struct, as
  /// quicktype infers maps: keys that are ids (`"205705993"`), or values of one kind (objects
  /// that mostly share their keys, arrays, or scalars of one kind) under keys that are many
  /// (``manyKeys``, for objects and arrays) or mostly not names (`"workflow-aggregator"`,
  /// `"en-GB"`, at least three).
  var isMap: Bool {
    if isKeyedByIDs { return true }
    guard fields.count >= 2 else { return false }
    let shapes = fields.map(\.shape).filter { $0 != .null }
    guard let kind = shapes.first?.kind,
      ["object", "array", "string", "number", "bool"].contains(kind),
      shapes.allSatisfy({ $0.kind == kind })
    else { return false }
    let notNames = fields.count(where: { !Names.isIdentifierLike($0.key) })
    let manyNotNames = fields.count >= 3 && notNames * 2 > fields.count
    switch kind {
    case "object":
      return (fields.count >= Self.manyKeys || manyNotNames) && Self.shareKeys(shapes)
    case "array":
      return (fields.count >= Self.manyKeys || manyNotNames)
        && Shape.merging(shapes) != .json
    default:
      return manyNotNames
    }
  }

  /// Whether objects mostly share their keys: on average each has at least half of all the keys
  /// seen in any of them.
  private static func shareKeys(_ shapes: [Shape]) -> Bool {
    var union: Set<String> = []
    var total = 0
    for case .object(let object) in shapes {
      union.formUnion(object.fields.map(\.key))
      total += object.fields.count
    }
    guard !union.isEmpty else { return true }  // empty objects: one shape
    return total * 2 >= union.count * shapes.count
  }

  init(fields: [Field], samples: Int) {
    self.fields = fields
    self.samples = samples
  }

  /// The shape of one sample (a repeated key counts once); `tags`: whether to keep the
  /// sample apart under each key holding a short string.
  init(_ object: JSONObject, tags: Bool = true) {
    samples = 1
    var seen: Set<String> = []
    for (key, value) in object where seen.insert(key).inserted {
      fields.append(
        Field(
          key: key, shape: Shape(value, tags: tags), optional: value.isNull,
          holdsNull: value.isNull))
    }
    guard tags else { return }
    var plain: ObjectShape?
    seen = []
    for (key, value) in object where seen.insert(key).inserted {
      guard case .string(let text) = value, text.count <= Self.maxTagLength else { continue }
      let shape = plain ?? ObjectShape(object, tags: false)
      plain = shape
      self.tags.append(Tag(key: key, variants: [Variant(value: text, shape: shape)]))
    }
  }

  func merged(with other: ObjectShape) -> ObjectShape {
    var result = ObjectShape(fields: [], samples: samples + other.samples)
    var others: [String: Int] = [:]
    for (position, field) in other.fields.enumerated() where others[field.key] == nil {
      others[field.key] = position
    }
    let mine = Set(fields.map(\.key))
    for field in fields {
      if let match = others[field.key].map({ other.fields[$0] }) {
        result.fields.append(
          Field(
            key: field.key, shape: field.shape.merged(with: match.shape),
            optional: field.optional || match.optional,
            holdsNull: field.holdsNull || match.holdsNull))
      } else {
        var missing = field
        missing.optional = true
        result.fields.append(missing)
      }
    }
    for field in other.fields where !mine.contains(field.key) {
      var missing = field
      missing.optional = true
      result.fields.append(missing)
    }
    // A tag is in every sample: a key only one side holds as a short string is none.
    for tag in tags {
      guard let match = other.tags.first(where: { $0.key == tag.key }) else { continue }
      var variants = tag.variants
      for variant in match.variants {
        if let position = variants.firstIndex(where: { $0.value == variant.value }) {
          variants[position].shape = variants[position].shape.merged(with: variant.shape)
        } else {
          variants.append(variant)
        }
      }
      if variants.count <= Self.maxVariants {
        result.tags.append(Tag(key: tag.key, variants: variants))
      }
    }
    return result
  }
}
