/**
 * Our MCP server over an in-memory connection (`McpServer.memory`), and the direct path of its calls: a `tools/call` of
 * an initialized client goes from the transport to dispatch without Effect's MCP server, and answers as Effect's
 * server answers the same call before the client has initialized.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Option, Schema, Scope, Sink, Stdio, Stream } from "effect"
import { McpClientError } from "effect/ai"
import {
  DynamicTool,
  Tool,
  ToolContext,
  ToolExecutionError,
  ToolOutput,
  ToolResultContent,
  ToolServer,
  ToolSet
} from "../../src/index.ts"
import * as Direct from "../../src/mcp/internal/direct.ts"
import { answerIdOf, lineReader, Overlong } from "../../src/mcp/internal/lines.ts"
import { McpClient, McpServer } from "../../src/mcp/index.ts"
import { png } from "../fixtures/mcpData.ts"
import { Add, Meta, transferGuard } from "../support/tools.ts"

const Echo = Tool.make("echo", {
  description: "Echo the text back",
  parameters: Schema.Struct({ text: Schema.String }),
  call: ({ text }) => Effect.succeed(text)
})

const Fail = Tool.make("fail", {
  description: "Always fails",
  parameters: Schema.Struct({}),
  call: () => Effect.fail(ToolExecutionError.make("provider", "the upstream is down"))
})

const Media = Tool.make("media", {
  description: "Text and an image",
  parameters: Schema.Struct({}),
  call: () =>
    Effect.succeed(
      ToolOutput.content([ToolResultContent.text("a chart"), ToolResultContent.imageBase64(png, "image/png")])
    )
})

/** Reports progress and logs at every level it is given, in order. */
const Chatty = Tool.make("chatty", {
  description: "Reports progress and logs",
  parameters: Schema.Struct({ steps: Schema.Int }),
  call: ({ steps }) =>
    Effect.gen(function*() {
      for (let step = 1; step <= steps; step++) {
        yield* ToolContext.progress(step, steps, `step ${step}`)
        yield* Effect.logInfo(`info ${step}`)
        yield* Effect.logWarning(`warning ${step}`)
      }
      return `counted to ${steps}`
    })
})

const Transfer = Tool.make("transfer", {
  description: "Moves money",
  parameters: Schema.Struct({ amount: Schema.Number }),
  call: ({ amount }) => Effect.succeed(`sent ${amount}`)
})

/** Listed with an output schema, answers a text: an error, on both paths, with a note that says why. */
const Unstructured = DynamicTool.make("unstructured", {
  description: "An output schema, and a text",
  parameters: { type: "object", properties: {} },
  outputSchema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
  call: () => Effect.succeed("no object")
})

/** A tool that never answers, and says when it started and when its finalizers ran. */
const hanging = Effect.gen(function*() {
  const started = yield* Deferred.make<void>()
  const finalized = yield* Deferred.make<void>()
  const Hang = Tool.make("hang", {
    description: "Never answers",
    parameters: Schema.Struct({}),
    call: () =>
      Effect.andThen(Deferred.succeed(started, undefined), Effect.never).pipe(
        Effect.onInterrupt(() => Deferred.succeed(finalized, undefined))
      )
  })
  return { Hang, started, finalized }
})

class Tools extends Context.Service<Tools, ToolServer.ToolServer<McpServer.RequestMeta>>()("test/direct/Tools") {}

/** A server of `tools` over a fresh in-memory connection, its raw JSON-RPC in both directions. */
const connect = (extra: ReadonlyArray<Tool.Any> = []) =>
  Effect.gen(function*() {
    const connection = yield* McpServer.memory
    yield* Layer.build(
      McpServer.layer(Tools, { name: "direct", version: "1.0.0" }).pipe(
        Layer.provide(connection.protocol),
        Layer.provide(ToolServer.layer(Tools, {
          tools: ToolSet.make(Echo, Add, Fail, Media, Meta, Chatty, Transfer, ...extra),
          hooks: [transferGuard]
        }))
      )
    )
    const send = (message: object) => connection.send(JSON.stringify(message))
    /** The messages the server wrote, up to and with the response to `id`. */
    const until = (id: number | string) =>
      Effect.gen(function*() {
        const seen: Array<any> = []
        while (true) {
          const message = JSON.parse(yield* connection.receive)
          seen.push(message)
          if (message.id === id && !("method" in message)) return seen
        }
      })
    const initialize = (id: number) =>
      Effect.gen(function*() {
        yield* send({
          jsonrpc: "2.0",
          id,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "direct", version: "1" } }
        })
        yield* until(id)
      })
    const initialized = send({ jsonrpc: "2.0", method: "notifications/initialized" })
    return { connection, send, until, initialize, initialized }
  })

const call = (id: number | string, name: string, args?: unknown, meta?: object) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, ...(args === undefined ? {} : { arguments: args }), ...(meta === undefined ? {} : { _meta: meta }) }
})

/** The last message of `messages` (a response), without its id. */
const answer = (messages: ReadonlyArray<any>) => {
  const { id: _, ...rest } = messages[messages.length - 1]
  return rest
}

describe("McpServer over an in-memory connection: the direct path", () => {
  it.effect("a call of a tool that answers at once is answered before send returns", () =>
    Effect.gen(function*() {
      const { connection, initialize, initialized, send } = yield* connect()
      yield* initialize(1)
      yield* initialized
      // Synchronously: the answer is in when send returns.
      Effect.runSync(send(call(2, "add", { left: 2, right: 3 })))
      assert.deepStrictEqual(JSON.parse(Effect.runSync(connection.receive)), {
        jsonrpc: "2.0",
        id: 2,
        result: { content: [{ type: "text", text: "{\"value\":5}" }], structuredContent: { value: 5 } }
      })
    }).pipe(Effect.scoped))

  const cases: ReadonlyArray<readonly [string, string, unknown, object?]> = [
    ["text", "echo", { text: "hi" }],
    ["structured content", "add", { left: 1, right: 2 }],
    ["bad arguments", "add", { left: "one" }],
    ["arguments left out", "add", undefined],
    ["a tool's failure", "fail", {}],
    ["a denied call", "transfer", { amount: 500 }],
    ["text and an image", "media", {}],
    ["the request's _meta", "meta", {}, { traceId: "abc" }],
    ["a tool that is not served", "nope", {}],
    ["an output without the structured content its output schema describes", "unstructured", {}],
    ["arguments that are not an object", "echo", ["hi"]],
    ["progress and logs", "chatty", { steps: 2 }, { progressToken: "p1" }]
  ]

  // Live: a call that reported progress waits a few milliseconds before it answers.
  it.live("answers every kind of call as Effect's server does before the client has initialized", () =>
    Effect.gen(function*() {
      for (const [what, name, args, meta] of cases) {
        const { initialize, initialized, send, until } = yield* connect([Unstructured])
        yield* initialize(1)
        // Before `notifications/initialized`: Effect's server answers.
        yield* send(call(2, name, args, meta))
        const before = yield* until(2)
        yield* initialized
        yield* send(call(3, name, args, meta))
        const after = yield* until(3)
        assert.deepStrictEqual(answer(after), answer(before), what)
        if (name === "nope" || name === "unstructured") assert.strictEqual(answer(after).result.isError, true, what)
        // The same progress, in the same order, before the answer. (Effect's server sends no logs to a client that has
        // not initialized: logs are compared over stdio and HTTP, in McpServer.test.ts.)
        const progress = (messages: ReadonlyArray<any>) =>
          messages.filter((message) => message.method === "notifications/progress")
        assert.deepStrictEqual(progress(after), progress(before), what)
        if (name === "chatty") assert.strictEqual(progress(before).length, 2)
        assert.deepStrictEqual(after.length - progress(after).length, 1 + (name === "chatty" ? 4 : 0), what)
      }
    }).pipe(Effect.scoped))

  it.effect.prop(
    "any JSON as arguments gets the same answer on the direct path as through Effect's server",
    [Schema.Json],
    ([args]) =>
      Effect.gen(function*() {
        const { initialize, initialized, send, until } = yield* connect()
        yield* initialize(1)
        yield* send(call(2, "add", args))
        const before = yield* until(2)
        yield* initialized
        yield* send(call(3, "add", args))
        assert.deepStrictEqual(answer(yield* until(3)), answer(before))
      }).pipe(Effect.scoped),
    { arbitrary: { runs: 30 } }
  )

  it.live("sends progress, then logs at the client's level (info until it sets one), all before the result", () =>
    Effect.gen(function*() {
      const { initialize, initialized, send, until } = yield* connect()
      yield* initialize(1)
      yield* initialized
      yield* send(call(2, "chatty", { steps: 2 }, { progressToken: "p" }))
      const messages = yield* until(2)
      const shown = messages.map((m) =>
        m.method === "notifications/progress"
          ? `progress ${m.params.progress}/${m.params.total} ${m.params.message}`
          : m.method === "notifications/message"
          ? `${m.params.level} ${m.params.data}`
          : `result ${m.result.content[0].text}`
      )
      assert.deepStrictEqual(shown, [
        "progress 1/2 step 1",
        "info info 1",
        "warning warning 1",
        "progress 2/2 step 2",
        "info info 2",
        "warning warning 2",
        "result counted to 2"
      ])
      // A level set by the client filters what it hears.
      yield* send({ jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "warning" } })
      yield* until(3)
      yield* send(call(4, "chatty", { steps: 1 }))
      assert.deepStrictEqual(
        (yield* until(4)).filter((m) => m.method === "notifications/message").map((m) => m.params.data),
        ["warning 1"]
      )
    }).pipe(Effect.scoped))

  it.effect("a cancelled call is interrupted, its finalizers run, and it is not answered", () =>
    Effect.gen(function*() {
      const { Hang, finalized, started } = yield* hanging
      const { initialize, initialized, send, until } = yield* connect([Hang])
      yield* initialize(1)
      yield* initialized
      yield* send(call("h1", "hang", {}))
      yield* Deferred.await(started)
      yield* send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "h1" } })
      yield* Deferred.await(finalized)
      // The connection goes on; the cancelled call never answers.
      yield* send(call(2, "echo", { text: "still here" }))
      const after = yield* until(2)
      assert.deepStrictEqual(after.map((m) => m.id), [2])
    }).pipe(Effect.scoped))

  it.effect("a running call is interrupted when the server stops, and its finalizers run", () =>
    Effect.gen(function*() {
      const { Hang, finalized, started } = yield* hanging
      const scope = yield* Scope.make()
      const { initialize, initialized, send } = yield* Scope.provide(connect([Hang]), scope)
      yield* initialize(1)
      yield* initialized
      yield* send(call(2, "hang", {}))
      yield* Deferred.await(started)
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* Deferred.isDone(finalized))
    }))

  it.effect("a call whose execution dies is answered as Effect's server answers it, and the connection goes on", () =>
    Effect.gen(function*() {
      class Dying extends Context.Service<Dying, McpServer.Serveable>()("test/direct/Dying") {}
      const set = ToolSet.make(Echo)
      const connection = yield* McpServer.memory
      yield* Layer.build(
        McpServer.layer(Dying, { name: "dying", version: "1.0.0" }).pipe(
          Layer.provide(connection.protocol),
          Layer.provide(Layer.succeed(Dying, {
            definitions: ToolSet.definitions(set),
            execute: (call) =>
              (call.arguments as { text?: string }).text === "die" ? Effect.die("boom") : ToolSet.execute(set, call)
          }))
        )
      )
      const read = (id: number) =>
        Effect.gen(function*() {
          while (true) {
            const message = JSON.parse(yield* connection.receive)
            if (message.id === id) return message
          }
        })
      const send = (message: object) => connection.send(JSON.stringify(message))
      yield* send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "dying", version: "1" } }
      })
      yield* read(1)
      yield* send(call(2, "echo", { text: "die" }))
      const before = yield* read(2)
      yield* send({ jsonrpc: "2.0", method: "notifications/initialized" })
      yield* send(call(3, "echo", { text: "die" }))
      const after = yield* read(3)
      assert.deepStrictEqual({ ...after, id: 2 }, before)
      assert.strictEqual(after.error.code, -32603)
      assert.notInclude(JSON.stringify(after), "boom")
      yield* send(call(4, "echo", { text: "alive" }))
      assert.deepStrictEqual((yield* read(4)).result.content, [{ type: "text", text: "alive" }])
    }).pipe(Effect.scoped))

  it.effect("text that is no message is answered, with a null id, and the connection goes on", () =>
    Effect.gen(function*() {
      const { connection, initialize, send, until } = yield* connect()
      yield* connection.send("{ not json")
      assert.deepStrictEqual(JSON.parse(yield* connection.receive), {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error" }
      })
      for (const text of ["null", "[]", "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", "{\"a\":1}"]) {
        yield* connection.send(text)
        assert.deepStrictEqual(JSON.parse(yield* connection.receive), {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "Invalid Request" }
        }, text)
      }
      // Before `initialize`, a request other than ping is refused, saying so; ping is answered.
      yield* send({ jsonrpc: "2.0", id: 9, method: "tools/list" })
      const { code, message } = answer(yield* until(9)).error
      assert.deepStrictEqual({ code, message }, {
        code: -32600,
        message: "Invalid Request: the session is not initialized; send initialize first"
      })
      yield* send({ jsonrpc: "2.0", id: 10, method: "ping" })
      assert.deepStrictEqual(answer(yield* until(10)), { jsonrpc: "2.0", result: {} })
      yield* initialize(1)
      yield* send({ jsonrpc: "2.0", id: 2, method: "ping" })
      assert.deepStrictEqual(answer(yield* until(2)), { jsonrpc: "2.0", result: {} })
    }).pipe(Effect.scoped))
})

describe("McpServer.memory: its transport, for McpClient", () => {
  it.effect("imports the server's tools, and calls them", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect()
      const client = yield* McpClient.fromTransport(connection.transport)
      const imported = ToolSet.make(...(yield* McpClient.tools(client)))
      const result = yield* ToolSet.execute(imported, {
        id: "c1",
        name: "add",
        arguments: "{\"left\":20,\"right\":22}"
      })
      assert.deepStrictEqual(ToolOutput.asJson(result.output), Option.some({ value: 42 }))
      const denied = yield* ToolSet.execute(imported, { id: "c2", name: "transfer", arguments: { amount: 500 } })
      assert.strictEqual(denied.status, "error")
    }).pipe(Effect.scoped))

  it.live("a call that times out cancels the server's call: its finalizers run", () =>
    Effect.gen(function*() {
      const { Hang, finalized } = yield* hanging
      const { connection } = yield* connect([Hang])
      const client = yield* McpClient.fromTransport(connection.transport)
      const imported = ToolSet.make(...(yield* McpClient.tools(client, { timeout: "50 millis" })))
      const result = yield* ToolSet.execute(imported, { id: "c1", name: "hang", arguments: {} })
      assert.deepStrictEqual(Option.map(result.error, (e) => e.kind), Option.some("timeout"))
      yield* Deferred.await(finalized)
    }).pipe(Effect.scoped))

  it.effect("a request after the server stopped fails with McpClientError, and one waiting then fails too", () =>
    Effect.gen(function*() {
      const { Hang, started } = yield* hanging
      const scope = yield* Scope.make()
      const { connection } = yield* Scope.provide(connect([Hang]), scope)
      const request = (id: string, method: string) =>
        connection.transport.request({ jsonrpc: "2.0", id, method, params: {} } as never)
      // Initialized, as a client is.
      yield* McpClient.fromTransport(connection.transport)
      const waiting = yield* Effect.forkChild(
        connection.transport.request(
          { jsonrpc: "2.0", id: "w", method: "tools/call", params: { name: "hang" } } as never
        )
      )
      yield* Deferred.await(started)
      yield* Scope.close(scope, Exit.void)
      assert.instanceOf(yield* Effect.flip(Fiber.join(waiting)), McpClientError.McpClientError)
      const after = yield* Effect.flip(request("a", "ping"))
      assert.instanceOf(after, McpClientError.McpClientError)
    }))
})

describe("McpServer over stdio: the direct path reads lines as they come", () => {
  /** A Stdio whose input is `chunks`, and whose output is collected in `written`. */
  const fakeStdio = (chunks: ReadonlyArray<Uint8Array>, written: Array<string>) =>
    Stdio.make({
      args: Effect.succeed([]),
      stdin: Stream.fromIterable(chunks),
      stdout: () =>
        Sink.forEach((chunk: string | Uint8Array) =>
          Effect.sync(() => {
            written.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk))
          })
        ),
      stderr: () => Sink.drain
    })

  /** Splits `text` into chunks of `size` bytes: lines, and characters, cut anywhere. */
  const chunked = (text: string, size: number): Array<Uint8Array> => {
    const bytes = new TextEncoder().encode(text)
    const chunks: Array<Uint8Array> = []
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size))
    return chunks
  }

  const lines = [
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25" } }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    JSON.stringify(call(2, "echo", { text: "héllo ✓ 🎉" })),
    "not json at all",
    JSON.stringify([call(3, "echo", { text: "in a batch" })]),
    JSON.stringify(call(4, "unknown", {})),
    `  ${JSON.stringify(call(5, "echo", { text: "spaced" }))}\r`,
    JSON.stringify({ jsonrpc: "2.0", id: 6, method: "ping" }),
    JSON.stringify(call(8, "boom", {})),
    " \t",
    "null",
    JSON.stringify({ jsonrpc: "2.0", id: null, method: "ping" })
  ]
  const input = `${lines.join("\n")}\n${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" })}`
  // What Effect's server reads: every message the direct path does not take, as it came; the last, unended, too.
  // Lines that are no message are not: one it cannot read would cost every message read with it.
  const forwarded = [lines[0], lines[1], lines[4], lines[7]].map((line) => `${line}\n`).join("") +
    JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" })

  it.effect.prop(
    "the calls it takes are answered on stdout, and Effect's server reads the rest as they came",
    [Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 40 }))],
    ([size]) =>
      Effect.gen(function*() {
        const direct = new Direct.Direct()
        direct.serves = (name) => name === "echo" || name === "boom"
        direct.serve = (_, name, args) =>
          name === "echo"
            ? Effect.succeed({ content: [{ type: "text", text: args.text }] })
            : name === "boom"
            ? Effect.die("boom")
            : Effect.succeed({ content: [{ type: "text", text: `${name} not found` }], isError: true })
        const written: Array<string> = []
        const context = yield* Layer.build(
          Direct.stdio(direct, 1024 * 1024).pipe(
            Layer.provide(Layer.succeed(Stdio.Stdio, fakeStdio(chunked(input, size), written)))
          )
        )
        const stdio = Context.get(context, Stdio.Stdio)
        const read = yield* Stream.runCollect(Stream.decodeText(stdio.stdin))
        assert.deepStrictEqual(read.join("").split("\n"), forwarded.split("\n"))
        while (written.join("").split("\n").length < 8) yield* Effect.yieldNow
        const answers = written.join("").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
        assert.deepStrictEqual(answers, [
          { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "héllo ✓ 🎉" }] } },
          // Text that is not JSON, JSON that is no message, a request with a null id: answered, with a null id.
          { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
          // A tool that is not served: its not_found result, never Effect's protocol error.
          { jsonrpc: "2.0", id: 4, result: { content: [{ type: "text", text: "unknown not found" }], isError: true } },
          { jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "spaced" }] } },
          // A call that died: JSON-RPC's internal error, as Effect's stdio server writes one.
          { jsonrpc: "2.0", id: 8, error: { code: -32603, message: "Internal error" } },
          { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } },
          { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } }
        ])
      }).pipe(Effect.scoped),
    { arbitrary: { runs: 25 } }
  )

  it.effect.prop(
    "a line over maxMessageBytes is never held whole: it is answered as too large, to the request its start names",
    [Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 600 }))],
    ([size]) =>
      Effect.gen(function*() {
        const direct = new Direct.Direct()
        direct.serves = (name) => name === "echo"
        direct.serve = (_, __, args) => Effect.succeed({ content: [{ type: "text", text: args.text }] })
        const big = "x".repeat(5000)
        const input = [
          JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25" } }),
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
          JSON.stringify(call(2, "echo", { text: big })),
          // Nothing but the members before one that holds an object can be told: a method and no id is a notification.
          JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { arguments: { text: big } }, id: 3 }),
          // No method and no id before it: what it is cannot be told, answered with a null id.
          JSON.stringify({ jsonrpc: "2.0", params: { arguments: { text: big } }, method: "tools/call", id: 9 }),
          JSON.stringify(call(4, "echo", { text: "small" })),
          // A response and a notification, too large: nothing answers them.
          JSON.stringify({ jsonrpc: "2.0", id: 2, result: { text: big } }),
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { text: big } }),
          // Unended, and too large.
          JSON.stringify({ jsonrpc: "2.0", id: "last", method: "tools/call", params: { text: big } })
        ].join("\n")
        const written: Array<string> = []
        const context = yield* Layer.build(
          Direct.stdio(direct, 1000).pipe(
            Layer.provide(Layer.succeed(Stdio.Stdio, fakeStdio(chunked(input, size), written)))
          )
        )
        const stdio = Context.get(context, Stdio.Stdio)
        const read = yield* Stream.runCollect(Stream.decodeText(stdio.stdin))
        // Effect's server reads the initialization alone.
        assert.deepStrictEqual(read.join("").split("\n").filter((line) => line !== "").length, 2)
        while (written.join("").split("\n").length < 5) yield* Effect.yieldNow
        const answers = written.join("").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
        const tooLarge = { code: -32600, message: "Invalid Request: the message is larger than 1000 bytes" }
        assert.deepStrictEqual(answers, [
          { jsonrpc: "2.0", id: 2, error: tooLarge },
          { jsonrpc: "2.0", id: null, error: tooLarge },
          { jsonrpc: "2.0", id: 4, result: { content: [{ type: "text", text: "small" }] } },
          { jsonrpc: "2.0", id: "last", error: tooLarge }
        ])
      }).pipe(Effect.scoped),
    { arbitrary: { runs: 25 } }
  )
})

describe("the lines of a stream, bounded", () => {
  it("a line over the limit is read as its start alone, however it is cut; the lines around it as they came", () => {
    const text = `short\n${"y".repeat(10_000)}\nalso short\n${"z".repeat(50)}`
    const bytes = new TextEncoder().encode(text)
    for (const size of [1, 7, 64, 5000, bytes.length]) {
      const reader = lineReader(20)
      const lines: Array<string | Overlong> = []
      for (let i = 0; i < bytes.length; i += size) lines.push(...reader.read(bytes.slice(i, i + size)))
      lines.push(reader.rest())
      // An over-long line keeps its start: what had come when it went over (at most 4096 units), to find its id in.
      assert.deepStrictEqual(lines.map((line) => line instanceof Overlong ? line.head[0] : line), [
        "short",
        "y",
        "also short",
        "z"
      ])
      for (const line of lines) {
        if (line instanceof Overlong) {
          assert.match(line.head, /^(y+|z+)$/)
          assert.isTrue(line.head.length > 20 && line.head.length <= 4096)
        }
      }
      // Nothing of the long line is held once it is known to be too long.
      assert.isAtMost(reader.pendingLength(), 20 + size)
    }
  })

  it("answerIdOf answers a request by its id, a response or a notification not at all, anything else with null", () => {
    const cases: Array<[string, string | number | null | undefined]> = [
      // Requests, as clients write them: the id among the first members whose values are scalars.
      ['{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{', 7],
      ['{ "id" : "a\\"b", "jsonrpc": "2.0", "method": "x", "params": {', 'a"b'],
      ['{"method":"tools/call","jsonrpc":"2.0","id":-1.5e3,"params"', -1500],
      ['{"i\\u0064":42,"method":"x","params":{', 42],
      ['{"id":1,"method":"x","id":2,"params":{', 2],
      // Responses (the client's ids are not the server's) and notifications: no answer.
      ['{"jsonrpc":"2.0","id":5,"result":{"content":[', undefined],
      ['{"jsonrpc":"2.0","id":5,"error":{', undefined],
      ['{"jsonrpc":"2.0","method":"notifications/progress","params":{', undefined],
      // What cannot be told: an invalid request, answered with a null id.
      ['{"jsonrpc":"2.0","params":{"id":1},"id":2', null],
      ['{"jsonrpc":"2.0","id":null,"method":"x",', null],
      ['{"jsonrpc":"2.0","id":true,"method":"x",', null],
      ['{"jsonrpc":"2.0","id":1e400,"method":"x",', null],
      ['[{"id":1}', null],
      ['xyz', null]
    ]
    for (const [head, id] of cases) assert.strictEqual(answerIdOf(head), id, head)
  })

  it("counts a line's limit in UTF-8 bytes", () => {
    const reader = lineReader(10)
    const text = `${"€".repeat(3)}\n${"€".repeat(4)}\n${"😀".repeat(3)}\n`
    const lines = reader.read(new TextEncoder().encode(text))
    // 9 bytes pass; 12 and 12 do not.
    assert.deepStrictEqual(lines.map((line) => typeof line === "string"), [true, false, false])
  })
})
