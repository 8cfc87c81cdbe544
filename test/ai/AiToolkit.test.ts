import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Cause, Context, Data, Effect, Exit, Layer, Option, Result, Schema, SchemaTransformation, Stream } from "effect"
import { AiError, LanguageModel, Prompt, Tool as AiTool, Toolkit } from "effect/ai"
import { Add, CurrentUser, GetWeather, RenderChart, TransferFunds } from "../../examples/tools.ts"
import * as AiToolkit from "../../src/ai/AiToolkit.ts"
import { modelParts, outputOfParts } from "../../src/ai/internal/modelOutput.ts"
import {
  DynamicTool,
  OpenAiChat,
  Tool,
  ToolCall,
  ToolDefinition,
  ToolExecutionError,
  ToolOutput,
  ToolResultContent,
  ToolSet
} from "../../src/index.ts"
import { ScriptedModel, scriptedModel, type ScriptedPart } from "../../src/testing/scriptedModel.ts"
import { withoutNegativeZero } from "../support/json.ts"
import { errorOf, summarizeResult } from "../support/results.ts"
import { CurrentUser as User, Database, Locale, Whoami } from "../support/userTools.ts"

// ---------------------------------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------------------------------

/** A model-output part as comparable data. */
const outputPart = (part: Prompt.ToolModelOutputPart) =>
  part.type === "text"
    ? { type: "text", text: part.text }
    : {
      type: "file",
      mediaType: part.mediaType,
      data: part.data instanceof URL ? `url:${part.data.href}` : part.data,
      fileName: part.fileName
    }

/** What the model was sent back for one call: a tool-result part of the next request's prompt. */
const sentBack = (part: Prompt.ToolResultPart) => ({
  id: part.id,
  name: part.name,
  isFailure: part.isFailure,
  result: part.result,
  modelOutput: part.modelOutput?.map(outputPart)
})

/** The tool-result parts of the last tool message of a prompt. */
const toolResultsOf = (prompt: Prompt.Prompt) => {
  const messages = prompt.content.filter((message): message is Prompt.ToolMessage => message.role === "tool")
  const message = messages[messages.length - 1]
  assert.isDefined(message, "the prompt has no tool message")
  return message!.content.flatMap((part) => part.type === "tool-result" ? [sentBack(part)] : [])
}

/**
 * Two turns: the model calls `calls`, `generateText` resolves them with the toolkit, and the transcript goes back to
 * the model, which answers. Returns the first response and what the model was sent back for the calls.
 */
const converse = <Tools extends Record<string, AiTool.Any>>(
  toolkit: AiToolkit.AiToolkit<Tools>,
  calls: ReadonlyArray<ScriptedPart>
) =>
  Effect.gen(function*() {
    const first = yield* LanguageModel.generateText({ prompt: "go", toolkit })
    const prompt = Prompt.concat(Prompt.make("go"), Prompt.fromResponseParts(first.content))
    yield* LanguageModel.generateText({ prompt, toolkit })
    const requests = yield* (yield* ScriptedModel).requests
    return { first, requests, sentBack: toolResultsOf(requests[1]!.prompt) }
  }).pipe(Effect.provide(scriptedModel([calls, "done"])))

const call = (name: string, params: unknown, id = "c1"): ScriptedPart => ({ type: "tool-call", id, name, params })

/** The text our dispatch shows the model for a call, straight from `ToolSet.execute`. */
const dispatchedText = <T extends Tool.Any>(set: ToolSet.ToolSet<T>, name: string, args: unknown) =>
  Effect.map(
    ToolSet.execute(set, ToolCall.make({ id: "x", name, arguments: args })),
    (result) => Option.getOrThrow(ToolOutput.asText(result.output))
  )

class Boom extends Data.TaggedError("Boom")<{ readonly secret: string }> {}

const Leaky = Tool.make("leaky", {
  description: "Fails with an error that holds a secret",
  parameters: Schema.Struct({}),
  call: () => Effect.fail(new Boom({ secret: "hunter2" }))
})

const user = { id: "u1", units: "imperial" as const, balance: 100 }

// A 1×1 transparent PNG, and a PDF's first bytes.
const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
const pdf = "JVBERi0xLjQ="

// ---------------------------------------------------------------------------------------------------------------------
// fromToolSet: our tools inside LanguageModel.generateText
// ---------------------------------------------------------------------------------------------------------------------

describe("fromToolSet", () => {
  const set = ToolSet.make(Add, RenderChart, Leaky)
  const toolkit = AiToolkit.fromToolSet(set)

  it.effect("a valid call runs through our dispatch; the model is sent our output and its JSON form", () =>
    Effect.gen(function*() {
      const { first, sentBack } = yield* converse(toolkit, [call("add", { left: 1, right: 2 })])
      assert.deepStrictEqual(sentBack, [{
        id: "c1",
        name: "add",
        isFailure: false,
        result: { value: 3 },
        modelOutput: [{ type: "text", text: "{\"value\":3}" }]
      }])
      // The application reads our output, typed.
      const [result] = first.toolResults
      assert.isTrue(result !== undefined && ToolOutput.isToolOutput(result.result))
      assert.deepStrictEqual(ToolOutput.asJson(result!.result as ToolOutput.ToolOutput), Option.some({ value: 3 }))
    }))

  it.effect("bad arguments answer with our invalid_args text, and generateText succeeds", () =>
    Effect.gen(function*() {
      const { sentBack } = yield* converse(toolkit, [
        call("add", { left: "one", right: 2 }, "c1"),
        { type: "tool-call", id: "c2", name: "add", paramsText: "{\"left\": 1," }
      ])
      const failed = "Tool call failed (invalid_args): "
      const wrongType = failed + (yield* dispatchedText(set, "add", { left: "one", right: 2 }))
      const brokenJson = failed + (yield* dispatchedText(set, "add", "{\"left\": 1,"))
      assert.deepStrictEqual(sentBack, [
        { id: "c1", name: "add", isFailure: true, result: wrongType, modelOutput: [{ type: "text", text: wrongType }] },
        {
          id: "c2",
          name: "add",
          isFailure: true,
          result: brokenJson,
          modelOutput: [{ type: "text", text: brokenJson }]
        }
      ])
      assert.include(wrongType, "$.left")
    }))

  it.effect("a tool that fails shows the model the safe default, and nothing of the error", () =>
    Effect.gen(function*() {
      const { requests, sentBack } = yield* converse(toolkit, [call("leaky", {})])
      const text = "Tool call failed (other): the tool failed"
      assert.deepStrictEqual(sentBack, [
        { id: "c1", name: "leaky", isFailure: true, result: text, modelOutput: [{ type: "text", text }] }
      ])
      assert.notInclude(JSON.stringify(requests.map((request) => request.prompt)), "hunter2")
    }))

  it.effect("a refusal is a failure result with the refusal's words", () =>
    Effect.gen(function*() {
      const { sentBack } = yield* converse(
        AiToolkit.fromToolSet(ToolSet.make(TransferFunds)),
        [call("transfer_funds", { to: "bob", amount: 20_000 })]
      ).pipe(Effect.provideService(CurrentUser, user))
      const text = "Tool call denied: transfers over 10000 need a human's approval"
      assert.deepStrictEqual(sentBack, [
        { id: "c1", name: "transfer_funds", isFailure: true, result: text, modelOutput: [{ type: "text", text }] }
      ])
    }))

  it.effect("an image output reaches the model as a file part, and the application reads our blocks", () =>
    Effect.gen(function*() {
      const { first, sentBack } = yield* converse(toolkit, [call("render_chart", { title: "Sales", values: [1, 5] })])
      assert.deepStrictEqual(sentBack, [{
        id: "c1",
        name: "render_chart",
        isFailure: false,
        result: "Sales: 2 points, max 5\n[image/png omitted]",
        modelOutput: [
          { type: "text", text: "Sales: 2 points, max 5" },
          { type: "file", mediaType: "image/png", data: pixel, fileName: undefined }
        ]
      }])
      const output = first.toolResults[0]!.result as ToolOutput.ToolOutput
      assert.deepStrictEqual(output.content.map((block) => block._tag), ["Text", "Image"])
    }))

  it.effect("effect/ai refuses a response that calls an undeclared tool, before any tool runs", () =>
    Effect.gen(function*() {
      let calls = 0
      const Counted = Tool.make("counted", {
        description: "Counts its calls",
        parameters: Schema.Struct({}),
        call: () => Effect.sync(() => ++calls)
      })
      const exit = yield* LanguageModel.generateText({
        prompt: "go",
        toolkit: AiToolkit.fromToolSet(ToolSet.make(Counted))
      }).pipe(
        Effect.provide(scriptedModel([[call("counted", {}, "c1"), call("missing", {}, "c2")]])),
        Effect.exit
      )
      assert.isTrue(Exit.isFailure(exit))
      const error = Cause.findErrorOption((exit as Exit.Failure<unknown, AiError.AiError>).cause)
      assert.deepStrictEqual(Option.map(error, (error) => error.reason._tag), Option.some("InvalidOutputError"))
      assert.strictEqual(calls, 0)
    }))

  it.effect("streamText resolves the calls through our dispatch too", () =>
    Effect.gen(function*() {
      const parts = yield* LanguageModel.streamText({ prompt: "go", toolkit }).pipe(
        Stream.runCollect,
        Effect.provide(scriptedModel([[call("add", { left: 4, right: 5 })]]))
      )
      const results = parts.flatMap((part) => part.type === "tool-result" ? [[part.id, part.encodedResult]] : [])
      assert.deepStrictEqual(results, [["c1", { value: 9 }]])
    }))

  it.effect("handle says where a failure came from: the arguments, or the tool", () =>
    Effect.gen(function*() {
      const origins = yield* Effect.forEach(
        [["add", { left: "x" }], ["leaky", {}]] as const,
        ([name, params]) =>
          toolkit.handle(name, params, "c1").pipe(
            Effect.flatMap(Stream.runCollect),
            Effect.map((results) => results.map((result) => [result.isFailure, result.failureOrigin]))
          )
      )
      assert.deepStrictEqual(origins, [[[true, "parameters"]], [[true, "handler"]]])
    }))

  it.effect("handle answers a name the set does not have with our not_found result", () =>
    Effect.gen(function*() {
      const stream = yield* toolkit.handle("missing" as "add", {}, "c9")
      const results = yield* Stream.runCollect(stream)
      const expected = yield* ToolSet.execute(set, ToolCall.make({ id: "c9", name: "missing", arguments: {} }))
      const text = `Tool call failed (not_found): ${Option.getOrThrow(ToolOutput.asText(expected.output))}`
      assert.deepStrictEqual(
        results.map((r) => ({ ...r, modelOutput: r.modelOutput?.map(outputPart) })),
        [{
          result: text,
          encodedResult: text,
          modelOutput: [{ type: "text", text }],
          isFailure: true,
          failureOrigin: "handler",
          preliminary: false
        }]
      )
    }))

  it.effect("the tools' inbound services are requirements of generateText, provided by its caller", () =>
    Effect.gen(function*() {
      const weather = AiToolkit.fromToolSet(ToolSet.make(GetWeather))
      const program = converse(weather, [call("get_weather", { city: "Paris" })])
      expectTypeOf<Effect.Services<typeof program>>().toEqualTypeOf<CurrentUser>()
      const { sentBack } = yield* program.pipe(Effect.provideService(CurrentUser, user))
      assert.deepStrictEqual(sentBack.map((part) => part.result), [{ city: "Paris", temperature: 64, unit: "F" }])
    }))

  it.effect("a tool set's dispatch service: captured services from its layer, per-call values from each caller", () =>
    Effect.gen(function*() {
      class Tools extends Context.Service<Tools, ToolSet.Service<User>>()("test/ai/Tools") {}
      const ToolsLive = ToolSet.toLayer(Tools, ToolSet.make(Whoami)).pipe(
        Layer.provide(Layer.succeed(Database, { lookup: (id) => `user ${id} of the database` }))
      )
      const ask = (id: string) =>
        Effect.gen(function*() {
          const toolkit = AiToolkit.fromToolSet(yield* Tools)
          expectTypeOf(toolkit).toEqualTypeOf<
            AiToolkit.AiToolkit<Record<string, AiToolkit.BridgedTool<string, User>>>
          >()
          const response = yield* LanguageModel.generateText({ prompt: "who am I?", toolkit })
          return response.toolResults.map((part) => part.encodedResult)
        }).pipe(Effect.provideService(User, { id }))
      const answers = yield* Effect.all([ask("ada"), ask("grace")]).pipe(
        Effect.provide(ToolsLive),
        Effect.provide(scriptedModel([[call("whoami", {})], [call("whoami", {})]]))
      )
      assert.deepStrictEqual(answers, [["user ada of the database"], ["user grace of the database"]])
    }))

  it.effect("a tool that needs approval goes through effect/ai's approval flow, and runs once approved", () =>
    Effect.gen(function*() {
      let runs = 0
      const Wipe = Tool.make("wipe", {
        description: "Wipe the disk",
        parameters: Schema.Struct({}),
        annotations: { needsApproval: true },
        call: () => Effect.sync(() => `wiped ${++runs}`)
      })
      const toolkit = AiToolkit.fromToolSet(ToolSet.make(Wipe))
      const { results, requested } = yield* Effect.gen(function*() {
        const first = yield* LanguageModel.generateText({ prompt: "wipe it", toolkit })
        const request = first.content.find((part) => part.type === "tool-approval-request")
        assert.isDefined(request)
        const requested = runs
        const prompt = Prompt.concat(
          Prompt.concat(Prompt.make("wipe it"), Prompt.fromResponseParts(first.content)),
          Prompt.fromMessages([Prompt.toolMessage({
            content: [Prompt.toolApprovalResponsePart({ approvalId: request!.approvalId, approved: true })]
          })])
        )
        const second = yield* LanguageModel.generateText({ prompt, toolkit })
        return { results: second.toolResults.map((part) => part.encodedResult), requested }
      }).pipe(Effect.provide(scriptedModel([[call("wipe", {})], "done"])))
      assert.deepStrictEqual({ requested, results, runs }, { requested: 0, results: ["wiped 1"], runs: 1 })
    }))

  it.effect("the model is offered our definitions: name, description, JSON Schema; hints become annotations", () =>
    Effect.gen(function*() {
      const weather = AiToolkit.fromToolSet(ToolSet.make(GetWeather, Add))
      const requests = yield* Effect.gen(function*() {
        yield* LanguageModel.generateText({ prompt: "hi", toolkit: weather })
        return yield* (yield* ScriptedModel).requests
      }).pipe(Effect.provide(scriptedModel(["hello"])), Effect.provideService(CurrentUser, user))
      assert.deepStrictEqual(
        requests[0]!.tools,
        ToolSet.definitions(ToolSet.make(GetWeather, Add)).map(({ description, name, parameters }) => ({
          name,
          description,
          parameters
        }))
      )
      const annotations = weather.tools.get_weather.annotations
      assert.deepStrictEqual(
        [AiTool.Readonly, AiTool.OpenWorld, AiTool.Destructive, AiTool.Idempotent].map((key) =>
          annotations.mapUnsafe.has(key.key) ? Context.get(annotations, key) : "unset"
        ),
        [true, true, "unset", "unset"]
      )
      expectTypeOf<keyof typeof weather.tools>().toEqualTypeOf<"get_weather" | "add">()
    }))

  it.effect("its toolkit and handlers merge with effect/ai tools, and our calls still run through our dispatch", () =>
    Effect.gen(function*() {
      const Shout = AiTool.make("shout", {
        parameters: Schema.Struct({ text: Schema.String }),
        success: Schema.String
      })
      const Mine = Toolkit.make(Shout)
      const merged = Toolkit.merge(toolkit.toolkit, Mine)
      const handlers = Layer.merge(
        toolkit.handlers,
        Mine.toLayer({ shout: ({ text }) => Effect.succeed(text.toUpperCase()) })
      )
      const response = yield* LanguageModel.generateText({ prompt: "go", toolkit: merged }).pipe(
        Effect.provide(handlers),
        Effect.provide(scriptedModel([[
          call("add", { left: 2, right: 3 }, "c1"),
          call("add", { left: "two" }, "c2"),
          call("shout", { text: "hi" }, "c3")
        ]]))
      )
      const invalid = `Tool call failed (invalid_args): ${yield* dispatchedText(set, "add", { left: "two" })}`
      assert.deepStrictEqual(
        // effect/ai gives results in the order they finish.
        response.toolResults.map((part) => [part.id, part.isFailure, part.encodedResult])
          .sort(([a], [b]) => String(a).localeCompare(String(b))),
        [["c1", false, { value: 5 }], ["c2", true, invalid], ["c3", false, "HI"]]
      )
    }))

  it.effect("its options are the limits of every call", () =>
    Effect.gen(function*() {
      const limited = AiToolkit.fromToolSet(set, { maxArgumentDepth: 2 })
      const deep = { left: 1, right: 2, extra: { a: { b: {} } } }
      const { sentBack } = yield* converse(limited, [call("add", deep)])
      const expected = yield* ToolSet.execute(
        set,
        ToolCall.make({ id: "c1", name: "add", arguments: deep }),
        { maxArgumentDepth: 2 }
      )
      assert.strictEqual(errorOf(expected).kind, "invalid_args")
      const text = `Tool call failed (invalid_args): ${Option.getOrThrow(ToolOutput.asText(expected.output))}`
      assert.deepStrictEqual(sentBack.map((part) => part.result), [text])
    }))

  it("refuses what is neither a tool set nor a tool set's dispatch service", () => {
    assert.throws(() => AiToolkit.fromToolSet({ tools: [] } as never), TypeError, "AiToolkit.fromToolSet takes")
    assert.isFalse(AiToolkit.isAiToolkit(Toolkit.make()))
    assert.isTrue(AiToolkit.isAiToolkit(toolkit))
  })

  const Anything = Tool.make("anything", {
    description: "Accepts any object",
    parameters: Schema.Record(Schema.String, Schema.Unknown),
    call: (args) => Effect.succeed(Object.keys(args).length)
  })
  const totalSet = ToolSet.make(Add, Anything, Leaky)
  const total = AiToolkit.fromToolSet(totalSet)

  it.effect.prop(
    "any arguments to any tool: generateText succeeds with one result per call, the one ToolSet.execute gives",
    [Schema.Literals(["add", "anything", "leaky"]), Schema.Json],
    ([name, params]) =>
      Effect.gen(function*() {
        const response = yield* LanguageModel.generateText({ prompt: "go", toolkit: total }).pipe(
          Effect.provide(scriptedModel([[call(name, params)]]))
        )
        const expected = yield* ToolSet.execute(totalSet, ToolCall.make({ id: "c1", name, arguments: params }))
        const text = Option.getOrUndefined(ToolOutput.asText(expected.output))
        const json = Option.getOrUndefined(ToolOutput.asJson(expected.output))
        assert.deepStrictEqual(
          response.toolResults.map((part) => [part.id, part.isFailure, part.encodedResult]),
          [[
            "c1",
            expected.status !== "success",
            expected.status === "success"
              ? json ?? text
              : `Tool call failed (${errorOf(expected).kind}): ${text}`
          ]]
        )
      }),
    { arbitrary: { runs: 100 } }
  )
})

describe("fromToolSet, an output with nothing to read", () => {
  const Quiet = Tool.make("quiet", {
    description: "Says nothing",
    parameters: Schema.Struct({ how: Schema.Literals(["empty", "blank", "denied"]) }),
    call: ({ how }): Effect.Effect<unknown, ToolExecutionError.ToolExecutionError> =>
      how === "empty"
        ? Effect.succeed("")
        : how === "blank"
        ? Effect.succeed([ToolResultContent.text(" "), ToolResultContent.text("\t")] as const)
        : Effect.fail(ToolExecutionError.withModelOutput(ToolExecutionError.refused("no"), ToolOutput.text("")))
  })

  it.effect("is shown as our adapters show it: (empty result), or the status words alone, never an empty text", () =>
    Effect.gen(function*() {
      const { sentBack } = yield* converse(AiToolkit.fromToolSet(ToolSet.make(Quiet)), [
        call("quiet", { how: "empty" }, "c1"),
        call("quiet", { how: "blank" }, "c2"),
        call("quiet", { how: "denied" }, "c3")
      ])
      const shown = (id: string, isFailure: boolean, text: string) => ({
        id,
        name: "quiet",
        isFailure,
        result: text,
        modelOutput: [{ type: "text", text }]
      })
      assert.deepStrictEqual(sentBack, [
        shown("c1", false, "(empty result)"),
        shown("c2", false, "(empty result)"),
        shown("c3", true, "Tool call denied")
      ])
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// OutputSchema and the mapping of outputs to effect/ai's parts
// ---------------------------------------------------------------------------------------------------------------------

describe("OutputSchema", () => {
  const encode = Schema.encodeUnknownSync(AiToolkit.OutputSchema)
  const decode = Schema.decodeUnknownExit(AiToolkit.OutputSchema)

  it("encodes a lone text as its string, a lone JSON value as itself, anything richer as its text", () => {
    assert.deepStrictEqual(
      [
        encode(ToolOutput.text("hi")),
        encode(ToolOutput.json({ a: [1] })),
        encode(ToolOutput.content([ToolResultContent.text("a"), ToolResultContent.imageBase64(pixel, "image/png")]))
      ],
      ["hi", { a: [1] }, "a\n[image/png omitted]"]
    )
  })

  it("decodes a string as a text output, and refuses what is not JSON", () => {
    assert.deepStrictEqual(Exit.map(decode("hi"), ToolOutput.asText), Exit.succeed(Option.some("hi")))
    assert.isTrue(Exit.isFailure(decode({ f: () => 1 })))
  })

  it.prop("any JSON value that is not a string decodes to a JSON output and encodes back to itself", [Schema.Json], ([
    json
  ]) => {
    const value = withoutNegativeZero(json)
    if (typeof value === "string") return
    const decoded = decode(value)
    assert.isTrue(Exit.isSuccess(decoded))
    const output = (decoded as Exit.Success<ToolOutput.ToolOutput>).value
    assert.deepStrictEqual(ToolOutput.asJson(output), Option.some(value))
    assert.deepStrictEqual(encode(output), value)
  })
})

describe("model-output parts", () => {
  const parts = (...blocks: [ToolResultContent.ToolResultContent, ...Array<ToolResultContent.ToolResultContent>]) =>
    modelParts(ToolOutput.content(blocks)).map(outputPart)

  it("shows each block as the part a provider sends", () => {
    assert.deepStrictEqual(
      parts(
        ToolResultContent.text("t"),
        ToolResultContent.json({ a: 1 }),
        ToolResultContent.imageBase64(pixel, "image/png"),
        ToolResultContent.imageBase64(pixel),
        ToolResultContent.imageUrl("https://example.com/a.png"),
        ToolResultContent.imageUrl(`data:image/png;base64,${pixel}`),
        ToolResultContent.audio("UklGRiQAAABXQVZF", "audio/wav"),
        ToolResultContent.fileBase64(pdf, "application/pdf", "a.pdf"),
        ToolResultContent.fileUrl("https://example.com/a.pdf", "application/pdf"),
        ToolResultContent.resourceLink({ uri: "https://example.com/r", name: "report", description: "Q3" }),
        ToolResultContent.resourceLink({ uri: `data:application/pdf;base64,${pdf}`, name: "inline.pdf" })
      ),
      [
        { type: "text", text: "t" },
        { type: "text", text: "{\"a\":1}" },
        { type: "file", mediaType: "image/png", data: pixel, fileName: undefined },
        { type: "file", mediaType: "image/png", data: pixel, fileName: undefined },
        { type: "file", mediaType: "image/*", data: "url:https://example.com/a.png", fileName: undefined },
        { type: "file", mediaType: "image/png", data: pixel, fileName: undefined },
        { type: "file", mediaType: "audio/wav", data: "UklGRiQAAABXQVZF", fileName: undefined },
        { type: "file", mediaType: "application/pdf", data: pdf, fileName: "a.pdf" },
        { type: "file", mediaType: "application/pdf", data: "url:https://example.com/a.pdf", fileName: undefined },
        { type: "text", text: "report: https://example.com/r (Q3)" },
        { type: "file", mediaType: "application/pdf", data: pdf, fileName: "inline.pdf" }
      ]
    )
  })

  it("leaves out media it cannot send, and says so", () => {
    assert.deepStrictEqual(
      parts(
        ToolResultContent.imageBase64("AAAA"),
        ToolResultContent.imageUrl("data:image/png;base64,%%%"),
        ToolResultContent.fileUrl("not a url", "application/pdf")
      ),
      [
        { type: "text", text: "[image omitted: unknown media type]" },
        { type: "text", text: "[image omitted: malformed data URL]" },
        { type: "text", text: "[file omitted: not a valid URL]" }
      ]
    )
  })

  it("reads effect/ai's parts back as our blocks", () => {
    const output = outputOfParts([
      Prompt.textPart({ text: "t" }),
      Prompt.filePart({ mediaType: "image/png", data: pixel }),
      Prompt.filePart({ mediaType: "image/*", data: new URL("https://example.com/a.png") }),
      Prompt.filePart({ mediaType: "audio/wav", data: "UklGRiQAAABXQVZF" }),
      Prompt.filePart({ mediaType: "application/pdf", data: new Uint8Array([37, 80, 68, 70]), fileName: "a.pdf" }),
      Prompt.filePart({ mediaType: "application/pdf", data: new URL("https://example.com/a.pdf") })
    ])
    assert.deepStrictEqual(
      Option.map(output, (output) => [...output.content]),
      Option.some<Array<ToolResultContent.ToolResultContent>>([
        ToolResultContent.text("t"),
        ToolResultContent.imageBase64(pixel, "image/png"),
        ToolResultContent.imageUrl("https://example.com/a.png"),
        ToolResultContent.audio("UklGRiQAAABXQVZF", "audio/wav"),
        ToolResultContent.fileBase64("JVBERg==", "application/pdf", "a.pdf"),
        ToolResultContent.fileUrl("https://example.com/a.pdf", "application/pdf")
      ])
    )
    assert.isTrue(Option.isNone(outputOfParts([])))
  })

  const blockOf = (kind: "png" | "pdf" | "wav" | { readonly text: string }): ToolResultContent.ToolResultContent =>
    typeof kind === "object"
      ? ToolResultContent.text(kind.text)
      : kind === "png"
      ? ToolResultContent.imageBase64(pixel, "image/png")
      : kind === "pdf"
      ? ToolResultContent.fileBase64(pdf, "application/pdf", "doc.pdf")
      : ToolResultContent.audio("UklGRiQAAABXQVZF", "audio/wav")

  const Kind = Schema.Union([Schema.Struct({ text: Schema.String }), Schema.Literals(["png", "pdf", "wav"])])

  it.prop(
    "text that is not blank, inline images of a known type, files and audio come back as the same blocks",
    [Schema.NonEmptyArray(Kind)],
    ([kinds]) => {
      const blocks = kinds.map(blockOf)
      const output = ToolOutput.content([blocks[0]!, ...blocks.slice(1)])
      // Blank text is left out, as our adapters leave it out; nothing left is their placeholder.
      const shown = blocks.filter((block) => block._tag !== "Text" || block.text.trim() !== "")
      assert.deepStrictEqual(
        Option.map(outputOfParts(modelParts(output)), (back) => [...back.content]),
        Option.some(shown.length === 0 ? [ToolResultContent.text("(empty result)")] : shown)
      )
    }
  )
})

// ---------------------------------------------------------------------------------------------------------------------
// toToolSet: effect/ai tools through our dispatch
// ---------------------------------------------------------------------------------------------------------------------

const GetTemperature = AiTool.make("get_temperature", {
  description: "The temperature in a city",
  parameters: Schema.Struct({ city: Schema.String.annotate({ description: "A city" }) }),
  success: Schema.Struct({ celsius: Schema.Number })
})

const execute = <T extends Tool.Any>(set: ToolSet.ToolSet<T>, name: string, args: unknown) =>
  ToolSet.execute(set, ToolCall.make({ id: "call_1", name, arguments: args }))

const summary = (result: Parameters<typeof summarizeResult>[0]) => {
  const { arguments: _, ...rest } = summarizeResult(result)
  return { ...rest, json: Option.getOrUndefined(ToolOutput.asJson(result.output)) }
}

describe("toToolSet", () => {
  const Temperatures = Toolkit.make(GetTemperature)
  let handled = 0
  const TemperaturesLive = Temperatures.toLayer({
    get_temperature: ({ city }) => Effect.sync(() => ({ celsius: city.length + handled++ * 0 }))
  })

  it.effect("an effect/ai tool runs through ToolSet.execute, and bad arguments never reach its handler", () =>
    Effect.gen(function*() {
      handled = 0
      const set = yield* AiToolkit.toToolSet(Temperatures, TemperaturesLive)
      const valid = yield* execute(set, "get_temperature", "{\"city\":\"Oslo\"}")
      const before = handled
      const invalid = yield* execute(set, "get_temperature", { city: 7 })
      assert.deepStrictEqual([summary(valid), summary(invalid)], [
        { callId: "call_1", name: "get_temperature", status: "success", kind: undefined, modelText: undefined, json: {
          celsius: 4
        } },
        {
          callId: "call_1",
          name: "get_temperature",
          status: "error",
          kind: "invalid_args",
          modelText: "tool arguments did not match the schema:\n- $.city: Expected string",
          json: undefined
        }
      ])
      assert.deepStrictEqual([before, handled], [1, 1])
    }).pipe(Effect.scoped))

  it.effect("its definitions are ours, and the provider adapters render them", () =>
    Effect.gen(function*() {
      const set = yield* AiToolkit.toToolSet(Temperatures, TemperaturesLive)
      const same = Tool.make("get_temperature", {
        description: "The temperature in a city",
        parameters: GetTemperature.parametersSchema,
        call: () => Effect.succeed(0)
      })
      const [definition] = ToolSet.definitions(set)
      assert.deepStrictEqual({ ...definition }, { ...ToolDefinition.fromTool(same) })
      assert.deepStrictEqual(
        OpenAiChat.definitions(set),
        Result.succeed([{
          type: "function",
          function: {
            name: "get_temperature",
            description: "The temperature in a city",
            parameters: definition!.parameters
          }
        }])
      )
    }).pipe(Effect.scoped))

  /** A one-tool set whose effect/ai handler does `handler`. */
  const single = (failureMode: AiTool.FailureMode, handler: () => Effect.Effect<unknown, unknown>) => {
    const Flaky = AiTool.make("flaky", {
      success: Schema.String,
      failure: Schema.Struct({ reason: Schema.String }),
      failureMode
    })
    const kit = Toolkit.make(Flaky)
    return AiToolkit.toToolSet(kit as never, kit.toLayer({ flaky: handler as never }) as never)
  }

  const failureOf = (failureMode: AiTool.FailureMode, handler: () => Effect.Effect<unknown, unknown>) =>
    Effect.gen(function*() {
      const set = yield* single(failureMode, handler)
      const result = yield* execute(set, "flaky", {})
      const error = errorOf(result)
      const text = Option.getOrUndefined(ToolOutput.asText(error.modelOutput))
      return [error.kind, text ?? ToolOutput.asJson(error.modelOutput)]
    }).pipe(Effect.scoped)

  it.effect("failures fold into our kinds; the model sees a declared failure only in failure mode \"return\"", () =>
    Effect.gen(function*() {
      const rateLimited = AiError.make({
        module: "Test",
        method: "flaky",
        reason: new AiError.RateLimitError({})
      })
      assert.deepStrictEqual(
        yield* Effect.all([
          failureOf("error", () => Effect.fail(rateLimited)),
          failureOf("return", () => Effect.fail(new AiError.NetworkError({
            reason: "TransportError",
            method: "GET",
            url: "https://example.com",
            description: "x"
          }))),
          failureOf("return", () => Effect.fail({ reason: "the city is closed" })),
          failureOf("error", () => Effect.fail({ reason: "the city is closed" })),
          failureOf("return", () => Effect.fail(ToolExecutionError.notFound("no such city"))),
          failureOf("return", () => Effect.die(new Error("secret")))
        ]),
        [
          ["rate_limited", "the tool was rate limited; try again later"],
          ["network", "the tool could not reach its upstream service"],
          ["other", Option.some({ reason: "the city is closed" })],
          ["other", "the tool failed"],
          ["not_found", "no such city"],
          ["other", "the tool failed"]
        ]
      )
    }))

  it.effect("a result its success Schema refuses is kind other; a Void success is JSON null", () =>
    Effect.gen(function*() {
      const refused = yield* failureOf("error", () => Effect.succeed(42))
      assert.deepStrictEqual(refused, ["other", "the tool failed"])
      const Ping = AiTool.make("ping")
      const kit = Toolkit.make(Ping)
      const set = yield* AiToolkit.toToolSet(kit, kit.toLayer({ ping: () => Effect.void }))
      const result = yield* execute(set, "ping", {})
      assert.deepStrictEqual(ToolOutput.asJson(result.output), Option.some(null))
    }).pipe(Effect.scoped))

  it.effect("a success or a returned failure with a Date, a URL or a bigint reaches the model in its JSON form", () =>
    Effect.gen(function*() {
      const When = AiTool.make("when", { success: Schema.Struct({ at: Schema.Date, n: Schema.BigInt }) })
      const Link = AiTool.make("link", { success: Schema.Struct({ url: Schema.URL }) })
      const Book = AiTool.make("book", {
        success: Schema.String,
        failure: Schema.Struct({ retryAt: Schema.Date }),
        failureMode: "return"
      })
      const kit = Toolkit.make(When, Link, Book)
      const set = yield* AiToolkit.toToolSet(
        kit,
        kit.toLayer({
          when: () => Effect.succeed({ at: new Date("2024-01-02T03:04:05Z"), n: 12345678901234567890n }),
          link: () => Effect.succeed({ url: new URL("https://example.com/a") }),
          book: () => Effect.fail({ retryAt: new Date("2024-05-06T07:08:09Z") })
        })
      )
      const when = yield* execute(set, "when", {})
      assert.deepStrictEqual(
        ToolOutput.asJson(when.output),
        Option.some({ at: "2024-01-02T03:04:05.000Z", n: "12345678901234567890" })
      )
      const link = yield* execute(set, "link", {})
      assert.deepStrictEqual(ToolOutput.asJson(link.output), Option.some({ url: "https://example.com/a" }))
      const book = errorOf(yield* execute(set, "book", {}))
      assert.deepStrictEqual(
        [book.kind, ToolOutput.asJson(book.modelOutput)],
        ["other", Option.some({ retryAt: "2024-05-06T07:08:09.000Z" })]
      )
    }).pipe(Effect.scoped))

  it.effect("a tool's toModelOutput is what the model is shown", () =>
    Effect.gen(function*() {
      const Snap = AiTool.make("snap", {
        success: Schema.String,
        toModelOutput: (caption) => [
          Prompt.textPart({ text: caption }),
          Prompt.filePart({ mediaType: "image/png", data: pixel })
        ]
      })
      const kit = Toolkit.make(Snap)
      const set = yield* AiToolkit.toToolSet(kit, kit.toLayer({ snap: () => Effect.succeed("a pixel") }))
      const result = yield* execute(set, "snap", {})
      assert.deepStrictEqual(result.output.content, [
        ToolResultContent.text("a pixel"),
        ToolResultContent.imageBase64(pixel, "image/png")
      ])
    }).pipe(Effect.scoped))

  it.effect("a dynamic tool of JSON Schema is checked by our validator", () =>
    Effect.gen(function*() {
      const Lookup = AiTool.dynamic("lookup", {
        description: "Look a word up",
        parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
        success: Schema.String
      })
      const kit = Toolkit.make(Lookup)
      const set = yield* AiToolkit.toToolSet(
        kit,
        kit.toLayer({ lookup: (params) => Effect.succeed(`looked up ${(params as { word: string }).word}`) })
      )
      const [tool] = set.tools
      assert.isTrue(DynamicTool.isDynamic(tool))
      const results = yield* Effect.all([execute(set, "lookup", { word: "tide" }), execute(set, "lookup", {})])
      assert.deepStrictEqual(
        results.map((result) => [result.status, Option.getOrUndefined(ToolOutput.asText(result.output))]),
        [
          ["success", "looked up tide"],
          ["error", yield* dispatchedText(ToolSet.make(DynamicTool.make("lookup", {
            description: "",
            parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
            call: () => Effect.void
          })), "lookup", {})]
        ]
      )
    }).pipe(Effect.scoped))

  it.effect("hints carry over; provider-defined tools are left out", () =>
    Effect.gen(function*() {
      const Careful = AiTool.make("careful", { description: "Careful" })
        .annotate(AiTool.Title, "Careful tool")
        .annotate(AiTool.Readonly, true)
        .annotate(AiTool.Destructive, false)
        .annotate(AiTool.Strict, true)
        .setNeedsApproval(() => true)
      const Plain = AiTool.make("plain")
      const WebSearch = AiTool.providerDefined({
        id: "openai.web_search",
        customName: "WebSearch",
        providerName: "web_search"
      })()
      const kit = Toolkit.make(Careful, Plain, WebSearch)
      const set = yield* AiToolkit.toToolSet(kit, kit.toLayer({ careful: () => Effect.void, plain: () => Effect.void }))
      expectTypeOf(set).toEqualTypeOf<
        ToolSet.ToolSet<AiToolkit.FromAiTool<typeof Careful> | AiToolkit.FromAiTool<typeof Plain>>
      >()
      assert.deepStrictEqual(
        ToolSet.definitions(set).map((definition) => [definition.name, definition.annotations]),
        [
          ["careful", { title: "Careful tool", readOnly: true, destructive: false, strict: true, needsApproval: true }],
          ["plain", {}]
        ]
      )
    }).pipe(Effect.scoped))

  it.effect("a tool that cannot be ours is a ConversionError naming it", () =>
    Effect.gen(function*() {
      const conversion = <Tools extends Record<string, AiTool.Any>>(
        kit: Toolkit.Toolkit<Tools>,
        layer: Layer.Layer<AiTool.HandlersFor<Tools>>
      ) =>
        AiToolkit.toToolSet(kit as never, layer as never).pipe(
          Effect.flip,
          Effect.map((error) => [error._tag, (error as AiToolkit.ConversionError).toolName, error.message])
        )
      const BadName = AiTool.make("bad name")
      const Scalar = AiTool.make("scalar", { parameters: Schema.String })
      const badName = Toolkit.make(BadName)
      const scalar = Toolkit.make(Scalar)
      const unhandled = Toolkit.make(GetTemperature)
      const errors = yield* Effect.all([
        conversion(badName, badName.toLayer({ "bad name": () => Effect.void })),
        conversion(scalar, scalar.toLayer({ scalar: () => Effect.void })),
        conversion(unhandled, Layer.empty as never)
      ])
      assert.deepStrictEqual(errors.map(([tag, name]) => [tag, name]), [
        ["AiToolkitConversionError", "bad name"],
        ["AiToolkitConversionError", "scalar"],
        ["AiToolkitConversionError", "get_temperature"]
      ])
      assert.include(errors[0]![2], "is not valid")
      assert.include(errors[1]![2], "not a Schema of an object")
      assert.include(errors[2]![2], "no handler")
    }).pipe(Effect.scoped))

  it.effect("declared dependencies are our tool's requirements; the handlers' context reaches the handler", () =>
    Effect.gen(function*() {
      // A reference needs no provider, so only the context the handlers were built in can change what it holds.
      const Greeting = Context.Reference<string>("test/ai/Greeting", { defaultValue: () => "hello" })
      const Greet = AiTool.make("greet", { success: Schema.String }).addDependency(User)
      const kit = Toolkit.make(Greet)
      const GreetLive = kit.toLayer(Effect.gen(function*() {
        const locale = yield* Locale
        return {
          greet: (_: unknown, context: { readonly toolCallId?: string | undefined }) =>
            Effect.gen(function*() {
              const greeting = yield* Greeting
              const user = yield* User
              return `${locale}: ${greeting} ${user.id} (${context.toolCallId})`
            })
        }
      })).pipe(Layer.provide(Layer.mergeAll(Layer.succeed(Locale, "en"), Layer.succeed(Greeting, "hi"))))
      const set = yield* AiToolkit.toToolSet(kit, GreetLive)
      expectTypeOf<ToolSet.Requirements<typeof set>>().toEqualTypeOf<User>()
      const greet = (id: string) => execute(set, "greet", {}).pipe(Effect.provideService(User, { id }))
      const results = yield* Effect.all([greet("ada"), greet("grace")])
      assert.deepStrictEqual(results.map((result) => ToolOutput.asText(result.output)), [
        Option.some("en: hi ada (call_1)"),
        Option.some("en: hi grace (call_1)")
      ])
    }).pipe(Effect.scoped))

  it("a toolkit whose Schemas need services does not compile", () => {
    const Localized = Schema.String.pipe(Schema.decodeTo(
      Schema.String,
      SchemaTransformation.transformEffect({
        decode: (text: string) =>
          Effect.gen(function*() {
            const locale = yield* Locale
            return `${locale}:${text}`
          }),
        encode: (text: string) => Effect.succeed(text)
      })
    ))
    const Translate = AiTool.make("translate", { parameters: Schema.Struct({ text: Localized }) })
    const kit = Toolkit.make(Translate)
    // @ts-expect-error: the parameters need a Locale to decode, which our dispatch cannot give
    const program = AiToolkit.toToolSet(kit, kit.toLayer({ translate: () => Effect.void }))
    assert.isTrue(Effect.isEffect(program))
  })
})
