import Foundation
import Logging

extension ApiClient {
  /// ``currentCredential()``, given up at `deadline` (of kind ``DexCloudError/Kind/timedOut``):
  /// a caller with a time budget does not wait out a slow `/auth_token`, whose own budget is
  /// the retry policy's (the refresh carries on for the other callers).
  func currentCredential(
    deadline: ContinuousClock.Instant?
  ) async throws(DexCloudError) -> SessionCredential {
    if let credential, !credential.needsRefresh(at: now(), margin: configuration.refreshMargin) {
      return credential
    }
    guard let deadline else { return try await currentCredential() }
    return try await credential(by: deadline) { () throws(DexCloudError) in
      try await self.currentCredential()
    }
  }

  /// The credential `fetch` gives, or ``DexCloudError/Kind/timedOut`` at `deadline`, whichever
  /// comes first; `fetch` (a shared refresh's waiter) is cancelled when the deadline wins.
  func credential(
    by deadline: ContinuousClock.Instant,
    _ fetch: @escaping @Sendable () async throws(DexCloudError) -> SessionCredential
  ) async throws(DexCloudError) -> SessionCredential {
    let started = ContinuousClock.now
    do {
      return try await withThrowingTaskGroup(of: SessionCredential?.self) { group in
        group.addTask { try await fetch() }
        group.addTask {
          try await Task.sleep(until: deadline, clock: .continuous)
          return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let credential = first else {
          throw DexCloudError.timedOut(after: max(deadline - started, .zero))
        }
        return credential
      }
    } catch let error as DexCloudError {
      throw error
    } catch {
      throw .cancelled()
    }
  }

  /// A session that is valid for at least the refresh margin, fetching one if needed.
  func currentCredential() async throws(DexCloudError) -> SessionCredential {
    if let credential, !credential.needsRefresh(at: now(), margin: configuration.refreshMargin) {
      return credential
    }
    return try await refreshCredential(replacing: credential?.sessionID)
  }

  /// Replaces the session `staleID`; callers that arrive while a refresh is running share it,
  /// and a caller whose stale session was already replaced gets the replacement at once.
  ///
  /// Each caller waits on its own continuation, so a cancelled caller returns at once while the
  /// shared refresh carries on for the others.
  func refreshCredential(
    replacing staleID: String?
  ) async throws(DexCloudError)
    -> SessionCredential
  {
    if let credential, credential.sessionID != staleID,
      !credential.needsRefresh(at: now(), margin: configuration.refreshMargin)
    {
      return credential
    }
    if refreshTask == nil {
      refreshTask = Task { await self.runRefresh(discarding: staleID) }
    }
    let waiter = nextWaiterID
    nextWaiterID &+= 1
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation {
          (continuation: CheckedContinuation<SessionCredential, any Error>) in
          if Task.isCancelled {
            continuation.resume(throwing: CancellationError())
          } else {
            refreshWaiters[waiter] = continuation
          }
        }
      } onCancel: {
        Task { await self.cancelWaiter(waiter) }
      }
    } catch let error as DexCloudError {
      throw error
    } catch is CancellationError {
      throw .cancelled()
    } catch {
      throw DexCloudError(kind: .authentication, message: "Could not obtain a session.")
    }
  }

  /// The shared refresh: obtains a session, then hands the outcome to every waiter.
  private func runRefresh(discarding staleID: String?) async {
    let outcome: Result<SessionCredential, any Error>
    do {
      outcome = .success(try await obtainCredential(discarding: staleID))
    } catch {
      outcome = .failure(error)
    }
    refreshTask = nil
    let waiters = refreshWaiters
    refreshWaiters.removeAll()
    for continuation in waiters.values { continuation.resume(with: outcome) }
  }

  /// Releases one cancelled waiter; the refresh itself continues for the others.
  private func cancelWaiter(_ waiter: UInt64) {
    refreshWaiters.removeValue(forKey: waiter)?.resume(throwing: CancellationError())
  }

  /// Loads a usable session from the store on first use, otherwise asks `/auth_token`.
  private func obtainCredential(discarding staleID: String?) async throws -> SessionCredential {
    if !triedStore {
      triedStore = true
      do {
        if let stored = try await tokenStore.loadCredential(), stored.sessionID != staleID,
          !stored.needsRefresh(at: now(), margin: configuration.refreshMargin)
        {
          logger.debug("Using the stored session")
          credential = stored
          return stored
        }
      } catch {
        logger.warning("Could not read the token store; fetching a new session")
      }
    }
    let fresh = try await fetchSession()
    credential = fresh
    do {
      try await tokenStore.saveCredential(fresh)
    } catch {
      logger.warning("Could not save the session to the token store")
    }
    return fresh
  }

  /// `POST /auth_token`, signed with the bootstrap key.
  private func fetchSession() async throws(DexCloudError) -> SessionCredential {
    let endpoint = Endpoints.authToken
    let body: Data
    do {
      body = try JSONEncoder().encode(AuthTokenRequest(subject: configuration.subject))
    } catch {
      throw DexCloudError(kind: .authentication, message: "Cannot encode the token request.")
    }
    let response: TransportResponse
    do {
      response = try await perform(
        endpoint, url: url(for: endpoint), body: body, timeout: configuration.requestTimeout,
        session: nil)
    } catch  where error.kind == .http && [401, 403].contains(error.statusCode ?? 0) {
      logger.error(
        "The backend refused the bootstrap key", metadata: ["status": "\(error.statusCode ?? 0)"])
      throw DexCloudError(
        kind: .authentication, message: "The backend refused the bootstrap key.",
        statusCode: error.statusCode, bodyExcerpt: error.bodyExcerpt, apiError: error.apiError)
    }
    let receivedAt = now()
    let token = try decode(AuthTokenResponse.self, from: response, endpoint: endpoint)
    let expiresAt: Date
    if let expiresIn = token.expiresIn, expiresIn > 0 {
      expiresAt = receivedAt.addingTimeInterval(TimeInterval(expiresIn))
    } else {
      expiresAt = Date(timeIntervalSince1970: TimeInterval(token.expiresAt) - clockOffset)
    }
    guard expiresAt > receivedAt, !token.sessionID.isEmpty,
      token.sessionID.utf8.count <= 1024,
      token.sessionID.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }
      )
    else {
      throw DexCloudError(
        kind: .authentication, message: "The backend returned an unusable session.",
        statusCode: response.statusCode)
    }
    logger.info(
      "Obtained a new session",
      metadata: ["expires_in_s": "\(Int(expiresAt.timeIntervalSince(receivedAt)))"])
    return SessionCredential(
      sessionID: token.sessionID, secret: token.sessionSecret, expiresAt: expiresAt,
      issuedAt: receivedAt)
  }
}
