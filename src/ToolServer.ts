/**
 * The long-lived dispatch service of an agent host. Tools come and go while calls run (`add`, `remove`, followed by
 * `changes`); a `snapshot` pins the tools of one model turn, so that a tool re-registered mid-turn does not change
 * what that turn's calls run; hooks rewrite, skip, deny or stop calls, and ask for approval; calls in flight are
 * limited server-wide and per tool, with load shedding; a default timeout applies to tools without their own; and
 * retryable errors are retried on a `Schedule`.
 *
 * Every call still goes through the one dispatch path and ends in one `ToolResult`. `execute` and `executeAll` never
 * fail, except with `ToolRunStopped` when a hook stops the batch, and never die.
 *
 * @since 0.1.0
 */
import { Context, Duration, Effect, Layer, Option, Predicate, PubSub, Schedule, Stream } from "effect"
import { capture, withCaptured } from "./internal/captured.ts"
import {
  concurrencyOf,
  dispatchBatch,
  dispatchOne,
  type ExecuteOptions,
  limitsOf,
  type Policy
} from "./internal/dispatch.ts"
import { canonicalJson } from "./internal/json.ts"
import { isPositiveInteger, Limiter, WaitQueue } from "./internal/limiter.ts"
import * as Tool from "./Tool.ts"
import type * as ToolCall from "./ToolCall.ts"
import type * as ToolDefinition from "./ToolDefinition.ts"
import type * as ToolExecutionError from "./ToolExecutionError.ts"
import * as ToolHooks from "./ToolHooks.ts"
import * as ToolIndex from "./ToolIndex.ts"
import type { ToolResult } from "./ToolResult.ts"
import * as ToolSet from "./ToolSet.ts"
import type * as ToolSetBuilder from "./ToolSetBuilder.ts"

const TypeId = "~effect-llm-tools/ToolServer" as const
const SnapshotTypeId = "~effect-llm-tools/ToolServer/Snapshot" as const

/**
 * The tools of one model turn, pinned: calls executed with this snapshot run these implementations, whatever is
 * registered since. `definitions` is what to offer the model.
 *
 * @category models
 */
export interface Snapshot {
  readonly [SnapshotTypeId]: typeof SnapshotTypeId
  readonly toolSet: ToolSet.Any
  readonly definitions: ReadonlyArray<ToolDefinition.ToolDefinition>
  /** The registry version the snapshot was taken at: it grows with every change. */
  readonly version: number
}

/**
 * True for a snapshot.
 *
 * @category guards
 */
export const isSnapshot = (u: unknown): u is Snapshot => Predicate.hasProperty(u, SnapshotTypeId)

/**
 * A change of the registry: a tool added, replaced (added under a name already registered) or removed, and the
 * version it made.
 *
 * @category models
 */
export interface Change {
  readonly _tag: "Added" | "Replaced" | "Removed"
  readonly name: string
  readonly version: number
}

/**
 * Options of {@link ToolServer.snapshot}: with a `query`, and tools that came from a `ToolSetBuilder`, the turn's tools
 * are the index's `topK` best matches plus the tools it does not rank (see `ToolIndex.select`). Without a query, or
 * without an index, every registered tool.
 *
 * @category models
 */
export interface SnapshotOptions {
  readonly query?: string | undefined
  /** Default 5. */
  readonly topK?: number | undefined
}

/**
 * Options of {@link ToolServer.execute}: the limits of `ToolSet.execute`, and the snapshot to run against (default:
 * the tools registered now).
 *
 * @category models
 */
export interface ServerExecuteOptions extends ExecuteOptions {
  readonly snapshot?: Snapshot | undefined
}

/**
 * Options of {@link ToolServer.executeAll}: those of `execute`, and how many of the batch's calls run at once
 * (default: all of them; the server's own `concurrency` still bounds the calls in flight).
 *
 * @category models
 */
export interface ServerExecuteAllOptions extends ServerExecuteOptions {
  readonly concurrency?: number | "unbounded" | undefined
}

/**
 * The handle of a tool server. `PerCall` is what each call brings (its inbound values); every other service the
 * tools and hooks need was captured when the layer was built, or when a tool was added.
 *
 * @category models
 */
export interface ToolServer<PerCall = never> {
  readonly [TypeId]: typeof TypeId
  /** Executes one call. Fails only with `ToolRunStopped`, when a hook stops it. */
  readonly execute: (
    call: ToolCall.ToolCall,
    options?: ServerExecuteOptions
  ) => Effect.Effect<ToolResult, ToolHooks.ToolRunStopped, PerCall>
  /**
   * Executes a batch of calls, concurrently, results in call order. Fails only with `ToolRunStopped`, which holds
   * every finished result.
   */
  readonly executeAll: (
    calls: Iterable<ToolCall.ToolCall>,
    options?: ServerExecuteAllOptions
  ) => Effect.Effect<Array<ToolResult>, ToolHooks.ToolRunStopped, PerCall>
  /**
   * Registers a tool, replacing one of the same name; calls already running keep the version they started with. The
   * services the tool needs beyond `PerCall` are required here, and captured.
   */
  readonly add: <T extends Tool.Any>(tool: T) => Effect.Effect<void, never, Exclude<Tool.Requirements<T>, PerCall>>
  /** Unregisters the tool of this name; `false` when there was none. */
  readonly remove: (name: string) => Effect.Effect<boolean>
  /** The tools of one model turn, pinned (see {@link SnapshotOptions}). */
  readonly snapshot: (options?: SnapshotOptions) => Effect.Effect<Snapshot, ToolIndex.ToolIndexError>
  /** The changes of the registry from the moment the stream is run. */
  readonly changes: Stream.Stream<Change>
  /**
   * Decides a call deferred by `ToolHooks.approval`: `approve` runs it, `deny(reason)` denies it, through the same
   * path as any call (hooks, limits, retries, telemetry), against the tools registered now. An approved call runs with
   * the arguments the human was shown: every `onCall` hook sees it, but those up to the last approval hook (which ran
   * when the call was deferred, and shaped those arguments) may only let it through, deny, skip or stop it; a rewrite
   * of theirs is not applied. The `ApprovalStore`
   * makes sure it is the approval this server issued, unchanged (else `ApprovalNotIssued`), and that it is decided
   * once: resolving it again fails with `ApprovalAlreadyResolved`. Either way, nothing runs.
   */
  readonly resume: (
    pending: ToolHooks.PendingApproval,
    decision: ToolHooks.Approve | ToolHooks.Deny
  ) => Effect.Effect<
    ToolResult,
    ToolHooks.ApprovalAlreadyResolved | ToolHooks.ApprovalNotIssued | ToolHooks.ToolRunStopped,
    PerCall
  >
}

/**
 * The options of {@link layer}.
 *
 * @category models
 */
export interface Options<T extends Tool.Any, H extends ToolHooks.Any> {
  /** The tools: a set, or what `ToolSetBuilder.build` made (its index then serves `snapshot({ query })`). */
  readonly tools: ToolSet.ToolSet<T> | ToolSetBuilder.Built<T>
  /** Run in order, for every call. */
  readonly hooks?: ReadonlyArray<H> | undefined
  /** The most calls in flight across the server; more wait their turn. Default: no limit. */
  readonly concurrency?: number | undefined
  /**
   * The most calls waiting for a permit (the server's, or a tool's own `concurrency`); one more fails at once with
   * `rate_limited`, and is not retried. Default: no limit.
   */
  readonly maxQueued?: number | undefined
  /** The timeout of a call to a tool without its own `timeout` annotation. Default: none. */
  readonly timeout?: Duration.Input | undefined
  /**
   * Retries errors whose `retryable` is true (never a `destructive` tool, unless it is `idempotent`). The schedule's
   * input is the error. Each attempt runs the `onCall` hooks again and gets a fresh `ToolContext`; the result's
   * `attempts` says how many it took.
   */
  readonly retry?: Schedule.Schedule<unknown, ToolExecutionError.ToolExecutionError> | undefined
}

/**
 * True for a tool server's handle.
 *
 * @category guards
 */
export const isToolServer = (u: unknown): u is ToolServer<unknown> => Predicate.hasProperty(u, TypeId)

/**
 * A layer that supplies a tool server under `tag`. The service type of the tag names the per-call inbound values
 * (`ToolServer<CurrentUser>`); every other requirement of the tools and hooks is captured when the layer is built,
 * and becomes the layer's requirement. An `ApprovalStore` in the layer's context is used; otherwise approvals are
 * remembered in memory.
 *
 * Throws a `TypeError` for options that cannot work: a `concurrency` or `maxQueued` that is not a whole number of
 * one or more, a `timeout` that is not a duration, a `retry` that is not a `Schedule`, hooks that are not
 * `ToolHooks`, tools that are neither a `ToolSet` nor a `ToolSetBuilder` result.
 *
 * @example
 * ```ts
 * import { Context, Effect, Schedule, Schema } from "effect"
 * import { Tool, ToolCall, ToolHooks, ToolServer, ToolSet } from "effect-llm-tools"
 *
 * const Echo = Tool.make("echo", {
 *   description: "Echo the text back",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   call: ({ text }) => Effect.succeed(text)
 * })
 *
 * class Tools extends Context.Service<Tools, ToolServer.ToolServer>()("app/Tools") {}
 *
 * const ToolsLive = ToolServer.layer(Tools, {
 *   tools: ToolSet.make(Echo),
 *   hooks: [ToolHooks.make({ onCall: () => Effect.succeed(ToolHooks.run) })],
 *   concurrency: 16,
 *   maxQueued: 1_000,
 *   timeout: "30 seconds",
 *   retry: Schedule.max([Schedule.exponential("100 millis"), Schedule.recurs(2)])
 * })
 *
 * const program = Effect.gen(function*() {
 *   const tools = yield* Tools
 *   const snapshot = yield* tools.snapshot()
 *   return yield* tools.executeAll([ToolCall.make({ id: "1", name: "echo", arguments: "{\"text\":\"hi\"}" })], {
 *     snapshot
 *   })
 * }).pipe(Effect.provide(ToolsLive))
 * ```
 *
 * @category layers
 */
export const layer = <I, PerCall, T extends Tool.Any, H extends ToolHooks.Any = never>(
  tag: Context.Key<I, ToolServer<PerCall>>,
  options: Options<T, H>
): Layer.Layer<I, never, Exclude<Tool.Requirements<T> | ToolHooks.Requirements<H>, PerCall>> => {
  const checked = checkOptions(options)
  return Layer.effect(
    tag,
    Effect.gen(function*() {
      const built = yield* Effect.context<Exclude<Tool.Requirements<T> | ToolHooks.Requirements<H>, PerCall>>()
      const captured = capture(built)
      const store = Option.getOrElse(Context.getOption(built, ToolHooks.ApprovalStore), ToolHooks.ApprovalStore.memory)
      const changes = yield* Effect.acquireRelease(PubSub.unbounded<Change>(), PubSub.shutdown)
      return makeServer<PerCall>(checked, captured, store, changes)
    })
  )
}

/** The options, checked and in the form dispatch uses. */
interface Checked {
  readonly tools: ToolSet.Any
  readonly index: ToolIndex.ToolIndex | undefined
  /** The policy, but for issuing approvals, which needs the server's store. */
  readonly policy: Omit<Policy, "issue">
}

const checkOptions = (options: Options<Tool.Any, ToolHooks.Any>): Checked => {
  const fail = (message: string): never => {
    throw new TypeError(`ToolServer.layer: ${message}`)
  }
  const tools = options.tools
  const set = ToolSet.isToolSet(tools)
    ? tools
    : Predicate.hasProperty(tools, "toolSet") && ToolSet.isToolSet(tools.toolSet)
    ? tools.toolSet
    : fail("`tools` must be a ToolSet, or the result of ToolSetBuilder.build")
  const index = !ToolSet.isToolSet(tools) && ToolIndex.isToolIndex((tools as ToolSetBuilder.Built<Tool.Any>).index)
    ? (tools as ToolSetBuilder.Built<Tool.Any>).index
    : undefined
  // Only a missing `hooks` means none: `null` is a mistake like any other value that is not an array.
  const hooks = options.hooks === undefined ? [] : options.hooks
  if (!Array.isArray(hooks) || !hooks.every(ToolHooks.isToolHooks)) {
    fail("`hooks` must be an array of ToolHooks (made with ToolHooks.make or ToolHooks.approval)")
  }
  const positive = (name: string, value: unknown): number | undefined => {
    if (value === undefined) return undefined
    return isPositiveInteger(value) ? value : fail(`\`${name}\` must be a whole number of one or more, not ${String(value)}`)
  }
  const concurrency = positive("concurrency", options.concurrency)
  const maxQueued = positive("maxQueued", options.maxQueued)
  let timeoutMs: number | undefined
  if (options.timeout !== undefined) {
    const timeout = Duration.fromInput(options.timeout)
    if (Option.isNone(timeout)) fail(`\`timeout\` is not a duration: ${String(options.timeout)}`)
    else timeoutMs = Duration.toMillis(timeout.value)
  }
  if (options.retry !== undefined && !Schedule.isSchedule(options.retry)) fail("`retry` must be a Schedule")
  return {
    tools: set,
    index,
    policy: {
      onCall: hooks.flatMap((hook) => hook.onCall === undefined ? [] : [hook.onCall]),
      approvalGates: approvalGates(hooks),
      onResult: hooks.flatMap((hook) => hook.onResult === undefined ? [] : [hook.onResult]),
      timeoutMs,
      limiter: concurrency === undefined ? undefined : new Limiter(concurrency),
      queue: maxQueued === undefined ? undefined : new WaitQueue(maxQueued),
      retry: options.retry,
      approves: hooks.some(ToolHooks.isApproval)
    }
  }
}

const makeServer = <PerCall>(
  checked: Checked,
  captured: Context.Context<never>,
  store: ToolHooks.ApprovalStore["Service"],
  changes: PubSub.PubSub<Change>
): ToolServer<PerCall> => {
  // The registry is an immutable set swapped whole: a change never waits for a running call, and a running call
  // never sees a half-made registry.
  let current: ToolSet.Any = checked.tools
  let version = 0

  const register = (change: Omit<Change, "version">, next: ToolSet.Any): Effect.Effect<void> => {
    current = next
    version++
    return Effect.asVoid(PubSub.publish(changes, { ...change, version }))
  }

  const snapshotOf = (set: ToolSet.Any, at: number): Snapshot => ({
    [SnapshotTypeId]: SnapshotTypeId,
    toolSet: set,
    definitions: ToolSet.definitions(set),
    version: at
  })

  /**
   * Records in the store the approvals the results ask for (a stopped batch's too), before the results go back:
   * only those can resume. Nothing to do for results that ask for none, the common case.
   */
  const issue = (results: ReadonlyArray<ToolResult>): Effect.Effect<void> | undefined => {
    let pending: Array<ToolHooks.PendingApproval> | undefined
    for (const result of results) {
      if (result.status !== "skipped") continue
      const approval = ToolHooks.pendingApproval(result)
      if (Option.isSome(approval)) (pending ??= []).push(approval.value)
    }
    return pending === undefined ? undefined : Effect.forEach(pending, store.issue, { discard: true })
  }
  const policy: Policy = { ...checked.policy, issue }

  const execute: ToolServer<PerCall>["execute"] = (call, options) =>
    withCaptured(
      captured,
      dispatchOne(() => registryOf(options, current), call, limitsOf(options), policy, runStopped)
    )

  const executeAll: ToolServer<PerCall>["executeAll"] = (calls, options) =>
    withCaptured(
      captured,
      Effect.suspend(() => {
        const concurrency = read(options, "concurrency")
        return dispatchBatch(
          registryOf(options, current),
          calls,
          limitsOf(options),
          concurrency === undefined ? "unbounded" : concurrencyOf(concurrency),
          policy,
          runStopped
        )
      })
    )

  return {
    [TypeId]: TypeId,
    execute,
    executeAll,
    add: (tool) =>
      Effect.contextWith((context: Context.Context<any>) => {
        if (!Tool.isTool(tool)) return Effect.die(new TypeError("ToolServer.add: not a tool"))
        const replaced = ToolSet.get(current, tool.name)._tag === "Some"
        return register(
          { _tag: replaced ? "Replaced" : "Added", name: tool.name },
          ToolSet.add(current, withServices(tool, capture(context)))
        )
      }),
    remove: (name) =>
      Effect.suspend(() => {
        if (ToolSet.get(current, name)._tag === "None") return Effect.succeed(false)
        return Effect.as(register({ _tag: "Removed", name }, ToolSet.remove(current, name)), true)
      }),
    snapshot: (options) =>
      Effect.suspend(() => {
        // The registry as it is now: a change while the index ranks the query does not leak into the snapshot.
        const set = current
        const at = version
        const query = read(options, "query")
        if (checked.index === undefined || typeof query !== "string") return Effect.succeed(snapshotOf(set, at))
        // `select` reads it as it reads its own: absent is 5, anything but a positive number none.
        const topK = read(options, "topK") as number | undefined
        return Effect.map(
          ToolIndex.select(checked.index, set, query, { topK }),
          (selected) => snapshotOf(selected, at)
        )
      }),
    changes: Stream.fromPubSub(changes),
    resume: (pending, decision) =>
      withCaptured(
        captured,
        Effect.suspend(() => {
          if (!(pending instanceof ToolHooks.PendingApproval)) {
            return Effect.die(new TypeError("ToolServer.resume: not a ToolHooks.PendingApproval"))
          }
          const tag = (decision as { readonly _tag?: unknown } | undefined)?._tag
          if (tag !== "Approve" && tag !== "Deny") {
            return Effect.die(new TypeError("ToolServer.resume: the decision must be ToolHooks.approve or ToolHooks.deny"))
          }
          const notIssued = new ToolHooks.ApprovalNotIssued({ approvalId: pending.id, callId: pending.callId })
          // Only what this server's store issued, exactly as issued: an edited or forged approval runs nothing.
          const checked = Effect.flatMap(
            store.issued(pending.id),
            (issued) =>
              Option.isSome(issued) && sameApproval(issued.value, pending) ? Effect.void : Effect.fail(notIssued)
          )
          const resolved = Effect.andThen(checked, store.resolve(pending, tag === "Approve" ? "approved" : "denied"))
          return Effect.flatMap(resolved, (first): Effect.Effect<
            ToolResult,
            ToolHooks.ApprovalAlreadyResolved | ToolHooks.ApprovalNotIssued | ToolHooks.ToolRunStopped,
            any
          > => {
            if (!first) {
              return Effect.fail(
                new ToolHooks.ApprovalAlreadyResolved({ approvalId: pending.id, callId: pending.callId })
              )
            }
            const call = { id: pending.callId, name: pending.toolName, arguments: pending.arguments }
            return dispatchOne(() => current.registry, call, limitsOf(undefined), policy, runStopped, decision)
          })
        })
      )
  }
}

/** The registry a call runs against: its snapshot's, or the current one. */
const registryOf = (options: ServerExecuteOptions | undefined, current: ToolSet.Any) => {
  const snapshot = read(options, "snapshot")
  return (isSnapshot(snapshot) ? snapshot.toolSet : current).registry
}

/** How many `onCall` hooks come up to the last approval hook, itself included (see `Policy.approvalGates`). */
const approvalGates = (hooks: ReadonlyArray<ToolHooks.Any>): number => {
  let gates = 0
  let counted = 0
  for (const hook of hooks) {
    if (hook.onCall !== undefined) counted++
    if (ToolHooks.isApproval(hook)) gates = counted
  }
  return gates
}

const runStopped = (reason: string, results: ReadonlyArray<ToolResult>): ToolHooks.ToolRunStopped =>
  new ToolHooks.ToolRunStopped({ reason, results })

/**
 * Whether an approval given to `resume` is the one issued: the same id, call id, tool name and arguments (compared as
 * JSON with sorted keys, as a store may keep them in another order). One that cannot be read is not.
 */
const sameApproval = (issued: ToolHooks.PendingApproval, given: ToolHooks.PendingApproval): boolean => {
  try {
    return issued.id === given.id && issued.callId === given.callId && issued.toolName === given.toolName &&
      canonicalJson(issued.arguments) === canonicalJson(given.arguments)
  } catch {
    return false
  }
}

/** One option, read safely: options that cannot be read are as if not given. */
const read = <O extends object, K extends keyof O>(options: O | undefined, key: K): unknown => {
  try {
    return options?.[key]
  } catch {
    return undefined
  }
}

/**
 * The tool, with the services captured when it was added under the caller's context, as the layer's are: a call's
 * own inbound values win.
 */
const withServices = (tool: Tool.Any, services: Context.Context<never>): Tool.Any => {
  const call = tool.call as (args: unknown) => unknown
  const self = Object.assign(Object.create(Object.getPrototypeOf(tool)), tool)
  self.call = (args: unknown) => {
    const program = call(args)
    return Effect.isEffect(program) ? withCaptured(services, program) : program
  }
  return self
}
