#if os(Linux)
  import DexImaging
  import Foundation

  /// Which decoder the command-line apps use: decoding in worker processes (DexImaging's
  /// `IsolatedImageDecoder`, with `dex-decode-worker` built beside the app), so that a hostile
  /// photo that reaches a decoder bug costs one worker; in process with
  /// `--in-process-decoding` or `DEX_DECODING=in-process`.
  public enum ImagingChoice {
    /// The environment variable that picks the decoder: `in-process`, or anything else for
    /// isolated decoding.
    public static let environmentVariable = "DEX_DECODING"

    /// The decoder for these settings: `inProcess` (a command-line flag) wins over the
    /// environment.
    public static func decoder(
      inProcess: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> any ImageDownscaling & ImageDecoding {
      if inProcess || environment[environmentVariable] == "in-process" {
        return ImageDownscaler()
      }
      return IsolatedImageDecoder()
    }
  }
#endif
