import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { Add } from "../examples/tools.ts"
import { Tool, ToolResult, ToolSet } from "../src/index.ts"
import { withoutNegativeZero } from "./support/json.ts"

const options = { arbitrary: { runs: 200 } }

const Anything = Tool.make("anything", {
  description: "Accepts any object",
  parameters: Schema.Record(Schema.String, Schema.Unknown),
  call: () => Effect.succeed("ok")
})

const NoArgs = Tool.make("no_args", {
  description: "Takes nothing",
  parameters: Schema.Struct({}),
  call: () => Effect.succeed("done")
})

const set = ToolSet.make(Add, Anything, NoArgs)

const Name = Schema.Literals(["add", "anything", "no_args", "missing", ""])

/** Runs one call and checks that it ended in exactly one result for that call. */
const executesToOneResult = (name: string, args: unknown) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(ToolSet.execute(set, { id: "call_p", name, arguments: args }))
    assert.isTrue(Exit.isSuccess(exit), `execute failed or died for ${name}`)
    const result = (exit as Exit.Success<ToolResult.ToolResult>).value
    assert.isTrue(ToolResult.isToolResult(result))
    assert.deepStrictEqual([result.callId, result.name], ["call_p", name])
    // A result is either a success without an error, or an error with one.
    assert.strictEqual(result.status === "success", result.error._tag === "None")
    assert.isTrue(result.output.content.length >= 1)
    if (name === "missing" || name === "") {
      assert.deepStrictEqual([result.status, result.error._tag === "Some" && result.error.value.kind], ["error", "not_found"])
    }
  })

describe("execute is total", () => {
  it.effect.prop("any string as arguments yields exactly one result", [Name, Schema.String], ([name, args]) =>
    executesToOneResult(name, args), options)

  it.effect.prop("any JSON value as arguments yields exactly one result", [Name, Schema.Json], ([name, args]) =>
    executesToOneResult(name, args), options)

  it.effect.prop("any JSON value, as JSON text, yields exactly one result", [Name, Schema.Json], ([name, args]) =>
    executesToOneResult(name, JSON.stringify(args)), options)

  it.effect.prop("any value at all as arguments yields exactly one result", [Name, Schema.Unknown], ([name, args]) =>
    executesToOneResult(name, args), options)

  it.effect.prop(
    "a JSON object goes through the Record tool and comes back as the result's arguments",
    [Schema.Record(Schema.String, Schema.Json)],
    ([args]) =>
      Effect.gen(function*() {
        const fromText = yield* ToolSet.execute(set, { id: "t", name: "anything", arguments: JSON.stringify(args) })
        const fromValue = yield* ToolSet.execute(set, { id: "v", name: "anything", arguments: args })
        const parsed = JSON.parse(JSON.stringify(args))
        // Deeply nested values hit the depth limit on both paths alike.
        assert.strictEqual(fromText.status, fromValue.status)
        assert.deepStrictEqual(fromText.arguments, fromText.status === "success" ? parsed : JSON.stringify(args))
        assert.deepStrictEqual(fromValue.arguments, args)
      }),
    options
  )

  it.effect.prop(
    "executeAll yields one result per call, in call order",
    [Schema.Array(Schema.Tuple([Name, Schema.Json]))],
    ([pairs]) =>
      Effect.gen(function*() {
        const calls = pairs.map(([name, args], i) => ({ id: `c${i}`, name, arguments: args }))
        const results = yield* ToolSet.executeAll(set, calls, { concurrency: 4 })
        assert.deepStrictEqual(results.map((result) => [result.callId, result.name]), calls.map((c) => [c.id, c.name]))
      }),
    { arbitrary: { runs: 50 } }
  )
})

describe("arguments generated from the parameters Schema", () => {
  const Params = Schema.Struct({
    id: Schema.Int,
    name: Schema.String,
    note: Schema.optionalKey(Schema.String),
    tags: Schema.Array(Schema.String),
    point: Schema.Struct({ x: Schema.Int, y: Schema.Int, label: Schema.optionalKey(Schema.String) }),
    mode: Schema.Literals(["fast", "slow"]),
    flag: Schema.optionalKey(Schema.Boolean),
    levels: Schema.Array(Schema.Struct({ depth: Schema.Int, kind: Schema.Literal("leaf") }))
  })
  const encode = Schema.encodeSync(Schema.toCodecJson(Params))

  const received: Array<unknown> = []
  const Recorder = Tool.make("recorder", {
    description: "Records its arguments",
    parameters: Params,
    call: (args) =>
      Effect.sync(() => {
        received.push(args)
        return "ok"
      })
  })
  const recorderSet = ToolSet.make(Recorder)

  it.effect.prop("reach call decoded and equal, from JSON text", [Params], ([args]) =>
    Effect.gen(function*() {
      received.length = 0
      const text = JSON.stringify(encode(args))
      const result = yield* ToolSet.execute(recorderSet, { id: "p", name: "recorder", arguments: text })
      assert.strictEqual(result.status, "success")
      assert.deepStrictEqual(received, [withoutNegativeZero(args)])
    }), options)

  it.effect.prop("reach call decoded and equal, from a parsed value", [Params], ([args]) =>
    Effect.gen(function*() {
      received.length = 0
      const result = yield* ToolSet.execute(recorderSet, {
        id: "p",
        name: "recorder",
        arguments: JSON.parse(JSON.stringify(encode(args)))
      })
      assert.strictEqual(result.status, "success")
      assert.deepStrictEqual(received, [withoutNegativeZero(args)])
    }), options)

  it.effect.prop("reach call decoded and equal, from the encoded value itself", [Params], ([args]) =>
    Effect.gen(function*() {
      received.length = 0
      const result = yield* ToolSet.execute(recorderSet, { id: "p", name: "recorder", arguments: encode(args) })
      assert.strictEqual(result.status, "success")
      assert.deepStrictEqual(received, [args])
    }), options)
})
