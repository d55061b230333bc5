#if os(Linux) && SystemImageCodecs
  import Dispatch
  import Glibc
  import Synchronization
  import Testing

  @testable import DexImaging

  /// The isolated decoder's slots: a freed slot goes to the oldest waiter, blocking or awaiting,
  /// and a waiter that is cancelled or out of time leaves the queue without taking one.
  @Suite struct DecodeSlotsTests {
    /// The names of the waiters, in the order they got a slot.
    final class Order: Sendable {
      private let names = Mutex<[String]>([])
      func append(_ name: String) { names.withLock { $0.append(name) } }
      var all: [String] { names.withLock { $0 } }
    }

    /// How many callers hold a slot now, and the most that ever did.
    final class Holders: Sendable {
      private let counts = Mutex((now: 0, most: 0))
      func enter() {
        counts.withLock {
          $0.now += 1; $0.most = max($0.most, $0.now)
        }
      }
      func leave() { counts.withLock { $0.now -= 1 } }
      var most: Int { counts.withLock { $0.most } }
    }

    static let far = ContinuousClock.now + .seconds(120)

    /// Waits (up to a minute) until `slots` has `count` waiters queued.
    static func waitForQueue(_ slots: DecodeSlots, count: Int) async throws {
      let patience = ContinuousClock.now + .seconds(60)
      while slots.waitingCount != count, ContinuousClock.now < patience {
        try await Task.sleep(for: .milliseconds(5))
      }
      try #require(slots.waitingCount == count)
    }

    /// A thread that waits for a slot blocking, notes `name` in `order` once it holds one and
    /// gives it back.
    static func blockingWaiter(
      _ slots: DecodeSlots, _ name: String, _ order: Order
    ) -> Task<DecodeSlots.Refusal?, Never> {
      Task.detached {
        await withCheckedContinuation { continuation in
          DispatchQueue(label: "DecodeSlotsTests.blocking").async {
            let refusal = slots.acquire(until: Self.far, isCancelled: { false })
            if refusal == nil {
              order.append(name)
              slots.release()
            }
            continuation.resume(returning: refusal)
          }
        }
      }
    }

    @Test func freeSlotsAreTakenWithoutWaiting() async {
      let slots = DecodeSlots(count: 2)
      #expect(slots.acquire(until: Self.far, isCancelled: { false }) == nil)
      #expect(await slots.acquire(until: Self.far) == nil)
      #expect(slots.freeCount == 0)
      slots.release()
      slots.release()
      #expect(slots.freeCount == 2)
      #expect(DecodeSlots(count: 0).freeCount == 1)  // at least one
    }

    @Test func waitersAreServedFirstInFirstOutWhetherTheyBlockOrAwait() async throws {
      let slots = DecodeSlots(count: 1)
      #expect(slots.acquire(until: Self.far, isCancelled: { false }) == nil)
      let order = Order()
      var waiters: [Task<DecodeSlots.Refusal?, Never>] = []
      for (index, name) in ["first", "second", "third", "fourth"].enumerated() {
        if index.isMultiple(of: 2) {
          waiters.append(
            Task.detached {
              let refusal = await slots.acquire(until: Self.far)
              if refusal == nil {
                order.append(name)
                slots.release()
              }
              return refusal
            })
        } else {
          waiters.append(Self.blockingWaiter(slots, name, order))
        }
        try await Self.waitForQueue(slots, count: index + 1)
      }
      #expect(order.all.isEmpty)  // nobody passes the holder
      slots.release()
      for waiter in waiters { #expect(await waiter.value == nil) }
      #expect(order.all == ["first", "second", "third", "fourth"])
      #expect(slots.servedOrder.count == 4)
      #expect(slots.servedOrder == slots.servedOrder.sorted())
      #expect(slots.freeCount == 1)
      #expect(slots.waitingCount == 0)
    }

    @Test func aCancelledAwaitingWaiterLeavesTheQueueAtOnce() async throws {
      let slots = DecodeSlots(count: 1)
      #expect(await slots.acquire(until: Self.far) == nil)
      let waiter = Task.detached { await slots.acquire(until: Self.far) }
      try await Self.waitForQueue(slots, count: 1)
      waiter.cancel()
      #expect(await waiter.value == .cancelled)
      #expect(slots.waitingCount == 0)
      slots.release()
      #expect(slots.freeCount == 1)  // the slot was not handed to the cancelled waiter
    }

    @Test func aTaskCancelledBeforeItWaitsIsRefusedWithoutWaiting() async {
      let slots = DecodeSlots(count: 1)
      #expect(await slots.acquire(until: Self.far) == nil)
      let waiter = Task.detached {
        withUnsafeCurrentTask { $0?.cancel() }
        return await slots.acquire(until: Self.far)
      }
      #expect(await waiter.value == .cancelled)
      #expect(slots.waitingCount == 0)
    }

    @Test func anAwaitingWaiterIsRefusedAtItsDeadline() async {
      let slots = DecodeSlots(count: 1)
      #expect(await slots.acquire(until: Self.far) == nil)
      let deadline = ContinuousClock.now + .milliseconds(200)
      #expect(await slots.acquire(until: deadline) == .timedOut)
      #expect(ContinuousClock.now >= deadline)
      #expect(slots.waitingCount == 0)
      slots.release()
      #expect(slots.freeCount == 1)
    }

    @Test func aBlockingWaiterIsRefusedWhenCancelledOrOutOfTime() async throws {
      let slots = DecodeSlots(count: 1)
      #expect(slots.acquire(until: Self.far, isCancelled: { false }) == nil)
      let deadline = ContinuousClock.now + .milliseconds(200)
      #expect(slots.acquire(until: deadline, isCancelled: { false }) == .timedOut)
      #expect(ContinuousClock.now >= deadline)
      let cancelled = CancellationFlag()
      let waiter = Task.detached {
        await withCheckedContinuation { continuation in
          DispatchQueue(label: "DecodeSlotsTests.cancelled").async {
            continuation.resume(
              returning: slots.acquire(until: Self.far, isCancelled: { cancelled.isSet }))
          }
        }
      }
      try await Self.waitForQueue(slots, count: 1)
      cancelled.set()
      #expect(await waiter.value == .cancelled)
      #expect(slots.waitingCount == 0)
      slots.release()
      #expect(slots.freeCount == 1)
    }

    /// Many callers of both kinds against two slots: never more than two hold one, and every
    /// slot comes back.
    @Test func manyCallersNeverHoldMoreThanTheSlots() async {
      let slots = DecodeSlots(count: 2)
      let holders = Holders()
      let hold: @Sendable () -> Void = {
        holders.enter()
        usleep(2_000)  // long enough for the others to try
        holders.leave()
        slots.release()
      }
      await withTaskGroup(of: Void.self) { group in
        for index in 0..<64 {
          group.addTask {
            if index.isMultiple(of: 2) {
              if await slots.acquire(until: Self.far) == nil { hold() }
            } else {
              await withCheckedContinuation { continuation in
                DispatchQueue(label: "DecodeSlotsTests.many").async {
                  if slots.acquire(until: Self.far, isCancelled: { false }) == nil { hold() }
                  continuation.resume()
                }
              }
            }
          }
        }
      }
      #expect(holders.most <= 2)
      #expect(holders.most == 2)  // both slots were used at once
      #expect(slots.freeCount == 2)
      #expect(slots.waitingCount == 0)
    }
  }
#endif
