import DexProxy
import Foundation
import Testing

/// Reading `DEX_PROXY_POSTGRES_URL`: the parts, the defaults, and a password that never shows.
@Suite struct PostgresStoreConfigurationTests {
  private let valid = minimalEnvironment

  @Test func unsetKeepsTheInMemoryCache() throws {
    #expect(try ProxyConfiguration.fromEnvironment(valid).postgres == nil)
    var blank = valid
    blank["DEX_PROXY_POSTGRES_URL"] = "  "
    #expect(try ProxyConfiguration.fromEnvironment(blank).postgres == nil)
  }

  @Test func readsEveryPart() throws {
    var environment = valid
    environment["DEX_PROXY_POSTGRES_URL"] =
      "postgres://dex%40proxy:s3cr%2Ft-pw@db.internal:6432/dexkit?sslmode=require"
    let store = try #require(try ProxyConfiguration.fromEnvironment(environment).postgres)
    #expect(store.host == "db.internal")
    #expect(store.port == 6432)
    #expect(store.username == "dex@proxy")
    #expect(store.password == "s3cr/t-pw")
    #expect(store.database == "dexkit")
    #expect(store.tls == .require)
    #expect(store.maximumConnections == 10)
    #expect(store.operationTimeout == .seconds(2))
  }

  @Test func defaultsThePortAndTLS() throws {
    let store = try PostgresStoreConfiguration(url: "postgresql://dex@localhost/db")
    #expect(store.port == 5432)
    #expect(store.tls == .disable)
    #expect(store.password == nil)
    #expect(store.description == "postgres://dex@localhost:5432/db")
  }

  @Test func neverShowsThePassword() throws {
    let store = try PostgresStoreConfiguration(url: "postgres://dex:hunter2-secret@h:5/db")
    #expect(store.description == "postgres://dex:***@h:5/db")
    #expect(!"\(store)".contains("hunter2"))
  }

  @Test(arguments: [
    "mysql://dex:hunter2-secret@h/db", "postgres://dex:hunter2-secret@h", "postgres://h/db",
    "postgres://dex:hunter2-secret@h/db?sslmode=verify", "postgres://dex:hunter2-secret@h/a/b",
  ])
  func refusesMalformedURLsWithoutRepeatingThem(_ url: String) {
    var environment = valid
    environment["DEX_PROXY_POSTGRES_URL"] = url
    #expect {
      _ = try ProxyConfiguration.fromEnvironment(environment)
    } throws: { error in
      let error = error as? ProxyConfigurationError
      return error?.variable == "DEX_PROXY_POSTGRES_URL"
        && error?.description.contains("hunter2") == false
    }
  }
}
