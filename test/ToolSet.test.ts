import { assert, describe, it } from "@effect/vitest"
import { Context, Data, Effect, Exit, Option, Schema } from "effect"
import { Add, AuditRecord, CurrentUser, TransferFunds } from "../examples/tools.ts"
import {
  Tool,
  ToolContext,
  ToolExecutionError,
  ToolOutput,
  ToolResult,
  ToolResultContent,
  ToolSet
} from "../src/index.ts"
import { errorField, errorOf, summarizeResult } from "./support/results.ts"

// ---------------------------------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------------------------------

/** The fields of a result that a test asserts on as one value. */
const summarize = (result: ToolResult.ToolResult) => ({
  ...summarizeResult(result),
  message: errorField(result, "message")
})

const call = (name: string, args: unknown, id = "call_1") => ({ id, name, arguments: args })

/** A value nested `depth` levels deep: `{ a: { a: … {} } }`. Built iteratively, so any depth is safe to build. */
const nestedObject = (depth: number): unknown => {
  let value: unknown = {}
  for (let i = 1; i < depth; i++) value = { a: value }
  return value
}

/** JSON text of an object holding arrays, `depth` levels deep in all. */
const nestedText = (depth: number): string => `{"a":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`

const NoArgs = Tool.make("no_args", {
  description: "Takes nothing",
  parameters: Schema.Struct({}),
  call: () => Effect.succeed("done")
})

/** Accepts any object and hands back what it received, so tests can see what `call` was given. */
const makeRecorder = <P extends Tool.AnySchema>(name: string, parameters: P & Tool.ObjectParameters<P>) => {
  const received: Array<unknown> = []
  const tool = Tool.make(name, {
    description: "Records its arguments",
    parameters,
    call: (args) =>
      Effect.sync(() => {
        received.push(args)
        return "recorded"
      })
  })
  return { tool, received }
}

class Boom extends Data.TaggedError("Boom")<{ readonly secret: string }> {}

class Quota extends Schema.TaggedError<Quota>()("Quota", { remaining: Schema.Int }) {}

class Audit extends Context.Service<Audit, string>()("test/Audit") {}

// ---------------------------------------------------------------------------------------------------------------------
// 1. one path for JSON text and parsed values
// ---------------------------------------------------------------------------------------------------------------------

describe("arguments: JSON text and parsed values", () => {
  const set = ToolSet.make(Add, NoArgs)

  it.effect("JSON text and a parsed object produce the same successful result", () =>
    Effect.gen(function*() {
      const fromText = yield* ToolSet.execute(set, call("add", "{\"left\":1,\"right\":2}"))
      const fromValue = yield* ToolSet.execute(set, call("add", { left: 1, right: 2 }))
      const expected = {
        callId: "call_1",
        name: "add",
        arguments: { left: 1, right: 2 },
        status: "success" as const,
        kind: undefined,
        modelText: undefined,
        message: undefined
      }
      assert.deepStrictEqual(summarize(fromText), expected)
      assert.deepStrictEqual(summarize(fromValue), expected)
      assert.deepStrictEqual(fromText.output.content, [ToolResultContent.json({ value: 3 })])
      assert.deepStrictEqual(fromValue.output.content, [ToolResultContent.json({ value: 3 })])
    }))

  it.effect("JSON text and a parsed object fail the same way on a schema mismatch", () =>
    Effect.gen(function*() {
      const fromText = yield* ToolSet.execute(set, call("add", "{\"left\":\"x\",\"right\":2}"))
      const fromValue = yield* ToolSet.execute(set, call("add", { left: "x", right: 2 }))
      const text = "tool arguments did not match the schema:\n- $.left: Expected number"
      const expected = {
        callId: "call_1",
        name: "add",
        arguments: { left: "x", right: 2 },
        status: "error" as const,
        kind: "invalid_args" as const,
        modelText: text,
        message: text
      }
      assert.deepStrictEqual(summarize(fromText), expected)
      assert.deepStrictEqual(summarize(fromValue), expected)
    }))

  for (const [label, args] of [["empty text", ""], ["blank text", "  \n"], ["null", null], ["the text null", "null"]] as const) {
    it.effect(`${label} means {}: a tool without parameters succeeds`, () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(set, call("no_args", args))
        assert.deepStrictEqual(summarize(result), {
          callId: "call_1",
          name: "no_args",
          arguments: {},
          status: "success",
          kind: undefined,
          modelText: "done",
          message: undefined
        })
      }))

    it.effect(`${label} means {}: a tool with required keys reports each missing key`, () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(set, call("add", args))
        const text = "tool arguments did not match the schema:\n- $.left: Missing key\n- $.right: Missing key"
        assert.deepStrictEqual(
          { ...summarize(result), arguments: undefined },
          {
            callId: "call_1",
            name: "add",
            arguments: undefined,
            status: "error",
            kind: "invalid_args",
            modelText: text,
            message: text
          }
        )
      }))
  }
})

// ---------------------------------------------------------------------------------------------------------------------
// 2. parsing and limits
// ---------------------------------------------------------------------------------------------------------------------

describe("arguments: parsing and limits", () => {
  const { tool: Anything } = makeRecorder("anything", Schema.Record(Schema.String, Schema.Unknown))
  const set = ToolSet.make(Add, Anything)

  const invalid = (result: ToolResult.ToolResult, args: unknown, text: string) =>
    assert.deepStrictEqual(summarize(result), {
      callId: "call_1",
      name: result.name,
      arguments: args,
      status: "error",
      kind: "invalid_args",
      modelText: text,
      message: text
    })

  it.effect("malformed JSON is invalid_args with a parse message, and the result keeps the raw text", () =>
    Effect.gen(function*() {
      const raw = "{\"left\":1,"
      const result = yield* ToolSet.execute(set, call("add", raw))
      invalid(result, raw, "failed to parse tool arguments: Expected double-quoted property name at position 10")
      assert.strictEqual(result.arguments, raw)
    }))

  it.effect("a parse failure's message never quotes the arguments, where V8's own message would", () =>
    Effect.gen(function*() {
      // V8 says: Unexpected token 'h', "{"left":hunter2sec"... is not valid JSON
      const raw = "{\"left\":hunter2secret}"
      const result = yield* ToolSet.execute(set, call("add", raw))
      invalid(result, raw, "failed to parse tool arguments: Unexpected token")
    }))

  it.effect("a successful parse keeps the parsed value as the result's arguments", () =>
    Effect.gen(function*() {
      const result = yield* ToolSet.execute(set, call("anything", "{\"x\":[1,{\"y\":null}],\"z\":\"w\"}"))
      assert.strictEqual(result.status, "success")
      assert.deepStrictEqual(result.arguments, { x: [1, { y: null }], z: "w" })
    }))

  it.effect("text over the default 1 MiB is invalid_args", () =>
    Effect.gen(function*() {
      const raw = `{"s":"${"a".repeat(1024 * 1024)}"}`
      const result = yield* ToolSet.execute(set, call("anything", raw))
      invalid(result, raw, "failed to parse tool arguments: the arguments are larger than 1048576 bytes")
    }))

  it.effect("text just under 1 MiB parses", () =>
    Effect.gen(function*() {
      const raw = `{"s":"${"a".repeat(1024 * 1024 - 8)}"}`
      const result = yield* ToolSet.execute(set, call("anything", raw))
      assert.strictEqual(result.status, "success")
    }))

  it.effect("maxArgumentBytes sets the size limit per call, counting UTF-8 bytes", () =>
    Effect.gen(function*() {
      const raw = "{\"left\":1,\"right\":2}" // 20 bytes
      const within = yield* ToolSet.execute(set, call("add", raw), { maxArgumentBytes: 20 })
      assert.strictEqual(within.status, "success")
      const over = yield* ToolSet.execute(set, call("add", raw), { maxArgumentBytes: 19 })
      invalid(over, raw, "failed to parse tool arguments: the arguments are larger than 19 bytes")
      // 12 UTF-16 units, 16 UTF-8 bytes.
      const accented = "{\"s\":\"éééé\"}"
      const bytes = yield* ToolSet.execute(set, call("anything", accented), { maxArgumentBytes: 15 })
      invalid(bytes, accented, "failed to parse tool arguments: the arguments are larger than 15 bytes")
      const fits = yield* ToolSet.execute(set, call("anything", accented), { maxArgumentBytes: 16 })
      assert.strictEqual(fits.status, "success")
    }))

  it.effect("text nested deeper than the default 64 levels is invalid_args; 64 levels parse", () =>
    Effect.gen(function*() {
      const ok = yield* ToolSet.execute(set, call("anything", nestedText(64)))
      assert.strictEqual(ok.status, "success")
      const raw = nestedText(65)
      const deep = yield* ToolSet.execute(set, call("anything", raw))
      invalid(deep, raw, "failed to parse tool arguments: the arguments are nested deeper than 64 levels")
    }))

  /** Why parsed arguments are too deep: past the limit, or holding themselves, which only a value in memory can. */
  const tooDeepValue = (levels: number) =>
    `the arguments are nested deeper than ${levels} levels, or contain themselves`

  it.effect("a parsed value nested deeper than 64 levels is invalid_args; 64 levels pass", () =>
    Effect.gen(function*() {
      const ok = yield* ToolSet.execute(set, call("anything", nestedObject(64)))
      assert.strictEqual(ok.status, "success")
      const value = nestedObject(65)
      const deep = yield* ToolSet.execute(set, call("anything", value))
      invalid(deep, value, `failed to parse tool arguments: ${tooDeepValue(64)}`)
    }))

  it.effect("maxArgumentDepth sets the depth limit per call, for text and parsed values", () =>
    Effect.gen(function*() {
      const shallow = yield* ToolSet.execute(set, call("anything", "{\"a\":{\"b\":1}}"), { maxArgumentDepth: 2 })
      assert.strictEqual(shallow.status, "success")
      const raw = "{\"a\":{\"b\":[1]}}"
      const text = yield* ToolSet.execute(set, call("anything", raw), { maxArgumentDepth: 2 })
      invalid(text, raw, "failed to parse tool arguments: the arguments are nested deeper than 2 levels")
      const value = { a: { b: [1] } }
      const parsed = yield* ToolSet.execute(set, call("anything", value), { maxArgumentDepth: 2 })
      invalid(parsed, value, `failed to parse tool arguments: ${tooDeepValue(2)}`)
      const defaults = yield* ToolSet.execute(set, call("anything", raw))
      assert.strictEqual(defaults.status, "success")
    }))

  it.effect("a million open brackets are rejected without overflowing the stack", () =>
    Effect.gen(function*() {
      const raw = "[".repeat(1e6)
      const result = yield* ToolSet.execute(set, call("anything", raw))
      invalid(result, raw, "failed to parse tool arguments: the arguments are nested deeper than 64 levels")
    }))

  it.effect("a parsed value a hundred thousand levels deep is rejected without overflowing the stack", () =>
    Effect.gen(function*() {
      const value = nestedObject(100_000)
      const result = yield* ToolSet.execute(set, call("anything", value))
      invalid(result, value, `failed to parse tool arguments: ${tooDeepValue(64)}`)
    }))

  it.effect("a cyclic parsed value is rejected as too deep, not looped over", () =>
    Effect.gen(function*() {
      const value: Record<string, unknown> = {}
      value["self"] = value
      const result = yield* ToolSet.execute(set, call("anything", value))
      invalid(result, value, `failed to parse tool arguments: ${tooDeepValue(64)}`)
    }))

  for (
    const [label, args, parsed] of [
      ["a JSON array", "[1,2]", [1, 2]],
      ["a JSON string", "\"hello\"", "hello"],
      ["a JSON number", "42", 42],
      ["a JSON boolean", "true", true],
      ["a parsed array", [1, 2], [1, 2]],
      ["a parsed number", 42, 42],
      ["a parsed boolean", false, false]
    ] as const
  ) {
    it.effect(`${label} is not a JSON object: invalid_args, and the result keeps the parsed value`, () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(set, call("anything", args))
        invalid(result, parsed, "tool arguments must be a JSON object")
      }))
  }
})

// ---------------------------------------------------------------------------------------------------------------------
// 3. schema mismatches and excess keys
// ---------------------------------------------------------------------------------------------------------------------

describe("arguments: decoding", () => {
  const Params = Schema.Struct({
    count: Schema.Int,
    amount: Schema.Finite.check(Schema.isGreaterThan(0)),
    name: Schema.String.check(Schema.isMinLength(40)),
    nested: Schema.Struct({ flag: Schema.Boolean }),
    tags: Schema.Array(Schema.Literals(["a", "b"])),
    when: Schema.optionalKey(Schema.Literal("now"))
  })
  const strict = makeRecorder("strict", Params)
  const set = ToolSet.make(strict.tool)

  it.effect("a mismatch lists every failing path and what was expected, never the values sent", () =>
    Effect.gen(function*() {
      const args = {
        count: 1.5,
        amount: -987654321,
        name: "SECRET-NAME-4411",
        nested: { flag: "SECRET-FLAG-2299" },
        tags: ["SECRET-TAG-8833"],
        when: "SECRET-WHEN-7766"
      }
      const result = yield* ToolSet.execute(set, call("strict", JSON.stringify(args)))
      const text = [
        "tool arguments did not match the schema:",
        "- $.count: Expected an integer",
        "- $.amount: Expected a value greater than 0",
        "- $.name: Expected a value with a length of at least 40",
        "- $.nested.flag: Expected boolean",
        "- $.tags[0]: Expected \"a\" | \"b\"",
        "- $.when: Expected \"now\""
      ].join("\n")
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "strict",
        arguments: args,
        status: "error",
        kind: "invalid_args",
        modelText: text,
        message: text
      })
      const error = errorOf(result)
      for (const secret of ["SECRET", "987654321", "1.5"]) {
        assert.notInclude(ToolOutput.render(result.output), secret)
        assert.notInclude(error.message, secret)
        assert.notInclude(String(error), secret)
        assert.notInclude(JSON.stringify(error), secret)
      }
      assert.deepStrictEqual(strict.received, [])
    }))

  it.effect("a value of the wrong type names the path and the expected type, not the value", () =>
    Effect.gen(function*() {
      const result = yield* ToolSet.execute(set, call("strict", { count: "SECRET-COUNT-1234" }))
      const text = [
        "tool arguments did not match the schema:",
        "- $.count: Expected number",
        "- $.amount: Missing key",
        "- $.name: Missing key",
        "- $.nested: Missing key",
        "- $.tags: Missing key"
      ].join("\n")
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "strict",
        arguments: { count: "SECRET-COUNT-1234" },
        status: "error",
        kind: "invalid_args",
        modelText: text,
        message: text
      })
    }))

  it.effect("unknown keys are dropped before the tool sees them", () =>
    Effect.gen(function*() {
      const recorder = makeRecorder("add_like", Schema.Struct({ left: Schema.Int, nested: Schema.Struct({ x: Schema.Int }) }))
      const result = yield* ToolSet.execute(
        ToolSet.make(recorder.tool),
        call("add_like", "{\"left\":1,\"extra\":\"x\",\"nested\":{\"x\":2,\"more\":true}}")
      )
      assert.strictEqual(result.status, "success")
      assert.deepStrictEqual(recorder.received, [{ left: 1, nested: { x: 2 } }])
      // The result still shows what the model sent.
      assert.deepStrictEqual(result.arguments, { left: 1, extra: "x", nested: { x: 2, more: true } })
    }))

  it.effect("onExcessProperty \"error\" rejects unknown keys as invalid_args naming each key path", () =>
    Effect.gen(function*() {
      const received: Array<unknown> = []
      const Strict = Tool.make("strict_keys", {
        description: "Rejects unknown keys",
        parameters: Schema.Struct({ left: Schema.Int, nested: Schema.Struct({ x: Schema.Int }) }),
        onExcessProperty: "error",
        call: (args) => Effect.sync(() => received.push(args))
      })
      const args = { left: 1, extra: "SECRET-EXTRA", nested: { x: 2, more: true } }
      const result = yield* ToolSet.execute(ToolSet.make(Strict), call("strict_keys", args))
      const text = [
        "tool arguments did not match the schema:",
        "- $.extra: Expected no excess property",
        "- $.nested.more: Expected no excess property"
      ].join("\n")
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "strict_keys",
        arguments: args,
        status: "error",
        kind: "invalid_args",
        modelText: text,
        message: text
      })
      assert.deepStrictEqual(received, [])
      const clean = yield* ToolSet.execute(ToolSet.make(Strict), call("strict_keys", { left: 1, nested: { x: 2 } }))
      assert.strictEqual(clean.status, "success")
      assert.deepStrictEqual(received, [{ left: 1, nested: { x: 2 } }])
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// 4. unknown tools
// ---------------------------------------------------------------------------------------------------------------------

describe("unknown tools", () => {
  const named = (name: string) =>
    Tool.make(name, { description: name, parameters: Schema.Struct({}), call: () => Effect.succeed(name) })

  it.effect("an unknown tool yields not_found naming the tool and listing the available names", () =>
    Effect.gen(function*() {
      const result = yield* ToolSet.execute(ToolSet.make(Add, NoArgs), call("subtract", "{\"left\":1}"))
      const text = "tool `subtract` not found; available tools: `add`, `no_args`"
      assert.deepStrictEqual(
        summarize(result),
        {
          callId: "call_1",
          name: "subtract",
          arguments: { left: 1 },
          status: "error",
          kind: "not_found",
          modelText: text,
          message: text
        }
      )
    }))

  it.effect("an unknown name the model made very long is cut in the message", () =>
    Effect.gen(function*() {
      const result = yield* ToolSet.execute(ToolSet.make(Add), call("x".repeat(10_000), "{}"))
      assert.strictEqual(
        Option.getOrUndefined(ToolOutput.asText(result.output)),
        `tool \`${"x".repeat(64)}…\` not found; available tools: \`add\``
      )
    }))

  it.effect("the listed names stop at 20, followed by how many more there are", () =>
    Effect.gen(function*() {
      const names = Array.from({ length: 25 }, (_, i) => `tool_${String(i).padStart(2, "0")}`)
      const set = ToolSet.make(...names.map(named))
      const result = yield* ToolSet.execute(set, call("missing", {}))
      const listed = names.slice(0, 20).map((name) => `\`${name}\``).join(", ")
      const text = `tool \`missing\` not found; available tools: ${listed}, and 5 more`
      assert.strictEqual(Option.getOrUndefined(ToolOutput.asText(result.output)), text)
      assert.strictEqual(errorOf(result).kind, "not_found")
      assert.strictEqual(result.status, "error")
    }))

  it.effect("exactly 20 tools are all listed, with no \"more\"", () =>
    Effect.gen(function*() {
      const names = Array.from({ length: 20 }, (_, i) => `t${i}`)
      const result = yield* ToolSet.execute(ToolSet.make(...names.map(named)), call("missing", {}))
      const text = `tool \`missing\` not found; available tools: ${names.map((name) => `\`${name}\``).join(", ")}`
      assert.strictEqual(Option.getOrUndefined(ToolOutput.asText(result.output)), text)
    }))

  it.effect("an empty set says no tools are available", () =>
    Effect.gen(function*() {
      const result = yield* ToolSet.execute(ToolSet.empty, call("anything", {}))
      assert.strictEqual(
        Option.getOrUndefined(ToolOutput.asText(result.output)),
        "tool `anything` not found; no tools are available"
      )
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// 5. typed failures and mapError
// ---------------------------------------------------------------------------------------------------------------------

describe("typed failures", () => {
  it.effect("a typed failure with the default mapError is kind other, safe text, original kept as cause", () =>
    Effect.gen(function*() {
      const boom = new Boom({ secret: "SECRET-BOOM-5150" })
      const Fails = Tool.make("fails", {
        description: "Fails",
        parameters: Schema.Struct({}),
        call: () => Effect.fail(boom)
      })
      const result = yield* ToolSet.execute(ToolSet.make(Fails), call("fails", {}))
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "fails",
        arguments: {},
        status: "error",
        kind: "other",
        modelText: "the tool failed",
        message: "tool failed with Boom"
      })
      const error = errorOf(result)
      assert.strictEqual(ToolExecutionError.causeOf(error), boom)
      assert.notInclude(String(error), "SECRET")
      assert.notInclude(JSON.stringify(result), "SECRET")
    }))

  it.effect("a ToolExecutionError failed by the tool passes through unchanged, even with a custom mapError", () =>
    Effect.gen(function*() {
      const original = ToolExecutionError.rateLimited("slow down for 30 seconds").pipe(ToolExecutionError.withCode("q1"))
      const mapped: Array<unknown> = []
      const Limited = Tool.make("limited", {
        description: "Rate limited",
        parameters: Schema.Struct({}),
        mapError: (error) => {
          mapped.push(error)
          return ToolExecutionError.other("mapped")
        },
        call: () => Effect.fail(original)
      })
      const result = yield* ToolSet.execute(ToolSet.make(Limited), call("limited", {}))
      assert.strictEqual(errorOf(result), original)
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "limited",
        arguments: {},
        status: "error",
        kind: "rate_limited",
        modelText: "slow down for 30 seconds",
        message: "slow down for 30 seconds"
      })
      assert.deepStrictEqual(mapped, [])
    }))

  it.effect("a custom mapError sees the typed error and decides what the model sees", () =>
    Effect.gen(function*() {
      const seen: Array<Quota> = []
      const quota = new Quota({ remaining: 0 })
      const Metered = Tool.make("metered", {
        description: "Metered",
        parameters: Schema.Struct({}),
        failure: Quota,
        mapError: (error) => {
          seen.push(error)
          return ToolExecutionError.rateLimited(`quota left: ${error.remaining}`)
        },
        call: () => Effect.fail(quota)
      })
      const result = yield* ToolSet.execute(ToolSet.make(Metered), call("metered", {}))
      assert.strictEqual(seen.length, 1)
      assert.strictEqual(seen[0], quota)
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "metered",
        arguments: {},
        status: "error",
        kind: "rate_limited",
        modelText: "quota left: 0",
        message: "quota left: 0"
      })
    }))

  it.effect("a mapError that throws yields kind other with the safe default", () =>
    Effect.gen(function*() {
      const thrown = new Error("SECRET-MAPERROR /home/user/app.ts")
      const Broken = Tool.make("broken", {
        description: "Broken mapError",
        parameters: Schema.Struct({}),
        mapError: () => {
          throw thrown
        },
        call: () => Effect.fail(new Boom({ secret: "x" }))
      })
      const result = yield* ToolSet.execute(ToolSet.make(Broken), call("broken", {}))
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "broken",
        arguments: {},
        status: "error",
        kind: "other",
        modelText: "the tool failed",
        message: "the mapError of tool `broken` threw"
      })
      assert.strictEqual(ToolExecutionError.causeOf(errorOf(result)), thrown)
    }))

  it.effect("a missing required context value is kind other with its own message, bypassing mapError", () =>
    Effect.gen(function*() {
      const mapped: Array<unknown> = []
      const Needs = Tool.make("needs", {
        description: "Needs an audit key",
        parameters: Schema.Struct({}),
        mapError: (error) => {
          mapped.push(error)
          return ToolExecutionError.other("mapped")
        },
        call: () => ToolContext.require(Audit)
      })
      const result = yield* ToolSet.execute(ToolSet.make(Needs), call("needs", {}))
      const text = "required tool context value `test/Audit` was not found"
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "needs",
        arguments: {},
        status: "error",
        kind: "other",
        modelText: text,
        message: text
      })
      assert.deepStrictEqual(mapped, [])
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// 6. defects, interruption, timeouts
// ---------------------------------------------------------------------------------------------------------------------

describe("defects, interruption and timeouts", () => {
  it.effect("a defect (Effect.die) is kind other with the safe default, the defect kept as cause", () =>
    Effect.gen(function*() {
      const defect = new TypeError("SECRET-DEFECT at /srv/app/secret.ts:12")
      const Dies = Tool.make("dies", {
        description: "Dies",
        parameters: Schema.Struct({}),
        call: () => Effect.die(defect)
      })
      const result = yield* ToolSet.execute(ToolSet.make(Dies), call("dies", {}))
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "dies",
        arguments: {},
        status: "error",
        kind: "other",
        modelText: "the tool failed",
        message: "tool died with TypeError"
      })
      assert.strictEqual(ToolExecutionError.causeOf(errorOf(result)), defect)
    }))

  it.effect("a call that throws before returning an Effect is a defect: kind other, safe default", () =>
    Effect.gen(function*() {
      const thrown = new RangeError("SECRET-THROWN")
      const Throws = Tool.make("throws", {
        description: "Throws synchronously",
        parameters: Schema.Struct({}),
        call: (): Effect.Effect<string> => {
          throw thrown
        }
      })
      const exit = yield* Effect.exit(ToolSet.execute(ToolSet.make(Throws), call("throws", {})))
      assert.isTrue(Exit.isSuccess(exit))
      const result = (exit as Exit.Success<ToolResult.ToolResult>).value
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "throws",
        arguments: {},
        status: "error",
        kind: "other",
        modelText: "the tool failed",
        message: "tool died with RangeError"
      })
      assert.strictEqual(ToolExecutionError.causeOf(errorOf(result)), thrown)
    }))

  it.effect("a call that returns something other than an Effect is a defect, not a dead execute", () =>
    Effect.gen(function*() {
      // The types forbid it, but tools written in JavaScript or built at runtime can do it.
      const NotAnEffect = Tool.make("not_an_effect", {
        description: "Returns a Promise",
        parameters: Schema.Struct({}),
        call: () => Promise.resolve("value") as unknown as Effect.Effect<string>
      })
      const exit = yield* Effect.exit(ToolSet.execute(ToolSet.make(NotAnEffect), call("not_an_effect", {})))
      assert.isTrue(Exit.isSuccess(exit), "execute died")
      const result = (exit as Exit.Success<ToolResult.ToolResult>).value
      assert.deepStrictEqual(
        [result.status, errorOf(result).kind, Option.getOrUndefined(ToolOutput.asText(result.output))],
        ["error", "other", "the tool failed"]
      )
    }))

  it.effect("a tool that interrupts itself is cancelled", () =>
    Effect.gen(function*() {
      const Quits = Tool.make("quits", {
        description: "Interrupts itself",
        parameters: Schema.Struct({}),
        call: () => Effect.interrupt
      })
      const result = yield* ToolSet.execute(ToolSet.make(Quits), call("quits", {}))
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "quits",
        arguments: {},
        status: "error",
        kind: "cancelled",
        modelText: "tool execution was cancelled",
        message: "tool execution was cancelled"
      })
    }))

  it.live("a tool past its timeout is interrupted (its finalizers run) and the result is kind timeout", () =>
    Effect.gen(function*() {
      const events: Array<string> = []
      const Slow = Tool.make("slow", {
        description: "Sleeps",
        parameters: Schema.Struct({}),
        annotations: { timeout: "20 millis" },
        call: () =>
          Effect.sleep("10 seconds").pipe(
            Effect.as("finished"),
            Effect.onInterrupt(() => Effect.sync(() => events.push("interrupted")))
          )
      })
      const result = yield* ToolSet.execute(ToolSet.make(Slow), call("slow", {}))
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "slow",
        arguments: {},
        status: "error",
        kind: "timeout",
        modelText: "tool execution timed out",
        message: "tool `slow` timed out after 20 ms"
      })
      assert.deepStrictEqual(events, ["interrupted"])
      // At least the timeout (timers fire on whole milliseconds), and far less than the 10 s the tool would take.
      assert.isAtLeast(result.durationMs, 19)
      assert.isBelow(result.durationMs, 5_000)
      assert.isTrue(errorOf(result).retryable)
    }))

  it.live("a scoped resource acquired by a timed-out tool is released", () =>
    Effect.gen(function*() {
      const events: Array<string> = []
      const Slow = Tool.make("slow_scoped", {
        description: "Holds a resource",
        parameters: Schema.Struct({}),
        annotations: { timeout: "20 millis" },
        call: () =>
          Effect.scoped(
            Effect.acquireRelease(
              Effect.sync(() => events.push("acquired")),
              () => Effect.sync(() => events.push("released"))
            ).pipe(Effect.andThen(Effect.sleep("10 seconds")), Effect.as("finished"))
          )
      })
      const result = yield* ToolSet.execute(ToolSet.make(Slow), call("slow_scoped", {}))
      assert.strictEqual(errorOf(result).kind, "timeout")
      assert.deepStrictEqual(events, ["acquired", "released"])
    }))

  it.live("a tool that finishes within its timeout succeeds", () =>
    Effect.gen(function*() {
      const Quick = Tool.make("quick", {
        description: "Quick",
        parameters: Schema.Struct({}),
        annotations: { timeout: "5 seconds" },
        call: () => Effect.sleep("1 millis").pipe(Effect.as("fast"))
      })
      const result = yield* ToolSet.execute(ToolSet.make(Quick), call("quick", {}))
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "quick",
        arguments: {},
        status: "success",
        kind: undefined,
        modelText: "fast",
        message: undefined
      })
    }))

  it.effect("execute never fails and never dies, whatever the tool does", () =>
    Effect.gen(function*() {
      const behaviours: ReadonlyArray<() => Effect.Effect<unknown, unknown>> = [
        () => Effect.die("defect"),
        () => Effect.fail("typed"),
        () => Effect.interrupt,
        () => {
          throw new Error("sync")
        },
        () => Effect.succeed(Symbol("not json")),
        () => Effect.succeed(() => 1)
      ]
      const set = ToolSet.make(
        ...behaviours.map((behaviour, i) =>
          Tool.make(`b${i}`, { description: "b", parameters: Schema.Struct({}), call: behaviour })
        )
      )
      for (let i = 0; i < behaviours.length; i++) {
        const exit = yield* Effect.exit(ToolSet.execute(set, call(`b${i}`, {})))
        assert.isTrue(Exit.isSuccess(exit), `behaviour ${i}`)
        const result = (exit as Exit.Success<ToolResult.ToolResult>).value
        assert.strictEqual(result.status, "error")
      }
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// 7. output conversion
// ---------------------------------------------------------------------------------------------------------------------

describe("output conversion", () => {
  const returning = (name: string, value: () => unknown) =>
    Tool.make(name, { description: name, parameters: Schema.Struct({}), call: () => Effect.sync(value) })

  const contentOf = (tool: Tool.Any) =>
    Effect.map(ToolSet.execute(ToolSet.make(tool), call(tool.name, {})), (result) => {
      assert.strictEqual(result.status, "success")
      return result.output.content
    })

  it.effect("a JSON-shaped string stays one Text block", () =>
    Effect.gen(function*() {
      const content = yield* contentOf(returning("s", () => "{\"a\":1}"))
      assert.deepStrictEqual(content, [ToolResultContent.text("{\"a\":1}")])
    }))

  it.effect("a plain object shaped like a block stays Json", () =>
    Effect.gen(function*() {
      const content = yield* contentOf(returning("o", () => ({ type: "text", text: "hi" })))
      assert.deepStrictEqual(content, [ToolResultContent.json({ type: "text", text: "hi" })])
      const tagged = yield* contentOf(returning("t", () => ({ _tag: "Text", text: "hi" })))
      assert.deepStrictEqual(tagged, [ToolResultContent.json({ _tag: "Text", text: "hi" })])
    }))

  it.effect("a block, an array of blocks and a ToolOutput stay rich, as equal copies of frozen blocks", () =>
    Effect.gen(function*() {
      const image = ToolResultContent.imageUrl("https://example.com/a.png", "image/png")
      assert.deepStrictEqual(yield* contentOf(returning("one", () => image)), [image])
      const blocks: ReadonlyArray<unknown> = [ToolResultContent.text("caption"), image]
      assert.deepStrictEqual(yield* contentOf(returning("many", () => blocks)), blocks)
      const output = ToolOutput.content([ToolResultContent.audio("AAAA", "audio/wav")])
      const result = yield* ToolSet.execute(ToolSet.make(returning("out", () => output)), call("out", {}))
      assert.deepStrictEqual(result.output, output)
      assert.notStrictEqual(result.output.content[0], output.content[0])
      assert.isTrue(Object.isFrozen(result.output.content[0]))
    }))

  it.effect("JSON values become one Json block; undefined fields are dropped", () =>
    Effect.gen(function*() {
      const content = yield* contentOf(returning("j", () => ({ a: 1, b: undefined, c: [true, null, "x"] })))
      assert.deepStrictEqual(content, [ToolResultContent.json({ a: 1, c: [true, null, "x"] })])
    }))

  it.effect("output is encoded with the success Schema's JSON codec", () =>
    Effect.gen(function*() {
      const Dated = Tool.make("dated", {
        description: "Dated",
        parameters: Schema.Struct({}),
        success: Schema.Struct({ at: Schema.Date }),
        call: () => Effect.succeed({ at: new Date(0) })
      })
      assert.deepStrictEqual(yield* contentOf(Dated), [ToolResultContent.json({ at: "1970-01-01T00:00:00.000Z" })])
    }))

  it.effect("output that does not match success is kind other: safe model text, the reason for operators", () =>
    Effect.gen(function*() {
      const Wrong = Tool.make("wrong", {
        description: "Wrong output",
        parameters: Schema.Struct({}),
        success: Schema.Struct({ value: Schema.Int }),
        call: () => Effect.succeed({ value: "SECRET-OUT" } as unknown as { value: number })
      })
      const result = yield* ToolSet.execute(ToolSet.make(Wrong), call("wrong", {}))
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "wrong",
        arguments: {},
        status: "error",
        kind: "other",
        modelText: "the tool failed",
        message:
          "tool `wrong` returned an output that cannot be encoded: the output does not match the success Schema:\n- $.value: Expected number"
      })
    }))

  it.effect("a success Schema that lets values through unchecked (Schema.Any) still never puts non-JSON in a Json block", () =>
    Effect.gen(function*() {
      const Loose = Tool.make("loose", {
        description: "Loose output",
        parameters: Schema.Struct({}),
        success: Schema.Struct({ payload: Schema.Any }),
        call: () => Effect.succeed({ payload: () => "a function" })
      })
      const result = yield* ToolSet.execute(ToolSet.make(Loose), call("loose", {}))
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "loose",
        arguments: {},
        status: "error",
        kind: "other",
        modelText: "the tool failed",
        message: "tool `loose` returned an output that cannot be encoded: $.payload is function, not JSON"
      })
    }))

  const cyclic = () => {
    const value: Record<string, unknown> = { a: 1 }
    value["self"] = value
    return value
  }
  for (
    const [label, value, reason] of [
      ["NaN", () => NaN, "the output is NaN, not JSON"],
      ["a BigInt", () => 10n, "the output is bigint, not JSON"],
      ["a Date", () => new Date(0), "the output is Date, not JSON"],
      ["a cycle", cyclic, "$.self is a cycle, not JSON"],
      ["a nested Infinity", () => ({ a: [1, { b: Infinity }] }), "$.a[1].b is Infinity, not JSON"],
      ["undefined", () => undefined, "the output is undefined, not JSON"],
      ["an empty array of nothing but a function", () => [() => 1], "$[0] is function, not JSON"]
    ] as const
  ) {
    it.effect(`${label} returned without a success Schema is kind other with the reason for operators`, () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(ToolSet.make(returning("bad", value)), call("bad", {}))
        assert.deepStrictEqual(summarize(result), {
          callId: "call_1",
          name: "bad",
          arguments: {},
          status: "error",
          kind: "other",
          modelText: "the tool failed",
          message: `tool \`bad\` returned an output that cannot be encoded: ${reason}`
        })
      }))
  }
})

// ---------------------------------------------------------------------------------------------------------------------
// 8. refusals and permission failures
// ---------------------------------------------------------------------------------------------------------------------

describe("refusals", () => {
  const user = { id: "u1", units: "metric" as const, balance: 100 }
  const set = ToolSet.make(TransferFunds)

  it.effect("a refusal is status denied, and isErrorKind(permission_denied) is false", () =>
    Effect.gen(function*() {
      const result = yield* ToolSet.execute(set, call("transfer_funds", { to: "bob", amount: 50_000 })).pipe(
        Effect.provideService(CurrentUser, user)
      )
      const text = "transfers over 10000 need a human's approval"
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "transfer_funds",
        arguments: { to: "bob", amount: 50_000 },
        status: "denied",
        kind: "permission_denied",
        modelText: text,
        message: text
      })
      assert.isTrue(errorOf(result).refused)
      assert.isFalse(ToolResult.isErrorKind(result, "permission_denied"))
      assert.isFalse(ToolResult.isSuccess(result))
    }))

  it.effect("a permission_denied failure is status error, and isErrorKind(permission_denied) is true", () =>
    Effect.gen(function*() {
      const Denies = Tool.make("denies", {
        description: "Denies",
        parameters: Schema.Struct({}),
        call: () => Effect.fail(ToolExecutionError.permissionDenied("no access to that folder"))
      })
      const result = yield* ToolSet.execute(ToolSet.make(Denies), call("denies", {}))
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "denies",
        arguments: {},
        status: "error",
        kind: "permission_denied",
        modelText: "no access to that folder",
        message: "no access to that folder"
      })
      assert.isFalse(errorOf(result).refused)
      assert.isTrue(ToolResult.isErrorKind(result, "permission_denied"))
    }))

  it.effect("the example transfer folds its typed error through its mapError", () =>
    Effect.gen(function*() {
      const result = yield* ToolSet.execute(set, call("transfer_funds", "{\"to\":\"bob\",\"amount\":500}")).pipe(
        Effect.provideService(CurrentUser, user)
      )
      const text = "insufficient funds: 500 needed, 100 available"
      assert.deepStrictEqual(summarize(result), {
        callId: "call_1",
        name: "transfer_funds",
        arguments: { to: "bob", amount: 500 },
        status: "error",
        kind: "other",
        modelText: text,
        message: text
      })
      assert.strictEqual(errorOf(result).code, "insufficient_funds")
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// 9. the collection
// ---------------------------------------------------------------------------------------------------------------------

describe("ToolSet collection", () => {
  const named = (name: string, output = name) =>
    Tool.make(name, { description: `the ${name} tool`, parameters: Schema.Struct({}), call: () => Effect.succeed(output) })
  const A = named("a")
  const B = named("b")
  const C = named("c")
  const B2 = named("b", "b2")
  const D = named("d")

  it("make keeps the order given", () => {
    assert.deepStrictEqual(ToolSet.names(ToolSet.make(C, A, B)), ["c", "a", "b"])
    assert.deepStrictEqual(ToolSet.make(C, A, B).tools, [C, A, B])
  })

  it("make with a repeated name keeps the later tool at the earlier position", () => {
    const set = ToolSet.make(A, B, C, B2)
    assert.deepStrictEqual(set.tools, [A, B2, C])
  })

  it("add returns a new set and leaves the old one unchanged", () => {
    const set = ToolSet.make(A, B)
    const added = ToolSet.add(set, C)
    assert.deepStrictEqual(added.tools, [A, B, C])
    assert.deepStrictEqual(set.tools, [A, B])
    assert.deepStrictEqual(ToolSet.names(set), ["a", "b"])
    assert.isTrue(Option.isNone(ToolSet.get(set, "c")))
  })

  it("add replaces a same-named tool in place, keeping its position", () => {
    const set = ToolSet.make(A, B, C)
    const replaced = ToolSet.add(set, B2)
    assert.deepStrictEqual(replaced.tools, [A, B2, C])
    assert.deepStrictEqual(ToolSet.names(replaced), ["a", "b", "c"])
    assert.strictEqual(Option.getOrThrow(ToolSet.get(replaced, "b")), B2)
    assert.strictEqual(Option.getOrThrow(ToolSet.get(set, "b")), B)
  })

  it("remove keeps the order of the rest and leaves the old set unchanged", () => {
    const set = ToolSet.make(A, B, C, D)
    const removed = ToolSet.remove(set, "b")
    assert.deepStrictEqual(removed.tools, [A, C, D])
    assert.deepStrictEqual(ToolSet.names(removed), ["a", "c", "d"])
    assert.isTrue(Option.isNone(ToolSet.get(removed, "b")))
    assert.deepStrictEqual(set.tools, [A, B, C, D])
    assert.deepStrictEqual(ToolSet.remove(set, "missing").tools, [A, B, C, D])
  })

  it("merge appends the other set's tools, replacing same-named tools in place", () => {
    const left = ToolSet.make(A, B)
    const right = ToolSet.make(D, B2)
    const merged = ToolSet.merge(left, right)
    assert.deepStrictEqual(merged.tools, [A, B2, D])
    assert.deepStrictEqual(left.tools, [A, B])
    assert.deepStrictEqual(right.tools, [D, B2])
  })

  it("get finds a tool by name", () => {
    const set = ToolSet.make(A, B)
    assert.deepStrictEqual(ToolSet.get(set, "a"), Option.some(A))
    assert.deepStrictEqual(ToolSet.get(set, "z"), Option.none())
  })

  it("definitions are in order", () => {
    const set = ToolSet.make(C, A, Add)
    assert.deepStrictEqual(ToolSet.definitions(set), [Tool.definition(C), Tool.definition(A), Tool.definition(Add)])
    assert.deepStrictEqual(ToolSet.definitions(set).map((definition) => definition.name), ["c", "a", "add"])
  })

  it("the pipeable forms match the data-first forms", () => {
    const set = ToolSet.make(A, B)
    assert.deepStrictEqual(set.pipe(ToolSet.add(C)).tools, ToolSet.add(set, C).tools)
    assert.deepStrictEqual(set.pipe(ToolSet.add(B2)).tools, [A, B2])
    assert.deepStrictEqual(set.pipe(ToolSet.remove("a")).tools, [B])
    assert.deepStrictEqual(set.pipe(ToolSet.merge(ToolSet.make(D))).tools, [A, B, D])
    assert.deepStrictEqual(set.pipe(ToolSet.get("b")), Option.some(B))
  })

  it.effect("execute and executeAll work pipeably", () =>
    Effect.gen(function*() {
      const set = ToolSet.make(A, B)
      const one = yield* set.pipe(ToolSet.execute(call("a", {})))
      assert.strictEqual(Option.getOrUndefined(ToolOutput.asText(one.output)), "a")
      const many = yield* set.pipe(ToolSet.executeAll([call("b", {}, "1"), call("a", {}, "2")]))
      assert.deepStrictEqual(many.map((result) => [result.callId, Option.getOrUndefined(ToolOutput.asText(result.output))]), [
        ["1", "b"],
        ["2", "a"]
      ])
    }))

  const makeSleepy = () => {
    const finished: Array<string> = []
    const Sleepy = Tool.make("sleepy", {
      description: "Sleeps",
      parameters: Schema.Struct({ ms: Schema.Int, tag: Schema.String }),
      call: ({ ms, tag }) =>
        Effect.sleep(`${ms} millis`).pipe(
          Effect.andThen(Effect.sync(() => finished.push(tag))),
          Effect.as(tag)
        )
    })
    return { set: ToolSet.make(Sleepy), finished }
  }
  const sleepyCalls = [120, 80, 40, 0].map((ms, i) => call("sleepy", { ms, tag: `t${i}` }, `call_${i}`))

  for (
    const [concurrency, finishOrder] of [
      [1, ["t0", "t1", "t2", "t3"]],
      [4, ["t3", "t2", "t1", "t0"]],
      ["unbounded", ["t3", "t2", "t1", "t0"]]
    ] as const
  ) {
    it.live(`executeAll returns results in call order with concurrency ${concurrency}`, () =>
      Effect.gen(function*() {
        const { finished, set } = makeSleepy()
        const results = yield* ToolSet.executeAll(set, sleepyCalls, { concurrency })
        assert.deepStrictEqual(
          results.map((result) => [result.callId, result.status, Option.getOrUndefined(ToolOutput.asText(result.output))]),
          [
            ["call_0", "success", "t0"],
            ["call_1", "success", "t1"],
            ["call_2", "success", "t2"],
            ["call_3", "success", "t3"]
          ]
        )
        // The calls really did finish in this order: the ordering of results is dispatch's doing.
        assert.deepStrictEqual(finished, [...finishOrder])
      }))
  }

  it.effect("executeAll yields one result per call, including failures, in call order", () =>
    Effect.gen(function*() {
      const results = yield* ToolSet.executeAll(ToolSet.make(Add, NoArgs), [
        call("add", "{", "1"),
        call("missing", {}, "2"),
        call("no_args", "", "3"),
        call("add", { left: 2, right: 2 }, "4")
      ], { concurrency: "unbounded" })
      assert.deepStrictEqual(
        results.map((result) => [result.callId, result.status, Option.getOrUndefined(Option.map(result.error, (e) => e.kind))]),
        [["1", "error", "invalid_args"], ["2", "error", "not_found"], ["3", "success", undefined], ["4", "success", undefined]]
      )
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// 10. metadata
// ---------------------------------------------------------------------------------------------------------------------

describe("metadata", () => {
  it.effect("insertResult is read by ToolResult.metadata and never reaches the model output", () =>
    Effect.gen(function*() {
      const result = yield* ToolSet.execute(ToolSet.make(Add), call("add", { left: 20, right: 22 }))
      assert.deepStrictEqual(ToolResult.metadata(result, AuditRecord), Option.some(42))
      assert.deepStrictEqual(result.output.content, [ToolResultContent.json({ value: 42 })])

      const Tagged = Tool.make("tagged", {
        description: "Inserts a distinctive value",
        parameters: Schema.Struct({}),
        call: () => ToolContext.insertResult(Audit, "META-SECRET-9911").pipe(Effect.as("visible"))
      })
      const tagged = yield* ToolSet.execute(ToolSet.make(Tagged), call("tagged", {}))
      assert.deepStrictEqual(ToolResult.metadata(tagged, Audit), Option.some("META-SECRET-9911"))
      assert.deepStrictEqual(tagged.output.content, [ToolResultContent.text("visible")])
      assert.notInclude(ToolOutput.render(tagged.output), "META-SECRET")
      assert.notInclude(JSON.stringify(tagged), "META-SECRET")
      assert.deepStrictEqual(ToolResult.metadata(tagged, AuditRecord), Option.none())
    }))

  it.effect("a typed failure keeps the metadata it inserted", () =>
    Effect.gen(function*() {
      const Fails = Tool.make("fails_after_insert", {
        description: "Inserts then fails",
        parameters: Schema.Struct({}),
        call: () => ToolContext.insertResult(Audit, "kept").pipe(Effect.andThen(Effect.fail(new Boom({ secret: "s" }))))
      })
      const result = yield* ToolSet.execute(ToolSet.make(Fails), call("fails_after_insert", {}))
      assert.strictEqual(errorOf(result).kind, "other")
      assert.deepStrictEqual(ToolResult.metadata(result, Audit), Option.some("kept"))
    }))

  it.effect("a typed failure of kind timeout or cancelled, chosen by the tool, keeps the metadata it inserted", () =>
    Effect.gen(function*() {
      // The call completed: it failed on purpose, with an error it built. Only dispatch's own timeout and a real
      // interruption mean the call did not complete.
      const Upstream = Tool.make("upstream", {
        description: "Inserts then reports an upstream timeout",
        parameters: Schema.Struct({ kind: Schema.Literals(["timeout", "cancelled"]) }),
        call: ({ kind }) =>
          ToolContext.insertResult(Audit, `kept-${kind}`).pipe(
            Effect.andThen(Effect.fail(
              kind === "timeout"
                ? ToolExecutionError.timeout("the upstream service timed out")
                : ToolExecutionError.cancelled("the upstream job was cancelled")
            ))
          )
      })
      const set = ToolSet.make(Upstream)
      const timedOut = yield* ToolSet.execute(set, call("upstream", { kind: "timeout" }))
      assert.deepStrictEqual(
        [errorOf(timedOut).kind, ToolResult.metadata(timedOut, Audit)],
        ["timeout", Option.some("kept-timeout")]
      )
      const cancelled = yield* ToolSet.execute(set, call("upstream", { kind: "cancelled" }))
      assert.deepStrictEqual(
        [errorOf(cancelled).kind, ToolResult.metadata(cancelled, Audit)],
        ["cancelled", Option.some("kept-cancelled")]
      )
    }))

  it.effect("an interrupted call keeps no metadata", () =>
    Effect.gen(function*() {
      const Quits = Tool.make("quits_after_insert", {
        description: "Inserts then interrupts",
        parameters: Schema.Struct({}),
        call: () => ToolContext.insertResult(Audit, "dropped").pipe(Effect.andThen(Effect.interrupt))
      })
      const result = yield* ToolSet.execute(ToolSet.make(Quits), call("quits_after_insert", {}))
      assert.strictEqual(errorOf(result).kind, "cancelled")
      assert.deepStrictEqual(ToolResult.metadata(result, Audit), Option.none())
    }))

  it.effect("a defective call keeps no metadata", () =>
    Effect.gen(function*() {
      const Dies = Tool.make("dies_after_insert", {
        description: "Inserts then dies",
        parameters: Schema.Struct({}),
        call: () => ToolContext.insertResult(Audit, "dropped").pipe(Effect.andThen(Effect.die("boom")))
      })
      const result = yield* ToolSet.execute(ToolSet.make(Dies), call("dies_after_insert", {}))
      assert.strictEqual(errorOf(result).kind, "other")
      assert.deepStrictEqual(ToolResult.metadata(result, Audit), Option.none())
    }))

  it.live("a timed-out call keeps no metadata, even what it inserted after the timeout", () =>
    Effect.gen(function*() {
      const Slow = Tool.make("slow_after_insert", {
        description: "Inserts then sleeps",
        parameters: Schema.Struct({}),
        annotations: { timeout: "20 millis" },
        call: () =>
          ToolContext.insertResult(Audit, "dropped").pipe(
            Effect.andThen(Effect.sleep("10 seconds")),
            Effect.onInterrupt(() => ToolContext.insertResult(Audit, "late")),
            Effect.as("finished")
          )
      })
      const result = yield* ToolSet.execute(ToolSet.make(Slow), call("slow_after_insert", {}))
      assert.strictEqual(errorOf(result).kind, "timeout")
      assert.deepStrictEqual(ToolResult.metadata(result, Audit), Option.none())
      assert.strictEqual(result.metadata.mapUnsafe.size, 0)
    }))

  const Conditional = Tool.make("conditional", {
    description: "Inserts its value when asked",
    parameters: Schema.Struct({ value: Schema.String, insert: Schema.Boolean, ms: Schema.Int }),
    call: ({ insert, ms, value }) =>
      Effect.gen(function*() {
        if (insert) yield* ToolContext.insertResult(Audit, value)
        yield* Effect.sleep(`${ms} millis`)
        return value
      })
  })
  const set = ToolSet.make(Conditional)

  it.effect("sequential calls never see each other's metadata", () =>
    Effect.gen(function*() {
      const first = yield* ToolSet.execute(set, call("conditional", { value: "one", insert: true, ms: 0 }, "1"))
      const second = yield* ToolSet.execute(set, call("conditional", { value: "two", insert: false, ms: 0 }, "2"))
      const third = yield* ToolSet.execute(set, call("conditional", { value: "three", insert: true, ms: 0 }, "3"))
      assert.deepStrictEqual(ToolResult.metadata(first, Audit), Option.some("one"))
      assert.deepStrictEqual(ToolResult.metadata(second, Audit), Option.none())
      assert.deepStrictEqual(ToolResult.metadata(third, Audit), Option.some("three"))
    }))

  it.live("concurrent calls never see each other's metadata", () =>
    Effect.gen(function*() {
      const calls = Array.from({ length: 8 }, (_, i) =>
        call("conditional", { value: `v${i}`, insert: i % 2 === 0, ms: (8 - i) * 3 }, `c${i}`))
      const results = yield* ToolSet.executeAll(set, calls, { concurrency: "unbounded" })
      assert.deepStrictEqual(
        results.map((result) => Option.getOrUndefined(ToolResult.metadata(result, Audit))),
        ["v0", undefined, "v2", undefined, "v4", undefined, "v6", undefined]
      )
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// 11. prototype keys
// ---------------------------------------------------------------------------------------------------------------------

describe("prototype keys in arguments", () => {
  const payloads = [
    "{\"__proto__\":{\"polluted\":true}}",
    "{\"constructor\":{\"prototype\":{\"polluted\":true}}}",
    "{\"prototype\":{\"polluted\":true}}",
    "{\"name\":\"x\",\"__proto__\":{\"polluted\":true},\"nested\":{\"__proto__\":{\"polluted\":true}}}"
  ]

  const assertNotPolluted = () => {
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    assert.isUndefined((Object.prototype as unknown as Record<string, unknown>)["polluted"])
  }

  for (const payload of payloads) {
    for (const [form, args] of [["JSON text", payload], ["a JSON.parse object", JSON.parse(payload)]] as const) {
      it.effect(`${payload} as ${form}: a Struct sees only its known keys, with a plain prototype`, () =>
        Effect.gen(function*() {
          const recorder = makeRecorder(
            "struct",
            Schema.Struct({
              name: Schema.optionalKey(Schema.String),
              nested: Schema.optionalKey(Schema.Struct({ inner: Schema.optionalKey(Schema.String) }))
            })
          )
          const result = yield* ToolSet.execute(ToolSet.make(recorder.tool), call("struct", args))
          assert.strictEqual(result.status, "success")
          assertNotPolluted()
          assert.strictEqual(recorder.received.length, 1)
          const received = recorder.received[0] as Record<string, unknown>
          assert.strictEqual(Object.getPrototypeOf(received), Object.prototype)
          assert.isUndefined(received["polluted"])
          const expected: Record<string, unknown> = {}
          if (payload.includes("\"name\"")) {
            expected["name"] = "x"
            expected["nested"] = {}
          }
          assert.deepStrictEqual(received, expected)
          if (received["nested"] !== undefined) {
            assert.strictEqual(Object.getPrototypeOf(received["nested"]), Object.prototype)
          }
        }))

      it.effect(`${payload} as ${form}: a Record keeps the keys as own data, never as a prototype`, () =>
        Effect.gen(function*() {
          const recorder = makeRecorder("record", Schema.Record(Schema.String, Schema.Unknown))
          const result = yield* ToolSet.execute(ToolSet.make(recorder.tool), call("record", args))
          assert.strictEqual(result.status, "success")
          assertNotPolluted()
          const received = recorder.received[0] as Record<string, unknown>
          assert.strictEqual(Object.getPrototypeOf(received), Object.prototype)
          assert.isUndefined(received["polluted"])
          const parsed = JSON.parse(payload) as Record<string, unknown>
          assert.deepStrictEqual(Object.keys(received), Object.keys(parsed))
          for (const key of Object.keys(parsed)) {
            assert.deepStrictEqual(Object.getOwnPropertyDescriptor(received, key)?.value, parsed[key])
          }
        }))
    }
  }

  it.effect("a __proto__ key is an excess property when excess keys are rejected", () =>
    Effect.gen(function*() {
      const Strict = Tool.make("strict_proto", {
        description: "Strict",
        parameters: Schema.Struct({ a: Schema.Int }),
        onExcessProperty: "error",
        call: ({ a }) => Effect.succeed(a)
      })
      const result = yield* ToolSet.execute(ToolSet.make(Strict), call("strict_proto", payloads[0]!.replace("{", "{\"a\":1,")))
      assertNotPolluted()
      assert.strictEqual(
        Option.getOrUndefined(ToolOutput.asText(result.output)),
        "tool arguments did not match the schema:\n- $.__proto__: Expected no excess property"
      )
    }))
})
