import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Option, Schedule, Schema, Stream } from "effect"
import * as TestClock from "effect/testing/TestClock"
import {
  Tool,
  ToolCall,
  ToolContext,
  ToolEmbedding,
  ToolExecutionError,
  ToolHooks,
  ToolOutput,
  ToolResult,
  ToolServer,
  ToolSet,
  ToolSetBuilder
} from "../src/index.ts"
import { kindOf } from "./support/results.ts"
import { CurrentUser, Database, Greet, Locale, Whoami } from "./support/userTools.ts"

class Tools extends Context.Service<Tools, ToolServer.ToolServer>()("test/Tools") {}

class AuditLog extends Context.Service<AuditLog, { readonly record: (name: string) => void }>()("test/AuditLog") {}
class Attempt extends Context.Service<Attempt, number>()("test/Attempt") {}
class FailedAttempt extends Context.Service<FailedAttempt, number>()("test/FailedAttempt") {}

/** A server whose calls bring their CurrentUser. */
class UserTools extends Context.Service<UserTools, ToolServer.ToolServer<CurrentUser>>()("test/UserTools") {}

const Echo = Tool.make("echo", {
  description: "Echo the text back",
  parameters: Schema.Struct({ text: Schema.String }),
  call: ({ text }) => Effect.succeed(text)
})

/** A tool answering with a fixed text: the version of an implementation. */
const answering = (name: string, text: string, annotations?: Tool.Annotations) =>
  Tool.make(name, {
    description: `Answers ${text}`,
    parameters: Schema.Struct({}),
    ...(annotations === undefined ? {} : { annotations }),
    call: () => Effect.succeed(text)
  })

/** Like Echo, but answered by an Effect that runs (not an Exit), so that limits apply to it. */
const Later = Tool.make("later", {
  description: "Echo the text back, later",
  parameters: Schema.Struct({ text: Schema.String }),
  call: ({ text }) => Effect.sync(() => text)
})

const call = (name: string, args: unknown = {}, id = "call_1") => ToolCall.make({ id, name, arguments: args })

/** Runs `use` with a server built from `options`, its layer closed afterwards. */
const serve = <T extends Tool.Any, H extends ToolHooks.Any, A, E, R>(
  options: ToolServer.Options<T, H>,
  use: (server: ToolServer.ToolServer) => Effect.Effect<A, E, R>
) => Effect.provide(Effect.flatMap(Tools, use), ToolServer.layer(Tools, options))

/** Counts the calls in flight, and remembers the most there ever were. */
const makeGauge = () => {
  const gauge = { current: 0, max: 0, entered: 0 }
  const enter = Effect.sync(() => {
    gauge.current++
    gauge.entered++
    gauge.max = Math.max(gauge.max, gauge.current)
  })
  const exit = Effect.sync(() => {
    gauge.current--
  })
  /** Runs `effect` counted as in flight, however it ends. */
  const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.andThen(enter, Effect.ensuring(effect, exit))
  return { gauge, counted }
}

/** A tool that sleeps a second (on the test clock), counted by `counted`. */
const sleeper = (
  name: string,
  counted: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  annotations?: Tool.Annotations
) =>
  Tool.make(name, {
    description: "Sleeps a second",
    parameters: Schema.Struct({}),
    ...(annotations === undefined ? {} : { annotations }),
    call: () => counted(Effect.as(Effect.sleep("1 second"), name))
  })

/** A tool that waits for `gate`, counted by `counted`. */
const gated = (
  name: string,
  gate: Deferred.Deferred<void>,
  counted: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  annotations?: Tool.Annotations
) =>
  Tool.make(name, {
    description: "Waits for the gate",
    parameters: Schema.Struct({}),
    ...(annotations === undefined ? {} : { annotations }),
    call: () => counted(Effect.as(Deferred.await(gate), name))
  })

/** Runs `effect` on a fiber of its own, which runs at once up to its first wait. */
const start = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.forkChild(effect, { startImmediately: true })

const calls = (name: string, count: number, prefix = "c") =>
  Array.from({ length: count }, (_, i) => call(name, {}, `${prefix}${i}`))

// Accept only what needs nothing more: the `@ts-expect-error` lines below rest on it.
const runnable = <A, E>(_effect: Effect.Effect<A, E, never>): void => undefined

describe("ToolServer.layer: options that cannot work throw a TypeError at the call", () => {
  const tools = ToolSet.make(Echo)

  it("a concurrency or maxQueued that is not a whole number of one or more", () => {
    for (const key of ["concurrency", "maxQueued"] as const) {
      for (const bad of [0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 53, "4", null]) {
        assert.throws(
          () => ToolServer.layer(Tools, { tools, [key]: bad as never }),
          TypeError,
          `ToolServer.layer: \`${key}\` must be a whole number of one or more, not ${String(bad)}`
        )
      }
    }
  })

  it("a timeout that is not a duration", () => {
    for (const bad of ["soon", "5 fortnights", null]) {
      assert.throws(
        () => ToolServer.layer(Tools, { tools, timeout: bad as never }),
        TypeError,
        `ToolServer.layer: \`timeout\` is not a duration: ${String(bad)}`
      )
    }
  })

  it("a retry that is not a Schedule (a Schedule constructor not applied, say)", () => {
    for (const bad of [Schedule.recurs, {}, "3 times", 3, null]) {
      assert.throws(
        () => ToolServer.layer(Tools, { tools, retry: bad as never }),
        TypeError,
        "ToolServer.layer: `retry` must be a Schedule"
      )
    }
  })

  it("hooks that are not an array of ToolHooks", () => {
    const plain = { onCall: () => Effect.succeed(ToolHooks.run), onResult: undefined }
    for (const bad of ["hooks", ToolHooks.make({}), [plain], [undefined], [ToolHooks.make({}), 1]]) {
      assert.throws(
        () => ToolServer.layer(Tools, { tools, hooks: bad as never }),
        TypeError,
        "ToolServer.layer: `hooks` must be an array of ToolHooks"
      )
    }
  })

  it("tools that are neither a ToolSet nor what ToolSetBuilder.build made", () => {
    const builder = ToolSetBuilder.make().pipe(ToolSetBuilder.addStatic(Echo))
    for (const bad of [undefined, null, "echo", Echo, [Echo], builder, { toolSet: [Echo] }, { index: tools }]) {
      assert.throws(
        () => ToolServer.layer(Tools, { tools: bad as never }),
        TypeError,
        "ToolServer.layer: `tools` must be a ToolSet, or the result of ToolSetBuilder.build"
      )
    }
  })

  it("null is not a missing option: it is refused for every option, hooks included", () => {
    for (const key of ["concurrency", "maxQueued", "timeout", "retry", "hooks"] as const) {
      assert.throws(() => ToolServer.layer(Tools, { tools, [key]: null as never }), TypeError, `ToolServer.layer: \`${key}\``)
    }
  })

  it.prop(
    "any number that is not a positive safe integer is refused, as concurrency and as maxQueued",
    [Schema.Number],
    ([n]) => {
      const valid = Number.isSafeInteger(n) && n >= 1
      for (const key of ["concurrency", "maxQueued"] as const) {
        const build = () => ToolServer.layer(Tools, { tools, [key]: n })
        if (valid) assert.isTrue(Layer.isLayer(build()))
        else assert.throws(build, TypeError, `\`${key}\` must be a whole number of one or more`)
      }
    },
    { arbitrary: { runs: 300 } }
  )

  it.effect.prop(
    "any positive safe integer is accepted, and the server it makes runs calls",
    [Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }))],
    ([n]) =>
      serve({ tools, concurrency: n, maxQueued: n }, (server) =>
        Effect.gen(function*() {
          const result = yield* server.execute(call("echo", { text: "hi" }))
          assert.deepStrictEqual([result.status, result.output], ["success", ToolOutput.text("hi")])
        })),
    { arbitrary: { runs: 50 } }
  )

  it.effect("the guards tell a server and a snapshot from anything else", () =>
    serve({ tools }, (server) =>
      Effect.gen(function*() {
        const snapshot = yield* server.snapshot()
        assert.deepStrictEqual(
          [ToolServer.isToolServer(server), ToolServer.isSnapshot(snapshot)],
          [true, true]
        )
        assert.deepStrictEqual(
          [ToolServer.isToolServer(tools), ToolServer.isSnapshot(tools), ToolServer.isSnapshot({ ...snapshot.toolSet })],
          [false, false, false]
        )
      })))
})

describe("ToolServer: hot registration", () => {
  it.effect("a call started before a re-registration finishes with the old implementation; later calls run the new", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const V1 = Tool.make("version", {
        description: "The first version",
        parameters: Schema.Struct({}),
        call: () => Effect.as(Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(gate)), "v1")
      })
      yield* serve({ tools: ToolSet.make(V1) }, (server) =>
        Effect.gen(function*() {
          const before = yield* start(server.execute(call("version", {}, "before")))
          yield* Deferred.await(started)
          // The re-registration does not wait for the call in flight: its gate is still closed.
          yield* server.add(answering("version", "v2"))
          const after = yield* server.execute(call("version", {}, "after"))
          yield* Deferred.succeed(gate, undefined)
          const old = yield* Fiber.join(before)
          assert.deepStrictEqual(
            [old.callId, old.status, old.output, after.callId, after.status, after.output],
            ["before", "success", ToolOutput.text("v1"), "after", "success", ToolOutput.text("v2")]
          )
        }))
    }))

  it.effect("remove is false for an unknown name; a removed tool is not_found, but a call in flight on it finishes", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { counted, gauge } = makeGauge()
      yield* serve({ tools: ToolSet.make(Echo, gated("doomed", gate, counted)) }, (server) =>
        Effect.gen(function*() {
          const inFlight = yield* start(server.execute(call("doomed", {}, "in_flight")))
          assert.strictEqual(gauge.current, 1)
          assert.deepStrictEqual(
            [yield* server.remove("nope"), yield* server.remove("doomed"), yield* server.remove("doomed")],
            [false, true, false]
          )
          const later = yield* server.execute(call("doomed", {}, "later"))
          assert.deepStrictEqual(
            [later.status, kindOf(later), later.output],
            ["error", "not_found", ToolOutput.text("tool `doomed` not found; available tools: `echo`")]
          )
          yield* Deferred.succeed(gate, undefined)
          const finished = yield* Fiber.join(inFlight)
          assert.deepStrictEqual([finished.status, finished.output], ["success", ToolOutput.text("doomed")])
          assert.deepStrictEqual(ToolSet.names((yield* server.snapshot()).toolSet), ["echo"])
        }))
    }))

  it.effect("changes streams Added, Replaced and Removed with growing versions, and nothing for a no-op remove", () =>
    serve({ tools: ToolSet.make(Echo) }, (server) =>
      Effect.gen(function*() {
        assert.strictEqual((yield* server.snapshot()).version, 0)
        const changes = yield* start(Stream.runCollect(Stream.take(server.changes, 4)))
        yield* server.add(answering("other", "one"))
        assert.isFalse(yield* server.remove("nope"))
        yield* server.add(answering("other", "two"))
        assert.isTrue(yield* server.remove("other"))
        // A stream run from now on sees only what happens from now on.
        const late = yield* start(Stream.runCollect(Stream.take(server.changes, 1)))
        assert.isTrue(yield* server.remove("echo"))
        assert.deepStrictEqual(yield* Fiber.join(changes), [
          { _tag: "Added", name: "other", version: 1 },
          { _tag: "Replaced", name: "other", version: 2 },
          { _tag: "Removed", name: "other", version: 3 },
          { _tag: "Removed", name: "echo", version: 4 }
        ])
        assert.deepStrictEqual(yield* Fiber.join(late), [{ _tag: "Removed", name: "echo", version: 4 }])
        assert.strictEqual((yield* server.snapshot()).version, 4)
      })))

  it.effect("add of something that is not a tool dies with a TypeError, and the registry does not change", () =>
    serve({ tools: ToolSet.make(Echo) }, (server) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(server.add({ name: "echo" } as never))
        assert.isTrue(Exit.hasDies(exit))
        const snapshot = yield* server.snapshot()
        assert.deepStrictEqual([ToolSet.names(snapshot.toolSet), snapshot.version], [["echo"], 0])
      })))

  it("add requires the services a tool needs beyond the per-call ones; the layer those of the tools and hooks (types)", () => {
    const audit = ToolHooks.make({
      onCall: () => Effect.as(AuditLog, ToolHooks.run)
    })
    expectTypeOf(ToolServer.layer(UserTools, { tools: ToolSet.make(Whoami, Greet) })).toEqualTypeOf<
      Layer.Layer<UserTools, never, Database | Locale>
    >()
    expectTypeOf(ToolServer.layer(UserTools, { tools: ToolSet.make(Echo), hooks: [audit] })).toEqualTypeOf<
      Layer.Layer<UserTools, never, AuditLog>
    >()
    expectTypeOf(ToolServer.layer(Tools, { tools: ToolSet.make(Whoami) })).toEqualTypeOf<
      Layer.Layer<Tools, never, Database | CurrentUser>
    >()
    // Never called: the compiler checks what its body says.
    const types = (server: ToolServer.ToolServer<CurrentUser>) => {
      expectTypeOf(server.add(Whoami)).toEqualTypeOf<Effect.Effect<void, never, Database>>()
      expectTypeOf(server.add(Greet)).toEqualTypeOf<Effect.Effect<void, never, Locale>>()
      expectTypeOf(server.add(Echo)).toEqualTypeOf<Effect.Effect<void, never, never>>()
      expectTypeOf(server.execute(call("whoami"))).toEqualTypeOf<
        Effect.Effect<ToolResult.ToolResult, ToolHooks.ToolRunStopped, CurrentUser>
      >()
      expectTypeOf(server.executeAll([call("whoami")])).toEqualTypeOf<
        Effect.Effect<Array<ToolResult.ToolResult>, ToolHooks.ToolRunStopped, CurrentUser>
      >()
      // @ts-expect-error the database must be there when the tool is added
      runnable(server.add(Whoami))
      runnable(Effect.provideService(server.add(Whoami), Database, { lookup: (id) => id }))
    }
    expectTypeOf(types).toBeFunction()
  })

  it.effect("add captures the services the tool needs; per-call values are the caller's, and win over captured ones", () =>
    Effect.gen(function*() {
      const user = (id: string) => Effect.provideService(CurrentUser, { id })
      const results = yield* Effect.gen(function*() {
        const server = yield* UserTools
        yield* server.add(Whoami).pipe(
          Effect.provideService(Database, { lookup: (id) => `${id} (first database)` }),
          // Provided when adding, but a per-call value: each call's own wins.
          user("captured")
        )
        yield* server.add(Greet).pipe(Effect.provideService(Locale, "en"))
        const alice = yield* server.execute(call("whoami", {}, "a")).pipe(user("alice"))
        const bob = yield* server.execute(call("whoami", {}, "b")).pipe(user("bob"))
        const english = yield* server.execute(call("greet", { name: "Ada" }, "c")).pipe(user("carol"))
        const french = yield* server.execute(call("greet", { name: "Ada" }, "d")).pipe(
          user("carol"),
          Effect.provideService(Locale, "fr")
        )
        // Re-registered under another database: the new registration captures the new one.
        yield* server.add(Whoami).pipe(Effect.provideService(Database, { lookup: (id) => `${id} (second database)` }))
        const again = yield* server.executeAll([call("whoami", {}, "e")]).pipe(user("erin"))
        return [alice, bob, english, french, ...again]
      }).pipe(Effect.provide(ToolServer.layer(UserTools, { tools: ToolSet.make(Echo) })))
      assert.deepStrictEqual(
        results.map((result) => [result.callId, result.status, result.output]),
        [
          ["a", "success", ToolOutput.text("alice (first database)")],
          ["b", "success", ToolOutput.text("bob (first database)")],
          ["c", "success", ToolOutput.text("en: hello Ada")],
          ["d", "success", ToolOutput.text("fr: hello Ada")],
          ["e", "success", ToolOutput.text("erin (second database)")]
        ]
      )
    }))

  it.effect("the services of the layer's tools are captured when it is built; per-call values come from each call", () =>
    Effect.gen(function*() {
      let builds = 0
      const database = Layer.effect(
        Database,
        Effect.sync(() => {
          builds++
          return { lookup: (id: string) => `${id} (build ${builds})` }
        })
      )
      const results = yield* Effect.gen(function*() {
        const server = yield* UserTools
        const alice = yield* server.execute(call("whoami", {}, "a")).pipe(Effect.provideService(CurrentUser, { id: "alice" }))
        const bob = yield* server.execute(call("whoami", {}, "b")).pipe(Effect.provideService(CurrentUser, { id: "bob" }))
        return [alice, bob]
      }).pipe(
        Effect.provide(ToolServer.layer(UserTools, { tools: ToolSet.make(Whoami) }).pipe(Layer.provide(database)))
      )
      assert.deepStrictEqual(
        results.map((result) => result.output),
        [ToolOutput.text("alice (build 1)"), ToolOutput.text("bob (build 1)")]
      )
      assert.strictEqual(builds, 1)
    }))
})

describe("ToolServer: snapshots", () => {
  it.effect("pin the tools: a re-registered tool runs its old version, a removed one still runs, an added one is not_found", () =>
    serve({ tools: ToolSet.make(answering("version", "v1"), answering("doomed", "still here")) }, (server) =>
      Effect.gen(function*() {
        const pinned = yield* server.snapshot()
        yield* server.add(answering("version", "v2"))
        yield* server.remove("doomed")
        yield* server.add(answering("late", "new"))
        const turn = [call("version", {}, "1"), call("doomed", {}, "2"), call("late", {}, "3")]
        const summary = (results: ReadonlyArray<ToolResult.ToolResult>) =>
          results.map((result) => [result.callId, result.status, kindOf(result) ?? ToolOutput.render(result.output)])
        assert.deepStrictEqual(summary(yield* server.executeAll(turn, { snapshot: pinned })), [
          ["1", "success", "v1"],
          ["2", "success", "still here"],
          ["3", "error", "not_found"]
        ])
        assert.deepStrictEqual(summary([yield* server.execute(turn[0]!, { snapshot: pinned })]), [["1", "success", "v1"]])
        assert.deepStrictEqual(summary(yield* server.executeAll(turn)), [
          ["1", "success", "v2"],
          ["2", "error", "not_found"],
          ["3", "success", "new"]
        ])
        assert.deepStrictEqual(
          [pinned.version, pinned.definitions.map((definition) => definition.name)],
          [0, ["version", "doomed"]]
        )
        const now = yield* server.snapshot()
        assert.deepStrictEqual(
          [now.version, [...now.definitions.map((definition) => definition.name)].sort()],
          [3, ["late", "version"]]
        )
        assert.deepStrictEqual(now.definitions, ToolSet.definitions(now.toolSet))
      })))

  describe("with tools from ToolSetBuilder.build", () => {
    class Units extends Context.Service<Units, string>()("test/Units") {}
    const GetWeather = Tool.make("get_weather", {
      description: "The weather forecast for a city",
      parameters: Schema.Struct({ city: Schema.String }),
      call: ({ city }) => Effect.map(Units, (units) => `18 degrees (${units}) in ${city}`)
    })
    const GetTime = Tool.make("get_time", {
      description: "The local time in a city",
      parameters: Schema.Struct({ city: Schema.String }),
      call: () => Effect.succeed("noon")
    })
    const SearchDocs = answering("search_docs", "no hits")
    const builder = ToolSetBuilder.make().pipe(
      ToolSetBuilder.addStatic(Echo),
      ToolSetBuilder.addEmbedding(
        ToolEmbedding.make(GetWeather, { docs: ["weather forecast for a city", "will it rain tomorrow"] })
      ),
      ToolSetBuilder.addDynamic(SearchDocs),
      ToolSetBuilder.addEmbedding(ToolEmbedding.make(GetTime))
    )

    it.effect("snapshot({ query, topK }) offers the index's top k and the tools it does not rank, and runs only those", () =>
      Effect.gen(function*() {
        const built = yield* ToolSetBuilder.build(builder)
        yield* serve({ tools: built }, (server) =>
          Effect.gen(function*() {
            const turn = yield* server.snapshot({ query: "will it rain in Oslo?", topK: 1 })
            assert.deepStrictEqual(turn.definitions.map((definition) => definition.name), [
              "get_weather",
              "echo",
              "search_docs"
            ])
            const results = yield* server.executeAll([
              call("get_weather", { city: "Oslo" }, "1"),
              call("get_time", { city: "Oslo" }, "2")
            ], { snapshot: turn })
            assert.deepStrictEqual(results.map((result) => [result.status, kindOf(result) ?? ToolOutput.render(result.output)]), [
              ["success", "18 degrees (metric) in Oslo"],
              ["error", "not_found"]
            ])
            // Without a query, every tool; the default topK is 5, which here ranks both embedding tools.
            assert.deepStrictEqual(ToolSet.names((yield* server.snapshot()).toolSet), [
              "echo",
              "get_weather",
              "search_docs",
              "get_time"
            ])
            assert.deepStrictEqual(
              [...ToolSet.names((yield* server.snapshot({ query: "weather and time in a city" })).toolSet)].sort(),
              ["echo", "get_time", "get_weather", "search_docs"]
            )
            // A topK that is not a positive number reads as `ToolIndex.select` reads it: no ranked tool.
            for (const topK of ["3", null, true, 0, -1, Number.NaN]) {
              const odd = yield* server.snapshot({ query: "weather and time in a city", topK: topK as number })
              assert.deepStrictEqual(ToolSet.names(odd.toolSet), ["echo", "search_docs"], String(topK))
            }
            // Registered since: a tool the index does not rank is offered with every query; a removed one never is.
            yield* server.add(answering("late", "new"))
            yield* server.remove("get_weather")
            const later = yield* server.snapshot({ query: "will it rain in Oslo?", topK: 1 })
            assert.isTrue(ToolSet.names(later.toolSet).includes("late"))
            assert.isFalse(ToolSet.names(later.toolSet).includes("get_weather"))
          }))
      }).pipe(Effect.provideService(Units, "metric")))

    it.effect("without an index, a query changes nothing: every tool is offered", () =>
      Effect.gen(function*() {
        const built = yield* ToolSetBuilder.build(builder)
        yield* serve({ tools: built.toolSet }, (server) =>
          Effect.gen(function*() {
            const turn = yield* server.snapshot({ query: "will it rain in Oslo?", topK: 1 })
            assert.deepStrictEqual(turn.definitions.map((definition) => definition.name), [
              "echo",
              "get_weather",
              "search_docs",
              "get_time"
            ])
            assert.deepStrictEqual(turn.definitions, ToolSet.definitions(built.toolSet))
          }))
      }).pipe(Effect.provideService(Units, "metric")))
  })
})

describe("ToolServer: limits on calls in flight", () => {
  it.effect("server-wide concurrency bounds the calls in flight across batches, and is reached", () =>
    Effect.gen(function*() {
      const { counted, gauge } = makeGauge()
      yield* serve({ tools: ToolSet.make(sleeper("slow", counted)), concurrency: 3 }, (server) =>
        Effect.gen(function*() {
          const first = yield* start(server.executeAll(calls("slow", 6, "a")))
          const second = yield* start(server.executeAll(calls("slow", 5, "b")))
          assert.strictEqual(gauge.current, 3)
          yield* TestClock.adjust("1 minute")
          const results = [...(yield* Fiber.join(first)), ...(yield* Fiber.join(second))]
          assert.deepStrictEqual(results.map((result) => result.status), Array(11).fill("success"))
          assert.deepStrictEqual([gauge.max, gauge.entered, gauge.current], [3, 11, 0])
        }))
    }))

  it.effect("server-wide concurrency holds for separate execute calls too (latches)", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { counted, gauge } = makeGauge()
      yield* serve({ tools: ToolSet.make(gated("wait", gate, counted)), concurrency: 2 }, (server) =>
        Effect.gen(function*() {
          const fibers = yield* Effect.forEach(calls("wait", 5), (c) => start(server.execute(c)))
          assert.deepStrictEqual([gauge.current, gauge.entered], [2, 2])
          yield* Deferred.succeed(gate, undefined)
          const results = yield* Fiber.joinAll(fibers)
          assert.deepStrictEqual(results.map((result) => result.callId), ["c0", "c1", "c2", "c3", "c4"])
          assert.deepStrictEqual([gauge.max, gauge.entered], [2, 5])
        }))
    }))

  it.effect("executeAll's own concurrency bounds its batch", () =>
    Effect.gen(function*() {
      const { counted, gauge } = makeGauge()
      yield* serve({ tools: ToolSet.make(sleeper("slow", counted)) }, (server) =>
        Effect.gen(function*() {
          const batch = yield* start(server.executeAll(calls("slow", 5), { concurrency: 2 }))
          yield* TestClock.adjust("1 minute")
          assert.strictEqual((yield* Fiber.join(batch)).length, 5)
          assert.deepStrictEqual([gauge.max, gauge.entered], [2, 5])
        }))
    }))

  it.effect("a tool's own concurrency annotation holds in a plain ToolSet.executeAll, across every set that holds it", () =>
    Effect.gen(function*() {
      const { counted, gauge } = makeGauge()
      const Limited = sleeper("limited", counted, { concurrency: 2 })
      const one = yield* start(ToolSet.executeAll(ToolSet.make(Limited), calls("limited", 5), { concurrency: "unbounded" }))
      const other = yield* start(
        ToolSet.executeAll(ToolSet.make(Echo, Limited), calls("limited", 5), { concurrency: "unbounded" })
      )
      yield* TestClock.adjust("1 minute")
      const results = [...(yield* Fiber.join(one)), ...(yield* Fiber.join(other))]
      assert.deepStrictEqual(results.map((result) => result.status), Array(10).fill("success"))
      assert.deepStrictEqual([gauge.max, gauge.entered], [2, 10])
    }))

  it.effect("in a server, a tool's own limit holds over the server's, and holds for that tool only", () =>
    Effect.gen(function*() {
      const all = makeGauge()
      const one = makeGauge()
      const OneAtATime = sleeper("one_at_a_time", (effect) => all.counted(one.counted(effect)), { concurrency: 1 })
      const Free = sleeper("free", all.counted)
      yield* serve({ tools: ToolSet.make(OneAtATime, Free), concurrency: 4 }, (server) =>
        Effect.gen(function*() {
          const batch = yield* start(server.executeAll([...calls("one_at_a_time", 4, "o"), ...calls("free", 6, "f")]))
          yield* TestClock.adjust("1 minute")
          const results = yield* Fiber.join(batch)
          assert.deepStrictEqual(results.map((result) => result.status), Array(10).fill("success"))
          assert.deepStrictEqual([one.gauge.max, all.gauge.max, all.gauge.entered], [1, 4, 10])
        }))
    }))

  it.effect("a call waiting for its tool's own limit holds no server-wide slot", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const all = makeGauge()
      const one = makeGauge()
      const free = makeGauge()
      yield* serve({
        tools: ToolSet.make(
          gated("one_at_a_time", gate, (effect) => all.counted(one.counted(effect)), { concurrency: 1 }),
          gated("free", gate, (effect) => all.counted(free.counted(effect)))
        ),
        concurrency: 2
      }, (server) =>
        Effect.gen(function*() {
          const waiting = yield* Effect.forEach(calls("one_at_a_time", 3, "o"), (c) => start(server.execute(c)))
          // Two calls wait for the tool, and one server-wide slot is left: a call of another tool takes it at once.
          const first = yield* start(server.execute(call("free", {}, "f0")))
          const second = yield* start(server.execute(call("free", {}, "f1")))
          assert.deepStrictEqual([one.gauge.current, free.gauge.current], [1, 1])
          yield* Deferred.succeed(gate, undefined)
          const results = yield* Fiber.joinAll([...waiting, first, second])
          assert.deepStrictEqual(results.map((result) => result.status), Array(5).fill("success"))
          assert.deepStrictEqual([one.gauge.max, all.gauge.max, one.gauge.entered, free.gauge.entered], [1, 2, 3, 2])
        }))
    }))

  it.effect("a call that has to wait calls its tool only once it holds its permit; with a free one, at once", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { counted } = makeGauge()
      const called: Array<string> = []
      const Eager = Tool.make("eager", {
        description: "Notes when its call runs, and answers at once",
        parameters: Schema.Struct({ text: Schema.String }),
        call: ({ text }) => {
          called.push(text)
          return Effect.succeed(text)
        }
      })
      yield* serve({ tools: ToolSet.make(gated("wait", gate, counted), Eager), concurrency: 1 }, (server) =>
        Effect.gen(function*() {
          // A free permit: the call runs at once, and gives its permit back.
          assert.strictEqual((yield* server.execute(call("eager", { text: "free" }, "free"))).status, "success")
          const holding = yield* start(server.execute(call("wait", {}, "holding")))
          const waiting = yield* start(server.execute(call("eager", { text: "waited" }, "waited")))
          // Its permit is held by the gated call: the tool's `call` has not run, not even its synchronous part.
          assert.deepStrictEqual(called, ["free"])
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.join(holding)
          assert.deepStrictEqual((yield* Fiber.join(waiting)).output, ToolOutput.text("waited"))
          assert.deepStrictEqual(called, ["free", "waited"])
        }))
    }))

  it.effect("maxQueued: the call beyond the queue is rate_limited at once, and not retried even with a retry schedule", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { counted, gauge } = makeGauge()
      const attempts: Array<[string, number]> = []
      const hooks = [ToolHooks.make({
        onCall: (event) => Effect.sync(() => (attempts.push([event.call.id, event.attempt]), ToolHooks.run))
      })]
      yield* serve({
        tools: ToolSet.make(gated("wait", gate, counted)),
        hooks,
        concurrency: 1,
        maxQueued: 1,
        retry: Schedule.recurs(5)
      }, (server) =>
        Effect.gen(function*() {
          const running = yield* start(server.execute(call("wait", {}, "running")))
          const waiting = yield* start(server.execute(call("wait", {}, "waiting")))
          // Answered while the gate is still closed: the call did not wait.
          const shed = yield* server.execute(call("wait", {}, "shed"))
          assert.deepStrictEqual(
            [shed.callId, shed.status, kindOf(shed), shed.attempts, Option.getOrUndefined(shed.error)?.retryable],
            ["shed", "error", "rate_limited", 1, true]
          )
          assert.deepStrictEqual(
            shed.output,
            ToolOutput.text("the tool server is at capacity: 1 calls are already waiting; try again later")
          )
          yield* Deferred.succeed(gate, undefined)
          const ran = [yield* Fiber.join(running), yield* Fiber.join(waiting)]
          assert.deepStrictEqual(ran.map((result) => [result.callId, result.status, result.attempts]), [
            ["running", "success", 1],
            ["waiting", "success", 1]
          ])
          assert.deepStrictEqual(gauge.entered, 2)
          assert.deepStrictEqual(attempts, [["running", 1], ["waiting", 1], ["shed", 1]])
        }))
    }))

  it.effect("maxQueued counts calls waiting for a tool's own limit too", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { counted } = makeGauge()
      yield* serve({ tools: ToolSet.make(gated("single", gate, counted, { concurrency: 1 })), maxQueued: 1 }, (server) =>
        Effect.gen(function*() {
          const fibers = yield* Effect.forEach(calls("single", 2), (c) => start(server.execute(c)))
          const shed = yield* server.execute(call("single", {}, "shed"))
          assert.deepStrictEqual([shed.status, kindOf(shed)], ["error", "rate_limited"])
          yield* Deferred.succeed(gate, undefined)
          assert.deepStrictEqual((yield* Fiber.joinAll(fibers)).map((result) => result.status), ["success", "success"])
        }))
    }))

  it.effect("interrupting a waiting call frees its place in the queue, and leaks no permit", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { counted, gauge } = makeGauge()
      yield* serve({ tools: ToolSet.make(gated("wait", gate, counted), Later), concurrency: 1, maxQueued: 1 }, (server) =>
        Effect.gen(function*() {
          const running = yield* start(server.execute(call("wait", {}, "running")))
          const waiting = yield* start(server.execute(call("wait", {}, "waiting")))
          assert.strictEqual(kindOf(yield* server.execute(call("later", { text: "x" }, "full"))), "rate_limited")
          yield* Fiber.interrupt(waiting)
          // Its place is free: the next call waits instead of being shed.
          const next = yield* start(server.execute(call("later", { text: "next" }, "next")))
          yield* Deferred.succeed(gate, undefined)
          assert.deepStrictEqual(
            [(yield* Fiber.join(running)).status, (yield* Fiber.join(next)).output],
            ["success", ToolOutput.text("next")]
          )
          assert.strictEqual(gauge.entered, 1)
          // Every permit came back: a full batch runs, one at a time, none shed.
          const after = yield* server.executeAll([call("later", { text: "a" }, "a"), call("later", { text: "b" }, "b")])
          assert.deepStrictEqual(after.map((result) => result.status), ["success", "success"])
        }))
    }))

  it.effect("interrupting many waiters, and a running call, leaks no permit", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { counted, gauge } = makeGauge()
      yield* serve({ tools: ToolSet.make(gated("wait", gate, counted), Echo), concurrency: 2 }, (server) =>
        Effect.gen(function*() {
          const fibers = yield* Effect.forEach(calls("wait", 8), (c) => start(server.execute(c)))
          assert.deepStrictEqual([gauge.current, gauge.entered], [2, 2])
          // Four of the waiters, then the two running calls: a waiter interrupted first must never run.
          yield* Fiber.interruptAll(fibers.slice(3, 7))
          assert.deepStrictEqual([gauge.current, gauge.entered], [2, 2])
          yield* Fiber.interruptAll(fibers.slice(0, 2))
          // Their finalizers ran, and the two waiters left took the free permits: they wake on the scheduler's next
          // task, not inside the finalizers of the interrupted calls.
          yield* Effect.yieldNow
          assert.deepStrictEqual([gauge.current, gauge.entered], [2, 4])
          yield* Deferred.succeed(gate, undefined)
          const left = yield* Fiber.joinAll([fibers[2]!, fibers[7]!])
          assert.deepStrictEqual(left.map((result) => [result.callId, result.status]), [["c2", "success"], ["c7", "success"]])
          assert.strictEqual(gauge.current, 0)
          const after = yield* server.executeAll(calls("wait", 4, "after"))
          assert.deepStrictEqual(after.map((result) => result.status), Array(4).fill("success"))
          assert.deepStrictEqual([gauge.max, gauge.entered], [2, 8])
        }))
    }))
})

describe("ToolServer: timeouts", () => {
  const slow = (annotations?: Tool.Annotations) =>
    Tool.make("slow", {
      description: "Takes three seconds",
      parameters: Schema.Struct({}),
      ...(annotations === undefined ? {} : { annotations }),
      call: () => Effect.as(Effect.sleep("3 seconds"), "done")
    })

  it.effect("the server's default timeout applies to a tool without its own", () =>
    serve({ tools: ToolSet.make(slow()), timeout: "1 second" }, (server) =>
      Effect.gen(function*() {
        const fiber = yield* start(server.execute(call("slow")))
        yield* TestClock.adjust("1 second")
        const result = yield* Fiber.join(fiber)
        assert.deepStrictEqual(
          [result.status, kindOf(result), Option.getOrUndefined(result.error)?.message],
          ["error", "timeout", "tool `slow` timed out after 1000 ms"]
        )
      })))

  it.effect("a tool's own timeout wins over the server's, longer or shorter", () =>
    Effect.gen(function*() {
      const longer = yield* serve({ tools: ToolSet.make(slow({ timeout: "5 seconds" })), timeout: "1 second" }, (server) =>
        Effect.gen(function*() {
          const fiber = yield* start(server.execute(call("slow")))
          yield* TestClock.adjust("3 seconds")
          return yield* Fiber.join(fiber)
        }))
      assert.deepStrictEqual([longer.status, longer.output], ["success", ToolOutput.text("done")])
      const shorter = yield* serve({ tools: ToolSet.make(slow({ timeout: "2 seconds" })), timeout: "1 minute" }, (server) =>
        Effect.gen(function*() {
          const fiber = yield* start(server.execute(call("slow")))
          yield* TestClock.adjust("2 seconds")
          return yield* Fiber.join(fiber)
        }))
      assert.deepStrictEqual(
        [shorter.status, Option.getOrUndefined(shorter.error)?.message],
        ["error", "tool `slow` timed out after 2000 ms"]
      )
    }))

  it.effect("without a default timeout, a tool without its own runs as long as it takes", () =>
    serve({ tools: ToolSet.make(slow()) }, (server) =>
      Effect.gen(function*() {
        const fiber = yield* start(server.execute(call("slow")))
        yield* TestClock.adjust("3 seconds")
        assert.strictEqual((yield* Fiber.join(fiber)).status, "success")
      })))
})

describe("ToolServer: retries", () => {
  /**
   * A tool failing with `errorOf(attempt)` on its first `failures` attempts, then succeeding; each attempt inserts
   * its number as metadata, a failed one under another key.
   */
  const flaky = (
    failures: number,
    errorOf: (attempt: number) => ToolExecutionError.ToolExecutionError,
    annotations?: Tool.Annotations
  ) => {
    const counter = { attempts: 0 }
    const tool = Tool.make("flaky", {
      description: "Fails, then works",
      parameters: Schema.Struct({}),
      ...(annotations === undefined ? {} : { annotations }),
      call: () =>
        Effect.gen(function*() {
          const attempt = ++counter.attempts
          if (attempt <= failures) {
            yield* ToolContext.insertResult(FailedAttempt, attempt)
            return yield* Effect.fail(errorOf(attempt))
          }
          yield* ToolContext.insertResult(Attempt, attempt)
          return `worked on attempt ${attempt}`
        })
    })
    return { tool, counter }
  }

  const network = (attempt: number) => ToolExecutionError.network(`upstream down (attempt ${attempt})`)

  it.effect("a network error is retried until success; attempts counts, and each attempt had a fresh ToolContext", () =>
    Effect.gen(function*() {
      const { counter, tool } = flaky(2, network)
      const result = yield* serve({ tools: ToolSet.make(tool), retry: Schedule.recurs(5) }, (server) =>
        server.execute(call("flaky")))
      assert.deepStrictEqual(
        [result.status, result.output, result.attempts, counter.attempts],
        ["success", ToolOutput.text("worked on attempt 3"), 3, 3]
      )
      // What a failed attempt inserted is not in the final result.
      assert.deepStrictEqual(
        [ToolResult.metadata(result, Attempt), ToolResult.metadata(result, FailedAttempt)],
        [Option.some(3), Option.none()]
      )
      assert.strictEqual((result.toJSON() as { attempts: unknown }).attempts, 3)
    }))

  it.effect("an error made retryable with withRetryable(true) is retried; a rate_limited error from the tool too", () =>
    Effect.gen(function*() {
      const marked = flaky(1, (n) => ToolExecutionError.other(`flaky ${n}`).pipe(ToolExecutionError.withRetryable(true)))
      const limited = flaky(1, () => ToolExecutionError.rateLimited("slow down"))
      const results = [
        yield* serve({ tools: ToolSet.make(marked.tool), retry: Schedule.recurs(3) }, (server) => server.execute(call("flaky"))),
        yield* serve({ tools: ToolSet.make(limited.tool), retry: Schedule.recurs(3) }, (server) => server.execute(call("flaky")))
      ]
      assert.deepStrictEqual(results.map((result) => [result.status, result.attempts]), [["success", 2], ["success", 2]])
      assert.deepStrictEqual([marked.counter.attempts, limited.counter.attempts], [2, 2])
    }))

  it.effect("a non-retryable error is not retried: invalid_args, an error marked retryable false, one that does not say", () =>
    Effect.gen(function*() {
      const cases = [
        (n: number) => ToolExecutionError.invalidArgs(`bad ${n}`),
        (n: number) => network(n).pipe(ToolExecutionError.withRetryable(false)),
        (n: number) => ToolExecutionError.provider(`unknown ${n}`)
      ]
      for (const errorOf of cases) {
        const { counter, tool } = flaky(1, errorOf)
        const result = yield* serve({ tools: ToolSet.make(tool), retry: Schedule.recurs(3) }, (server) =>
          server.execute(call("flaky")))
        assert.deepStrictEqual(
          [result.status, result.attempts, counter.attempts, Option.getOrUndefined(result.error)?.message],
          ["error", 1, 1, errorOf(1).message]
        )
        // A call that completed with a typed failure keeps the metadata of its one attempt.
        assert.deepStrictEqual(ToolResult.metadata(result, FailedAttempt), Option.some(1))
      }
    }))

  it.effect("arguments that do not decode are invalid_args once: the tool never runs, and the hooks run once", () =>
    Effect.gen(function*() {
      const seen: Array<number> = []
      const hooks = [ToolHooks.make({ onCall: (event) => Effect.sync(() => (seen.push(event.attempt), ToolHooks.run)) })]
      const result = yield* serve({ tools: ToolSet.make(Echo), hooks, retry: Schedule.recurs(3) }, (server) =>
        server.execute(call("echo", { text: 1 })))
      assert.deepStrictEqual([result.status, kindOf(result), result.attempts, seen], ["error", "invalid_args", 1, [1]])
    }))

  it.effect("a destructive tool is never retried, unless it is also idempotent", () =>
    Effect.gen(function*() {
      const destructive = flaky(1, network, { destructive: true })
      const idempotent = flaky(1, network, { destructive: true, idempotent: true })
      const notDestructive = flaky(1, network, { destructive: false })
      const run = (tool: Tool.Any) =>
        serve({ tools: ToolSet.make(tool), retry: Schedule.recurs(3) }, (server) => server.execute(call("flaky")))
      const results = [yield* run(destructive.tool), yield* run(idempotent.tool), yield* run(notDestructive.tool)]
      assert.deepStrictEqual(
        results.map((result) => [result.status, kindOf(result), result.attempts]),
        [["error", "network", 1], ["success", undefined, 2], ["success", undefined, 2]]
      )
      assert.deepStrictEqual(
        [destructive.counter.attempts, idempotent.counter.attempts, notDestructive.counter.attempts],
        [1, 2, 2]
      )
    }))

  it.effect("onCall hooks see attempt 1, 2, 3; the call and its id stay the same", () =>
    Effect.gen(function*() {
      const { tool } = flaky(2, network)
      const seen: Array<[string, number, unknown]> = []
      const hooks = [ToolHooks.make({
        onCall: (event) => Effect.sync(() => (seen.push([event.call.id, event.attempt, event.arguments]), ToolHooks.run))
      })]
      const result = yield* serve({ tools: ToolSet.make(tool), hooks, retry: Schedule.recurs(5) }, (server) =>
        server.execute(call("flaky", {}, "the_call")))
      assert.deepStrictEqual([result.callId, result.attempts], ["the_call", 3])
      assert.deepStrictEqual(seen, [["the_call", 1, {}], ["the_call", 2, {}], ["the_call", 3, {}]])
    }))

  it.effect("when the schedule is exhausted, the last attempt's error is the result", () =>
    Effect.gen(function*() {
      const { counter, tool } = flaky(10, network)
      const result = yield* serve({ tools: ToolSet.make(tool), retry: Schedule.recurs(2) }, (server) =>
        server.execute(call("flaky")))
      assert.deepStrictEqual(
        [result.status, kindOf(result), Option.getOrUndefined(result.error)?.message, result.attempts, counter.attempts],
        ["error", "network", "upstream down (attempt 3)", 3, 3]
      )
      assert.deepStrictEqual(
        [ToolResult.metadata(result, FailedAttempt), ToolResult.metadata(result, Attempt)],
        [Option.some(3), Option.none()]
      )
    }))

  it.effect("the schedule's delays are waited for between attempts", () =>
    Effect.gen(function*() {
      const { counter, tool } = flaky(2, network)
      const retry = Schedule.max([Schedule.spaced("10 seconds"), Schedule.recurs(5)])
      yield* serve({ tools: ToolSet.make(tool), retry }, (server) =>
        Effect.gen(function*() {
          const fiber = yield* start(server.execute(call("flaky")))
          assert.strictEqual(counter.attempts, 1)
          yield* TestClock.adjust("9 seconds")
          assert.strictEqual(counter.attempts, 1)
          yield* TestClock.adjust("1 second")
          assert.strictEqual(counter.attempts, 2)
          yield* TestClock.adjust("10 seconds")
          const result = yield* Fiber.join(fiber)
          assert.deepStrictEqual([result.status, result.attempts, counter.attempts], ["success", 3, 3])
        }))
    }))

  it.effect("each call of a batch has a schedule of its own", () =>
    Effect.gen(function*() {
      const failures = new Map<string, number>()
      const Flaky = Tool.make("flaky", {
        description: "Fails once per key",
        parameters: Schema.Struct({ key: Schema.String }),
        call: ({ key }) => {
          const seen = failures.get(key) ?? 0
          failures.set(key, seen + 1)
          return seen === 0 ? Effect.fail(network(1)) : Effect.succeed(key)
        }
      })
      const results = yield* serve({ tools: ToolSet.make(Flaky), retry: Schedule.recurs(1) }, (server) =>
        server.executeAll(["a", "b", "c"].map((key) => call("flaky", { key }, key))))
      assert.deepStrictEqual(
        results.map((result) => [result.callId, result.status, result.attempts]),
        [["a", "success", 2], ["b", "success", 2], ["c", "success", 2]]
      )
    }))

  it.effect("without a retry schedule, a retryable error is the result of the one attempt", () =>
    Effect.gen(function*() {
      const { counter, tool } = flaky(1, network)
      const result = yield* serve({ tools: ToolSet.make(tool) }, (server) => server.execute(call("flaky")))
      assert.deepStrictEqual([result.status, kindOf(result), result.attempts, counter.attempts], ["error", "network", 1, 1])
    }))
})

describe("ToolServer: execute and executeAll are total", () => {
  const Anything = Tool.make("anything", {
    description: "Accepts any object",
    parameters: Schema.Record(Schema.String, Schema.Unknown),
    call: () => Effect.succeed("ok")
  })
  const Failing = Tool.make("failing", {
    description: "Always fails, retryably",
    parameters: Schema.Struct({}),
    call: () => Effect.fail(ToolExecutionError.network("down"))
  })
  const Dying = Tool.make("dying", {
    description: "Always dies",
    parameters: Schema.Struct({}),
    call: () => Effect.die(new Error("boom"))
  })
  const options: ToolServer.Options<Tool.Any, ToolHooks.ToolHooks> = {
    tools: ToolSet.make(Echo, Anything, Failing, Dying),
    hooks: [ToolHooks.make({
      onCall: (event) => Effect.succeed(event.tool.name === "echo" ? ToolHooks.rewrite({ text: "rewritten" }) : ToolHooks.run),
      onResult: () => Effect.succeed(ToolHooks.keep)
    })],
    concurrency: 4,
    timeout: "1 second",
    retry: Schedule.recurs(1)
  }
  const Name = Schema.Union([Schema.Literals(["echo", "anything", "failing", "dying", ""]), Schema.String])
  const Call = Schema.Tuple([Name, Schema.Json])

  it.effect.prop(
    "any names and JSON arguments through a server with hooks give exactly one result each, in call order",
    [Schema.Array(Call)],
    ([batch]) =>
      serve(options, (server) =>
        Effect.gen(function*() {
          const exit = yield* Effect.exit(server.executeAll(batch.map(([name, args], i) => call(name, args, `c${i}`))))
          assert.isTrue(Exit.isSuccess(exit), "executeAll failed or died")
          const results = (exit as Exit.Success<Array<ToolResult.ToolResult>>).value
          assert.deepStrictEqual(
            results.map((result) => [result.callId, result.name]),
            batch.map(([name], i) => [`c${i}`, name])
          )
          for (const result of results) {
            assert.isTrue(ToolResult.isToolResult(result))
            assert.strictEqual(result.status === "success", result.error._tag === "None")
            assert.isTrue(result.attempts >= 1 && result.attempts <= 2)
          }
        })),
    { arbitrary: { runs: 100 } }
  )

  it.effect.prop(
    "any name and JSON value (or its text) as the arguments of one execute give one result for that call",
    [Name, Schema.Json, Schema.Boolean],
    ([name, args, asText]) =>
      serve(options, (server) =>
        Effect.gen(function*() {
          const exit = yield* Effect.exit(server.execute(call(name, asText ? JSON.stringify(args) : args, "one")))
          assert.isTrue(Exit.isSuccess(exit), "execute failed or died")
          const result = (exit as Exit.Success<ToolResult.ToolResult>).value
          assert.deepStrictEqual([result.callId, result.name], ["one", name])
          if (!["echo", "anything", "failing", "dying"].includes(name)) {
            assert.deepStrictEqual([result.status, kindOf(result), result.attempts], ["error", "not_found", 1])
          }
        })),
    { arbitrary: { runs: 200 } }
  )

  it.effect("a failing tool, a dying tool and an unknown tool each end in one result, with the server's policy", () =>
    serve(options, (server) =>
      Effect.gen(function*() {
        const results = yield* server.executeAll([
          call("failing", {}, "1"),
          call("dying", {}, "2"),
          call("echo", { text: "original" }, "3"),
          call("nope", {}, "4")
        ])
        assert.deepStrictEqual(
          results.map((result) => [result.callId, result.status, kindOf(result) ?? ToolOutput.render(result.output), result.attempts]),
          [["1", "error", "network", 2], ["2", "error", "other", 1], ["3", "success", "rewritten", 1], ["4", "error", "not_found", 1]]
        )
      })))
})

describe("ToolResult.attempts", () => {
  it.effect("is 1 for a plain ToolSet's results, and is in toJSON", () =>
    Effect.gen(function*() {
      // A retryable failure: a plain set never retries it.
      const Failing = Tool.make("failing", {
        description: "Fails retryably",
        parameters: Schema.Struct({}),
        call: () => Effect.fail(ToolExecutionError.network("down"))
      })
      const set = ToolSet.make(Echo, Failing)
      const results = [
        yield* ToolSet.execute(set, call("echo", { text: "hi" })),
        ...(yield* ToolSet.executeAll(set, [call("failing"), call("nope")]))
      ]
      assert.deepStrictEqual(results.map((result) => result.attempts), [1, 1, 1])
      assert.deepStrictEqual(results.map((result) => (result.toJSON() as { attempts: unknown }).attempts), [1, 1, 1])
    }))
})
