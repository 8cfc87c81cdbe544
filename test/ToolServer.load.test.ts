/**
 * The tool server under load and faults: many calls of every outcome at once, while tools come and go and batches
 * are interrupted. Outcomes are deterministic: a tool that times out never answers at all (`Effect.never`), a slow one
 * sleeps a millisecond under a timeout of a minute, and a tool that answers synchronously finishes before a timeout
 * timer is even armed. Only the interleaving varies from run to run.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Data, Deferred, Effect, Exit, Fiber, Option, Queue, Schedule, Schema, Stream } from "effect"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import {
  Tool,
  ToolCall,
  ToolContext,
  ToolExecutionError,
  ToolHooks,
  ToolOutput,
  ToolResult,
  ToolServer,
  ToolSet
} from "../src/index.ts"
import { kindOf } from "./support/results.ts"

// ---------------------------------------------------------------------------------------------------------------------
// instrumented tools
// ---------------------------------------------------------------------------------------------------------------------

/** What a tool body records in its result's metadata: the call it believes it serves, and which run of it this is. */
class Seen extends Context.Service<Seen, {
  readonly tag: string
  readonly callId: string
  readonly run: number
}>()("test/Seen") {}

/** Runs of one tool's body. */
interface ToolRuns {
  started: number
  finalized: number
  interrupted: number
  inFlight: number
  maxInFlight: number
}

/**
 * Counts tool bodies as they run: started, finalized (however they ended), in flight, the most ever in flight, across
 * the server and per tool, and how often each call's body ran (its tag is its call id).
 */
class Probe {
  started = 0
  finalized = 0
  inFlight = 0
  maxInFlight = 0
  readonly perTool = new Map<string, ToolRuns>()
  readonly runs = new Map<string, number>()
  /** Set while a batch is being interrupted: a run that starts then began after its batch was cancelled. */
  interrupting = false
  /** The calls whose tool body started while their batch was being interrupted. */
  readonly startedWhileInterrupting: Array<string> = []

  of(tool: string): ToolRuns {
    let runs = this.perTool.get(tool)
    if (runs === undefined) {
      runs = { started: 0, finalized: 0, interrupted: 0, inFlight: 0, maxInFlight: 0 }
      this.perTool.set(tool, runs)
    }
    return runs
  }

  /**
   * Runs `body` as one run of `tool` for the call tagged `tag`. Counting in is uninterruptible and counting out is a
   * release, so that every run counted in is counted out, however it ends: a run left behind shows as in flight.
   */
  track<A, E, R>(
    tool: string,
    tag: string,
    body: (run: number) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E, R | ToolContext.ToolContext> {
    return Effect.acquireUseRelease(
      Effect.sync(() => {
        const run = (this.runs.get(tag) ?? 0) + 1
        this.runs.set(tag, run)
        const own = this.of(tool)
        if (this.interrupting) this.startedWhileInterrupting.push(tag)
        this.started++
        this.inFlight++
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
        own.started++
        own.inFlight++
        own.maxInFlight = Math.max(own.maxInFlight, own.inFlight)
        return { run, own }
      }),
      ({ run }) =>
        Effect.flatMap(ToolContext.callId, (callId) =>
          Effect.andThen(ToolContext.insertResult(Seen, { tag, callId, run }), Effect.suspend(() => body(run)))),
      ({ own }, exit) =>
        Effect.sync(() => {
          this.finalized++
          this.inFlight--
          own.finalized++
          own.inFlight--
          if (Exit.hasInterrupts(exit)) own.interrupted++
        })
    )
  }
}

class UpstreamRefused extends Data.TaggedError("UpstreamRefused")<{ readonly tag: string }> {}

const TagOnly = Schema.Struct({ tag: Schema.String })

/** The timeout of the tools that hang: a few milliseconds of real time, which they never beat. */
const hangTimeout = "3 millis"
/** The timeout of the tools that answer, slowly or not: far beyond anything they take. */
const ampleTimeout = "1 minute"
/** Attempts of a retryable error: the first, and two retries. */
const maxAttempts = 3

/** Every tool a server under load offers, each built on one probe. */
const makeTools = (probe: Probe, blocked: Queue.Queue<string>) => {
  const ok = Tool.make("ok", {
    description: "Answers at once",
    parameters: TagOnly,
    call: ({ tag }) => probe.track("ok", tag, () => Effect.succeed({ tag }))
  })
  const typed = Tool.make("typed", {
    description: "Fails with a typed error, which its mapError folds",
    parameters: TagOnly,
    mapError: (error) =>
      error instanceof UpstreamRefused
        ? ToolExecutionError.provider(`upstream refused ${error.tag}`)
        : ToolExecutionError.fromError(error),
    call: ({ tag }) => probe.track("typed", tag, () => Effect.fail(new UpstreamRefused({ tag })))
  })
  const crash = Tool.make("crash", {
    description: "Dies",
    parameters: TagOnly,
    call: ({ tag }) => probe.track("crash", tag, () => Effect.die(new Error(`bug while serving ${tag}`)))
  })
  const hang = Tool.make("hang", {
    description: "Never answers; its own timeout ends it, and timeouts are retried",
    parameters: TagOnly,
    annotations: { timeout: hangTimeout },
    call: ({ tag }) => probe.track("hang", tag, () => Effect.never)
  })
  const hangDestructive = Tool.make("hang_destructive", {
    description: "Never answers; the server's default timeout ends it, and being destructive it is not retried",
    parameters: TagOnly,
    annotations: { destructive: true },
    call: ({ tag }) => probe.track("hang_destructive", tag, () => Effect.never)
  })
  const slow = Tool.make("slow", {
    description: "Answers after a millisecond",
    parameters: TagOnly,
    annotations: { timeout: ampleTimeout },
    call: ({ tag }) => probe.track("slow", tag, () => Effect.as(Effect.sleep("1 millis"), { tag }))
  })
  const limited = Tool.make("limited", {
    description: "Answers after a millisecond, two calls at a time",
    parameters: TagOnly,
    annotations: { timeout: ampleTimeout, concurrency: 2 },
    call: ({ tag }) => probe.track("limited", tag, () => Effect.as(Effect.sleep("1 millis"), { tag }))
  })
  const flaky = Tool.make("flaky", {
    description: "Fails its first `failures` runs with a retryable network error, then answers",
    parameters: Schema.Struct({ tag: Schema.String, failures: Schema.Int }),
    call: ({ failures, tag }) =>
      probe.track("flaky", tag, (run) =>
        run <= failures
          ? Effect.fail(ToolExecutionError.network(`flaked while serving ${tag}`))
          : Effect.succeed({ tag, run }))
  })
  const block = Tool.make("block", {
    description: "Says it is running, then waits until its batch is interrupted",
    parameters: TagOnly,
    annotations: { timeout: ampleTimeout },
    call: ({ tag }) => probe.track("block", tag, () => Effect.andThen(Queue.offer(blocked, tag), Effect.never))
  })
  const versioned = (version: number) =>
    Tool.make("versioned", {
      description: "Says which registration of it runs",
      parameters: TagOnly,
      call: ({ tag }) => probe.track("versioned", tag, () => Effect.succeed({ tag, version }))
    })
  const extra = (index: number) =>
    Tool.make(`extra_${index}`, {
      description: "A tool that comes and goes",
      parameters: TagOnly,
      call: ({ tag }) => probe.track("extra", tag, () => Effect.succeed({ tag, extra: index }))
    })
  const stable = [ok, typed, crash, hang, hangDestructive, slow, limited, flaky, block] as const
  return { stable, versioned, extra }
}

/** Skips or denies a call whose arguments carry a `gate`; the reason names the call. */
const gate = ToolHooks.make({
  onCall: (event) => {
    const gate = (event.arguments as { readonly gate?: unknown }).gate
    return Effect.succeed(
      gate === "skip"
        ? ToolHooks.skip(`skipped ${event.call.id}`)
        : gate === "deny"
        ? ToolHooks.deny(`denied ${event.call.id}`)
        : ToolHooks.run
    )
  }
})

/** The server's own limit on calls in flight, well below a batch's concurrency. */
const serverConcurrency = 16
/** How many calls of a batch run at once. */
const batchConcurrency = 64

class LoadTools extends Context.Service<LoadTools, ToolServer.ToolServer>()("test/LoadTools") {}

/**
 * A server of those tools. `maxQueued` is a batch's concurrency: fewer calls than that can ever wait at once, so a
 * call shed as `rate_limited` means that the count of waiting calls (or of permits) leaked.
 */
const serverLayer = (probe: Probe, blocked: Queue.Queue<string>) => {
  const tools = makeTools(probe, blocked)
  return ToolServer.layer(LoadTools, {
    tools: ToolSet.make(...tools.stable, tools.versioned(0)),
    hooks: [gate],
    concurrency: serverConcurrency,
    maxQueued: batchConcurrency,
    timeout: hangTimeout,
    retry: Schedule.recurs(maxAttempts - 1)
  })
}

// ---------------------------------------------------------------------------------------------------------------------
// calls and what each must come to
// ---------------------------------------------------------------------------------------------------------------------

/** The kinds of call in the mix, each named by how it must end. */
const Kind = Schema.Literals([
  "ok",
  "typed",
  "crash",
  "hang",
  "hang_destructive",
  "slow",
  "limited",
  "flaky_0",
  "flaky_1",
  "flaky_2",
  "flaky_out",
  "skip",
  "deny",
  "bad_args",
  "unknown",
  "extra",
  "versioned"
])
type Kind = typeof Kind.Type

/** The mix of a batch: mostly quick successes, some of every failure, a few that take real time. */
const weights: ReadonlyArray<readonly [Kind, number]> = [
  ["ok", 12],
  ["typed", 3],
  ["crash", 3],
  ["hang", 1],
  ["hang_destructive", 1],
  ["slow", 3],
  ["limited", 2],
  ["flaky_0", 1],
  ["flaky_1", 2],
  ["flaky_2", 2],
  ["flaky_out", 1],
  ["skip", 2],
  ["deny", 2],
  ["bad_args", 1],
  ["unknown", 1],
  ["extra", 2],
  ["versioned", 1]
]
const mix: ReadonlyArray<Kind> = weights.flatMap(([kind, weight]) => Array.from({ length: weight }, () => kind))

/** A well-spread hash of a call's number, so that kinds and extra tools are scattered over the batches. */
const hash = (n: number): number => {
  let h = Math.imul(n ^ 0x5bd1e995, 0x9e3779b1)
  h ^= h >>> 15
  h = Math.imul(h, 0x85ebca77)
  h ^= h >>> 13
  return h >>> 0
}

/** What a test compares of a result: everything that tells calls apart, and how the call ended. */
interface Summary {
  readonly callId: string
  readonly name: string
  readonly status: ToolResult.Status
  readonly kind: string | undefined
  readonly attempts: number
  /** What the model sees: the JSON text of a Json output, or the text of a Text one. */
  readonly shown: string | undefined
  /** What the tool body put in the metadata; none when the call did not complete. */
  readonly seen: Seen["Service"] | undefined
  /** How often the call's tool body ran. */
  readonly runs: number
}

/**
 * A call, and the summary of the one result it must have (none for the call that waits to be interrupted). `shown` is
 * left unchecked where it lists the registry.
 */
interface Planned {
  readonly call: ToolCall.ToolCall
  readonly expected: Summary | undefined
  readonly checkShown: boolean
}

const shownOf = (output: ToolOutput.ToolOutput): string | undefined => {
  const json = ToolOutput.asJson(output)
  return Option.isSome(json) ? JSON.stringify(json.value) : Option.getOrUndefined(ToolOutput.asText(output))
}

const summarize = (result: ToolResult.ToolResult, probe: Probe, checkShown: boolean): Summary => ({
  callId: result.callId,
  name: result.name,
  status: result.status,
  kind: kindOf(result),
  attempts: result.attempts,
  shown: checkShown ? shownOf(result.output) : undefined,
  seen: Option.getOrUndefined(ToolResult.metadata(result, Seen)),
  runs: probe.runs.get(result.callId) ?? 0
})

/** Summaries are compared as JSON text: the same fields in the same order, `undefined` ones left out. */
const sameSummary = (actual: Summary, expected: Summary): boolean => JSON.stringify(actual) === JSON.stringify(expected)

/** The registry a batch's calls run against, as far as the calls can tell. */
interface Registered {
  /** The `extra_<n>` tools. */
  readonly extras: ReadonlySet<string>
  /** Which registration of `versioned`. */
  readonly version: number
}

/**
 * Call number `n` of kind `kind`, and how it must end. Its id is its tag, every tool puts its tag in its output and
 * its metadata, and hooks put it in their reasons: a result that shows another call's id, output or metadata fails
 * the comparison. Half the calls carry JSON text, half parsed values.
 */
const plan = (kind: Kind, n: number, extraIndex: number, registered: Registered): Planned => {
  const id = `c${n}`
  const ran = (run: number): Seen["Service"] => ({ tag: id, callId: id, run })
  const expect = (
    name: string,
    args: Record<string, unknown>,
    status: ToolResult.Status,
    errorKind: ToolExecutionError.ToolErrorKind | undefined,
    attempts: number,
    shown: string | undefined,
    seen: Seen["Service"] | undefined,
    runs: number
  ): Planned => ({
    call: ToolCall.make({ id, name, arguments: n % 2 === 0 ? JSON.stringify(args) : args }),
    expected: { callId: id, name, status, kind: errorKind, attempts, shown, seen, runs },
    checkShown: shown !== undefined
  })
  const success = (name: string, args: Record<string, unknown>, value: unknown, run: number) =>
    expect(name, args, "success", undefined, run, JSON.stringify(value), ran(run), run)
  const timeout = ToolExecutionError.safeDefault("timeout")
  switch (kind) {
    case "ok":
    case "slow":
    case "limited":
      return success(kind, { tag: id }, { tag: id }, 1)
    case "typed":
      return expect("typed", { tag: id }, "error", "provider", 1, `upstream refused ${id}`, ran(1), 1)
    case "crash":
      return expect("crash", { tag: id }, "error", "other", 1, ToolExecutionError.safeDefault("other"), undefined, 1)
    case "hang":
      return expect("hang", { tag: id }, "error", "timeout", maxAttempts, timeout, undefined, maxAttempts)
    case "hang_destructive":
      return expect("hang_destructive", { tag: id }, "error", "timeout", 1, timeout, undefined, 1)
    case "flaky_0":
    case "flaky_1":
    case "flaky_2": {
      const failures = Number(kind.slice("flaky_".length))
      return success("flaky", { tag: id, failures }, { tag: id, run: failures + 1 }, failures + 1)
    }
    case "flaky_out":
      return expect(
        "flaky",
        { tag: id, failures: maxAttempts },
        "error",
        "network",
        maxAttempts,
        `flaked while serving ${id}`,
        ran(maxAttempts),
        maxAttempts
      )
    case "skip":
      return expect("ok", { tag: id, gate: "skip" }, "skipped", undefined, 1, `skipped ${id}`, undefined, 0)
    case "deny":
      return expect("ok", { tag: id, gate: "deny" }, "denied", "permission_denied", 1, `denied ${id}`, undefined, 0)
    case "bad_args":
      return expect("ok", { label: id }, "error", "invalid_args", 1, undefined, undefined, 0)
    case "unknown":
      return expect("nope", { tag: id }, "error", "not_found", 1, undefined, undefined, 0)
    case "extra": {
      const name = `extra_${extraIndex}`
      return registered.extras.has(name)
        ? success(name, { tag: id }, { tag: id, extra: extraIndex }, 1)
        : expect(name, { tag: id }, "error", "not_found", 1, undefined, undefined, 0)
    }
    case "versioned":
      return success("versioned", { tag: id }, { tag: id, version: registered.version }, 1)
  }
}

/** How many calls a batch holds. */
const batchSize = 200
/** Where an interrupted batch holds the call that waits to be interrupted: after calls that have finished or run. */
const blockerPosition = 100
/** Extra tools added per batch, and how many batches later each is removed again. */
const extrasPerBatch = 5
const extraLifetime = 10

const isInterrupted = (batch: number) => batch % 10 === 4

/** The extras registered when batch `batch` starts: those added by earlier batches and not yet removed. */
const extrasBefore = (batch: number): Set<string> => {
  const names = new Set<string>()
  for (let index = Math.max(0, extrasPerBatch * (batch - extraLifetime)); index < extrasPerBatch * batch; index++) {
    names.add(`extra_${index}`)
  }
  return names
}

/**
 * The calls of batch `batch`. Extra tools are drawn from those removed lately, those registered, and those added
 * while the batch runs: under the batch's snapshot only the registered ones answer.
 */
const planBatch = (batch: number, registered: Registered): Array<Planned> =>
  Array.from({ length: batchSize }, (_, position) => {
    const n = batch * batchSize + position
    if (isInterrupted(batch) && position === blockerPosition) {
      const id = `c${n}`
      return { call: ToolCall.make({ id, name: "block", arguments: { tag: id } }), expected: undefined, checkShown: false }
    }
    const h = hash(n)
    const window = extrasPerBatch * (extraLifetime + 2)
    const extraIndex = Math.max(0, extrasPerBatch * batch - window + ((h >>> 8) % (window + 4 * extrasPerBatch)))
    return plan(mix[h % mix.length]!, n, extraIndex, registered)
  })

/** A full garbage collection: `--expose-gc`, turned on now, exposes `gc` to contexts made afterwards. */
const collectGarbage = (): (() => void) => {
  v8.setFlagsFromString("--expose-gc")
  return vm.runInNewContext("gc") as () => void
}

/** The heap in use once everything unreachable is collected (a few collections, with a turn of the loop between). */
const settledHeap = (gc: () => void) =>
  Effect.promise(async () => {
    for (let i = 0; i < 6; i++) {
      gc()
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    return process.memoryUsage().heapUsed
  })

// ---------------------------------------------------------------------------------------------------------------------
// tests
// ---------------------------------------------------------------------------------------------------------------------

describe("ToolServer under load and faults", () => {
  it.live(
    "20,000 calls of every outcome, tools added and removed, one batch in ten interrupted: every result right, nothing left behind",
    () =>
      Effect.gen(function*() {
        const probe = new Probe()
        const blocked = yield* Queue.unbounded<string>()
        const { extra, versioned } = makeTools(probe, blocked)
        const warmUpBatches = 10
        const measuredBatches = 100
        const gc = collectGarbage()

        yield* Effect.gen(function*() {
          const tools = yield* LoadTools

          // The registry's changes, as the stream tells them.
          const changes: Array<ToolServer.Change> = []
          yield* Effect.forkChild(Stream.runForEach(tools.changes, (change) => Effect.sync(() => changes.push(change))))
          // The stream subscribes when its fiber first runs: a change made before then is not seen.
          for (let turn = 0; turn < 1_000 && changes.length === 0; turn++) {
            yield* tools.add(extra(-1))
            yield* Effect.yieldNow
          }
          assert.isAbove(changes.length, 0, "the changes stream never delivered")
          yield* tools.remove("extra_-1")

          // The second fiber: per batch, re-registers `versioned` (after the batch's snapshot was taken, before its
          // calls run), then adds and removes extra tools while the batch runs.
          interface ChurnOrder {
            readonly batch: number
            readonly version: number
            readonly reregistered: Deferred.Deferred<void>
            readonly done: Deferred.Deferred<void>
          }
          const orders = yield* Queue.unbounded<ChurnOrder>()
          const missingRemovals: Array<string> = []
          yield* Effect.forkChild(Effect.forever(Effect.gen(function*() {
            const order = yield* Queue.take(orders)
            yield* tools.add(versioned(order.version))
            yield* Deferred.succeed(order.reregistered, undefined)
            for (let i = 0; i < extrasPerBatch; i++) {
              yield* tools.add(extra(extrasPerBatch * order.batch + i))
              yield* Effect.yieldNow
              if (order.batch >= extraLifetime) {
                const name = `extra_${extrasPerBatch * (order.batch - extraLifetime) + i}`
                if (!(yield* tools.remove(name))) missingRemovals.push(name)
              }
              yield* Effect.yieldNow
            }
            yield* Deferred.succeed(order.done, undefined)
          })))

          // The third fiber: interrupts the batches it is handed, once their blocker runs (so calls are in flight).
          const handles = yield* Queue.unbounded<{
            readonly batch: number
            readonly fiber: Fiber.Fiber<Array<ToolResult.ToolResult>, ToolHooks.ToolRunStopped>
          }>()
          const wrongBlockers: Array<string> = []
          yield* Effect.forkChild(Effect.forever(Effect.gen(function*() {
            const handle = yield* Queue.take(handles)
            const tag = yield* Queue.take(blocked)
            if (tag !== `c${handle.batch * batchSize + blockerPosition}`) wrongBlockers.push(tag)
            // Marked and interrupted in one synchronous step: no other fiber runs between the two.
            yield* Effect.sync(() => {
              probe.interrupting = true
              handle.fiber.interruptUnsafe()
            })
            yield* Fiber.await(handle.fiber)
            probe.interrupting = false
          })))

          let version = 0
          const tally = {
            verified: 0,
            interrupted: 0,
            outcomes: new Set<string>(),
            mismatches: [] as Array<{ readonly expected: Summary | undefined; readonly actual: Summary | undefined }>,
            wrongSnapshots: [] as Array<number>,
            wrongExits: [] as Array<{ readonly batch: number; readonly exit: string }>,
            leftBehind: [] as Array<{ readonly batch: number; readonly inFlight: number; readonly unfinished: number }>,
            liveVersions: [] as Array<{ readonly batch: number; readonly shown: string | undefined }>
          }

          const runBatch = (batch: number) =>
            Effect.gen(function*() {
              const snapshot = yield* tools.snapshot()
              const names = new Set(snapshot.definitions.map((definition) => definition.name))
              const extras = new Set([...names].filter((name) => name.startsWith("extra_")))
              const expectedExtras = extrasBefore(batch)
              if (extras.size !== expectedExtras.size || [...expectedExtras].some((name) => !extras.has(name))) {
                tally.wrongSnapshots.push(batch)
              }
              const order: ChurnOrder = {
                batch,
                version: version + 1,
                reregistered: yield* Deferred.make<void>(),
                done: yield* Deferred.make<void>()
              }
              yield* Queue.offer(orders, order)
              // The snapshot was taken before this re-registration: its calls still run the old version.
              yield* Deferred.await(order.reregistered)
              const planned = planBatch(batch, { extras: expectedExtras, version })
              version++
              const fiber = yield* Effect.forkChild(
                tools.executeAll(planned.map((p) => p.call), { snapshot, concurrency: batchConcurrency })
              )
              if (isInterrupted(batch)) yield* Queue.offer(handles, { batch, fiber })
              const exit = yield* Fiber.await(fiber)
              yield* Deferred.await(order.done)

              // Whatever became of the batch, none of its tool bodies is still running.
              if (probe.inFlight !== 0 || probe.started !== probe.finalized) {
                tally.leftBehind.push({ batch, inFlight: probe.inFlight, unfinished: probe.started - probe.finalized })
              }
              if (isInterrupted(batch)) {
                if (Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause)) tally.interrupted++
                if (Exit.isSuccess(exit) || !Cause.hasInterruptsOnly(exit.cause)) {
                  tally.wrongExits.push({ batch, exit: String(exit) })
                }
              } else if (Exit.isFailure(exit)) {
                tally.wrongExits.push({ batch, exit: String(exit) })
              } else {
                const results = exit.value
                planned.forEach((p, i) => {
                  const result = results[i]
                  const actual = result === undefined ? undefined : summarize(result, probe, p.checkShown)
                  if (actual === undefined || p.expected === undefined || !sameSummary(actual, p.expected)) {
                    if (tally.mismatches.length < 10) tally.mismatches.push({ expected: p.expected, actual })
                  } else {
                    tally.verified++
                    tally.outcomes.add(`${actual.status}/${actual.kind ?? "-"}/${actual.attempts}`)
                  }
                })
                if (results.length !== planned.length && tally.mismatches.length < 10) {
                  tally.mismatches.push({ expected: planned[0]!.expected, actual: undefined })
                }
              }

              // Without a snapshot, a call runs what is registered now: the re-registration took.
              const liveId = `live${batch}`
              const live = yield* tools.execute(
                ToolCall.make({ id: liveId, name: "versioned", arguments: { tag: liveId } })
              )
              const liveShown = shownOf(live.output)
              if (liveShown !== JSON.stringify({ tag: liveId, version })) {
                tally.liveVersions.push({ batch, shown: liveShown })
              }
              probe.runs.delete(liveId)
              for (const p of planned) probe.runs.delete(p.call.id)
            })

          // Warm up every path (an interrupted batch included), so that what is built once is not counted as growth.
          for (let batch = 0; batch < warmUpBatches; batch++) yield* runBatch(batch)
          const warmUpVerified = tally.verified
          changes.length = 0
          const before = yield* settledHeap(gc)
          const startVersion = (yield* tools.snapshot()).version

          for (let batch = warmUpBatches; batch < warmUpBatches + measuredBatches; batch++) yield* runBatch(batch)

          const endVersion = (yield* tools.snapshot()).version
          // The stream delivers on its own fiber: give it turns to catch up (bounded, so that a stream that stops
          // delivering fails the count below instead of hanging the test).
          for (let turn = 0; turn < 10_000 && (changes.at(-1)?.version ?? startVersion) < endVersion; turn++) {
            yield* Effect.yieldNow
          }
          const measured = changes.filter((change) => change.version > startVersion)
          const changeCounts = {
            added: measured.filter((c) => c._tag === "Added" && c.name.startsWith("extra_")).length,
            removed: measured.filter((c) => c._tag === "Removed" && c.name.startsWith("extra_")).length,
            replaced: measured.filter((c) => c._tag === "Replaced" && c.name === "versioned").length,
            total: measured.length,
            consecutive: measured.every((c, i) => c.version === startVersion + 1 + i)
          }
          changes.length = 0

          // Every call that was not interrupted got its one result, in call order, of its own call, as its kind says.
          assert.deepStrictEqual(tally.mismatches, [])
          // An interrupted batch starts no more tools, and ends interrupted: nothing a tool did escapes dispatch.
          assert.deepStrictEqual(probe.startedWhileInterrupting.slice(0, 10), [])
          assert.deepStrictEqual(tally.wrongExits.slice(0, 3), [])
          const interruptedBatches = measuredBatches / 10
          assert.strictEqual(tally.verified - warmUpVerified, (measuredBatches - interruptedBatches) * batchSize)
          assert.strictEqual(tally.interrupted, (warmUpBatches + measuredBatches) / 10)
          // The mix reached every outcome: each status, each error kind, retried and not.
          assert.deepStrictEqual([...tally.outcomes].sort(), [
            "denied/permission_denied/1",
            "error/invalid_args/1",
            "error/network/3",
            "error/not_found/1",
            "error/other/1",
            "error/provider/1",
            "error/timeout/1",
            "error/timeout/3",
            "skipped/-/1",
            "success/-/1",
            "success/-/2",
            "success/-/3"
          ])

          // Interrupted batches left nothing behind: their blockers, and every other run, were finalized.
          assert.deepStrictEqual(tally.leftBehind, [])
          assert.deepStrictEqual(wrongBlockers, [])
          const blockerRuns = probe.of("block")
          assert.deepStrictEqual(
            [blockerRuns.started, blockerRuns.finalized, blockerRuns.interrupted],
            [tally.interrupted, tally.interrupted, tally.interrupted]
          )
          assert.strictEqual(probe.started, probe.finalized)
          assert.strictEqual(probe.inFlight, 0)

          // The limits held: across the server, and for the tool that has its own.
          assert.isAtMost(probe.maxInFlight, serverConcurrency)
          assert.isAtMost(probe.of("limited").maxInFlight, 2)

          // Snapshots held what was registered when they were taken, and the registry changed as the churn did.
          assert.deepStrictEqual(tally.wrongSnapshots, [])
          assert.deepStrictEqual(tally.liveVersions, [])
          assert.deepStrictEqual(missingRemovals, [])
          assert.deepStrictEqual(changeCounts, {
            added: measuredBatches * extrasPerBatch,
            removed: measuredBatches * extrasPerBatch,
            replaced: measuredBatches,
            total: measuredBatches * (2 * extrasPerBatch + 1),
            consecutive: true
          })

          // The server, still serving, holds no more memory than after the warm-up.
          assert.strictEqual(probe.runs.size, 0)
          const after = yield* settledHeap(gc)
          assert.isAtMost(
            after,
            before * 1.1,
            `heap in use grew from ${(before / 1e6).toFixed(1)} MB to ${(after / 1e6).toFixed(1)} MB`
          )
        }).pipe(Effect.provide(serverLayer(probe, blocked)))
      }),
    60_000
  )

  it.effect("a stop with calls in flight lets them finish, returns their results in call order, and starts no more", () =>
    Effect.gen(function*() {
      const probe = new Probe()
      const bothRunning = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const held = Tool.make("held", {
        description: "Runs until released",
        parameters: TagOnly,
        call: ({ tag }) =>
          probe.track("held", tag, () =>
            Effect.gen(function*() {
              if (probe.of("held").inFlight === 2) yield* Deferred.succeed(bothRunning, undefined)
              yield* Deferred.await(release)
              return { tag }
            }))
      })
      const ok = Tool.make("ok", {
        description: "Answers at once",
        parameters: TagOnly,
        call: ({ tag }) => probe.track("ok", tag, () => Effect.succeed({ tag }))
      })
      const halt = Tool.make("halt", {
        description: "Never runs: a hook stops the batch at it",
        parameters: TagOnly,
        call: ({ tag }) => probe.track("halt", tag, () => Effect.succeed({ tag }))
      })
      // `halt` stops the batch once both held calls run, and releases them only when the stop is decided.
      const stopper = ToolHooks.make({
        onCall: (event) =>
          event.call.name === "halt"
            ? Effect.as(Deferred.await(bothRunning), ToolHooks.stop("enough for this turn"))
            : Effect.succeed(ToolHooks.run),
        onResult: (event) =>
          event.call.name === "halt"
            ? Effect.as(Deferred.succeed(release, undefined), ToolHooks.keep)
            : Effect.succeed(ToolHooks.keep)
      })
      class Stopping extends Context.Service<Stopping, ToolServer.ToolServer>()("test/Stopping") {}
      const calls = [
        ToolCall.make({ id: "a", name: "held", arguments: { tag: "a" } }),
        ToolCall.make({ id: "b", name: "held", arguments: { tag: "b" } }),
        ToolCall.make({ id: "c", name: "halt", arguments: { tag: "c" } }),
        ToolCall.make({ id: "d", name: "ok", arguments: { tag: "d" } }),
        ToolCall.make({ id: "e", name: "held", arguments: { tag: "e" } })
      ]
      const stopped = yield* Effect.gen(function*() {
        const tools = yield* Stopping
        return yield* Effect.flip(tools.executeAll(calls, { concurrency: 3 }))
      }).pipe(Effect.provide(ToolServer.layer(Stopping, { tools: ToolSet.make(held, halt, ok), hooks: [stopper] })))
      assert.strictEqual(stopped._tag, "ToolRunStopped")
      assert.strictEqual(stopped.reason, "enough for this turn")
      // A held call that ran once to its end: its own tag shown, its own call seen.
      const ranOnce = (id: string): Summary => ({
        callId: id,
        name: "held",
        status: "success",
        kind: undefined,
        attempts: 1,
        shown: JSON.stringify({ tag: id }),
        seen: { tag: id, callId: id, run: 1 },
        runs: 1
      })
      assert.deepStrictEqual(stopped.results.map((result) => summarize(result, probe, true)), [
        ranOnce("a"),
        ranOnce("b"),
        {
          callId: "c",
          name: "halt",
          status: "skipped",
          kind: undefined,
          attempts: 1,
          shown: "enough for this turn",
          seen: undefined,
          runs: 0
        }
      ])
      // The calls after the stop never ran; the ones in flight ran to their end.
      assert.deepStrictEqual([probe.started, probe.finalized, probe.runs.has("d"), probe.runs.has("e")], [
        2,
        2,
        false,
        false
      ])
    }))

  it.effect("calls in flight reach the server's limit and a tool's own, and never pass them", () =>
    Effect.gen(function*() {
      const probe = new Probe()
      const full = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const limit = 4
      const waiting = (name: string, annotations: Tool.Annotations) =>
        Tool.make(name, {
          description: "Runs until released",
          parameters: TagOnly,
          annotations,
          call: ({ tag }) =>
            probe.track(name, tag, () =>
              Effect.gen(function*() {
                if (probe.inFlight === limit) yield* Deferred.succeed(full, undefined)
                yield* Deferred.await(release)
                return { tag }
              }))
        })
      class Limited extends Context.Service<Limited, ToolServer.ToolServer>()("test/Limited") {}
      const calls = Array.from({ length: 20 }, (_, i) => {
        const id = `l${i}`
        return ToolCall.make({ id, name: i < 6 ? "gated" : "free", arguments: { tag: id } })
      })
      const results = yield* Effect.gen(function*() {
        const tools = yield* Limited
        const batch = yield* Effect.forkChild(tools.executeAll(calls))
        yield* Deferred.await(full)
        // Turns of the scheduler in which a call let through past a limit would start.
        for (let i = 0; i < 50; i++) yield* Effect.yieldNow
        const held = [probe.inFlight, probe.of("gated").inFlight, probe.of("free").inFlight]
        yield* Deferred.succeed(release, undefined)
        return { held, results: yield* Fiber.join(batch) }
      }).pipe(
        Effect.provide(ToolServer.layer(Limited, {
          tools: ToolSet.make(waiting("gated", { concurrency: 2 }), waiting("free", {})),
          concurrency: limit
        }))
      )
      // Two gated calls hold the tool's permits; the others wait for the tool without taking a server slot.
      assert.deepStrictEqual(results.held, [limit, 2, 2])
      assert.deepStrictEqual(
        results.results.map((result) => [result.callId, result.status]),
        calls.map((call) => [call.id, "success"])
      )
      assert.deepStrictEqual(
        [probe.maxInFlight, probe.of("gated").maxInFlight, probe.started, probe.finalized],
        [limit, 2, 20, 20]
      )
    }))

  it.live.prop(
    "any mix of calls: one result each, in call order, each as its kind says and with its own call's metadata",
    [Schema.Array(Kind).check(Schema.isMaxLength(40))],
    ([kinds]) =>
      Effect.gen(function*() {
        const probe = new Probe()
        const blocked = yield* Queue.unbounded<string>()
        const planned = kinds.map((kind, n) => plan(kind, n, hash(n) % 3, { extras: new Set(), version: 0 }))
        const results = yield* Effect.gen(function*() {
          const tools = yield* LoadTools
          return yield* tools.executeAll(planned.map((p) => p.call), { concurrency: 8 })
        }).pipe(Effect.provide(serverLayer(probe, blocked)))
        assert.deepStrictEqual(
          results.map((result, i) => summarize(result, probe, planned[i]!.checkShown)),
          planned.map((p) => p.expected)
        )
        assert.deepStrictEqual([probe.inFlight, probe.started - probe.finalized], [0, 0])
      }),
    { timeout: 20_000, arbitrary: { runs: 30 } }
  )
})
