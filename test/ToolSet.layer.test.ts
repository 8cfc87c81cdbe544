import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { ToolCall, ToolOutput, ToolResult, ToolSet } from "../src/index.ts"
import { makeRecorder } from "./support/tracing.ts"
import { CurrentUser, Database, Greet, Locale, Whoami } from "./support/userTools.ts"

const set = ToolSet.make(Whoami, Greet)

class Tools extends Context.Service<Tools, ToolSet.Service<CurrentUser>>()("app/Tools") {}

const ToolsLive = ToolSet.toLayer(Tools, set)

// Counts how often the database is built, to show it is captured once, not per call.
const makeDatabase = () => {
  let builds = 0
  const layer = Layer.effect(
    Database,
    Effect.sync(() => {
      builds++
      return { lookup: (id: string) => `user ${id} (db build ${builds})` }
    })
  )
  return { layer, builds: () => builds }
}

// Accept only what needs nothing more: the `@ts-expect-error` lines below rest on these.
const buildable = <A, E>(_layer: Layer.Layer<A, E, never>): void => undefined
const runnable = <A, E>(_effect: Effect.Effect<A, E, never>): void => undefined

const call = (name: string, args: unknown = {}, id = "call_1") => ToolCall.make({ id, name, arguments: args })

describe("ToolSet.toLayer", () => {
  it("requires exactly the captured services, and its execute exactly the per-call ones (types)", () => {
    expectTypeOf(ToolsLive).toEqualTypeOf<Layer.Layer<Tools, never, Database | Locale>>()
    const narrow = ToolSet.toLayer(Tools, ToolSet.make(Whoami))
    expectTypeOf(narrow).toEqualTypeOf<Layer.Layer<Tools, never, Database>>()
    // @ts-expect-error the database is a requirement of building the layer
    buildable(narrow)
    buildable(narrow.pipe(Layer.provide(makeDatabase().layer)))
    expectTypeOf<Tools["Service"]["execute"]>().returns.toEqualTypeOf<
      Effect.Effect<ToolResult.ToolResult, never, CurrentUser>
    >()
    expectTypeOf<Tools["Service"]["executeAll"]>().returns.toEqualTypeOf<
      Effect.Effect<Array<ToolResult.ToolResult>, never, CurrentUser>
    >()
    const program = Effect.flatMap(Tools, (tools) => tools.execute(call("whoami")))
    const provided = Effect.provide(program, narrow.pipe(Layer.provide(makeDatabase().layer)))
    expectTypeOf(provided).toEqualTypeOf<Effect.Effect<ToolResult.ToolResult, never, CurrentUser>>()
    // @ts-expect-error each call must bring its CurrentUser
    runnable(provided)
    runnable(Effect.provideService(provided, CurrentUser, { id: "erin" }))
  })

  it.effect("builds the database once; each call brings its own CurrentUser and sees it", () =>
    Effect.gen(function*() {
      const database = makeDatabase()
      const results = yield* Effect.gen(function*() {
        const tools = yield* Tools
        const alice = yield* tools.execute(call("whoami", {}, "call_a")).pipe(
          Effect.provideService(CurrentUser, { id: "alice" })
        )
        const bob = yield* tools.execute(call("whoami", {}, "call_b")).pipe(
          Effect.provideService(CurrentUser, { id: "bob" })
        )
        return [alice, bob]
      }).pipe(
        Effect.provide(ToolSet.toLayer(Tools, ToolSet.make(Whoami)).pipe(Layer.provide(database.layer)))
      )
      assert.deepStrictEqual(
        results.map((result) => [result.callId, result.status, result.output]),
        [
          ["call_a", "success", ToolOutput.text("user alice (db build 1)")],
          ["call_b", "success", ToolOutput.text("user bob (db build 1)")]
        ]
      )
      assert.strictEqual(database.builds(), 1)
    }))

  it.effect("the service's definitions are the set's definitions", () =>
    Effect.gen(function*() {
      const tools = yield* Tools
      assert.deepStrictEqual(tools.definitions, ToolSet.definitions(set))
      assert.deepStrictEqual(tools.definitions.map((definition) => definition.name), ["whoami", "greet"])
    }).pipe(
      Effect.provide(ToolsLive.pipe(Layer.provide(makeDatabase().layer), Layer.provide(Layer.succeed(Locale)("en"))))
    ))

  it.effect("executeAll through the service keeps call order and sees captured and per-call values", () =>
    Effect.gen(function*() {
      const tools = yield* Tools
      const results = yield* tools.executeAll([
        call("greet", { name: "Ada" }, "call_1"),
        call("whoami", {}, "call_2"),
        call("nope", {}, "call_3")
      ], { concurrency: "unbounded" }).pipe(Effect.provideService(CurrentUser, { id: "carol" }))
      assert.deepStrictEqual(
        results.map((result) => [result.callId, result.status, result.output]),
        [
          ["call_1", "success", ToolOutput.text("en: hello Ada")],
          ["call_2", "success", ToolOutput.text("user carol (db build 1)")],
          ["call_3", "error", ToolOutput.text("tool `nope` not found; available tools: `whoami`, `greet`")]
        ]
      )
    }).pipe(
      Effect.provide(ToolsLive.pipe(Layer.provide(makeDatabase().layer), Layer.provide(Layer.succeed(Locale)("en"))))
    ))

  it.effect("a value the caller provides per call wins over a captured value with the same key", () =>
    Effect.gen(function*() {
      const tools = yield* Tools
      const captured = yield* tools.execute(call("greet", { name: "Ada" })).pipe(
        Effect.provideService(CurrentUser, { id: "dave" })
      )
      const overridden = yield* tools.execute(call("greet", { name: "Ada" })).pipe(
        Effect.provideService(CurrentUser, { id: "dave" }),
        Effect.provideService(Locale, "fr")
      )
      assert.deepStrictEqual(captured.output, ToolOutput.text("en: hello Ada"))
      assert.deepStrictEqual(overridden.output, ToolOutput.text("fr: hello Ada"))
    }).pipe(
      Effect.provide(ToolsLive.pipe(Layer.provide(makeDatabase().layer), Layer.provide(Layer.succeed(Locale)("en"))))
    ))

  it.effect("calls through the layer are children of the caller's span, not of the span that built the layer", () =>
    Effect.gen(function*() {
      const { spans, tracer } = makeRecorder()
      const parentOf = (name: string) => {
        const span = spans.find((span) => span.name === name)!
        return span.parent._tag === "Some" && span.parent.value._tag === "Span" ? span.parent.value.name : "(root)"
      }
      yield* Effect.gen(function*() {
        const tools = yield* Tools
        yield* tools.execute(call("whoami")).pipe(Effect.provideService(CurrentUser, { id: "erin" }))
        yield* tools.execute(call("greet", { name: "Ada" })).pipe(
          Effect.provideService(CurrentUser, { id: "erin" }),
          Effect.withSpan("request")
        )
      }).pipe(
        Effect.provide(
          ToolsLive.pipe(
            Layer.provide(makeDatabase().layer),
            Layer.provide(Layer.succeed(Locale)("en")),
            Layer.withSpan("build-layer")
          )
        ),
        Effect.withTracer(tracer)
      )
      assert.deepStrictEqual(
        { whoami: parentOf("execute_tool whoami"), greet: parentOf("execute_tool greet") },
        { whoami: "(root)", greet: "request" }
      )
    }))
})
