import EnvelopeKit

/// A key whose string values pick the shape of the object, or of an object beside the key
/// (`"type"` and `"payload"` in GitHub's events): the models read it as a `TaggedDecodable` enum
/// with a case per value seen, each holding the whole object, and an `unknown` case.
///
/// The samples must show it: a key that is a short string in every sample, with 2 to
/// ``ObjectShape/maxVariants`` values of which one repeats, and two values whose objects (or
/// whose objects at one other key) share less than half of their keys. Keys named like tags
/// (`type`, `kind`, …) are tried first, then the others in field order.
struct TaggedChoice {
  /// The tag's JSON key.
  var key: String
  /// The samples of each value, in first-seen order, without the tag key.
  var variants: [ObjectShape.Variant]
  /// The key whose objects differ by tag (`payload`); nil when the objects' own keys do.
  var sibling: String?

  /// Keys named like tags, lowercased without `_` and `@`: tried first.
  static let tagWords: Set<String> = [
    "type", "kind", "eventtype", "event", "object", "typename", "tag", "variant", "objecttype",
  ]

  init?(_ object: ObjectShape) {
    let candidates = object.tags.filter { tag in
      tag.variants.count >= 2 && object.samples > tag.variants.count
        && object.fields.contains { $0.key == tag.key && !$0.optional }
    }
    func isTagWord(_ key: String) -> Bool {
      Self.tagWords.contains(key.lowercased().filter { $0 != "_" && $0 != "@" })
    }
    let ordered = candidates.filter { isTagWord($0.key) } + candidates.filter { !isTagWord($0.key) }
    for tag in ordered {
      let variants = tag.variants.map { variant in
        var variant = variant
        variant.shape.fields.removeAll { $0.key == tag.key }
        return variant
      }
      if let sibling = Self.differingSibling(variants, in: object, tag: tag.key) {
        self.init(key: tag.key, variants: variants, sibling: sibling)
        return
      }
      if Self.differ(variants.map { Set($0.shape.fields.map(\.key)) }) {
        self.init(key: tag.key, variants: variants, sibling: nil)
        return
      }
    }
    return nil
  }

  private init(key: String, variants: [ObjectShape.Variant], sibling: String?) {
    self.key = key
    self.variants = variants
    self.sibling = sibling
  }

  /// The first key holding an object in every sample whose keys differ between two values.
  private static func differingSibling(
    _ variants: [ObjectShape.Variant], in object: ObjectShape, tag: String
  ) -> String? {
    for field in object.fields where field.key != tag && !field.optional {
      guard case .object = field.shape else { continue }
      let keySets = variants.compactMap { variant -> Set<String>? in
        guard let match = variant.shape.fields.first(where: { $0.key == field.key }),
          case .object(let shape) = match.shape
        else { return nil }
        return Set(shape.fields.map(\.key))
      }
      if keySets.count == variants.count, differ(keySets) { return field.key }
    }
    return nil
  }

  /// Whether two of the key sets share less than half of the keys the two hold.
  private static func differ(_ keySets: [Set<String>]) -> Bool {
    for (position, first) in keySets.enumerated() {
      for second in keySets[(position + 1)...] {
        let union = first.union(second).count
        if union > 0, first.intersection(second).count * 2 < union { return true }
      }
    }
    return false
  }
}
