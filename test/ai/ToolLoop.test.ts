import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Option, Schema } from "effect"
import { LanguageModel, Prompt, Response } from "effect/ai"
import {
  Tool,
  ToolEmbedding,
  ToolExecutionError,
  ToolHooks,
  ToolIndex,
  ToolOutput,
  ToolResult,
  ToolResultContent,
  ToolServer,
  ToolSet,
  ToolSetBuilder
} from "../../src/index.ts"
import { AiToolkit, ToolLoop } from "../../src/ai/index.ts"
import { assistantMessages, toolResultPartOf } from "../../src/ai/internal/loopParts.ts"
import { modelParts } from "../../src/ai/internal/modelOutput.ts"
import {
  assistantMessage,
  filePart,
  reasoningPart,
  textPart,
  toolCallPart,
  toolMessage,
  toolResultPart,
  userMessage
} from "../../src/ai/internal/promptParts.ts"
import {
  isScriptExhausted,
  ScriptedModel,
  scriptedModel,
  type ScriptedPart,
  type ScriptedTurn
} from "../../src/testing/scriptedModel.ts"
import { makeRecorder } from "../support/tracing.ts"
import { CurrentUser } from "../support/userTools.ts"
import { Add, transferGuard } from "../support/tools.ts"

// ---------------------------------------------------------------------------------------------------------------
// Tools

const GetWeather = Tool.make("get_weather", {
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  call: ({ city }) => Effect.succeed(`Sunny in ${city}`)
})

const Transfer = Tool.make("transfer", {
  description: "Send money",
  parameters: Schema.Struct({ amount: Schema.Finite }),
  annotations: { destructive: true },
  call: ({ amount }) => Effect.succeed(`sent ${amount}`)
})

// A 1×1 transparent PNG.
const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

class Tools extends Context.Service<Tools, ToolServer.ToolServer>()("test/ai/Tools") {}
class UserTools extends Context.Service<UserTools, ToolServer.ToolServer<CurrentUser>>()("test/ai/UserTools") {}

/** An approval hook that defers every call it is asked about: a human decides later, through `resume`. */
const deferEvery = ToolHooks.approval({ decide: () => Effect.succeed(ToolHooks.defer) })

/** The pending approvals of a run's results, in call order. */
const pendingApprovals = (results: ReadonlyArray<ToolResult.ToolResult>) =>
  results.flatMap((result) => Option.toArray(ToolHooks.pendingApproval(result)))

/** Runs `use` with a server built from `options`, its layer closed afterwards. */
const serve = <T extends Tool.Any, H extends ToolHooks.Any, A, E, R>(
  options: ToolServer.Options<T, H>,
  use: (server: ToolServer.ToolServer) => Effect.Effect<A, E, R>
) => Effect.provide(Effect.flatMap(Tools, use), ToolServer.layer(Tools, options))

// ---------------------------------------------------------------------------------------------------------------
// The transcript, as plain encoded messages

const encode = (prompt: Prompt.Prompt): ReadonlyArray<unknown> => Schema.encodeSync(Prompt.Prompt)(prompt).content
const encodeParts = Schema.encodeSync(Schema.Array(Prompt.ToolModelOutputPart))

const user = (content: string) => ({ options: {}, role: "user", content })
const assistantText = (content: string) => ({ options: {}, role: "assistant", content })
const text = (text: string) => ({ options: {}, type: "text", text })
const toolCall = (id: string, name: string, params: unknown) => ({
  options: {},
  type: "tool-call",
  id,
  name,
  params,
  providerExecuted: false
})
const assistant = (...content: ReadonlyArray<unknown>) => ({ options: {}, role: "assistant", content })
const tool = (...content: ReadonlyArray<unknown>) => ({ options: {}, role: "tool", content })
/** A tool-result part whose model output is one text. */
const result = (id: string, name: string, isFailure: boolean, value: unknown, shown: string) => ({
  options: {},
  type: "tool-result",
  id,
  name,
  isFailure,
  result: value,
  modelOutput: [text(shown)],
  providerExecuted: false
})
const failed = (id: string, name: string, shown: string) => result(id, name, true, shown, shown)
/** The part of a success with one JSON value: the value, which the provider renders. */
const jsonResult = (id: string, name: string, value: unknown) => ({
  options: {},
  type: "tool-result",
  id,
  name,
  isFailure: false,
  result: value,
  providerExecuted: false
})

const call = (name: string, params: unknown, id?: string): ScriptedPart =>
  id === undefined ? { type: "tool-call", name, params } : { type: "tool-call", id, name, params }

/** The requests the scripted model was sent. */
const requests = Effect.flatMap(ScriptedModel, (model) => model.requests)

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
  assert.strictEqual(reason?._tag, "Fail")
  return (reason as { readonly error: E }).error
}

describe("ToolLoop.run", () => {
  it.effect("two turns of parallel calls, one denied by a hook, then the final answer; the model sees it all", () =>
    Effect.gen(function*() {
      const out = yield* serve({ tools: ToolSet.make(Add, GetWeather, Transfer), hooks: [transferGuard] }, (server) =>
        ToolLoop.run({ tools: server, prompt: "Plan my trip", maxTurns: 3 }))
      const turn1 = [
        user("Plan my trip"),
        assistant(
          text("Checking two things."),
          toolCall("w1", "get_weather", { city: "Paris" }),
          toolCall("a1", "add", { left: 2, right: 40 })
        ),
        tool(
          result("w1", "get_weather", false, "Sunny in Paris", "Sunny in Paris"),
          jsonResult("a1", "add", { value: 42 })
        )
      ]
      const turn2 = [
        assistant(toolCall("t1", "transfer", { amount: 500 }), toolCall("t2", "transfer", { amount: 20 })),
        tool(
          failed("t1", "transfer", "Tool call denied: transfers over 100 need a human"),
          result("t2", "transfer", false, "sent 20", "sent 20")
        )
      ]
      assert.deepStrictEqual(encode(out.transcript), [...turn1, ...turn2, assistantText("Booked: 42, sunny.")])
      assert.deepStrictEqual([out.text, out.turns], ["Booked: 42, sunny.", 3])
      assert.deepStrictEqual(out.toolResults.map((r) => [r.callId, r.status]), [
        ["w1", "success"],
        ["a1", "success"],
        ["t1", "denied"],
        ["t2", "success"]
      ])
      assert.strictEqual(out.response.finishReason, "stop")
      // Each request carried the whole conversation up to it, and offered every tool.
      const sent = yield* requests
      assert.deepStrictEqual(sent.map((request) => encode(request.prompt)), [
        [user("Plan my trip")],
        turn1,
        [...turn1, ...turn2]
      ])
      assert.deepStrictEqual(
        sent.map((request) => request.tools.map((offered) => offered.name)),
        [0, 1, 2].map(() => ["add", "get_weather", "transfer"])
      )
    }).pipe(Effect.provide(scriptedModel([
      [
        { type: "text", text: "Checking two things." },
        call("get_weather", { city: "Paris" }, "w1"),
        call("add", { left: 2, right: 40 }, "a1")
      ],
      [call("transfer", { amount: 500 }, "t1"), call("transfer", { amount: 20 }, "t2")],
      "Booked: 42, sunny."
    ]))))

  it.effect("a turn's results go back in call order, whatever order the calls finish in", () =>
    Effect.gen(function*() {
      const secondDone = yield* Deferred.make<void>()
      // `first` waits for `second`: it finishes last, and runs at all only because the calls run at once.
      const First = Tool.make("first", {
        description: "Finishes after second",
        parameters: Schema.Struct({}),
        call: () => Effect.as(Deferred.await(secondDone), "first done")
      })
      const Second = Tool.make("second", {
        description: "Finishes first",
        parameters: Schema.Struct({}),
        call: () => Effect.as(Deferred.succeed(secondDone, undefined), "second done")
      })
      const out = yield* ToolLoop.run({ tools: ToolSet.make(First, Second), prompt: "go" })
      assert.deepStrictEqual(encode(out.transcript)[2], tool(
        result("c1", "first", false, "first done", "first done"),
        result("c2", "second", false, "second done", "second done")
      ))
    }).pipe(Effect.provide(scriptedModel([[call("first", {}, "c1"), call("second", {}, "c2")], "both done"]))))

  it.effect("concurrency bounds how many of a turn's calls run at once", () =>
    Effect.gen(function*() {
      const gauge = { current: 0, max: 0 }
      const Slow = Tool.make("slow", {
        description: "Takes a few steps",
        parameters: Schema.Struct({}),
        call: () =>
          Effect.gen(function*() {
            gauge.current++
            gauge.max = Math.max(gauge.max, gauge.current)
            for (let i = 0; i < 5; i++) yield* Effect.yieldNow
            gauge.current--
            return "done"
          })
      })
      const turn = [call("slow", {}, "a"), call("slow", {}, "b"), call("slow", {}, "c")]
      const maxInFlight = (concurrency: number | "unbounded" | undefined) =>
        Effect.gen(function*() {
          gauge.max = 0
          const out = yield* ToolLoop.run({
            tools: ToolSet.make(Slow),
            prompt: "go",
            ...(concurrency === undefined ? {} : { concurrency })
          }).pipe(Effect.provide(scriptedModel([turn, "done"])))
          assert.deepStrictEqual(out.toolResults.map((r) => r.callId), ["a", "b", "c"])
          return gauge.max
        })
      assert.deepStrictEqual(
        [yield* maxInFlight(1), yield* maxInFlight(2), yield* maxInFlight("unbounded"), yield* maxInFlight(undefined)],
        [1, 2, 3, 3]
      )
    }))

  it.effect("malformed calls (unknown name, broken JSON, bad arguments) each get an error, and the loop goes on", () =>
    Effect.gen(function*() {
      const out = yield* ToolLoop.run({ tools: ToolSet.make(Add), prompt: "add things" })
      assert.deepStrictEqual(encode(out.transcript)[2], tool(
        failed("c1", "subtract", "Tool call failed (not_found): tool `subtract` not found; available tools: `add`"),
        failed(
          "c2",
          "add",
          "Tool call failed (invalid_args): failed to parse tool arguments: " +
            "Expected double-quoted property name at position 11"
        ),
        failed(
          "c3",
          "add",
          "Tool call failed (invalid_args): tool arguments did not match the schema:\n- $.right: Expected an integer"
        ),
        jsonResult("c4", "add", { value: 3 })
      ))
      assert.deepStrictEqual([out.text, out.turns], ["Only 1 + 2 worked: 3.", 2])
    }).pipe(Effect.provide(scriptedModel([
      [
        call("subtract", { left: 1, right: 2 }, "c1"),
        { type: "tool-call", id: "c2", name: "add", paramsText: "{\"left\": 1," },
        call("add", { left: 1, right: 2.5 }, "c3"),
        { type: "tool-call", id: "c4", name: "add", paramsText: "{\"left\": 1, \"right\": 2}" }
      ],
      "Only 1 + 2 worked: 3."
    ]))))

  it.effect("rich outputs go back as model-output parts: an image as a file part, next to its caption", () =>
    Effect.gen(function*() {
      const Chart = Tool.make("chart", {
        description: "Draw a chart",
        parameters: Schema.Struct({}),
        call: () =>
          Effect.succeed([
            ToolResultContent.text("A chart"),
            ToolResultContent.imageBase64(pixel, "image/png")
          ] as const)
      })
      const out = yield* ToolLoop.run({ tools: ToolSet.make(Chart), prompt: "draw" })
      assert.deepStrictEqual(encode(out.transcript)[2], tool({
        options: {},
        type: "tool-result",
        id: "c1",
        name: "chart",
        isFailure: false,
        result: "A chart\n[image/png omitted]",
        modelOutput: [text("A chart"), { options: {}, type: "file", mediaType: "image/png", data: pixel }],
        providerExecuted: false
      }))
    }).pipe(Effect.provide(scriptedModel([[call("chart", {}, "c1")], "Here it is."]))))

  it.effect("a hook's stop ends the loop with ToolRunStopped, whose transcript answers every call and runs on", () =>
    Effect.gen(function*() {
      const stopper = ToolHooks.make({
        onCall: (event) =>
          Effect.succeed(event.tool.name === "transfer" ? ToolHooks.stop("no money moves today") : ToolHooks.run)
      })
      const exit = yield* serve({ tools: ToolSet.make(Add, Transfer), hooks: [stopper], concurrency: 1 }, (server) =>
        Effect.exit(ToolLoop.run({ tools: server, prompt: "pay", concurrency: 1 })))
      const error = failureOf(exit)
      assert.isTrue(error instanceof ToolHooks.ToolRunStopped)
      assert.isTrue(error instanceof ToolLoop.Stopped)
      const stopped = error as ToolLoop.Stopped
      assert.strictEqual(stopped._tag, "ToolRunStopped")
      // The stopping call is skipped, and the call after it never runs.
      assert.deepStrictEqual(
        [stopped.reason, stopped.results.map((r) => [r.callId, r.status])],
        ["no money moves today", [["c1", "success"], ["c2", "skipped"]]]
      )
      // The transcript answers the call that never ran too, so that it can be run on.
      const encoded = encode(stopped.transcript)
      assert.deepStrictEqual(encoded.slice(0, 2), [
        user("pay"),
        assistant(
          toolCall("c1", "add", { left: 1, right: 1 }),
          toolCall("c2", "transfer", { amount: 5 }),
          toolCall("c3", "add", {})
        )
      ])
      assert.deepStrictEqual(
        encoded[2],
        tool(
          jsonResult("c1", "add", { value: 2 }),
          failed("c2", "transfer", "Tool call skipped: no money moves today"),
          failed("c3", "add", "Tool call skipped: the run was stopped: no money moves today; the call was not run")
        )
      )
      assert.deepStrictEqual(stopped.toolResults.map((r) => [r.callId, r.status]), [
        ["c1", "success"],
        ["c2", "skipped"],
        ["c3", "skipped"]
      ])
      assert.strictEqual((yield* requests).length, 1)
      // Going on from the transcript, over a set without the hook: the model sees it whole, and answers.
      const resumed = yield* ToolLoop.run({ tools: ToolSet.make(Add, Transfer), prompt: stopped.transcript })
      assert.strictEqual(resumed.text, "Stopped, as asked.")
      assert.deepStrictEqual(encode((yield* requests)[1]!.prompt), encoded)
    }).pipe(Effect.provide(scriptedModel([
      [call("add", { left: 1, right: 1 }, "c1"), call("transfer", { amount: 5 }, "c2"), call("add", {}, "c3")],
      "Stopped, as asked."
    ]))))

  it.effect.prop(
    "a hook's stop in a turn whose calls share ids: the Stopped transcript answers every call once, in call order",
    // The calls before the stopping one run (or repeat an id), those after it never run (or repeat an id).
    [
      Schema.Array(Schema.Literals(["a", "b", "c"])).check(Schema.isMaxLength(6)),
      Schema.Array(Schema.Literals(["a", "b", "c", "d"])).check(Schema.isMaxLength(6))
    ],
    ([before, after]) =>
      Effect.gen(function*() {
        const Halt = Tool.make("halt", {
          description: "Stops the run",
          parameters: Schema.Struct({}),
          call: () => Effect.succeed("halted")
        })
        const stopper = ToolHooks.make({
          onCall: (event) => Effect.succeed(event.tool.name === "halt" ? ToolHooks.stop("enough") : ToolHooks.run)
        })
        const calls = [
          ...before.map((id) => ["add", id] as const),
          ["halt", "h"] as const,
          ...after.map((id) => ["add", id] as const)
        ]
        const paramsOf = (name: string) => name === "add" ? { left: 1, right: 1 } : {}
        const exit = yield* serve({ tools: ToolSet.make(Add, Halt), hooks: [stopper] }, (server) =>
          Effect.exit(
            ToolLoop.run({ tools: server, prompt: "go", concurrency: 1 }).pipe(
              Effect.provide(scriptedModel([calls.map(([name, id]) => call(name, paramsOf(name), id))]))
            )
          ))
        const stopped = failureOf(exit) as ToolLoop.Stopped
        const ids = calls.map(([, id]) => id)
        const expected = calls.map(([name, id], i) => [
          id,
          name,
          ids.indexOf(id) < i ? "error" : name === "halt" || i > before.length ? "skipped" : "success"
        ])
        assert.deepStrictEqual(stopped.toolResults.map((r) => [r.callId, r.name, r.status]), expected)
        assert.strictEqual(stopped.transcript.content.length, 3)
        const [assistantTurn, answers] = stopped.transcript.content.slice(1) as [
          Prompt.AssistantMessage,
          Prompt.ToolMessage
        ]
        assert.deepStrictEqual(
          answers.content.map((part) => part.type === "tool-result" && [part.id, part.name]),
          assistantTurn.content.map((part) => part.type === "tool-call" && [part.id, part.name])
        )
      }),
    { arbitrary: { runs: 60 } }
  )

  it.effect.prop(
    "whatever the ids of a turn's calls, each id runs once, at its first call, and every call is answered in order",
    // Repeated up to 4 times: turns of many calls come up too.
    [
      Schema.Array(Schema.Literals(["a", "b", "c", "d", "e"])).check(Schema.isMaxLength(10)),
      Schema.Literals([1, 2, 4])
    ],
    ([some, copies]) =>
      Effect.gen(function*() {
        const ids = Array.from({ length: copies }, () => some).flat()
        let runs = 0
        const Counting = Tool.make("add", {
          description: "Add two integers",
          parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
          call: ({ left, right }) => Effect.sync(() => (runs++, left + right))
        })
        const turn: ScriptedTurn = ids.map((id) => call("add", { left: 1, right: 1 }, id))
        const out = yield* ToolLoop.run({ tools: ToolSet.make(Counting), prompt: "add" }).pipe(
          Effect.provide(scriptedModel(ids.length === 0 ? ["none"] : [turn, "done"]))
        )
        assert.strictEqual(runs, new Set(ids).size)
        assert.deepStrictEqual(
          out.toolResults.map((r) => [r.callId, r.status]),
          ids.map((id, i) => [id, ids.indexOf(id) === i ? "success" : "error"])
        )
      })
  )

  it.effect("calls of one turn that share an id: the first runs, the others are invalid_args and never run", () =>
    Effect.gen(function*() {
      let transfers = 0
      const Counted = Tool.make("transfer", {
        description: "Move money",
        parameters: Schema.Struct({ amount: Schema.Number }),
        call: () => Effect.sync(() => ++transfers)
      })
      const out = yield* ToolLoop.run({ tools: ToolSet.make(Add, Counted), prompt: "pay" })
      assert.strictEqual(transfers, 1)
      assert.deepStrictEqual(out.toolResults.map((r) => [r.callId, r.name, r.status]), [
        ["t1", "transfer", "success"],
        ["a1", "add", "success"],
        ["t1", "transfer", "error"],
        ["t1", "add", "error"]
      ])
      assert.deepStrictEqual(
        out.toolResults.slice(2).map((r) => Option.map(r.error, (e) => [e.kind, e.message])),
        [0, 1].map(() =>
          Option.some(["invalid_args", "another call of this turn has the same id; only the first of them was run"])
        )
      )
      assert.strictEqual(out.text, "Paid once.")
    }).pipe(Effect.provide(scriptedModel([
      [
        call("transfer", { amount: 5 }, "t1"),
        call("add", { left: 1, right: 2 }, "a1"),
        call("transfer", { amount: 5 }, "t1"),
        call("add", { left: 1, right: 2 }, "t1")
      ],
      "Paid once."
    ]))))

  it.effect("a model that keeps calling tools fails with MaxTurnsExceeded, whose transcript can be run on", () =>
    Effect.gen(function*() {
      const set = ToolSet.make(Add)
      const exit = yield* Effect.exit(ToolLoop.run({ tools: set, prompt: "count", maxTurns: 2 }))
      const error = failureOf(exit)
      assert.isTrue(error instanceof ToolLoop.MaxTurnsExceeded)
      const exceeded = error as ToolLoop.MaxTurnsExceeded
      assert.strictEqual(exceeded.message, "the model was still calling tools after 2 turns")
      const one = new ToolLoop.MaxTurnsExceeded({ maxTurns: 1, transcript: exceeded.transcript, toolResults: [] })
      assert.strictEqual(one.message, "the model was still calling tools after 1 turn")
      // Every call is answered, the last turn's too.
      assert.deepStrictEqual(encode(exceeded.transcript), [
        user("count"),
        assistant(toolCall("c1", "add", { left: 1, right: 1 })),
        tool(jsonResult("c1", "add", { value: 2 })),
        assistant(toolCall("c2", "add", { left: 2, right: 1 })),
        tool(jsonResult("c2", "add", { value: 3 }))
      ])
      assert.deepStrictEqual(exceeded.toolResults.map((r) => r.callId), ["c1", "c2"])
      assert.strictEqual((yield* requests).length, 2)
      // Going on from the transcript: the model sees it whole, and answers.
      const resumed = yield* ToolLoop.run({ tools: set, prompt: exceeded.transcript, maxTurns: 2 })
      assert.strictEqual(resumed.text, "Three.")
      assert.deepStrictEqual(encode((yield* requests)[2]!.prompt), encode(exceeded.transcript))
    }).pipe(Effect.provide(scriptedModel([
      [call("add", { left: 1, right: 1 }, "c1")],
      [call("add", { left: 2, right: 1 }, "c2")],
      "Three."
    ]))))

  describe("with a tool server", () => {
    it.effect("each turn offers and runs a snapshot: a tool added mid-turn is offered from the next turn on", () => {
      const server: { current?: ToolServer.ToolServer } = {}
      const Install = Tool.make("install_weather", {
        description: "Install the weather tool",
        parameters: Schema.Struct({}),
        call: () => Effect.as(Effect.suspend(() => server.current!.add(GetWeather)), "installed")
      })
      return Effect.gen(function*() {
        const out = yield* serve({ tools: ToolSet.make(Install) }, (handle) => {
          server.current = handle
          return ToolLoop.run({ tools: handle, prompt: "weather in Oslo?" })
        })
        const transcript = encode(out.transcript)
        // Turn 1 ran against its snapshot: the tool installed by the call before it is not in it.
        assert.deepStrictEqual(transcript[2], tool(
          result("i1", "install_weather", false, "installed", "installed"),
          failed(
            "w1",
            "get_weather",
            "Tool call failed (not_found): tool `get_weather` not found; available tools: `install_weather`"
          )
        ))
        assert.deepStrictEqual(
          transcript[4],
          tool(result("w2", "get_weather", false, "Sunny in Oslo", "Sunny in Oslo"))
        )
        assert.deepStrictEqual(
          (yield* requests).map((request) => request.tools.map((offered) => offered.name)),
          [["install_weather"], ["install_weather", "get_weather"], ["install_weather", "get_weather"]]
        )
      }).pipe(Effect.provide(scriptedModel([
        [call("install_weather", {}, "i1"), call("get_weather", { city: "Oslo" }, "w1")],
        [call("get_weather", { city: "Oslo" }, "w2")],
        "Sunny in Oslo."
      ])))
    })

    it.effect("tools are selected by the last user message; a call outside the selection is not_found", () =>
      Effect.gen(function*() {
        const GetTime = Tool.make("get_time", {
          description: "The local time in a city",
          parameters: Schema.Struct({ city: Schema.String }),
          call: () => Effect.succeed("noon")
        })
        const built = yield* ToolSetBuilder.build(ToolSetBuilder.make().pipe(
          ToolSetBuilder.addStatic(Add),
          ToolSetBuilder.addEmbedding(
            ToolEmbedding.make(GetWeather, { docs: ["weather forecast for a city", "will it rain tomorrow"] })
          ),
          ToolSetBuilder.addEmbedding(ToolEmbedding.make(GetTime, { docs: ["what time is it in a city"] }))
        ))
        const out = yield* serve({ tools: built }, (server) =>
          ToolLoop.run({
            tools: server,
            prompt: [
              { role: "user", content: "what time is it in Oslo?" },
              { role: "assistant", content: "Noon." },
              { role: "user", content: "will it rain in Oslo tomorrow?" }
            ],
            topK: 1
          }))
        assert.deepStrictEqual(encode(out.transcript)[4], tool(
          failed(
            "t1",
            "get_time",
            "Tool call failed (not_found): tool `get_time` not found; available tools: `get_weather`, `add`"
          ),
          result("w1", "get_weather", false, "Sunny in Oslo", "Sunny in Oslo")
        ))
        assert.deepStrictEqual(
          (yield* requests).map((request) => request.tools.map((offered) => offered.name)),
          [["get_weather", "add"], ["get_weather", "add"]]
        )
      }).pipe(Effect.provide(scriptedModel([
        [call("get_time", { city: "Oslo" }, "t1"), call("get_weather", { city: "Oslo" }, "w1")],
        "No rain."
      ]))))

    it.effect("a hook that changes a call's arguments in place leaves the transcript as the model sent it", () =>
      Effect.gen(function*() {
        const meddler = ToolHooks.make({
          onCall: (event) =>
            Effect.sync(() => {
              ;(event.call.arguments as { city: string }).city = "Atlantis"
              return ToolHooks.run
            })
        })
        const out = yield* serve({ tools: ToolSet.make(GetWeather), hooks: [meddler] }, (server) =>
          ToolLoop.run({ tools: server, prompt: "weather?" }))
        assert.deepStrictEqual(encode(out.transcript).slice(1, 3), [
          assistant(toolCall("w1", "get_weather", { city: "Oslo" })),
          tool(result("w1", "get_weather", false, "Sunny in Oslo", "Sunny in Oslo"))
        ])
      }).pipe(Effect.provide(scriptedModel([[call("get_weather", { city: "Oslo" }, "w1")], "Sunny."]))))

    it.effect("calls bring the per-call values the run is given", () =>
      Effect.gen(function*() {
        const Whoami = Tool.make("whoami", {
          description: "Who is asking",
          parameters: Schema.Struct({}),
          call: () => Effect.map(CurrentUser, (current) => current.id)
        })
        const program = Effect.flatMap(UserTools, (server) => ToolLoop.run({ tools: server, prompt: "who am I?" }))
        expectTypeOf<Effect.Services<typeof program>>().toEqualTypeOf<
          UserTools | CurrentUser | LanguageModel.LanguageModel
        >()
        const out = yield* program.pipe(
          Effect.provide(ToolServer.layer(UserTools, { tools: ToolSet.make(Whoami) })),
          Effect.provideService(CurrentUser, { id: "ada" })
        )
        assert.deepStrictEqual(encode(out.transcript)[2], tool(result("c1", "whoami", false, "ada", "ada")))
      }).pipe(Effect.provide(scriptedModel([[call("whoami", {}, "c1")], "You are ada."]))))
  })

  it.effect("asks the model it is given, which the run then does not require", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.LanguageModel
      const program = ToolLoop.run({ model, tools: ToolSet.make(Add), prompt: "hi" })
      expectTypeOf<Effect.Services<typeof program>>().toEqualTypeOf<never>()
      expectTypeOf<Effect.Error<typeof program>>().toEqualTypeOf<ToolLoop.ModelFailed | ToolLoop.MaxTurnsExceeded>()
      assert.strictEqual((yield* program).text, "Hello.")
    }).pipe(Effect.provide(scriptedModel(["Hello."]))))

  it.effect("with a tracing backend, one ToolLoop.run span is the parent of the model's spans and the calls'", () =>
    Effect.gen(function*() {
      const { spans, tracer } = makeRecorder()
      yield* ToolLoop.run({ tools: ToolSet.make(Add), prompt: "add" }).pipe(Effect.withTracer(tracer))
      const loop = spans.find((span) => span.name === "ToolLoop.run")
      assert.isDefined(loop)
      const children = spans.filter((span) => span.parent._tag === "Some" && span.parent.value.spanId === loop!.spanId)
      assert.deepStrictEqual(children.map((span) => span.name), [
        "LanguageModel.generateText",
        "execute_tool add",
        "LanguageModel.generateText"
      ])
    }).pipe(Effect.provide(scriptedModel([[call("add", { left: 1, right: 1 })], "2"]))))

  it.effect("a failure of the model ends the loop with ModelFailed: its AiError, and the transcript it was sent", () =>
    Effect.gen(function*() {
      let ran = 0
      const Counted = Tool.make("add", {
        description: "Add two integers",
        parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
        call: ({ left, right }) => Effect.sync(() => (ran++, left + right))
      })
      const tools = ToolSet.make(Counted)
      // The second request fails: the script has one turn.
      const error = failureOf(
        yield* Effect.exit(
          ToolLoop.run({ tools, prompt: "add" }).pipe(
            Effect.provide(scriptedModel([[call("add", { left: 1, right: 1 }, "c1")]]))
          )
        )
      )
      assert.instanceOf(error, ToolLoop.ModelFailed)
      assert.isTrue(isScriptExhausted(error.cause))
      assert.strictEqual(error.turn, 2)
      assert.match(error.message, /^the model failed on request 2: /)
      const sent = [user("add"), assistant(toolCall("c1", "add", { left: 1, right: 1 })), tool(jsonResult("c1", "add", 2))]
      assert.deepStrictEqual(encode(error.transcript), sent)
      assert.deepStrictEqual(error.toolResults.map((result) => [result.callId, result.status]), [["c1", "success"]])
      // Going on from it: the call that ran is not run again.
      const out = yield* ToolLoop.run({ tools, prompt: error.transcript }).pipe(Effect.provide(scriptedModel(["2"])))
      assert.strictEqual(out.text, "2")
      assert.strictEqual(ran, 1)
      assert.deepStrictEqual(encode(out.transcript), [...sent, assistantText("2")])
    }))

  it.effect("a failure of the first request is ModelFailed too, with the prompt and no results", () =>
    Effect.gen(function*() {
      const error = failureOf(yield* Effect.exit(ToolLoop.run({ tools: ToolSet.make(Add), prompt: "add" })))
      assert.instanceOf(error, ToolLoop.ModelFailed)
      assert.strictEqual(error.turn, 1)
      assert.deepStrictEqual(encode(error.transcript), [user("add")])
      assert.deepStrictEqual(error.toolResults, [])
    }).pipe(Effect.provide(scriptedModel([]))))

  it.effect("each run of the Effect is a conversation of its own, also with a model whose answers are at hand", () =>
    Effect.gen(function*() {
      // Answers made at once (`Effect.succeed`), as a cache or a script in memory gives them.
      let asked = 0
      const usage = new Response.Usage({ inputTokens: {}, outputTokens: {} })
      const model = {
        [LanguageModel.TypeId]: LanguageModel.TypeId,
        generateText: (options: { readonly prompt: Prompt.Prompt }) => {
          asked++
          const answered = options.prompt.content[options.prompt.content.length - 1]?.role === "tool"
          return Effect.succeed(
            new LanguageModel.GenerateTextResponse(
              answered
                ? [Response.makePart("text", { text: `done ${asked}` })]
                : [
                  Response.makePart("tool-call", {
                    id: `c${asked}`,
                    name: "add",
                    params: { left: asked, right: 1 },
                    providerExecuted: false
                  }),
                  Response.makePart("finish", { reason: "tool-calls", usage, response: undefined })
                ]
            )
          )
        }
      } as unknown as LanguageModel.LanguageModel
      const program = ToolLoop.run({ model, tools: ToolSet.make(Add), prompt: "add" })
      const first = yield* program
      const second = yield* program
      const conversation = (id: string, left: number, answer: string) => [
        user("add"),
        assistant(toolCall(id, "add", { left, right: 1 })),
        tool(jsonResult(id, "add", { value: left + 1 })),
        assistantText(answer)
      ]
      assert.deepStrictEqual(
        [encode(first.transcript), first.turns, encode(second.transcript), second.turns],
        [conversation("c1", 1, "done 2"), 2, conversation("c3", 3, "done 4"), 2]
      )
      assert.deepStrictEqual(second.toolResults.map((r) => r.callId), ["c3"])
    }))

  const FailingArgs = Schema.Struct({
    kind: ToolExecutionError.ToolErrorKindSchema,
    text: Schema.String,
    image: Schema.Boolean,
    refused: Schema.Boolean
  })
  const Failing = Tool.make("failing", {
    description: "Fails as it is told",
    parameters: FailingArgs,
    call: ({ image, kind, refused, text }) => {
      const error = refused ? ToolExecutionError.refused(text) : ToolExecutionError.make(kind, text)
      if (!image) return Effect.fail(error)
      const shown = [ToolResultContent.text(text), ToolResultContent.imageBase64(pixel, "image/png")] as const
      return Effect.fail(ToolExecutionError.withModelOutput(error, ToolOutput.content(shown)))
    }
  })

  it.effect.prop(
    "a failed call is shown to the model as AiToolkit shows it: the same words, the same parts, the same text",
    [
      Schema.Union([
        Schema.Struct({ name: Schema.Literal("failing"), args: FailingArgs }),
        // effect/ai refuses a whole response that calls a tool the toolkit does not declare: declared tools only.
        Schema.Struct({ name: Schema.Literals(["failing", "add"]), args: Schema.Json })
      ])
    ],
    ([{ args, name }]) =>
      Effect.gen(function*() {
        const set = ToolSet.make(Add, Failing)
        const turn: ScriptedTurn = [call(name, args, "c1")]
        const shown = (part: Prompt.ToolResultPart) => ({
          isFailure: part.isFailure,
          result: part.result,
          modelOutput: part.modelOutput === undefined ? undefined : encodeParts(part.modelOutput)
        })
        const out = yield* Effect.provide(ToolLoop.run({ tools: set, prompt: "go" }), scriptedModel([turn, "done"]))
        const byLoop = (out.transcript.content[2] as Prompt.ToolMessage).content[0] as Prompt.ToolResultPart
        const response = yield* Effect.provide(
          LanguageModel.generateText({ prompt: "go", toolkit: AiToolkit.fromToolSet(set) }),
          scriptedModel([turn])
        )
        const sent = Prompt.fromResponseParts(response.content).content[1] as Prompt.ToolMessage
        const byToolkit = sent.content[0] as Prompt.ToolResultPart
        assert.strictEqual(byLoop.isFailure, out.toolResults[0]!.status !== "success")
        if (byLoop.isFailure) {
          assert.deepStrictEqual(shown(byLoop), shown(byToolkit))
          // The words alone when the output has nothing to read; before media, a part of their own.
          assert.match(String(byLoop.result), /^Tool call (failed \([a-z_]+\)|denied)(:|$)/)
        }
      }),
    { arbitrary: { runs: 100 } }
  )

  it("the errors of a tool server's loop are in its type: a hook's stop, an index that fails", () => {
    const program = Effect.flatMap(Tools, (server) => ToolLoop.run({ tools: server, prompt: "hi" }))
    expectTypeOf<Effect.Error<typeof program>>().toEqualTypeOf<
      ToolLoop.ModelFailed | ToolLoop.MaxTurnsExceeded | ToolLoop.Stopped | ToolIndex.ToolIndexError
    >()
  })

  describe("options that cannot work throw a TypeError at the call", () => {
    const tools = ToolSet.make(Add)
    const run = (options: Record<string, unknown>) => () =>
      ToolLoop.run({ tools, prompt: "hi", ...options } as unknown as ToolLoop.Options<typeof tools>)

    it("maxTurns 0, negative, fractional, NaN, infinite or not a number", () => {
      for (const maxTurns of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "3", null]) {
        assert.throws(
          run({ maxTurns }),
          TypeError,
          `ToolLoop.run: \`maxTurns\` must be a whole number of one or more, not ${String(maxTurns)}`
        )
      }
    })

    it.prop("maxTurns is accepted exactly when it is a whole number of one or more", [Schema.Number], ([maxTurns]) => {
      const valid = Number.isInteger(maxTurns) && maxTurns >= 1
      let threw = false
      try {
        run({ maxTurns })()
      } catch (error) {
        threw = error instanceof TypeError
      }
      assert.strictEqual(threw, !valid, String(maxTurns))
    })

    it("the other options", () => {
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ concurrency: 0 }, "`concurrency` must be a whole number of one or more, or \"unbounded\", not 0"],
        [{ concurrency: "all" }, "`concurrency` must be a whole number of one or more, or \"unbounded\", not all"],
        [{ topK: 0 }, "`topK` must be a whole number of one or more, not 0"],
        [{ tools: [Add] }, "`tools` must be a ToolSet or a ToolServer"],
        [{ model: { generateText: () => Effect.void } }, "`model` must be a LanguageModel service"],
        [{ prompt: 42 }, "`prompt` must be a string, messages, or a Prompt"],
        [{ prompt: [{ role: "wizard", content: "hi" }] }, "`prompt` holds messages that are not messages"]
      ]
      for (const [options, message] of cases) assert.throws(run(options), TypeError, `ToolLoop.run: ${message}`)
      assert.throws(() => ToolLoop.run(null as never), TypeError, "ToolLoop.run: the options must be an object")
    })
  })

  it.effect.prop(
    "any batch of calls, to known tools or not, with any JSON arguments, gets one result per call in call order",
    [Schema.Array(Schema.Struct({ name: Schema.Literals(["add", "get_weather", "missing"]), args: Schema.Json }))],
    ([batch]) =>
      Effect.gen(function*() {
        const turns: ReadonlyArray<ScriptedTurn> = [
          batch.map(({ name, args }, i) => call(name, args, `c${i}`)),
          "done"
        ]
        const out = yield* Effect.provide(
          ToolLoop.run({ tools: ToolSet.make(Add, GetWeather), prompt: "go" }),
          scriptedModel(batch.length === 0 ? ["done"] : turns)
        )
        assert.strictEqual(out.text, "done")
        assert.deepStrictEqual(out.toolResults.map((r) => r.callId), batch.map((_, i) => `c${i}`))
        if (batch.length > 0) {
          const answered = out.transcript.content[2]!
          assert.strictEqual(answered.role, "tool")
          assert.deepStrictEqual(
            (answered as Prompt.ToolMessage).content.map((part) => part.type === "tool-result" && part.id),
            batch.map((_, i) => `c${i}`)
          )
        }
      }),
    { arbitrary: { runs: 60 } }
  )
})

// ---------------------------------------------------------------------------------------------------------------
// Calls the loop answers without running them

describe("ToolLoop.run answers without running", () => {
  const approvalNeeded = "this tool needs a human's approval before it runs, and none can be asked for here: it did not run"
  let wiped = 0
  const Wipe = Tool.make("wipe", {
    description: "Wipe the disk",
    parameters: Schema.Struct({ disk: Schema.String }),
    annotations: { needsApproval: true },
    call: ({ disk }) => Effect.sync(() => `wiped ${disk} (${++wiped})`)
  })

  it.effect("a call to a needsApproval tool over a tool set: denied, never run; other calls run, in call order", () =>
    Effect.gen(function*() {
      wiped = 0
      const out = yield* ToolLoop.run({ tools: ToolSet.make(Add, Wipe), prompt: "clean up" })
      assert.strictEqual(wiped, 0)
      assert.deepStrictEqual(encode(out.transcript)[2], tool(
        jsonResult("c1", "add", { value: 3 }),
        failed("c2", "wipe", `Tool call denied: ${approvalNeeded}`),
        failed("c3", "wipe", "Tool call failed (invalid_args): tool arguments did not match the schema:\n- $.disk: " +
          "Expected string")
      ))
      assert.deepStrictEqual(
        out.toolResults.map((r) => [r.callId, r.status, Option.getOrUndefined(Option.map(r.error, (e) => e.kind))]),
        [["c1", "success", undefined], ["c2", "denied", "permission_denied"], ["c3", "error", "invalid_args"]]
      )
      assert.strictEqual(out.text, "I may not wipe it.")
    }).pipe(Effect.provide(scriptedModel([
      [call("add", { left: 1, right: 2 }, "c1"), call("wipe", { disk: "sda" }, "c2"), call("wipe", { disk: 1 }, "c3")],
      "I may not wipe it."
    ]))))

  it.effect("over a tool server, its approval hook decides: an approved call to a needsApproval tool runs", () =>
    Effect.gen(function*() {
      wiped = 0
      const approve = ToolHooks.approval({ decide: () => Effect.succeed(ToolHooks.approve) })
      const out = yield* serve(
        { tools: ToolSet.make(Wipe), hooks: [approve] },
        (server) => ToolLoop.run({ tools: server, prompt: "clean up" })
      )
      assert.strictEqual(wiped, 1)
      assert.deepStrictEqual(
        encode(out.transcript)[2],
        tool(result("c1", "wipe", false, "wiped sda (1)", "wiped sda (1)"))
      )
    }).pipe(Effect.provide(scriptedModel([[call("wipe", { disk: "sda" }, "c1")], "Done."]))))

  it.effect("a deferred approval, decided later: settle puts resume's result in place of the pending answer", () =>
    Effect.gen(function*() {
      wiped = 0
      yield* serve({ tools: ToolSet.make(Wipe, Add), hooks: [deferEvery] }, (server) =>
        Effect.gen(function*() {
          const first = yield* ToolLoop.run({ tools: server, prompt: "clean up" })
          assert.strictEqual(wiped, 0)
          const pending = pendingApprovals(first.toolResults)
          assert.deepStrictEqual(pending.map((p) => p.callId), ["c1"])
          const decided = yield* Effect.forEach(pending, (approval) => server.resume(approval, ToolHooks.approve))
          assert.strictEqual(wiped, 1)
          const settled = ToolLoop.settle(first.transcript, decided)
          const before = encode(first.transcript)
          const after = encode(settled)
          // Only the pending answer changed: the add beside it, and every other message, are as they were.
          assert.deepStrictEqual(after, [
            before[0],
            before[1],
            tool(result("c1", "wipe", false, "wiped sda (1)", "wiped sda (1)"), jsonResult("c2", "add", { value: 3 })),
            before[3]
          ])
          assert.notDeepEqual((before[2] as { content: ReadonlyArray<unknown> }).content[0], (after[2] as {
            content: ReadonlyArray<unknown>
          }).content[0])
          // The settled transcript runs on: the model reads it whole.
          const next = yield* ToolLoop.run({
            tools: server,
            prompt: Prompt.concat(settled, Prompt.make("It was approved."))
          })
          assert.strictEqual(next.text, "Wiped.")
          assert.deepStrictEqual(encode((yield* requests)[2]!.prompt).slice(0, 4), after)
        }))
    }).pipe(Effect.provide(scriptedModel([
      [call("wipe", { disk: "sda" }, "c1"), call("add", { left: 1, right: 2 }, "c2")],
      "Waiting for approval.",
      "Wiped."
    ]))))

  it.effect("settle replaces the pending answer of its call alone: not another turn's, not a repeat's", () =>
    Effect.gen(function*() {
      wiped = 0
      yield* serve({ tools: ToolSet.make(Wipe, Add), hooks: [deferEvery] }, (server) =>
        Effect.gen(function*() {
          // Turn 1: `add` answered under the id c1; turn 2: `wipe` deferred, under c1 again, and repeated.
          const first = yield* ToolLoop.run({ tools: server, prompt: "clean up" })
          const pending = pendingApprovals(first.toolResults)
          assert.deepStrictEqual(pending.map((p) => [p.callId, p.toolName]), [["c1", "wipe"]])
          const decided = yield* Effect.forEach(pending, (approval) => server.resume(approval, ToolHooks.approve))
          const before = encode(first.transcript)
          const repeat = failed(
            "c1",
            "wipe",
            "Tool call failed (invalid_args): another call of this turn has the same id; only the first of them was run"
          )
          assert.deepStrictEqual(before[4], tool(
            failed(
              "c1",
              "wipe",
              "Tool call skipped: this call needs a human's approval: it has not run, and its result will come later"
            ),
            repeat
          ))
          assert.deepStrictEqual(encode(ToolLoop.settle(first.transcript, decided)), [
            ...before.slice(0, 4),
            tool(result("c1", "wipe", false, "wiped sda (1)", "wiped sda (1)"), repeat),
            before[5]
          ])
        }))
    }).pipe(Effect.provide(scriptedModel([
      [call("add", { left: 1, right: 2 }, "c1")],
      [call("wipe", { disk: "sda" }, "c1"), call("wipe", { disk: "sdb" }, "c1")],
      "Waiting for approval."
    ]))))

  it.effect("settle refuses a result two pending answers could be for: a reused id, the same tool, two turns", () =>
    Effect.gen(function*() {
      yield* serve({ tools: ToolSet.make(Wipe), hooks: [deferEvery] }, (server) =>
        Effect.gen(function*() {
          const first = yield* ToolLoop.run({ tools: server, prompt: "clean up" })
          const pending = pendingApprovals(first.toolResults)
          assert.deepStrictEqual(pending.map((p) => p.callId), ["c1", "c1"])
          const decided = yield* server.resume(pending[1]!, ToolHooks.approve)
          assert.throws(
            () => ToolLoop.settle(first.transcript, [decided]),
            TypeError,
            "ToolLoop.settle: two answers could be the one to the call `c1` of `wipe`: its id was reused"
          )
        }))
    }).pipe(Effect.provide(scriptedModel([
      [call("wipe", { disk: "sda" }, "c1")],
      [call("wipe", { disk: "sdb" }, "c1")],
      "Waiting for approval."
    ]))))

  it("settle refuses a result the transcript does not answer, two results for one call, and what is not one", () => {
    const transcript = Prompt.fromMessages([
      Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: "hi" })] })
    ])
    const resultFor = (callId: string) =>
      new ToolResult.ToolResult({
        callId,
        name: "add",
        arguments: {},
        status: "success",
        output: ToolOutput.json({ value: 1 }),
        error: Option.none(),
        metadata: Context.empty(),
        durationMs: 0
      })
    assert.throws(
      () => ToolLoop.settle(transcript, [resultFor("c9")]),
      TypeError,
      "ToolLoop.settle: the transcript has no skipped answer to a call `c9` of `add`"
    )
    assert.throws(
      () => ToolLoop.settle(transcript, [resultFor("c1"), resultFor("c1")]),
      TypeError,
      "ToolLoop.settle: two results are for the call `c1`"
    )
    assert.throws(
      () => ToolLoop.settle(transcript, [{ callId: "c1" } as unknown as ToolResult.ToolResult]),
      TypeError,
      "ToolLoop.settle: every result must be a ToolResult"
    )
    assert.throws(
      () => ToolLoop.settle([] as unknown as Prompt.Prompt, []),
      TypeError,
      "ToolLoop.settle: `transcript` must be a Prompt"
    )
    // Nothing to settle: the same messages.
    assert.deepStrictEqual(encode(ToolLoop.settle(transcript, [])), encode(transcript))
  })

  it.effect.prop(
    "a prompt from effect/ai's approval flow: each decided call is answered once, where it was made; the loop goes on",
    // Approved or denied; the decision last in the prompt, or followed by a user message.
    [Schema.Boolean, Schema.Boolean],
    ([approved, goOn]) =>
      Effect.gen(function*() {
        wiped = 0
        const set = ToolSet.make(Wipe, Add)
        // effect/ai asks for the approval of the call to `wipe`, and a human answers.
        const asked = yield* Effect.provide(
          LanguageModel.generateText({ prompt: "clean up", toolkit: AiToolkit.fromToolSet(set) }),
          scriptedModel([[call("wipe", { disk: "sda" }, "w1")]])
        )
        const request = asked.content.find((part) => part.type === "tool-approval-request")!
        const prompt = Prompt.fromMessages([
          ...Prompt.concat(Prompt.make("clean up"), Prompt.fromResponseParts(asked.content)).content,
          Prompt.makeMessage("tool", {
            content: [
              Prompt.makePart("tool-approval-response", {
                approvalId: request.approvalId,
                approved,
                ...(approved ? {} : { reason: "not today" })
              })
            ]
          }),
          ...(goOn ? Prompt.make("go on").content : [])
        ])
        const [out, sent] = yield* Effect.all([ToolLoop.run({ tools: set, prompt }), requests]).pipe(
          Effect.provide(scriptedModel([[call("add", { left: 1, right: 2 }, "c1")], "Done."]))
        )
        assert.strictEqual(wiped, approved ? 1 : 0)
        const answer = approved
          ? result("w1", "wipe", false, "wiped sda (1)", "wiped sda (1)")
          : failed("w1", "wipe", "Tool call denied: not today")
        const encoded = encode(prompt)
        const response = (encoded[2] as { content: ReadonlyArray<unknown> }).content
        // The answer joins the decision, right after the call; the rest of the transcript is the loop's own.
        assert.deepStrictEqual(encode(out.transcript), [
          ...encoded.slice(0, 2),
          tool(...response, answer),
          ...encoded.slice(3),
          assistant(toolCall("c1", "add", { left: 1, right: 2 })),
          tool(jsonResult("c1", "add", { value: 3 })),
          assistantText("Done.")
        ])
        assert.deepStrictEqual(out.toolResults.map((r) => [r.callId, r.status]), [
          ["w1", approved ? "success" : "denied"],
          ["c1", "success"]
        ])
        // The model is sent the answer where it was made, without effect/ai's approval parts, which it resolved.
        assert.deepStrictEqual(encode(sent[0]!.prompt), [
          encoded[0],
          assistant(toolCall("w1", "wipe", { disk: "sda" })),
          tool(answer),
          ...encoded.slice(3)
        ])
      }),
    { arbitrary: { runs: 8 } }
  )

  /** A model that calls `add` once, its response finishing with `reason` (no finish for `undefined`), then answers. */
  const finishingWith = (reason: Response.FinishReason | undefined) => {
    const usage = new Response.Usage({ inputTokens: {}, outputTokens: {} })
    let asked = 0
    return {
      [LanguageModel.TypeId]: LanguageModel.TypeId,
      generateText: () =>
        Effect.succeed(
          new LanguageModel.GenerateTextResponse(
            asked++ > 0
              ? [Response.makePart("text", { text: "done" })]
              : [
                Response.makePart("tool-call", {
                  id: "c1",
                  name: "add",
                  params: { left: 1, right: 2 },
                  providerExecuted: false
                }),
                ...(reason === undefined ? [] : [Response.makePart("finish", { reason, usage, response: undefined })])
              ]
          )
        )
    } as unknown as LanguageModel.LanguageModel
  }

  let added = 0
  const Counted = Tool.make("add", {
    description: "Add two integers",
    parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
    call: ({ left, right }) => Effect.sync(() => (added++, left + right))
  })

  it.effect("the calls of a response cut off (length): skipped, never run, and the model is asked again", () =>
    Effect.gen(function*() {
      added = 0
      const out = yield* ToolLoop.run({ model: finishingWith("length"), tools: ToolSet.make(Counted), prompt: "add" })
      assert.strictEqual(added, 0)
      assert.deepStrictEqual(encode(out.transcript), [
        user("add"),
        assistant(toolCall("c1", "add", { left: 1, right: 2 })),
        tool(failed("c1", "add", "Tool call skipped: the response was cut off (length); the call was not run")),
        assistantText("done")
      ])
      assert.deepStrictEqual([out.turns, out.toolResults.map((r) => r.status)], [2, ["skipped"]])
    }))

  it.effect("a model whose answers are at hand and are always cut off runs out of turns, not of stack", () =>
    Effect.gen(function*() {
      const usage = new Response.Usage({ inputTokens: {}, outputTokens: {} })
      let asked = 0
      const model = {
        [LanguageModel.TypeId]: LanguageModel.TypeId,
        generateText: () =>
          Effect.succeed(
            new LanguageModel.GenerateTextResponse([
              Response.makePart("tool-call", { id: `c${++asked}`, name: "add", params: {}, providerExecuted: false }),
              Response.makePart("finish", { reason: "length", usage, response: undefined })
            ])
          )
      } as unknown as LanguageModel.LanguageModel
      const maxTurns = 5000
      const exit = yield* Effect.exit(ToolLoop.run({ model, tools: ToolSet.make(Add), prompt: "add", maxTurns }))
      const error = failureOf(exit)
      assert.isTrue(error instanceof ToolLoop.MaxTurnsExceeded)
      const exceeded = error as ToolLoop.MaxTurnsExceeded
      assert.deepStrictEqual(
        [asked, exceeded.toolResults.length, new Set(exceeded.toolResults.map((r) => r.status))],
        [maxTurns, maxTurns, new Set(["skipped"])]
      )
    }))

  it.effect.prop(
    "a call runs exactly when its response finished as effect/ai runs calls: stop, tool-calls, pause, or no finish",
    [Schema.UndefinedOr(Response.FinishReason)],
    ([reason]) =>
      Effect.gen(function*() {
        added = 0
        const out = yield* ToolLoop.run({ model: finishingWith(reason), tools: ToolSet.make(Counted), prompt: "add" })
        const runs = reason === undefined || reason === "stop" || reason === "tool-calls" || reason === "pause"
        assert.deepStrictEqual([added, out.toolResults[0]!.status], runs ? [1, "success"] : [0, "skipped"])
        if (!runs) {
          assert.deepStrictEqual(
            ToolOutput.asText(out.toolResults[0]!.output),
            Option.some(`the response was cut off (${reason}); the call was not run`)
          )
        }
      })
  )

  it.effect("an output with nothing to read is shown as our adapters show it: no blank text, or a placeholder", () =>
    Effect.gen(function*() {
      const Quiet = Tool.make("quiet", {
        description: "Says nothing, or shows a picture without a caption",
        parameters: Schema.Struct({ how: Schema.Literals(["empty", "blank image", "denied"]) }),
        call: ({ how }): Effect.Effect<unknown, ToolExecutionError.ToolExecutionError> =>
          how === "empty"
            ? Effect.succeed("")
            : how === "blank image"
            ? Effect.succeed(
              [ToolResultContent.text(" \n"), ToolResultContent.imageBase64(pixel, "image/png")] as const
            )
            : Effect.fail(ToolExecutionError.withModelOutput(ToolExecutionError.refused("no"), ToolOutput.text("")))
      })
      const out = yield* ToolLoop.run({ tools: ToolSet.make(Quiet), prompt: "go" })
      assert.deepStrictEqual(encode(out.transcript)[2], tool(
        result("c1", "quiet", false, "(empty result)", "(empty result)"),
        {
          options: {},
          type: "tool-result",
          id: "c2",
          name: "quiet",
          isFailure: false,
          result: "[image/png omitted]",
          modelOutput: [{ options: {}, type: "file", mediaType: "image/png", data: pixel }],
          providerExecuted: false
        },
        failed("c3", "quiet", "Tool call denied")
      ))
    }).pipe(Effect.provide(scriptedModel([
      [call("quiet", { how: "empty" }, "c1"), call("quiet", { how: "blank image" }, "c2"), call("quiet", {
        how: "denied"
      }, "c3")],
      "ok"
    ]))))
})

describe("the tools ToolLoop.run takes", () => {
  it("a tool server or a tool set, not a look-alike; topK with a tool server only", () => {
    const set = ToolSet.make(Add)
    const lookAlike = { executeAll: () => Effect.succeed([]), snapshot: () => Effect.die("no") }
    // @ts-expect-error: an object with a server's methods is not a ToolServer
    assert.throws(() => ToolLoop.run({ tools: lookAlike, prompt: "hi" }), TypeError, "`tools` must be a ToolSet")
    // @ts-expect-error: a tool set offers all its tools every turn
    assert.throws(() => ToolLoop.run({ tools: set, prompt: "hi", topK: 3 }), TypeError, "`topK` selects a tool server")
    const program = Effect.flatMap(Tools, (server) => ToolLoop.run({ tools: server, prompt: "hi", topK: 3 }))
    expectTypeOf<Effect.Services<typeof program>>().toEqualTypeOf<Tools | LanguageModel.LanguageModel>()
  })
})

describe("the transcript's parts and messages", () => {
  const metadata = { provider: { cached: true } }
  const responses: ReadonlyArray<readonly [string, ReadonlyArray<Response.Part<{}, "deferred">>]> = [
    ["text and calls", [
      Response.makePart("text", { text: "Let me see.", metadata }),
      Response.makePart("reasoning", { text: "two calls" }),
      Response.makePart("tool-call", { id: "a", name: "add", params: { left: 1 }, providerExecuted: false, metadata }),
      Response.makePart("tool-call", { id: "b", name: "nope", params: "{broken", providerExecuted: false }),
      Response.makePart("finish", { reason: "tool-calls", usage: new Response.Usage({ inputTokens: {}, outputTokens: {} }) })
    ]],
    ["only a finish", [
      Response.makePart("finish", { reason: "stop", usage: new Response.Usage({ inputTokens: {}, outputTokens: {} }) })
    ]],
    ["a file the model made", [
      Response.makePart("text", { text: "Here." }),
      Response.makePart("file", { mediaType: "image/png", data: new Uint8Array([1, 2, 3]) })
    ]]
  ]

  /** The same object to any reader: fields, brand and prototype. */
  const assertSame = (made: unknown, theirs: unknown) => {
    assert.deepStrictEqual(made, theirs)
    assert.strictEqual(Object.getPrototypeOf(made), Object.getPrototypeOf(theirs))
    assert.deepStrictEqual(Object.keys(made as object).sort(), Object.keys(theirs as object).sort())
  }

  it("every part and message is the object effect/ai's own constructor makes", () => {
    const options = { provider: { cached: true } }
    const output = [Prompt.textPart({ text: "shown" })]
    const cases: ReadonlyArray<readonly [string, unknown, unknown]> = [
      ["text", textPart("hi"), Prompt.textPart({ text: "hi" })],
      ["text with options", textPart("hi", options), Prompt.textPart({ text: "hi", options })],
      ["reasoning", reasoningPart("hmm", options), Prompt.makePart("reasoning", { text: "hmm", options })],
      ["file", filePart("image/png", pixel, undefined), Prompt.filePart({ mediaType: "image/png", data: pixel })],
      [
        "named file by URL",
        filePart("application/pdf", new URL("https://example.com/a.pdf"), "a.pdf"),
        Prompt.filePart({ mediaType: "application/pdf", data: new URL("https://example.com/a.pdf"), fileName: "a.pdf" })
      ],
      [
        "tool call",
        toolCallPart("c1", "add", { left: 1 }, false, options),
        Prompt.makePart("tool-call", { id: "c1", name: "add", params: { left: 1 }, providerExecuted: false, options })
      ],
      [
        "tool result without model output",
        toolResultPart("c1", "add", false, 1, undefined),
        Prompt.toolResultPart({ id: "c1", name: "add", isFailure: false, result: 1, providerExecuted: false })
      ],
      [
        "tool result with model output",
        toolResultPart("c1", "add", true, "shown", output),
        Prompt.toolResultPart({
          id: "c1",
          name: "add",
          isFailure: true,
          result: "shown",
          modelOutput: output,
          providerExecuted: false
        })
      ],
      ["user message", userMessage([textPart("hi")]), Prompt.makeMessage("user", { content: [textPart("hi")] })],
      [
        "assistant message",
        assistantMessage([textPart("hi")]),
        Prompt.makeMessage("assistant", { content: [textPart("hi")] })
      ],
      ["tool message", toolMessage([]), Prompt.makeMessage("tool", { content: [] })]
    ]
    for (const [what, made, theirs] of cases) {
      assertSame(made, theirs)
      assert.strictEqual(Prompt.isPart(made) || Prompt.isMessage(made), true, what)
    }
  })

  it.prop(
    "a text part is effect/ai's, whatever its text",
    [Schema.String],
    ([text]) => assertSame(textPart(text), Prompt.textPart({ text }))
  )

  it("a model's turn is the message effect/ai's Prompt.fromResponseParts makes", () => {
    for (const [what, content] of responses) {
      const built = assistantMessages(content)
      assertSame(built, Prompt.fromResponseParts(content).content)
      for (const [i, message] of built.entries()) {
        assertSame(message, Prompt.fromResponseParts(content).content[i])
        assert.isTrue(Prompt.isMessage(message), what)
      }
    }
  })

  const resultOf = (status: ToolResult.Status, output: ToolOutput.ToolOutput) =>
    ToolResult.make({
      callId: "c1",
      name: "tool",
      arguments: {},
      status,
      output,
      error: Option.none(),
      metadata: Context.empty(),
      durationMs: 0
    })

  it("a result is the part effect/ai's constructors make, and the tool message around it is theirs too", () => {
    const output = ToolOutput.content([ToolResultContent.text("a chart"), ToolResultContent.imageBase64(pixel, "image/png")])
    const part = toolResultPartOf(resultOf("success", output))
    assert.deepStrictEqual(part, Prompt.toolResultPart({
      id: "c1",
      name: "tool",
      isFailure: false,
      result: "a chart\n[image/png omitted]",
      modelOutput: modelParts(output),
      providerExecuted: false
    }))
    assert.isTrue(Prompt.isPart(part))
    assert.deepStrictEqual(toolMessage([part]), Prompt.makeMessage("tool", { content: [part] }))
  })

  const Block = Schema.Union([Schema.String, Schema.Struct({ json: Schema.Json })])

  it.prop(
    "an output of text and JSON is shown to the model as the one mapping shows it; a lone JSON value is the result",
    [Schema.NonEmptyArray(Block)],
    ([blocks]) => {
      const content = blocks.map((block) =>
        typeof block === "string" ? ToolResultContent.text(block) : ToolResultContent.json(block.json)
      )
      const output = ToolOutput.content([content[0]!, ...content.slice(1)])
      const part = toolResultPartOf(resultOf("success", output))
      const first = blocks[0]
      if (blocks.length === 1 && typeof first !== "string") {
        assert.deepStrictEqual([part.result, part.modelOutput], [first.json, undefined])
      } else {
        assert.deepStrictEqual(part.modelOutput, modelParts(output))
      }
    },
    { arbitrary: { runs: 100 } }
  )
})
