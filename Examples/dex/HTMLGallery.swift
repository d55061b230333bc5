import DexKit
import DexTerminal
import Foundation

/// Writes the collection as a static, JavaScript-free HTML gallery: `index.html` with an
/// adaptive grid of thumbnails, category badges and a discovery count, and one page per entry
/// with the hero image, badge, rarity pill, confidence meter, summary and field notes.
///
/// The photos are the collection's own, so the gallery is written as the store is: folders
/// 0700 and files 0600 (share it by changing them), never through a symbolic link in place of
/// its `images` or `entries` folder, and without the pages and photos of entries deleted since
/// the last time.
struct HTMLGallery {
  let store: DexStore

  /// Writes the gallery and returns how many entries it holds.
  func write(to directory: URL) async throws -> Int {
    let fileManager = FileManager.default
    let images = directory.appendingPathComponent("images", isDirectory: true)
    let entriesDirectory = directory.appendingPathComponent("entries", isDirectory: true)
    for folder in [directory, images, entriesDirectory] {
      if folder != directory,
        (try? fileManager.destinationOfSymbolicLink(atPath: folder.path)) != nil
      {
        throw DexCLIError.unreadable(
          "\(folder.path) is a symbolic link; the gallery is not written through one")
      }
      try fileManager.createDirectory(
        at: folder, withIntermediateDirectories: true,
        attributes: [.posixPermissions: Self.folderMode])
    }
    var entries: [DexEntry] = []
    var cursor: DexCursor? = nil
    repeat {
      let page = try await store.page(DexQuery(limit: 200), after: cursor)
      entries += page.entries
      cursor = page.nextCursor
    } while cursor != nil

    var written = Set<String>()
    func save(_ data: Data, _ url: URL) throws {
      try data.write(to: url, options: .atomic)
      try fileManager.setAttributes([.posixPermissions: Self.fileMode], ofItemAtPath: url.path)
      written.insert(url.lastPathComponent)
    }
    for entry in entries {
      let safeID = Self.fileName(entry.id)
      let image = try await store.imageData(for: entry.id)
      try save(image, images.appendingPathComponent("\(safeID).jpg"))
      let thumbnail = try await store.thumbnailData(for: entry.id) ?? image
      try save(thumbnail, images.appendingPathComponent("\(safeID)-thumb.jpg"))
      try save(
        Data(entryPage(entry, id: safeID).utf8),
        entriesDirectory.appendingPathComponent("\(safeID).html"))
    }
    try save(Data(indexPage(entries).utf8), directory.appendingPathComponent("index.html"))
    try save(Data(Self.stylesheet.utf8), directory.appendingPathComponent("style.css"))
    // The photos and pages of entries deleted since the last export: only files named as an
    // export names them (an entry's id), never anything else someone keeps in those folders.
    for folder in [images, entriesDirectory] {
      for name in (try? fileManager.contentsOfDirectory(atPath: folder.path)) ?? []
      where !written.contains(name) && Self.isExportedName(name) {
        let path = folder.appendingPathComponent(name).path
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
        try? fileManager.removeItem(atPath: path)
      }
    }
    return entries.count
  }

  /// The gallery's folders and files: the owner's only, like the store it comes from.
  static let folderMode = 0o700
  static let fileMode = 0o600

  /// Whether `name` is one an export writes: `<id>.jpg`, `<id>-thumb.jpg` or `<id>.html` for
  /// an entry id (a UUID).
  static func isExportedName(_ name: String) -> Bool {
    for suffix in ["-thumb.jpg", ".jpg", ".html"] where name.hasSuffix(suffix) {
      let stem = String(name.dropLast(suffix.count))
      if let id = UUID(uuidString: stem), fileName(id.uuidString) == stem { return true }
    }
    return false
  }

  /// Ids are UUIDs; anything else is reduced to a safe file name.
  static func fileName(_ id: String) -> String {
    String(
      id.unicodeScalars.map {
        CharacterSet.alphanumerics.contains($0) || $0 == "-" ? Character($0) : "_"
      })
  }

  private func badge(_ category: DexCategory) -> String {
    "<span class=\"badge\" style=\"--tint: \(category.tint.cssHex)\">\(HTMLText.escape(category.title))</span>"
  }

  private func document(title: String, stylesheet: String, body: String) -> String {
    """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta http-equiv="Content-Security-Policy" content="script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'">
    <title>\(HTMLText.escape(title))</title>
    <link rel="stylesheet" href="\(stylesheet)">
    </head>
    <body>
    \(body)
    </body>
    </html>
    """
  }

  func indexPage(_ entries: [DexEntry]) -> String {
    let count = entries.count
    let cells = entries.map { entry -> String in
      let id = Self.fileName(entry.id)
      return """
        <li><a class="cell" href="entries/\(id).html" aria-label="\(HTMLText.escape(entry.commonName)), \(HTMLText.escape(entry.category.title)), \(HTMLText.escape(entry.dexRarity.rawValue))">
        <img src="images/\(id)-thumb.jpg" alt="Photo of \(HTMLText.escape(entry.commonName))" loading="lazy">
        <span class="name">\(HTMLText.escape(entry.commonName))</span>
        \(badge(entry.category))
        </a></li>
        """
    }.joined(separator: "\n")
    let empty =
      "<p class=\"empty\">Scan a plant, a fish, a rock — or even a Pokémon — to start your collection.</p>"
    let body = """
      <header><h1>Dex</h1><p class="count" aria-live="polite">\(count) discover\(count == 1 ? "y" : "ies")</p></header>
      <main>\(count == 0 ? empty : "<ul class=\"grid\" aria-label=\"Discoveries, newest first\">\n\(cells)\n</ul>")</main>
      """
    return document(title: "Dex — \(count) discoveries", stylesheet: "style.css", body: body)
  }

  func entryPage(_ entry: DexEntry, id: String) -> String {
    let percent = TerminalText.percent(entry.confidence)
    let facts = entry.facts.map { fact -> String in "<li>\(HTMLText.escape(fact))</li>" }
      .joined(separator: "\n")
    let date = ISO8601DateFormatter().string(from: entry.dateDiscovered)
    let body = """
      <nav><a href="../index.html">← All discoveries</a></nav>
      <main class="entry">
      <img class="hero" src="../images/\(id).jpg" alt="Photo of \(HTMLText.escape(entry.commonName))">
      <h1>\(HTMLText.escape(entry.commonName))</h1>
      \(entry.scientificName.isEmpty ? "" : "<p class=\"scientific\">\(HTMLText.escape(entry.scientificName))</p>")
      <p class="pills">\(badge(entry.category)) <span class="rarity rarity-\(entry.dexRarity.rawValue.lowercased())">\(HTMLText.escape(entry.dexRarity.rawValue))</span></p>
      <p class="confidence"><label for="confidence">Confidence</label>
      <meter id="confidence" min="0" max="100" value="\(percent)" aria-label="Confidence \(percent) percent">\(percent)%</meter> \(percent)%</p>
      <p class="summary">\(HTMLText.escape(entry.summary))</p>
      \(facts.isEmpty ? "" : "<section aria-labelledby=\"notes\"><h2 id=\"notes\">Field Notes</h2><ul class=\"facts\">\n\(facts)\n</ul></section>")
      \(entry.notes.isEmpty ? "" : "<section><h2>Your notes</h2><p>\(HTMLText.escape(entry.notes))</p></section>")
      \(entry.recognizedText.map { "<section><h2>Text in the photo</h2><pre class=\"text\">\(HTMLText.escape($0))</pre></section>" } ?? "")
      <p class="meta">Discovered <time datetime="\(date)">\(date)</time>\(entry.localGuessLabel.isEmpty ? "" : " · on-device guess: \(HTMLText.escape(entry.localGuessLabel))")</p>
      </main>
      """
    return document(title: entry.commonName, stylesheet: "../style.css", body: body)
  }

  static let stylesheet = """
    :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
    body { margin: 0 auto; max-width: 72rem; padding: 1rem; line-height: 1.45; }
    header { display: flex; align-items: baseline; justify-content: space-between; gap: 1rem; }
    h1 { margin: 0.2em 0; }
    .count { font-weight: 600; opacity: 0.8; }
    .grid { list-style: none; padding: 0; display: grid; gap: 0.9rem;
      grid-template-columns: repeat(auto-fill, minmax(9.5rem, 1fr)); }
    .cell { display: flex; flex-direction: column; gap: 0.35rem; text-decoration: none; color: inherit;
      border-radius: 0.9rem; padding: 0.5rem; background: color-mix(in srgb, CanvasText 6%, Canvas); }
    .cell img { width: 100%; aspect-ratio: 1; object-fit: cover; border-radius: 0.6rem; }
    .name { font-weight: 600; }
    .badge { align-self: flex-start; font-size: 0.8rem; font-weight: 700; color: white; background: var(--tint);
      border-radius: 999px; padding: 0.1rem 0.6rem; }
    .entry { max-width: 40rem; margin: 0 auto; }
    .hero { width: 100%; max-height: 60vh; object-fit: contain; border-radius: 1rem; }
    .scientific { font-style: italic; margin-top: 0; opacity: 0.8; }
    .rarity { font-size: 0.8rem; font-weight: 700; border-radius: 999px; padding: 0.1rem 0.6rem; border: 2px solid; }
    .rarity-common { color: #607d8b; } .rarity-uncommon { color: #2e7d32; }
    .rarity-rare { color: #1565c0; } .rarity-legendary { color: #b8860b; }
    meter { width: 12rem; height: 1rem; vertical-align: middle; }
    .facts li { margin: 0.3rem 0; }
    .meta, nav { font-size: 0.9rem; opacity: 0.8; }
    .empty { font-size: 1.2rem; opacity: 0.8; }
    """
}
