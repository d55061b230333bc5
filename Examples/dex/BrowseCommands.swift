import ArgumentParser
import DexKit
import DexTerminal
import Foundation

/// `dex list`: the collection, newest first.
struct ListCommand: StoreCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List entries, newest first.")

  @OptionGroup var options: GlobalOptions

  @Option(
    help:
      "Only this category (plant, animal, fish, bird, insect, reptile, mineral, fungus, food, pokemon, object, unknown).",
    transform: { text in
      guard let category = DexCategory(rawValue: text.lowercased()) else {
        throw ValidationError("Unknown category \"\(text)\".")
      }
      return category
    }
  )
  var category: DexCategory?

  @Option(
    help: "Only entries whose name, summary, facts or text read in the photo contain this text.")
  var search: String?

  @Option(help: "At most this many entries.")
  var limit = 50

  @Flag(help: "Print JSON.")
  var json = false

  func validate() throws {
    guard limit > 0 else { throw ValidationError("--limit must be positive.") }
  }

  func run(on store: DexStore) async throws {
    let page = try await store.page(DexQuery(category: category, text: search, limit: limit))
    let total = try await store.count(matching: DexQuery(category: category, text: search))
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      encoder.dateEncodingStrategy = .iso8601
      print(TerminalText.json(try encoder.encode(page.entries)))
      return
    }
    print("\(total) discover\(total == 1 ? "y" : "ies")")
    let formatter = ISO8601DateFormatter()
    for entry in page.entries {
      print(
        "\(TerminalText.safe(entry.id))  \(formatter.string(from: entry.dateDiscovered))  [\(entry.category.title)]  "
          + TerminalText.safe(entry.commonName)
      )
    }
  }
}

/// `dex show`: one entry as a card.
struct ShowCommand: StoreCommand {
  static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one entry.")

  @OptionGroup var options: GlobalOptions

  @OptionGroup var entry: EntryArgument

  func run(on store: DexStore) async throws {
    guard let found = try await store.entry(id: entry.id) else { throw entry.notFound }
    print(EntryCard(entry: found, isOffline: found.summary == ScanResult.offlineSummary).render())
  }
}

/// `dex delete`: removes an entry and its images.
struct DeleteCommand: StoreCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete", abstract: "Delete an entry and its images.")

  @OptionGroup var options: GlobalOptions

  @OptionGroup var entry: EntryArgument

  func run(on store: DexStore) async throws {
    guard try await store.delete(id: entry.id) else { throw entry.notFound }
    print("Deleted \(entry.id)")
  }
}

/// `dex export`: a backup archive, or a static HTML gallery with `--html`.
struct ExportCommand: StoreCommand {
  static let configuration = CommandConfiguration(
    commandName: "export", abstract: "Export a backup archive, or an HTML gallery with --html.")

  @OptionGroup var options: GlobalOptions

  @Option(help: "Write a static HTML gallery into this directory.")
  var html: String?

  @Argument(help: "The archive to write (without --html).")
  var archive: String?

  func validate() throws {
    if (html == nil) == (archive == nil) {
      throw ValidationError("Pass either --html <dir> or an archive path.")
    }
  }

  func run(on store: DexStore) async throws {
    if let html {
      let directory = URL(fileURLWithPath: html, isDirectory: true)
      let count = try await HTMLGallery(store: store).write(to: directory)
      print(
        "Wrote a gallery of \(count) entr\(count == 1 ? "y" : "ies") to \(directory.appendingPathComponent("index.html").path)"
      )
    } else if let archive {
      let manifest = try await store.exportArchive(to: URL(fileURLWithPath: archive))
      print("Exported \(manifest.items.count) entries to \(archive)")
    }
  }
}

/// `dex import`: merges a backup archive by id.
struct ImportCommand: StoreCommand {
  static let configuration = CommandConfiguration(
    commandName: "import", abstract: "Import a backup archive, merging by id.")

  @OptionGroup var options: GlobalOptions

  @Argument(help: "The archive to read.")
  var archive: String

  /// Checks the archive before the store is opened (or created).
  func run() async throws {
    guard FileManager.default.fileExists(atPath: archive) else {
      throw fail(DexCLIError.notFound("No archive at \(archive)."))
    }
    try await options.withStore(run(on:))
  }

  func run(on store: DexStore) async throws {
    let report = try await store.importArchive(from: URL(fileURLWithPath: archive))
    print(
      "Imported \(report.inserted), skipped \(report.skipped) already present"
        + (report.refused > 0 ? ", left out \(report.refused) that name nothing" : ""))
  }
}
