import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema, Stream } from "effect"
import { AiError, LanguageModel, Prompt, Tool as AiTool, Toolkit } from "effect/ai"
import {
  isScriptExhausted,
  ScriptedModel,
  scriptedModel,
  type ScriptedTurn
} from "../../src/testing/scriptedModel.ts"

const GetWeather = AiTool.make("get_weather", {
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String })
})

/** The toolkit of a request: resolution is off in every test, so its handlers are never asked for. */
const toolkit = Effect.provide(Toolkit.make(GetWeather), Toolkit.make(GetWeather).toLayer({
  get_weather: () => Effect.void
}))

/** A response's content as plain values: type, and the fields each type is asserted on. */
const summarize = (content: ReadonlyArray<{ readonly type: string }>) =>
  content.map((part) => {
    const fields = part as unknown as Record<string, unknown>
    switch (part.type) {
      case "text":
        return { type: "text", text: fields.text }
      case "tool-call":
        return { type: "tool-call", id: fields.id, name: fields.name, params: fields.params }
      case "finish":
        return { type: "finish", reason: fields.reason }
      default:
        return { type: part.type }
    }
  })

const deferred = { disableToolCallResolution: true, toolCallValidation: "deferred" } as const

describe("scriptedModel", () => {
  it.effect("replays the turns in order: text, calls with their ids and arguments, the finish a provider sends", () =>
    Effect.gen(function*() {
      const first = yield* LanguageModel.generateText({ prompt: "weather?", toolkit, ...deferred })
      const second = yield* LanguageModel.generateText({ prompt: "and now?", toolkit, ...deferred })
      assert.deepStrictEqual(summarize(first.content), [
        { type: "text", text: "Let me look." },
        { type: "tool-call", id: "call_1_2", name: "get_weather", params: { city: "Paris" } },
        { type: "tool-call", id: "mine", name: "get_weather", params: { city: "Oslo" } },
        { type: "tool-call", id: "call_1_4", name: "add", params: "{\"left\": 1," },
        { type: "tool-call", id: "call_1_5", name: "get_weather", params: {} },
        { type: "finish", reason: "tool-calls" }
      ])
      assert.deepStrictEqual(summarize(second.content), [
        { type: "text", text: "Sunny in Paris." },
        { type: "finish", reason: "stop" }
      ])
      assert.strictEqual(second.text, "Sunny in Paris.")
      assert.strictEqual((yield* (yield* ScriptedModel).remaining), 0)
    }).pipe(Effect.provide(scriptedModel([
      [
        { type: "text", text: "Let me look." },
        { type: "tool-call", name: "get_weather", params: { city: "Paris" } },
        { type: "tool-call", id: "mine", name: "get_weather", paramsText: "{\"city\":\"Oslo\"}" },
        { type: "tool-call", name: "add", paramsText: "{\"left\": 1," },
        { type: "tool-call", name: "get_weather" }
      ],
      "Sunny in Paris."
    ]))))

  it.effect("records every request: the prompt, the tools offered with their JSON Schema, the tool choice", () =>
    Effect.gen(function*() {
      yield* LanguageModel.generateText({ prompt: "weather in Paris?", toolkit, toolChoice: "required", ...deferred })
      const history = Prompt.make([
        { role: "user", content: "weather in Paris?" },
        { role: "assistant", content: [{ type: "text", text: "Sunny." }] },
        { role: "user", content: "thanks" }
      ])
      yield* LanguageModel.generateText({ prompt: history })
      const requests = yield* (yield* ScriptedModel).requests
      assert.deepStrictEqual(requests.map((request) => [request.turn, request.method, request.toolChoice]), [
        [1, "generateText", "required"],
        [2, "generateText", "none"]
      ])
      assert.deepStrictEqual(requests[0]!.prompt.content, Prompt.make("weather in Paris?").content)
      assert.deepStrictEqual(requests[1]!.prompt.content, history.content)
      assert.deepStrictEqual(requests[0]!.tools, [{
        name: "get_weather",
        description: "The weather in a city",
        parameters: AiTool.getJsonSchema(GetWeather)
      }])
      assert.deepStrictEqual(requests[1]!.tools, [])
    }).pipe(Effect.provide(scriptedModel(["Sunny.", "You are welcome."]))))

  it.effect("a request past the end of the script fails with a typed error that says so, and is recorded", () =>
    Effect.gen(function*() {
      yield* LanguageModel.generateText({ prompt: "one" })
      const exit = yield* Effect.exit(LanguageModel.generateText({ prompt: "two" }))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      assert.strictEqual(error?._tag, "Fail")
      const failure = error?._tag === "Fail" ? error.error : undefined
      assert.isTrue(isScriptExhausted(failure))
      assert.strictEqual(
        (failure as AiError.AiError).message,
        "ScriptedModel.generateText: Invalid request. request 2 has no scripted turn: the script has 1"
      )
      assert.isFalse(isScriptExhausted(AiError.make({
        module: "ScriptedModel",
        method: "generateText",
        reason: new AiError.UnknownError({})
      })))
      const recording = yield* ScriptedModel
      assert.deepStrictEqual((yield* recording.requests).map((request) => request.turn), [1, 2])
      assert.strictEqual(yield* recording.remaining, 0)
    }).pipe(Effect.provide(scriptedModel(["only one"]))))

  it.effect("streams a turn as a provider does: text deltas, then the calls and the finish", () =>
    Effect.gen(function*() {
      const parts = yield* LanguageModel.streamText({ prompt: "weather?", toolkit, ...deferred }).pipe(
        Stream.runCollect
      )
      assert.deepStrictEqual(
        parts.map((part) =>
          part.type === "text-delta"
            ? ["text-delta", part.delta]
            : part.type === "tool-call"
            ? ["tool-call", part.name, part.params]
            : [part.type]
        ),
        [
          ["text-start"],
          ["text-delta", "Looking."],
          ["text-end"],
          ["tool-call", "get_weather", { city: "Rome" }],
          ["finish"]
        ]
      )
      assert.deepStrictEqual(
        (yield* (yield* ScriptedModel).requests).map((request) => request.method),
        ["streamText"]
      )
    }).pipe(Effect.provide(scriptedModel([[
      { type: "text", text: "Looking." },
      { type: "tool-call", name: "get_weather", params: { city: "Rome" } }
    ]]))))

  it.effect("a call to a tool that was not offered is refused by strict validation, and sent on when deferred", () =>
    Effect.gen(function*() {
      const strict = yield* Effect.exit(LanguageModel.generateText({ prompt: "go", toolkit }))
      assert.isTrue(Exit.isFailure(strict))
      const deferredResponse = yield* LanguageModel.generateText({ prompt: "go", toolkit, ...deferred })
      assert.deepStrictEqual(
        deferredResponse.toolCalls.map((call) => [call.name, call.params]),
        [["delete_everything", {}]]
      )
    }).pipe(Effect.provide(scriptedModel([
      [{ type: "tool-call", name: "delete_everything" }],
      [{ type: "tool-call", name: "delete_everything" }]
    ]))))

  it.effect("each build of the layer starts its script from the beginning, with its own recording", () => {
    const layer = scriptedModel(["first", "second"])
    const firstText = Effect.map(LanguageModel.generateText({ prompt: "hi" }), (response) => response.text)
    return Effect.gen(function*() {
      assert.strictEqual(yield* Effect.provide(firstText, layer), "first")
      assert.strictEqual(yield* Effect.provide(firstText, layer), "first")
    })
  })

  it.effect.prop(
    "any script of text turns is replayed turn for turn, and then runs out",
    [Schema.Array(Schema.String)],
    ([texts]) =>
      Effect.gen(function*() {
        const replayed: Array<string> = []
        for (const _ of texts) replayed.push((yield* LanguageModel.generateText({ prompt: "next" })).text)
        assert.deepStrictEqual(replayed, texts)
        const exit = yield* Effect.exit(LanguageModel.generateText({ prompt: "more" }))
        const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
        assert.isTrue(reason?._tag === "Fail" && isScriptExhausted(reason.error))
      }).pipe(Effect.provide(scriptedModel(texts))),
    { arbitrary: { runs: 50 } }
  )

  it("refuses a script that is not one, with a TypeError that says where", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      ["not an array", "scriptedModel: turns must be an array"],
      [[42], "scriptedModel: turn 1 must be a string or an array of parts"],
      [["ok", [null]], "scriptedModel: turn 2, part 1 is not a part"],
      [[[{ type: "image" }]], "scriptedModel: turn 1, part 1 has type image, not text or tool-call"],
      [[[{ type: "text", text: 1 }]], "scriptedModel: turn 1, part 1: text must be a string"],
      [[[{ type: "tool-call" }]], "scriptedModel: turn 1, part 1: a tool call needs a name"],
      [[[{ type: "tool-call", name: "x", id: 7 }]], "scriptedModel: turn 1, part 1: id must be a string"],
      [
        [[{ type: "tool-call", name: "x", params: {}, paramsText: "{}" }]],
        "scriptedModel: turn 1, part 1 has both params and paramsText; give one"
      ],
      [
        [[{ type: "tool-call", name: "x", paramsText: 3 }]],
        "scriptedModel: turn 1, part 1: paramsText must be a string"
      ]
    ]
    for (const [script, message] of cases) {
      assert.throws(() => scriptedModel(script as ReadonlyArray<ScriptedTurn>), TypeError, message)
    }
  })
})
