/**
 * Our MCP client, against real peers on this machine: `@modelcontextprotocol/server-everything` over stdio, a server
 * built with the official SDK (`test/fixtures/mcpClientPeer.ts`) for what server-everything never sends, and our own
 * server over Streamable HTTP on 127.0.0.1 (`test/fixtures/mcpServer.ts http`). What our client writes to a child's
 * standard input is recorded through a `ChildProcessSpawner` that taps it.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Context, Deferred, Effect, Fiber, Layer, Logger, Option, Result, Schedule, Schema, Sink, Stream } from "effect"
import { McpClient as EffectMcpClient, McpProtocol } from "effect/ai"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { spawn } from "node:child_process"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { createRequire } from "node:module"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  DynamicTool,
  ToolExecutionError,
  ToolServer,
  ToolOutput,
  ToolResult,
  ToolResultContent,
  ToolSet
} from "../../src/index.ts"
import { McpClient, McpContent } from "../../src/mcp/index.ts"

const require = createRequire(import.meta.url)
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const peer = fileURLToPath(new URL("../fixtures/mcpClientPeer.ts", import.meta.url))
const rawPeer = fileURLToPath(new URL("../fixtures/mcpRawPeer.ts", import.meta.url))
const github = require.resolve("@modelcontextprotocol/server-github/dist/index.js")
const filesystem = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js")
const ourServer = fileURLToPath(new URL("../fixtures/mcpServer.ts", import.meta.url))

// ---------------------------------------------------------------------------------------------------------------------
// The wire
// ---------------------------------------------------------------------------------------------------------------------

/** Every JSON-RPC message our client wrote to the children it spawned, in order. */
class Sent extends Context.Service<Sent, Array<Record<string, unknown>>>()("test/McpClient/Sent") {}

/** The process ids of the children spawned. */
class Pids extends Context.Service<Pids, Array<number>>()("test/McpClient/Pids") {}

const decoder = new TextDecoder()

/** Node's spawner, with every line written to a child's stdin recorded in {@link Sent}. */
const TappedSpawner = Layer.effect(ChildProcessSpawner.ChildProcessSpawner)(Effect.gen(function*() {
  const inner = yield* ChildProcessSpawner.ChildProcessSpawner
  const sent = yield* Sent
  const pids = yield* Pids
  let buffer = ""
  const record = (chunk: Uint8Array) => {
    buffer += decoder.decode(chunk, { stream: true })
    let end: number
    while ((end = buffer.indexOf("\n")) >= 0) {
      sent.push(JSON.parse(buffer.slice(0, end)) as Record<string, unknown>)
      buffer = buffer.slice(end + 1)
    }
    return chunk
  }
  return ChildProcessSpawner.make((command) =>
    Effect.map(inner.spawn(command), (handle) => {
      pids.push(handle.pid)
      return ChildProcessSpawner.makeHandle({ ...handle, stdin: Sink.mapInput(handle.stdin, record) })
    })
  )
})).pipe(Layer.provide(NodeServices.layer))

const Wire = Layer.provideMerge(TappedSpawner, Layer.merge(Layer.sync(Sent)(() => []), Layer.sync(Pids)(() => [])))

/** Whether a process of this id is running (signal 0 only checks). */
const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const sentOf = (sent: ReadonlyArray<Record<string, unknown>>, method: string) =>
  sent.filter((message) => message.method === method)

/** Waits until the wire holds a message that `match` accepts: our client writes a cancellation in the background. */
const awaitSent = (match: (message: Record<string, unknown>) => boolean) =>
  Effect.gen(function*() {
    const sent = yield* Sent
    yield* Effect.suspend(() => sent.some(match) ? Effect.void : Effect.fail("not yet")).pipe(
      Effect.retry(Schedule.spaced("20 millis")),
      Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die("the message never reached the wire") })
    )
  })

// ---------------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------------

const call = (name: string, args: unknown, id = "call_1") => ({ id, name, arguments: args })

const errorOf = (result: ToolResult.ToolResult) => Option.getOrThrow(result.error)

/** The SDK client's own list of server-everything's tools, for comparison: the oracle. Asked once. */
let sdkTools: ReturnType<typeof listWithSdk> | undefined
const sdkToolList = () => (sdkTools ??= listWithSdk())
const listWithSdk = async () => {
  const client = new Client({ name: "oracle", version: "1.0.0" }, { capabilities: {} })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [everything, "stdio"], stderr: "ignore" })
  )
  try {
    return (await client.listTools()).tools
  } finally {
    await client.close()
  }
}

class Everything extends Context.Service<Everything, {
  readonly client: McpClient.McpClient
  readonly tools: ReadonlyArray<DynamicTool.PortableTool>
  readonly set: ToolSet.ToolSet<DynamicTool.PortableTool>
}>()("test/McpClient/Everything") {}

const EverythingLive = Layer.effect(Everything)(Effect.gen(function*() {
  const client = yield* McpClient.stdio({ command: process.execPath, args: [everything, "stdio"] })
  const tools = yield* McpClient.tools(client, { prefix: "ev_" })
  return { client, tools, set: ToolSet.make(...tools) }
})).pipe(Layer.provideMerge(Wire))

// ---------------------------------------------------------------------------------------------------------------------
// server-everything over stdio
// ---------------------------------------------------------------------------------------------------------------------

layer(EverythingLive, { excludeTestServices: true, timeout: "60 seconds" })("server-everything over stdio", (it) => {
  it.effect("connects: the server names itself", () =>
    Effect.gen(function*() {
      const { client } = yield* Everything
      assert.isTrue(McpClient.isMcpClient(client))
      assert.strictEqual(client.serverInfo?.name, "mcp-servers/everything")
      assert.strictEqual(client.protocolVersion, "2025-11-25")
    }))

  it.effect("imports every tool it lists without extra client capabilities, named with the prefix", () =>
    Effect.gen(function*() {
      const { tools } = yield* Everything
      const listed = yield* Effect.promise(sdkToolList)
      const callable = listed.filter((tool) => tool.execution?.taskSupport !== "required").map((tool) => `ev_${tool.name}`)
      assert.isAbove(callable.length, 10)
      assert.deepStrictEqual(tools.map((tool) => tool.name).sort(), callable.sort())
    }))

  it.effect("keeps the schemas, the description, the title and the hints the server gave", () =>
    Effect.gen(function*() {
      const { tools } = yield* Everything
      const listed = yield* Effect.promise(sdkToolList)
      const sum = listed.find((tool) => tool.name === "get-sum")!
      const structured = listed.find((tool) => tool.name === "get-structured-content")!
      const spec = tools.find((tool) => tool.name === "ev_get-sum")!.spec
      // The server's draft-07 schema, in 2020-12 as every definition is: it needs nothing but its `$schema` gone.
      const { $schema, ...parameters } = sum.inputSchema as DynamicTool.Spec["parameters"]
      assert.strictEqual($schema, "http://json-schema.org/draft-07/schema#")
      assert.deepStrictEqual(spec, {
        name: "ev_get-sum",
        description: sum.description!,
        parameters,
        annotations: { title: "Get Sum Tool", readOnly: true, destructive: false, idempotent: true, openWorld: false }
      })
      assert.deepStrictEqual(
        tools.find((tool) => tool.name === "ev_get-structured-content")!.spec.outputSchema,
        structured.outputSchema as DynamicTool.Spec["parameters"]
      )
    }))

  it.effect("echo and get-sum answer through ToolSet.execute", () =>
    Effect.gen(function*() {
      const { set } = yield* Everything
      const echo = yield* ToolSet.execute(set, call("ev_echo", { message: "hello" }))
      const sum = yield* ToolSet.execute(set, call("ev_get-sum", { a: 2, b: 3 }))
      assert.deepStrictEqual([echo.status, echo.output], ["success", ToolOutput.text("Echo: hello")])
      assert.deepStrictEqual([sum.status, sum.output], ["success", ToolOutput.text("The sum of 2 and 3 is 5.")])
    }))

  it.effect("get-tiny-image keeps the image, between its texts", () =>
    Effect.gen(function*() {
      const { set } = yield* Everything
      const result = yield* ToolSet.execute(set, call("ev_get-tiny-image", {}))
      const [before, image, after] = result.output.content
      assert.strictEqual(result.output.content.length, 3)
      assert.deepStrictEqual(before, ToolResultContent.text("Here's the image you requested:"))
      assert.deepStrictEqual(after, ToolResultContent.text("The image above is the MCP logo."))
      assert.instanceOf(image, ToolResultContent.Image)
      const png = image as ToolResultContent.Image
      assert.strictEqual(png.mediaType, "image/png")
      assert.strictEqual(png.source._tag, "Base64")
      // The PNG signature, as the server sent it: the data is its wire base64, untouched.
      assert.deepStrictEqual([...Buffer.from((png.source as { data: string }).data, "base64").subarray(0, 4)],
        [137, 80, 78, 71])
    }))

  it.effect("get-resource-links gives resource links", () =>
    Effect.gen(function*() {
      const { set } = yield* Everything
      const result = yield* ToolSet.execute(set, call("ev_get-resource-links", { count: 2 }))
      assert.deepStrictEqual(result.output.content.slice(1), [
        ToolResultContent.resourceLink({
          uri: "demo://resource/dynamic/blob/1",
          name: "Blob Resource 1",
          description: "Resource 1: plaintext resource",
          mediaType: "text/plain"
        }),
        ToolResultContent.resourceLink({
          uri: "demo://resource/dynamic/text/2",
          name: "Text Resource 2",
          description: "Resource 2: plaintext resource",
          mediaType: "text/plain"
        })
      ])
    }))

  it.effect("get-resource-reference keeps the uri of a text resource and of a blob", () =>
    Effect.gen(function*() {
      const { set } = yield* Everything
      const text = (yield* ToolSet.execute(set, call("ev_get-resource-reference", { resourceType: "Text", resourceId: 1 })))
        .output.content[1]
      const blob = (yield* ToolSet.execute(set, call("ev_get-resource-reference", { resourceType: "Blob", resourceId: 2 })))
        .output.content[1]
      assert.instanceOf(text, ToolResultContent.Text)
      assert.deepStrictEqual(
        [(text as ToolResultContent.Text).uri, (text as ToolResultContent.Text).mediaType],
        ["demo://resource/dynamic/text/1", "text/plain"]
      )
      assert.match((text as ToolResultContent.Text).text, /^Resource 1: This is a plaintext resource/)
      // A blob of a media type that is not an image reads as a File, its uri kept.
      assert.instanceOf(blob, ToolResultContent.File)
      const file = blob as ToolResultContent.File
      assert.deepStrictEqual([file.uri, file.mediaType], ["demo://resource/dynamic/blob/2", "text/plain"])
      assert.match(Buffer.from((file.source as { data: string }).data, "base64").toString(), /^Resource 2: /)
    }))

  it.effect("get-structured-content gives one Json block, checked against the outputSchema", () =>
    Effect.gen(function*() {
      const { set } = yield* Everything
      const result = yield* ToolSet.execute(set, call("ev_get-structured-content", { location: "Chicago" }))
      assert.strictEqual(result.status, "success")
      const json = Option.getOrThrow(ToolOutput.asJson(result.output)) as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(json).sort(), ["conditions", "humidity", "temperature"])
      assert.strictEqual(typeof json.temperature, "number")
    }))

  it.effect("get-annotated-message keeps the annotations", () =>
    Effect.gen(function*() {
      const { set } = yield* Everything
      const result = yield* ToolSet.execute(set, call("ev_get-annotated-message", { messageType: "error" }))
      const [first] = result.output.content
      assert.deepStrictEqual(first, new ToolResultContent.Text({
        text: "Error: Operation failed",
        annotations: { priority: 1, audience: ["user", "assistant"] }
      }))
    }))

  it.effect("bad arguments are refused locally: nothing is sent", () =>
    Effect.gen(function*() {
      const { set } = yield* Everything
      const sent = yield* Sent
      const before = sentOf(sent, "tools/call").length
      const missing = yield* ToolSet.execute(set, call("ev_get-sum", { a: 1 }))
      const wrongType = yield* ToolSet.execute(set, call("ev_get-sum", { a: "1", b: 2 }))
      const notObject = yield* ToolSet.execute(set, call("ev_echo", "[1]"))
      assert.deepStrictEqual([missing, wrongType, notObject].map((result) => errorOf(result).kind),
        ["invalid_args", "invalid_args", "invalid_args"])
      assert.match(errorOf(missing).message, /b/)
      assert.strictEqual(sentOf(sent, "tools/call").length, before)
      // The same tool with good arguments does reach the server: the count can move.
      yield* ToolSet.execute(set, call("ev_get-sum", { a: 1, b: 2 }))
      assert.strictEqual(sentOf(sent, "tools/call").length, before + 1)
    }))

  it.effect("a timeout shorter than the run: kind timeout, and the server is told to cancel", () =>
    Effect.gen(function*() {
      const { client } = yield* Everything
      const [slow] = (yield* McpClient.tools(client, { timeout: "300 millis" }))
        .filter((tool) => tool.name === "trigger-long-running-operation")
      const result = yield* ToolSet.execute(ToolSet.make(slow!), call(slow!.name, { duration: 30, steps: 3 }))
      assert.strictEqual(errorOf(result).kind, "timeout")
      const sent = yield* Sent
      const request = sent.filter((message) =>
        message.method === "tools/call" &&
        (message.params as { name: string }).name === "trigger-long-running-operation"
      ).at(-1)!
      yield* awaitSent((message) =>
        message.method === "notifications/cancelled" &&
        (message.params as { requestId: unknown }).requestId === request.id
      )
      // The connection is still good for the next call.
      const echo = yield* ToolSet.execute(ToolSet.make(...(yield* McpClient.tools(client))), call("echo", { message: "after" }))
      assert.deepStrictEqual(echo.output, ToolOutput.text("Echo: after"))
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// An SDK server that sends what it is told to
// ---------------------------------------------------------------------------------------------------------------------

class Peer extends Context.Service<Peer, {
  readonly tools: ReadonlyArray<DynamicTool.PortableTool>
  readonly set: ToolSet.ToolSet<DynamicTool.PortableTool>
  readonly warnings: ReadonlyArray<string>
}>()("test/McpClient/Peer") {}

const PeerLive = Layer.effect(Peer)(Effect.gen(function*() {
  const client = yield* McpClient.stdio({ command: process.execPath, args: ["--import", "tsx", peer] })
  const warnings: Array<string> = []
  const tools = yield* McpClient.tools(client).pipe(
    Effect.provide(Logger.layer([Logger.make((options) => {
      if (options.logLevel === "Warn") warnings.push(String(options.message))
    })]))
  )
  return { tools, set: ToolSet.make(...tools), warnings }
}))

layer(PeerLive, { excludeTestServices: true, timeout: "60 seconds" })("an SDK server", (it) => {
  it.effect("tools that cannot be imported are left out, with a warning naming each", () =>
    Effect.gen(function*() {
      const { tools, warnings } = yield* Peer
      assert.deepStrictEqual(tools.map((tool) => tool.name), ["weather", "fail", "unpadded", "exit", "plain"])
      assert.strictEqual(warnings.length, 2)
      assert.match(warnings[0]!, /`bad schema` is not imported/)
      assert.match(warnings[1]!, /`broken` is not imported/)
    }))

  it.effect("a tool without hints gets none of MCP's defaults", () =>
    Effect.gen(function*() {
      const { tools } = yield* Peer
      assert.deepStrictEqual(tools.find((tool) => tool.name === "plain")!.spec.annotations, {})
    }))

  it.effect("structured content that matches the outputSchema is one Json block", () =>
    Effect.gen(function*() {
      const { set } = yield* Peer
      const result = yield* ToolSet.execute(set, call("weather", { mode: "good" }))
      assert.deepStrictEqual([result.status, result.output], ["success", ToolOutput.json({ celsius: 21 })])
    }))

  it.effect("structured content that breaks the outputSchema, or is missing, is kind other", () =>
    Effect.gen(function*() {
      const { set } = yield* Peer
      const bad = yield* ToolSet.execute(set, call("weather", { mode: "bad" }))
      const mixed = yield* ToolSet.execute(set, call("weather", { mode: "mixed" }))
      const missing = yield* ToolSet.execute(set, call("weather", { mode: "missing" }))
      assert.deepStrictEqual([bad, mixed, missing].map((result) => errorOf(result).kind), ["other", "other", "other"])
      assert.match(errorOf(bad).message, /\$\.celsius/)
      assert.match(errorOf(mixed).message, /\$\.celsius/)
      assert.match(errorOf(missing).message, /without structuredContent/)
      // What the model sees says nothing of the server's values.
      assert.deepStrictEqual(errorOf(bad).modelOutput, ToolOutput.text(ToolExecutionError.safeDefault("other")))
    }))

  it.effect("dispatch alone refuses a Json output that breaks the outputSchema", () =>
    Effect.gen(function*() {
      const { tools } = yield* Peer
      const weather = tools.find((tool) => tool.name === "weather")!
      // The same schemas, with a call that skips the client's own check: dispatch still checks the output.
      const local = DynamicTool.fromSpec(weather.spec, () => Effect.succeed({ celsius: "hot" }))
      const result = yield* ToolSet.execute(ToolSet.make(local), call("weather", { mode: "good" }))
      assert.strictEqual(errorOf(result).kind, "other")
      assert.match(errorOf(result).message, /outputSchema/)
    }))

  it.effect("isError: kind other, and the model sees the server's content", () =>
    Effect.gen(function*() {
      const { set } = yield* Peer
      const result = yield* ToolSet.execute(set, call("fail", {}))
      const error = errorOf(result)
      assert.deepStrictEqual([result.status, error.kind], ["error", "other"])
      assert.deepStrictEqual(result.output, ToolOutput.content([
        ToolResultContent.text("quota exceeded"),
        ToolResultContent.imageBase64("aGk=", "image/png")
      ]))
      assert.match(error.message, /quota exceeded/)
    }))

  it.effect("base64 without padding is kept as sent, not a failed call", () =>
    Effect.gen(function*() {
      const { set } = yield* Peer
      const result = yield* ToolSet.execute(set, call("unpadded", {}))
      assert.deepStrictEqual(result.output, ToolOutput.one(ToolResultContent.imageBase64("aGk", "image/png")))
    }))

  it.effect("a server that exits mid-call: kind provider, and later calls fail the same way", () =>
    Effect.gen(function*() {
      const { set } = yield* Peer
      const result = yield* ToolSet.execute(set, call("exit", {})).pipe(
        Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die("the call hung") })
      )
      assert.deepStrictEqual([result.status, errorOf(result).kind], ["error", "provider"])
      assert.match(errorOf(result).message, /TransportError/)
      const next = yield* ToolSet.execute(set, call("plain", {}))
      assert.strictEqual(errorOf(next).kind, "provider")
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// Connecting
// ---------------------------------------------------------------------------------------------------------------------

describe("connecting", () => {
  it.live("a program that cannot be spawned fails the connection", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.scoped(McpClient.stdio({ command: "/nonexistent/mcp-server" })))
      assert.strictEqual(error.reason._tag, "TransportError")
    }))

  it.live("maxMessageBytes bounds the messages read from the server: a larger answer ends the connection", () =>
    Effect.gen(function*() {
      const connect = (maxMessageBytes: number | undefined) =>
        McpClient.stdio({ command: process.execPath, args: ["--import", "tsx", ourServer, "stdio"], maxMessageBytes })
      const text = "x".repeat(100_000)
      const answered = yield* Effect.scoped(Effect.gen(function*() {
        const set = ToolSet.make(...(yield* McpClient.tools(yield* connect(undefined))))
        return yield* ToolSet.execute(set, call("echo", { text }))
      }))
      assert.deepStrictEqual(answered.output, ToolOutput.text(text))
      const cut = yield* Effect.scoped(Effect.gen(function*() {
        const set = ToolSet.make(...(yield* McpClient.tools(yield* connect(64 * 1024))))
        return yield* ToolSet.execute(set, call("echo", { text }))
      }))
      assert.deepStrictEqual([cut.status, errorOf(cut).kind], ["error", "provider"])
      assert.notInclude(JSON.stringify(cut.output), text)
      const refused = yield* Effect.flip(Effect.scoped(connect(0)))
      assert.include(refused.message, "maxMessageBytes")
    }), { timeout: 60_000 })

  it.live("closing the scope ends the child process", () =>
    Effect.gen(function*() {
      const pids = yield* Pids
      const running = yield* Effect.scoped(Effect.gen(function*() {
        yield* McpClient.stdio({ command: process.execPath, args: [everything, "stdio"] })
        return pids.map(isRunning)
      }))
      assert.deepStrictEqual(running, [true])
      assert.deepStrictEqual(pids.map(isRunning), [false])
    }).pipe(Effect.provide(Wire)))

  it.live("over Streamable HTTP, against our own server: echo through the imported tool", () =>
    Effect.gen(function*() {
      const port = yield* startOurServer
      const client = yield* McpClient.http({ url: `http://127.0.0.1:${port}/mcp` })
      assert.strictEqual(client.serverInfo?.name, "fixture")
      const tools = yield* McpClient.tools(client, { prefix: "ours_" })
      const echo = tools.find((tool) => tool.name === "ours_echo")!
      const { idempotent, readOnly, title } = echo.spec.annotations
      assert.deepStrictEqual({ title, readOnly, idempotent }, { title: "Echo", readOnly: true, idempotent: true })
      const result = yield* ToolSet.execute(ToolSet.make(...tools), call("ours_echo", { text: "over http" }))
      assert.deepStrictEqual([result.status, result.output], ["success", ToolOutput.text("over http")])
    }).pipe(Effect.scoped), { timeout: 60_000 })
})

describe("structuredContent: merged with the content, or one of them alone", () => {
  /** A directory holding `note.txt`, removed with the scope. */
  const noteDirectory = Effect.acquireRelease(
    Effect.sync(() => {
      const root = mkdtempSync(join(tmpdir(), "mcp-structured-"))
      writeFileSync(join(root, "note.txt"), "buy milk")
      return root
    }),
    (root) => Effect.sync(() => rmSync(root, { recursive: true, force: true }))
  )

  it.live("server-filesystem tells its text again as { content }: each mode gives what it says", () =>
    Effect.gen(function*() {
      const root = yield* noteDirectory
      const client = yield* McpClient.stdio({ command: process.execPath, args: [filesystem, root] })
      const read = (structuredContent?: McpClient.StructuredContentMode) =>
        Effect.gen(function*() {
          const tools = yield* McpClient.tools(client, structuredContent === undefined ? {} : { structuredContent })
          const set = ToolSet.make(...tools)
          const note = yield* ToolSet.execute(set, call("read_text_file", { path: join(root, "note.txt") }))
          const outside = yield* ToolSet.execute(set, call("read_text_file", { path: join(root, "..", "elsewhere") }))
          return { note, outside }
        })
      const text = ToolResultContent.text("buy milk")
      const json = new ToolResultContent.Json({ value: { content: "buy milk" } })
      const merged = yield* read()
      assert.deepStrictEqual(merged.note.output, ToolOutput.content([text, json]))
      assert.deepStrictEqual((yield* read("merge")).note.output, merged.note.output)
      const content = yield* read("content")
      assert.deepStrictEqual([content.note.status, content.note.output], ["success", ToolOutput.text("buy milk")])
      const structured = yield* read("structured")
      assert.deepStrictEqual(
        [structured.note.status, structured.note.output],
        ["success", ToolOutput.json({ content: "buy milk" })]
      )
      // An error is read whole, whatever the mode: the model sees why.
      for (const { outside } of [merged, content, structured]) {
        assert.strictEqual(errorOf(outside).kind, "other")
        assert.match(ToolOutput.render(errorOf(outside).modelOutput!), /denied|outside/i)
      }
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("with the content alone, the structured value is still checked against the outputSchema", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.stdio({ command: process.execPath, args: ["--import", "tsx", peer] })
      const tools = yield* collectingWarnings([])(McpClient.tools(client, { structuredContent: "content" }))
      const set = ToolSet.make(...tools)
      const good = yield* ToolSet.execute(set, call("weather", { mode: "good" }))
      assert.deepStrictEqual([good.status, good.output], ["success", ToolOutput.text("{\"celsius\":21}")])
      const bad = yield* ToolSet.execute(set, call("weather", { mode: "bad" }))
      assert.strictEqual(errorOf(bad).kind, "other")
      assert.match(errorOf(bad).message, /\$\.celsius/)
      const missing = yield* ToolSet.execute(set, call("weather", { mode: "missing" }))
      assert.match(errorOf(missing).message, /without structuredContent/)
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("a mode that is none of the three is a TypeError at the call, of tools and of attach", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.stdio({ command: process.execPath, args: ["--import", "tsx", peer] })
      class Tools extends Context.Service<Tools, ToolServer.ToolServer>()("test/McpClient/StructuredTools") {}
      const both = { structuredContent: "both" as McpClient.StructuredContentMode }
      assert.throws(() => McpClient.tools(client, both), /McpClient\.tools: structuredContent must be .* not "both"/)
      assert.throws(() => McpClient.attach(client, Tools, both), /McpClient\.attach: structuredContent must be/)
      const none = { structuredContent: null as unknown as McpClient.StructuredContentMode }
      assert.throws(() => McpClient.tools(client, none), /structuredContent must be .* not null/)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})

/** A client of the hand-written peer, answering `initialize` with `revision` (the client's when undefined). */
const rawClient = (revision?: string, banner = false) =>
  McpClient.stdio({
    command: process.execPath,
    args: ["--import", "tsx", rawPeer, revision ?? "-", ...(banner ? ["banner"] : [])]
  })

/** Runs `program` with the warnings it logs collected in `warnings`. */
const collectingWarnings = (warnings: Array<string>) =>
  Effect.provide(Logger.layer([Logger.make((options) => {
    if (options.logLevel === "Warn") warnings.push(String(options.message))
  })]))

describe("servers of older revisions of MCP", () => {
  for (const revision of ["2025-06-18", "2025-03-26", "2024-11-05"]) {
    it.live(`a server that answers ${revision} is spoken to in ${revision}: its tools import and run`, () =>
      Effect.gen(function*() {
        const client = yield* rawClient(revision)
        assert.strictEqual(client.protocolVersion, revision)
        const tools = yield* McpClient.tools(client)
        assert.deepStrictEqual(tools.map((tool) => tool.name), ["add", "noisy", "extra", "bare_error", "unended"])
        const result = yield* ToolSet.execute(ToolSet.make(...tools), call("add", { left: 1, right: 2 }))
        assert.deepStrictEqual([result.status, result.output], ["success", ToolOutput.text("3")])
      }).pipe(Effect.scoped), { timeout: 60_000 })
  }

  it.live("a server of ours is spoken to in ours; one of a revision Effect does not speak is refused", () =>
    Effect.gen(function*() {
      const ours = yield* Effect.scoped(Effect.map(rawClient(), (client) => client.protocolVersion))
      assert.strictEqual(ours, "2025-11-25")
      const error = yield* Effect.flip(Effect.scoped(rawClient("2023-01-01")))
      assert.strictEqual(error.reason._tag, "UnsupportedError")
    }), { timeout: 60_000 })

  it.live("a transport of your own made for an older revision is spoken to in it, and says so", () =>
    Effect.gen(function*() {
      const transport = yield* EffectMcpClient.stdio({
        command: ChildProcess.make(process.execPath, ["--import", "tsx", rawPeer, "2025-06-18"]),
        protocol: McpProtocol.v2025_06_18 as unknown as typeof McpProtocol.v2025_11_25
      })
      const client = yield* McpClient.fromTransport(transport)
      assert.strictEqual(client.protocolVersion, "2025-06-18")
      const result = yield* ToolSet.execute(ToolSet.make(...(yield* McpClient.tools(client))), call("add", { left: 2, right: 3 }))
      assert.deepStrictEqual([result.status, result.output], ["success", ToolOutput.text("5")])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })

  it.live("a published server on 2024-11-05 (server-github, SDK 1.0.1) lists its tools", () =>
    Effect.gen(function*() {
      // Listing its tools reaches no network; no tool is called.
      const client = yield* McpClient.stdio({
        command: process.execPath,
        args: [github],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: "unused" },
        extendEnv: true
      })
      assert.strictEqual(client.protocolVersion, "2024-11-05")
      const tools = yield* McpClient.tools(client)
      assert.isAbove(tools.length, 20)
      assert.isTrue(tools.some((tool) => tool.name === "create_issue"))
    }).pipe(Effect.scoped), { timeout: 60_000 })

  /**
   * A Streamable HTTP server of 2025-06-18 on a free port of 127.0.0.1 for the scope, serving one `ping` tool; `seen`
   * gets each message's method and headers. Each `initialize` starts a session (`s1`, `s2`, …); a request of a session
   * the server does not know is answered 404, as MCP says. `restart` forgets every session; with `dropCalls`, every
   * `tools/call` is answered 404. Session n is answered in `versions[n - 1]` (2025-06-18 past the list). A call of
   * `slow` is answered after 300 ms; `calls` counts the calls each tool got.
   */
  const sessionPeer = (
    seen: Array<{ readonly method: string; readonly headers: IncomingHttpHeaders }>,
    options: { readonly dropCalls?: boolean; readonly versions?: ReadonlyArray<string> } = {},
    calls: Record<string, number> = {}
  ) =>
    Effect.acquireRelease(
      Effect.promise(() =>
        new Promise<{ readonly port: number; readonly close: () => void; readonly restart: () => void }>((resolve) => {
          const live = new Set<string>()
          let sessions = 0
          const server = createServer((request, response) => {
            if (request.method !== "POST") return response.writeHead(405).end()
            let body = ""
            request.on("data", (chunk: Buffer) => (body += chunk.toString()))
            request.on("end", () => {
              const message = JSON.parse(body)
              seen.push({ method: message.method, headers: request.headers })
              const asked = request.headers["mcp-session-id"]
              let session = typeof asked === "string" ? asked : undefined
              if (message.method === "initialize") live.add(session = `s${++sessions}`)
              else if (session === undefined || !live.has(session)) return response.writeHead(404).end()
              if (message.id === undefined) return response.writeHead(202).end()
              if (message.method === "tools/call" && options.dropCalls === true) return response.writeHead(404).end()
              const protocolVersion = options.versions?.[Number(session.slice(1)) - 1] ?? "2025-06-18"
              const name = message.params?.name
              if (message.method === "tools/call") calls[name] = (calls[name] ?? 0) + 1
              const result = message.method === "initialize"
                ? { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "h", version: "1" } }
                : message.method === "tools/list"
                ? { tools: ["ping", "slow"].map((tool) => ({ name: tool, inputSchema: { type: "object" } })) }
                : { content: [{ type: "text", text: name === "slow" ? "done" : "pong" }] }
              setTimeout(() => {
                response.writeHead(200, { "content-type": "application/json", "mcp-session-id": session })
                response.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }))
              }, name === "slow" ? 300 : 0)
            })
          })
          server.listen(0, "127.0.0.1", () => {
            const address = server.address()
            resolve({
              port: typeof address === "object" && address !== null ? address.port : 0,
              close: () => server.close(),
              restart: () => live.clear()
            })
          })
        })
      ),
      (server) => Effect.sync(server.close)
    )

  it.live("over Streamable HTTP, the requests after the handshake carry the revision agreed on", () =>
    Effect.gen(function*() {
      const seen: Array<{ readonly method: string; readonly headers: IncomingHttpHeaders }> = []
      const { port } = yield* sessionPeer(seen)
      const client = yield* McpClient.http({ url: `http://127.0.0.1:${port}/mcp` })
      assert.strictEqual(client.protocolVersion, "2025-06-18")
      const tools = yield* McpClient.tools(client)
      const result = yield* ToolSet.execute(ToolSet.make(...tools), call("ping", {}))
      assert.deepStrictEqual([result.status, result.output], ["success", ToolOutput.text("pong")])
      assert.deepStrictEqual(
        seen.map(({ headers, method }) => [method, headers["mcp-protocol-version"]]),
        [
          ["initialize", "2025-11-25"],
          ["notifications/initialized", "2025-06-18"],
          ["tools/list", "2025-06-18"],
          ["tools/call", "2025-06-18"]
        ]
      )
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("a session the server ended (404, after a restart say) is started again, and the call sent again, once", () =>
    Effect.gen(function*() {
      const seen: Array<{ readonly method: string; readonly headers: IncomingHttpHeaders }> = []
      const peer = yield* sessionPeer(seen)
      const client = yield* McpClient.http({ url: `http://127.0.0.1:${peer.port}/mcp` })
      const set = ToolSet.make(...(yield* McpClient.tools(client)))
      assert.strictEqual((yield* ToolSet.execute(set, call("ping", {}))).status, "success")
      peer.restart()
      // Two calls at once after the restart: one new session for both.
      const results = yield* Effect.all([call("ping", {}), call("ping", {})].map((one) => ToolSet.execute(set, one)), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(results.map((result) => [result.status, result.output]), [
        ["success", ToolOutput.text("pong")],
        ["success", ToolOutput.text("pong")]
      ])
      // The tools listed again, through the client the handle was made with: the new session serves it too.
      assert.deepStrictEqual((yield* McpClient.tools(client)).map((tool) => tool.name), ["ping", "slow"])
      const sessions = seen.filter(({ method }) => method === "initialize").length
      assert.strictEqual(sessions, 2)
      assert.deepStrictEqual(
        seen.filter(({ method }) => method === "tools/call").map(({ headers }) => headers["mcp-session-id"]),
        ["s1", "s1", "s1", "s2", "s2"]
      )
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("a new session speaks the revision its server answers now, and the handle says which", () =>
    Effect.gen(function*() {
      const seen: Array<{ readonly method: string; readonly headers: IncomingHttpHeaders }> = []
      const peer = yield* sessionPeer(seen, { versions: ["2025-06-18", "2025-11-25"] })
      const client = yield* McpClient.http({ url: `http://127.0.0.1:${peer.port}/mcp` })
      const set = ToolSet.make(...(yield* McpClient.tools(client)))
      assert.strictEqual(client.protocolVersion, "2025-06-18")
      peer.restart()
      assert.strictEqual((yield* ToolSet.execute(set, call("ping", {}))).status, "success")
      assert.strictEqual(client.protocolVersion, "2025-11-25")
      assert.deepStrictEqual(
        seen.filter(({ method }) => method === "tools/call").map(({ headers }) =>
          [headers["mcp-session-id"], headers["mcp-protocol-version"]]
        ),
        [["s1", "2025-06-18"], ["s2", "2025-11-25"]]
      )
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("a call still running on a session that is replaced keeps its answer, and is never sent again", () =>
    Effect.gen(function*() {
      const calls: Record<string, number> = {}
      const peer = yield* sessionPeer([], {}, calls)
      const client = yield* McpClient.http({ url: `http://127.0.0.1:${peer.port}/mcp` })
      const set = ToolSet.make(...(yield* McpClient.tools(client)))
      peer.restart()
      // The slow call starts a new session (s2) and runs there; the server then drops s2 too, and a ping starts s3.
      const slow = yield* Effect.forkChild(ToolSet.execute(set, call("slow", {})))
      yield* Effect.sleep("100 millis")
      peer.restart()
      assert.strictEqual((yield* ToolSet.execute(set, call("ping", {}))).status, "success")
      const answered = yield* Fiber.join(slow)
      assert.deepStrictEqual([answered.status, answered.output], ["success", ToolOutput.text("done")])
      assert.deepStrictEqual(calls, { slow: 1, ping: 1 })
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("a server that ends every new session too fails the call as provider, saying the session ended", () =>
    Effect.gen(function*() {
      const peer = yield* sessionPeer([], { dropCalls: true })
      const client = yield* McpClient.http({ url: `http://127.0.0.1:${peer.port}/mcp` })
      const set = ToolSet.make(...(yield* McpClient.tools(client)))
      for (let attempt = 0; attempt < 2; attempt++) {
        const result = yield* ToolSet.execute(set, call("ping", {}))
        assert.deepStrictEqual([result.status, errorOf(result).kind, errorOf(result).message], [
          "error",
          "provider",
          "MCP tool `ping` failed: the server ended the MCP session (HTTP 404), and the new one started for the call"
        ])
      }
    }).pipe(Effect.scoped), { timeout: 60_000 })
})

describe("a server whose output is not all JSON-RPC, as real servers write it", () => {
  it.live("a line that never ends is cut at maxMessageBytes: the call fails at once, not when memory runs out", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.stdio({
        command: process.execPath,
        args: ["--import", "tsx", rawPeer, "-"],
        maxMessageBytes: 64 * 1024
      })
      const result = yield* ToolSet.execute(ToolSet.make(...(yield* McpClient.tools(client))), call("unended", {}))
      assert.deepStrictEqual([result.status, errorOf(result).kind], ["error", "provider"])
      assert.include(errorOf(result).message, "maxMessageBytes")
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("a banner, log lines, extra members and an error without its message are read past, with warnings", () =>
    Effect.gen(function*() {
      const warnings: Array<string> = []
      const results = yield* Effect.gen(function*() {
        const set = ToolSet.make(...(yield* McpClient.tools(yield* rawClient(undefined, true))))
        return yield* Effect.forEach(["noisy", "extra", "bare_error", "add"], (name) =>
          ToolSet.execute(set, call(name, name === "add" ? { left: 2, right: 2 } : {})))
      }).pipe(Effect.scoped, collectingWarnings(warnings))
      assert.deepStrictEqual(results.map((result) => [result.status, result.output.toString()]), [
        ["success", "quiet now"],
        ["success", "extra"],
        ["error", "the tool provider failed"],
        ["success", "4"]
      ])
      assert.deepStrictEqual(warnings, [
        "The MCP server's output held a line that is not JSON: \"raw peer 1.0 listening on stdio\"; it was skipped",
        "The MCP server's output held a line that is not JSON: \"calling noisy…\"; it was skipped",
        "The MCP server's output held a line that is not a JSON-RPC message: " +
        "\"{\\\"level\\\":\\\"info\\\",\\\"msg\\\":\\\"noisy was called\\\"}\"; it was skipped"
      ])
    }), { timeout: 60_000 })
})

/** Starts our server's fixture on a free port of 127.0.0.1 for the scope, and gives the port. */
const startOurServer = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ readonly port: number; readonly stop: () => void }>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", ourServer, "http"], {
        stdio: ["ignore", "ignore", "pipe"]
      })
      let buffer = ""
      child.stderr.on("data", (chunk: Buffer) => {
        buffer += chunk.toString()
        const match = /LISTENING (\d+)/.exec(buffer)
        if (match !== null) resolve({ port: Number(match[1]), stop: () => child.kill() })
      })
      child.on("exit", (code) => reject(new Error(`the server exited (${code}): ${buffer}`)))
    })
  ),
  (server) => Effect.sync(server.stop)
).pipe(Effect.map((server) => server.port))

// ---------------------------------------------------------------------------------------------------------------------
// Any content, any hints: a server in memory
// ---------------------------------------------------------------------------------------------------------------------

/**
 * An Effect MCP transport answering like a server that lists `tools` and answers every call with `answer`, in the
 * wire form: what it returns is exactly what a server would have sent.
 */
const memoryTransport = (
  tools: () => ReadonlyArray<unknown>,
  answer: () => unknown,
  /** What each request waits for before its answer (taken when the request is made, answered from then). */
  gate: () => Effect.Effect<void> = () => Effect.void
): EffectMcpClient.Transport => {
  const results: Record<string, () => unknown> = {
    initialize: () => ({
      protocolVersion: "2025-11-25",
      capabilities: { tools: {} },
      serverInfo: { name: "memory", version: "1.0.0" }
    }),
    "tools/list": () => ({ tools: tools() }),
    "tools/call": answer
  }
  return {
    ["~effect/ai/McpClient/Transport"]: "~effect/ai/McpClient/Transport",
    protocol: McpProtocol.v2025_11_25,
    isCallable: () => true,
    notify: () => Effect.void,
    request: (message) =>
      Effect.suspend(() => {
        const response = { jsonrpc: "2.0" as const, id: message.id, result: results[message.method]!() }
        return Effect.as(gate(), response)
      })
  } as EffectMcpClient.Transport
}

const Annotations = Schema.Struct({
  audience: Schema.optionalKey(Schema.Array(Schema.Literals(["user", "assistant"]))),
  priority: Schema.optionalKey(Schema.Literals([0, 0.5, 1]))
})

/** MCP content blocks on the wire; base64 data is any string, as a server may send it (unpadded, say). */
const WireBlock = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String, annotations: Schema.optionalKey(Annotations) }),
  Schema.Struct({
    type: Schema.Literal("image"),
    data: Schema.String,
    mimeType: Schema.Literals(["image/png", "image/jpeg"]),
    annotations: Schema.optionalKey(Annotations)
  }),
  Schema.Struct({ type: Schema.Literal("audio"), data: Schema.String, mimeType: Schema.Literal("audio/wav") }),
  Schema.Struct({
    type: Schema.Literal("resource_link"),
    uri: Schema.Literals(["file:///a.csv", "demo://b"]),
    name: Schema.String,
    description: Schema.optionalKey(Schema.String)
  }),
  Schema.Struct({
    type: Schema.Literal("resource"),
    resource: Schema.Union([
      Schema.Struct({ uri: Schema.Literal("file:///notes.md"), text: Schema.String, mimeType: Schema.optionalKey(Schema.String) }),
      Schema.Struct({ uri: Schema.Literal("file:///x.bin"), blob: Schema.String, mimeType: Schema.Literal("application/pdf") })
    ])
  })
])

const Hints = Schema.Struct({
  title: Schema.optionalKey(Schema.String),
  readOnlyHint: Schema.optionalKey(Schema.Boolean),
  destructiveHint: Schema.optionalKey(Schema.Boolean),
  idempotentHint: Schema.optionalKey(Schema.Boolean),
  openWorldHint: Schema.optionalKey(Schema.Boolean)
})

const anyArgs = { type: "object" }

const asJson = (output: ToolOutput.ToolOutput): unknown => JSON.parse(JSON.stringify(output))

describe("any server", () => {
  it.effect.prop(
    "for any content a server sends, the imported tool's output is exactly McpContent.fromMcp of that wire content",
    [Schema.NonEmptyArray(WireBlock), Schema.Boolean],
    ([content, isError]) =>
      Effect.gen(function*() {
        const client = yield* McpClient.fromTransport(memoryTransport(
          () => [{ name: "any", inputSchema: anyArgs }],
          () => ({ content, ...(isError ? { isError: true } : {}) })
        ))
        const tools = yield* McpClient.tools(client)
        const result = yield* ToolSet.execute(ToolSet.make(...tools), call("any", {}))
        const expected = Result.getOrThrow(McpContent.fromMcp(content))
        // Compared as JSON: dispatch's copy of a File block holds `filename: undefined` where fromMcp has no key.
        assert.deepStrictEqual(asJson(result.output), asJson(expected))
        assert.strictEqual(result.status, isError ? "error" : "success")
      }).pipe(Effect.scoped)
  )

  it.effect.prop(
    "for any hints a server gives, the imported annotations are exactly those hints, and no others",
    [Hints],
    ([hints]) =>
      Effect.gen(function*() {
        const client = yield* McpClient.fromTransport(memoryTransport(
          () => [{ name: "hinted", inputSchema: anyArgs, annotations: hints }],
          () => ({ content: [] })
        ))
        const [tool] = yield* McpClient.tools(client)
        const expected: Record<string, unknown> = {}
        if (hints.title !== undefined) expected.title = hints.title
        if (hints.readOnlyHint !== undefined) expected.readOnly = hints.readOnlyHint
        if (hints.destructiveHint !== undefined) expected.destructive = hints.destructiveHint
        if (hints.idempotentHint !== undefined) expected.idempotent = hints.idempotentHint
        if (hints.openWorldHint !== undefined) expected.openWorld = hints.openWorldHint
        assert.deepStrictEqual(tool!.spec.annotations, expected)
      }).pipe(Effect.scoped)
  )

  it.effect("content that is not MCP content is kind provider, and the model sees only the safe default", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.fromTransport(memoryTransport(
        () => [{ name: "garbled", inputSchema: anyArgs }],
        () => ({ content: [{ type: "video", url: "x" }] })
      ))
      const result = yield* ToolSet.execute(ToolSet.make(...(yield* McpClient.tools(client))), call("garbled", {}))
      assert.strictEqual(errorOf(result).kind, "provider")
      assert.match(errorOf(result).message, /content\[0\] has the unknown type "video"/)
      assert.deepStrictEqual(result.output, ToolOutput.text(ToolExecutionError.safeDefault("provider")))
    }).pipe(Effect.scoped))

  it.effect("a timeout option is each tool's timeout annotation", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.fromTransport(memoryTransport(
        () => [{ name: "slow", inputSchema: anyArgs }],
        () => ({ content: [] })
      ))
      const [tool] = yield* McpClient.tools(client, { timeout: "5 seconds" })
      assert.strictEqual(tool!.annotations.timeout, "5 seconds")
    }).pipe(Effect.scoped))
})

// ---------------------------------------------------------------------------------------------------------------------
// attach: a ToolServer that follows the server's list
// ---------------------------------------------------------------------------------------------------------------------

class Tools extends Context.Service<Tools, ToolServer.ToolServer>()("test/McpClient/Tools") {}

const ToolsLive = ToolServer.layer(Tools, { tools: ToolSet.empty })

const registeredNames = Effect.gen(function*() {
  const server = yield* Tools
  return ToolSet.names((yield* server.snapshot()).toolSet)
})

/** Waits until the ToolServer's names satisfy `done`: a list_changed is followed in the background. */
const awaitNames = (done: (names: ReadonlyArray<string>) => boolean) =>
  registeredNames.pipe(
    Effect.flatMap((names) => done(names) ? Effect.succeed(names) : Effect.fail("not yet")),
    Effect.retry(Schedule.spaced("20 millis")),
    Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die("the ToolServer never caught up") })
  )

const named = (...names: ReadonlyArray<string>) => names.map((name) => ({ name, inputSchema: anyArgs }))

describe("attach", () => {
  it.effect("an older listing that finishes after a newer one is not applied", () =>
    Effect.gen(function*() {
      let listed = named("a")
      let gate: Effect.Effect<void> = Effect.void
      let lists = 0
      const client = yield* McpClient.fromTransport(memoryTransport(
        () => (lists++, listed),
        () => ({ content: [] }),
        () => gate
      ))
      const attached = yield* McpClient.attach(client, Tools)
      assert.deepStrictEqual(yield* registeredNames, ["a"])
      const latch = yield* Deferred.make<void>()
      listed = named("b")
      gate = Deferred.await(latch)
      const older = yield* Effect.forkChild(attached.refresh)
      yield* Effect.suspend(() => lists === 2 ? Effect.void : Effect.fail("not yet")).pipe(Effect.retry(Schedule.recurs(1000)))
      listed = named("c")
      gate = Effect.void
      yield* attached.refresh
      assert.deepStrictEqual(yield* registeredNames, ["c"])
      yield* Deferred.succeed(latch, undefined)
      yield* Fiber.join(older)
      assert.deepStrictEqual(yield* registeredNames, ["c"])
    }).pipe(Effect.scoped, Effect.provide(ToolsLive)))

  it.effect("a name registered locally since is never replaced, nor removed when the server drops it", () =>
    Effect.gen(function*() {
      let listed = named("a", "b")
      const client = yield* McpClient.fromTransport(memoryTransport(() => listed, () => ({
        content: [{ type: "text", text: "from the server" }]
      })))
      const attached = yield* McpClient.attach(client, Tools, { prefix: "m_" })
      const server = yield* Tools
      assert.deepStrictEqual(yield* registeredNames, ["m_a", "m_b"])
      const local = DynamicTool.portable("m_a", {
        description: "local",
        parameters: anyArgs,
        call: () => Effect.succeed("local")
      })
      yield* server.add(local)
      // The server drops `a` while the local tool holds the name: the local tool stays.
      listed = named("b")
      yield* attached.refresh
      assert.deepStrictEqual(yield* registeredNames, ["m_a", "m_b"])
      assert.deepStrictEqual((yield* server.execute(call("m_a", {}))).output, ToolOutput.text("local"))
      // The server lists `a` again: the local tool is not replaced.
      listed = named("a", "b")
      yield* attached.refresh
      assert.deepStrictEqual((yield* server.execute(call("m_a", {}))).output, ToolOutput.text("local"))
      // The server drops both: ours goes, the local one stays.
      listed = []
      yield* attached.refresh
      assert.deepStrictEqual(yield* registeredNames, ["m_a"])
      // A tool the server lists again under a free name is registered again.
      listed = named("b")
      yield* attached.refresh
      assert.deepStrictEqual(yield* registeredNames, ["m_a", "m_b"])
      assert.deepStrictEqual((yield* server.execute(call("m_b", {}))).output, ToolOutput.text("from the server"))
    }).pipe(Effect.scoped, Effect.provide(ToolsLive)))

  it.live("follows notifications/tools/list_changed over stdio: our server's toggle_late adds and removes late_echo", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.stdio({ command: process.execPath, args: ["--import", "tsx", ourServer, "stdio"] })
      yield* McpClient.attach(client, Tools, { prefix: "ours_" })
      const server = yield* Tools
      assert.isFalse((yield* registeredNames).includes("ours_late_echo"))
      yield* server.execute(call("ours_toggle_late", { on: true }))
      yield* awaitNames((names) => names.includes("ours_late_echo"))
      const late = yield* server.execute(call("ours_late_echo", { text: "x" }))
      assert.deepStrictEqual(late.output, ToolOutput.text("late: x"))
      yield* server.execute(call("ours_toggle_late", { on: false }))
      const names = yield* awaitNames((names) => !names.includes("ours_late_echo"))
      assert.isTrue(names.includes("ours_echo"))
      // The handle's own stream sees them too, from the moment it runs: toggled until one arrives.
      const seen: Array<McpClient.Notification> = []
      yield* client.notifications.pipe(
        Stream.runForEach((notification) => Effect.sync(() => seen.push(notification))),
        Effect.forkScoped
      )
      // Each `on` registers late_echo again on our server, which tells its clients every time.
      yield* server.execute(call("ours_toggle_late", { on: true })).pipe(
        Effect.andThen(Effect.suspend(() => seen.length > 0 ? Effect.void : Effect.fail("not yet"))),
        Effect.retry(Schedule.spaced("50 millis")),
        Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die("no notification arrived") })
      )
      assert.strictEqual(seen[0]!.method, "notifications/tools/list_changed")
    }).pipe(Effect.scoped, Effect.provide(ToolsLive)), { timeout: 60_000 })
})
