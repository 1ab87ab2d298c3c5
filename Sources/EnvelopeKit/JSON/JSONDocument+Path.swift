extension JSONDocument {
  /// The token at `path`, or nil when a step is missing.
  func index(at path: JSONPath, from start: Int = 0) -> Int? {
    var index = start
    for component in path.components {
      guard let found = child(component, of: index) else { return nil }
      index = found
    }
    return index
  }

  /// The value `component` names in the container at `index`: a member of an object (an
  /// index names the member of its digits, as in RFC 6901) or an element of an array; nil when
  /// missing, or for a key in an array or any step into a scalar.
  func child(_ component: JSONPath.Component, of index: Int) -> Int? {
    switch (component, kind(index)) {
    case (_, .object): return valueIndex(forKey: component.memberName, inObject: index)
    case (.index(let position), .array): return elementIndex(position, inArray: index)
    default: return nil
    }
  }
}
