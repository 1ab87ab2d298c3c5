// Benchmark models for citm_catalog.json, made once by a Python generator (since removed:
// `envelope models` does its job) and kept as they were so that benchmark figures stay
// comparable across versions: Codable and Equatable structs, `CodingKeys` for every snake_case
// key, so every decoder measured reads them with its default key strategy. Do not edit by hand.
// `envelope models ../shared/data/payloads/citm_catalog.json` writes today's equivalent, and
// scripts/check-generated-models.sh checks that it decodes this payload strictly.
// Root type: CitmRoot

struct CitmRoot: Codable, Equatable {
  var areaNames: [String: String]
  var audienceSubCategoryNames: [String: String]
  var blockNames: [String: String]
  var events: [String: CitmEvent]
  var performances: [CitmPerformance]
  var seatCategoryNames: [String: String]
  var subTopicNames: [String: String]
  var subjectNames: [String: String]
  var topicNames: [String: String]
  var topicSubTopics: [String: [Int]]
  var venueNames: CitmVenueNames

  enum CodingKeys: String, CodingKey {
    case areaNames
    case audienceSubCategoryNames
    case blockNames
    case events
    case performances
    case seatCategoryNames
    case subTopicNames
    case subjectNames
    case topicNames
    case topicSubTopics
    case venueNames
  }
}

struct CitmVenueNames: Codable, Equatable {
  var pLEYELPLEYEL: String

  enum CodingKeys: String, CodingKey {
    case pLEYELPLEYEL = "PLEYEL_PLEYEL"
  }
}

struct CitmPerformance: Codable, Equatable {
  var eventId: Int
  var id: Int
  var logo: String?
  var name: String?
  var prices: [CitmPrice]
  var seatCategories: [CitmSeatCategorie]
  var seatMapImage: String?
  var start: Int
  var venueCode: String

  enum CodingKeys: String, CodingKey {
    case eventId
    case id
    case logo
    case name
    case prices
    case seatCategories
    case seatMapImage
    case start
    case venueCode
  }
}

struct CitmSeatCategorie: Codable, Equatable {
  var areas: [CitmArea]
  var seatCategoryId: Int

  enum CodingKeys: String, CodingKey {
    case areas
    case seatCategoryId
  }
}

struct CitmArea: Codable, Equatable {
  var areaId: Int
  var blockIds: [String]

  enum CodingKeys: String, CodingKey {
    case areaId
    case blockIds
  }
}

struct CitmPrice: Codable, Equatable {
  var amount: Int
  var audienceSubCategoryId: Int
  var seatCategoryId: Int

  enum CodingKeys: String, CodingKey {
    case amount
    case audienceSubCategoryId
    case seatCategoryId
  }
}

struct CitmEvent: Codable, Equatable {
  var description: String?
  var id: Int
  var logo: String?
  var name: String
  var subTopicIds: [Int]
  var subjectCode: String?
  var subtitle: String?
  var topicIds: [Int]

  enum CodingKeys: String, CodingKey {
    case description
    case id
    case logo
    case name
    case subTopicIds
    case subjectCode
    case subtitle
    case topicIds
  }
}
