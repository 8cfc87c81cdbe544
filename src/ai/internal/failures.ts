/**
 * How the outcome of an effect/ai tool handler becomes ours when the tool runs through our dispatch: a success is
 * encoded as effect/ai would encode it for the model, and a failure folds into our one error, `ToolExecutionError`
 * (effect/ai's own errors by their reason, a tool's declared failures by its failure mode).
 */
import { Effect, Result } from "effect"
import { AiError, type Tool as AiTool } from "effect/ai"
import * as SchemaParser from "effect/SchemaParser"
import type * as SchemaIssue from "effect/SchemaIssue"
import { jsonCodec } from "../../internal/codec.ts"
import { describeError } from "../../internal/describe.ts"
import { bounded, formatIssues } from "../../internal/issues.ts"
import * as ToolExecutionError from "../../ToolExecutionError.ts"
import * as ToolOutput from "../../ToolOutput.ts"

/** The kind each of effect/ai's error reasons means for a tool call. */
const kindOfReason: { readonly [Tag in AiError.AiErrorReason["_tag"]]: ToolExecutionError.ToolErrorKind } = {
  RateLimitError: "rate_limited",
  QuotaExhaustedError: "rate_limited",
  AuthenticationError: "permission_denied",
  ContentPolicyError: "permission_denied",
  InvalidRequestError: "provider",
  InvalidResponseError: "provider",
  InternalProviderError: "provider",
  NetworkError: "network",
  InvalidOutputError: "provider",
  StructuredOutputError: "provider",
  UnsupportedSchemaError: "other",
  UnknownError: "other",
  ToolNotFoundError: "not_found",
  ToolParameterValidationError: "invalid_args",
  InvalidToolResultError: "other",
  ToolResultEncodingError: "other",
  ToolConfigurationError: "other",
  ToolkitRequiredError: "other",
  InvalidUserInputError: "invalid_args"
}

/**
 * An effect/ai error as ours: the kind its reason means, the kind's safe default for the model (an effect/ai message
 * may quote what was sent), its own message and the error itself for operators.
 */
const fromAiError = (
  toolName: string,
  reason: AiError.AiErrorReason,
  error: unknown
): ToolExecutionError.ToolExecutionError => {
  const tag = reason._tag
  return ToolExecutionError.makeSafe(
    Object.hasOwn(kindOfReason, tag) ? kindOfReason[tag] : "other",
    `effect/ai tool \`${bounded(toolName)}\` failed with ${tag}: ${bounded(String(reason.message))}`,
    error
  )
}

/**
 * What folds an effect/ai tool's outcomes into ours, made once per tool: its Schemas' encoders are built once, not
 * on every call.
 */
export interface Outcomes {
  /** A handler's success as effect/ai would encode it for the model; a value its Schema refuses is kind `other`. */
  readonly success: (value: unknown) => Effect.Effect<unknown, ToolExecutionError.ToolExecutionError>
  /**
   * A handler's failure as our error:
   *
   * - a `ToolExecutionError` passes through (a handler written for this library decides what the model sees);
   * - effect/ai's errors (`AiError`, or a bare reason) by their reason;
   * - a declared failure of a tool in failure mode `"return"` is what effect/ai would show the model: its encoding
   *   with the tool's failure Schema is the model-visible output (kind `other`);
   * - any other failure (of a tool in `"error"` mode, whose failures effect/ai never shows the model, or one its
   *   Schema refuses) shows the model only the safe default, and is kept as the cause.
   */
  readonly failure: (error: unknown) => Effect.Effect<ToolExecutionError.ToolExecutionError>
}

const issueText = (issue: SchemaIssue.Issue): string => {
  try {
    return formatIssues(issue)
  } catch {
    return "- $: the value does not match"
  }
}

type Encode = (value: unknown) => Effect.Effect<unknown, SchemaIssue.Issue>

/** The outcomes of `tool`'s handler. */
export const outcomesOf = (tool: AiTool.Any): Outcomes => {
  const name = bounded(tool.name)
  // `toToolSet` takes only tools whose Schemas need no services. Encoded to JSON, as a provider sends it: a `Date`
  // becomes its ISO text, a `URL` its href, a `bigint` its digits, where the Schema's own encoding keeps them as they
  // are (and our output, which must be JSON, would refuse them).
  const encodeSuccess = SchemaParser.encodeUnknownEffect(jsonCodec(tool.successSchema)) as Encode
  const encodeFailure = tool.failureMode === "return"
    ? SchemaParser.encodeUnknownEffect(jsonCodec(tool.failureSchema)) as Encode
    : undefined
  return {
    success: (value) =>
      Effect.mapError(encodeSuccess(value), (issue) =>
        ToolExecutionError.makeSafe(
          "other",
          `effect/ai tool \`${name}\` returned a result its success Schema refuses:\n${issueText(issue)}`,
          value
        )),
    failure: (error) => {
      if (ToolExecutionError.isToolExecutionError(error)) return Effect.succeed(error)
      if (AiError.isAiError(error)) return Effect.succeed(fromAiError(tool.name, error.reason, error))
      if (AiError.isAiErrorReason(error)) return Effect.succeed(fromAiError(tool.name, error, error))
      const message = `effect/ai tool \`${name}\` failed with ${describeError(error)}`
      const safe = ToolExecutionError.makeSafe("other", message, error)
      if (encodeFailure === undefined) return Effect.succeed(safe)
      return Effect.match(encodeFailure(error), {
        onFailure: () => safe,
        onSuccess: (encoded) => {
          const output = ToolOutput.fromReturn(encoded === undefined ? null : encoded)
          return Result.isSuccess(output) ? ToolExecutionError.withModelOutput(safe, output.success) : safe
        }
      })
    }
  }
}
