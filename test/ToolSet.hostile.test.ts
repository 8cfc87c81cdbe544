import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Option, Schema, Tracer } from "effect"
import {
  Tool,
  type ToolCall,
  ToolContext,
  ToolExecutionError,
  ToolOutput,
  ToolResult,
  ToolResultContent,
  ToolSet
} from "../src/index.ts"
import { isFrozenPlainJson } from "./support/frozenJson.ts"
import { throwingProxy } from "./support/hostile.ts"

class AuditKey extends Context.Service<AuditKey, number>()("test/AuditKey") {}

// Bad input from a model, a JavaScript caller or a careless tool never crashes dispatch: every call below ends in one
// result, and none of it leaks into what the model sees.

const summarize = (result: ToolResult.ToolResult) => ({
  status: result.status,
  kind: Option.getOrUndefined(Option.map(result.error, (error) => error.kind)),
  modelText: Option.getOrUndefined(ToolOutput.asText(result.output)),
  message: Option.getOrUndefined(Option.map(result.error, (error) => error.message))
})

/** Runs a call and fails the test unless the Effect succeeds: `execute` must never fail or die. */
const executeOnce = (set: ToolSet.Any, call: ToolCall.ToolCall) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(ToolSet.execute(set as ToolSet.ToolSet<Tool.Any>, call) as Effect.Effect<ToolResult.ToolResult>)
    if (Exit.isFailure(exit)) assert.fail(`execute did not succeed: ${String(exit)}`)
    return exit.value
  })

const returning = (value: () => unknown) =>
  Tool.make("returning", {
    description: "Returns what the test gives it",
    parameters: Schema.Struct({}),
    call: () => Effect.sync(value)
  })

const throwingGetter = () => ({
  get secret(): string {
    throw new Error("SECRET getter text")
  }
})


const unreadable: { status: "error"; kind: "other"; modelText: string } = {
  status: "error",
  kind: "other",
  modelText: "the tool failed"
}

describe("dispatch under hostile input", () => {
  it.effect("an output whose getter throws is kind other, not a dead dispatch", () =>
    Effect.gen(function*() {
      const result = yield* executeOnce(ToolSet.make(returning(throwingGetter)), { id: "1", name: "returning", arguments: {} })
      assert.deepStrictEqual(summarize(result), {
        ...unreadable,
        message: "tool `returning` returned an output that cannot be encoded: the value could not be read"
      })
    }))

  it.effect("an output that is a hostile proxy is kind other", () =>
    Effect.gen(function*() {
      const result = yield* executeOnce(ToolSet.make(returning(throwingProxy)), { id: "1", name: "returning", arguments: {} })
      assert.deepStrictEqual(
        summarize(result),
        {
          ...unreadable,
          message: "tool `returning` returned an output that cannot be encoded: the value could not be read"
        }
      )
    }))

  it.effect("a typed failure or a defect that is a hostile proxy is kind other", () =>
    Effect.gen(function*() {
      const Failing = Tool.make("failing", {
        description: "Fails with a proxy",
        parameters: Schema.Struct({ die: Schema.Boolean }),
        call: ({ die }) => die ? Effect.die(throwingProxy()) : Effect.fail(throwingProxy())
      })
      const set = ToolSet.make(Failing)
      for (const die of [false, true]) {
        const result = yield* executeOnce(set, { id: "1", name: "failing", arguments: { die } })
        assert.deepStrictEqual({ status: result.status, kind: summarize(result).kind }, { status: "error", kind: "other" })
        assert.strictEqual(summarize(result).modelText, "the tool failed")
      }
    }))

  it.effect("a defect whose _tag getter throws is named without reading it", () =>
    Effect.gen(function*() {
      const Dying = Tool.make("dying", {
        description: "Dies with an unreadable value",
        parameters: Schema.Struct({}),
        call: () =>
          Effect.die({
            get _tag(): string {
              throw new Error("SECRET")
            }
          })
      })
      const result = yield* executeOnce(ToolSet.make(Dying), { id: "1", name: "dying", arguments: {} })
      assert.deepStrictEqual(summarize(result), { ...unreadable, message: "tool died with an unreadable value" })
    }))

  it.effect("a mapError that returns something other than a ToolExecutionError is kind other", () =>
    Effect.gen(function*() {
      for (const mapped of [undefined, "oops", { kind: "other", message: "m" }]) {
        const Mapped = Tool.make("mapped", {
          description: "Its mapError breaks the contract",
          parameters: Schema.Struct({}),
          mapError: () => mapped as unknown as ToolExecutionError.ToolExecutionError,
          call: () => Effect.fail({ _tag: "Boom" })
        })
        const result = yield* executeOnce(ToolSet.make(Mapped), { id: "1", name: "mapped", arguments: {} })
        const described = mapped === undefined ? "a undefined" : typeof mapped === "string" ? "a string" : "Object"
        assert.deepStrictEqual(summarize(result), {
          ...unreadable,
          message: `the mapError of tool \`mapped\` returned ${described}, not a ToolExecutionError`
        })
      }
    }))

  it.effect("parsed arguments whose getter throws are invalid_args, and the getter's text never shows", () =>
    Effect.gen(function*() {
      const Echo = Tool.make("echo", {
        description: "Echo",
        parameters: Schema.Struct({ secret: Schema.String }),
        call: ({ secret }) => Effect.succeed(secret)
      })
      for (const args of [throwingGetter(), throwingProxy()]) {
        const result = yield* executeOnce(ToolSet.make(Echo), { id: "1", name: "echo", arguments: args })
        const expected = "failed to parse tool arguments: the arguments could not be read"
        assert.deepStrictEqual(summarize(result), {
          status: "error",
          kind: "invalid_args",
          modelText: expected,
          message: expected
        })
      }
    }))

  it.effect("parsed arguments must be JSON: a class instance is not an object, a nested one is named by path", () =>
    Effect.gen(function*() {
      const Any = Tool.make("any", {
        description: "Takes any record",
        parameters: Schema.Record(Schema.String, Schema.Unknown),
        call: () => Effect.succeed("ran")
      })
      const set = ToolSet.make(Any)
      for (const args of [new Date(0), new Map([["a", 1]])]) {
        const result = yield* executeOnce(set, { id: "1", name: "any", arguments: args })
        assert.strictEqual(summarize(result).modelText, "tool arguments must be a JSON object")
      }
      const nested = yield* executeOnce(set, { id: "1", name: "any", arguments: { when: new Date(0) } })
      assert.strictEqual(
        summarize(nested).modelText,
        "failed to parse tool arguments: the arguments are not JSON: $.when is Date, not JSON"
      )
    }))

  it.effect("parsed arguments that share sub-values count once per path, as their text would, up to the byte limit", () =>
    Effect.gen(function*() {
      const lattice = (levels: number) => {
        let shared: Record<string, unknown> = {}
        for (let i = 0; i < levels; i++) shared = { left: shared, right: shared }
        return shared
      }
      const Any = Tool.make("any", {
        description: "Takes any record",
        parameters: Schema.Record(Schema.String, Schema.Unknown),
        call: () => Effect.succeed("ran")
      })
      // 40 levels, each holding its child twice: 2^40 paths, terabytes of text. The walk ends at 1 MiB of it.
      const huge = yield* executeOnce(ToolSet.make(Any), { id: "1", name: "any", arguments: lattice(40) })
      assert.strictEqual(summarize(huge).modelText, "failed to parse tool arguments: the arguments are larger than 1048576 bytes")
      const small = lattice(8)
      const result = yield* executeOnce(ToolSet.make(Any), { id: "1", name: "any", arguments: small })
      assert.strictEqual(result.status, "success")
      assert.deepStrictEqual(result.arguments, JSON.parse(JSON.stringify(small)))
    }))

  it.effect("a syntax error never quotes the argument text back to the model", () =>
    Effect.gen(function*() {
      const Echo = Tool.make("echo", {
        description: "Echo",
        parameters: Schema.Struct({}),
        call: () => Effect.succeed("ran")
      })
      const cases = [
        ["{\"text\": \"x\", \"password\": hunter2secret}", "failed to parse tool arguments: Unexpected token"],
        ["[\"hunter2secret\",]", "failed to parse tool arguments: Unexpected token"],
        ["{\"password\":\"hunter2secret\"", "failed to parse tool arguments: Expected ',' or '}' after property value at position 27"],
        ["{\"password\":\"hunter2secret", "failed to parse tool arguments: Unterminated string at position 26"],
        [
          "{\"a\":1} hunter2secret",
          "failed to parse tool arguments: Unexpected non-whitespace character after the JSON value at position 8"
        ]
      ] as const
      for (const [text, expected] of cases) {
        const result = yield* executeOnce(ToolSet.make(Echo), { id: "1", name: "echo", arguments: text })
        assert.deepStrictEqual(summarize(result), {
          status: "error",
          kind: "invalid_args",
          modelText: expected,
          message: expected
        })
      }
    }))

  it.effect("a call whose id or name is missing, not a string or unreadable ends in not_found", () =>
    Effect.gen(function*() {
      const set = ToolSet.make(returning(() => "ran"))
      const calls: Array<readonly [unknown, string]> = [
        [{ id: 1, name: 2, arguments: {} }, ""],
        [{ arguments: {} }, ""],
        [{ id: "x", name: Object.create(null), arguments: {} }, "x"],
        [{ id: "x", name: Symbol("s"), arguments: {} }, "x"],
        [null, ""],
        [throwingProxy(), ""]
      ]
      for (const [call, callId] of calls) {
        const result = yield* executeOnce(set, call as ToolCall.ToolCall)
        assert.deepStrictEqual(
          { ...summarize(result), callId: result.callId, name: result.name },
          {
            status: "error",
            kind: "not_found",
            modelText: "tool `` not found; available tools: `returning`",
            message: "tool `` not found; available tools: `returning`",
            callId,
            name: ""
          }
        )
      }
    }))

  it.effect("with a tracer installed, a very long unknown name gives a bounded span name", () =>
    Effect.gen(function*() {
      const names: Array<string> = []
      const tracer = Tracer.make({
        span(options) {
          names.push(options.name)
          return new Tracer.NativeSpan(options)
        }
      })
      const set = ToolSet.make(returning(() => "ran"))
      yield* executeOnce(set, { id: "1", name: "n".repeat(100_000), arguments: {} }).pipe(Effect.withTracer(tracer))
      assert.deepStrictEqual(names, [`execute_tool ${"n".repeat(128)}…`])
    }))

  it.effect("limits that are not whole numbers of zero or more fall back to the defaults", () =>
    Effect.gen(function*() {
      const set = ToolSet.make(returning(() => "ran"))
      for (const limit of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
        const result = yield* ToolSet.execute(set, { id: "1", name: "returning", arguments: "{}" }, {
          maxArgumentBytes: limit,
          maxArgumentDepth: limit
        })
        assert.strictEqual(result.status, "success", `limit ${limit}`)
        const deep = yield* ToolSet.execute(set, { id: "1", name: "returning", arguments: "[".repeat(65) }, {
          maxArgumentDepth: limit
        })
        assert.strictEqual(
          summarize(deep).modelText,
          "failed to parse tool arguments: the arguments are nested deeper than 64 levels",
          `limit ${limit}`
        )
      }
    }))
})

describe("dispatch details the tests above rely on", () => {
  it.effect("arguments are decoded with the JSON codec of the parameters Schema", () =>
    Effect.gen(function*() {
      const received: Array<unknown> = []
      const Dated = Tool.make("dated", {
        description: "Takes a date and a number sent as text",
        parameters: Schema.Struct({ at: Schema.Date, n: Schema.NumberFromString }),
        call: (args) => Effect.sync(() => received.push(args)).pipe(Effect.as("ok"))
      })
      const result = yield* executeOnce(ToolSet.make(Dated), {
        id: "1",
        name: "dated",
        arguments: "{\"at\":\"2024-01-31T10:00:00.000Z\",\"n\":\"3\"}"
      })
      assert.strictEqual(result.status, "success")
      assert.deepStrictEqual(received, [{ at: new Date("2024-01-31T10:00:00.000Z"), n: 3 }])
    }))

  it.effect("a string stays Text even when the tool has a success Schema", () =>
    Effect.gen(function*() {
      const Texting = Tool.make("texting", {
        description: "Returns JSON-shaped text",
        parameters: Schema.Struct({}),
        success: Schema.String,
        call: () => Effect.succeed("{\"a\":1}")
      })
      const result = yield* executeOnce(ToolSet.make(Texting), { id: "1", name: "texting", arguments: {} })
      assert.deepStrictEqual(result.output, ToolOutput.text("{\"a\":1}"))
    }))

  it.effect("output that does not match the success Schema is reported as such, and drops the call's metadata", () =>
    Effect.gen(function*() {
      const Mismatch = Tool.make("mismatch", {
        description: "Returns the wrong shape after inserting metadata",
        parameters: Schema.Struct({}),
        success: Schema.Struct({ a: Schema.Number }),
        call: () =>
          ToolContext.insertResult(AuditKey, 1).pipe(Effect.as({ a: "x" } as unknown as { a: number }))
      })
      const result = yield* executeOnce(ToolSet.make(Mismatch), { id: "1", name: "mismatch", arguments: {} })
      assert.deepStrictEqual(summarize(result), {
        ...unreadable,
        message:
          "tool `mismatch` returned an output that cannot be encoded: the output does not match the success Schema:\n- $.a: Expected number"
      })
      assert.deepStrictEqual(ToolResult.metadata(result, AuditKey), Option.none())
    }))

  it.effect("a string where Schema.Number wants a number is told to send a number, not \"Infinity\"", () =>
    Effect.gen(function*() {
      const Numeric = Tool.make("numeric", {
        description: "Takes numbers",
        parameters: Schema.Struct({ x: Schema.Number, y: Schema.optionalKey(Schema.Number) }),
        call: () => Effect.succeed("ran")
      })
      const result = yield* executeOnce(ToolSet.make(Numeric), { id: "1", name: "numeric", arguments: "{\"x\":\"5\",\"y\":[1]}" })
      assert.strictEqual(
        summarize(result).modelText,
        "tool arguments did not match the schema:\n- $.x: Expected number\n- $.y: Expected number"
      )
    }))

  it.effect("an unknown name is cut at 64 characters, never between the halves of an emoji", () =>
    Effect.gen(function*() {
      const set = ToolSet.make(returning(() => "ran"))
      const name = `${"a".repeat(63)}🙂${"b".repeat(10)}`
      const result = yield* executeOnce(set, { id: "1", name, arguments: {} })
      assert.strictEqual(
        summarize(result).modelText,
        `tool \`${"a".repeat(63)}…\` not found; available tools: \`returning\``
      )
    }))

  it.live("durationMs is the wall time of the call", () =>
    Effect.gen(function*() {
      const Sleepy = Tool.make("sleepy", {
        description: "Sleeps 30 ms",
        parameters: Schema.Struct({}),
        call: () => Effect.sleep("30 millis").pipe(Effect.as("awake"))
      })
      const result = yield* executeOnce(ToolSet.make(Sleepy), { id: "1", name: "sleepy", arguments: {} })
      assert.isAtLeast(result.durationMs, 29)
      assert.isBelow(result.durationMs, 5_000)
    }))
})

describe("outputs are read once into frozen JSON copies under limits", () => {
  const deepText = "[".repeat(10_000) + "]".repeat(10_000)
  const tooDeep = (name: string) => ({
    status: "error" as const,
    kind: "other" as const,
    modelText: "the tool failed",
    message: `tool \`${name}\` returned an output that cannot be encoded: the output is nested deeper than 128 levels`
  })

  it.effect("an output too deep for JSON.stringify is kind other, with or without a Schema.Json success", () =>
    Effect.gen(function*() {
      const Typed = Tool.make("typed", {
        description: "Returns deep JSON through Schema.Json",
        parameters: Schema.Struct({}),
        success: Schema.Json,
        call: () => Effect.sync(() => JSON.parse(deepText))
      })
      const untyped = yield* executeOnce(ToolSet.make(returning(() => JSON.parse(deepText))), { id: "1", name: "returning", arguments: {} })
      assert.deepStrictEqual(summarize(untyped), tooDeep("returning"))
      const typed = yield* executeOnce(ToolSet.make(Typed), { id: "1", name: "typed", arguments: {} })
      assert.deepStrictEqual(summarize(typed), tooDeep("typed"))
      assert.strictEqual(ToolOutput.render(typed.output), "the tool failed")
    }))

  it.effect("a recursive success Schema is held to the depth limit as well", () =>
    Effect.gen(function*() {
      interface Tree {
        readonly children: ReadonlyArray<Tree>
      }
      const Tree: Schema.Codec<Tree> = Schema.Struct({ children: Schema.Array(Schema.suspend(() => Tree)) })
      const tree = (depth: number): Tree => {
        let node: Tree = { children: [] }
        for (let i = 1; i < depth; i++) node = { children: [node] }
        return node
      }
      const Growing = Tool.make("growing", {
        description: "Returns a tree",
        parameters: Schema.Struct({ depth: Schema.Int }),
        success: Tree,
        call: ({ depth }) => Effect.succeed(tree(depth))
      })
      const set = ToolSet.make(Growing)
      // Each level of the tree is an object and an array.
      const fits = yield* executeOnce(set, { id: "1", name: "growing", arguments: { depth: 64 } })
      assert.strictEqual(fits.status, "success")
      assert.isTrue(isFrozenPlainJson(ToolOutput.asJson(fits.output).pipe(Option.getOrThrow)))
      const deep = yield* executeOnce(set, { id: "1", name: "growing", arguments: { depth: 65 } })
      assert.deepStrictEqual(summarize(deep), tooDeep("growing"))
    }))

  it.effect("maxOutputDepth and maxOutputBytes set the output limits per call; invalid ones are the defaults", () =>
    Effect.gen(function*() {
      const set = ToolSet.make(returning(() => JSON.parse("[".repeat(200) + "]".repeat(200))))
      const call = { id: "1", name: "returning", arguments: {} }
      const raised = yield* ToolSet.execute(set, call, { maxOutputDepth: 200 })
      assert.strictEqual(raised.status, "success")
      for (const limit of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
        const fallback = yield* ToolSet.execute(set, call, { maxOutputDepth: limit, maxOutputBytes: limit })
        assert.deepStrictEqual(summarize(fallback), tooDeep("returning"))
      }
      const small = ToolSet.make(returning(() => ({ text: "é".repeat(10) })))
      // {"text":"éééééééééé"}: 31 bytes.
      assert.strictEqual((yield* ToolSet.execute(small, call, { maxOutputBytes: 31 })).status, "success")
      assert.deepStrictEqual(summarize(yield* ToolSet.execute(small, call, { maxOutputBytes: 30 })), {
        ...unreadable,
        message: "tool `returning` returned an output that cannot be encoded: the output is larger than 30 bytes of JSON text"
      })
    }))

  it.effect("a failure's modelOutput is held to the call's output limits, and is the kind's safe default when over", () =>
    Effect.gen(function*() {
      // {"page":{"text":"éééééééééé"}}: 40 bytes, 2 levels deep.
      const shown = ToolOutput.json({ page: { text: "é".repeat(10) } })
      const error = ToolExecutionError.notFound("no such page").pipe(ToolExecutionError.withModelOutput(shown))
      const Failing = Tool.make("failing", {
        description: "Fails with a JSON modelOutput, directly or through mapError",
        parameters: Schema.Struct({ mapped: Schema.Boolean }),
        call: ({ mapped }) => Effect.fail(mapped ? "typed" : error),
        mapError: () => error
      })
      const set = ToolSet.make(Failing)
      for (const mapped of [false, true]) {
        const call = { id: "1", name: "failing", arguments: { mapped } }
        const fits = yield* ToolSet.execute(set, call, { maxOutputBytes: 40, maxOutputDepth: 2 })
        assert.deepStrictEqual(ToolOutput.asJson(fits.output), Option.some({ page: { text: "é".repeat(10) } }))
        for (const limits of [{ maxOutputBytes: 39 }, { maxOutputDepth: 1 }]) {
          const over = yield* ToolSet.execute(set, call, limits)
          assert.deepStrictEqual(summarize(over), {
            status: "error",
            kind: "not_found",
            modelText: ToolExecutionError.safeDefault("not_found"),
            message: "no such page"
          })
          assert.strictEqual(Option.getOrThrow(over.error).modelOutput, over.output)
        }
      }
    }))

  it.effect("a getter that answers differently on each read is read once: the output is what was checked", () =>
    Effect.gen(function*() {
      let reads = 0
      const flipping = {
        get n(): unknown {
          reads++
          return reads === 1 ? 1 : 10n
        }
      }
      const result = yield* executeOnce(ToolSet.make(returning(() => flipping)), { id: "1", name: "returning", arguments: {} })
      assert.strictEqual(result.status, "success")
      assert.strictEqual(reads, 1)
      assert.deepStrictEqual(result.output, ToolOutput.json({ n: 1 }))
      assert.strictEqual(ToolOutput.render(result.output), "{\"n\":1}")
    }))

  it.effect("changing what the tool returned, after it returned, changes nothing in the result", () =>
    Effect.gen(function*() {
      const kept = { list: [1, 2], nested: { a: "x" } }
      const Sharing = Tool.make("sharing", {
        description: "Returns an object it keeps",
        parameters: Schema.Struct({}),
        success: Schema.Struct({ list: Schema.Array(Schema.Int), nested: Schema.Unknown }),
        call: () => Effect.succeed(kept)
      })
      for (const set of [ToolSet.make(returning(() => kept)), ToolSet.make(Sharing)]) {
        const result = yield* executeOnce(set, { id: "1", name: set.tools[0]!.name, arguments: {} })
        kept.list.push(3)
        kept.nested.a = "changed"
        const value = Option.getOrThrow(ToolOutput.asJson(result.output))
        assert.deepStrictEqual(value, { list: [1, 2], nested: { a: "x" } })
        assert.isTrue(isFrozenPlainJson(value))
        kept.list.pop()
        kept.nested.a = "x"
      }
    }))

  it.effect("Json blocks a tool builds are checked like any output: a cycle, NaN, a Text block that holds a number", () =>
    Effect.gen(function*() {
      const cyclic: Record<string, unknown> = {}
      cyclic["self"] = cyclic
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [ToolOutput.json(cyclic as Schema.Json), "content[0]: $.self is a cycle, not JSON"],
        [ToolOutput.json({ n: Number.NaN }), "content[0]: $.n is NaN, not JSON"],
        [new ToolResultContent.Text({ text: 5 as never }), "content[0]: a Text block's text is not a string"],
        [[ToolResultContent.text("a"), ToolResultContent.json(JSON.parse(deepText))], "content[1]: the output is nested deeper than 128 levels"]
      ]
      for (const [value, reason] of cases) {
        const result = yield* executeOnce(ToolSet.make(returning(() => value)), { id: "1", name: "returning", arguments: {} })
        assert.deepStrictEqual(summarize(result), {
          ...unreadable,
          message: `tool \`returning\` returned an output that cannot be encoded: ${reason}`
        })
      }
    }))

  it.effect("parsed arguments are read once into the frozen copy the result keeps", () =>
    Effect.gen(function*() {
      let reads = 0
      const args = {
        get shape(): unknown {
          reads++
          return reads === 1 ? "flat" : JSON.parse("[".repeat(5000) + "]".repeat(5000))
        }
      }
      const received: Array<unknown> = []
      const Shape = Tool.make("shape", {
        description: "Takes a shape",
        parameters: Schema.Struct({ shape: Schema.Unknown }),
        call: (decoded) => Effect.sync(() => received.push(decoded.shape)).pipe(Effect.as("ok"))
      })
      const result = yield* executeOnce(ToolSet.make(Shape), { id: "1", name: "shape", arguments: args })
      assert.strictEqual(result.status, "success")
      assert.strictEqual(reads, 1)
      assert.deepStrictEqual([result.arguments, received], [{ shape: "flat" }, ["flat"]])
      assert.notStrictEqual(result.arguments, args)
      assert.isTrue(isFrozenPlainJson(result.arguments))
    }))
})

describe("dispatch never dies on what JavaScript hands it", () => {
  it.effect("a call that returns a proxy whose traps throw ends in one result", () =>
    Effect.gen(function*() {
      for (const trap of ["has", "get", "getPrototypeOf"] as const) {
        const Proxied = Tool.make("proxied", {
          description: "Returns a proxy",
          parameters: Schema.Struct({}),
          call: () =>
            new Proxy({}, {
              [trap]() {
                throw new Error("SECRET trap text")
              }
            }) as never
        })
        const result = yield* executeOnce(ToolSet.make(Proxied), { id: "1", name: "proxied", arguments: {} })
        assert.deepStrictEqual(
          { status: result.status, kind: summarize(result).kind, modelText: summarize(result).modelText },
          { status: "error", kind: "other", modelText: "the tool failed" },
          trap
        )
      }
    }))

  it.effect("a proxy that claims to be an Effect ends in one result", () =>
    Effect.gen(function*() {
      const pretending = new Proxy(Effect.succeed("x"), {
        get(target, key) {
          if (typeof key === "symbol" || key === "_tag" || key === "value") throw new Error("SECRET trap text")
          return Reflect.get(target, key)
        }
      })
      const Pretender = Tool.make("pretender", {
        description: "Returns a proxy of an Effect",
        parameters: Schema.Struct({}),
        call: () => pretending
      })
      const result = yield* executeOnce(ToolSet.make(Pretender), { id: "1", name: "pretender", arguments: {} })
      assert.deepStrictEqual([result.status, summarize(result).kind], ["error", "other"])
    }))

  const Echo = Tool.make("echo", {
    description: "Echo",
    parameters: Schema.Struct({ text: Schema.String }),
    call: ({ text }) => Effect.succeed(text)
  })
  const echo = (id: string) => ({ id, name: "echo", arguments: { text: id } })

  it.effect("executeAll over a list that throws part-way runs what it read and reports the rest as one result", () =>
    Effect.gen(function*() {
      function* calls() {
        yield echo("a")
        yield echo("b")
        throw new Error("SECRET iterator text")
      }
      const results = yield* ToolSet.executeAll(ToolSet.make(Echo), calls(), { concurrency: 2 })
      assert.deepStrictEqual(results.map((result) => [result.callId, result.name, result.status, summarize(result).kind]), [
        ["a", "echo", "success", undefined],
        ["b", "echo", "success", undefined],
        ["", "", "error", "invalid_args"]
      ])
      assert.strictEqual(
        summarize(results[2]!).modelText,
        "the list of tool calls could not be read to its end: the calls before that point ran, the rest are unknown"
      )
    }))

  it.effect("executeAll over null, undefined or something that is not iterable never dies", () =>
    Effect.gen(function*() {
      const set = ToolSet.make(Echo)
      for (const calls of [null, undefined]) {
        assert.deepStrictEqual(yield* ToolSet.executeAll(set, calls as never), [])
      }
      for (const calls of [42, {}, { [Symbol.iterator]: () => 1 }]) {
        const results = yield* ToolSet.executeAll(set, calls as never)
        assert.deepStrictEqual(results.map((result) => [result.callId, result.name, summarize(result).kind]), [["", "", "invalid_args"]])
      }
      const mixed = yield* ToolSet.executeAll(set, [echo("a"), 7, null] as never, {
        concurrency: Number.NaN,
        maxOutputBytes: "x" as never
      })
      assert.deepStrictEqual(mixed.map((result) => [result.callId, summarize(result).kind]), [
        ["a", undefined],
        ["", "not_found"],
        ["", "not_found"]
      ])
      const unreadableOptions = new Proxy({}, {
        get() {
          throw new Error("SECRET")
        }
      })
      const withOptions = yield* ToolSet.executeAll(set, [echo("a")], unreadableOptions as never)
      assert.deepStrictEqual(withOptions.map((result) => result.status), ["success"])
      assert.strictEqual((yield* ToolSet.execute(set, echo("b"), unreadableOptions as never)).status, "success")
    }))

  it.effect("a ToolExecutionError built without its fields, or changed after it was built, still gives the model an output", () =>
    Effect.gen(function*() {
      const bare = Object.create(ToolExecutionError.ToolExecutionError.prototype)
      const unknownKind = new ToolExecutionError.ToolExecutionError({ kind: "exploded" } as never)
      const badBlocks = Object.assign(ToolExecutionError.provider("p"), {
        modelOutput: new ToolOutput.ToolOutput([new ToolResultContent.Text({ text: 5 as never })])
      })
      const noOutput = Object.assign(ToolExecutionError.network("n"), { modelOutput: undefined, message: 3 })
      const cases: ReadonlyArray<readonly [unknown, string, string]> = [
        [bare, "other", "the tool failed"],
        [unknownKind, "other", "the tool failed"],
        [badBlocks, "provider", "the tool provider failed"],
        [noOutput, "network", "the tool could not reach its upstream service"]
      ]
      for (const [error, kind, modelText] of cases) {
        for (const viaMapError of [false, true]) {
          const Failing = Tool.make("failing", {
            description: "Fails with a hand-built error",
            parameters: Schema.Struct({}),
            ...(viaMapError ? { mapError: () => error as ToolExecutionError.ToolExecutionError } : {}),
            call: () => Effect.fail(viaMapError ? "typed" : error)
          })
          const result = yield* executeOnce(ToolSet.make(Failing), { id: "1", name: "failing", arguments: {} })
          assert.deepStrictEqual([result.status, summarize(result).kind, summarize(result).modelText], ["error", kind, modelText])
          assert.strictEqual(typeof summarize(result).message, "string")
          assert.strictEqual(result.output, Option.getOrThrow(result.error).modelOutput)
          assert.strictEqual(ToolOutput.render(result.output), modelText)
        }
      }
    }))
})
