/**
 * The per-call context of a tool. Dispatch makes a fresh one for every call.
 *
 * - Inbound values are ordinary Effect services: a tool `yield*`s the services it needs, and they become its
 *   requirement type. Tools that cannot name their needs statically use {@link get} and {@link require}.
 * - Result metadata: {@link insertResult} stores a host-only value, typed by its key, that the host reads from
 *   `ToolResult.metadata`. It is never sent to the model and never logged.
 * - Call facts: {@link callId} and {@link toolName}.
 * - Progress: {@link progress} tells whoever serves the call how far it got (an MCP client, say); outside such a
 *   transport it does nothing.
 *
 * @since 0.1.0
 */
import { Context, Data, Effect, Option } from "effect"
import { CallContext } from "./internal/callContext.ts"

/**
 * The per-call service dispatch provides to every tool: the call's id and tool name, and where its host-only
 * metadata goes. Tools use it through {@link callId}, {@link toolName} and {@link insertResult}.
 *
 * @category services
 */
export class ToolContext extends Context.Service<ToolContext, CallContext>()("effect-llm-tools/ToolContext") {}

/**
 * A value a tool required with {@link require} was not in its context. Dispatch turns it into kind `other` with the
 * model-visible message "required tool context value `<key>` was not found"; it does not go through the tool's
 * `mapError`.
 *
 * @category errors
 */
export class MissingToolContext extends Data.TaggedError("MissingToolContext")<{ readonly key: string }> {
  override get message(): string {
    return `required tool context value \`${this.key}\` was not found`
  }
}

/**
 * The id of the call being executed.
 *
 * @category accessors
 */
export const callId: Effect.Effect<string, never, ToolContext> = Effect.map(ToolContext, (ctx) => ctx.callId)

/**
 * The name of the tool being executed.
 *
 * @category accessors
 */
export const toolName: Effect.Effect<string, never, ToolContext> = Effect.map(
  ToolContext,
  (ctx) => ctx.toolName
)

/**
 * Stores a host-only value for this call, typed by its key. The host reads it with `ToolResult.metadata`.
 * A call that completes (with success or a typed failure) keeps what it inserted; a call that does not (a timeout,
 * a cancellation, a defect) leaves nothing behind.
 *
 * @example
 * ```ts
 * import { Context, Effect } from "effect"
 * import { ToolContext } from "effect-llm-tools"
 *
 * class RowsRead extends Context.Service<RowsRead, number>()("app/RowsRead") {}
 *
 * const program = ToolContext.insertResult(RowsRead, 42)
 * ```
 *
 * @category combinators
 */
export const insertResult = <I, S>(key: Context.Key<I, S>, value: NoInfer<S>): Effect.Effect<void, never, ToolContext> =>
  Effect.map(ToolContext, (ctx) => ctx.insert(key.key, value))

/**
 * An inbound value the tool cannot name statically, if the caller provided it.
 *
 * @category accessors
 */
export const get = <I, S>(key: Context.Key<I, S>): Effect.Effect<Option.Option<S>> =>
  Effect.contextWith((context: Context.Context<never>) =>
    Effect.succeed(Context.getOption(context as Context.Context<I>, key))
  )

/**
 * An inbound value the tool cannot name statically; fails with {@link MissingToolContext} when it is absent.
 *
 * @category accessors
 */
export const require = <I, S>(key: Context.Key<I, S>): Effect.Effect<S, MissingToolContext> =>
  Effect.flatMap(get(key), (option) =>
    Option.isSome(option) ? Effect.succeed(option.value) : Effect.fail(new MissingToolContext({ key: key.key })))

/**
 * One progress update of a long call: how far it got, out of `total` when that is known, and what it is doing.
 *
 * @category models
 */
export interface Progress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/**
 * Where a call's progress updates go. A transport that can carry them (the MCP server, for a request that asked for
 * progress) provides one for each call; by default updates go nowhere. A reporter never fails a call: one that
 * cannot deliver an update drops it.
 *
 * @category services
 */
export const ProgressReporter: Context.Reference<(update: Progress) => Effect.Effect<void>> = Context.Reference<
  (update: Progress) => Effect.Effect<void>
>("effect-llm-tools/ToolContext/ProgressReporter", { defaultValue: () => () => Effect.void })

/**
 * Reports how far the call got, to whoever serves it: over MCP, a `notifications/progress` when the request carried a
 * `progressToken`. Anywhere else it does nothing, so a tool can report progress wherever it runs. A `progress` or
 * `total` that is not a finite number is not sent; a transport may drop updates its protocol does not allow (MCP's
 * progress only grows).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolContext } from "effect-llm-tools"
 *
 * const copyAll = (files: ReadonlyArray<string>) =>
 *   Effect.forEach(files, (file, i) => ToolContext.progress(i + 1, files.length, `copied ${file}`))
 * ```
 *
 * @category combinators
 */
export const progress = (progress: number, total?: number, message?: string): Effect.Effect<void> =>
  Effect.contextWith((context: Context.Context<never>) =>
    Number.isFinite(progress) && (total === undefined || Number.isFinite(total))
      ? Context.get(context, ProgressReporter)({ progress, total, message })
      : Effect.void
  )
