import Foundation

extension ImageClassifier.Configuration {
  /// The configuration for one photo at a time, when the guess's latency is what a person
  /// waits on (a scanner UI, the `dex` command): each inference is spread over up to four of the
  /// machine's cores. On two cores this takes the local guess of a 12 MP camera photo from about
  /// 70 to about 55 ms (`Benchmarks/DexKit/run.sh`). Keep the default (one thread) when many
  /// photos are classified at once: throughput is better with one inference per core.
  public static var interactive: Self {
    Self(threads: min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)))
  }
}
