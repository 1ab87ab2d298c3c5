// Benchmark models for canada.json, made once by a Python generator (since removed:
// `envelope models` does its job) and kept as they were so that benchmark figures stay
// comparable across versions: Codable and Equatable structs, `CodingKeys` for every snake_case
// key, so every decoder measured reads them with its default key strategy. Do not edit by hand.
// `envelope models ../shared/data/payloads/canada.json` writes today's equivalent, and
// scripts/check-generated-models.sh checks that it decodes this payload strictly.
// Root type: CanadaRoot

struct CanadaRoot: Codable, Equatable {
  var type: String
  var features: [CanadaFeature]

  enum CodingKeys: String, CodingKey {
    case type
    case features
  }
}

struct CanadaFeature: Codable, Equatable {
  var type: String
  var properties: CanadaProperties
  var geometry: CanadaGeometry

  enum CodingKeys: String, CodingKey {
    case type
    case properties
    case geometry
  }
}

struct CanadaGeometry: Codable, Equatable {
  var type: String
  var coordinates: [[[Double]]]

  enum CodingKeys: String, CodingKey {
    case type
    case coordinates
  }
}

struct CanadaProperties: Codable, Equatable {
  var name: String

  enum CodingKeys: String, CodingKey {
    case name
  }
}
