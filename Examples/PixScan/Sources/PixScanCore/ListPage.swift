/// One page of a listing (photos, the delete queue, texts), with the total it was cut from.
public struct ListPage<Item: Sendable & Codable>: Sendable, Codable {
  /// The items of this page.
  public var items: [Item]
  /// The index of the first item in the whole listing.
  public var offset: Int
  /// How many items the whole listing has.
  public var total: Int
  /// The bytes of the whole listing's photos (the space the delete queue would free).
  public var byteCount: Int64

  /// Creates a page.
  public init(items: [Item], offset: Int, total: Int, byteCount: Int64) {
    self.items = items
    self.offset = offset
    self.total = total
    self.byteCount = byteCount
  }
}

extension ListPage: Equatable where Item: Equatable {}
