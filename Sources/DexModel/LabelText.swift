import Foundation

/// A label folded and split for keyword matching: alternatives (segments) of words, each word
/// kept raw and singularized.
struct LabelText {
  struct Word: Equatable {
    let raw: String
    let singular: String
  }

  let segments: [[Word]]

  init(_ label: String) {
    // ASCII needs no diacritic or width folding, and Foundation's folding is the slow part.
    let folded =
      label.utf8.allSatisfy { $0 < 0x80 }
      ? label.lowercased()
      : label.folding(
        options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil
      ).lowercased()
    var segments: [[Word]] = []
    var current: [Word] = []
    var word = ""
    func endWord() {
      if !word.isEmpty { current.append(Word(raw: word, singular: Self.singular(word))) }
      word = ""
    }
    func endSegment() {
      endWord()
      if !current.isEmpty { segments.append(current) }
      current = []
    }
    for scalar in folded.unicodeScalars {
      switch scalar {
      case "'", "’", "‘", "`", "´":
        continue  // "lady's" → "ladys"
      case ",", ";", "(", ")", "[", "]", "/", "|", ":", "\\", "{", "}":
        endSegment()
      default:
        let isWordCharacter =
          scalar.isASCII
          ? ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
            || ("A"..."Z").contains(scalar)
          : CharacterSet.alphanumerics.contains(scalar)
        if isWordCharacter {
          word.unicodeScalars.append(scalar)
        } else {
          endWord()
        }
      }
    }
    endSegment()
    self.segments = segments
  }

  /// Words for which the suffix rules below would be wrong.
  private static let irregular: [String: String] = [
    "fungi": "fungus", "cacti": "cactus", "mice": "mouse", "geese": "goose", "larvae": "larva",
    "algae": "alga", "octopi": "octopus", "teeth": "tooth", "feet": "foot", "people": "person",
    "oxen": "ox", "leaves": "leaf", "wolves": "wolf", "knives": "knife", "loaves": "loaf",
    "calves": "calf", "halves": "half", "shelves": "shelf", "species": "species",
    "series": "series", "shoes": "shoe", "canoes": "canoe", "toes": "toe", "hoes": "hoe",
    "lice": "louse", "dice": "dice", "children": "child", "men": "man", "women": "woman",
    "chips": "chips", "fries": "fries", "glasses": "glasses", "jeans": "jeans",
    "pants": "pants", "shorts": "shorts", "scissors": "scissors", "binoculars": "binoculars",
    "sunglasses": "sunglasses", "eyeglasses": "eyeglasses", "asparagus": "asparagus",
    "hummus": "hummus", "couscous": "couscous", "molasses": "molasses", "swiss": "swiss",
    "brussels": "brussels", "cookies": "cookie", "movies": "movie", "pies": "pie",
    "ties": "tie", "lies": "lie", "mangoes": "mango", "tomatoes": "tomato",
    "potatoes": "potato", "heroes": "hero", "buffaloes": "buffalo", "volcanoes": "volcano",
  ]

  /// A light English singularizer: good enough that a label and a keyword meet halfway.
  static func singular(_ word: String) -> String {
    if let known = irregular[word] { return known }
    guard word.count > 3, word.unicodeScalars.allSatisfy({ $0.isASCII }) else { return word }
    if word.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
    for suffix in ["sses", "shes", "ches", "xes", "zzes"] where word.hasSuffix(suffix) {
      return String(word.dropLast(2))
    }
    if word.hasSuffix("s"), !word.hasSuffix("ss"), !word.hasSuffix("us"), !word.hasSuffix("is") {
      return String(word.dropLast())
    }
    return word
  }
}
