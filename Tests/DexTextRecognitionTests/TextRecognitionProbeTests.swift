#if os(Linux) && Tesseract
  import DexImaging
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexTextRecognition

  /// The language-data probe as a process of its own (dex-traineddata-probe, spawned and
  /// exec'd): refused when missing, and never holding up the engines of other data while it runs.
  @Suite(.timeLimit(.minutes(5)), .offCooperativePool)
  struct TextRecognitionProbeTests {
    /// A fresh copy of the installed English data (a new file: no verdict of this process is
    /// kept for it yet), in a directory removed after `body`.
    static func withCopiedEnglish(_ body: (URL) async throws -> Void) async throws {
      try await TextRecognitionHostileInputTests.withDataDirectory { directory in
        let installed = try #require(TextRecognitionHostileInputTests.recognizer.dataDirectory)
        try FileManager.default.copyItem(
          at: URL(fileURLWithPath: installed).appendingPathComponent("eng.traineddata"),
          to: directory.appendingPathComponent("eng.traineddata"))
        try await body(directory)
      }
    }

    /// Writes `script` to a scratch file and installs it executable at `destination` through
    /// `/usr/bin/install`, a process of its own: this process never holds a writable descriptor
    /// of the executable, so a child it spawns meanwhile (other tests spawn workers) cannot
    /// inherit one and make the exec fail with "Text file busy".
    static func installExecutable(_ script: String, at destination: URL) throws {
      let source = destination.appendingPathExtension("source")
      try Data(script.utf8).write(to: source)
      let install = Process()
      install.executableURL = URL(fileURLWithPath: "/usr/bin/install")
      install.arguments = ["-m", "755", source.path, destination.path]
      try install.run()
      install.waitUntilExit()
      #expect(install.terminationStatus == 0)
    }

    @Test func theProbeIsFoundBesideTheExecutable() throws {
      let probe = try #require(TesseractTextRecognizer().probeExecutable)
      #expect(probe.hasSuffix("/dex-traineddata-probe"))
    }

    @Test func withoutTheProbeDataIsRefused() async throws {
      try await Self.withCopiedEnglish { directory in
        let recognizer = TesseractTextRecognizer(
          dataDirectory: directory.path,
          probeExecutable: directory.appendingPathComponent("none").path)
        let image = try TextRecognitionHostileInputTests.solid(width: 64, height: 64)
        await TextRecognitionHostileInputTests.expectFailure("engineUnavailable") {
          guard case .engineUnavailable(let detail) = $0 else { return false }
          return detail.contains("could not start")
        } _: {
          _ = try await recognizer.recognizeText(in: image)
        }
      }
    }

    /// The stall of issue 38: the probe used to run with the engines' lifecycle lock held, so
    /// that a probe that hung held up every engine creation in the process. A probe held at a
    /// gate the test opens must not keep another recognizer from starting and answering.
    @Test func aProbeThatWaitsHoldsUpNoOtherEngine() async throws {
      try await Self.withCopiedEnglish { directory in
        let gate = directory.appendingPathComponent("gate").path
        let started = directory.appendingPathComponent("started").path
        let probe = directory.appendingPathComponent("waiting-probe")
        try Self.installExecutable(
          """
          #!/bin/sh
          /usr/bin/touch '\(started)'
          while [ ! -e '\(gate)' ]; do /bin/sleep 0.05; done
          exit 1

          """, at: probe)
        let waiting = TesseractTextRecognizer(
          dataDirectory: directory.path, probeExecutable: probe.path)
        let image = try TextRecognitionHostileInputTests.solid(width: 64, height: 64)
        let held = Task {
          try await waiting.recognizeText(
            in: image, options: TextRecognitionOptions(timeout: .seconds(90)))
        }
        // Bounded: a probe that never starts (the call refused, or answered without it) is a
        // failure with the call's outcome, not a wait until the suite's time limit.
        let patience = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: started) {
          guard ContinuousClock.now < patience else {
            held.cancel()
            let outcome = await held.result
            Issue.record("the waiting probe never started; the held call ended with \(outcome)")
            return
          }
          try await Task.sleep(for: .milliseconds(20))
        }
        // Another recognizer's engine starts (its data probed by the real probe) and ends
        // while the first probe still waits at the gate.
        let other = TesseractTextRecognizer()
        let text = try await other.recognizeText(
          in: image, options: TextRecognitionOptions(timeout: .seconds(20)))
        #expect(text.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: gate))
        #expect(FileManager.default.createFile(atPath: gate, contents: Data()))
        await #expect(throws: TextRecognitionError.self) { try await held.value }
      }
    }
  }
#endif
