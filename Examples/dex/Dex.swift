import ArgumentParser

/// `dex`: scan photos into Dex entries and browse the collection from a terminal.
@main
struct Dex: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dex",
    abstract: "Turn photos into Dex entries and browse your collection.",
    discussion: """
      With no backend configured, dex works fully offline: the bundled on-device classifier \
      identifies the photo and an offline entry is saved. Configure a backend with \
      --backend/--bootstrap-key, DEX_CLOUD_BASE_URL/DEX_CLOUD_BOOTSTRAP_KEY, or a config file.
      """,
    subcommands: [
      ScanCommand.self, AskCommand.self, ListCommand.self, ShowCommand.self, DeleteCommand.self,
      ExportCommand.self, ImportCommand.self,
    ],
    defaultSubcommand: nil
  )
}
