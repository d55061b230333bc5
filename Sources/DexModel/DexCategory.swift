/// The stable vocabulary every part of DexKit speaks when it says *what kind of thing* was found.
///
/// Classifier labels and cloud replies are free-form text; ``DexCategory`` is the small, fixed set
/// they are mapped onto (see ``matching(_:using:)`` and ``matching(fromLabels:using:)``) so
/// that badges, filters, storage and prompts agree. The raw values are persisted and sent to models, so they
/// never change once released.
public enum DexCategory: String, CaseIterable, Codable, Sendable, Hashable {
  /// Plants, trees, flowers, succulents, mosses and ferns.
  case plant
  /// Mammals and any animal without a more specific category (amphibians, molluscs, crustaceans,
  /// jellyfish, starfish and other invertebrates that are not insects or arachnids).
  case animal
  /// Bony and cartilaginous fish, including sharks and rays.
  case fish
  /// Birds.
  case bird
  /// Insects, and by convention arachnids and other "creepy crawlies" (spiders, scorpions,
  /// ticks, centipedes) that a Pokédex-style collection files together with bugs.
  case insect
  /// Reptiles: snakes, lizards, turtles, crocodilians.
  case reptile
  /// Rocks, minerals, gems, crystals and fossils.
  case mineral
  /// Mushrooms, lichens, moulds and other fungi.
  case fungus
  /// Food and drink: dishes, fruit, vegetables, baked goods, beverages.
  case food
  /// Pokémon in any form: cards, plush, figures, artwork.
  case pokemon
  /// Man-made objects that are none of the above.
  case object
  /// Nothing could be determined.
  case unknown

  /// A human-readable, title-cased name for badges and headlines ("Looks like a Plant…").
  public var title: String { appearance.title }

  /// The SF Symbol a UI on Apple platforms would show for this category.
  ///
  /// Kept here as a plain string so that every front end (SwiftUI, a web gallery mapping it to
  /// its own icon set, a terminal) draws from the same table.
  public var symbolName: String { appearance.symbol }

  /// The accent colour used for this category's badges, independent of any UI framework.
  public var tint: DexColor { appearance.tint }

  /// One table for how every category is shown: its title, its symbol and its tint (red,
  /// green, blue).
  private var appearance: (title: String, symbol: String, tint: DexColor) {
    switch self {
    case .plant: ("Plant", "leaf.fill", DexColor(red: 52, green: 168, blue: 83))
    case .animal: ("Animal", "pawprint.fill", DexColor(red: 196, green: 122, blue: 58))
    case .fish: ("Fish", "fish.fill", DexColor(red: 30, green: 136, blue: 229))
    case .bird: ("Bird", "bird.fill", DexColor(red: 0, green: 172, blue: 193))
    case .insect: ("Insect", "ladybug.fill", DexColor(red: 124, green: 179, blue: 66))
    case .reptile: ("Reptile", "lizard.fill", DexColor(red: 46, green: 125, blue: 50))
    case .mineral: ("Mineral", "diamond.fill", DexColor(red: 126, green: 87, blue: 194))
    case .fungus: ("Fungus", "umbrella.fill", DexColor(red: 141, green: 110, blue: 99))
    case .food: ("Food", "fork.knife", DexColor(red: 244, green: 81, blue: 30))
    case .pokemon: ("Pokémon", "sparkles", DexColor(red: 229, green: 57, blue: 53))
    case .object: ("Object", "cube.fill", DexColor(red: 96, green: 125, blue: 139))
    case .unknown:
      ("Unknown", "questionmark.circle.fill", DexColor(red: 117, green: 117, blue: 117))
    }
  }
}

extension DexCategory: CustomStringConvertible {
  /// The category's ``title``, so that string interpolation reads naturally.
  public var description: String { title }
}
