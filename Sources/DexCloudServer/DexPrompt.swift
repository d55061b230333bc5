import DexModel
import Foundation

/// The identification prompt: the single source of truth for what the cloud model is asked to
/// return.
///
/// It is the backend's template, kept on the backend's side of the wire contract: the backend
/// (`dex-proxy`) builds it from the category hint a client sends, and clients never send a
/// prompt (see DexCloud's ``/DexCloud/VisionRequest``), so no app ships it.
///
/// The category and rarity lists are generated from ``/DexModel/DexCategory`` and
/// ``/DexModel/DexRarity``, so adding a case updates the prompt. The parser
/// (``/DexModel/ScanResult/init(jsonString:)``) reads exactly the shape described here.
public enum DexPrompt {
  /// The prompt for identifying the main subject of a photo.
  ///
  /// - Parameter categoryHint: what the on-device pass thought (for example "Plant"), passed as
  ///   a *weak* hint the model may ignore. `nil` or blank omits the hint line.
  public static func identification(categoryHint: String?) -> String {
    let categories = DexCategory.allCases.map(\.rawValue).joined(separator: ", ")
    let rarities = DexRarity.allCases.map(\.rawValue).joined(separator: ", ")
    var lines: [String] = [
      "You are the identification engine for a Pokédex-style app.",
      "Identify the single main subject of the photo as specifically as you can "
        + "(species, variety, breed or model where possible).",
      "If the subject is a Pokémon (a card, figure, plush toy or artwork), use the Pokémon's "
        + "name as commonName, category \"pokemon\", and its type(s) as scientificName "
        + "(for example \"Electric\" or \"Grass / Poison\").",
    ]
    if let hint = sanitizedHint(categoryHint) {
      lines.append(
        "An on-device classifier guessed the category \"\(hint)\". Treat this only as a weak "
          + "hint: trust what you see in the photo over it.")
    }
    lines.append("")
    lines.append(
      "Respond with ONLY a JSON object — no markdown, no commentary — exactly matching:")
    lines.append(
      """
      {
        "commonName": "string, the everyday name, e.g. Monstera Deliciosa / Clownfish / Pikachu",
        "category": "one of: \(categories)",
        "scientificName": "latin/binomial name, or Pokémon type(s), or empty string if unknown",
        "summary": "one or two engaging sentences describing it",
        "facts": ["3 to 5 short, fun, Pokédex-style facts"],
        "rarity": "one of: \(rarities)",
        "confidence": 0.0
      }
      """)
    lines.append(
      "confidence is a number from 0.0 to 1.0. If you cannot identify anything, set commonName "
        + "to \"Unknown\", category to \"unknown\" and leave summary empty.")
    return lines.joined(separator: "\n")
  }

  /// The prompt with a category hint taken from an on-device guess.
  public static func identification(hint: DexCategory?) -> String {
    identification(categoryHint: hint.flatMap { $0 == .unknown ? nil : $0.title })
  }

  /// A hint is a short label; anything else (newlines, quotes, a paragraph) is cut so that a
  /// hint can never rewrite the instructions around it.
  static func sanitizedHint(_ hint: String?) -> String? {
    guard let hint else { return nil }
    let cleaned = hint.unicodeScalars
      .map {
        CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" ? Character($0) : " "
      }
      .reduce(into: "") { $0.append($1) }
      .split(separator: " ", omittingEmptySubsequences: true)
      .joined(separator: " ")
    guard !cleaned.isEmpty else { return nil }
    return String(cleaned.prefix(40))
  }
}
