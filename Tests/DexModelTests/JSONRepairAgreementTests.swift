import DexTestSupport
import DexTestTraits
import Foundation
import Testing

@testable import DexModel

/// Compares ``LenientJSONReader`` with json_repair (Python, the best-known peer) on the inputs of
/// json_repair's own test suite, with json_repair's answers computed now by the PyPI package
/// `json-repair` through `Scripts/json-repair-answers.py`.
///
/// A throw from the reader agrees with json_repair's `""`, its answer when it finds no JSON.
/// Every disagreement kept is listed with its reason in
/// `Fixtures/json-repair-disagreements.json`; an unlisted one fails, and so does a listed one
/// that now agrees, so the list stays honest.
@Suite("json_repair agreement", .offCooperativePool)
struct JSONRepairAgreementTests {
  struct Cases: Decodable {
    struct Case: Decodable { let test: String, input: String }
    let cases: [Case]
  }
  struct Answers: Decodable {
    let version: String
    /// `{"value": …}` or `{"error": "…"}` per case.
    let answers: [[String: JSONValue]]
  }
  struct Disagreements: Decodable {
    struct Disagreement: Decodable { let input: String, reason: String }
    let disagreements: [Disagreement]
  }

  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let fixtures = root.appendingPathComponent("Tests/DexModelTests/Fixtures")

  /// Runs the answers script (within five minutes, off the cooperative pool); records a clear
  /// failure when python3 or json_repair is missing.
  static func answers(for casesFile: URL) async throws -> Answers? {
    let run = try await ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      arguments: [
        "python3", root.appendingPathComponent("Scripts/json-repair-answers.py").path,
        casesFile.path,
      ])
    guard run.status == 0, !run.killedBySignal else {
      let cause =
        run.status == 127 && !run.killedBySignal
        ? "python3 was not found on PATH" : "Scripts/json-repair-answers.py failed"
      Issue.record(
        """
        \(cause) (status \(run.status)): this check needs python3 with the PyPI \
        package json-repair (`python3 -m pip install json-repair`). \
        \(String(decoding: run.standardError.suffix(4000), as: UTF8.self))
        """)
      return nil
    }
    return try JSONDecoder().decode(Answers.self, from: run.standardOutput)
  }

  @Test func readsAtLeastFourFifthsOfTheCasesAsJSONRepairDoes() async throws {
    let casesFile = Self.fixtures.appendingPathComponent("json-repair-cases.json")
    let cases = try JSONDecoder().decode(Cases.self, from: Data(contentsOf: casesFile)).cases
    let listed = try JSONDecoder().decode(
      Disagreements.self,
      from: Data(contentsOf: Self.fixtures.appendingPathComponent("json-repair-disagreements.json"))
    ).disagreements
    #expect(cases.count >= 169, "the fixture holds json_repair's single-document cases")
    #expect(listed.allSatisfy { !$0.reason.isEmpty }, "every kept disagreement says why")
    guard let answers = try await Self.answers(for: casesFile) else { return }
    try #require(answers.answers.count == cases.count)

    let reasons = Dictionary(listed.map { ($0.input, $0.reason) }, uniquingKeysWith: { $1 })
    let reader = LenientJSONReader()
    var agreed = 0
    for (testCase, answer) in zip(cases, answers.answers) {
      let ours = try? reader.value(from: testCase.input)
      let theirs = answer["value"]
      let agrees = ours == theirs || (ours == nil && theirs == .string(""))
      if agrees { agreed += 1 }
      let reason = reasons[testCase.input]
      #expect(
        agrees || reason != nil,
        """
        json_repair \(answers.version) and LenientJSONReader disagree on \
        \(testCase.test): \(String(reflecting: testCase.input)): json_repair \
        \(String(describing: theirs)), reader \(String(describing: ours)). Fix the reader or \
        list the case with its reason in json-repair-disagreements.json.
        """)
      #expect(
        !(agrees && reason != nil),
        "\(String(reflecting: testCase.input)) is listed as a disagreement but now agrees")
    }
    let inputs = Set(cases.map(\.input))
    for disagreement in listed {
      #expect(inputs.contains(disagreement.input), "listed but not a case: \(disagreement.input)")
    }
    #expect(
      agreed * 5 >= cases.count * 4,
      "only \(agreed) of \(cases.count) cases read as json_repair \(answers.version) reads them")
  }
}
