extension DexCategory {
  /// The name of a find known only by its category ("Unidentified plant", "Some kind of fish"),
  /// used by ``LocalGuess/offlineName``.
  public var unidentifiedName: String {
    switch self {
    case .plant: "Unidentified plant"
    case .animal: "Unidentified animal"
    case .fish: "Some kind of fish"
    case .bird: "Some kind of bird"
    case .insect: "Some kind of insect"
    case .reptile: "Some kind of reptile"
    case .mineral: "Unidentified mineral"
    case .fungus: "Some kind of fungus"
    case .food: "Some kind of food"
    case .pokemon: "Unidentified Pokémon"
    case .object: "Unidentified object"
    case .unknown: "Unidentified find"
    }
  }

  /// The lower-cased category with its indefinite article ("a plant", "an insect").
  var withArticle: String {
    switch self {
    case .plant: "a plant"
    case .animal: "an animal"
    case .fish: "a fish"
    case .bird: "a bird"
    case .insect: "an insect"
    case .reptile: "a reptile"
    case .mineral: "a mineral"
    case .fungus: "a fungus"
    case .food: "food"
    case .pokemon: "a Pokémon"
    case .object: "an object"
    case .unknown: "something"
    }
  }
}
