/**
 * Test your tools the way this library tests itself: with arguments generated from their schemas, arguments they
 * must refuse, and a property that dispatch answers every call, however broken, with exactly one result.
 *
 * The generators are Effect's own property-testing `Arbitrary` values (`effect/Arbitrary`), which
 * `@effect/vitest`'s `it.prop` and `it.effect.prop` take as they take Schemas, and which `Arbitrary.checkEffect` and
 * `Arbitrary.sampleEffect` run anywhere else. They play the part fast-check's arbitraries play elsewhere; no
 * fast-check is needed.
 *
 * @since 0.1.0
 */
import { Arbitrary, Data, Effect, Exit, Result, Schema } from "effect"
import * as SchemaParser from "effect/SchemaParser"
import * as Tool from "../Tool.ts"
import * as ToolSet from "../ToolSet.ts"
import { finiteNumbers, jsonCodec } from "../internal/codec.ts"
import { bounded } from "../internal/issues.ts"
import { hostileKinds, type HostileKind, type MalformedKind, malformedKinds } from "./internal/hostile.ts"
import { invalidArgumentsOf, marker } from "./internal/invalidArguments.ts"
import { Compiler, NoValue, oneOf, pick, UnsupportedSchema } from "./internal/jsonSchemaArbitrary.ts"
import { build, describeCall, describeCause, problemOf } from "./internal/totality.ts"
import { unusableSchema, verdictOf } from "./internal/verdict.ts"

/** A scripted `LanguageModel` for tests of tool loops: it replays assistant turns and records what it was sent. */
export {
  isScriptExhausted,
  type OfferedTool,
  ScriptedModel,
  scriptedModel,
  type ScriptedPart,
  type ScriptedRequest,
  type ScriptedText,
  type ScriptedToolCall,
  type ScriptedTurn
} from "./scriptedModel.ts"

// -------------------------------------------------------------------------------------------------------------
// arbitraryArguments
// -------------------------------------------------------------------------------------------------------------

const argumentArbitraries = new WeakMap<Tool.Any, Arbitrary.Arbitrary<Schema.JsonObject>>()

const refusal = (caller: string, tool: Tool.Any, reason: string): TypeError =>
  new TypeError(`ToolTesting.${caller}: tool \`${bounded(tool.name)}\`: ${reason}`)

const notATool = (caller: string): TypeError => new TypeError(`ToolTesting.${caller}: expected a tool`)

/**
 * A value as JSON text gives it back (what a model can send), or `undefined` for one JSON text cannot hold (a Schema
 * of `Unknown` makes anything).
 */
const asSent = (value: unknown): Schema.Json | undefined => {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? undefined : JSON.parse(text) as Schema.Json
  } catch {
    return undefined
  }
}

const fromSchema = (tool: Tool.Any): Arbitrary.Arbitrary<unknown> => {
  let typed: Arbitrary.Arbitrary<unknown>
  let encode: (value: unknown) => Exit.Exit<unknown, unknown>
  try {
    // Numbers as dispatch decodes them: finite, which is all a JSON number can be.
    typed = Arbitrary.schema(finiteNumbers(tool.parameters))
    encode = SchemaParser.encodeUnknownExit(jsonCodec(tool.parameters))
  } catch (cause) {
    throw refusal(
      "arbitraryArguments",
      tool,
      `Effect cannot derive values of its parameters Schema: ${cause instanceof Error ? cause.message : String(cause)}`
    )
  }
  return Arbitrary.filterMap(typed, (value): Result.Result<unknown, unknown> => {
    const encoded = encode(value)
    return Exit.isSuccess(encoded) ? Result.succeed(encoded.value) : Result.fail(value)
  })
}

const fromJsonSchema = (tool: Tool.Any, parameters: object): Arbitrary.Arbitrary<unknown> => {
  const unusable = unusableSchema(tool)
  if (unusable !== undefined) {
    throw refusal("arbitraryArguments", tool, `its parameters JSON Schema cannot check arguments: ${unusable}`)
  }
  try {
    return new Compiler(parameters).root()
  } catch (error) {
    if (error instanceof UnsupportedSchema) {
      throw refusal("arbitraryArguments", tool, `no arguments can be built for its JSON Schema: ${error.message}`)
    }
    if (error instanceof NoValue) {
      throw refusal(
        "arbitraryArguments",
        tool,
        `its JSON Schema admits no arguments that can be built: ${error.message}`
      )
    }
    throw error
  }
}

/**
 * Valid arguments for a tool, as a model sends them: JSON objects that dispatch accepts and hands to the tool's
 * `call`. Send each as it is, or as text with `JSON.stringify`.
 *
 * It is an Effect `Arbitrary` (`effect/Arbitrary`, Effect's counterpart of a fast-check arbitrary): pass it to
 * `it.prop` or `it.effect.prop` from `@effect/vitest`, or run it with `Arbitrary.checkEffect`.
 *
 * - **A tool with a `parameters` Schema:** values of the Schema's type, from Effect's Schema-to-arbitrary
 *   derivation, encoded with the JSON codec dispatch decodes with.
 * - **A tool with a JSON Schema** (`DynamicTool`, a tool imported from an MCP server): values built from the schema,
 *   draft-06 to 2020-12. Built are `type` (nullable types too), `enum`, `const`, `properties`, `required`,
 *   `additionalProperties`, `patternProperties` (keys are made from each pattern, unless it has a lookaround, word
 *   boundary, backreference, Unicode property escape or inline modifier), `dependentRequired`, `minProperties`,
 *   `maxProperties`, `items` (tuples too), `prefixItems`, `additionalItems`, `minItems`, `maxItems`, `uniqueItems`,
 *   `contains`, `minLength` and `maxLength`, `pattern`, every `format` the validator checks, `minimum`, `maximum`
 *   (exclusive too), `multipleOf`, `allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`, and local `$ref`s (to `$defs`,
 *   `definitions`, any pointer, or an anchor). Recursive schemas are unrolled three levels.
 *
 * **Never an invalid value.** Every value is checked with the tool's own check, as dispatch makes it (its JSON Schema
 * validator, or its Schema's decoding, under the default argument limits), and dropped when refused or when it cannot
 * be checked here (a Schema that decodes asynchronously). Keywords that are only checked, not built (`not`,
 * `propertyNames`, `dependentSchemas`, `unevaluated*`, `oneOf`'s one-branch rule), work that way. A
 * schema whose values are mostly dropped ends a property as exhausted (Effect's report says how many values were
 * discarded), never with invalid values.
 *
 * Throws a `TypeError` naming the tool and the reason when no values can be built: a schema that references another
 * document or uses `$dynamicRef`/`$recursiveRef`, a pattern with a lookaround, word boundary, backreference, Unicode
 * property escape or inline modifier, a schema that admits no object (or only through endless recursion), a JSON
 * Schema that does not compile, or a parameters Schema Effect cannot derive values of.
 *
 * @example
 * ```ts
 * import { assert, describe, it } from "@effect/vitest"
 * import { Effect } from "effect"
 * import { DynamicTool, ToolSet } from "effect-llm-tools"
 * import { ToolTesting } from "effect-llm-tools/testing"
 *
 * const SearchDocs = DynamicTool.make("search_docs", {
 *   description: "Search the product docs",
 *   parameters: {
 *     type: "object",
 *     properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1, maximum: 20 } },
 *     required: ["query"],
 *     additionalProperties: false
 *   },
 *   call: (args) => Effect.succeed({ hits: [], query: args.query })
 * })
 * const set = ToolSet.make(SearchDocs)
 *
 * describe("search_docs", () => {
 *   it.effect.prop("runs with any valid arguments", [ToolTesting.arbitraryArguments(SearchDocs)], ([args]) =>
 *     Effect.gen(function*() {
 *       const result = yield* ToolSet.execute(set, { id: "1", name: "search_docs", arguments: JSON.stringify(args) })
 *       assert.strictEqual(result.status, "success")
 *     }))
 * })
 * ```
 *
 * @category generators
 */
export const arbitraryArguments = (tool: Tool.Any): Arbitrary.Arbitrary<Schema.JsonObject> => {
  if (!Tool.isTool(tool)) throw notATool("arbitraryArguments")
  const known = argumentArbitraries.get(tool)
  if (known !== undefined) return known
  const parameters = tool.jsonSchemas?.parameters
  const generated = parameters === undefined ? fromSchema(tool) : fromJsonSchema(tool, parameters)
  const verdict = verdictOf(tool)
  const checked = Arbitrary.filterMap(generated, (value): Result.Result<Schema.JsonObject, unknown> => {
    const sent = asSent(value)
    // Arguments are a JSON object: dispatch takes `null` or blank text for `{}`, which a model never sends as such
    // (a tool of `Schema.Any` parameters would get them).
    return isJsonObject(sent) && verdict(sent) === "accepted" ? Result.succeed(sent) : Result.fail(value)
  })
  argumentArbitraries.set(tool, checked)
  return checked
}

// -------------------------------------------------------------------------------------------------------------
// invalidArguments
// -------------------------------------------------------------------------------------------------------------

const invalidArbitraries = new WeakMap<Tool.Any, Arbitrary.Arbitrary<Schema.Json>>()

/** Objects of any JSON, for a tool whose valid arguments cannot be built: near misses are made from these instead. */
const anyObject: Arbitrary.Arbitrary<Schema.JsonObject> = Arbitrary.schema(Schema.Record(Schema.String, Schema.Json))

/**
 * Arguments a tool must refuse: dispatch answers each with kind `invalid_args`, and the tool never runs.
 *
 * - Most are near misses, made from {@link arbitraryArguments}: one required key gone, one value of the wrong type
 *   or out of bounds, one key the schema does not allow (`additionalProperties: false`, or a Schema tool made with
 *   `onExcessProperty: "error"`), as an object or as its JSON text. Each is kept only when the tool's own check
 *   refuses it, so a tool that accepts more gets fewer near misses, never a value it accepts.
 * - The rest are refused by any tool: broken JSON text (cut short, or with something after it), JSON text or values
 *   that are not objects, and nesting deeper than the default argument limit (64 levels).
 *
 * Values are plain JSON, so a failing property prints them. Refusal holds under the default argument limits: a host
 * that raises `maxArgumentDepth` accepts the deepest ones. For a tool whose valid arguments cannot be built (see
 * {@link arbitraryArguments}), near misses are made from arbitrary JSON objects instead. Throws a `TypeError` for
 * anything that is not a tool.
 *
 * @example
 * ```ts
 * import { assert, it } from "@effect/vitest"
 * import { Effect, Option, Schema } from "effect"
 * import { Tool, ToolSet } from "effect-llm-tools"
 * import { ToolTesting } from "effect-llm-tools/testing"
 *
 * const Add = Tool.make("add", {
 *   description: "Add two integers",
 *   parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
 *   onExcessProperty: "error",
 *   call: ({ left, right }) => Effect.succeed(left + right)
 * })
 *
 * it.effect.prop("refuses what it must", [ToolTesting.invalidArguments(Add)], ([args]) =>
 *   Effect.gen(function*() {
 *     const result = yield* ToolSet.execute(ToolSet.make(Add), { id: "1", name: "add", arguments: args })
 *     assert.deepStrictEqual(Option.map(result.error, (error) => error.kind), Option.some("invalid_args"))
 *   }))
 * ```
 *
 * @category generators
 */
export const invalidArguments = (tool: Tool.Any): Arbitrary.Arbitrary<Schema.Json> => {
  if (!Tool.isTool(tool)) throw notATool("invalidArguments")
  const known = invalidArbitraries.get(tool)
  if (known !== undefined) return known
  let valid: Arbitrary.Arbitrary<Schema.JsonObject>
  try {
    valid = arbitraryArguments(tool)
  } catch {
    valid = anyObject
  }
  const invalid = invalidArgumentsOf(tool, valid)
  invalidArbitraries.set(tool, invalid)
  return invalid
}

// -------------------------------------------------------------------------------------------------------------
// checkTotal
// -------------------------------------------------------------------------------------------------------------

/**
 * The arguments of a generated call, as plain data: built into what is sent only when the property runs.
 *
 * - `Valid`: from {@link arbitraryArguments}, sent as the value or as its JSON text.
 * - `Invalid`: from {@link invalidArguments}.
 * - `Garbage`: text that is no JSON.
 * - `Hostile`: a value that is no JSON or is past the limits (a cycle, a proxy or getter that throws, a bigint, a
 *   class instance, 5,000 levels of nesting, more than 1 MiB), named by its kind.
 *
 * @category models
 */
export type GeneratedArguments =
  | { readonly _tag: "Valid"; readonly value: Schema.JsonObject; readonly asText: boolean }
  | { readonly _tag: "Invalid"; readonly value: Schema.Json }
  | { readonly _tag: "Garbage"; readonly text: string }
  | { readonly _tag: "Hostile"; readonly kind: HostileKind }

/**
 * One generated call, as plain data: a call (to a tool of the set, or to a name it does not have), or an entry of
 * the list that is no call at all (`null`, a number, a proxy that throws...), named by its kind.
 *
 * @category models
 */
export type GeneratedCall =
  | {
    readonly _tag: "Call"
    readonly id: string
    readonly name: string
    /** Whether the set has a tool of this name. */
    readonly known: boolean
    readonly arguments: GeneratedArguments
  }
  | { readonly _tag: "Malformed"; readonly kind: MalformedKind }

/**
 * One generated batch: calls executed together with `ToolSet.executeAll`, at this concurrency, and each alone with
 * `ToolSet.execute`.
 *
 * @category models
 */
export interface Batch {
  readonly calls: ReadonlyArray<GeneratedCall>
  readonly concurrency: 1 | 3 | "unbounded"
}

/**
 * What a call of a batch broke: which call (its position; `undefined` for the batch as a whole) and how.
 *
 * @category errors
 */
export class TotalityViolation extends Data.TaggedError("TotalityViolation")<{
  readonly message: string
  readonly call: number | undefined
}> {}

/**
 * The options of {@link checkTotal}.
 *
 * @category models
 */
export interface CheckTotalOptions {
  /** The most calls in one batch: a whole number from 1 to 4294967295 (2^32 - 1). Default 6. */
  readonly maxCalls?: number | undefined
  /**
   * Also send valid arguments, which run the tools. Default `true`; `false` for tools that must not run in a test
   * (or whose valid arguments cannot be built): every call is then refused before any tool runs.
   */
  readonly validArguments?: boolean | undefined
}

/**
 * A property of a tool set, for `it.effect.prop` from `@effect/vitest`: pass `arbitraries` and `property` as they
 * are. `R` is what the set's tools need, which the test provides.
 *
 * @category models
 */
export interface TotalCheck<R> {
  /** The generated input: one batch of calls. */
  readonly arbitraries: { readonly batch: Arbitrary.Arbitrary<Batch> }
  /** Executes the batch, together and call by call, and fails with a `TotalityViolation` naming what broke. */
  readonly property: (input: { readonly batch: Batch }) => Effect.Effect<void, TotalityViolation, R>
}

const isJsonObject = (value: Schema.Json | undefined): value is Schema.JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The most calls a batch of `checkTotal` may hold: more than a test could ever run, and what an array can hold. */
const maxBatch = 2 ** 32 - 1

const isWholeNumber = (n: unknown): n is number =>
  typeof n === "number" && Number.isSafeInteger(n) && n >= 1 && n <= maxBatch

const indexBelow = (n: number): Arbitrary.Arbitrary<number> =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: Math.max(0, n - 1) })))

/**
 * A property of a tool set: any call gives exactly one `ToolResult`, and dispatch never fails or dies. For
 * `it.effect.prop` (dispatch is an Effect, and a property that runs one is an effectful property): pass
 * `arbitraries` and `property` as they are.
 *
 * Each generated batch mixes calls to the set's tools with valid arguments ({@link arbitraryArguments}), invalid ones
 * ({@link invalidArguments}), text that is no JSON and hostile values (cycles, throwing proxies and getters, bigints,
 * class instances, nesting and sizes past the limits), calls to names the set does not have (near misses of its
 * names too), and list entries that are no call at all. The property runs the batch with `ToolSet.executeAll`, then
 * each call alone with `ToolSet.execute`, and checks every result:
 *
 * - one result per call, in call order, carrying the call's id and name;
 * - a known status; an error exactly when the status is `error` or `denied`, with a known kind and a string
 *   message, whose model output is what the result shows;
 * - an output with content, which renders;
 * - `not_found` for unknown names and for entries that are no call, `invalid_args` for every argument that is not
 *   valid, and in those answers nothing of what was sent.
 *
 * Valid arguments run the tools, so give it a set whose tools are safe to call (fakes of their services), or pass
 * `validArguments: false`. Throws a `TypeError` for something that is not a tool set, for a `maxCalls` that is not a
 * whole number from 1 to 2^32 - 1, and (with valid arguments) for a tool whose arguments cannot be built (see
 * {@link arbitraryArguments}).
 *
 * @example
 * ```ts
 * import { describe, it } from "@effect/vitest"
 * import { Effect, Schema } from "effect"
 * import { Tool, ToolSet } from "effect-llm-tools"
 * import { ToolTesting } from "effect-llm-tools/testing"
 *
 * const Echo = Tool.make("echo", {
 *   description: "Echo the text back",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   call: ({ text }) => Effect.succeed(text)
 * })
 * const total = ToolTesting.checkTotal(ToolSet.make(Echo))
 *
 * describe("my tools", () => {
 *   it.effect.prop("any call gives exactly one result", total.arbitraries, total.property, {
 *     arbitrary: { runs: 200 }
 *   })
 * })
 * ```
 *
 * @category properties
 */
export const checkTotal = <T extends Tool.Any>(
  set: ToolSet.ToolSet<T>,
  options?: CheckTotalOptions
): TotalCheck<Tool.Requirements<T>> => {
  if (!ToolSet.isToolSet(set)) throw new TypeError("ToolTesting.checkTotal: expected a tool set")
  const maxCalls = options?.maxCalls ?? 6
  if (!isWholeNumber(maxCalls)) {
    throw new TypeError(
      `ToolTesting.checkTotal: maxCalls must be a whole number from 1 to ${maxBatch}, not ${String(maxCalls)}`
    )
  }
  const names: ReadonlyArray<string> = ToolSet.names(set)
  const valid = options?.validArguments === false ? [] : set.tools.map((tool) => arbitraryArguments(tool))
  const invalid = set.tools.map((tool) => invalidArguments(tool))

  const id = oneOf([Arbitrary.Constant("call_1"), Arbitrary.schema(Schema.String)])
  const garbage = Arbitrary.map(
    Arbitrary.schema(Schema.String),
    // Nothing that ends in the marker is JSON, and nothing that holds it is empty: every one is refused.
    (text): GeneratedArguments => ({ _tag: "Garbage", text: `${text}${marker}` })
  )
  const hostile = Arbitrary.map(pick(hostileKinds), (kind): GeneratedArguments => ({ _tag: "Hostile", kind }))
  const argumentsOf = names.map((_, i): Arbitrary.Arbitrary<GeneratedArguments> =>
    oneOf([
      ...(valid.length === 0 ? [] : [
        Arbitrary.map(
          Arbitrary.all([valid[i]!, Arbitrary.schema(Schema.Boolean)]),
          ([value, asText]): GeneratedArguments => ({ _tag: "Valid", value, asText })
        )
      ]),
      Arbitrary.map(invalid[i]!, (value): GeneratedArguments => ({ _tag: "Invalid", value })),
      garbage,
      hostile
    ])
  )
  const knownCalls = names.map((name, i) =>
    Arbitrary.map(
      Arbitrary.all([id, argumentsOf[i]!]),
      ([id, args]): GeneratedCall => ({ _tag: "Call", id, name, known: true, arguments: args })
    )
  )
  const unknownName = Arbitrary.map(
    Arbitrary.all([Arbitrary.schema(Schema.String), indexBelow(names.length), indexBelow(5)]),
    ([text, i, variant]) => {
      const near = names[i]
      let name = near === undefined || variant === 0
        ? text
        : [`${near}_`, near.toUpperCase(), ` ${near}`, near.slice(0, -1)][variant - 1]!
      while (names.includes(name)) name = `${name}_`
      return name
    }
  )
  // A name the set does not have, with anything: what a model that misnames a tool sends with it.
  const anyArguments = oneOf([
    garbage,
    hostile,
    ...(names.length === 0 ? [] : [Arbitrary.flatMap(indexBelow(names.length), (i) => argumentsOf[i]!)])
  ])
  const unknownCall = Arbitrary.map(
    Arbitrary.all([id, unknownName, anyArguments]),
    ([id, name, args]): GeneratedCall => ({ _tag: "Call", id, name, known: false, arguments: args })
  )
  const malformed = Arbitrary.map(pick(malformedKinds), (kind): GeneratedCall => ({ _tag: "Malformed", kind }))
  // Calls to the set's tools most often: three in five.
  const knownCall = knownCalls.length === 0 ? undefined : oneOf(knownCalls)
  const call = knownCall === undefined
    ? oneOf([unknownCall, malformed])
    : oneOf([knownCall, knownCall, knownCall, unknownCall, malformed])
  const batch: Arbitrary.Arbitrary<Batch> = Arbitrary.all({
    calls: Arbitrary.array(call, { maxLength: maxCalls }),
    concurrency: pick([1, 3, "unbounded"] as const)
  })

  const violation = (message: string, call?: number) => new TotalityViolation({ message, call })

  const property = (
    { batch }: { readonly batch: Batch }
  ): Effect.Effect<void, TotalityViolation, Tool.Requirements<T>> =>
    Effect.gen(function*() {
      const together = yield* Effect.exit(
        Effect.suspend(() => ToolSet.executeAll(set, batch.calls.map(build), { concurrency: batch.concurrency }))
      )
      if (Exit.isFailure(together)) {
        return yield* violation(`executeAll failed or died: ${describeCause(together.cause)}`)
      }
      const results: unknown = together.value
      if (!Array.isArray(results) || results.length !== batch.calls.length) {
        const given = Array.isArray(results) ? results.length : "no list of"
        return yield* violation(`executeAll gave ${given} results for ${batch.calls.length} calls`)
      }
      for (let i = 0; i < batch.calls.length; i++) {
        const problem = problemOf(batch.calls[i]!, results[i])
        if (problem !== undefined) {
          return yield* violation(`executeAll, call ${i} ${describeCall(batch.calls[i]!)}: ${problem}`, i)
        }
      }
      for (let i = 0; i < batch.calls.length; i++) {
        const spec = batch.calls[i]!
        const alone = yield* Effect.exit(Effect.suspend(() => ToolSet.execute(set, build(spec))))
        if (Exit.isFailure(alone)) {
          return yield* violation(
            `execute failed or died for call ${i} ${describeCall(spec)}: ${describeCause(alone.cause)}`,
            i
          )
        }
        const problem = problemOf(spec, alone.value)
        if (problem !== undefined) return yield* violation(`execute, call ${i} ${describeCall(spec)}: ${problem}`, i)
      }
    })

  return { arbitraries: { batch }, property }
}
