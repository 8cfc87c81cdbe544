/**
 * The single view of an executed tool call. Every call produces exactly one `ToolResult`, and telemetry and the
 * provider adapters all read it.
 *
 * @since 0.1.0
 */
import { Context, Option, Predicate } from "effect"
import type * as ToolExecutionError from "./ToolExecutionError.ts"
import type * as ToolOutput from "./ToolOutput.ts"

const TypeId = "~effect-llm-tools/ToolResult" as const

/**
 * How a call ended: `success`; `error` (it failed); `denied` (the tool refused it, with
 * `ToolExecutionError.refused`); `skipped` (a hook of a `ToolServer` chose not to run it; the adapters render it as
 * skipped).
 *
 * @category models
 */
export type Status = "success" | "error" | "denied" | "skipped"

/**
 * The outcome of one tool call.
 *
 * @category models
 */
export interface ToolResultFields {
  /** The id of the call. */
  readonly callId: string
  /** The name of the tool the model asked for. */
  readonly name: string
  /**
   * The arguments as parsed, before decoding: the value parsed from JSON text, or the frozen plain JSON copy an
   * already-parsed value was read into (the raw text, or the value as given, when it could not be read).
   */
  readonly arguments: unknown
  readonly status: Status
  /**
   * What the model sees: the output on success, the error's `modelOutput` otherwise. JSON in it is a frozen copy,
   * which nothing the tool does after returning can change.
   */
  readonly output: ToolOutput.ToolOutput
  /** `Some` for `error` and `denied`. */
  readonly error: Option.Option<ToolExecutionError.ToolExecutionError>
  /** Host-only values the call inserted with `ToolContext.insertResult`. Never sent to the model. */
  readonly metadata: Context.Context<never>
  /** Wall time of the call, in milliseconds (every attempt, and the waits between them). */
  readonly durationMs: number
  /** How many attempts the call took: 1, unless a `ToolServer` retried it. Default 1. */
  readonly attempts?: number | undefined
}

/**
 * The outcome of one tool call.
 *
 * @category models
 */
export class ToolResult implements ToolResultFields {
  readonly [TypeId] = TypeId
  readonly callId: string
  readonly name: string
  readonly arguments: unknown
  readonly status: Status
  readonly output: ToolOutput.ToolOutput
  readonly error: Option.Option<ToolExecutionError.ToolExecutionError>
  readonly metadata: Context.Context<never>
  readonly durationMs: number
  readonly attempts: number
  constructor(fields: ToolResultFields) {
    this.callId = fields.callId
    this.name = fields.name
    this.arguments = fields.arguments
    this.status = fields.status
    this.output = fields.output
    this.error = fields.error
    this.metadata = fields.metadata
    this.durationMs = fields.durationMs
    this.attempts = fields.attempts ?? 1
  }
  toJSON(): unknown {
    // Metadata is host-only: it is never serialized with the result.
    return {
      _id: "ToolResult",
      callId: this.callId,
      name: this.name,
      status: this.status,
      output: this.output,
      error: Option.getOrUndefined(this.error),
      durationMs: this.durationMs,
      attempts: this.attempts
    }
  }
}

/**
 * True for a `ToolResult`.
 *
 * @category guards
 */
export const isToolResult = (u: unknown): u is ToolResult => Predicate.hasProperty(u, TypeId)

/**
 * A result.
 *
 * @category constructors
 */
export const make = (fields: ToolResultFields): ToolResult => new ToolResult(fields)

/**
 * The call succeeded.
 *
 * @category guards
 */
export const isSuccess = (result: ToolResult): boolean => result.status === "success"

/**
 * The call failed with this kind. False for refusals (status `denied`), even though their kind is
 * `permission_denied`.
 *
 * @category guards
 */
export const isErrorKind = (result: ToolResult, kind: ToolExecutionError.ToolErrorKind): boolean =>
  result.status === "error" && Option.isSome(result.error) && result.error.value.kind === kind

/**
 * A host-only value the call inserted with `ToolContext.insertResult`, by its key.
 *
 * @example
 * ```ts
 * import { Context, Option } from "effect"
 * import { ToolResult } from "effect-llm-tools"
 *
 * class AuditRecord extends Context.Service<AuditRecord, number>()("app/AuditRecord") {}
 *
 * declare const result: ToolResult.ToolResult
 * const audit: Option.Option<number> = ToolResult.metadata(result, AuditRecord)
 * ```
 *
 * @category accessors
 */
export const metadata = <I, S>(result: ToolResult, key: Context.Key<I, S>): Option.Option<S> =>
  Context.getOption(result.metadata as Context.Context<I>, key)
