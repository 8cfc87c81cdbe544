/**
 * What the providers' strict-mode compilers share: the error they fail with, the way a compiler refuses a node, and
 * running a compilation once per tool definition.
 */
import { Data, Result } from "effect"
import type * as ToolDefinition from "../ToolDefinition.ts"
import { bounded } from "./issues.ts"

/**
 * A strict tool's parameters schema cannot be compiled for the provider's strict mode (OpenAI strict mode, Anthropic
 * strict tool use). It names the tool, the JSON Pointer of the refused node inside the parameters schema and the
 * keyword. Raised when the definitions are built, never later: the tool is not offered with a schema the API would
 * refuse or the model could not follow. The same class in every adapter.
 */
export class StrictSchemaError extends Data.TaggedError("StrictSchemaError")<{
  /** The tool whose schema was refused. */
  readonly toolName: string
  /** A JSON Pointer to the refused node, inside the parameters schema. */
  readonly path: string
  /** The keyword strict mode cannot express. */
  readonly keyword: string
  readonly message: string
}> {}

/** Thrown by a compiler, deep in a schema, for a node strict mode cannot express; caught by {@link strictCompiler}. */
export class Refusal {
  readonly path: string
  readonly keyword: string
  readonly reason: string
  constructor(path: string, keyword: string, reason: string) {
    this.path = path
    this.keyword = keyword
    this.reason = reason
  }
}

/**
 * The refusal of an object whose keys are not described (`{ "type": "object" }`, any keys), below the top: strict
 * mode closes every object, so the model could only ever send `{}` in its place.
 */
export const undescribedKeys = (path: string): Refusal =>
  new Refusal(
    path,
    "properties",
    "an object of keys it does not describe cannot be expressed in strict mode (closed, it could only be {}): " +
      "describe its properties, or close it with additionalProperties: false"
  )

/**
 * Keywords that change the shape of the data in ways neither OpenAI's strict mode nor Anthropic's strict tool use
 * can express (tuples, conditionals, negation, pattern-keyed or dependent properties, `contains`, `unevaluated*`):
 * both compilers refuse them. OpenAI also refuses `allOf`, which Anthropic supports. Draft-07's `dependencies` is
 * `dependentRequired` and `dependentSchemas` in one keyword (and the validator checks it in every draft): refused
 * as they are.
 */
export const unsupportedShapeKeywords: ReadonlySet<string> = new Set([
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "patternProperties",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "prefixItems",
  "contains",
  "minContains",
  "maxContains"
])

/**
 * Throws a `Refusal` for the first keyword of `node` in `keywords`. Run before a node's keywords are compiled, so a
 * tuple is refused for its `prefixItems` rather than for whatever its other keywords happen to be.
 */
export const refuseKeywords = (
  node: Readonly<Record<string, unknown>>,
  path: string,
  keywords: ReadonlySet<string>,
  mode: string
): void => {
  for (const key of Object.keys(node)) {
    if (keywords.has(key)) throw new Refusal(path, key, `\`${key}\` is not supported in ${mode}`)
  }
}

/**
 * Throws a `Refusal` for a node that says nothing about its values' type: none of `typed` is present. Strict modes
 * need a type (or a union, reference or literal) on every node; `{}` (an unknown or any-JSON value) has none.
 */
export const refuseUntyped = (
  node: Readonly<Record<string, unknown>>,
  path: string,
  typed: ReadonlyArray<string>,
  mode: string
): void => {
  if (!typed.some((key) => node[key] !== undefined)) {
    throw new Refusal(path, "type", `a schema without a type (any JSON value) cannot be expressed in ${mode}`)
  }
}

/**
 * Why a node's `required` cannot be offered: it names a key its `properties` (`declared`) do not declare, which a
 * model could never send where only the declared keys are offered. `undefined` when every key is declared.
 */
export const undeclaredRequired = (declared: unknown, required: unknown): string | undefined => {
  const properties = typeof declared === "object" && declared !== null ? declared : {}
  const key = (Array.isArray(required) ? required : []).find((key: unknown) =>
    typeof key !== "string" || !Object.hasOwn(properties, key)
  )
  return key === undefined
    ? undefined
    : `\`required\` names \`${bounded(String(key))}\`, which \`properties\` does not declare`
}

/** A key as a JSON Pointer segment. */
export const escapePointer = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1")

/**
 * A provider's strict compilation, run once per definition (definitions are cached per tool, so a tool is compiled
 * once) and turned into a `Result`: a `Refusal` thrown by `compile` becomes a {@link StrictSchemaError} naming
 * `mode` ("OpenAI strict mode", say).
 */
export const strictCompiler = <A>(
  mode: string,
  compile: (definition: ToolDefinition.ToolDefinition) => A
): (definition: ToolDefinition.ToolDefinition) => Result.Result<A, StrictSchemaError> => {
  const cache = new WeakMap<ToolDefinition.ToolDefinition, Result.Result<A, StrictSchemaError>>()
  return (definition) => {
    const cached = cache.get(definition)
    if (cached !== undefined) return cached
    let result: Result.Result<A, StrictSchemaError>
    try {
      result = Result.succeed(compile(definition))
    } catch (error) {
      if (!(error instanceof Refusal)) throw error
      const path = error.path === "" ? "/" : error.path
      result = Result.fail(
        new StrictSchemaError({
          toolName: definition.name,
          path,
          keyword: error.keyword,
          message: `tool \`${definition.name}\` cannot use ${mode}: ${error.reason} (at ${path})`
        })
      )
    }
    cache.set(definition, result)
    return result
  }
}
