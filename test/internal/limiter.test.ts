import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Schema } from "effect"
import * as Scheduler from "effect/Scheduler"
import { isPositiveInteger, Limiter, Shed, WaitQueue } from "../../src/internal/limiter.ts"

/** Calls in flight now, at most, and in which order they entered. */
const makeGauge = () => {
  const gauge = { current: 0, max: 0, order: [] as Array<number> }
  const enter = (id: number) =>
    Effect.sync(() => {
      gauge.current++
      gauge.max = Math.max(gauge.max, gauge.current)
      gauge.order.push(id)
    })
  const leave = Effect.sync(() => {
    gauge.current--
  })
  /** Enters, waits for `gate`, leaves (on interruption too). */
  const hold = (id: number, gate: Deferred.Deferred<void>) =>
    Effect.ensuring(Effect.andThen(enter(id), Deferred.await(gate)), leave)
  return { gauge, hold }
}

/** Forks `effect` and lets it run until it waits. */
const start = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.tap(Effect.forkChild(effect), () => Effect.yieldNow)

describe("isPositiveInteger", () => {
  it("accepts whole numbers from one to the largest safe integer, and nothing else", () => {
    assert.deepStrictEqual(
      [1, 64, Number.MAX_SAFE_INTEGER].map(isPositiveInteger),
      [true, true, true]
    )
    assert.deepStrictEqual(
      [0, -1, 1.5, NaN, Infinity, Number.MAX_SAFE_INTEGER + 1, "2", null, undefined, 2n].map(isPositiveInteger),
      Array(10).fill(false)
    )
  })
})

describe("Limiter", () => {
  it.effect("holds at most `permits` in flight, and lets waiters in by arrival order", () =>
    Effect.gen(function*() {
      const limiter = new Limiter(2)
      const { gauge, hold } = makeGauge()
      const gates = yield* Effect.forEach([0, 1, 2, 3, 4], () => Deferred.make<void>())
      const fibers = yield* Effect.forEach(gates, (gate, id) => start(limiter.run(hold(id, gate), undefined)))
      assert.deepStrictEqual([gauge.current, gauge.order], [2, [0, 1]])
      // The second one to finish frees the permit for the next in line, not for a later arrival.
      yield* Deferred.succeed(gates[1]!, undefined)
      yield* Fiber.join(fibers[1]!)
      yield* Effect.yieldNow
      assert.deepStrictEqual([gauge.current, gauge.order], [2, [0, 1, 2]])
      yield* Effect.forEach(gates, (gate) => Deferred.succeed(gate, undefined))
      yield* Fiber.joinAll(fibers)
      assert.deepStrictEqual([gauge.max, gauge.current, gauge.order, limiter.active], [2, 0, [0, 1, 2, 3, 4], 0])
    }))

  it.effect("sheds a call that would wait when its queue is full, and counts waiters out again however they leave", () =>
    Effect.gen(function*() {
      const limiter = new Limiter(1)
      const queue = new WaitQueue(1)
      const { hold } = makeGauge()
      const gate = yield* Deferred.make<void>()
      const running = yield* start(limiter.run(hold(0, gate), queue))
      const waiting = yield* start(limiter.run(hold(1, gate), queue))
      assert.strictEqual(queue.waiting, 1)
      const shed = yield* Effect.exit(limiter.run(Effect.succeed("ran"), queue))
      assert.deepStrictEqual(shed, Exit.fail(new Shed(1)))
      yield* Fiber.interrupt(waiting)
      assert.strictEqual(queue.waiting, 0)
      const next = yield* start(limiter.run(Effect.succeed("next"), queue))
      assert.strictEqual(queue.waiting, 1)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(running)
      assert.strictEqual(yield* Fiber.join(next), "next")
      assert.deepStrictEqual([queue.waiting, limiter.active], [0, 0])
    }))

  it.effect("a call interrupted at any step of joining the line is counted out of its queue: no slot is lost", () =>
    Effect.gen(function*() {
      const limiter = new Limiter(1)
      const queue = new WaitQueue(1)
      const holder = yield* start(limiter.run(Effect.never, queue))
      // A fiber that yields every few steps can be interrupted between any two of them: counted as waiting, and not yet
      // in line, among others. Each `steps` lets the call go that far before it is interrupted.
      for (const ops of [2, 3, 4, 5]) {
        for (let steps = 0; steps < 12; steps++) {
          const call = yield* Effect.forkChild(
            limiter.run(Effect.void, queue).pipe(Effect.provideService(Scheduler.MaxOpsBeforeYield, ops))
          )
          for (let i = 0; i < steps; i++) yield* Effect.yieldNow
          yield* Fiber.interrupt(call)
          assert.strictEqual(queue.waiting, 0, `yielding every ${ops} steps, interrupted after ${steps} yields`)
        }
      }
      // The one slot is still there: a call waits in it, and the next is shed.
      const waiting = yield* start(limiter.run(Effect.void, queue))
      assert.deepStrictEqual(yield* Effect.exit(limiter.run(Effect.void, queue)), Exit.fail(new Shed(1)))
      yield* Fiber.interrupt(holder)
      yield* Fiber.join(waiting)
      assert.deepStrictEqual([queue.waiting, limiter.active], [0, 0])
    }))

  it.effect("a permit given back while a call is on its way into the line goes to it: no call waits for nothing", () =>
    Effect.gen(function*() {
      // Fibers that yield every few steps pause between finding no permit free and joining the line; the holder gives
      // its permit back meanwhile, and finds no one in line to hand it to.
      for (const ops of [3, 4, 5, 6, 8]) {
        for (let round = 0; round < 20; round++) {
          const limiter = new Limiter(1)
          const fibers = yield* Effect.forEach([0, 1, 2], () =>
            Effect.forkChild(
              limiter.run(Effect.yieldNow, undefined).pipe(Effect.provideService(Scheduler.MaxOpsBeforeYield, ops))
            ))
          for (let i = 0; i < 200 && fibers.some((fiber) => fiber.pollUnsafe() === undefined); i++) {
            yield* Effect.yieldNow
          }
          assert.isTrue(
            fibers.every((fiber) => fiber.pollUnsafe() !== undefined),
            `yielding every ${ops} steps, a call still waits, with ${limiter.active} permits taken`
          )
          assert.strictEqual(limiter.active, 0)
        }
      }
    }))

  it.effect("a cancel ends a wait with its error, counts the call out, and leaves the permits as they were", () =>
    Effect.gen(function*() {
      const limiter = new Limiter(1)
      const queue = new WaitQueue(2)
      const listeners = new Set<() => void>()
      let cancelled = false
      const cancel = {
        onCancel: (listener: () => void) => {
          if (cancelled) listener()
          else listeners.add(listener)
          return () => listeners.delete(listener)
        },
        error: "cancelled" as const
      }
      const gate = yield* Deferred.make<void>()
      const running = yield* start(limiter.run(Deferred.await(gate), queue, cancel))
      const waiting = yield* start(limiter.run(Effect.succeed("ran"), queue, cancel))
      assert.deepStrictEqual([queue.waiting, listeners.size], [1, 1])
      cancelled = true
      for (const listener of listeners) listener()
      assert.deepStrictEqual(yield* Fiber.await(waiting), Exit.fail("cancelled" as const))
      // A wait that begins once cancelled ends at once; one that holds its permit is not touched.
      const late = yield* Effect.exit(limiter.run(Effect.succeed("ran"), queue, cancel))
      assert.deepStrictEqual(late, Exit.fail("cancelled" as const))
      assert.deepStrictEqual([queue.waiting, limiter.active], [0, 1])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(running)
      assert.deepStrictEqual([queue.waiting, limiter.active], [0, 0])
    }))

  it.effect("a permit released by an interrupted call wakes the next waiter later, not inside that call's finalizer", () =>
    Effect.gen(function*() {
      const limiter = new Limiter(1)
      const { gauge, hold } = makeGauge()
      const gate = yield* Deferred.make<void>()
      const running = yield* start(limiter.run(hold(0, gate), undefined))
      yield* start(limiter.run(hold(1, gate), undefined))
      // Interrupting the running call releases its permit from its finalizer: the waiter does not run there.
      running.interruptUnsafe()
      assert.deepStrictEqual([gauge.current, gauge.order], [0, [0]])
      yield* Effect.yieldNow
      assert.deepStrictEqual([gauge.current, gauge.order, limiter.active], [1, [0, 1], 1])
      yield* Deferred.succeed(gate, undefined)
    }))

  it.effect("a waiter interrupted after it was handed a permit, before it woke, passes the permit on", () =>
    Effect.gen(function*() {
      const limiter = new Limiter(1)
      const { gauge, hold } = makeGauge()
      const gate = yield* Deferred.make<void>()
      const running = yield* start(limiter.run(hold(0, gate), undefined))
      const handed = yield* start(limiter.run(hold(1, gate), undefined))
      const last = yield* start(limiter.run(hold(2, gate), undefined))
      // In one step: the permit goes to `handed`, which is interrupted before its wake-up runs.
      running.interruptUnsafe()
      handed.interruptUnsafe()
      yield* Effect.yieldNow
      assert.deepStrictEqual([gauge.current, gauge.order, limiter.active], [1, [0, 2], 1])
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(handed)))
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(last)
      assert.strictEqual(limiter.active, 0)
    }))

  it.effect.prop(
    "for any mix of finishing and interrupted calls, the limit holds and every permit comes back",
    {
      permits: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 4 })),
      calls: Schema.Array(Schema.Struct({ interrupt: Schema.Boolean, fails: Schema.Boolean })).check(
        Schema.isMaxLength(24)
      )
    },
    ({ calls, permits }) =>
      Effect.gen(function*() {
        const limiter = new Limiter(permits)
        const queue = new WaitQueue(calls.length)
        const { gauge, hold } = makeGauge()
        const gate = yield* Deferred.make<void>()
        const fibers = yield* Effect.forEach(calls, (call, id) =>
          start(limiter.run(call.fails ? Effect.andThen(hold(id, gate), Effect.fail("boom")) : hold(id, gate), queue)))
        yield* Effect.forEach(fibers, (fiber, id) => calls[id]!.interrupt ? Fiber.interrupt(fiber) : Effect.void)
        yield* Deferred.succeed(gate, undefined)
        yield* Effect.forEach(fibers, Fiber.await)
        assert.isAtMost(gauge.max, permits)
        assert.deepStrictEqual([gauge.current, limiter.active, queue.waiting], [0, 0, 0])
        // Every call that was not interrupted ran.
        const ran = new Set(gauge.order)
        calls.forEach((call, id) => {
          if (!call.interrupt) assert.isTrue(ran.has(id))
        })
      })
  )
})
