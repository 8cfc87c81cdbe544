import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Metric, Option, Schema, Tracer } from "effect"
import { Tool, ToolCall, ToolExecutionError, ToolOutput, ToolSet } from "../src/index.ts"
import { makeRecorder } from "./support/tracing.ts"


const Add = Tool.make("add", {
  description: "Add two integers",
  parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
  success: Schema.Struct({ value: Schema.Int }),
  call: Effect.fn("add")(function*({ left, right }) {
    if (left < 0) return yield* ToolExecutionError.rateLimited("slow down")
    if (right < 0) return yield* ToolExecutionError.refused("negative numbers are not allowed")
    return { value: left + right }
  })
})

// Reports the span it runs under, or that there is none.
const ParentSpan = Tool.make("parent_span", {
  description: "Name the span the tool runs under",
  parameters: Schema.Struct({}),
  call: () =>
    Effect.currentParentSpan.pipe(
      Effect.map((span) => span._tag === "Span" ? span.name : "external"),
      Effect.catch(() => Effect.succeed("<no span>"))
    )
})

const set = ToolSet.make(Add, ParentSpan)

const call = (name: string, args: unknown, id = "call_1") => ToolCall.make({ id, name, arguments: args })

const attributesOf = (span: Tracer.NativeSpan) => Object.fromEntries(span.attributes)

const spanNamed = (spans: ReadonlyArray<Tracer.NativeSpan>, name: string): Tracer.NativeSpan => {
  const found = spans.filter((span) => span.name === name)
  assert.strictEqual(found.length, 1, `exactly one span named ${name}`)
  return found[0]!
}

// Metric series of one metric, keyed by their attributes, read from the registry in scope.
const series = (id: string) =>
  Effect.map(Metric.snapshot, (snapshots) =>
    snapshots
      .filter((snapshot) => snapshot.id === id)
      .map((snapshot) => ({ attributes: snapshot.attributes, state: snapshot.state })))

// Attributes as a string that does not depend on the order their keys were set in.
const canonical = (attributes: unknown) =>
  JSON.stringify(Object.entries(attributes as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))

const withFreshRegistry = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, Metric.MetricRegistry, new Map())

describe("ToolSet telemetry", () => {
  describe("spans", () => {
    it.effect("a span ends with a success exit for a success and a failure exit for a failed or denied call", () =>
      Effect.gen(function*() {
        const { spans, tracer } = makeRecorder()
        const results = yield* ToolSet.executeAll(set, [
          call("add", { left: 1, right: 2 }, "ok"),
          call("add", { left: -1, right: 2 }, "limited"),
          call("add", { left: 1, right: -2 }, "refused")
        ]).pipe(Effect.withTracer(tracer))
        const exits = spans
          .filter((span) => span.name === "execute_tool add")
          .map((span) => span.status._tag === "Ended" ? span.status.exit : undefined)
        assert.deepStrictEqual(exits, [
          Exit.succeed(results[0]),
          Exit.fail(Option.getOrThrow(results[1]!.error)),
          Exit.fail(Option.getOrThrow(results[2]!.error))
        ])
      }))

    it.effect("one execute_tool span per call, with the GenAI attributes and the status", () =>
      Effect.gen(function*() {
        const { spans, tracer } = makeRecorder()
        const result = yield* ToolSet.execute(set, call("add", { left: 1, right: 2 }, "call_ok")).pipe(
          Effect.withTracer(tracer)
        )
        assert.strictEqual(result.status, "success")
        const span = spanNamed(spans, "execute_tool add")
        assert.deepStrictEqual(attributesOf(span), {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": "add",
          "gen_ai.tool.type": "function",
          "gen_ai.tool.call.id": "call_ok",
          "gen_ai.tool.description": "Add two integers",
          "tool.status": "success",
          "gen_ai.tool.call.outcome": "success"
        })
        assert.strictEqual(span.kind, "internal")
        assert.strictEqual(span.status._tag, "Ended")
        assert.deepStrictEqual(spans.filter((s) => s.name.startsWith("execute_tool")).length, 1)
      }))

    it.effect("a failed call carries error.type = its kind", () =>
      Effect.gen(function*() {
        const { spans, tracer } = makeRecorder()
        yield* ToolSet.execute(set, call("add", { left: -1, right: 2 }, "call_rl")).pipe(Effect.withTracer(tracer))
        yield* ToolSet.execute(set, call("add", "{oops", "call_bad")).pipe(Effect.withTracer(tracer))
        yield* ToolSet.execute(set, call("add", { left: 1, right: -2 }, "call_no")).pipe(Effect.withTracer(tracer))
        yield* ToolSet.execute(set, call("subtract", {}, "call_nf")).pipe(Effect.withTracer(tracer))
        const toolSpans = spans.filter((span) => span.name.startsWith("execute_tool"))
        assert.deepStrictEqual(toolSpans.map((span) => [span.name, attributesOf(span)]), [
          ["execute_tool add", {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "add",
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.id": "call_rl",
            "gen_ai.tool.description": "Add two integers",
            "tool.status": "error",
            "gen_ai.tool.call.outcome": "error",
            "error.type": "rate_limited"
          }],
          ["execute_tool add", {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "add",
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.id": "call_bad",
            "gen_ai.tool.description": "Add two integers",
            "tool.status": "error",
            "gen_ai.tool.call.outcome": "error",
            "error.type": "invalid_args"
          }],
          ["execute_tool add", {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "add",
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.id": "call_no",
            "gen_ai.tool.description": "Add two integers",
            "tool.status": "denied",
            "gen_ai.tool.call.outcome": "denied",
            "error.type": "permission_denied"
          }],
          ["execute_tool subtract", {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "subtract",
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.id": "call_nf",
            "tool.status": "error",
            "gen_ai.tool.call.outcome": "error",
            "error.type": "not_found"
          }]
        ])
      }))

    it.effect("a registered tool's name is whole on its span, however long; an invented one is cut at 128", () =>
      Effect.gen(function*() {
        const { spans, tracer } = makeRecorder()
        // Two valid names of 128 characters that differ only at the end: their spans must not collide.
        const long = (end: string) => `${"n".repeat(127)}${end}`
        const tools = ToolSet.make(
          ...["a", "b"].map((end) =>
            Tool.make(long(end), { description: "", parameters: Schema.Struct({}), call: () => Effect.succeed(end) })
          )
        )
        const invented = "x".repeat(300)
        yield* ToolSet.executeAll(tools, [call(long("a"), {}, "a"), call(long("b"), {}, "b"), call(invented, {}, "c")])
          .pipe(Effect.withTracer(tracer))
        const shown = spans.map((span) => [span.name, span.attributes.get("gen_ai.tool.name")])
        assert.deepStrictEqual(shown, [
          [`execute_tool ${long("a")}`, long("a")],
          [`execute_tool ${long("b")}`, long("b")],
          [`execute_tool ${"x".repeat(128)}…`, `${"x".repeat(128)}…`]
        ])
        // An empty description is not an attribute.
        assert.isFalse(spans.some((span) => span.attributes.has("gen_ai.tool.description")))
      }))

    it.effect("a call without an id has no gen_ai.tool.call.id on its span", () =>
      Effect.gen(function*() {
        const { spans, tracer } = makeRecorder()
        yield* ToolSet.execute(set, call("add", { left: 1, right: 2 }, "")).pipe(Effect.withTracer(tracer))
        const span = spanNamed(spans, "execute_tool add")
        assert.isFalse(span.attributes.has("gen_ai.tool.call.id"))
        assert.strictEqual(span.attributes.get("gen_ai.tool.call.outcome"), "success")
      }))

    it.effect("spans the tool creates are children of its execute_tool span", () =>
      Effect.gen(function*() {
        const { spans, tracer } = makeRecorder()
        yield* Effect.withSpan(
          ToolSet.execute(set, call("add", { left: 1, right: 2 })),
          "agent turn"
        ).pipe(Effect.withTracer(tracer))
        const turn = spanNamed(spans, "agent turn")
        const execute = spanNamed(spans, "execute_tool add")
        const add = spanNamed(spans, "add")
        assert.deepStrictEqual(Option.map(add.parent, (parent) => parent.spanId), Option.some(execute.spanId))
        assert.deepStrictEqual(Option.map(execute.parent, (parent) => parent.spanId), Option.some(turn.spanId))
        assert.strictEqual(add.traceId, turn.traceId)
      }))

    it.effect("the tool runs under the execute_tool span when a tracer is installed", () =>
      Effect.gen(function*() {
        const { tracer } = makeRecorder()
        const result = yield* ToolSet.execute(set, call("parent_span", {})).pipe(Effect.withTracer(tracer))
        assert.deepStrictEqual(result.output, ToolOutput.text("execute_tool parent_span"))
      }))

    it.effect("with the default native tracer no span is made: the tool runs under no span", () =>
      Effect.gen(function*() {
        assert.strictEqual(yield* Tracer.Tracer, Tracer.nativeTracer)
        const result = yield* ToolSet.execute(set, call("parent_span", {}))
        assert.deepStrictEqual(result.output, ToolOutput.text("<no span>"))
      }))

    it.effect("interrupting execute itself still ends the span", () =>
      Effect.gen(function*() {
        const { spans, tracer } = makeRecorder()
        const Hang = Tool.make("hang", {
          description: "Never returns",
          parameters: Schema.Struct({}),
          call: () => Effect.never
        })
        const fiber = yield* ToolSet.execute(ToolSet.make(Hang), call("hang", {})).pipe(
          Effect.withTracer(tracer),
          Effect.forkChild
        )
        yield* Effect.yieldNow
        const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
        assert.isTrue(Exit.isFailure(exit))
        const span = spanNamed(spans, "execute_tool hang")
        assert.strictEqual(span.status._tag, "Ended")
      }))
  })

  describe("metrics", () => {
    it.effect("gen_ai.tool.calls counts calls by tool name, status and error.type", () =>
      withFreshRegistry(Effect.gen(function*() {
        yield* ToolSet.execute(set, call("add", { left: 1, right: 2 }))
        yield* ToolSet.execute(set, call("add", { left: 3, right: 4 }))
        yield* ToolSet.execute(set, call("add", { left: -1, right: 4 }))
        yield* ToolSet.execute(set, call("add", { left: 1, right: -4 }))
        yield* ToolSet.execute(set, call("parent_span", {}))
        const counts = yield* series("gen_ai.tool.calls")
        const byAttributes = counts
          .map(({ attributes, state }) => [attributes, (state as Metric.CounterState<number>).count] as const)
          .sort(([a], [b]) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
        assert.deepStrictEqual(byAttributes, [
          [{ "gen_ai.tool.name": "add", "tool.status": "denied", "error.type": "permission_denied" }, 1],
          [{ "gen_ai.tool.name": "add", "tool.status": "error", "error.type": "rate_limited" }, 1],
          [{ "gen_ai.tool.name": "add", "tool.status": "success" }, 2],
          [{ "gen_ai.tool.name": "parent_span", "tool.status": "success" }, 1]
        ])
      })))

    it.effect("calls to unknown tools are counted under gen_ai.tool.name _unknown", () =>
      withFreshRegistry(Effect.gen(function*() {
        yield* ToolSet.execute(set, call("made_up_by_the_model", {}))
        yield* ToolSet.execute(set, call("another_invention", {}))
        const counts = yield* series("gen_ai.tool.calls")
        assert.deepStrictEqual(
          counts.map(({ attributes, state }) => [attributes, (state as Metric.CounterState<number>).count]),
          [[{ "gen_ai.tool.name": "_unknown", "tool.status": "error", "error.type": "not_found" }, 2]]
        )
      })))

    it.effect("gen_ai.tool.duration records one observation per call, by tool, status and error.type, in ms", () =>
      withFreshRegistry(Effect.gen(function*() {
        const first = yield* ToolSet.execute(set, call("add", { left: 1, right: 2 }))
        const second = yield* ToolSet.execute(set, call("add", { left: 1, right: 2 }))
        const failed = yield* ToolSet.execute(set, call("add", "[1]"))
        const durations = yield* series("gen_ai.tool.duration")
        const summary = durations
          .map(({ attributes, state }) => {
            const { count, min, max, sum } = state as Metric.HistogramState
            return [attributes, { count, min, max, sum }] as const
          })
          .sort(([a], [b]) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
        // The histogram observes exactly the durations the results report.
        const [a, b, c] = [first.durationMs, second.durationMs, failed.durationMs]
        assert.deepStrictEqual(summary, [
          [
            { "gen_ai.tool.name": "add", "tool.status": "error", "error.type": "invalid_args", unit: "ms" },
            { count: 1, min: c, max: c, sum: c }
          ],
          [
            { "gen_ai.tool.name": "add", "tool.status": "success", unit: "ms" },
            { count: 2, min: Math.min(a, b), max: Math.max(a, b), sum: a + b }
          ]
        ])
      })))

    it.effect("gen_ai.tool.duration has buckets up to minutes: a slow tool does not land in +Infinity", () =>
      withFreshRegistry(Effect.gen(function*() {
        yield* ToolSet.execute(set, call("add", { left: 1, right: 2 }))
        const [only] = yield* series("gen_ai.tool.duration")
        const finite = (only!.state as Metric.HistogramState).buckets
          .map(([boundary]) => boundary)
          .filter(Number.isFinite)
        assert.isAtMost(finite[0]!, 0.01)
        // A tool under a 30 s or a 5-minute timeout is told apart from one that took 10 s.
        assert.isTrue(finite.some((boundary) => boundary > 10_000 && boundary < 60_000))
        assert.isAbove(finite[finite.length - 1]!, 10 * 60_000)
      })))

    it.live("gen_ai.tool.duration records the wall time of the call, in milliseconds", () =>
      withFreshRegistry(Effect.gen(function*() {
        const Nap = Tool.make("nap", {
          description: "Sleeps for 25 ms",
          parameters: Schema.Struct({}),
          call: () => Effect.as(Effect.sleep("25 millis"), "rested")
        })
        const naps = ToolSet.make(Nap)
        yield* ToolSet.execute(naps, call("nap", {}))
        yield* ToolSet.execute(naps, call("nap", {}))
        const [only, ...rest] = yield* series("gen_ai.tool.duration")
        assert.deepStrictEqual([only?.attributes, rest], [
          { "gen_ai.tool.name": "nap", "tool.status": "success", unit: "ms" },
          []
        ])
        const histogram = only!.state as Metric.HistogramState
        assert.strictEqual(histogram.count, 2)
        // Timers fire on whole milliseconds, so a 25 ms sleep may measure a fraction under 25.
        assert.isAtLeast(histogram.min, 24)
        assert.isAtLeast(histogram.sum, 48)
        // And far less than a call that never ended.
        assert.isBelow(histogram.max, 10_000)
      })))

    it.effect("metrics go to the registry of the caller's context", () =>
      Effect.gen(function*() {
        const first = new Map()
        const second = new Map()
        yield* ToolSet.execute(set, call("add", { left: 1, right: 2 })).pipe(
          Effect.provideService(Metric.MetricRegistry, first)
        )
        yield* ToolSet.execute(set, call("add", { left: 1, right: 2 })).pipe(
          Effect.provideService(Metric.MetricRegistry, second)
        )
        yield* ToolSet.execute(set, call("add", { left: 1, right: 2 })).pipe(
          Effect.provideService(Metric.MetricRegistry, second)
        )
        const countIn = (registry: Map<string, Metric.Metric.Metadata<unknown, unknown>>) =>
          series("gen_ai.tool.calls").pipe(
            Effect.map((found) => found.map(({ state }) => (state as Metric.CounterState<number>).count)),
            Effect.provideService(Metric.MetricRegistry, registry)
          )
        assert.deepStrictEqual(yield* countIn(first), [1])
        assert.deepStrictEqual(yield* countIn(second), [2])
      }))

    it.effect("the metric attributes of the caller's context are carried, each set its own series", () =>
      withFreshRegistry(Effect.gen(function*() {
        const run = (attributes: Record<string, string> | undefined) => {
          const program = ToolSet.execute(set, call("add", { left: 1, right: 2 }))
          return attributes === undefined
            ? program
            : Effect.provideService(program, Metric.CurrentMetricAttributes, attributes)
        }
        yield* run(undefined)
        yield* run({ tenant: "a" })
        // The same attributes in another object, and in another order, are the same series.
        yield* run({ tenant: "a" })
        yield* run({ tenant: "b", region: "eu" })
        yield* run({ region: "eu", tenant: "b" })
        yield* run(undefined)
        const counts = (yield* series("gen_ai.tool.calls"))
          .map(({ attributes, state }) => [attributes, (state as Metric.CounterState<number>).count] as const)
          .sort(([a], [b]) => canonical(a).localeCompare(canonical(b)))
        assert.deepStrictEqual(counts, [
          [{ "gen_ai.tool.name": "add", "tool.status": "success", region: "eu", tenant: "b" }, 2],
          [{ "gen_ai.tool.name": "add", "tool.status": "success", tenant: "a" }, 2],
          [{ "gen_ai.tool.name": "add", "tool.status": "success" }, 2]
        ])
        const durations = yield* series("gen_ai.tool.duration")
        assert.deepStrictEqual(
          durations.map(({ state }) => (state as Metric.HistogramState).count).sort(),
          [2, 2, 2]
        )
      })))

    it.effect("two sets with a tool of the same name count into the same series", () =>
      withFreshRegistry(Effect.gen(function*() {
        const other = ToolSet.make(Tool.make("add", {
          description: "Add two numbers, another way",
          parameters: Schema.Struct({ left: Schema.Number, right: Schema.Number }),
          call: ({ left, right }) => Effect.succeed(left + right)
        }))
        yield* ToolSet.execute(set, call("add", { left: 1, right: 2 }))
        yield* ToolSet.execute(other, call("add", { left: 1, right: 2 }))
        yield* ToolSet.execute(set, call("add", { left: 1, right: 2 }))
        const counts = yield* series("gen_ai.tool.calls")
        assert.deepStrictEqual(
          counts.map(({ attributes, state }) => [attributes, (state as Metric.CounterState<number>).count]),
          [[{ "gen_ai.tool.name": "add", "tool.status": "success" }, 3]]
        )
      })))

    it.effect("calls rotating over 300 tools are counted per tool, exactly, with histograms as Effect's own", () =>
      withFreshRegistry(Effect.gen(function*() {
        const tools = Array.from({ length: 300 }, (_, i) =>
          Tool.make(`tool_${i}`, {
            description: "Succeeds, or fails for an odd number",
            parameters: Schema.Struct({ n: Schema.Int }),
            call: ({ n }) => n % 2 === 0 ? Effect.succeed(n) : ToolExecutionError.rateLimited("odd")
          }))
        const many = ToolSet.make(...tools)
        const expected = new Map<string, number>()
        const durations = new Map<string, Array<number>>()
        for (let i = 0; i < 1200; i++) {
          const name = `tool_${(i * 7) % 300}`
          const result = yield* ToolSet.execute(many, call(name, { n: i % 3 }))
          const key = `${name}/${result.status}`
          expected.set(key, (expected.get(key) ?? 0) + 1)
          const observed = durations.get(key)
          if (observed === undefined) durations.set(key, [result.durationMs])
          else observed.push(result.durationMs)
        }
        const counts = yield* series("gen_ai.tool.calls")
        assert.strictEqual(counts.length, expected.size)
        for (const { attributes, state } of counts) {
          const key = `${attributes!["gen_ai.tool.name"]}/${attributes!["tool.status"]}`
          assert.strictEqual((state as Metric.CounterState<number>).count, expected.get(key), key)
        }
        // Effect's own histogram, fed the durations the results report, reads the same.
        const reference = new Map()
        const histograms = yield* series("gen_ai.tool.duration")
        assert.strictEqual(histograms.length, durations.size)
        for (const { attributes, state } of histograms) {
          const key = `${attributes!["gen_ai.tool.name"]}/${attributes!["tool.status"]}`
          const own = Metric.histogram(`reference ${key}`, {
            boundaries: Metric.exponentialBoundaries({ start: 0.01, factor: 4, count: 15 })
          })
          for (const duration of durations.get(key)!) {
            yield* Metric.update(own, duration).pipe(Effect.provideService(Metric.MetricRegistry, reference))
          }
          const expectedState = yield* Metric.value(own).pipe(Effect.provideService(Metric.MetricRegistry, reference))
          assert.deepStrictEqual(state, expectedState, key)
        }
      })))

    it.effect("a set served through a layer is counted the same way", () =>
      withFreshRegistry(Effect.gen(function*() {
        class Tools extends Context.Service<Tools, ToolSet.Service<never>>()("test/Tools") {}
        const tools = yield* Effect.provide(Effect.service(Tools), ToolSet.toLayer(Tools, set))
        yield* tools.execute(call("add", { left: 1, right: 2 }))
        const counts = yield* series("gen_ai.tool.calls")
        assert.deepStrictEqual(
          counts.map(({ attributes, state }) => [attributes, (state as Metric.CounterState<number>).count]),
          [[{ "gen_ai.tool.name": "add", "tool.status": "success" }, 1]]
        )
      })))
  })
})
