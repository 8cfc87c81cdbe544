import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Option, Result, Schema } from "effect"
import {
  DynamicTool,
  Tool,
  ToolCall,
  ToolContext,
  ToolDefinition,
  ToolExecutionError,
  ToolOutput,
  ToolResult,
  ToolSet
} from "../src/index.ts"
import * as Examples from "../examples/tools.ts"

class CurrentUser extends Context.Service<CurrentUser, { readonly id: string }>()("app/CurrentUser") {}
class AuditRecord extends Context.Service<AuditRecord, number>()("app/AuditRecord") {}
class Overflow extends Schema.TaggedError<Overflow>()("Overflow", { limit: Schema.Int }) {}

// The users the seed tool saw, so a test can tell that `yield* CurrentUser` read the caller's value.
const seenUsers: Array<string> = []

// The seed example of the design, as written there (the user is recorded instead of left unused).
const Add = Tool.make("add", {
  description: "Add two integers",
  parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
  success: Schema.Struct({ value: Schema.Int }),
  failure: Overflow,
  call: Effect.fn("add")(function*({ left, right }) {
    const user = yield* CurrentUser
    seenUsers.push(user.id)
    const value = left + right
    yield* ToolContext.insertResult(AuditRecord, value)
    return { value }
  })
})

const addCall = ToolCall.make({ id: "call_1", name: "add", arguments: "{\"left\":1,\"right\":2}" })

describe("Tool", () => {
  describe("the seed example", () => {
    it.effect("returns {value: 3} to the model and the audit record to the host", () =>
      Effect.gen(function*() {
        seenUsers.length = 0
        const result = yield* ToolSet.execute(ToolSet.make(Add), addCall).pipe(
          Effect.provideService(CurrentUser, { id: "user_7" })
        )
        assert.strictEqual(result.status, "success")
        assert.deepStrictEqual(result.output, ToolOutput.json({ value: 3 }))
        assert.deepStrictEqual(result.error, Option.none())
        assert.deepStrictEqual(ToolResult.metadata(result, AuditRecord), Option.some(3))
        assert.deepStrictEqual(seenUsers, ["user_7"])
      }))

    it.effect("the model-visible output never contains host-only metadata", () =>
      Effect.gen(function*() {
        class Secret extends Context.Service<Secret, string>()("app/Secret") {}
        const secret = "host-only-7c1f2a"
        const Audited = Tool.make("audited", {
          description: "Add two integers and keep a secret audit trail",
          parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
          success: Schema.Struct({ value: Schema.Int }),
          call: Effect.fn("audited")(function*({ left, right }) {
            yield* ToolContext.insertResult(Secret, secret)
            return { value: left + right }
          })
        })
        const result = yield* ToolSet.execute(
          ToolSet.make(Audited),
          ToolCall.make({ id: "call_2", name: "audited", arguments: { left: 1, right: 2 } })
        )
        assert.deepStrictEqual(ToolResult.metadata(result, Secret), Option.some(secret))
        assert.deepStrictEqual(ToolOutput.asJson(result.output), Option.some({ value: 3 }))
        assert.deepStrictEqual(result.output.content.length, 1)
        assert.isFalse(JSON.stringify(result.output).includes(secret))
        assert.isFalse(ToolOutput.render(result.output).includes(secret))
      }))

    it.effect("the example `add` tool keeps its audit record out of the output", () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(
          ToolSet.make(Examples.Add),
          ToolCall.make({ id: "call_3", name: "add", arguments: { left: 40, right: 2 } })
        )
        assert.deepStrictEqual(result.output, ToolOutput.json({ value: 42 }))
        assert.deepStrictEqual(ToolResult.metadata(result, Examples.AuditRecord), Option.some(42))
      }))
  })

  describe("isTool", () => {
    it("is true for tools and false for look-alikes", () => {
      assert.isTrue(Tool.isTool(Add))
      assert.isTrue(Tool.isTool(Examples.GetWeather))
      assert.isFalse(Tool.isTool({ name: "add", description: "Add two integers", parameters: Add.parameters, call: Add.call }))
      assert.isFalse(Tool.isTool(ToolSet.make(Add)))
      assert.isFalse(Tool.isTool(null))
      assert.isFalse(Tool.isTool("add"))
    })
  })

  describe("make", () => {
    const Plain = Tool.make("plain", {
      description: "A tool with no options",
      parameters: Schema.Struct({}),
      call: () => Effect.fail(new Error("boom at /srv/app/secret.ts"))
    })

    it("defaults: no annotations, excess keys ignored, mapError = ToolExecutionError.fromError", () => {
      assert.strictEqual(Plain.name, "plain")
      assert.strictEqual(Plain.description, "A tool with no options")
      assert.deepStrictEqual(Plain.annotations, {})
      assert.strictEqual(Plain.onExcessProperty, "ignore")
      assert.strictEqual(Plain.mapError, ToolExecutionError.fromError)
      assert.strictEqual(Plain.success, undefined)
      assert.strictEqual(Plain.failure, undefined)
    })

    it.effect("keeps the options it is given, and its mapError folds the typed failure", () =>
      Effect.gen(function*() {
        const Strict = Tool.make("strict", {
          description: "Rejects unknown keys",
          parameters: Schema.Struct({ a: Schema.String }),
          success: Schema.String,
          failure: Overflow,
          annotations: { readOnly: true, timeout: "1 second" },
          onExcessProperty: "error",
          mapError: (error) => ToolExecutionError.other(`overflow past ${error.limit}`),
          call: ({ a }) => a.length > 3 ? Effect.fail(new Overflow({ limit: 3 })) : Effect.succeed(a)
        })
        assert.deepStrictEqual(Strict.annotations, { readOnly: true, timeout: "1 second" })
        assert.strictEqual(Strict.onExcessProperty, "error")
        assert.strictEqual(Strict.failure, Overflow)
        const result = yield* ToolSet.execute(
          ToolSet.make(Strict),
          ToolCall.make({ id: "call_5", name: "strict", arguments: { a: "long" } })
        )
        assert.deepStrictEqual(result.output, ToolOutput.text("overflow past 3"))
      }))

    it.effect("the default mapError hides a typed failure from the model and keeps it as the cause", () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(
          ToolSet.make(Plain),
          ToolCall.make({ id: "call_4", name: "plain", arguments: "{}" })
        )
        assert.strictEqual(result.status, "error")
        assert.deepStrictEqual(result.output, ToolOutput.text("the tool failed"))
        assert.isTrue(Option.isSome(result.error))
        const error = Option.getOrThrow(result.error)
        assert.strictEqual(error.kind, "other")
        assert.instanceOf(ToolExecutionError.causeOf(error), Error)
        assert.strictEqual((ToolExecutionError.causeOf(error) as Error).message, "boom at /srv/app/secret.ts")
      }))

    it("is pipeable", () => {
      assert.strictEqual(Add.pipe((tool) => tool.name), "add")
    })
  })

  describe("definition", () => {
    it("gives name, description and provider-ready JSON Schemas", () => {
      assert.deepStrictEqual(Tool.definition(Add), ToolDefinition.make({
        name: "add",
        description: "Add two integers",
        parameters: {
          type: "object",
          properties: { left: { type: "integer" }, right: { type: "integer" } },
          required: ["left", "right"],
          additionalProperties: false
        },
        outputSchema: {
          type: "object",
          properties: { value: { type: "integer" } },
          required: ["value"],
          additionalProperties: false
        },
        annotations: {}
      }))
    })

    it("turns description annotations into JSON Schema descriptions and leaves out the timeout", () => {
      assert.deepStrictEqual(Tool.definition(Examples.GetWeather), ToolDefinition.make({
        name: "get_weather",
        description: "Get the current temperature in a city",
        parameters: {
          type: "object",
          properties: { city: { type: "string", description: "City name, e.g. Paris" } },
          required: ["city"],
          additionalProperties: false
        },
        annotations: { readOnly: true, openWorld: true }
      }))
    })

    it("has no outputSchema without a success Schema, and an empty object schema without parameters", () => {
      const Ping = Tool.make("ping", {
        description: "Ping",
        parameters: Schema.Struct({}),
        call: () => Effect.succeed("pong")
      })
      assert.deepStrictEqual(Tool.definition(Ping), ToolDefinition.make({
        name: "ping",
        description: "Ping",
        parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
        annotations: {}
      }))
    })
  })

  describe("arguments that do not decode", () => {
    const Versioned = Tool.make("versioned", {
      description: "Pin a version",
      parameters: Schema.Struct({ version: Schema.SemVerFromString, factor: Schema.Number }),
      call: ({ factor, version }) => Effect.succeed(`${version.major} x ${factor}`)
    })
    const run = (args: unknown) =>
      ToolSet.execute(ToolSet.make(Versioned), ToolCall.make({ id: "call_v", name: "versioned", arguments: args }))

    it.effect("a number sent as \"NaN\" or \"Infinity\" is refused: the model is told to send a number", () =>
      Effect.gen(function*() {
        for (const text of ["NaN", "Infinity", "-Infinity"]) {
          const result = yield* run(JSON.stringify({ version: "1.2.3", factor: text }))
          assert.strictEqual(result.status, "error")
          assert.deepStrictEqual(
            result.output,
            ToolOutput.text("tool arguments did not match the schema:\n- $.factor: Expected number")
          )
        }
        const ok = yield* run({ version: "1.2.3", factor: 2.5 })
        assert.deepStrictEqual(ok.output, ToolOutput.text("1 x 2.5"))
      }))

    it.effect("what the model sent is never repeated to it, even where a check would quote it", () =>
      Effect.gen(function*() {
        const result = yield* run({ version: "sk-live-4f9a1c77e0", factor: 1 })
        assert.deepStrictEqual(
          result.output,
          ToolOutput.text("tool arguments did not match the schema:\n- $.version: Expected SemVer")
        )
        const error = Option.getOrThrow(result.error)
        assert.notInclude(error.message, "sk-live")
      }))
  })

  describe("names", () => {
    const named = (name: string) =>
      Tool.make(name, { description: "Named", parameters: Schema.Struct({}), call: () => Effect.succeed("ok") })
    const rule = "a tool name is 1 to 128 characters from A-Z, a-z, 0-9, `_`, `.`, `:` and `-`"
    const validName = /^[A-Za-z0-9_.:-]{1,128}$/

    it("accepts letters, digits, `_`, `.`, `:` and `-`, from 1 to 128 characters", () => {
      for (const name of ["a", "get_weather", "fs.read-file", "github:create_issue", "V2", "x".repeat(128)]) {
        assert.strictEqual(named(name).name, name)
        assert.isTrue(Tool.isValidName(name))
      }
    })

    it("refuses an empty name, which would answer every call that names no tool", () => {
      assert.throws(() => named(""), TypeError, `tool name "" is not valid: ${rule}`)
    })

    it("refuses names over 128 characters, and names with other characters, naming them and the rule", () => {
      assert.throws(() => named("x".repeat(129)), TypeError, `tool name "${"x".repeat(64)}…" is not valid: ${rule}`)
      for (const name of ["get weather", "fs/read", "naïve", "tool\n", "a,b", "<b>"]) {
        assert.throws(() => named(name), TypeError, `tool name ${JSON.stringify(name)} is not valid: ${rule}`)
        assert.isFalse(Tool.isValidName(name))
      }
    })

    it("repeats at most 64 characters of a refused name", () => {
      const name = "bad name ".repeat(100_000)
      const error = (() => {
        try {
          named(name)
        } catch (error) {
          return error as TypeError
        }
        assert.fail("the name was accepted")
      })()
      assert.strictEqual(error.message, `tool name ${JSON.stringify(`${name.slice(0, 64)}…`)} is not valid: ${rule}`)
    })

    it("isValidName is false for anything that is not a string", () => {
      for (const value of [undefined, null, 1, {}, ["a"]]) assert.isFalse(Tool.isValidName(value))
    })

    const NameLike = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_.:\- ]{0,140}$/))

    it.prop("a name is accepted exactly when it follows the rule", [Schema.String, NameLike], ([any, nameLike]) => {
      for (const name of [any, nameLike]) {
        const valid = validName.test(name)
        assert.strictEqual(Tool.isValidName(name), valid)
        if (valid) assert.strictEqual(named(name).name, name)
        else assert.throws(() => named(name), TypeError)
      }
    })
  })

  it("a timeout annotation that is not a duration is refused where the tool is defined", () => {
    assert.throws(
      () =>
        Tool.make("slow", {
          description: "Has a broken timeout",
          parameters: Schema.Struct({}),
          annotations: { timeout: "soon" as never },
          call: () => Effect.succeed("done")
        }),
      TypeError,
      "tool `slow`: the timeout annotation is not a duration: soon"
    )
  })

  describe("parameters", () => {
    // The compiler refuses these Schemas; a widened type (a Schema built at run time, a cast) gets them past it.
    const withParameters = (parameters: Tool.AnySchema) => () =>
      Tool.make("tool_x", {
        description: "Has these parameters",
        parameters: parameters as Tool.ParametersSchema,
        call: () => Effect.succeed("done")
      })
    const refusal = "tool `tool_x`: parameters must be a Schema of an object (a call's arguments are a JSON object), " +
      "but their JSON Schema allows"

    it("Tool.make throws a TypeError naming the tool for parameters that no JSON object decodes to", () => {
      assert.throws(withParameters(Schema.Date), TypeError, `${refusal} "string" at the top: {"type":"string"}`)
      const refused: ReadonlyArray<readonly [Tool.AnySchema, string]> = [
        [Schema.ReadonlyMap(Schema.String, Schema.Number), "array"],
        [Schema.ReadonlySet(Schema.String), "array"],
        [Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Array(Schema.String)]), "array"],
        [Schema.NullOr(Schema.Struct({ a: Schema.String })), "null"],
        [Schema.Tuple([Schema.String]), "array"],
        [Schema.String, "string"],
        [Schema.Finite, "number"],
        [Schema.fromJsonString(Schema.Struct({ a: Schema.String })), "string"]
      ]
      for (const [parameters, type] of refused) {
        assert.throws(withParameters(parameters), TypeError, `${refusal} "${type}" at the top: {`)
      }
    })

    it("Tool.make accepts every Schema whose JSON Schema admits objects only, or constrains nothing", () => {
      class Point extends Schema.Class<Point>("Point")({ x: Schema.Finite, y: Schema.Finite }) {}
      const accepted: ReadonlyArray<Tool.AnySchema> = [
        Schema.Struct({}),
        Schema.Struct({ at: Schema.Date, tags: Schema.ReadonlySet(Schema.String) }),
        Schema.Record(Schema.String, Schema.Number),
        Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.Number })]),
        Point,
        Schema.JsonObject,
        // No constraint: every object decodes (dispatch takes null and blank arguments for `{}`).
        Schema.Any,
        Schema.Unknown
      ]
      for (const parameters of accepted) {
        const tool = withParameters(parameters)()
        assert.strictEqual(tool.parameters, parameters)
        assert.strictEqual(Tool.definition(tool).parameters.type, "object")
      }
    })
  })
})

describe("Tool.provide", () => {
  class Rates extends Context.Service<Rates, number>()("app/Rates") {}
  class Greeting extends Context.Service<Greeting, string>()("app/Greeting") {}

  const Convert = Tool.make("convert", {
    description: "Convert euros to dollars, and keep the rate used",
    parameters: Schema.Struct({ euros: Schema.Finite }),
    success: Schema.Struct({ dollars: Schema.Finite, greeting: Schema.String }),
    call: Effect.fn(function*({ euros }) {
      const rate = yield* Rates
      const greeting = yield* Greeting
      yield* ToolContext.insertResult(AuditRecord, rate)
      return { dollars: euros * rate, greeting }
    })
  })
  const convertCall = ToolCall.make({ id: "call_c", name: "convert", arguments: "{\"euros\":2}" })

  it.effect("the provided services are what the call sees, whoever executes it; the rest still come from the caller", () =>
    Effect.gen(function*() {
      const Provided = Tool.provide(Convert, Context.make(Rates, 1.5))
      const result = yield* ToolSet.execute(ToolSet.make(Provided), convertCall).pipe(
        Effect.provideService(Rates, 99),
        Effect.provideService(Greeting, "hi")
      )
      assert.deepStrictEqual(result.output, ToolOutput.json({ dollars: 3, greeting: "hi" }))
      // Not portable: the tool keeps its ToolContext, and the metadata it stores.
      assert.deepStrictEqual(ToolResult.metadata(result, AuditRecord), Option.some(1.5))
      assert.isFalse(Tool.PortableTypeId in Provided)
    }))

  it.effect("pipeable, and everything but call stays the same: name, Schemas, annotations, definition", () =>
    Effect.gen(function*() {
      const Provided = Convert.pipe(Tool.provide(Context.make(Rates, 2).pipe(Context.add(Greeting, "yo"))))
      assert.deepStrictEqual(
        [Provided.name, Provided.description, Provided.parameters, Provided.success, Provided.annotations, Provided.onExcessProperty],
        [Convert.name, Convert.description, Convert.parameters, Convert.success, Convert.annotations, Convert.onExcessProperty]
      )
      assert.deepStrictEqual({ ...ToolDefinition.fromTool(Provided) }, { ...ToolDefinition.fromTool(Convert) })
      const bad = yield* ToolSet.execute(ToolSet.make(Provided), ToolCall.make({ id: "b", name: "convert", arguments: "{}" }))
      assert.strictEqual(Option.getOrThrow(bad.error).kind, "invalid_args")
    }))

  it.effect("a ToolContext in the given context is ignored: each call gets its own", () =>
    Effect.gen(function*() {
      const Facts = Tool.make("facts", {
        description: "The call's id",
        parameters: Schema.Struct({}),
        call: () => ToolContext.callId
      })
      const stale = Context.make(ToolContext.ToolContext, {} as ToolContext.ToolContext["Service"])
      const Provided = Tool.provide(Facts, stale as Context.Context<never>)
      const result = yield* ToolSet.execute(ToolSet.make(Provided), ToolCall.make({ id: "call_fresh", name: "facts", arguments: "{}" }))
      assert.deepStrictEqual(result.output, ToolOutput.text("call_fresh"))
    }))

  it.effect("portable on request: it carries a spec from its definition, and its call runs without a ToolContext", () =>
    Effect.gen(function*() {
      const services = Context.make(Rates, 2).pipe(Context.add(Greeting, "yo"))
      const Portable = Tool.provide(Convert, services, { portable: true })
      assert.isTrue(DynamicTool.isPortable(Portable))
      const definition = ToolDefinition.fromTool(Convert)
      assert.deepStrictEqual(Portable.spec, {
        name: "convert",
        description: Convert.description,
        parameters: definition.parameters as Schema.JsonObject,
        outputSchema: definition.outputSchema as Schema.JsonObject,
        annotations: {}
      })
      // This tool stores metadata through its ToolContext, which a portable tool has not: it fails, loudly.
      const result = yield* ToolSet.execute(ToolSet.make(Portable), convertCall)
      assert.strictEqual(Option.getOrThrow(result.error).kind, "other")
      assert.deepStrictEqual(ToolResult.metadata(result, AuditRecord), Option.none())
      // One that does not use it runs as before.
      const Pure = Tool.make("pure", {
        description: "Reads a service only",
        parameters: Schema.Struct({}),
        annotations: { timeout: "2 seconds", readOnly: true },
        call: () => Effect.map(Rates, (rate) => ({ rate }))
      })
      const PortablePure = Tool.provide(Pure, Context.make(Rates, 3), { portable: true })
      assert.deepStrictEqual(PortablePure.spec.annotations, { timeout: Duration.seconds(2), readOnly: true })
      const pure = yield* ToolSet.execute(ToolSet.make(PortablePure), ToolCall.make({ id: "p", name: "pure", arguments: "{}" }))
      assert.deepStrictEqual(pure.output, ToolOutput.json({ rate: 3 }))
    }))

  it.effect("a portable tool stays portable, and a dynamic tool keeps its JSON Schema validation", () =>
    Effect.gen(function*() {
      const Echo = DynamicTool.portable("echo", {
        description: "Echo",
        parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        call: (args) => Effect.succeed(args.text)
      })
      const Again = Tool.provide(Echo, Context.make(Rates, 1))
      assert.isTrue(DynamicTool.isPortable(Again))
      assert.strictEqual(Again.spec, Echo.spec)
      const result = yield* ToolSet.execute(ToolSet.make(Again), ToolCall.make({ id: "e", name: "echo", arguments: "{}" }))
      assert.strictEqual(
        Option.getOrThrow(result.error).message,
        "tool arguments did not match the schema:\n- $.text: is required"
      )
    }))
})

describe("the needsApproval and concurrency annotations", () => {
  const Transfer = Tool.make("transfer", {
    description: "Move money between accounts",
    parameters: Schema.Struct({ amount: Schema.Finite }),
    annotations: { destructive: true, needsApproval: true, concurrency: 2, timeout: "3 seconds" },
    call: ({ amount }) => Effect.succeed({ moved: amount })
  })

  const withConcurrency = (concurrency: unknown) => () =>
    Tool.make("limited", {
      description: "Has a concurrency annotation",
      parameters: Schema.Struct({}),
      annotations: { concurrency: concurrency as number },
      call: () => Effect.succeed("done")
    })

  it("Tool.make throws a TypeError for a concurrency that is not a whole number of one or more", () => {
    for (const bad of [0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 53, "4", null]) {
      assert.throws(
        withConcurrency(bad),
        TypeError,
        `tool \`limited\`: the concurrency annotation must be a whole number of one or more, not ${String(bad)}`
      )
    }
    assert.throws(
      () =>
        DynamicTool.make("dynamic", {
          description: "A runtime tool with a broken limit",
          parameters: { type: "object" },
          annotations: { concurrency: 0 },
          call: () => Effect.void
        }),
      TypeError,
      "tool `dynamic`: the concurrency annotation must be a whole number of one or more, not 0"
    )
  })

  it.prop(
    "Tool.make accepts exactly the positive safe integers as a concurrency",
    [Schema.Union([Schema.Number, Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }))])],
    ([n]) => {
      if (Number.isSafeInteger(n) && n >= 1) assert.strictEqual(withConcurrency(n)().annotations.concurrency, n)
      else assert.throws(withConcurrency(n), TypeError, "the concurrency annotation must be a whole number of one or more")
    },
    { arbitrary: { runs: 300 } }
  )

  it("appear in the tool's definition; the timeout does not", () => {
    assert.deepStrictEqual(ToolDefinition.fromTool(Transfer).annotations, {
      destructive: true,
      needsApproval: true,
      concurrency: 2
    })
    assert.deepStrictEqual(Tool.definition(withConcurrency(1)()).annotations, { concurrency: 1 })
  })

  it("survive in a portable tool's spec, through its JSON text, and in the tool made from it again", () => {
    const SpecJson = Schema.toCodecJson(DynamicTool.Spec)
    const portables = [
      Tool.provide(Transfer, Context.empty(), { portable: true }),
      DynamicTool.portable("transfer", {
        description: "Move money between accounts",
        parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
        annotations: { destructive: true, needsApproval: true, concurrency: 2, timeout: "3 seconds" },
        call: () => Effect.succeed("moved")
      })
    ]
    for (const portable of portables) {
      assert.deepStrictEqual(portable.spec.annotations, {
        destructive: true,
        timeout: Duration.seconds(3),
        needsApproval: true,
        concurrency: 2
      })
      const json = JSON.parse(JSON.stringify(Schema.encodeSync(SpecJson)(portable.spec)))
      assert.deepStrictEqual(
        [json.annotations.needsApproval, json.annotations.concurrency],
        [true, 2]
      )
      const back = Schema.decodeUnknownSync(SpecJson)(json)
      assert.deepStrictEqual(back, portable.spec)
      const again = DynamicTool.fromSpec(back, () => Effect.succeed("again"))
      assert.deepStrictEqual(
        [again.annotations.needsApproval, again.annotations.concurrency],
        [true, 2]
      )
      assert.deepStrictEqual(ToolDefinition.fromTool(again).annotations, ToolDefinition.fromTool(portable).annotations)
    }
  })

  it("a spec whose concurrency is not a whole number of one or more, or whose needsApproval is not a boolean, does not decode", () => {
    const SpecJson = Schema.toCodecJson(DynamicTool.Spec)
    const spec = (annotations: unknown) => ({ name: "x", description: "d", parameters: { type: "object" }, annotations })
    for (const bad of [{ concurrency: 0 }, { concurrency: -2 }, { concurrency: 1.5 }, { concurrency: "4" }, { needsApproval: "yes" }]) {
      assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(SpecJson)(spec(bad))), JSON.stringify(bad))
    }
    assert.deepStrictEqual(
      Schema.decodeUnknownSync(SpecJson)(spec({ concurrency: 1, needsApproval: false })).annotations,
      { concurrency: 1, needsApproval: false }
    )
  })
})
