import Foundation

/// The keys a `.custom` key decoding strategy gave, kept for the decoder's life (its options),
/// so that the closure is called once per JSON key and coding path shape rather than once per
/// key of every object: an array of a thousand objects asks it about each key once.
///
/// A path's shape is its object keys with every array index left out. A result is kept for the
/// shape only when the closure did not read an index: the indices handed to it are
/// `ObservedIndexKey`s, which note any read (`intValue`, `stringValue`, descriptions, mirrors).
/// A result that read one (it may differ from element to element) is not kept, and the closure
/// is asked again next time, as before. Bounded: past `limit` results, or past `byteLimit`
/// bytes of key text (the shapes' keys, the JSON keys and the answers: keys are input, and a
/// decoder may live as long as the process), new ones are not kept.
///
/// `@unchecked Sendable`: `shapes` and `count` are only touched with `lock` held; the closure is
/// never called with it held (it may decode with the same decoder).
final class CustomKeyCache: @unchecked Sendable {
  /// One step of a path's shape.
  enum Step: Hashable {
    case key(String)
    case index

    /// The bytes of key text the step keeps.
    var bytes: Int {
      if case .key(let key) = self { return key.utf8.count }
      return 0
    }
  }

  private let lock = NSLock()
  private var shapes: [[Step]: [String: String]] = [:]
  private var count = 0
  /// The UTF-8 bytes of the key text kept.
  private var bytes = 0
  let limit: Int
  let byteLimit: Int

  init(limit: Int = 4096, byteLimit: Int = 1 << 20) {
    self.limit = limit
    self.byteLimit = byteLimit
  }

  /// How the JSON keys of the object at `path` become model keys under `custom`: through the
  /// results kept for the path's shape, else the closure.
  func conversion(
    _ custom: @escaping @Sendable ([any CodingKey]) -> any CodingKey, at path: [any CodingKey]
  ) -> (String) -> String {
    let shape = path.map { key -> Step in
      AnyCodingKey.arrayIndex(of: key) == nil ? .key(key.stringValue) : .index
    }
    var known = lock.withLock { shapes[shape] } ?? [:]
    return { [self] raw in
      if let converted = known[raw] { return converted }
      let observer = ObservedIndexKey.Observer()
      let observed = path.map { key -> any CodingKey in
        guard let index = AnyCodingKey.arrayIndex(of: key) else { return key }
        return ObservedIndexKey(index, observer)
      }
      let converted = custom(observed + [AnyCodingKey(stringValue: raw)]).stringValue
      if !observer.wasRead {
        known[raw] = converted
        keep(converted, for: raw, at: shape)
      }
      return converted
    }
  }

  private func keep(_ converted: String, for raw: String, at shape: [Step]) {
    let cost = raw.utf8.count + converted.utf8.count
    lock.withLock {
      guard count < limit, shapes[shape]?[raw] == nil else { return }
      let shapeCost = shapes[shape] == nil ? shape.reduce(0) { $0 + $1.bytes } : 0
      guard bytes + cost + shapeCost <= byteLimit else { return }
      shapes[shape, default: [:]][raw] = converted
      count += 1
      bytes += cost + shapeCost
    }
  }
}

/// An array index in the path handed to a `.custom` key strategy, which notes whether the
/// closure read it (`CustomKeyCache`).
final class ObservedIndexKey: CodingKey, CustomReflectable {
  /// Whether any index of one path was read. Used by one call of the closure, on its thread.
  final class Observer: @unchecked Sendable {
    var wasRead = false
  }

  private let index: Int
  private let observer: Observer

  init(_ index: Int, _ observer: Observer) {
    self.index = index
    self.observer = observer
  }

  /// Never made from a value: the decoder makes these for paths it hands out.
  init?(stringValue: String) { nil }
  init?(intValue: Int) { nil }

  var intValue: Int? {
    observer.wasRead = true
    return index
  }

  /// "Index 3", as every index key of a coding path.
  var stringValue: String {
    observer.wasRead = true
    return "Index \(index)"
  }

  var description: String { AnyCodingKey(intValue: intValue ?? index).description }
  var debugDescription: String { AnyCodingKey(intValue: intValue ?? index).debugDescription }

  var customMirror: Mirror {
    observer.wasRead = true
    return Mirror(reflecting: AnyCodingKey(intValue: index))
  }
}
