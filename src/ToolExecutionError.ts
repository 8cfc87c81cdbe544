/**
 * The one error envelope of tool execution. Every failure — bad arguments, an unknown tool, a typed tool error, a
 * defect, a timeout, an interruption — becomes a `ToolExecutionError` with a kind from a closed set.
 *
 * An error carries two messages: `message` for operators, and `modelOutput`, what the model sees. Errors made from
 * arbitrary failures ({@link fromError}) show the model only their kind's safe default; the explicit constructors
 * ({@link invalidArgs}, {@link notFound}, …) make their message model-visible, because a tool author who writes the
 * message means the model to read it.
 *
 * @since 0.1.0
 */
import { Data, Redacted, Result, Schema } from "effect"
import { dual } from "effect/Function"
import { describeError } from "./internal/describe.ts"
import * as ToolOutput from "./ToolOutput.ts"

/**
 * The closed set of failure kinds.
 *
 * @category models
 */
export type ToolErrorKind =
  | "invalid_args"
  | "timeout"
  | "cancelled"
  | "not_found"
  | "permission_denied"
  | "rate_limited"
  | "provider"
  | "network"
  | "other"

/**
 * Every kind, in a fixed order.
 *
 * @category models
 */
export const kinds: ReadonlyArray<ToolErrorKind> = [
  "invalid_args",
  "timeout",
  "cancelled",
  "not_found",
  "permission_denied",
  "rate_limited",
  "provider",
  "network",
  "other"
]

/**
 * The Schema of a kind.
 *
 * @category schemas
 */
export const ToolErrorKindSchema: Schema.Literals<ReadonlyArray<ToolErrorKind>> = Schema.Literals(kinds)

const safeDefaults: { readonly [K in ToolErrorKind]: string } = {
  invalid_args: "tool arguments were invalid",
  timeout: "tool execution timed out",
  cancelled: "tool execution was cancelled",
  not_found: "the requested tool or resource was not found",
  permission_denied: "the tool denied the request",
  rate_limited: "the tool was rate limited; try again later",
  provider: "the tool provider failed",
  network: "the tool could not reach its upstream service",
  other: "the tool failed"
}

const retryableDefaults: { readonly [K in ToolErrorKind]: boolean | undefined } = {
  invalid_args: false,
  timeout: true,
  cancelled: false,
  not_found: false,
  permission_denied: false,
  rate_limited: true,
  provider: undefined,
  network: true,
  other: undefined
}

/**
 * The text the model sees for a kind when nobody chose a message for it.
 *
 * @category accessors
 */
export const safeDefault = (kind: ToolErrorKind): string => safeDefaults[kind]

/**
 * Whether a kind is worth retrying by default; `undefined` where it depends.
 *
 * @category accessors
 */
export const defaultRetryable = (kind: ToolErrorKind): boolean | undefined => retryableDefaults[kind]

/** A text output checked (and frozen) once, so that every error that shows it is built without copying it. */
const checkedText = (text: string): ToolOutput.ToolOutput => {
  const output = ToolOutput.text(text)
  return Result.getOrElse(ToolOutput.fromReturn(output), () => output)
}

// One output per kind, shared by every error that shows it: it is frozen, nobody can change it for the others.
const safeOutputs = Object.fromEntries(kinds.map((kind) => [kind, checkedText(safeDefaults[kind])])) as {
  readonly [K in ToolErrorKind]: ToolOutput.ToolOutput
}

/**
 * The fields of a {@link ToolExecutionError}.
 *
 * @category models
 */
export interface ToolExecutionErrorFields {
  readonly kind: ToolErrorKind
  /** For operators: logs, traces, the host. */
  readonly message: string
  /** What the model sees. */
  readonly modelOutput: ToolOutput.ToolOutput
  readonly retryable: boolean | undefined
  readonly code?: string | undefined
  readonly httpStatus?: number | undefined
  /** A deliberate refusal (status `denied`), as opposed to a failure. */
  readonly refused: boolean
  /**
   * The source of the error, kept for operators. It is wrapped in `Redacted` so that `String`, `JSON.stringify`,
   * Effect's logger and `Cause.pretty` never print it; read it with {@link causeOf}.
   */
  readonly cause?: Redacted.Redacted<unknown> | undefined
}

/**
 * A failed tool call, whatever failed.
 *
 * @example
 * ```ts
 * import { ToolExecutionError } from "effect-llm-tools"
 *
 * const error = ToolExecutionError.rateLimited("search quota exhausted; retry in 30 seconds").pipe(
 *   ToolExecutionError.withHttpStatus(429)
 * )
 * ```
 *
 * @category errors
 */
export class ToolExecutionError extends Data.TaggedError("ToolExecutionError")<ToolExecutionErrorFields> {
  /**
   * Builds an error from its fields, made whole whatever JavaScript passed: a kind outside the closed set is
   * `other`; a `modelOutput` that is missing or not a valid output (see `ToolOutput.fromReturn`) is the kind's safe
   * default, and a valid one is kept as a checked, frozen copy; a `message` that is not a string says so; `refused`
   * is a boolean, and `retryable` a boolean or the kind's default; a `cause` is always `Redacted`.
   */
  constructor(fields: ToolExecutionErrorFields) {
    super(normalize(fields))
  }
  override toString(): string {
    return `ToolExecutionError(${this.kind}): ${this.message}`
  }
  override toJSON(): unknown {
    return { _tag: this._tag, kind: this.kind, message: this.message }
  }
}

/**
 * True for a `ToolExecutionError`.
 *
 * @category guards
 */
export const isToolExecutionError = (u: unknown): u is ToolExecutionError => u instanceof ToolExecutionError

/**
 * An error of `kind` whose message the model sees.
 *
 * @category constructors
 */
export const make = (kind: ToolErrorKind, message: string): ToolExecutionError =>
  new ToolExecutionError({
    kind,
    message,
    modelOutput: ToolOutput.text(message),
    retryable: retryableDefaults[kind],
    refused: false
  })

/**
 * An error of `kind` that shows the model only the kind's safe default; `message` is for operators.
 *
 * @category constructors
 */
export const makeSafe = (kind: ToolErrorKind, message: string, cause?: unknown): ToolExecutionError =>
  new ToolExecutionError({
    kind,
    message,
    modelOutput: safeOutputs[kind],
    retryable: retryableDefaults[kind],
    refused: false,
    cause: cause === undefined ? undefined : Redacted.make(cause)
  })

/**
 * The arguments were wrong; `message` tells the model what to fix.
 *
 * @category constructors
 */
export const invalidArgs = (message: string): ToolExecutionError => make("invalid_args", message)
/**
 * The tool ran out of time; `message` (the kind's default if omitted) is what the model sees.
 *
 * @category constructors
 */
export const timeout = (message: string = safeDefaults.timeout): ToolExecutionError => make("timeout", message)
/**
 * The call was cancelled; `message` (the kind's default if omitted) is what the model sees.
 *
 * @category constructors
 */
export const cancelled = (message: string = safeDefaults.cancelled): ToolExecutionError => make("cancelled", message)
/**
 * What the tool looked for does not exist; `message` tells the model what does.
 *
 * @category constructors
 */
export const notFound = (message: string): ToolExecutionError => make("not_found", message)
/**
 * The tool failed for lack of permission (status `error`; see {@link refused} for a deliberate refusal).
 *
 * @category constructors
 */
export const permissionDenied = (message: string): ToolExecutionError => make("permission_denied", message)
/**
 * The tool, or its upstream, is rate limited; retryable by default.
 *
 * @category constructors
 */
export const rateLimited = (message: string): ToolExecutionError => make("rate_limited", message)
/**
 * The service behind the tool failed.
 *
 * @category constructors
 */
export const provider = (message: string): ToolExecutionError => make("provider", message)
/**
 * The tool could not reach its upstream service; retryable by default.
 *
 * @category constructors
 */
export const network = (message: string): ToolExecutionError => make("network", message)
/**
 * Any other failure, with a message the model sees.
 *
 * @category constructors
 */
export const other = (message: string): ToolExecutionError => make("other", message)

/**
 * A deliberate refusal: kind `permission_denied` with `refused: true`, so the call's status is `denied`, not `error`.
 * The message is model-visible.
 *
 * @category constructors
 */
export const refused = (message: string): ToolExecutionError =>
  new ToolExecutionError({ ...fieldsOf(make("permission_denied", message)), refused: true })

/**
 * Folds any failure into an error: a `ToolExecutionError` passes through (made whole again, as its constructor
 * would, if its fields were changed after it was built); anything else becomes kind `other`, the model sees the
 * safe default, and the original is kept as `cause` for operators. This is a tool's default `mapError`. Never
 * throws.
 *
 * @category constructors
 */
export const fromError = (error: unknown): ToolExecutionError => {
  let isError: boolean
  try {
    isError = isToolExecutionError(error)
  } catch {
    // A proxy whose prototype cannot be read.
    isError = false
  }
  if (isError) return whole(error as ToolExecutionError)
  return makeSafe("other", `tool failed with ${describeError(error)}`, error)
}

/**
 * An error as its constructor would have made it: the same object when its fields are whole, a normalized copy when
 * they were changed after it was built (or it was never built by the constructor at all, `Object.create`, say).
 */
const whole = (error: ToolExecutionError): ToolExecutionError => {
  let fields: ToolExecutionErrorFields
  try {
    fields = fieldsOf(error)
  } catch {
    return makeSafe("other", "a ToolExecutionError whose fields could not be read", error)
  }
  const normalized = normalize(fields)
  return normalized.kind === fields.kind && normalized.message === fields.message &&
      normalized.modelOutput === fields.modelOutput && normalized.retryable === fields.retryable &&
      normalized.code === fields.code && normalized.httpStatus === fields.httpStatus &&
      normalized.refused === fields.refused && normalized.cause === fields.cause
    ? error
    : new ToolExecutionError(normalized)
}

const isKind = (u: unknown): u is ToolErrorKind => typeof u === "string" && Object.hasOwn(safeDefaults, u)

/** What the model is shown: a valid output as its checked copy, anything else as the kind's safe default. */
const modelOutputOf = (output: unknown, kind: ToolErrorKind): ToolOutput.ToolOutput => {
  try {
    // A plain object carrying the output's type id is not an output: fromReturn would make JSON of it.
    if (!ToolOutput.isToolOutput(output) || Object.getPrototypeOf(output) === Object.prototype) return safeOutputs[kind]
  } catch {
    return safeOutputs[kind]
  }
  const checked = ToolOutput.fromReturn(output)
  return Result.isSuccess(checked) ? checked.success : safeOutputs[kind]
}

/** The fields of an error made whole; each field of `fields` is read once. */
const normalize = (fields: unknown): ToolExecutionErrorFields => {
  let kind: unknown, message: unknown, modelOutput: unknown, retryable: unknown
  let code: unknown, httpStatus: unknown, refused: unknown, cause: unknown
  try {
    if (typeof fields === "object" && fields !== null) {
      const given = fields as { readonly [K in keyof ToolExecutionErrorFields]?: unknown }
      kind = given.kind
      message = given.message
      modelOutput = given.modelOutput
      retryable = given.retryable
      code = given.code
      httpStatus = given.httpStatus
      refused = given.refused
      cause = given.cause
    }
  } catch {
    // Fields from a throwing getter or proxy trap: those read so far are kept, the rest get their defaults.
  }
  const checkedKind: ToolErrorKind = isKind(kind) ? kind : "other"
  return {
    kind: checkedKind,
    message: typeof message === "string"
      ? message
      : message === undefined
      ? safeDefaults[checkedKind]
      : `a ToolExecutionError was built with a message that is ${describeError(message)}, not a string`,
    modelOutput: modelOutputOf(modelOutput, checkedKind),
    retryable: typeof retryable === "boolean" ? retryable : retryableDefaults[checkedKind],
    code: typeof code === "string" ? code : undefined,
    httpStatus: typeof httpStatus === "number" && Number.isFinite(httpStatus) ? httpStatus : undefined,
    refused: refused === true,
    cause: cause === undefined || isRedacted(cause)
      ? cause as Redacted.Redacted<unknown> | undefined
      : Redacted.make(cause)
  }
}

const isRedacted = (u: unknown): boolean => {
  try {
    return Redacted.isRedacted(u)
  } catch {
    return false
  }
}

/**
 * The original failure behind an error, if it has one.
 *
 * @category accessors
 */
export const causeOf = (error: ToolExecutionError): unknown =>
  error.cause === undefined ? undefined : Redacted.value(error.cause)

const fieldsOf = (error: ToolExecutionError): ToolExecutionErrorFields => ({
  kind: error.kind,
  message: error.message,
  modelOutput: error.modelOutput,
  retryable: error.retryable,
  code: error.code,
  httpStatus: error.httpStatus,
  refused: error.refused,
  cause: error.cause
})

const update = (error: ToolExecutionError, patch: Partial<ToolExecutionErrorFields>): ToolExecutionError =>
  new ToolExecutionError({ ...fieldsOf(error), ...patch })

/**
 * Replaces what the model sees.
 *
 * @category combinators
 */
export const withModelOutput: {
  (output: ToolOutput.ToolOutput): (self: ToolExecutionError) => ToolExecutionError
  (self: ToolExecutionError, output: ToolOutput.ToolOutput): ToolExecutionError
} = dual(2, (self: ToolExecutionError, output: ToolOutput.ToolOutput) => update(self, { modelOutput: output }))

/**
 * Replaces what the model sees with a text telling it how to recover.
 *
 * @category combinators
 */
export const withModelFeedback: {
  (text: string): (self: ToolExecutionError) => ToolExecutionError
  (self: ToolExecutionError, text: string): ToolExecutionError
} = dual(2, (self: ToolExecutionError, text: string) => update(self, { modelOutput: ToolOutput.text(text) }))

/**
 * Shows the model only the kind's safe default again.
 *
 * @category combinators
 */
export const redact = (self: ToolExecutionError): ToolExecutionError =>
  update(self, { modelOutput: safeOutputs[self.kind] })

/**
 * Says whether the call is worth retrying.
 *
 * @category combinators
 */
export const withRetryable: {
  (retryable: boolean): (self: ToolExecutionError) => ToolExecutionError
  (self: ToolExecutionError, retryable: boolean): ToolExecutionError
} = dual(2, (self: ToolExecutionError, retryable: boolean) => update(self, { retryable }))

/**
 * Attaches a machine-readable code for hosts (never shown to the model by the library).
 *
 * @category combinators
 */
export const withCode: {
  (code: string): (self: ToolExecutionError) => ToolExecutionError
  (self: ToolExecutionError, code: string): ToolExecutionError
} = dual(2, (self: ToolExecutionError, code: string) => update(self, { code }))

/**
 * Attaches the HTTP status of the upstream failure, for hosts.
 *
 * @category combinators
 */
export const withHttpStatus: {
  (status: number): (self: ToolExecutionError) => ToolExecutionError
  (self: ToolExecutionError, status: number): ToolExecutionError
} = dual(2, (self: ToolExecutionError, httpStatus: number) => update(self, { httpStatus }))

/**
 * Keeps `cause` as the source of the error, for operators only.
 *
 * @category combinators
 */
export const withCause: {
  (cause: unknown): (self: ToolExecutionError) => ToolExecutionError
  (self: ToolExecutionError, cause: unknown): ToolExecutionError
} = dual(2, (self: ToolExecutionError, cause: unknown) => update(self, { cause: Redacted.make(cause) }))
