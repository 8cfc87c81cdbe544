/**
 * Hooks around every call a `ToolServer` executes: before a call runs (`onCall`: run it, rewrite its arguments, skip
 * it, deny it, or stop the batch) and after its result is built (`onResult`: keep it, change what the model sees, or
 * stop). Human approval of risky calls is a hook too: {@link approval}, whose deferred decisions are resumed later,
 * in this process or another, with the server's `resume`.
 *
 * Hooks run in order, inside the one dispatch path: a skipped or denied call still ends in exactly one `ToolResult`,
 * timed, counted and traced like any other, and the hooks' decisions go on the call's span.
 *
 * @since 0.1.0
 */
import { Context, Data, Effect, Layer, Option, Predicate, Schema } from "effect"
import type * as ToolCall from "./ToolCall.ts"
import type * as ToolDefinition from "./ToolDefinition.ts"
import type * as ToolOutput from "./ToolOutput.ts"
import type { ToolResult } from "./ToolResult.ts"

const TypeId = "~effect-llm-tools/ToolHooks" as const

/**
 * What an `onCall` hook sees: the call as the model sent it, the tool's definition (its annotations included), the
 * parsed arguments (as rewritten by the hooks before it), which attempt this is (retries run the hooks again), and
 * whether a human already approved the call (a call resumed after a deferred {@link approval}).
 *
 * @category models
 */
export interface CallEvent {
  readonly call: ToolCall.ToolCall
  readonly tool: ToolDefinition.ToolDefinition
  /** The parsed arguments: frozen plain JSON. */
  readonly arguments: unknown
  /** 1 for the first attempt, 2 for the first retry, and so on. */
  readonly attempt: number
  /**
   * True when the call is being resumed with `ToolHooks.approve`: its arguments are the ones a human approved, and a
   * hook up to the last approval hook cannot rewrite them.
   */
  readonly approved: boolean
}

/**
 * What an `onResult` hook sees: the call, and its result (as rewritten by the hooks before it).
 *
 * @category models
 */
export interface ResultEvent {
  readonly call: ToolCall.ToolCall
  readonly result: ToolResult
}

/**
 * Which hook's decision an approval was, for the call's span.
 */
type ApprovalOutcome = "approved" | "denied" | "deferred"

/**
 * Run the call (with the arguments as they are now).
 *
 * @category models
 */
export interface Run {
  readonly _tag: "Run"
  /** @internal */
  readonly approval?: ApprovalOutcome | undefined
}

/**
 * Run the call with these arguments instead.
 *
 * @category models
 */
export interface Rewrite {
  readonly _tag: "Rewrite"
  readonly arguments: unknown
}

/**
 * Do not run the call: its status is `skipped`, and the reason is what the model sees.
 *
 * @category models
 */
export interface Skip {
  readonly _tag: "Skip"
  readonly reason: string
  /** @internal */
  readonly metadata?: Context.Context<never> | undefined
  /** @internal */
  readonly approval?: ApprovalOutcome | undefined
}

/**
 * Refuse the call: status `denied`, kind `permission_denied` with the refusal flag; the reason is what the model
 * sees.
 *
 * @category models
 */
export interface Deny {
  readonly _tag: "Deny"
  readonly reason: string
  /** @internal */
  readonly approval?: ApprovalOutcome | undefined
}

/**
 * End the batch: calls not yet started never run (one waiting for a permit has not started: its wait ends), calls in
 * flight finish (one waiting to retry ends with the result it has), and `executeAll` fails with {@link ToolRunStopped}.
 *
 * @category models
 */
export interface Stop {
  readonly _tag: "Stop"
  readonly reason: string
}

/**
 * Keep the result as it is.
 *
 * @category models
 */
export interface Keep {
  readonly _tag: "Keep"
}

/**
 * Show the model this output instead. The result's status, error and metadata stay as they were.
 *
 * @category models
 */
export interface RewriteOutput {
  readonly _tag: "RewriteOutput"
  readonly output: ToolOutput.ToolOutput
}

/**
 * What an `onCall` hook decides.
 *
 * @category models
 */
export type CallDecision = Run | Rewrite | Skip | Deny | Stop

/**
 * What an `onResult` hook decides.
 *
 * @category models
 */
export type ResultDecision = Keep | RewriteOutput | Stop

/**
 * Run the call.
 *
 * @category constructors
 */
export const run: Run = { _tag: "Run" }

/**
 * Run the call with these arguments. They are checked like the model's own (limits, then the tool's Schema), and
 * `result.arguments` shows them.
 *
 * @category constructors
 */
export const rewrite = (args: unknown): Rewrite => ({ _tag: "Rewrite", arguments: args })

/**
 * Skip the call: status `skipped`, the reason is what the model sees, the tool never runs.
 *
 * @category constructors
 */
export const skip = (reason: string): Skip => ({ _tag: "Skip", reason })

/**
 * Deny the call: status `denied`, the reason is what the model sees, the tool never runs.
 *
 * @category constructors
 */
export const deny = (reason: string): Deny => ({ _tag: "Deny", reason })

/**
 * Stop the batch (see {@link ToolRunStopped}).
 *
 * @category constructors
 */
export const stop = (reason: string): Stop => ({ _tag: "Stop", reason })

/**
 * Keep the result.
 *
 * @category constructors
 */
export const keep: Keep = { _tag: "Keep" }

/**
 * Show the model this output instead; status, error and metadata stay.
 *
 * @category constructors
 */
export const rewriteOutput = (output: ToolOutput.ToolOutput): RewriteOutput => ({ _tag: "RewriteOutput", output })

/**
 * A set of hooks: `onCall` runs before a call (once per attempt), `onResult` after its result is built (once per
 * call). A hook may use services: they join the requirement type `R`. A hook that fails, dies or throws makes that
 * call's result kind `other` (its cause kept for operators), and the batch goes on.
 *
 * @category models
 */
export interface ToolHooks<out R = never> {
  readonly [TypeId]: { readonly _R: (_: never) => R }
  readonly onCall: ((event: CallEvent) => Effect.Effect<CallDecision, unknown, R>) | undefined
  readonly onResult: ((event: ResultEvent) => Effect.Effect<ResultDecision, unknown, R>) | undefined
}

/**
 * Any hooks.
 *
 * @category models
 */
export type Any = ToolHooks<any>

/**
 * The services hooks need.
 *
 * @category models
 */
export type Requirements<H> = H extends ToolHooks<infer R> ? R : never

/**
 * True for hooks.
 *
 * @category guards
 */
export const isToolHooks = (u: unknown): u is Any => Predicate.hasProperty(u, TypeId)

/**
 * Hooks from an `onCall` and an `onResult` function, either optional.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolHooks } from "effect-llm-tools"
 *
 * const guard = ToolHooks.make({
 *   onCall: (event) =>
 *     Effect.succeed(
 *       event.tool.name === "transfer_funds" && (event.arguments as { amount: number }).amount > 10_000
 *         ? ToolHooks.deny("transfers over 10000 need a human's approval")
 *         : ToolHooks.run
 *     )
 * })
 * ```
 *
 * @category constructors
 */
export const make = <R1 = never, R2 = never>(hooks: {
  readonly onCall?: ((event: CallEvent) => Effect.Effect<CallDecision, unknown, R1>) | undefined
  readonly onResult?: ((event: ResultEvent) => Effect.Effect<ResultDecision, unknown, R2>) | undefined
}): ToolHooks<R1 | R2> => ({
  [TypeId]: { _R: (_: never) => _ },
  onCall: hooks.onCall,
  onResult: hooks.onResult
})

/**
 * The batch was stopped by a hook. `results` holds every finished result, in call order: the calls in flight when
 * it stopped finished, and the calls not yet started never ran (they have no result).
 *
 * @category errors
 */
export class ToolRunStopped extends Data.TaggedError("ToolRunStopped")<{
  readonly reason: string
  readonly results: ReadonlyArray<ToolResult>
}> {}

/**
 * A call that waits for a human's decision: what {@link approval} puts in the metadata of the `skipped` result of a
 * deferred call. It is a Schema class, so it serializes (`Schema.encodeSync(Schema.toCodecJson(PendingApproval))`)
 * and can be stored, shown to a human, and resumed later with the server's `resume`, in this process or another.
 *
 * @category models
 */
export class PendingApproval extends Schema.Class<PendingApproval>("effect-llm-tools/PendingApproval")({
  /** Unique to this request for approval: what an `ApprovalStore` remembers. */
  id: Schema.String,
  callId: Schema.String,
  toolName: Schema.String,
  /**
   * The arguments the call would run with, as the hooks before the approval left them: what the human is shown, and
   * what `resume` runs.
   */
  arguments: Schema.Json
}) {}

/**
 * The pending approval a deferred call's result carries.
 *
 * @category accessors
 */
export const pendingApproval = (result: ToolResult): Option.Option<PendingApproval> =>
  Context.getOption(result.metadata as Context.Context<PendingApprovalKey>, PendingApprovalKey)

class PendingApprovalKey extends Context.Service<PendingApprovalKey, PendingApproval>()(
  "effect-llm-tools/ToolHooks/PendingApproval"
) {}

/**
 * Approve the call: it runs.
 *
 * @category models
 */
export interface Approve {
  readonly _tag: "Approve"
}

/**
 * Decide later: the call is `skipped`, and its result carries a {@link PendingApproval}.
 *
 * @category models
 */
export interface Defer {
  readonly _tag: "Defer"
}

/**
 * What a human (or a policy) decides about a call that needs approval.
 *
 * @category models
 */
export type ApprovalDecision = Approve | Deny | Defer

/**
 * Approve the call.
 *
 * @category constructors
 */
export const approve: Approve = { _tag: "Approve" }

/**
 * Decide later (see {@link PendingApproval}).
 *
 * @category constructors
 */
export const defer: Defer = { _tag: "Defer" }

/** What the model sees for a deferred call. */
const deferredText = "this call needs a human's approval: it has not run, and its result will come later"

const defaultNeeds = (event: CallEvent): boolean =>
  event.tool.annotations.destructive === true || event.tool.annotations.needsApproval === true

/**
 * Hooks that ask for approval before a call runs. `needs` says which calls need it: by default those of tools
 * annotated `destructive` or `needsApproval`. A `needs` of your own replaces that default, annotations included: a
 * call it does not pick runs without asking. `decide` answers with {@link approve}, {@link deny} or {@link defer}.
 * A deferred call's result is `skipped` and carries a {@link PendingApproval} (read it with {@link pendingApproval});
 * the server's `resume` later runs or denies it. A call resumed with `approve` runs with the arguments the human was
 * shown: every hook sees it (approved), but a rewrite by a hook up to the last approval hook, which shaped those
 * arguments, is not applied (it may still deny, skip or stop the call). A retry of an approved call is not asked
 * about again.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolHooks } from "effect-llm-tools"
 *
 * // Nothing destructive runs until a human has looked at it.
 * const approvals = ToolHooks.approval({ decide: () => Effect.succeed(ToolHooks.defer) })
 * ```
 *
 * @category constructors
 */
export const approval = <R = never>(options: {
  readonly needs?: ((event: CallEvent) => boolean) | undefined
  readonly decide: (request: CallEvent) => Effect.Effect<ApprovalDecision, unknown, R>
}): ToolHooks<R> => {
  const needs = options.needs ?? defaultNeeds
  const decide = options.decide
  const hooks = make({
    onCall: (event) => {
      if (!needs(event)) return Effect.succeed<CallDecision>(run)
      // Approval is for the call, not for each attempt: a retry of an approved call is not asked about again.
      if (event.approved || event.attempt > 1) return Effect.succeed<CallDecision>(approvedRun)
      return Effect.flatMap(decide(event), (decision): Effect.Effect<CallDecision> => {
        switch (decision?._tag) {
          case "Approve":
            return Effect.succeed(approvedRun)
          case "Deny":
            return Effect.succeed({ _tag: "Deny", reason: String(decision.reason), approval: "denied" })
          case "Defer":
            return Effect.sync(() => {
              const pending = new PendingApproval({
                id: crypto.randomUUID(),
                callId: typeof event.call.id === "string" ? event.call.id : "",
                toolName: event.tool.name,
                arguments: event.arguments as Schema.Json
              })
              return {
                _tag: "Skip",
                reason: deferredText,
                metadata: Context.make(PendingApprovalKey, pending) as Context.Context<never>,
                approval: "deferred"
              }
            })
        }
        return Effect.die(new TypeError("an approval's decide returned something that is not a decision"))
      })
    }
  })
  // Marked with a registered symbol: hooks made by another copy of this package are recognised too.
  Object.defineProperty(hooks, approvalMark, { value: true })
  return hooks
}

const approvalMark = Symbol.for("effect-llm-tools/ToolHooks/approval")

/**
 * Whether hooks were made by {@link approval}. A `ToolServer` without such hooks cannot ask a human: it denies every
 * call of a tool annotated `needsApproval`. Hooks made anew from an approval's functions (`make({ onCall })`) are
 * not approval hooks.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolHooks } from "effect-llm-tools"
 *
 * const asking = ToolHooks.approval({ decide: () => Effect.succeed(ToolHooks.defer) })
 * ToolHooks.isApproval(asking) // true
 * ToolHooks.isApproval(ToolHooks.make({ onCall: () => Effect.succeed(ToolHooks.run) })) // false
 * ```
 *
 * @category guards
 */
export const isApproval = (hooks: Any): boolean =>
  typeof hooks === "object" && hooks !== null && (hooks as { readonly [approvalMark]?: unknown })[approvalMark] === true

const approvedRun: Run = { _tag: "Run", approval: "approved" }

/**
 * The approval was already resolved (by this process or another sharing the `ApprovalStore`): the call is not run
 * twice.
 *
 * @category errors
 */
export class ApprovalAlreadyResolved extends Data.TaggedError("ApprovalAlreadyResolved")<{
  readonly approvalId: string
  readonly callId: string
}> {}

/**
 * The approval given to `resume` is not one this server's store issued, or differs from the one it issued (another
 * tool, other arguments, another call id): nothing runs. A stored approval that was edited, forged, or given a new id
 * to run again ends here.
 *
 * @category errors
 */
export class ApprovalNotIssued extends Data.TaggedError("ApprovalNotIssued")<{
  readonly approvalId: string
  readonly callId: string
}> {}

/**
 * Remembers the approvals a server issued and which were resolved, so that only a call a human was asked about runs,
 * exactly as it was deferred, and at most once.
 *
 * - `issue` records an approval when its call is deferred, before the deferred result is returned.
 * - `issued` answers the approval recorded under an id, if any: `resume` runs an approval only if it equals the one
 *   issued (id, call id, tool name and arguments), so an edited or forged one is refused with
 *   {@link ApprovalNotIssued}.
 * - `resolve` records an approval's decision and answers `true`, or `false` if it was already resolved; it must be
 *   atomic across everything that shares the store (two processes resuming the same approval: one gets `true`).
 *
 * The default, when no store is provided, is {@link ApprovalStore.memory}, in memory and per server (an approval is
 * resumed by the server that deferred it); a durable store shared between processes replaces it with a layer. A store
 * that cannot answer should die rather than answer wrongly: `resume` then dies, and nothing runs.
 *
 * @category services
 */
export class ApprovalStore extends Context.Service<ApprovalStore, {
  readonly issue: (approval: PendingApproval) => Effect.Effect<void>
  readonly issued: (approvalId: string) => Effect.Effect<Option.Option<PendingApproval>>
  readonly resolve: (approval: PendingApproval, decision: "approved" | "denied") => Effect.Effect<boolean>
}>()("effect-llm-tools/ApprovalStore") {
  /** A store in memory: what one server issued and resolved. */
  static readonly memory = (): ApprovalStore["Service"] => {
    const issued = new Map<string, PendingApproval>()
    const resolved = new Set<string>()
    return {
      issue: (approval) =>
        Effect.sync(() => {
          issued.set(approval.id, approval)
        }),
      issued: (approvalId) => Effect.sync(() => Option.fromUndefinedOr(issued.get(approvalId))),
      resolve: (approval) =>
        Effect.sync(() => {
          if (resolved.has(approval.id)) return false
          resolved.add(approval.id)
          return true
        })
    }
  }
  /** A layer of a fresh store in memory. */
  static readonly layerMemory: Layer.Layer<ApprovalStore> = Layer.sync(ApprovalStore)(ApprovalStore.memory)
}
