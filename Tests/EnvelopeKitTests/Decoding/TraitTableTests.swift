import Testing

@testable import EnvelopeKit

/// `TraitTable` answers from 256 direct-mapped slots before its dictionary: types whose slots
/// collide must each get their own traits back, never another type's.
@Suite struct TraitTableTests {
  /// `count` distinct types: `Int`, `[Int]`, `[[Int]]`, …
  static func distinctTypes(_ count: Int) -> [Any.Type] {
    var types: [Any.Type] = []
    func nest<T>(_ type: T.Type) {
      types.append(type)
      if types.count < count { nest([T].self) }
    }
    nest(Int.self)
    return types
  }

  @Test(arguments: [1, 300, 1_000])
  func everyTypeGetsItsOwnTraitsWhenSlotsCollide(count: Int) {
    let table = TraitTable()
    let types = Self.distinctTypes(count)
    for type in types { table.keep(TypeTraits(type), for: ObjectIdentifier(type)) }
    // Twice: the second pass reads the slots the first one filled from the dictionary.
    for _ in 0..<2 {
      for type in types {
        let id = ObjectIdentifier(type)
        #expect(table.cached(id)?.id == id, "\(type)")
      }
    }
    #expect(table.cached(ObjectIdentifier(String.self)) == nil)
  }
}
