// Benchmark models for twitter.json, made once by a Python generator (since removed:
// `envelope models` does its job) and kept as they were so that benchmark figures stay
// comparable across versions: Codable and Equatable structs, `CodingKeys` for every snake_case
// key, so every decoder measured reads them with its default key strategy. Do not edit by hand.
// `envelope models ../shared/data/payloads/twitter.json` writes today's equivalent, and
// scripts/check-generated-models.sh checks that it decodes this payload strictly.
// Root type: TwitterRoot

struct TwitterRoot: Codable, Equatable {
  var statuses: [TwitterStatuse]
  var searchMetadata: TwitterSearchMetadata

  enum CodingKeys: String, CodingKey {
    case statuses
    case searchMetadata = "search_metadata"
  }
}

struct TwitterSearchMetadata: Codable, Equatable {
  var completedIn: Double
  var maxId: Int
  var maxIdStr: String
  var nextResults: String
  var query: String
  var refreshUrl: String
  var count: Int
  var sinceId: Int
  var sinceIdStr: String

  enum CodingKeys: String, CodingKey {
    case completedIn = "completed_in"
    case maxId = "max_id"
    case maxIdStr = "max_id_str"
    case nextResults = "next_results"
    case query
    case refreshUrl = "refresh_url"
    case count
    case sinceId = "since_id"
    case sinceIdStr = "since_id_str"
  }
}

struct TwitterStatuse: Codable, Equatable {
  var metadata: TwitterMetadata
  var createdAt: String
  var id: Int
  var idStr: String
  var text: String
  var source: String
  var truncated: Bool
  var inReplyToStatusId: Int?
  var inReplyToStatusIdStr: String?
  var inReplyToUserId: Int?
  var inReplyToUserIdStr: String?
  var inReplyToScreenName: String?
  var user: TwitterUser
  var geo: String?
  var coordinates: String?
  var place: String?
  var contributors: String?
  var retweetCount: Int
  var favoriteCount: Int
  var entities: TwitterEntities_
  var favorited: Bool
  var retweeted: Bool
  var lang: String
  var retweetedStatus: TwitterRetweetedStatus?
  var possiblySensitive: Bool?

  enum CodingKeys: String, CodingKey {
    case metadata
    case createdAt = "created_at"
    case id
    case idStr = "id_str"
    case text
    case source
    case truncated
    case inReplyToStatusId = "in_reply_to_status_id"
    case inReplyToStatusIdStr = "in_reply_to_status_id_str"
    case inReplyToUserId = "in_reply_to_user_id"
    case inReplyToUserIdStr = "in_reply_to_user_id_str"
    case inReplyToScreenName = "in_reply_to_screen_name"
    case user
    case geo
    case coordinates
    case place
    case contributors
    case retweetCount = "retweet_count"
    case favoriteCount = "favorite_count"
    case entities
    case favorited
    case retweeted
    case lang
    case retweetedStatus = "retweeted_status"
    case possiblySensitive = "possibly_sensitive"
  }
}

struct TwitterRetweetedStatus: Codable, Equatable {
  var metadata: TwitterMetadata
  var createdAt: String
  var id: Int
  var idStr: String
  var text: String
  var source: String
  var truncated: Bool
  var inReplyToStatusId: Int?
  var inReplyToStatusIdStr: String?
  var inReplyToUserId: Int?
  var inReplyToUserIdStr: String?
  var inReplyToScreenName: String?
  var user: TwitterUser
  var geo: String?
  var coordinates: String?
  var place: String?
  var contributors: String?
  var retweetCount: Int
  var favoriteCount: Int
  var entities: TwitterEntities_
  var favorited: Bool
  var retweeted: Bool
  var possiblySensitive: Bool?
  var lang: String

  enum CodingKeys: String, CodingKey {
    case metadata
    case createdAt = "created_at"
    case id
    case idStr = "id_str"
    case text
    case source
    case truncated
    case inReplyToStatusId = "in_reply_to_status_id"
    case inReplyToStatusIdStr = "in_reply_to_status_id_str"
    case inReplyToUserId = "in_reply_to_user_id"
    case inReplyToUserIdStr = "in_reply_to_user_id_str"
    case inReplyToScreenName = "in_reply_to_screen_name"
    case user
    case geo
    case coordinates
    case place
    case contributors
    case retweetCount = "retweet_count"
    case favoriteCount = "favorite_count"
    case entities
    case favorited
    case retweeted
    case possiblySensitive = "possibly_sensitive"
    case lang
  }
}

struct TwitterEntities_: Codable, Equatable {
  var hashtags: [TwitterHashtag]
  var symbols: [String]
  var urls: [TwitterUrl]
  var userMentions: [TwitterUserMention]
  var media: [TwitterMediaItem]?

  enum CodingKeys: String, CodingKey {
    case hashtags
    case symbols
    case urls
    case userMentions = "user_mentions"
    case media
  }
}

struct TwitterMediaItem: Codable, Equatable {
  var id: Int
  var idStr: String
  var indices: [Int]
  var mediaUrl: String
  var mediaUrlHttps: String
  var url: String
  var displayUrl: String
  var expandedUrl: String
  var type: String
  var sizes: TwitterSizes
  var sourceStatusId: Int?
  var sourceStatusIdStr: String?

  enum CodingKeys: String, CodingKey {
    case id
    case idStr = "id_str"
    case indices
    case mediaUrl = "media_url"
    case mediaUrlHttps = "media_url_https"
    case url
    case displayUrl = "display_url"
    case expandedUrl = "expanded_url"
    case type
    case sizes
    case sourceStatusId = "source_status_id"
    case sourceStatusIdStr = "source_status_id_str"
  }
}

struct TwitterSizes: Codable, Equatable {
  var medium: TwitterMedium
  var small: TwitterMedium
  var thumb: TwitterMedium
  var large: TwitterMedium

  enum CodingKeys: String, CodingKey {
    case medium
    case small
    case thumb
    case large
  }
}

struct TwitterMedium: Codable, Equatable {
  var w: Int
  var h: Int
  var resize: String

  enum CodingKeys: String, CodingKey {
    case w
    case h
    case resize
  }
}

struct TwitterUserMention: Codable, Equatable {
  var screenName: String
  var name: String
  var id: Int
  var idStr: String
  var indices: [Int]

  enum CodingKeys: String, CodingKey {
    case screenName = "screen_name"
    case name
    case id
    case idStr = "id_str"
    case indices
  }
}

struct TwitterHashtag: Codable, Equatable {
  var text: String
  var indices: [Int]

  enum CodingKeys: String, CodingKey {
    case text
    case indices
  }
}

struct TwitterUser: Codable, Equatable {
  var id: Int
  var idStr: String
  var name: String
  var screenName: String
  var location: String
  var description: String
  var url: String?
  var entities: TwitterEntities
  var protected: Bool
  var followersCount: Int
  var friendsCount: Int
  var listedCount: Int
  var createdAt: String
  var favouritesCount: Int
  var utcOffset: Int?
  var timeZone: String?
  var geoEnabled: Bool
  var verified: Bool
  var statusesCount: Int
  var lang: String
  var contributorsEnabled: Bool
  var isTranslator: Bool
  var isTranslationEnabled: Bool
  var profileBackgroundColor: String
  var profileBackgroundImageUrl: String
  var profileBackgroundImageUrlHttps: String
  var profileBackgroundTile: Bool
  var profileImageUrl: String
  var profileImageUrlHttps: String
  var profileBannerUrl: String?
  var profileLinkColor: String
  var profileSidebarBorderColor: String
  var profileSidebarFillColor: String
  var profileTextColor: String
  var profileUseBackgroundImage: Bool
  var defaultProfile: Bool
  var defaultProfileImage: Bool
  var following: Bool
  var followRequestSent: Bool
  var notifications: Bool

  enum CodingKeys: String, CodingKey {
    case id
    case idStr = "id_str"
    case name
    case screenName = "screen_name"
    case location
    case description
    case url
    case entities
    case protected
    case followersCount = "followers_count"
    case friendsCount = "friends_count"
    case listedCount = "listed_count"
    case createdAt = "created_at"
    case favouritesCount = "favourites_count"
    case utcOffset = "utc_offset"
    case timeZone = "time_zone"
    case geoEnabled = "geo_enabled"
    case verified
    case statusesCount = "statuses_count"
    case lang
    case contributorsEnabled = "contributors_enabled"
    case isTranslator = "is_translator"
    case isTranslationEnabled = "is_translation_enabled"
    case profileBackgroundColor = "profile_background_color"
    case profileBackgroundImageUrl = "profile_background_image_url"
    case profileBackgroundImageUrlHttps = "profile_background_image_url_https"
    case profileBackgroundTile = "profile_background_tile"
    case profileImageUrl = "profile_image_url"
    case profileImageUrlHttps = "profile_image_url_https"
    case profileBannerUrl = "profile_banner_url"
    case profileLinkColor = "profile_link_color"
    case profileSidebarBorderColor = "profile_sidebar_border_color"
    case profileSidebarFillColor = "profile_sidebar_fill_color"
    case profileTextColor = "profile_text_color"
    case profileUseBackgroundImage = "profile_use_background_image"
    case defaultProfile = "default_profile"
    case defaultProfileImage = "default_profile_image"
    case following
    case followRequestSent = "follow_request_sent"
    case notifications
  }
}

struct TwitterEntities: Codable, Equatable {
  var description: TwitterDescription
  var url: TwitterDescription?

  enum CodingKeys: String, CodingKey {
    case description
    case url
  }
}

struct TwitterDescription: Codable, Equatable {
  var urls: [TwitterUrl]

  enum CodingKeys: String, CodingKey {
    case urls
  }
}

struct TwitterUrl: Codable, Equatable {
  var url: String
  var expandedUrl: String
  var displayUrl: String
  var indices: [Int]

  enum CodingKeys: String, CodingKey {
    case url
    case expandedUrl = "expanded_url"
    case displayUrl = "display_url"
    case indices
  }
}

struct TwitterMetadata: Codable, Equatable {
  var resultType: String
  var isoLanguageCode: String

  enum CodingKeys: String, CodingKey {
    case resultType = "result_type"
    case isoLanguageCode = "iso_language_code"
  }
}
