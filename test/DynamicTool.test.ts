import { assert, describe, it } from "@effect/vitest"
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js"
import { Arbitrary, Context, Duration, Effect, Layer, Option, Predicate, Redacted, Result, Schema } from "effect"
import {
  Anthropic,
  DynamicTool,
  Gemini,
  OpenAiChat,
  OpenAiResponses,
  Tool,
  ToolCall,
  ToolContext,
  ToolDefinition,
  ToolExecutionError,
  ToolOutput,
  ToolResult,
  ToolSet
} from "../src/index.ts"
import { validatorOf } from "../src/internal/jsonSchemaValidator.ts"
import { McpServer } from "../src/mcp/index.ts"
import { ToolTesting } from "../src/testing/index.ts"
import { executeOrFail as execute } from "./support/dispatch.ts"
import { withoutNegativeZero } from "./support/json.ts"
import {
  catalogueTools,
  draft07Schema,
  draft2020Schema,
  nestedTree,
  recursiveTrees,
  searchDocsParameters
} from "./support/mcpSchemas.ts"
import { typeErrorOf } from "./support/throws.ts"
import { makeRecorder } from "./support/tracing.ts"

// -------------------------------------------------------------------------------------------------------------
// Helpers
// -------------------------------------------------------------------------------------------------------------

/** The arguments each call of a tool made by `echoing` received, in order. */
const received: Array<DynamicTool.Arguments> = []

/** A dynamic tool that records its arguments and answers them back as its output. */
const echoing = (name: string, parameters: DynamicTool.JsonSchema, outputSchema?: DynamicTool.JsonSchema) =>
  DynamicTool.make(name, {
    description: "Answers its arguments back",
    parameters,
    outputSchema,
    call: (args) =>
      Effect.sync(() => {
        received.push(args)
        return args
      })
  })

const SearchDocs = echoing("search_docs", searchDocsParameters)

const call = (name: string, args: unknown, id = "call_1") => ToolCall.make({ id, name, arguments: args })

const summarize = (result: ToolResult.ToolResult) => ({
  status: result.status,
  kind: Option.getOrUndefined(Option.map(result.error, (error) => error.kind)),
  modelText: Option.getOrUndefined(ToolOutput.asText(result.output)),
  message: Option.getOrUndefined(Option.map(result.error, (error) => error.message))
})

const other = "the tool failed"


const Draft07 = echoing("create_commit", draft07Schema)
const Draft2020 = echoing("route", draft2020Schema)

// -------------------------------------------------------------------------------------------------------------
// make
// -------------------------------------------------------------------------------------------------------------

describe("DynamicTool.make", () => {
  describe("arguments", () => {
    it.effect("valid arguments reach call whole and frozen, and the output is the JSON it returned", () =>
      Effect.gen(function*() {
        received.length = 0
        const result = yield* execute(ToolSet.make(SearchDocs), call("search_docs", "{\"query\":\"retry policy\",\"limit\":3}"))
        assert.strictEqual(result.status, "success")
        assert.deepStrictEqual(result.output, ToolOutput.json({ query: "retry policy", limit: 3 }))
        assert.deepStrictEqual(received, [{ query: "retry policy", limit: 3 }])
        assert.isTrue(Object.isFrozen(received[0]))
        assert.deepStrictEqual(result.arguments, { query: "retry policy", limit: 3 })
      }))

    it.effect("a tool cannot change the arguments its result shows", () =>
      Effect.gen(function*() {
        const Mutating = DynamicTool.make("mutating", {
          description: "Tries to change its arguments",
          parameters: { type: "object", properties: { list: { type: "array" } } },
          call: (args) =>
            Effect.sync(() => {
              try {
                ;(args.list as Array<unknown>).push("added")
              } catch {
                return "refused"
              }
              return "changed"
            })
        })
        const result = yield* execute(ToolSet.make(Mutating), call("mutating", "{\"list\":[1]}"))
        assert.deepStrictEqual(ToolOutput.asText(result.output), Option.some("refused"))
        assert.deepStrictEqual(result.arguments, { list: [1] })
      }))

    it.effect("every array and object of the arguments a tool receives is frozen, however deep", () =>
      Effect.gen(function*() {
        let seen: unknown
        const Nested = DynamicTool.make("nested", {
          description: "Keeps its arguments",
          parameters: { type: "object" },
          call: (args) =>
            Effect.sync(() => {
              seen = args
              return "kept"
            })
        })
        const text = JSON.stringify({ a: [{ b: [[{ c: {} }], []] }, 1, null], d: { e: { f: ["x"] } } })
        const result = yield* execute(ToolSet.make(Nested), call("nested", text))
        assert.strictEqual(result.status, "success")
        const unfrozen: Array<unknown> = []
        const walk = (node: unknown): void => {
          if (typeof node !== "object" || node === null) return
          if (!Object.isFrozen(node)) unfrozen.push(node)
          for (const child of Object.values(node)) walk(child)
        }
        walk(seen)
        assert.deepStrictEqual(unfrozen, [])
        assert.deepStrictEqual(seen, JSON.parse(text))
      }))

    it.effect("a mismatch is invalid_args naming each path and keyword, without the values sent", () =>
      Effect.gen(function*() {
        const secret = "sk-live-SECRET-4711"
        const result = yield* execute(
          ToolSet.make(SearchDocs),
          call("search_docs", { limit: 99, extra: secret, [secret]: 1 })
        )
        const message = [
          "tool arguments did not match the schema:",
          "- $.query: is required",
          "- $.extra: is not allowed",
          `- $["${secret}"]: is not allowed`,
          "- $.limit: must be <= 20"
        ].join("\n")
        // The model sees what to fix; a key that is not allowed is named (bounded, as names are), a value never is.
        assert.deepStrictEqual(summarize(result), { status: "error", kind: "invalid_args", modelText: message, message })
      }))

    it.effect("limits are those of a typed tool: size, depth, and a JSON object", () =>
      Effect.gen(function*() {
        const Typed = Tool.make("typed", {
          description: "The same parameters, as a Schema",
          parameters: Schema.Struct({ query: Schema.String }),
          call: () => Effect.succeed("ok")
        })
        const Open = echoing("open", { type: "object" })
        const set = ToolSet.make(Typed, Open)
        const options = { maxArgumentBytes: 64, maxArgumentDepth: 4 }
        const inputs: ReadonlyArray<unknown> = [
          JSON.stringify({ query: "x".repeat(100) }),
          "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":1}}}}}",
          { a: { b: { c: { d: { e: 1 } } } } },
          "[1,2]",
          "\"text\"",
          "42",
          [],
          "{not json"
        ]
        for (const input of inputs) {
          const typed = summarize(yield* execute(set, call("typed", input), options))
          const dynamic = summarize(yield* execute(set, call("open", input), options))
          assert.strictEqual(dynamic.kind, "invalid_args", JSON.stringify(input))
          assert.deepStrictEqual(dynamic, typed, JSON.stringify(input))
        }
      }))

    it.effect("unknown keys are governed by additionalProperties: passed on when allowed, refused when not", () =>
      Effect.gen(function*() {
        received.length = 0
        const Open = echoing("open", { type: "object", properties: { known: { type: "string" } } })
        const set = ToolSet.make(Open, SearchDocs)
        const passed = yield* execute(set, call("open", "{\"known\":\"a\",\"unknown\":[1,2]}"))
        assert.strictEqual(passed.status, "success")
        assert.deepStrictEqual(received, [{ known: "a", unknown: [1, 2] }])
        const refused = yield* execute(set, call("search_docs", "{\"query\":\"q\",\"unknown\":1}"))
        assert.deepStrictEqual(summarize(refused).message, "tool arguments did not match the schema:\n- $.unknown: is not allowed")
      }))

    it.effect("__proto__ is an own key like any other: required, passed on, and never a prototype", () =>
      Effect.gen(function*() {
        received.length = 0
        const Proto = echoing("proto", { type: "object", required: ["__proto__", "toString", "constructor"] })
        const set = ToolSet.make(Proto)
        const missing = yield* execute(set, call("proto", "{}"))
        assert.deepStrictEqual(summarize(missing).message, [
          "tool arguments did not match the schema:",
          "- $.__proto__: is required",
          "- $.toString: is required",
          "- $.constructor: is required"
        ].join("\n"))
        const text = "{\"__proto__\":{\"polluted\":true},\"toString\":1,\"constructor\":2}"
        for (const args of [text, JSON.parse(text) as unknown]) {
          const result = yield* execute(set, call("proto", args))
          assert.strictEqual(result.status, "success")
        }
        assert.strictEqual(received.length, 2)
        for (const args of received) {
          assert.deepStrictEqual(Object.keys(args), ["__proto__", "toString", "constructor"])
          assert.strictEqual(Object.getPrototypeOf(args), Object.prototype)
          assert.deepStrictEqual(Object.getOwnPropertyDescriptor(args, "__proto__")?.value, { polluted: true })
        }
        assert.isUndefined(({} as Record<string, unknown>).polluted)
      }))

    it.effect("a schema only the compiler finds wrong fails each call with other, and tells operators why", () =>
      Effect.gen(function*() {
        let ran = 0
        const Broken = DynamicTool.make("broken", {
          description: "Refers to a definition it does not have",
          parameters: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
          call: () => Effect.sync(() => ran++)
        })
        const set = ToolSet.make(Broken)
        for (const id of ["call_1", "call_2"]) {
          const result = yield* execute(set, call("broken", "{\"a\":1}", id))
          const summary = summarize(result)
          assert.strictEqual(summary.kind, "other")
          assert.strictEqual(summary.modelText, other)
          assert.match(summary.message!, /^the parameters JSON Schema of tool `broken` cannot be used: the JSON Schema cannot be compiled: .*#\/\$defs\/missing/)
        }
        assert.strictEqual(ran, 0)
      }))

    it.effect("draft-07 schemas as MCP servers send them: $schema, definitions, tuple items, $ref into properties", () =>
      Effect.gen(function*() {
        const set = ToolSet.make(Draft07)
        const valid = {
          owner: "octo",
          author: { name: "Ada", email: "ada@example.com" },
          committer: { name: "Grace", email: "grace@example.com" },
          position: [3, "a"],
          labels: ["x"]
        }
        assert.strictEqual((yield* execute(set, call("create_commit", valid))).status, "success")
        const invalid = yield* execute(set, call("create_commit", {
          owner: "octo",
          author: { name: "Ada", email: "not an email" },
          committer: { name: "Grace" },
          position: [3, 4, 5]
        }))
        assert.deepStrictEqual(summarize(invalid).message, [
          "tool arguments did not match the schema:",
          "- $.author.email: must match format \"email\"",
          "- $.committer.email: is required",
          "- $.position: must NOT have more than 2 items",
          "- $.position[1]: must be string"
        ].join("\n"))
      }))

    it.effect("2020-12 schemas: $defs, prefixItems, items: false", () =>
      Effect.gen(function*() {
        const set = ToolSet.make(Draft2020)
        const valid = { from: { x: 0, y: 1.5 }, to: { x: 2, y: 3 }, span: [5, "abc"], mode: "walk" }
        assert.strictEqual((yield* execute(set, call("route", valid))).status, "success")
        const invalid = yield* execute(set, call("route", { from: { x: 0 }, to: { x: 1, y: 2 }, span: [9, "abcd", 1], mode: "fly" }))
        assert.deepStrictEqual(summarize(invalid).message, [
          "tool arguments did not match the schema:",
          "- $.from.y: is required",
          "- $.span[0]: must be <= 5",
          "- $.span[1]: must NOT have more than 3 characters",
          "- $.span: must NOT have more than 2 items",
          "- $.mode: must be equal to one of the allowed values"
        ].join("\n"))
      }))
    it.effect("2019-09 schemas that recurse by $recursiveAnchor each follow their own, whichever tool runs first", () =>
      Effect.gen(function*() {
        const broken = { n: 1, child: { x: "not allowed", n: "one" } }
        for (const order of [["loose", "strict"], ["strict", "loose"]] as const) {
          // New schemas for each order: a schema's validator is compiled once, on its first call.
          const { loose, strict } = recursiveTrees()
          const set = ToolSet.make(echoing("loose", loose), echoing("strict", strict))
          const outcomes: Record<string, unknown> = {}
          for (const name of order) {
            outcomes[name] = summarize(yield* execute(set, call(name, name === "loose" ? nestedTree : broken)))
          }
          const message = [
            "tool arguments did not match the schema:",
            "- $.child.x: is not allowed",
            "- $.child.n: must be number"
          ].join("\n")
          assert.deepStrictEqual(outcomes, {
            loose: { status: "success", kind: undefined, modelText: undefined, message: undefined },
            strict: { status: "error", kind: "invalid_args", modelText: message, message }
          }, order.join(" first, then "))
        }
      }))

    it.effect("a nullable without a type, as OpenAPI generators write it, is ignored: calls run and are checked", () =>
      Effect.gen(function*() {
        received.length = 0
        const UpdateIssue = echoing("update_issue", {
          type: "object",
          properties: { milestone: { nullable: true, allOf: [{ $ref: "#/$defs/Milestone" }] } },
          $defs: { Milestone: { type: "object", properties: { id: { type: "integer" } } } }
        })
        const set = ToolSet.make(UpdateIssue)
        for (const args of [{}, { milestone: { id: 1 } }]) {
          assert.strictEqual((yield* execute(set, call("update_issue", args))).status, "success", JSON.stringify(args))
        }
        assert.deepStrictEqual(received, [{}, { milestone: { id: 1 } }])
        // For JSON Schema `nullable` means nothing: null is not an object.
        const refused = [{ milestone: { id: "1" } }, { milestone: null }]
        const messages: Array<string | undefined> = []
        for (const args of refused) messages.push(summarize(yield* execute(set, call("update_issue", args))).message)
        assert.deepStrictEqual(messages, [
          "tool arguments did not match the schema:\n- $.milestone.id: must be integer",
          "tool arguments did not match the schema:\n- $.milestone: must be object"
        ])
      }))

    it.effect("a decimal multipleOf accepts the amounts a model writes: 19.99 is a multiple of 0.01", () =>
      Effect.gen(function*() {
        const Pay = echoing("pay", {
          type: "object",
          properties: { amount: { type: "number", multipleOf: 0.01 } },
          required: ["amount"]
        })
        const set = ToolSet.make(Pay)
        const outcomes: Array<unknown> = []
        for (const amount of [19.99, 4.35, 0.07, 1.1, 20, 0.015]) {
          const result = summarize(yield* execute(set, call("pay", `{"amount":${amount}}`)))
          outcomes.push(result.status === "success" ? "success" : result.message)
        }
        assert.deepStrictEqual(outcomes, [
          "success",
          "success",
          "success",
          "success",
          "success",
          "tool arguments did not match the schema:\n- $.amount: must be multiple of 0.01"
        ])
      }))

    it.effect("recursive schemas, with the `$ref: \"#\"` zod 4 writes for a type that contains itself", () =>
      Effect.gen(function*() {
        const tree = {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#" } } },
          required: ["name", "children"],
          additionalProperties: false
        }
        const set = ToolSet.make(echoing("plant", tree))
        const valid = { name: "root", children: [{ name: "leaf", children: [] }] }
        assert.deepStrictEqual((yield* execute(set, call("plant", valid))).output, ToolOutput.json(valid))
        const invalid = yield* execute(set, call("plant", { name: "root", children: [{ name: 1, children: [] }] }))
        assert.deepStrictEqual(summarize(invalid).message, [
          "tool arguments did not match the schema:",
          "- $.children[0].name: must be string"
        ].join("\n"))
      }))
  })

  describe("output", () => {
    const outputSchema = {
      type: "object",
      properties: { hits: { type: "array", items: { type: "string" } } },
      required: ["hits"]
    }
    const returning = (value: unknown) =>
      DynamicTool.make("search", {
        description: "Returns what the test gives it",
        parameters: { type: "object" },
        outputSchema,
        call: () => Effect.succeed(value)
      })

    it.effect("a JSON output that matches the outputSchema is the result", () =>
      Effect.gen(function*() {
        const result = yield* execute(ToolSet.make(returning({ hits: ["a"] })), call("search", "{}"))
        assert.strictEqual(result.status, "success")
        assert.deepStrictEqual(result.output, ToolOutput.json({ hits: ["a"] }))
      }))

    it.effect("a JSON output that does not match is other, with the paths for operators only", () =>
      Effect.gen(function*() {
        for (const value of [{ hits: [1, "b"] }, { found: [] }, ToolOutput.json({ hits: "SECRET-output" })]) {
          const result = yield* execute(ToolSet.make(returning(value)), call("search", "{}"))
          const summary = summarize(result)
          assert.strictEqual(summary.kind, "other")
          assert.strictEqual(summary.modelText, other)
          assert.match(summary.message!, /^tool `search` returned an output that cannot be encoded: the output does not match the outputSchema:\n- \$\.hits/)
          assert.notInclude(summary.message!, "SECRET")
        }
      }))

    it.effect("outputSchemas that recurse by $recursiveAnchor each follow their own, whichever tool runs first", () =>
      Effect.gen(function*() {
        const broken = { n: 1, child: { x: "not allowed", n: "one" } }
        for (const order of [["loose", "strict"], ["strict", "loose"]] as const) {
          // New schemas for each order: a schema's validator is compiled once, on its first call.
          const { loose, strict } = recursiveTrees()
          const returning = (name: string, schema: DynamicTool.JsonSchema, value: unknown) =>
            DynamicTool.make(name, {
              description: "Returns a tree",
              parameters: { type: "object" },
              outputSchema: schema,
              call: () => Effect.succeed(value)
            })
          const set = ToolSet.make(returning("loose", loose, nestedTree), returning("strict", strict, broken))
          const outcomes: Record<string, unknown> = {}
          for (const name of order) {
            const summary = summarize(yield* execute(set, call(name, "{}")))
            outcomes[name] = [summary.status, summary.message]
          }
          assert.deepStrictEqual(outcomes, {
            loose: ["success", undefined],
            strict: [
              "error",
              "tool `strict` returned an output that cannot be encoded: the output does not match the outputSchema:\n" +
              "- $.child.x: is not allowed\n- $.child.n: must be number"
            ]
          }, order.join(" first, then "))
        }
      }))

    it.effect("text and content blocks are not JSON outputs: they are not checked", () =>
      Effect.gen(function*() {
        const result = yield* execute(ToolSet.make(returning("plain text")), call("search", "{}"))
        assert.deepStrictEqual(result.output, ToolOutput.text("plain text"))
      }))

    it.effect("an outputSchema that does not compile fails the call with other", () =>
      Effect.gen(function*() {
        const Broken = DynamicTool.make("broken_output", {
          description: "Its output schema refers to nothing",
          parameters: { type: "object" },
          outputSchema: { $ref: "#/$defs/missing" },
          call: () => Effect.succeed({ a: 1 })
        })
        const summary = summarize(yield* execute(ToolSet.make(Broken), call("broken_output", "{}")))
        assert.strictEqual(summary.kind, "other")
        assert.match(summary.message!, /the outputSchema cannot be used: the JSON Schema cannot be compiled/)
      }))
  })

  describe("bad definitions are refused where they are made", () => {
    const make = (parameters: unknown, outputSchema?: unknown, name = "search_docs") => () =>
      DynamicTool.make(name, {
        description: "d",
        parameters: parameters as DynamicTool.JsonSchema,
        outputSchema: outputSchema as DynamicTool.JsonSchema | undefined,
        call: () => Effect.void
      })

    it("a schema that is not a JSON object schema, breaks its meta-schema, or refers outside itself", () => {
      const prefix = "tool `search_docs`: parameters is not a usable JSON Schema: "
      const cases: ReadonlyArray<[unknown, string]> = [
        [null, "a tool's JSON Schema is a JSON object, not null"],
        [[{ type: "object" }], "a tool's JSON Schema is a JSON object, not an array"],
        ["{\"type\":\"object\"}", "a tool's JSON Schema is a JSON object, not a string"],
        [true, "a tool's JSON Schema is a JSON object, not a boolean"],
        [{ type: "string" }, "tool arguments are a JSON object, and this schema's type is \"string\""],
        [{ type: "object", properties: { a: { $ref: "https://example.com/a.json" } } }, "$ref \"https://example.com/a.json\""],
        [{ type: "object", properties: 5 }, "it is not valid against the draft-2020-12 meta-schema"],
        [{ $schema: "http://json-schema.org/draft-04/schema#", type: "object" }, "is not supported"],
        [{ type: "object", properties: { f: { default: () => 1 } } }, "a function is not JSON, at /properties/f/default"],
        [{ type: "object", minimum: Number.NaN }, "NaN is not a JSON number, at /minimum"]
      ]
      for (const [schema, problem] of cases) {
        const message = typeErrorOf(make(schema))
        assert.isTrue(message.startsWith(prefix), message)
        assert.include(message, problem)
      }
    })

    it("a cyclic schema is refused, and so is one that cannot be copied", () => {
      const cyclic: Record<string, unknown> = { type: "object" }
      cyclic.properties = { self: cyclic }
      assert.include(typeErrorOf(make(cyclic)), "refers back to itself at /properties/self")
      const proxy = new Proxy({ type: "object" }, {})
      assert.match(typeErrorOf(make(proxy)), /^tool `search_docs`: parameters is not a usable JSON Schema: it cannot be copied/)
    })

    it("a revoked proxy is refused with a TypeError that names the tool, as any schema that cannot be read", () => {
      const { proxy, revoke } = Proxy.revocable({ type: "object" }, {})
      revoke()
      assert.match(
        typeErrorOf(make(proxy)),
        /^tool `search_docs`: parameters is not a usable JSON Schema: it cannot be read: /
      )
    })

    it("a bad outputSchema is refused, naming the field", () => {
      assert.strictEqual(
        typeErrorOf(make({ type: "object" }, [])),
        "tool `search_docs`: outputSchema is not a usable JSON Schema: a tool's JSON Schema is a JSON object, not an array"
      )
    })

    it("the name and timeout rules of Tool.make apply", () => {
      assert.match(typeErrorOf(make({ type: "object" }, undefined, "search docs")), /^tool name "search docs" is not valid/)
      assert.match(
        typeErrorOf(() =>
          DynamicTool.make("slow", {
            description: "d",
            parameters: { type: "object" },
            annotations: { timeout: "soon" as Duration.Input },
            call: () => Effect.void
          })
        ),
        /^tool `slow`: the timeout annotation is not a duration/
      )
    })
  })

  describe("a Tool like any other", () => {
    it("the definition carries the JSON Schemas as they were given, the parameters in 2020-12, frozen copies", () => {
      const given = structuredClone(draft07Schema)
      const output = { type: "object", properties: { sha: { type: "string" } } }
      const Tool07 = DynamicTool.make("create_commit", {
        description: "Create a commit",
        parameters: given,
        outputSchema: output,
        annotations: { readOnly: false, timeout: "1 second" },
        call: () => Effect.void
      })
      ;(given.properties.owner as Record<string, unknown>).type = "integer"
      const definition = ToolDefinition.fromTool(Tool07)
      assert.deepStrictEqual(
        { ...definition },
        {
          name: "create_commit",
          description: "Create a commit",
          // Offered in 2020-12, the draft of every definition: the tuple's items as prefixItems, without $schema.
          parameters: {
            type: "object",
            properties: {
              ...draft07Schema.properties,
              position: { type: "array", prefixItems: draft07Schema.properties.position.items, items: false }
            },
            required: draft07Schema.required,
            additionalProperties: false,
            definitions: draft07Schema.definitions
          },
          outputSchema: output,
          annotations: { readOnly: false }
        }
      )
      assert.isTrue(Object.isFrozen(definition.parameters))
      assert.isTrue(Object.isFrozen((definition.parameters.properties as Record<string, object>).owner))
      assert.isTrue(DynamicTool.isDynamic(Tool07))
      assert.isFalse(DynamicTool.isDynamic(Tool.make("t", { description: "", parameters: Schema.Struct({}), call: () => Effect.void })))
    })

    it.effect("the copy is what is validated: changing the given schema afterwards changes nothing", () =>
      Effect.gen(function*() {
        const given = { type: "object", properties: { n: { type: "integer" } } }
        const Counted = echoing("counted", given)
        given.properties.n.type = "string"
        const result = yield* execute(ToolSet.make(Counted), call("counted", "{\"n\":1}"))
        assert.strictEqual(result.status, "success")
      }))

    it("provider adapters render the given schema", () => {
      const set = ToolSet.make(SearchDocs)
      const chat = OpenAiChat.definitions(set)
      assert.deepStrictEqual(chat, Result.succeed([{
        type: "function",
        function: { name: "search_docs", description: "Answers its arguments back", parameters: searchDocsParameters }
      }]))
      const anthropic = Anthropic.definitions(set)
      assert.deepStrictEqual(anthropic as Result.Result<unknown, unknown>, Result.succeed([{
        name: "search_docs",
        description: "Answers its arguments back",
        input_schema: searchDocsParameters
      }]))
    })

    it.live("services become its requirement; ToolContext, the timeout and the span are those of every tool", () =>
      Effect.gen(function*() {
        class Prefix extends Context.Service<Prefix, string>()("test/Prefix") {}
        class Audit extends Context.Service<Audit, string>()("test/Audit") {}
        const Greet = DynamicTool.make("greet", {
          description: "Greets",
          parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
          annotations: { timeout: "50 millis" },
          call: (args) =>
            Effect.gen(function*() {
              const prefix = yield* Prefix
              const id = yield* ToolContext.callId
              yield* ToolContext.insertResult(Audit, `${id}:${String(args.name)}`)
              if (args.name === "slow") yield* Effect.sleep("1 second")
              return `${prefix} ${String(args.name)}`
            })
        })
        const { spans, tracer } = makeRecorder()
        const set = ToolSet.make(Greet)
        const [greeted, slow] = yield* Effect.all([
          execute(set, call("greet", "{\"name\":\"Ada\"}", "call_g")),
          execute(set, call("greet", "{\"name\":\"slow\"}", "call_s"))
        ]).pipe(Effect.provideService(Prefix, "hello"), Effect.withTracer(tracer))
        assert.deepStrictEqual(greeted.output, ToolOutput.text("hello Ada"))
        assert.deepStrictEqual(ToolResult.metadata(greeted, Audit), Option.some("call_g:Ada"))
        assert.strictEqual(summarize(slow).kind, "timeout")
        const span = spans.find((span) => span.name === "execute_tool greet" && span.attributes.get("gen_ai.tool.call.id") === "call_g")
        assert.deepStrictEqual(span?.attributes.get("tool.status"), "success")
      }))

    it("every real MCP tool schema of the retrieval catalogue makes a tool", () => {
      for (const definition of catalogueTools) {
        const tool = DynamicTool.make(definition.name, {
          description: definition.description ?? "",
          parameters: definition.inputSchema,
          call: () => Effect.void
        })
        // In 2020-12, which the servers' draft-07 schemas are too, but for their `$schema`.
        const { $schema: _, ...inputSchema } = definition.inputSchema
        assert.deepStrictEqual(ToolDefinition.fromTool(tool).parameters, inputSchema)
      }
      assert.isAbove(catalogueTools.length, 50)
    })
  })

  describe("properties", () => {
    const Permissive = echoing("permissive", { type: "object" })
    const set = ToolSet.make(SearchDocs, Draft07, Draft2020, Permissive)

    it.effect.prop(
      "any JSON value as arguments, as text or parsed, gives exactly one result: success or invalid_args",
      [Schema.Json],
      ([value]) =>
        Effect.gen(function*() {
          for (const name of ["search_docs", "create_commit", "route", "permissive"]) {
            const results = yield* ToolSet.executeAll(set, [call(name, JSON.stringify(value), "a"), call(name, value, "b")])
            assert.strictEqual(results.length, 2)
            for (const result of results) {
              if (result.status === "success") continue
              assert.strictEqual(summarize(result).kind, "invalid_args", `${name}: ${summarize(result).message}`)
            }
          }
        }),
      { arbitrary: { runs: 150 } }
    )

    const generated = [SearchDocs, Draft07, Draft2020, Permissive]

    it.effect.prop(
      "arguments generated from the JSON Schema always pass, and reach call as they were sent",
      [Arbitrary.all(generated.map((tool) => ToolTesting.arbitraryArguments(tool)))],
      ([values]) =>
        Effect.gen(function*() {
          for (let i = 0; i < generated.length; i++) {
            const name = generated[i]!.name
            received.length = 0
            const result = yield* execute(set, call(name, JSON.stringify(values[i])))
            assert.strictEqual(result.status, "success", `${name}: ${JSON.stringify(values[i])}\n${summarize(result).message}`)
            assert.deepStrictEqual(received, [values[i]])
          }
        }),
      { arbitrary: { runs: 100 } }
    )

    it.effect.prop(
      "arguments that break the JSON Schema are refused with invalid_args, and the tool never runs",
      [Arbitrary.all(generated.map((tool) => ToolTesting.invalidArguments(tool)))],
      ([values]) =>
        Effect.gen(function*() {
          for (let i = 0; i < generated.length; i++) {
            const name = generated[i]!.name
            received.length = 0
            const result = yield* execute(set, call(name, values[i]))
            assert.strictEqual(summarize(result).kind, "invalid_args", `${name}: ${JSON.stringify(values[i])}`)
            assert.deepStrictEqual(received, [])
          }
        }),
      { arbitrary: { runs: 100 } }
    )

    const total = ToolTesting.checkTotal(set)

    it.effect.prop("any call to runtime tools gives exactly one result", total.arbitraries, total.property, {
      timeout: 60_000,
      arbitrary: { runs: 100 }
    })
  })
})

// -------------------------------------------------------------------------------------------------------------
// Offered to providers and listed over MCP, whatever the root of the schema
// -------------------------------------------------------------------------------------------------------------

/** A tools/list result as the official MCP SDK's client reads it: whether it accepts it, and where it does not. */
const sdkAccepts = (tools: ReadonlyArray<unknown>): string => {
  const parsed = ListToolsResultSchema.safeParse(JSON.parse(JSON.stringify({ tools })))
  return parsed.success ? "accepted" : parsed.error.issues.map((issue) => issue.path.join(".")).join(", ")
}

const listed = (tool: Tool.Any) => JSON.parse(JSON.stringify(McpServer.toMcpTool(ToolDefinition.fromTool(tool))))

/** One object schema of a generated root: what `type`, `properties`, `required` and `additionalProperties` say. */
const PropertyKind = Schema.Literals(["string", "integer", "true", "false", "object", "nullable"])
const Part = Schema.Struct({
  type: Schema.Literals(["none", "object", "object-null", "object-list"]),
  properties: Schema.optionalKey(Schema.Struct({
    a: Schema.optionalKey(PropertyKind),
    b: Schema.optionalKey(PropertyKind),
    c: Schema.optionalKey(PropertyKind)
  })),
  required: Schema.Array(Schema.Literals(["a", "b", "c", "d"])),
  additional: Schema.Literals(["none", "false", "string"])
})
/**
 * A generated parameters schema: a part as it is, behind a root `$ref`, with a `$ref: "#"` below, or two in a root
 * `allOf`, `anyOf` or `oneOf`.
 */
const RootShape = Schema.Struct({
  form: Schema.Literals(["plain", "ref", "allOf", "anyOf", "oneOf", "recursive"]),
  base: Part,
  other: Part
})
/** Arguments over the keys the generated schemas name, and one they do not. */
const Value = Schema.Union([
  Schema.String,
  Schema.Int,
  Schema.Boolean,
  Schema.Null,
  Schema.Struct({ x: Schema.String })
])
const Arguments = Schema.Struct({
  a: Schema.optionalKey(Value),
  b: Schema.optionalKey(Value),
  c: Schema.optionalKey(Value),
  d: Schema.optionalKey(Value),
  next: Schema.optionalKey(Value)
})

const propertySchema = (kind: typeof PropertyKind.Type): unknown => {
  switch (kind) {
    case "string":
    case "integer":
      return { type: kind }
    case "true":
      return true
    case "false":
      return false
    case "object":
      return { type: "object", properties: { x: { type: "string" } }, required: ["x"] }
    case "nullable":
      return { type: ["string", "null"] }
  }
}

const partSchema = (part: typeof Part.Type): Record<string, unknown> => ({
  ...(part.type === "none"
    ? {}
    : { type: part.type === "object" ? "object" : part.type === "object-null" ? ["object", "null"] : ["object"] }),
  ...(part.properties === undefined ? {} : {
    properties: Object.fromEntries(Object.entries(part.properties).map(([key, kind]) => [key, propertySchema(kind)]))
  }),
  ...(part.required.length === 0 ? {} : { required: [...new Set(part.required)] }),
  ...(part.additional === "none"
    ? {}
    : { additionalProperties: part.additional === "false" ? false : { type: "string" } })
})

const rootSchema = ({ base, form, other }: typeof RootShape.Type): Record<string, unknown> => {
  switch (form) {
    case "plain":
      return partSchema(base)
    case "ref":
      return { $ref: "#/$defs/Args", description: "Arguments", $defs: { Args: partSchema(base) } }
    case "allOf":
    case "anyOf":
    case "oneOf":
      return { [form]: [partSchema(base), partSchema(other)] }
    case "recursive": {
      const schema = partSchema(base)
      return { ...schema, properties: { ...(schema.properties as object | undefined), next: { $ref: "#" } } }
    }
  }
}

/** The tool `DynamicTool.make` makes of a schema, or `undefined` when it refuses it (always with a TypeError). */
const madeOf = (parameters: Record<string, unknown>): Tool.Any | undefined => {
  try {
    return DynamicTool.make("generated", { description: "d", parameters, call: () => Effect.succeed("ok") })
  } catch (error) {
    assert.instanceOf(error, TypeError)
    return undefined
  }
}

describe("a runtime tool offered and listed, whatever the root of its schema", () => {
  const roots: ReadonlyArray<readonly [string, Record<string, unknown>, Record<string, unknown>]> = [
    ["empty", {}, { type: "object", properties: {} }],
    ["properties without a type", { properties: { q: { type: "string" } }, required: ["q"] }, {
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"]
    }],
    ["a nullable root", { type: ["object", "null"], properties: { q: { type: "string" } } }, {
      type: "object",
      properties: { q: { type: "string" } }
    }],
    ["zod 4's z.union", { anyOf: [{ type: "object", properties: { a: { type: "string" } } }] }, {
      type: "object",
      anyOf: [{ type: "object", properties: { a: { type: "string" } } }],
      properties: {}
    }],
    ["boolean property schemas", { type: "object", properties: { anything: true, nothing: false } }, {
      type: "object",
      properties: { anything: {}, nothing: { not: {} } }
    }]
  ]

  it("is listed over MCP with an object at the top, in a tools/list result the official SDK accepts", () => {
    for (const [label, parameters, inputSchema] of roots) {
      const tool = DynamicTool.make("search", { description: "d", parameters, call: () => Effect.succeed("ok") })
      const entry = listed(tool)
      assert.deepStrictEqual([entry.inputSchema, sdkAccepts([entry])], [inputSchema, "accepted"], label)
    }
    const Described = DynamicTool.make("described", {
      description: "d",
      parameters: { type: "object" },
      outputSchema: { type: "object", properties: { extra: true } },
      call: () => Effect.succeed({})
    })
    const entry = listed(Described)
    assert.deepStrictEqual([entry.outputSchema, sdkAccepts([entry])], [
      { type: "object", properties: { extra: {} } },
      "accepted"
    ])
  })

  it.effect("is served by McpServer.layer, and listed to a client", () =>
    Effect.gen(function*() {
      const connection = yield* McpServer.memory
      class Served extends Context.Service<Served, ToolSet.Service<never>>()("test/Served") {}
      const tools = roots.map(([, parameters], i) =>
        DynamicTool.make(`tool_${i}`, { description: "d", parameters, call: () => Effect.succeed("ok") })
      )
      yield* Layer.build(
        McpServer.layer(Served, { name: "runtime", version: "1.0.0" }).pipe(
          Layer.provide(connection.protocol),
          Layer.provide(ToolSet.toLayer(Served, ToolSet.make(...tools)))
        )
      )
      const answer = (id: number) =>
        Effect.gen(function*() {
          while (true) {
            const message = JSON.parse(yield* connection.receive) as { readonly id?: number; readonly result?: any }
            if (message.id === id) return message.result
          }
        })
      yield* connection.send(JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } }
      }))
      yield* answer(1)
      yield* connection.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
      yield* connection.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }))
      const result = yield* answer(2)
      assert.strictEqual(ListToolsResultSchema.safeParse(result).success, true)
      assert.deepStrictEqual(
        result.tools.map((tool: { readonly name: string; readonly inputSchema: unknown }) => [
          tool.name,
          tool.inputSchema
        ]),
        roots.map(([, , inputSchema], i) => [`tool_${i}`, inputSchema])
      )
    }).pipe(Effect.scoped))

  it("every real MCP tool schema of the retrieval catalogue is listed as the official SDK reads it", () => {
    const tools = catalogueTools.map((definition) =>
      listed(DynamicTool.make(definition.name, {
        description: definition.description ?? "",
        parameters: definition.inputSchema,
        call: () => Effect.void
      }))
    )
    assert.strictEqual(sdkAccepts(tools), "accepted")
  })

  it.prop(
    "for any root DynamicTool.make accepts: listed over MCP without throwing, offered by every adapter as a Result",
    [RootShape],
    ([shape]) => {
      const tool = madeOf(rootSchema(shape))
      if (tool === undefined) return
      assert.strictEqual(sdkAccepts([listed(tool)]), "accepted", JSON.stringify(rootSchema(shape)))
      const set = ToolSet.make(tool)
      const results: ReadonlyArray<Result.Result<unknown, unknown>> = [
        OpenAiChat.definitions(set),
        OpenAiChat.definitions(set, { strict: true }),
        OpenAiResponses.definitions(set),
        Anthropic.definitions(set),
        Anthropic.definitions(set, { strict: true }),
        Gemini.definitions(set),
        Gemini.definitions(set, { schema: "openApi" })
      ]
      for (const result of results) assert.isTrue(Result.isResult(result))
      const chat = OpenAiChat.definitions(set)
      if (Result.isSuccess(chat)) {
        const parameters = chat.success[0]!.function.parameters
        assert.deepStrictEqual(
          [parameters.type, Predicate.isObject(parameters.properties), parameters.allOf, parameters.anyOf],
          ["object", true, undefined, undefined]
        )
      }
    },
    { arbitrary: { runs: 300 } }
  )

  it.prop(
    "the definition's parameters accept exactly the arguments the given schema accepts",
    [RootShape, Arguments],
    ([shape, args]) => {
      const tool = madeOf(rootSchema(shape))
      if (tool === undefined) return
      const given = tool.jsonSchemas!.parameters
      const offered = ToolDefinition.fromTool(tool).parameters
      assert.strictEqual(
        Result.isSuccess(validatorOf(offered).validate(args)),
        Result.isSuccess(validatorOf(given).validate(args)),
        `${JSON.stringify(given)}\n${JSON.stringify(offered)}\n${JSON.stringify(args)}`
      )
    },
    { arbitrary: { runs: 300 } }
  )
})

// -------------------------------------------------------------------------------------------------------------
// portable
// -------------------------------------------------------------------------------------------------------------

const Shout = DynamicTool.portable("shout", {
  description: "Upper-case a text",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
  outputSchema: { type: "object", properties: { text: { type: "string" } } },
  annotations: { readOnly: true, timeout: "5 seconds" },
  call: (args) => Effect.succeed({ text: String(args.text).toUpperCase() })
})

const SpecJson = Schema.toCodecJson(DynamicTool.Spec)

describe("DynamicTool.portable", () => {
  it("is portable, and carries its spec: the schemas as given, the timeout as a Duration", () => {
    assert.isTrue(DynamicTool.isPortable(Shout))
    assert.isFalse(DynamicTool.isPortable(SearchDocs))
    assert.isFalse(DynamicTool.isPortable({ spec: Shout.spec }))
    assert.deepStrictEqual(Shout.spec, {
      name: "shout",
      description: "Upper-case a text",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
      outputSchema: { type: "object", properties: { text: { type: "string" } } },
      annotations: { readOnly: true, timeout: Duration.seconds(5) }
    })
  })

  it.effect("runs through ToolSet.execute like any tool, validation included", () =>
    Effect.gen(function*() {
      const set = ToolSet.make(Shout)
      const ok = yield* execute(set, call("shout", "{\"text\":\"hi\"}"))
      assert.deepStrictEqual(ok.output, ToolOutput.json({ text: "HI" }))
      const bad = yield* execute(set, call("shout", "{\"text\":1}"))
      assert.strictEqual(summarize(bad).message, "tool arguments did not match the schema:\n- $.text: must be string")
    }))

  it.effect("runs without a ToolContext: a call that reaches for one fails with other", () =>
    Effect.gen(function*() {
      const Sneaky = DynamicTool.portable("sneaky", {
        description: "Reads its call id, which a portable tool has not",
        parameters: { type: "object" },
        // A JavaScript caller is not held to the type.
        call: () => ToolContext.callId as unknown as Effect.Effect<string, ToolExecutionError.ToolExecutionError>
      })
      const result = yield* execute(ToolSet.make(Sneaky), call("sneaky", "{}"))
      assert.strictEqual(summarize(result).kind, "other")
      const cause = Option.getOrThrow(result.error).cause
      assert.include(String(cause === undefined ? undefined : Redacted.value(cause)), "effect-llm-tools/ToolContext")
    }))

  it("the spec round-trips through JSON, and makes the same tool again", () => {
    const text = JSON.stringify(Schema.encodeSync(SpecJson)(Shout.spec))
    assert.include(text, "\"timeout\":{\"_tag\":\"Millis\",\"value\":5000}")
    const back = Schema.decodeUnknownSync(SpecJson)(JSON.parse(text))
    assert.deepStrictEqual(back, Shout.spec)
    const again = DynamicTool.fromSpec(back, () => Effect.succeed("again"))
    assert.deepStrictEqual(again.spec, Shout.spec)
    assert.deepStrictEqual({ ...ToolDefinition.fromTool(again) }, { ...ToolDefinition.fromTool(Shout) })
  })

  it("an infinite timeout round-trips too", () => {
    const Forever = DynamicTool.portable("forever", {
      description: "d",
      parameters: { type: "object" },
      annotations: { timeout: Duration.infinity },
      call: () => Effect.void
    })
    const json = JSON.parse(JSON.stringify(Schema.encodeSync(SpecJson)(Forever.spec)))
    assert.deepStrictEqual(json.annotations, { timeout: { _tag: "Infinity" } })
    assert.deepStrictEqual(Schema.decodeUnknownSync(SpecJson)(json), Forever.spec)
  })

  it.prop(
    "every spec round-trips through its JSON text",
    [DynamicTool.Spec],
    ([spec]) => {
      const text = JSON.stringify(Schema.encodeSync(SpecJson)(spec))
      // JSON has no -0: the one change its text makes to the schemas.
      const expected = {
        ...spec,
        parameters: withoutNegativeZero(spec.parameters),
        ...(spec.outputSchema !== undefined ? { outputSchema: withoutNegativeZero(spec.outputSchema) } : {})
      }
      assert.deepStrictEqual(Schema.decodeUnknownSync(SpecJson)(JSON.parse(text)), expected)
    },
    { arbitrary: { runs: 100 } }
  )

  it("a spec of the wrong shape does not decode", () => {
    for (const bad of [
      { name: "x", description: 1, parameters: {}, annotations: {} },
      { name: "x", description: "d", parameters: [], annotations: {} },
      { name: "x", description: "d", parameters: {}, annotations: { timeout: "5 seconds" } },
      { name: "x", description: "d", parameters: {} }
    ]) {
      assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(SpecJson)(bad)), JSON.stringify(bad))
    }
  })
})
