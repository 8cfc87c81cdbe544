/**
 * What dispatch would decide about a tool's arguments, decided synchronously so that generators can keep or drop a
 * value: the same steps with the same parts (arguments read under the default limits, then the tool's JSON Schema
 * validator or the JSON codec of its `parameters` Schema with its `onExcessProperty`).
 */
import { Cause, Exit, Result } from "effect"
import * as SchemaParser from "effect/SchemaParser"
import type * as Tool from "../../Tool.ts"
import { jsonCodec } from "../../internal/codec.ts"
import { defaultLimits, parseArguments } from "../../internal/json.ts"
import { validatorOf } from "../../internal/jsonSchemaValidator.ts"

/**
 * `accepted`: the tool would run; `refused`: dispatch would answer `invalid_args`; `unknown`: it cannot be told here
 * (a Schema that decodes asynchronously, a JSON Schema that does not compile).
 */
export type Verdict = "accepted" | "refused" | "unknown"

const verdicts = new WeakMap<Tool.Any, (args: unknown) => Verdict>()

/** The verdict function of a tool, made once per tool. */
export const verdictOf = (tool: Tool.Any): (args: unknown) => Verdict => {
  let verdict = verdicts.get(tool)
  if (verdict === undefined) {
    verdict = makeVerdict(tool)
    verdicts.set(tool, verdict)
  }
  return verdict
}

const makeVerdict = (tool: Tool.Any): (args: unknown) => Verdict => {
  const check = argumentCheck(tool)
  return (args) => {
    const parsed = parseArguments(args, defaultLimits)
    return Result.isFailure(parsed.result) ? "refused" : check(parsed.result.success)
  }
}

const argumentCheck = (tool: Tool.Any): (args: unknown) => Verdict => {
  const schemas = tool.jsonSchemas
  if (schemas !== undefined) {
    const validator = validatorOf(schemas.parameters)
    return (args) => {
      const result = validator.validate(args)
      return Result.isSuccess(result) ? "accepted" : result.failure._tag === "Mismatch" ? "refused" : "unknown"
    }
  }
  const decode = SchemaParser.decodeUnknownExit(jsonCodec(tool.parameters), { onExcessProperty: tool.onExcessProperty })
  return (args) => {
    let exit: Exit.Exit<unknown, unknown>
    try {
      exit = decode(args)
    } catch {
      return "unknown"
    }
    if (Exit.isSuccess(exit)) return "accepted"
    // Only issues are a refusal; a defect here is an asynchronous step the synchronous decoder could not take.
    return exit.cause.reasons.every(Cause.isFailReason) ? "refused" : "unknown"
  }
}

/**
 * Why a tool's JSON Schema cannot check arguments at all (it does not compile), or `undefined` when it can, or the
 * tool has a Schema.
 */
export const unusableSchema = (tool: Tool.Any): string | undefined => {
  const schemas = tool.jsonSchemas
  if (schemas === undefined) return undefined
  const result = validatorOf(schemas.parameters).validate({})
  return Result.isFailure(result) && result.failure._tag === "ValidatorError" ? result.failure.reason : undefined
}
