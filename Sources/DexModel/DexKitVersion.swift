/// The version of the DexKit SDK, in the one place the code and the release read it from.
///
/// It exists so that a host can report which SDK it runs (in a bug report, a log line or a
/// backend request header) without guessing from its lock file, and so that the release's tag,
/// `CHANGELOG.md` and the code cannot disagree: a release changes this value, its changelog
/// heading and its git tag together. DexKit follows semantic versioning: before 1.0.0 a minor
/// version may break source compatibility (each such change is listed under *Migrating* in the
/// changelog); a patch version never does.
public enum DexKitVersion {
  /// The major version: 0 until the public API is declared stable.
  public static let major = 0
  /// The minor version: new features, and before 1.0.0 also source-breaking changes.
  public static let minor = 1
  /// The patch version: fixes only, never a source-breaking change.
  public static let patch = 0

  /// The version as `major.minor.patch`, for example `"0.1.0"`.
  public static let current = "\(major).\(minor).\(patch)"
}
