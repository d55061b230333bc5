import ArgumentParser

/// The `<id>` argument of the commands that work on one stored entry (`show`, `delete`), and
/// the error they end with when the store has no such entry.
///
/// Why it exists: both commands name an entry the same way and must fail the same way (exit
/// code 66, one message), so they share one declaration.
struct EntryArgument: ParsableArguments {
  @Argument(help: "The entry's id.")
  var id: String

  /// The error for an id the store does not hold.
  var notFound: DexCLIError { .notFound("No entry with id \(id).") }
}
