/// The code that runs the offline classifier's network.
///
/// ``automatic`` is the right choice for nearly every host: oneDNN (Intel's deep-learning
/// kernels, the CPU engine under PyTorch's convolutions and OpenVINO, generating its code for
/// the processor at run time) in Linux builds of DexKit with the package trait `OneDNN`, which
/// is on by default and loads the system's libdnnl (Debian `libdnnl-dev`) at run time; the
/// portable Swift path elsewhere, or where libdnnl is missing. A host builds without oneDNN by turning the trait off (`traits: []` in its
/// package dependency, or `swift build --disable-default-traits`). A model that asked for
/// oneDNN and could not have it (not built in, no libdnnl, a graph it refuses) runs the portable path
/// instead and says why in its log; ``ClassifierModel/backend`` tells which one runs.
public enum ClassifierBackend: String, Sendable, Hashable, CaseIterable {
  /// oneDNN where it is built in, the portable path elsewhere.
  case automatic
  /// oneDNN, falling back to the portable path (logged) when it is unavailable or fails to load.
  case oneDNN
  /// The portable float Swift path, on every platform: plain and slow, the reference oneDNN is
  /// tested against.
  case portable
}
