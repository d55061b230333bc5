import DexImaging
import Foundation
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One folder's triage: the photos in order, what was decided, the delete queue, recognised
/// text, and the thumbnails, behind one actor that the HTTP routes (and the tests) call.
///
/// It exists so that every rule of the app is in one testable place: a decision is stored
/// before it is answered, a photo already decided (same path, size and modification time) is
/// never offered again, only the delete queue's own photos go to the trash, and every path is
/// checked by ``FolderSandbox`` first.
public actor TriageSession {
  /// The folder being triaged.
  public nonisolated let sandbox: FolderSandbox
  /// The bounds applied to files and requests.
  public nonisolated let limits: PixScanLimits
  /// Where trashed photos go.
  public nonisolated let trash: FreedesktopTrash
  let store: PixScanStore
  let imaging: any ImageDownscaling & ImageDecoding
  let recognizer: any TextRecognizing
  let thumbnails: ThumbnailCache
  /// Recognitions waiting beyond ``PixScanLimits/maximumConcurrentRecognitions`` queue here.
  let recognitionLimiter: ConcurrencyLimiter
  let logger: Logger

  private var photos: [Photo]
  private var positions: [String: Int]
  private var isTruncated: Bool
  private var decisions: [String: DecisionRecord]
  private var texts: [String: TextEntry]
  private var recognitions: [String: Task<Void, Never>] = [:]
  private var recognitionNote: String?
  /// Called in ``emptyQueue()`` between a photo's checks and its move (tests swap a folder
  /// there, to show that the move follows no link).
  private var beforeMove: (@Sendable (_ path: String) async -> Void)?
  private var canUndo: Bool
  /// A test hook: called when emptying the queue is about to wait for pending recognitions.
  private var beforeWaitingForRecognitions: (@Sendable () async -> Void)?
  /// Mutations (decisions, undos, the queue's actions, rescans) run one at a time, in the order
  /// they reached the actor.
  private let mutations = ConcurrencyLimiter(width: 1)

  /// Opens `folder`: lists its photos and restores the decisions and texts stored in its
  /// `.pixscan/pixscan.sqlite`.
  ///
  /// - Parameters:
  ///   - imaging: the decoder and downscaler (DexImaging's ``ImageDownscaler`` on Linux).
  ///   - recognizer: reads text for the up and down swipes; ``UnavailableTextRecognizer``
  ///     when there is no OCR engine.
  ///   - trash: where emptying the queue moves photos (the user's home trash by default).
  /// - Throws: ``PixScanError``.
  public init(
    folder: String, limits: PixScanLimits = PixScanLimits(),
    imaging: any ImageDownscaling & ImageDecoding, recognizer: any TextRecognizing,
    trash: FreedesktopTrash, logger: Logger = Logger(label: "dexkit.pixscan")
  ) async throws(PixScanError) {
    let sandbox = try FolderSandbox(folder: folder)
    // The walk blocks on the disk: on NIO's I/O threads, not Swift's cooperative ones.
    let listing = try await FileReading.offPool { () throws(PixScanError) in
      try PhotoFolder(sandbox: sandbox, limits: limits)
    }
    let store = try PixScanStore(directory: try sandbox.checkedStateDirectory())
    try await Self.settleUnfinishedMoves(
      store: store, sandbox: sandbox, trash: trash, logger: logger)
    let decisions = try await store.decisions()
    self.sandbox = sandbox
    self.limits = limits
    self.trash = trash
    self.store = store
    self.imaging = imaging
    self.recognizer = recognizer
    self.thumbnails = ThumbnailCache(
      maximumByteCount: limits.thumbnailCacheByteCount,
      maximumConcurrentDecodes: limits.maximumConcurrentDecodes)
    self.recognitionLimiter = ConcurrencyLimiter(width: limits.maximumConcurrentRecognitions)
    self.logger = logger
    (self.photos, self.positions) = Self.photos(listed: listing.photos, decisions: decisions)
    self.isTruncated = listing.isTruncated
    self.decisions = decisions
    self.texts = try await store.texts()
    self.canUndo = !(try await store.isHistoryEmpty())
    logger.info(
      "PixScan opened the folder",
      metadata: [
        "folder": "\(sandbox.root)", "photos": "\(listing.photos.count)",
        "decided": "\(decisions.count)", "truncated": "\(listing.isTruncated)",
      ])
  }

  /// Every photo the session shows, in path order, and each path's position: the listed ones,
  /// and those already moved to the trash (they stay in the counts: they were processed).
  private static func photos(
    listed: [Photo], decisions: [String: DecisionRecord]
  ) -> ([Photo], [String: Int]) {
    let paths = Set(listed.map(\.path))
    let trashed = decisions.values.filter { $0.decision == .trashed && !paths.contains($0.path) }
    let all = (listed + trashed.map(\.photo)).sorted { $0.path < $1.path }
    let positions = Dictionary(
      all.enumerated().map { ($1.path, $0) }, uniquingKeysWith: { first, _ in first })
    return (all, positions)
  }

  /// Lists the folder again: photos copied in since it was opened appear, removed ones go, and a
  /// changed file is a new photo (decisions and texts are kept by path, size and time, as when
  /// reopening). Runs as a mutation, one at a time with the others.
  ///
  /// - Throws: ``PixScanError/folderUnreadable(path:message:)`` and the listing's other errors;
  ///   the session is unchanged when it throws.
  public func rescan() async throws(PixScanError) {
    try await serialized { () async throws(PixScanError) in
      let (sandbox, limits) = (self.sandbox, self.limits)
      let listing = try await FileReading.offPool { () throws(PixScanError) in
        try PhotoFolder(sandbox: sandbox, limits: limits)
      }
      (photos, positions) = Self.photos(listed: listing.photos, decisions: decisions)
      isTruncated = listing.isTruncated
      logger.info(
        "PixScan listed the folder again",
        metadata: ["photos": "\(listing.photos.count)", "truncated": "\(listing.isTruncated)"])
    }
  }

  // MARK: Reading

  /// The counters for `filter`.
  public func progress(filter: PhotoFilter = .all) -> TriageProgress {
    var kept = 0
    var queued = 0
    var trashed = 0
    var total = 0
    for photo in photos where filter.includes(photo) {
      total += 1
      switch decision(for: photo) {
      case .keep: kept += 1
      case .queue: queued += 1
      case .trashed: trashed += 1
      case nil: break
      }
    }
    let queue = queuedPhotos()
    return TriageProgress(
      filter: filter, total: total, processed: kept + queued + trashed, kept: kept,
      queued: queued, trashed: trashed,
      recognized: texts.values.count { entry in
        positions[entry.path].map { entry.matches(photos[$0]) } ?? false
      },
      recognizing: recognitions.count, queueByteCount: queue.reduce(0) { $0 + $1.byteCount },
      queueCount: queue.count, isTruncated: isTruncated, recognitionNote: recognitionNote,
      canUndo: canUndo)
  }

  /// The next `count` undecided photos for `filter`, in path order: the card first, then the
  /// ones the page prefetches.
  public func upcoming(filter: PhotoFilter = .all, count: Int) -> [Photo] {
    let wanted = min(max(count, 0), limits.maximumPageSize)
    var result: [Photo] = []
    for photo in photos where filter.includes(photo) && decision(for: photo) == nil {
      guard result.count < wanted else { break }
      result.append(photo)
    }
    return result
  }

  /// One page of every listed photo for `filter`, with its decision.
  ///
  /// - Throws: ``PixScanError/badRequest(_:)`` for a negative offset or a limit outside
  ///   `1...maximumPageSize`.
  public func photoPage(
    filter: PhotoFilter = .all, offset: Int, limit: Int
  ) throws(PixScanError)
    -> ListPage<PhotoStatus>
  {
    try checkPaging(offset: offset, limit: limit)
    let matching = photos.filter(filter.includes)
    let items = matching.dropFirst(offset).prefix(limit).map(status)
    return ListPage(
      items: Array(items), offset: offset, total: matching.count,
      byteCount: matching.reduce(0) { $0 + $1.byteCount })
  }

  /// One page of the delete queue, most recently queued first, and the bytes it would free.
  public func queuePage(offset: Int, limit: Int) throws(PixScanError) -> ListPage<PhotoStatus> {
    try checkPaging(offset: offset, limit: limit)
    let queue = queuedPhotos()
    return ListPage(
      items: queue.dropFirst(offset).prefix(limit).map(status), offset: offset,
      total: queue.count, byteCount: queue.reduce(0) { $0 + $1.byteCount })
  }

  /// The recognised texts whose text or path contains `query` (case-insensitive; all when
  /// empty), in path order, one page at a time.
  public func textPage(
    query: String, offset: Int, limit: Int
  ) throws(PixScanError)
    -> ListPage<TextEntry>
  {
    try checkPaging(offset: offset, limit: limit)
    let matching = currentTexts().filter { entry in
      query.isEmpty || entry.text.localizedCaseInsensitiveContains(query)
        || entry.path.localizedCaseInsensitiveContains(query)
    }
    return ListPage(
      items: Array(matching.dropFirst(offset).prefix(limit)), offset: offset,
      total: matching.count, byteCount: 0)
  }

  /// Every recognised text as one plain-text document: a `== path ==` heading per photo, then
  /// its text; what the page saves as `.txt`.
  public func exportedText() -> String {
    currentTexts().map { "== \($0.path) ==\n\($0.text)\n" }.joined(separator: "\n")
  }

  /// The photo at `path` downscaled to `size` as a JPEG, from the cache when it is there.
  ///
  /// - Throws: ``PixScanError``.
  public func thumbnail(path: String, size: ThumbnailSize) async throws(PixScanError) -> Data {
    let photo = try currentPhoto(path)
    let options = DownscaleOptions(
      maximumDimension: size.maximumDimension, quality: 0.8,
      decoding: DecodingOptions(limits: limits.decoding))
    let (imaging, sandbox) = (self.imaging, self.sandbox)
    let (maxBytes, maxPathBytes) = (limits.maximumPhotoByteCount, limits.maximumPathByteCount)
    do {
      return try await thumbnails.image(
        for: ThumbnailCache.Key(path: path, version: photo.version, size: size)
      ) { () async throws(PixScanError) -> Data in
        // Opened beneath the folder, no link followed at any component: the file (or a folder
        // on its path) may have been swapped since `currentPhoto` looked.
        let data = try await FileReading.read(
          sandbox, path: path, maximumByteCount: maxBytes, maximumPathByteCount: maxPathBytes)
        do {
          return try await imaging.downscale(data, options: options).jpegData
        } catch let error as ImagingError {
          throw .imaging(path: path, error)
        } catch {
          throw .cancelled
        }
      }
    } catch let error as PixScanError {
      throw error
    } catch {
      throw .cancelled
    }
  }

  /// The photo at `path` as the delete queue's preview describes it: its size and time, its
  /// upright pixel dimensions and its EXIF date (decoded at the small size, within the decoding
  /// limits).
  ///
  /// - Throws: ``PixScanError``.
  public func photoInfo(path: String) async throws(PixScanError) -> PhotoInfo {
    let photo = try currentPhoto(path)
    let options = DownscaleOptions(
      maximumDimension: ThumbnailSize.small.maximumDimension, quality: 0.5,
      decoding: DecodingOptions(limits: limits.decoding))
    // The read and the decode take their turn with the thumbnails' (at most two at once), so
    // that quick clicks through the queue's previews cannot start one 100 MiB read and decode
    // each at the same time.
    return try await thumbnails.decodes.run { () async throws(PixScanError) -> PhotoInfo in
      // Opened beneath the folder, no link followed at any component (as thumbnails are).
      let data = try await FileReading.read(
        sandbox, path: path, maximumByteCount: limits.maximumPhotoByteCount,
        maximumPathByteCount: limits.maximumPathByteCount)
      do {
        let image = try await imaging.downscale(data, options: options)
        let swapped = image.appliedOrientation.swapsDimensions
        return PhotoInfo(
          photo: photo,
          pixelWidth: swapped ? image.sourcePixelHeight : image.sourcePixelWidth,
          pixelHeight: swapped ? image.sourcePixelWidth : image.sourcePixelHeight,
          format: image.sourceFormat.rawValue, exifDate: image.exifDate)
      } catch let error as ImagingError {
        throw .imaging(path: path, error)
      } catch {
        throw .cancelled
      }
    }
  }

  /// The thumbnail cache's hit and miss counts.
  public func thumbnailStatistics() async -> ThumbnailCache.Statistics {
    await thumbnails.statistics
  }

  // MARK: Deciding

  /// Records `action` for the photo at `path` (one undoable step) and, for the up and down
  /// swipes, starts recognising its text in the background.
  ///
  /// - Throws: ``PixScanError``; nothing is stored when it throws.
  public func decide(path: String, action: TriageAction) async throws(PixScanError) {
    try await serialized { () async throws(PixScanError) in
      let photo = try currentPhoto(path)
      guard decision(for: photo) != .trashed else {
        throw .badRequest("“\(path)” is already in the trash")
      }
      try await apply(
        [PixScanStore.Change(photo: photo, previous: decision(for: photo), next: action.decision)])
      if action.recognizesText { startRecognition(photo) }
    }
  }

  /// Recognises the text of the photo at `path` again (or for the first time), in the
  /// background.
  ///
  /// Started in turn with the other changes (decisions, emptying the queue, starting over), so
  /// that no recognition starts while a photo is moved to the trash or while the folder starts
  /// over, and none stores a text for a photo already in the trash.
  ///
  /// - Throws: ``PixScanError/notFound(_:)``, or ``PixScanError/badRequest(_:)`` for a photo in
  ///   the trash.
  public func recognize(path: String) async throws(PixScanError) {
    try await serialized { () async throws(PixScanError) in
      let photo = try currentPhoto(path)
      guard decision(for: photo) != .trashed else {
        throw .badRequest("“\(path)” is in the trash")
      }
      startRecognition(photo)
    }
  }

  /// Puts one queued photo back among the undecided ones (the queue's per-photo undo).
  public func unqueue(path: String) async throws(PixScanError) {
    try await serialized { () async throws(PixScanError) in
      let photo = try currentPhoto(path)
      guard decision(for: photo) == .queue else {
        throw .badRequest("“\(path)” is not in the delete queue")
      }
      try await apply([PixScanStore.Change(photo: photo, previous: .queue, next: nil)])
    }
  }

  /// Keeps every queued photo after all (one undoable step). Returns how many.
  @discardableResult
  public func restoreAll() async throws(PixScanError) -> Int {
    try await serialized { () async throws(PixScanError) in
      let changes = queuedPhotos().map {
        PixScanStore.Change(photo: $0, previous: .queue, next: .keep)
      }
      try await apply(changes)
      return changes.count
    }
  }

  /// Reverts the last undoable step (a swipe, a per-photo undo or "restore all"). Returns the
  /// paths it changed, empty when there was nothing to undo.
  @discardableResult
  public func undoLast() async throws(PixScanError) -> [String] {
    try await serialized { () async throws(PixScanError) in
      let (reverted, stored) = try await store.undoLastBatch()
      remember(reverted, stored: stored)
      canUndo = !(try await store.isHistoryEmpty())
      return reverted.map(\.photo.path)
    }
  }

  /// Moves every queued photo (or only those whose path is in `paths`) to the freedesktop trash.
  /// A photo that cannot be moved (changed since it was queued, on another filesystem, gone)
  /// stays in the queue and is reported. Text recognition still pending for a chosen photo (a
  /// down swipe) finishes first: its text is never lost to the move.
  public func emptyQueue(paths: Set<String>? = nil) async throws(PixScanError) -> TrashReport {
    try await serialized { () async throws(PixScanError) in try await emptyQueueNow(paths: paths) }
  }

  private func emptyQueueNow(paths: Set<String>?) async throws(PixScanError) -> TrashReport {
    var moved: [Photo] = []
    var failures: [TrashReport.Failure] = []
    let chosen = queuedPhotos().filter { paths?.contains($0.path) ?? true }
    await finishRecognitions(of: chosen.map(\.path))
    for photo in chosen {
      do throws(PixScanError) {
        let current = try currentPhoto(photo.path)
        guard current.version == photo.version, decision(for: current) == .queue else {
          throw .badRequest("“\(photo.path)” changed after it was queued; triage it again")
        }
        let absolute = sandbox.root + "/" + photo.path
        // The name is stored before the rename: a crash in between is settled on reopening.
        let name = try trash.reserve(absolute, displayPath: photo.path)
        do throws(PixScanError) {
          try await store.markTrashing(path: photo.path, trashName: name)
        } catch {
          trash.release(name)
          throw error
        }
        await beforeMove?(photo.path)
        do throws(PixScanError) {
          // Renamed relative to its directory, opened beneath the folder only now, without
          // following a link: a folder on the path swapped since the check is refused, not
          // followed.
          let (directory, file) = try sandbox.openParent(
            photo.path, maximumByteCount: limits.maximumPathByteCount)
          defer { close(directory) }
          try trash.move(file, in: directory, to: name, displayPath: photo.path)
        } catch {
          try? await store.clearTrashing(path: photo.path)
          throw error
        }
        moved.append(photo)
      } catch {
        failures.append(
          .init(path: photo.path, code: error.code, message: error.errorDescription ?? ""))
      }
    }
    try await apply(
      moved.map { PixScanStore.Change(photo: $0, previous: .queue, next: .trashed) },
      undoable: false, forgetting: moved.map(\.path))
    canUndo = !(try await store.isHistoryEmpty())
    logger.info(
      "Moved the delete queue to the trash",
      metadata: ["moved": "\(moved.count)", "failed": "\(failures.count)"])
    return TrashReport(
      moved: moved.map(\.path), movedByteCount: moved.reduce(0) { $0 + $1.byteCount },
      failures: failures)
  }

  /// Settles the moves to the trash a crash interrupted: a photo gone from the folder and present
  /// in the trash under its recorded name is trashed; one still in the folder stays queued (its
  /// reserved `.trashinfo` is removed when nothing took the name).
  static func settleUnfinishedMoves(
    store: PixScanStore, sandbox: FolderSandbox, trash: FreedesktopTrash, logger: Logger
  ) async throws(PixScanError) {
    let pending = try await store.pendingTrashing()
    guard !pending.isEmpty else { return }
    var moved: [String] = []
    var notMoved: [String] = []
    for (path, name) in pending {
      var info = stat()
      let inFolder = sandbox.status(of: path) != nil
      let isTrashName = FreedesktopTrash.isTrashName(name)
      let inTrash = isTrashName && lstat(trash.filesDirectory + "/" + name, &info) == 0
      if !inFolder && inTrash {
        moved.append(path)
      } else {
        notMoved.append(path)
        if !inTrash && isTrashName { trash.release(name) }
      }
    }
    try await store.settleTrashing(moved: moved, notMoved: notMoved)
    logger.notice(
      "Settled moves to the trash a stop interrupted",
      metadata: ["trashed": "\(moved.count)", "stayQueued": "\(notMoved.count)"])
  }

  /// Waits until the recognitions pending for `paths` have finished (each reads its file, which
  /// must still be in the folder).
  private func finishRecognitions(of paths: [String]) async {
    let pending = paths.compactMap { recognitions[$0] }
    guard !pending.isEmpty else { return }
    await beforeWaitingForRecognitions?()
    for task in pending { await task.value }
  }

  /// Sets the test hook called when emptying the queue starts waiting for recognitions.
  func setBeforeWaitingForRecognitions(_ hook: (@Sendable () async -> Void)?) {
    beforeWaitingForRecognitions = hook
  }

  /// Starts the folder's triage over: every decision (but those of photos already in the
  /// trash, which stays untouched), text and undo step is forgotten, and the tutorial is shown
  /// again. Pending recognitions finish first, so that none stores a text afterwards.
  public func startOver() async throws(PixScanError) {
    try await serialized { () async throws(PixScanError) in
      await waitForRecognitions()
      decisions = try await store.startOver()
      texts = [:]
      recognitionNote = nil
      canUndo = false
      logger.info("PixScan started the folder over", metadata: ["kept": "\(decisions.count)"])
    }
  }

  /// Whether this folder's tutorial was performed or skipped (stored in its `.pixscan`).
  public func isTutorialSeen() async throws(PixScanError) -> Bool {
    try await store.isTutorialSeen()
  }

  /// Records that this folder's tutorial was performed or skipped.
  public func markTutorialSeen() async throws(PixScanError) {
    try await store.markTutorialSeen()
  }

  /// Waits until every text recognition started so far has finished.
  public func waitForRecognitions() async {
    while let task = recognitions.values.first {
      await task.value
    }
  }

  // MARK: Internals

  /// Sets the hook ``emptyQueue()`` calls between a photo's checks and its move.
  func setBeforeMove(_ hook: (@Sendable (_ path: String) async -> Void)?) {
    beforeMove = hook
  }

  /// Runs `work` when no other mutation runs: one at a time, in arrival order, across its
  /// suspension points (the actor alone would interleave them at each `await`).
  private func serialized<T: Sendable>(
    _ work: () async throws(PixScanError) -> T
  ) async throws(PixScanError) -> T {
    try await mutations.run(work)
  }

  private func apply(
    _ changes: [PixScanStore.Change], undoable: Bool = true, forgetting: [String] = []
  ) async throws(PixScanError) {
    guard !changes.isEmpty else { return }
    let stored = try await store.apply(changes, undoable: undoable, forgetting: forgetting)
    remember(changes, stored: stored)
    if undoable { canUndo = true }
  }

  /// Updates the in-memory decisions after `changes` were stored as `stored`.
  private func remember(_ changes: [PixScanStore.Change], stored: [DecisionRecord]) {
    for change in changes where change.next == nil {
      decisions[change.photo.path] = nil
    }
    for record in stored { decisions[record.path] = record }
    // A photo no longer listed comes back only as trashed (it stays counted): an undo after a
    // rescan dropped its file must not bring back a card nothing can be done with.
    for change in changes where positions[change.photo.path] == nil && change.next == .trashed {
      positions[change.photo.path] = photos.count
      photos.append(change.photo)
    }
  }

  private func decision(for photo: Photo) -> Decision? {
    guard let record = decisions[photo.path], record.matches(photo) else { return nil }
    return record.decision
  }

  private func status(_ photo: Photo) -> PhotoStatus {
    PhotoStatus(
      photo: photo, decision: decision(for: photo),
      hasText: texts[photo.path]?.matches(photo) ?? false)
  }

  private func queuedPhotos() -> [Photo] {
    decisions.values.filter { record in
      record.decision == .queue
        && positions[record.path].map { photos[$0].version == record.photo.version } ?? false
    }
    .sorted { $0.sequence > $1.sequence }
    .map(\.photo)
  }

  private func currentTexts() -> [TextEntry] {
    texts.values.filter { entry in positions[entry.path].map { entry.matches(photos[$0]) } ?? false
    }
    .sorted { $0.path < $1.path }
  }

  /// The listed photo at `path` as the file is now: checked by the sandbox, re-read from disk
  /// (a replaced file is a new photo), the listed values when it is in the trash.
  private func currentPhoto(_ path: String) throws(PixScanError) -> Photo {
    try sandbox.validate(path, maximumByteCount: limits.maximumPathByteCount)
    guard let position = positions[path] else { throw .notFound(path) }
    let listed = photos[position]
    if decisions[path]?.decision == .trashed, decisions[path]?.matches(listed) == true {
      return listed
    }
    guard
      let now = PhotoFolder.fileKey(
        sandbox, path: path, isScreenshot: listed.isScreenshot,
        maximumPathByteCount: limits.maximumPathByteCount)
    else { throw .notFound(path) }
    if now != listed { photos[position] = now }
    return now
  }

  private func checkPaging(offset: Int, limit: Int) throws(PixScanError) {
    guard offset >= 0 else { throw .badRequest("offset must not be negative") }
    guard (1...limits.maximumPageSize).contains(limit) else {
      throw .badRequest("limit must be within 1...\(limits.maximumPageSize)")
    }
  }

  private func startRecognition(_ photo: Photo) {
    guard recognitions[photo.path] == nil else { return }
    recognitions[photo.path] = Task { await self.recognizeNow(photo) }
  }

  private func recognizeNow(_ photo: Photo) async {
    defer { recognitions[photo.path] = nil }
    do {
      let entry = try await recognitionLimiter.run { () async throws(PixScanError) in
        try await self.readText(photo)
      }
      try await store.save(entry)
      texts[photo.path] = entry
      recognitionNote = nil
    } catch {
      let message = error.errorDescription ?? error.code
      recognitionNote = message
      logger.warning(
        "Text recognition failed", metadata: ["path": "\(photo.path)", "error": "\(message)"])
    }
  }

  /// Reads, decodes and recognises the text of `photo` (off the actor: it only reads).
  private nonisolated func readText(_ photo: Photo) async throws(PixScanError) -> TextEntry {
    do {
      let data = try await FileReading.read(
        sandbox, path: photo.path, maximumByteCount: limits.maximumPhotoByteCount,
        maximumPathByteCount: limits.maximumPathByteCount)
      let pixels = try await imaging.decodePixels(
        from: data, target: .fitting(maximumDimension: limits.maximumRecognitionDimension),
        options: DecodingOptions(limits: limits.decoding))
      let text = try await recognizer.recognizeText(in: pixels)
      let entry = TextEntry(
        path: photo.path, byteCount: photo.byteCount,
        modifiedMilliseconds: photo.modifiedMilliseconds, text: text.string,
        lineCount: text.lines.count, recognizedAt: Date().timeIntervalSince1970)
      return entry
    } catch let error as PixScanError {
      throw error
    } catch {
      let message = (error as? LocalizedError)?.errorDescription ?? "\(error)"
      throw .textRecognition(path: photo.path, message: message)
    }
  }
}
