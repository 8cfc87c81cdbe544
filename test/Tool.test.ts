import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Option, Schema } from "effect"
import { Tool, ToolCall, ToolContext, ToolExecutionError, ToolOutput, ToolResult, ToolSet } from "../src/index.ts"
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
      assert.deepStrictEqual(Tool.definition(Add), {
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
      })
    })

    it("turns description annotations into JSON Schema descriptions and leaves out the timeout", () => {
      assert.deepStrictEqual(Tool.definition(Examples.GetWeather), {
        name: "get_weather",
        description: "Get the current temperature in a city",
        parameters: {
          type: "object",
          properties: { city: { type: "string", description: "City name, e.g. Paris" } },
          required: ["city"],
          additionalProperties: false
        },
        annotations: { readOnly: true, openWorld: true }
      })
    })

    it("has no outputSchema without a success Schema, and an empty object schema without parameters", () => {
      const Ping = Tool.make("ping", {
        description: "Ping",
        parameters: Schema.Struct({}),
        call: () => Effect.succeed("pong")
      })
      assert.deepStrictEqual(Tool.definition(Ping), {
        name: "ping",
        description: "Ping",
        parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
        annotations: {}
      })
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
})
