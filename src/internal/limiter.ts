/**
 * Limits on calls in flight: a tool's `concurrency` annotation, and a tool server's `concurrency` with its bound on
 * waiting calls (`maxQueued`).
 *
 * Effect's `Semaphore` waits, but cannot tell a caller that the wait is too long to join: load shedding needs to know,
 * when a call arrives, whether it would wait and how many already do. A permit that is free is taken synchronously,
 * without a fiber step. A released permit goes straight to the longest waiter (first come, first served), so a call
 * arriving later never overtakes one that waits.
 */
import { Effect } from "effect"
import type * as Scheduler from "effect/Scheduler"

/** A whole number of one or more (and at most `Number.MAX_SAFE_INTEGER`). */
export const isPositiveInteger = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 1

/** Calls waiting for a permit, across every limiter that shares this queue, and how many may wait. */
export class WaitQueue {
  waiting = 0
  readonly max: number
  constructor(max: number) {
    this.max = max
  }
}

/**
 * What can end a wait for a permit before a permit comes (a batch a hook stopped): the wait then fails with `error`.
 */
export interface Cancel<E> {
  /** Calls `listener` once, when the wait is to end (at once if it already is); the function returned stops that. */
  readonly onCancel: (listener: () => void) => () => void
  readonly error: E
}

/** A call arrived when its wait queue was full: it does not run. Never escapes dispatch. */
export class Shed {
  readonly queued: number
  constructor(queued: number) {
    this.queued = queued
  }
}

interface Waiter {
  /**
   * The queue it counts in while it waits: `undefined` once it has left it (handed a permit, or gone), so that it is
   * counted out once, whichever of these comes first.
   */
  queue: WaitQueue | undefined
  resume: ((effect: Effect.Effect<void>) => void) | undefined
  dispatcher: Scheduler.SchedulerDispatcher | undefined
  /** A permit was handed to it: it holds one, whether or not it woke up to use it. */
  granted: boolean
  /** Stops listening for a cancellation, once it no longer waits. */
  stopListening: (() => void) | undefined
}

/** Counts a waiter out of its queue, once. */
const leave = (waiter: Waiter): void => {
  if (waiter.queue !== undefined) {
    waiter.queue.waiting--
    waiter.queue = undefined
  }
}

/** At most `permits` effects in flight at once; the rest wait in arrival order. */
export class Limiter {
  readonly permits: number
  active = 0
  private readonly waiters = new Set<Waiter>()
  constructor(permits: number) {
    this.permits = permits
  }

  /**
   * Runs `effect` holding a permit. With a `queue`, a call that would wait when the queue is full fails with `Shed`
   * at once. Interrupting a waiting call takes it out of the line, and so does `cancel`, which fails it with its
   * error; a permit is always given back, however the effect ends.
   *
   * The permit is taken inside a region whose exit gives it back, once that region has begun: an interruption before
   * the permit is taken finds nothing to give back, and one after finds the finalizer in place. No uninterruptible
   * region is needed, and a free permit costs no more than the finalizer. The Effect returned is run once (dispatch
   * makes one per attempt): what it holds is its own.
   */
  run<A, E, R, C = never>(
    effect: Effect.Effect<A, E, R>,
    queue: WaitQueue | undefined,
    cancel?: Cancel<C>
  ): Effect.Effect<A, E | Shed | C, R> {
    let held = false
    let waiter: Waiter | undefined
    return Effect.onExit(
      Effect.suspend((): Effect.Effect<A, E | Shed | C, R> => {
        if (this.tryAcquire()) {
          held = true
          return effect
        }
        if (queue !== undefined && queue.waiting >= queue.max) return Effect.fail(new Shed(queue.waiting))
        waiter = { queue, resume: undefined, dispatcher: undefined, granted: false, stopListening: undefined }
        if (queue !== undefined) queue.waiting++
        return Effect.andThen(this.wait(waiter, cancel), effect)
      }),
      () => {
        if (held || waiter?.granted === true) this.release()
        // Interrupted while waiting, or before its wait began (counted, not yet in line).
        else if (waiter !== undefined) this.withdraw(waiter)
        return Effect.void
      }
    )
  }

  /** Waits in line until `waiter` is handed a permit, or `cancel` ends the wait. */
  private wait<C>(waiter: Waiter, cancel: Cancel<C> | undefined): Effect.Effect<void, C> {
    return Effect.withFiber((fiber) => {
      waiter.dispatcher = fiber.currentDispatcher
      return Effect.callback<void, C>((resume) => {
        waiter.resume = resume
        this.waiters.add(waiter)
        if (cancel !== undefined) {
          waiter.stopListening = cancel.onCancel(() => {
            if (waiter.granted || !this.waiters.delete(waiter)) return
            leave(waiter)
            // As a handed permit does: on the waiter's own dispatcher, not inside whatever cancelled it.
            waiter.dispatcher!.scheduleTask(() => resume(Effect.fail(cancel.error)), 0)
          })
        }
        // A permit given back while this call was on its way here (its fiber may yield between finding none free and
        // joining the line) found no one in line, and is free: it goes to the line now, or no release would come.
        while (this.active < this.permits && this.waiters.size > 0) {
          this.active++
          this.handOver()
        }
        // Interrupted while waiting: leave the line. A waiter already handed its permit has left it, and holds the
        // permit until `run`'s finalizer gives it back.
        return Effect.sync(() => this.withdraw(waiter))
      })
    })
  }

  /** Takes a waiter that was not handed a permit out of the line and of its queue, and stops its cancellation. */
  private withdraw(waiter: Waiter): void {
    waiter.stopListening?.()
    if (waiter.granted) return
    this.waiters.delete(waiter)
    leave(waiter)
  }

  /** Takes a permit at once if one is free and nobody waits for it. */
  tryAcquire(): boolean {
    if (this.active < this.permits && this.waiters.size === 0) {
      this.active++
      return true
    }
    return false
  }

  /** Gives a permit back: to the longest waiter, if any (the permit changes hands: `active` stays as it is). */
  release(): void {
    if (this.waiters.size > 0) this.handOver()
    else this.active--
  }

  /** Hands a permit held for it to the longest waiter. */
  private handOver(): void {
    const waiter: Waiter = this.waiters.values().next().value!
    this.waiters.delete(waiter)
    leave(waiter)
    waiter.stopListening?.()
    waiter.granted = true
    // The waiter wakes on its own dispatcher's next task, not inside the releasing fiber: a batch being interrupted
    // releases permits from its finalizers, and its waiting calls must see that interruption before they could start.
    const resume = waiter.resume!
    waiter.dispatcher!.scheduleTask(() => resume(Effect.void), 0)
  }
}
