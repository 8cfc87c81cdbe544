import { assert, describe, expect, expectTypeOf, it } from "@effect/vitest"
import {
  type Content as SdkContent,
  createFunctionResponsePartFromBase64,
  createFunctionResponsePartFromUri,
  createPartFromFunctionResponse,
  type FunctionCall as SdkFunctionCall,
  type FunctionDeclaration as SdkFunctionDeclaration,
  type FunctionResponse as SdkFunctionResponse,
  type FunctionResponsePart as SdkFunctionResponsePart,
  type GenerateContentResponse,
  type Part as SdkPart,
  type Schema as SdkSchema,
  type Tool as SdkTool,
  type Type as SdkType
} from "@google/genai"
import { Effect, Result, Schema } from "effect"
import { CurrentUser, tools } from "../../examples/tools.ts"
import * as Gemini from "../../src/provider/Gemini.ts"
import * as Tool from "../../src/Tool.ts"
import * as ToolDefinition from "../../src/ToolDefinition.ts"
import * as ToolExecutionError from "../../src/ToolExecutionError.ts"
import * as ToolOutput from "../../src/ToolOutput.ts"
import * as ToolResultContent from "../../src/ToolResultContent.ts"
import * as ToolSet from "../../src/ToolSet.ts"
import { Add } from "../support/tools.ts"
import { howRead, pixel, resultOf, user } from "./fixtures.ts"

const responseOf = (...blocks: Parameters<typeof ToolOutput.content>[0]) =>
  Gemini.toolResults([resultOf(ToolOutput.content(blocks))])[0]!.parts[0]

const failureOf = (schema: Gemini.Schema | Record<string, unknown>) => {
  const result = Gemini.compileSchema(schema as Record<string, unknown>, "t")
  return Result.isFailure(result) ? { path: result.failure.path, reason: result.failure.reason } : undefined
}

describe("Gemini", () => {
  describe("definitions", () => {
    it("declares each tool with its JSON Schema as parametersJsonSchema by default, in order", () => {
      const tool = Result.getOrThrow(Gemini.definitions(tools))
      const sdk: SdkTool = tool
      expect(sdk.functionDeclarations!.map((declaration) => declaration.name)).toStrictEqual(
        ["add", "get_weather", "render_chart", "transfer_funds"]
      )
      expect(tool.functionDeclarations[1]).toStrictEqual({
        name: "get_weather",
        description: "Get the current temperature in a city",
        parametersJsonSchema: {
          type: "object",
          properties: { city: { type: "string", description: "City name, e.g. Paris" } },
          required: ["city"],
          additionalProperties: false
        }
      })
    })

    it("compiles parameters into the Schema subset with schema openApi, never sending both forms", () => {
      const tool = Gemini.definitions(tools, { schema: "openApi" })
      expect(tool).toStrictEqual(Result.succeed({
        functionDeclarations: [
          {
            name: "add",
            description: "Add two integers",
            parameters: {
              type: "OBJECT",
              properties: {
                left: { type: "INTEGER", description: "The left operand" },
                right: { type: "INTEGER", description: "The right operand" }
              },
              required: ["left", "right"]
            }
          },
          {
            name: "get_weather",
            description: "Get the current temperature in a city",
            parameters: {
              type: "OBJECT",
              properties: { city: { type: "STRING", description: "City name, e.g. Paris" } },
              required: ["city"]
            }
          },
          {
            name: "render_chart",
            description: "Render a line chart of a numeric series as a PNG image",
            parameters: {
              type: "OBJECT",
              properties: {
                title: { type: "STRING" },
                values: { type: "ARRAY", items: { type: "NUMBER" }, minItems: "1" }
              },
              required: ["title", "values"]
            }
          },
          {
            name: "transfer_funds",
            description: "Transfer money from the user's account to a recipient",
            parameters: {
              type: "OBJECT",
              properties: { to: { type: "STRING" }, amount: { type: "NUMBER", minimum: 0 } },
              required: ["to", "amount"]
            }
          }
        ]
      }))
    })

    it("fails with UnsupportedSchemaError naming the tool and the path when a tool cannot be expressed", () => {
      const Pair = Tool.make("pair", {
        description: "Takes a pair",
        parameters: Schema.Struct({ pair: Schema.Tuple([Schema.String, Schema.Int]) }),
        call: () => Effect.succeed("ok")
      })
      const result = Gemini.definitions(ToolSet.add(tools, Pair), { schema: "openApi" })
      expect(Result.isFailure(result) && result.failure).toStrictEqual(
        new Gemini.UnsupportedSchemaError({
          toolName: "pair",
          path: "/properties/pair/prefixItems",
          reason: "tuples (`prefixItems`) are not supported",
          message: "tool `pair`: schema at `/properties/pair/prefixItems`: tuples (`prefixItems`) are not supported"
        })
      )
    })
  })

  describe("definitions with schema openApi and empty objects", () => {
    it("leaves parameters out for a tool without arguments, since Gemini refuses an OBJECT without properties", () => {
      const Now = Tool.make("now", {
        description: "The current time",
        parameters: Schema.Struct({}),
        call: () => Effect.succeed("noon")
      })
      expect(Gemini.definitions([Now], { schema: "openApi" })).toStrictEqual(
        Result.succeed({ functionDeclarations: [{ name: "now", description: "The current time" }] })
      )
    })

    it("refuses an empty object nested in the parameters with UnsupportedSchemaError", () => {
      const Wrap = ToolDefinition.make({
        name: "wrap",
        description: "Takes an empty options object",
        parameters: {
          type: "object",
          properties: { options: { type: "object", properties: {}, required: [] } },
          required: ["options"]
        }
      })
      expect(Gemini.definitions([Wrap], { schema: "openApi" })).toStrictEqual(
        Result.fail(
          new Gemini.UnsupportedSchemaError({
            toolName: "wrap",
            path: "/properties/options",
            reason: "an object without properties is not supported",
            message: "tool `wrap`: schema at `/properties/options`: an object without properties is not supported"
          })
        )
      )
    })
  })

  describe("compileSchema", () => {
    it("turns a null alternative or a null type into nullable, and several alternatives into anyOf", () => {
      expect(Gemini.compileSchema({
        type: "object",
        description: "Search options",
        properties: {
          a: { anyOf: [{ type: "string" }, { type: "null" }], description: "maybe a string" },
          b: { type: ["integer", "null"] },
          c: { oneOf: [{ type: "string", format: "date-time" }, { type: "number", format: "double" }] },
          d: { type: ["string", "boolean"] },
          e: { const: "fixed" },
          f: { enum: ["x", "y"] },
          g: { type: "string", format: "email", minLength: 2, maxLength: 9, pattern: "^a" },
          h: { type: "integer", exclusiveMaximum: 10, minimum: 1, multipleOf: 2 },
          i: { type: "array", items: { type: "boolean" }, maxItems: 3, uniqueItems: true },
          j: { allOf: [{ type: "string" }], title: "J", default: "z" }
        },
        required: ["a", 7],
        additionalProperties: false
      })).toStrictEqual(Result.succeed({
        type: "OBJECT",
        description: "Search options",
        properties: {
          a: { type: "STRING", nullable: true, description: "maybe a string" },
          b: { type: "INTEGER", nullable: true },
          c: { anyOf: [{ type: "STRING", format: "date-time" }, { type: "NUMBER", format: "double" }] },
          d: { anyOf: [{ type: "STRING" }, { type: "BOOLEAN" }] },
          e: { type: "STRING", enum: ["fixed"] },
          f: { type: "STRING", enum: ["x", "y"] },
          g: { type: "STRING", pattern: "^a", minLength: "2", maxLength: "9" },
          h: { type: "INTEGER", minimum: 1, maximum: 10 },
          i: { type: "ARRAY", items: { type: "BOOLEAN" }, maxItems: "3" },
          j: { type: "STRING", default: "z", title: "J" }
        },
        required: ["a"]
      }))
    })

    it("refuses what the subset cannot express, with the JSON Pointer of the node", () => {
      expect([
        failureOf({ type: "object", properties: { n: { $ref: "#/$defs/Node" } } }),
        failureOf({ type: "object", properties: { m: { type: "object", additionalProperties: { type: "number" } } } }),
        failureOf({ type: "object", properties: { k: { type: "number", enum: [1, 2] } } }),
        failureOf({ type: "object", properties: { "a/b": {} } }),
        failureOf({ type: "object", properties: { x: { not: { type: "string" } } } }),
        failureOf({ type: "object", properties: { y: { allOf: [{ type: "string" }, { minLength: 1 }] } } })
      ]).toStrictEqual([
        { path: "/properties/n/$ref", reason: "references (recursive schemas) are not supported" },
        {
          path: "/properties/m/additionalProperties",
          reason: "objects with arbitrary keys (records) are not supported"
        },
        { path: "/properties/k/enum", reason: "only string enums (and string constants) are supported" },
        { path: "/properties/a~1b", reason: "a schema without a type (any value) is not supported" },
        { path: "/properties/x/not", reason: "`not` is not supported" },
        { path: "/properties/y/allOf", reason: "`allOf` with more than one schema is not supported" }
      ])
    })
  })

  describe("compileSchema: arrays", () => {
    it("refuses an array without items (Gemini: 400 \"items: missing field\"), as it refuses items: {}", () => {
      expect([
        failureOf({ type: "array" }),
        failureOf({ type: "object", properties: { tags: { type: "array" } } }),
        failureOf({ type: "object", properties: { ids: { type: ["array", "null"] } } }),
        failureOf({ type: "object", properties: { v: { type: ["array", "string"] } } }),
        failureOf({ type: "object", properties: { any: { type: "array", items: {} } } })
      ]).toStrictEqual([
        { path: "", reason: "an array without `items` (items of any value) is not supported" },
        { path: "/properties/tags", reason: "an array without `items` (items of any value) is not supported" },
        { path: "/properties/ids", reason: "an array without `items` (items of any value) is not supported" },
        { path: "/properties/v", reason: "an array without `items` (items of any value) is not supported" },
        { path: "/properties/any/items", reason: "a schema without a type (any value) is not supported" }
      ])
      expect(Gemini.compileSchema({ type: ["array", "null"], items: { type: "string" } })).toStrictEqual(
        Result.succeed({ type: "ARRAY", items: { type: "STRING" }, nullable: true })
      )
    })

    it("fails definitions in the openApi mode for a tool with an array without items, naming the tool", () => {
      const tag = ToolDefinition.make({
        name: "tag",
        description: "Tag things",
        parameters: { type: "object", properties: { tags: { type: "array" } }, required: ["tags"] }
      })
      const out = Gemini.definitions([tag], { schema: "openApi" })
      assert(Result.isFailure(out))
      expect(out.failure).toStrictEqual(new Gemini.UnsupportedSchemaError({
        toolName: "tag",
        path: "/properties/tags",
        reason: "an array without `items` (items of any value) is not supported",
        message:
          "tool `tag`: schema at `/properties/tags`: an array without `items` (items of any value) is not supported"
      }))
    })
  })

  describe("compileSchema: keys and dependencies", () => {
    it("refuses a required key that properties does not declare, which Gemini answers with a 400", () => {
      expect([
        failureOf({ type: "object", properties: { a: { type: "string" } }, required: ["a", "b"] }),
        failureOf({
          type: "object",
          properties: { o: { type: "object", properties: { x: { type: "string" } }, required: ["x", "y"] } }
        }),
        failureOf({ type: "object", required: ["a"] })
      ]).toStrictEqual([
        { path: "/required", reason: "`required` names `b`, which `properties` does not declare" },
        { path: "/properties/o/required", reason: "`required` names `y`, which `properties` does not declare" },
        { path: "/required", reason: "`required` names `a`, which `properties` does not declare" }
      ])
    })

    it("treats draft-07 `dependencies` as its two 2019-09 spellings: keys dropped, schemas refused", () => {
      const card = { card: { type: "string" }, cvv: { type: "string" } }
      expect(Gemini.compileSchema({ type: "object", properties: card, dependencies: { card: ["cvv"] } }))
        .toStrictEqual(Gemini.compileSchema({ type: "object", properties: card, dependentRequired: { card: ["cvv"] } }))
      expect([
        failureOf({ type: "object", properties: card, dependencies: { card: { required: ["cvv"] } } }),
        failureOf({ type: "object", properties: card, dependentSchemas: { card: { required: ["cvv"] } } })
      ]).toStrictEqual([
        { path: "/dependencies", reason: "`dependencies` with schemas (`dependentSchemas`) is not supported" },
        { path: "/dependentSchemas", reason: "`dependentSchemas` is not supported" }
      ])
    })
  })

  describe("toolCalls", () => {
    it("reads the functionCall parts of a candidate's content without changing it, thought signatures included", () => {
      const content: SdkContent = {
        role: "model",
        parts: [
          { text: "Checking." },
          { functionCall: { id: "fc_1", name: "add", args: { left: 1, right: 2 } }, thoughtSignature: "c2lnbmF0dXJl" },
          { functionCall: { id: "fc_2", name: "get_weather", args: { city: "Oslo" } } }
        ]
      }
      const before = structuredClone(content)
      Object.freeze(content.parts)
      expect(Gemini.toolCalls(content)).toStrictEqual([
        { id: "fc_1", name: "add", arguments: { left: 1, right: 2 } },
        { id: "fc_2", name: "get_weather", arguments: { city: "Oslo" } }
      ])
      expect(Gemini.toolCalls(content.parts)).toStrictEqual(Gemini.toolCalls(content))
      expect(content).toStrictEqual(before)
    })

    it.effect("passes string args on as the arguments' JSON text, and any other non-object for invalid_args", () =>
      Effect.gen(function*() {
        const set = ToolSet.make(Add)
        const parts = [
          { functionCall: { id: "fc_text", name: "add", args: "{\"left\":1,\"right\":2}" } },
          { functionCall: { id: "fc_bad", name: "add", args: "1 + 2" } },
          { functionCall: { id: "fc_number", name: "add", args: 42 } }
        ] as unknown as ReadonlyArray<Gemini.ModelPart>
        const calls = Gemini.toolCalls(parts)
        expect(calls.map((call) => call.arguments)).toStrictEqual(["{\"left\":1,\"right\":2}", "1 + 2", 42])
        const results = yield* ToolSet.executeAll(set, calls)
        expect(howRead(results)).toStrictEqual([
          {
            id: "fc_text",
            arguments: { left: 1, right: 2 },
            status: "success",
            kind: undefined,
            output: [ToolResultContent.json({ value: 3 })]
          },
          { id: "fc_bad", arguments: "1 + 2", status: "error", kind: "invalid_args", output: undefined },
          { id: "fc_number", arguments: 42, status: "error", kind: "invalid_args", output: undefined }
        ])
      }))

    it("gives calls without an id a stable one by position, and never throws on malformed parts", () => {
      const parts = [
        { functionCall: { name: "add", args: { left: 1, right: 2 } } },
        { text: "between" },
        { functionCall: { name: "get_weather" } },
        { functionCall: { args: { city: "Lima" } } },
        { functionCall: { id: "", name: "add", args: "1 + 2" } },
        null,
        { functionCall: "garbage" }
      ] as unknown as ReadonlyArray<Gemini.ModelPart>
      expect(Gemini.toolCalls(parts)).toStrictEqual([
        { id: "gemini_call_0", name: "add", arguments: { left: 1, right: 2 } },
        { id: "gemini_call_1", name: "get_weather", arguments: {} },
        { id: "gemini_call_2", name: "", arguments: { city: "Lima" } },
        { id: "gemini_call_3", name: "add", arguments: "1 + 2" }
      ])
      expect(Gemini.toolCalls(undefined)).toStrictEqual([])
      expect(Gemini.toolCalls({ role: "model" })).toStrictEqual([])
    })

    it("never gives a call an id another call of the turn already has, even one of the generated form", () => {
      const parts: ReadonlyArray<Gemini.ModelPart> = [
        { functionCall: { name: "add" } },
        { functionCall: { id: "gemini_call_0", name: "add" } },
        { functionCall: { name: "add" } },
        { functionCall: { id: "gemini_call_3", name: "add" } },
        { functionCall: { name: "add" } }
      ]
      const ids = Gemini.toolCalls(parts).map((call) => call.id)
      expect(ids).toStrictEqual([
        "gemini_call_0",
        "gemini_call_~gemini_call_0",
        "gemini_call_2",
        "gemini_call_~gemini_call_3",
        "gemini_call_4"
      ])
      expect(new Set(ids).size).toBe(ids.length)
    })

    it("answers a model's id of the generated form with that id, and leaves only generated ids out", () => {
      const calls = Gemini.toolCalls([
        { functionCall: { id: "gemini_call_7", name: "add" } },
        { functionCall: { name: "add" } },
        { functionCall: { id: "fc_1", name: "add" } }
      ])
      const content = Gemini.toolResults(
        calls.map((call) => resultOf(ToolOutput.text("ok"), { callId: call.id, name: call.name }))
      )
      expect(content[0]!.parts).toStrictEqual([
        { functionResponse: { id: "gemini_call_7", name: "add", response: { output: "ok" } } },
        { functionResponse: { name: "add", response: { output: "ok" } } },
        { functionResponse: { id: "fc_1", name: "add", response: { output: "ok" } } }
      ])
    })
  })

  describe("toolResults", () => {
    it("builds what the SDK's own helpers build for the same response", () => {
      const content = Gemini.toolResults([
        resultOf(ToolOutput.json({ temperature: 18 }), { status: "success", callId: "fc_1", name: "get_weather" }),
        resultOf(
          ToolOutput.content([
            ToolResultContent.text("chart"),
            ToolResultContent.imageBase64(pixel, "image/png"),
            ToolResultContent.fileUrl("gs://bucket/r.pdf", "application/pdf")
          ]),
          { status: "success", callId: "fc_2", name: "render_chart" })
      ])
      expect(content).toStrictEqual([{
        role: "user",
        parts: [
          createPartFromFunctionResponse("fc_1", "get_weather", { output: { temperature: 18 } }),
          createPartFromFunctionResponse("fc_2", "render_chart", { output: "chart" }, [
            createFunctionResponsePartFromBase64(pixel, "image/png"),
            createFunctionResponsePartFromUri("gs://bucket/r.pdf", "application/pdf")
          ])
        ]
      }])
    })

    it("keeps Json structured, Text as a string, and several values as an array in order", () => {
      expect([
        responseOf(ToolResultContent.json([1, { a: null }])),
        responseOf(ToolResultContent.text("{\"not\":\"parsed\"}")),
        responseOf(
          ToolResultContent.text("two"),
          ToolResultContent.json(2),
          ToolResultContent.resourceLink({ uri: "https://example.com/x", name: "x" })
        ),
        responseOf(ToolResultContent.fileBase64("JVBERi0=", "application/pdf"))
      ]).toStrictEqual([
        { functionResponse: { id: "call_1", name: "some_tool", response: { output: [1, { a: null }] } } },
        { functionResponse: { id: "call_1", name: "some_tool", response: { output: "{\"not\":\"parsed\"}" } } },
        {
          functionResponse: {
            id: "call_1",
            name: "some_tool",
            response: { output: ["two", 2, "x: https://example.com/x"] }
          }
        },
        {
          functionResponse: {
            id: "call_1",
            name: "some_tool",
            response: { output: [] },
            parts: [{ inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } }]
          }
        }
      ])
    })

    it("recognizes a base64 image without a media type, and describes one it cannot recognize, never as base64", () => {
      expect([
        responseOf(ToolResultContent.imageBase64(pixel)),
        responseOf(ToolResultContent.imageBase64("AAAA")),
        responseOf(ToolResultContent.imageUrl("https://example.com/a.png"))
      ]).toStrictEqual([
        {
          functionResponse: {
            id: "call_1",
            name: "some_tool",
            response: { output: [] },
            parts: [{ inlineData: { mimeType: "image/png", data: pixel } }]
          }
        },
        {
          functionResponse: {
            id: "call_1",
            name: "some_tool",
            response: { output: "[image omitted: its media type is unknown]" }
          }
        },
        {
          functionResponse: {
            id: "call_1",
            name: "some_tool",
            // File data needs a media type: without one, the model gets the URL as text.
            response: { output: "[image: https://example.com/a.png]" }
          }
        }
      ])
    })

    it("sends file data only with its media type, as the SDK's own helper builds it", () => {
      const sdkPart: SdkFunctionResponsePart = createFunctionResponsePartFromUri("https://example.com/a.webp", "image/webp")
      expect([
        responseOf(ToolResultContent.imageUrl("https://example.com/a.webp", "image/webp")),
        responseOf(
          ToolResultContent.text("see"),
          ToolResultContent.imageUrl("https://example.com/b"),
          ToolResultContent.fileUrl("https://example.com/c.pdf", "application/pdf", "c.pdf")
        )
      ]).toStrictEqual([
        { functionResponse: { id: "call_1", name: "some_tool", response: { output: [] }, parts: [sdkPart] } },
        {
          functionResponse: {
            id: "call_1",
            name: "some_tool",
            response: { output: ["see", "[image: https://example.com/b]"] },
            parts: [createFunctionResponsePartFromUri("https://example.com/c.pdf", "application/pdf")]
          }
        }
      ])
    })

    it("puts only PNG, JPEG and WebP images and PDFs inside a function response, plain text as text, the rest described", () => {
      const gif = "R0lGODlhAQABAAAAACw="
      const response = responseOf(
        ToolResultContent.imageBase64("/9j/4AAQ", "image/jpeg"),
        ToolResultContent.imageBase64(gif),
        ToolResultContent.imageUrl("https://example.com/a.svg", "image/svg+xml"),
        ToolResultContent.audio("UklGRg==", "audio/wav"),
        ToolResultContent.fileBase64(btoa("line one\nline two"), "text/plain", "notes.txt"),
        ToolResultContent.fileBase64("UEsDBA==", "application/zip", "bundle.zip"),
        ToolResultContent.fileUrl("https://example.com/data.csv", "text/csv", "data.csv"),
        ToolResultContent.fileBase64("JVBERi0=", "application/pdf")
      )
      expect(response).toStrictEqual({
        functionResponse: {
          id: "call_1",
          name: "some_tool",
          response: {
            output: [
              "[image omitted: image/gif is not supported in a function response]",
              "[image (image/svg+xml): https://example.com/a.svg]",
              "[audio omitted: audio/wav is not supported in a function response]",
              "line one\nline two",
              "[file bundle.zip omitted: application/zip is not supported in a function response]",
              "[file data.csv (text/csv): https://example.com/data.csv]"
            ]
          },
          parts: [
            createFunctionResponsePartFromBase64("/9j/4AAQ", "image/jpeg"),
            createFunctionResponsePartFromBase64("JVBERi0=", "application/pdf")
          ]
        }
      })
    })

    it("answers a failed, denied or skipped result with only media by its status words, the media kept", () => {
      const chart = ToolOutput.one(ToolResultContent.imageBase64(pixel, "image/png"))
      const parts = [createFunctionResponsePartFromBase64(pixel, "image/png")]
      expect(Gemini.toolResults([
        resultOf(chart, { status: "error", callId: "c1", error: ToolExecutionError.other("") }),
        resultOf(chart, { status: "denied", callId: "c2" }),
        resultOf(chart, { status: "skipped", callId: "c3" })
      ])[0]!.parts).toStrictEqual([
        { functionResponse: { id: "c1", name: "some_tool", response: { error: "Tool call failed (other)" }, parts } },
        {
          functionResponse: {
            id: "c2",
            name: "some_tool",
            response: { error: "Tool call denied", status: "denied" },
            parts
          }
        },
        {
          functionResponse: {
            id: "c3",
            name: "some_tool",
            response: { error: "Tool call skipped", status: "skipped" },
            parts
          }
        }
      ])
    })

    it("answers failures with error, denied and skipped with their status, and leaves generated ids out", () => {
      const content = Gemini.toolResults([
        resultOf(ToolOutput.text("it broke"), { status: "error", callId: "fc_1", name: "a" }),
        resultOf(ToolOutput.text("not allowed"), { status: "denied", callId: "gemini_call_1", name: "b" }),
        resultOf(ToolOutput.json({ reason: "hook" }), { status: "skipped", callId: "gemini_call_2", name: "c" })
      ])
      expect(content).toStrictEqual([{
        role: "user",
        parts: [
          { functionResponse: { id: "fc_1", name: "a", response: { error: "it broke" } } },
          { functionResponse: { name: "b", response: { error: "not allowed", status: "denied" } } },
          { functionResponse: { name: "c", response: { error: { reason: "hook" }, status: "skipped" } } }
        ]
      }])
    })

    it("with media separate, puts every functionResponse first, then the media of each result in order", () => {
      const results = [
        resultOf(
          ToolOutput.content([ToolResultContent.text("chart"), ToolResultContent.imageBase64(pixel, "image/png")]),
          { status: "success", callId: "fc_1", name: "render_chart" }),
        resultOf(ToolOutput.text("ok"), { status: "success", callId: "fc_2", name: "add" }),
        resultOf(
          ToolOutput.content([
            ToolResultContent.audio("UklGRg==", "audio/wav"),
            ToolResultContent.fileBase64(btoa("hello"), "text/plain")
          ]),
          { status: "success", callId: "fc_3", name: "speak" })
      ]
      const content = Gemini.toolResults(results, { media: "separate" })
      expect(content).toStrictEqual([{
        role: "user",
        parts: [
          { functionResponse: { id: "fc_1", name: "render_chart", response: { output: "chart" } } },
          { functionResponse: { id: "fc_2", name: "add", response: { output: "ok" } } },
          // Separate parts are ordinary content, which takes audio; plain text is still text.
          { functionResponse: { id: "fc_3", name: "speak", response: { output: "hello" } } },
          { inlineData: { mimeType: "image/png", data: pixel } },
          { inlineData: { mimeType: "audio/wav", data: "UklGRg==" } }
        ]
      }])
    })

    it("with media separate, sends only the media types Gemini reads; others are described in the value", () => {
      const docx = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
      const media = ToolOutput.content([
        ToolResultContent.imageBase64("PHN2Zz48L3N2Zz4=", "image/svg+xml"),
        ToolResultContent.imageBase64("R0lGODlh", "image/gif"),
        ToolResultContent.fileBase64("UEs=", docx, "notes.docx"),
        ToolResultContent.fileUrl("https://example.com/a.svg", "image/svg+xml"),
        ToolResultContent.fileBase64("AAAA", "video/mp4"),
        ToolResultContent.imageBase64(pixel, "image/png")
      ])
      const [content] = Gemini.toolResults([resultOf(media, { callId: "fc_1", name: "files" })], { media: "separate" })
      assert.deepStrictEqual(content!.parts, [
        {
          functionResponse: {
            id: "fc_1",
            name: "files",
            response: {
              output: [
                "[image omitted: image/svg+xml is not supported in a function response]",
                "[image omitted: image/gif is not supported in a function response]",
                `[file notes.docx omitted: ${docx} is not supported in a function response]`,
                "[file (image/svg+xml): https://example.com/a.svg]"
              ]
            }
          }
        },
        { inlineData: { mimeType: "video/mp4", data: "AAAA" } },
        { inlineData: { mimeType: "image/png", data: pixel } }
      ])
    })
  })

  describe("wire types", () => {
    it("produces values the SDK types accept, and takes the SDK's output types without casts", () => {
      expectTypeOf<Gemini.FunctionDeclaration>().toExtend<SdkFunctionDeclaration>()
      expectTypeOf<Gemini.Tool>().toExtend<SdkTool>()
      expectTypeOf<Gemini.FunctionResponse>().toExtend<SdkFunctionResponse>()
      expectTypeOf<Gemini.FunctionResponsePart>().toExtend<SdkFunctionResponsePart>()
      expectTypeOf<Gemini.Part>().toExtend<SdkPart>()
      expectTypeOf<Gemini.Content>().toExtend<SdkContent>()
      // The SDK types `Schema.type` as a string enum, which literals cannot satisfy: check the names and the rest.
      expectTypeOf<Gemini.Type>().toEqualTypeOf<Exclude<`${SdkType}`, "TYPE_UNSPECIFIED">>()
      expectTypeOf<Omit<Gemini.Schema, "type" | "items" | "properties" | "anyOf">>().toExtend<
        Omit<SdkSchema, "type" | "items" | "properties" | "anyOf">
      >()
      expectTypeOf<SdkFunctionCall>().toExtend<NonNullable<Gemini.ModelPart["functionCall"]>>()
      expectTypeOf<SdkPart>().toExtend<Gemini.ModelPart>()
      expectTypeOf<NonNullable<NonNullable<GenerateContentResponse["candidates"]>[number]["content"]>>().toExtend<
        Parameters<typeof Gemini.toolCalls>[0]
      >()
    })
  })

  describe("transcript", () => {
    it.effect("answers a turn of parallel calls with one user Content, the model's turn kept as it came", () =>
      Effect.gen(function*() {
        const contents: Array<SdkContent> = [{ role: "user", parts: [{ text: "Weather in Paris, pay Bob, chart." }] }]
        // What a Gemini 3 model returns: a signature on the first call, and ids (absent on older models).
        const response: Pick<GenerateContentResponse, "candidates"> = {
          candidates: [{
            content: {
              role: "model",
              parts: [
                { functionCall: { id: "fc_w", name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "c2ln" },
                { functionCall: { id: "fc_t", name: "transfer_funds", args: { to: "Bob", amount: "lots" } } },
                { functionCall: { name: "get_stock_price", args: { symbol: "ACME" } } },
                { functionCall: { id: "fc_c", name: "render_chart", args: { title: "Series", values: [1, 3, 2] } } }
              ]
            }
          }]
        }
        const modelContent = response.candidates![0]!.content!
        const modelContentBefore = structuredClone(modelContent)

        const calls = Gemini.toolCalls(modelContent)
        const results = yield* ToolSet.executeAll(tools, calls).pipe(Effect.provideService(CurrentUser, user))
        const next: Array<SdkContent> = [...contents, modelContent, ...Gemini.toolResults(results)]

        expect(next).toStrictEqual([
          { role: "user", parts: [{ text: "Weather in Paris, pay Bob, chart." }] },
          modelContentBefore,
          {
            role: "user",
            parts: [
              {
                functionResponse: {
                  id: "fc_w",
                  name: "get_weather",
                  response: { output: { city: "Paris", temperature: 18, unit: "C" } }
                }
              },
              {
                functionResponse: {
                  id: "fc_t",
                  name: "transfer_funds",
                  response: { error: "tool arguments did not match the schema:\n- $.amount: Expected number" }
                }
              },
              {
                functionResponse: {
                  name: "get_stock_price",
                  response: {
                    error:
                      "tool `get_stock_price` not found; available tools: `add`, `get_weather`, `render_chart`, `transfer_funds`"
                  }
                }
              },
              {
                functionResponse: {
                  id: "fc_c",
                  name: "render_chart",
                  response: { output: "Series: 3 points, max 3" },
                  parts: [{ inlineData: { mimeType: "image/png", data: pixel } }]
                }
              }
            ]
          }
        ])
        expect(next[1]).toBe(modelContent)
      }))
  })

  it("a result with empty output answers its status words instead of an empty value", () => {
    const empty = ToolOutput.text("")
    expect(Gemini.toolResults([
      resultOf(empty, { status: "error", callId: "c1", error: ToolExecutionError.other("") }),
      resultOf(empty, { status: "denied", callId: "c2" }),
      resultOf(empty, { status: "success", callId: "c3" })
    ])[0]!.parts).toStrictEqual([
      { functionResponse: { id: "c1", name: "some_tool", response: { error: "Tool call failed (other)" } } },
      { functionResponse: { id: "c2", name: "some_tool", response: { error: "Tool call denied", status: "denied" } } },
      { functionResponse: { id: "c3", name: "some_tool", response: { output: "(empty result)" } } }
    ])
  })
})
