import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option, Schema } from "effect"
import { Add } from "../examples/tools.ts"
import { Tool, ToolExecutionError, ToolOutput, ToolResult, ToolResultContent, ToolSet } from "../src/index.ts"
import { ToolTesting } from "../src/testing/index.ts"
import { isFrozenPlainJson } from "./support/frozenJson.ts"
import { throwingProxy } from "./support/hostile.ts"
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
  const total = ToolTesting.checkTotal(set)

  it.effect.prop(
    "any call, valid or garbage, to a tool or to no tool, gives exactly one result (the test kit's check)",
    total.arbitraries,
    total.property,
    { timeout: 60_000, arbitrary: { runs: 200 } }
  )

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

// ---------------------------------------------------------------------------------------------------------------------
// Hostile JavaScript: generated values that JSON.stringify would choke on, misreport or read twice.
// ---------------------------------------------------------------------------------------------------------------------

/** What can be planted in a JSON value; the first four keep it JSON (when read once), the rest make it not JSON. */
const Plant = Schema.Literals([
  "undefinedField",
  "stableGetter",
  "flippingGetter",
  "negativeZero",
  "nan",
  "bigint",
  "date",
  "cycle",
  "deep",
  "throwingGetter",
  "throwingProxy"
])
type Plant = typeof Plant.Type

const Planting = Schema.Array(
  Schema.Struct({ at: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1000 })), plant: Plant })
).check(Schema.isMaxLength(4))

/** How a tool hands the value back. */
const Wrapping = Schema.Literals(["bare", "ToolOutput.json", "block", "blocks"])

const deepArrays = (depth: number): unknown => {
  let value: unknown = []
  for (let i = 1; i < depth; i++) value = [value]
  return value
}

/**
 * A fresh value built from generated JSON with things planted in its arrays and objects. Built twice from the same
 * recipe, it gives two values that read alike, once each.
 */
const grow = (json: Schema.Json, planting: ReadonlyArray<{ readonly at: number; readonly plant: Plant }>) => {
  let root: unknown = JSON.parse(JSON.stringify(json))
  const containers: Array<Record<string, unknown> | Array<unknown>> = []
  const collect = (value: unknown): void => {
    const stack = [value]
    while (stack.length > 0) {
      const current = stack.pop()
      if (typeof current === "object" && current !== null) {
        containers.push(current as Record<string, unknown>)
        stack.push(...Object.values(current))
      }
    }
  }
  collect(root)
  if (containers.length === 0 && planting.length > 0) {
    root = { root }
    containers.push(root as Record<string, unknown>)
  }
  let json_ = true
  planting.forEach(({ at, plant }, n) => {
    const target = containers[at % containers.length]!
    const key = Array.isArray(target) ? String(target.length) : `planted${n}`
    let reads = 0
    const define = (descriptor: PropertyDescriptor) =>
      Object.defineProperty(target, key, { enumerable: true, configurable: true, ...descriptor })
    switch (plant) {
      case "undefinedField":
        // JSON drops an undefined field, but has no undefined array element.
        if (Array.isArray(target)) json_ = false
        define({ value: undefined, writable: true })
        break
      case "stableGetter":
        define({ get: () => "stable" })
        break
      case "flippingGetter":
        define({ get: () => ++reads === 1 ? 1 : 10n })
        break
      case "negativeZero":
        define({ value: -0, writable: true })
        break
      case "nan":
        json_ = false
        define({ value: Number.NaN, writable: true })
        break
      case "bigint":
        json_ = false
        define({ value: 10n, writable: true })
        break
      case "date":
        json_ = false
        define({ value: new Date(0), writable: true })
        break
      case "cycle":
        json_ = false
        define({ value: containers[0], writable: true })
        break
      case "deep":
        json_ = false
        define({ value: deepArrays(300), writable: true })
        break
      case "throwingGetter":
        json_ = false
        define({
          get: () => {
            throw new Error("SECRET getter")
          }
        })
        break
      case "throwingProxy":
        json_ = false
        define({
          value: new Proxy({}, {
            ownKeys() {
              throw new Error("SECRET trap")
            }
          }),
          writable: true
        })
        break
    }
  })
  return { value: root, containers, isJson: json_ }
}

const wrap = (value: unknown, wrapping: typeof Wrapping.Type): unknown => {
  switch (wrapping) {
    case "bare":
      return value
    case "ToolOutput.json":
      return ToolOutput.json(value as Schema.Json)
    case "block":
      return ToolResultContent.json(value as Schema.Json)
    case "blocks":
      return [ToolResultContent.text("caption"), ToolResultContent.json(value as Schema.Json)]
  }
}

describe("output is one frozen plain JSON copy", () => {
  it.effect.prop(
    "whatever a tool returns, the result is success holding a frozen copy equal to its JSON, or kind other",
    [Schema.Json, Planting, Wrapping],
    ([json, planting, wrapping]) =>
      Effect.gen(function*() {
        const returned = grow(json, planting)
        const twin = grow(json, planting)
        const Returning = Tool.make("returning", {
          description: "Returns the generated value",
          parameters: Schema.Struct({}),
          call: () => Effect.sync(() => wrap(returned.value, wrapping))
        })
        const exit = yield* Effect.exit(ToolSet.execute(ToolSet.make(Returning), { id: "p", name: "returning", arguments: {} }))
        assert.isTrue(Exit.isSuccess(exit), "execute failed or died")
        const result = (exit as Exit.Success<ToolResult.ToolResult>).value
        assert.strictEqual(typeof ToolOutput.render(result.output), "string")
        // Top-level `undefined` is no JSON value at all.
        const expectSuccess = returned.isJson && twin.value !== undefined
        if (!expectSuccess) {
          assert.deepStrictEqual(
            [result.status, Option.getOrUndefined(Option.map(result.error, (error) => error.kind))],
            ["error", "other"]
          )
          assert.deepStrictEqual(ToolOutput.asText(result.output), Option.some("the tool failed"))
          return
        }
        assert.strictEqual(result.status, "success")
        const content = result.output.content
        const block = content[content.length - 1]
        if (wrapping === "bare" && typeof twin.value === "string") {
          // A string a tool returns is text, not JSON.
          return assert.deepStrictEqual(content, [ToolResultContent.text(twin.value)])
        }
        if (!(block instanceof ToolResultContent.Json)) return assert.fail("expected a Json block last")
        const expected = JSON.stringify(twin.value)
        assert.strictEqual(JSON.stringify(block.value), expected)
        assert.isTrue(isFrozenPlainJson(block.value))
        // What the tool still holds can change; the result cannot.
        for (const container of returned.containers) {
          if (Array.isArray(container)) container.push("later")
          else if (Object.isExtensible(container)) container["later"] = "later"
        }
        assert.strictEqual(JSON.stringify(block.value), expected)
      }),
    { arbitrary: { runs: 300 } }
  )
})

describe("dispatch is total against hostile JavaScript", () => {
  const getter = () => ({
    get secret(): string {
      throw new Error("SECRET getter")
    }
  })
  const cyclic = () => {
    const value: Record<string, unknown> = {}
    value["self"] = value
    return value
  }

  /** What a tool does, by name: every way a JavaScript tool can break the contract. */
  const behaviours: Record<string, () => unknown> = {
    ok: () => Effect.succeed("ok"),
    returnsProxy: () => Effect.succeed(throwingProxy()),
    returnsGetter: () => Effect.succeed(getter()),
    returnsCycleBlock: () => Effect.succeed(ToolOutput.json(cyclic() as Schema.Json)),
    returnsBadBlock: () => Effect.succeed(new ToolResultContent.Text({ text: 5 as never })),
    returnsDeep: () => Effect.succeed(deepArrays(5000)),
    callIsProxy: () => throwingProxy(),
    callThrows: () => {
      throw throwingProxy()
    },
    callReturnsPromise: () => Promise.resolve(1),
    failsWithProxy: () => Effect.fail(throwingProxy()),
    diesWithProxy: () => Effect.die(throwingProxy()),
    failsWithBareError: () => Effect.fail(Object.create(ToolExecutionError.ToolExecutionError.prototype)),
    failsWithBadKind: () => Effect.fail(new ToolExecutionError.ToolExecutionError({ kind: 5, message: {} } as never)),
    failsWithBadOutput: () =>
      Effect.fail(Object.assign(ToolExecutionError.provider("p"), { modelOutput: ToolOutput.json(cyclic() as Schema.Json) }))
  }
  const Behaviour = Schema.Literals([...Object.keys(behaviours), "missing"])
  const hostileSet = ToolSet.make(
    ...Object.entries(behaviours).map(([name, behave]) =>
      Tool.make(name, {
        description: name,
        parameters: Schema.Record(Schema.String, Schema.Unknown),
        mapError: () => throwingProxy() as never,
        call: () => behave() as Effect.Effect<unknown>
      })
    )
  )

  const argumentsOf = {
    object: () => ({ a: 1 }),
    text: () => "{\"a\":1}",
    garbage: () => "{not json",
    proxy: throwingProxy,
    getter,
    cyclic,
    deep: () => ({ a: deepArrays(5000) }),
    array: () => [1],
    bigint: () => 1n
  }
  const Arguments = Schema.Literals(Object.keys(argumentsOf) as Array<keyof typeof argumentsOf>)
  const Shape = Schema.Literals(["plain", "proxy", "null", "number", "numericFields"])
  const Call = Schema.Struct({ behaviour: Behaviour, args: Arguments, shape: Shape })
  const List = Schema.Struct({
    calls: Schema.Array(Call).check(Schema.isMaxLength(8)),
    // Where the list throws while it is read, if it does.
    throwsAt: Schema.UndefinedOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 8 }))),
    concurrency: Schema.Literals([1, 3, "unbounded"])
  })

  const build = (spec: typeof Call.Type, i: number): unknown => {
    const args = argumentsOf[spec.args]()
    switch (spec.shape) {
      case "plain":
        return { id: `c${i}`, name: spec.behaviour, arguments: args }
      case "proxy":
        return throwingProxy()
      case "null":
        return null
      case "number":
        return i
      case "numericFields":
        return { id: i, name: i, arguments: args }
    }
  }

  const hostileTotal = ToolTesting.checkTotal(hostileSet)

  it.effect.prop(
    "any call to tools that break their contract gives exactly one result (the test kit's check)",
    hostileTotal.arbitraries,
    hostileTotal.property,
    { timeout: 60_000, arbitrary: { runs: 150 } }
  )

  it.effect.prop(
    "every call read ends in exactly one result, the unread rest in one more, and executeAll never fails or dies",
    [List],
    ([list]) =>
      Effect.gen(function*() {
        const calls = list.calls.map(build)
        const throwsAt = list.throwsAt !== undefined && list.throwsAt <= calls.length ? list.throwsAt : undefined
        const iterable: Iterable<unknown> = {
          *[Symbol.iterator]() {
            for (let i = 0; i < calls.length; i++) {
              if (i === throwsAt) throw throwingProxy()
              yield calls[i]
            }
            if (throwsAt === calls.length) throw throwingProxy()
          }
        }
        const exit = yield* Effect.exit(
          ToolSet.executeAll(hostileSet, iterable as Iterable<never>, { concurrency: list.concurrency })
        )
        assert.isTrue(Exit.isSuccess(exit), `executeAll failed or died: ${String(exit)}`)
        const results = (exit as Exit.Success<Array<ToolResult.ToolResult>>).value
        const read = throwsAt ?? calls.length
        assert.strictEqual(results.length, read + (throwsAt === undefined ? 0 : 1))
        results.forEach((result, i) => {
          assert.isTrue(ToolResult.isToolResult(result))
          assert.include(["success", "error", "denied"], result.status)
          assert.strictEqual(result.status === "success", Option.isNone(result.error))
          assert.isTrue(ToolOutput.isToolOutput(result.output) && result.output.content.length >= 1)
          assert.strictEqual(typeof ToolOutput.render(result.output), "string")
          if (Option.isSome(result.error)) {
            const error = result.error.value
            assert.include(ToolExecutionError.kinds, error.kind)
            assert.strictEqual(typeof error.message, "string")
            assert.strictEqual(result.output, error.modelOutput)
          }
          const spec = list.calls[i]
          const expectedId = i < read && spec?.shape === "plain" ? `c${i}` : ""
          assert.deepStrictEqual([result.callId, typeof result.name], [expectedId, "string"])
        })
        if (throwsAt !== undefined) {
          const rest = results[read]!
          assert.deepStrictEqual(
            [rest.callId, rest.name, Option.getOrUndefined(Option.map(rest.error, (error) => error.kind))],
            ["", "", "invalid_args"]
          )
        }
      }),
    { arbitrary: { runs: 150 } }
  )
})
