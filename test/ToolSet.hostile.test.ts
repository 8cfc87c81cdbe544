import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Option, Schema, Tracer } from "effect"
import { Tool, type ToolCall, ToolContext, ToolExecutionError, ToolOutput, ToolResult, ToolSet } from "../src/index.ts"

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

const hostileProxy = () =>
  new Proxy({}, {
    getPrototypeOf() {
      throw new Error("SECRET trap text")
    },
    has() {
      throw new Error("SECRET trap text")
    },
    ownKeys() {
      throw new Error("SECRET trap text")
    },
    get() {
      throw new Error("SECRET trap text")
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
      const result = yield* executeOnce(ToolSet.make(returning(hostileProxy)), { id: "1", name: "returning", arguments: {} })
      assert.deepStrictEqual(
        summarize(result),
        {
          ...unreadable,
          message: "the output or error of tool `returning` could not be read: reading it threw Error"
        }
      )
    }))

  it.effect("a typed failure or a defect that is a hostile proxy is kind other", () =>
    Effect.gen(function*() {
      const Failing = Tool.make("failing", {
        description: "Fails with a proxy",
        parameters: Schema.Struct({ die: Schema.Boolean }),
        call: ({ die }) => die ? Effect.die(hostileProxy()) : Effect.fail(hostileProxy())
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
      for (const args of [throwingGetter(), hostileProxy()]) {
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

  it.effect("parsed arguments that share sub-values are read once per value, not once per path", () =>
    Effect.gen(function*() {
      // 40 levels, each holding its child twice: 2^40 paths, 40 distinct objects.
      let shared: Record<string, unknown> = {}
      for (let i = 0; i < 40; i++) shared = { left: shared, right: shared }
      const Any = Tool.make("any", {
        description: "Takes any record",
        parameters: Schema.Record(Schema.String, Schema.Unknown),
        call: () => Effect.succeed("ran")
      })
      const result = yield* executeOnce(ToolSet.make(Any), { id: "1", name: "any", arguments: shared })
      assert.strictEqual(result.status, "success")
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
        [hostileProxy(), ""]
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
      assert.deepStrictEqual(names, [`execute_tool ${"n".repeat(64)}…`])
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
