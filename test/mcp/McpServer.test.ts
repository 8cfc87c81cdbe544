/**
 * Our MCP server, driven by the official SDK's client over stdio and over Streamable HTTP. The server is the fixture
 * `test/fixtures/mcpServer.ts`, started as a child process on 127.0.0.1.
 */
import { afterAll, assert, beforeAll, describe, expectTypeOf, it } from "@effect/vitest"
import { Client as LegacyClient } from "@modelcontextprotocol/sdk-2024-11-05/client/index.js"
import { StdioClientTransport as LegacyStdioClientTransport } from "@modelcontextprotocol/sdk-2024-11-05/client/stdio.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Cause, Context, Effect, Exit, Fiber, Layer, Schema, type Scope } from "effect"
import type { RpcServer } from "effect/rpc"
import { HttpServer, type HttpServerError } from "effect/http"
import { type ChildProcess, spawn } from "node:child_process"
import { request } from "node:http"
import { fileURLToPath } from "node:url"
import {
  DynamicTool,
  Tool,
  ToolHooks,
  ToolOutput,
  ToolResultContent,
  ToolServer,
  ToolSet
} from "../../src/index.ts"
import { McpServer } from "../../src/mcp/index.ts"
import { png } from "../fixtures/mcpData.ts"
import { CurrentUser } from "../support/userTools.ts"

const fixture = fileURLToPath(new URL("../fixtures/mcpServer.ts", import.meta.url))

/** The fixture's stderr lines, and a way to wait for one. */
const watch = (stream: { on: (event: "data", listener: (chunk: Buffer) => void) => unknown }) => {
  const lines: Array<string> = []
  const waiters = new Set<() => void>()
  let buffer = ""
  stream.on("data", (chunk: Buffer) => {
    buffer += chunk.toString()
    let end: number
    while ((end = buffer.indexOf("\n")) >= 0) {
      lines.push(buffer.slice(0, end))
      buffer = buffer.slice(end + 1)
      for (const wake of waiters) wake()
    }
  })
  const waitFor = (match: (line: string) => boolean, ms = 10_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = lines.find(match)
        if (found === undefined) return false
        waiters.delete(check)
        clearTimeout(timer)
        resolve(found)
        return true
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`no line matched within ${ms} ms; stderr so far:\n${lines.join("\n")}`))
      }, ms)
      if (!check()) waiters.add(check)
    })
  return { lines, waitFor }
}

interface Served {
  readonly connect: () => Promise<Client>
  /** Every message the clients received, in the order the transport delivered them. */
  readonly wire: Array<Record<string, unknown>>
  readonly stderr: ReturnType<typeof watch>
  readonly close: () => Promise<void>
  readonly port?: number
}

const newClient = () =>
  new Client({ name: "sdk-oracle", version: "1.0.0" }, { capabilities: {} })

/** Connects `client` over `transport`, recording every message the transport delivers into `wire`. */
const connectRecording = async (client: Client, transport: Transport, wire: Array<Record<string, unknown>>) => {
  await client.connect(transport)
  const deliver = transport.onmessage!
  transport.onmessage = (message, extra) => {
    wire.push(message as Record<string, unknown>)
    deliver(message, extra)
  }
}

/** Serves the fixture over stdio: each client starts its own server process, as MCP hosts do. */
const overStdio = async (): Promise<Served> => {
  const transports: Array<StdioClientTransport> = []
  const wire: Array<Record<string, unknown>> = []
  const stderrs: Array<ReturnType<typeof watch>> = []
  const lines: Array<string> = []
  const stderr = {
    lines,
    waitFor: (match: (line: string) => boolean, ms?: number) =>
      Promise.any(stderrs.map((watched) => watched.waitFor(match, ms)))
  }
  return {
    connect: async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "tsx", fixture, "stdio"],
        stderr: "pipe"
      })
      stderrs.push(watch(transport.stderr!))
      transports.push(transport)
      const client = newClient()
      await connectRecording(client, transport as Transport, wire)
      return client
    },
    wire,
    stderr,
    close: async () => {
      await Promise.all(transports.map((transport) => transport.close()))
    }
  }
}

/** Serves the fixture over Streamable HTTP on a free port of 127.0.0.1. */
const overHttp = async (): Promise<Served> => {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", fixture, "http"], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  const stderr = watch(child.stderr!)
  const listening = await stderr.waitFor((line) => line.startsWith("LISTENING "), 30_000)
  const port = Number(listening.slice("LISTENING ".length))
  const clients: Array<Client> = []
  const wire: Array<Record<string, unknown>> = []
  return {
    port,
    wire,
    connect: async () => {
      const client = newClient()
      await connectRecording(
        client,
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)) as Transport,
        wire
      )
      clients.push(client)
      return client
    },
    stderr,
    close: async () => {
      await Promise.all(clients.map((client) => client.close()))
      child.kill()
    }
  }
}

const textOf = (result: Record<string, unknown>) =>
  (result.content as ReadonlyArray<{ readonly type: string; readonly text?: string }>)
    .filter((block) => block.type === "text")
    .map((block) => block.text)

describe.each([["stdio", overStdio], ["Streamable HTTP", overHttp]] as const)("McpServer over %s", (_, serve) => {
  let served: Served
  let client: Client
  beforeAll(async () => {
    served = await serve()
    client = await served.connect()
  }, 60_000)
  afterAll(() => served.close())

  it("lists every tool with its input schema, its output schema and its annotations as hints", async () => {
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    assert.deepStrictEqual(
      [...byName.keys()].sort(),
      ["echo", "every_content", "fail", "meta", "shout", "slow", "toggle_late", "transfer", "weather"]
    )
    const echo = byName.get("echo")!
    assert.deepStrictEqual(echo.inputSchema.required, ["text"])
    assert.strictEqual(echo.title, "Echo")
    assert.strictEqual(echo.description, "Echo the text back")
    // Read-only, so not destructive (MCP's default for a hint left out is destructive).
    assert.include(echo.annotations ?? {}, {
      title: "Echo",
      readOnlyHint: true,
      idempotentHint: true,
      destructiveHint: false
    })
    assert.strictEqual(echo.outputSchema, undefined)
    assert.strictEqual(byName.get("transfer")!.annotations?.destructiveHint, true)
    assert.deepStrictEqual(byName.get("weather")!.outputSchema?.required, ["city", "celsius"])
    // MCP's outputSchema describes an object: a tool whose output is a string is listed without one.
    assert.strictEqual(byName.get("shout")!.outputSchema, undefined)
  })

  it("answers a call with its text", async () => {
    const result = await client.callTool({ name: "echo", arguments: { text: "hello" } })
    assert.deepStrictEqual(result.content, [{ type: "text", text: "hello" }])
    assert.notStrictEqual(result.isError, true)
  })

  it("answers a JSON output of a tool with an output schema with structuredContent too", async () => {
    const result = await client.callTool({ name: "weather", arguments: { city: "Oslo" } })
    assert.deepStrictEqual(result.structuredContent, { city: "Oslo", celsius: 21.5 })
    assert.deepStrictEqual(textOf(result), [JSON.stringify({ city: "Oslo", celsius: 21.5 })])
  })

  it("answers the output of a tool without an object output schema as content only", async () => {
    const result = await client.callTool({ name: "shout", arguments: { text: "hey" } })
    assert.deepStrictEqual([result.content, result.structuredContent], [[{ type: "text", text: "HEY" }], undefined])
  })

  it("sends every kind of content", async () => {
    const result = await client.callTool({ name: "every_content", arguments: {} })
    const content = result.content as ReadonlyArray<Record<string, unknown>>
    assert.deepStrictEqual(content.map((block) => block.type), ["text", "image", "audio", "resource", "resource_link"])
    assert.deepStrictEqual(content[1], { type: "image", data: png, mimeType: "image/png" })
    assert.deepStrictEqual(content[2], { type: "audio", data: "UklGRg==", mimeType: "audio/wav" })
    assert.include((content[3] as { resource: Record<string, unknown> }).resource, {
      blob: "JVBERi0=",
      mimeType: "application/pdf"
    })
    assert.include(content[4], { uri: "file:///data/report.csv", name: "report.csv", mimeType: "text/csv" })
  })

  it("answers an error, a denied call and bad arguments with isError and what the model may see", async () => {
    const failed = await client.callTool({ name: "fail", arguments: {} })
    assert.strictEqual(failed.isError, true)
    assert.deepStrictEqual(textOf(failed), ["the upstream service is down"])
    const denied = await client.callTool({ name: "transfer", arguments: { amount: 10 } })
    assert.strictEqual(denied.isError, true)
    assert.deepStrictEqual(textOf(denied), ["transfers cannot be made over MCP"])
    const invalid = await client.callTool({ name: "echo", arguments: { text: 42 } })
    assert.strictEqual(invalid.isError, true)
    assert.match(textOf(invalid)[0]!, /tool arguments did not match the schema/)
  })

  it("gives the tool the request's _meta", async () => {
    const result = await client.callTool({ name: "meta", arguments: {}, _meta: { traceId: "abc-123" } })
    assert.deepStrictEqual(result.structuredContent ?? JSON.parse(textOf(result)[0]!), { traceId: "abc-123" })
  })

  it("sends the tool's progress to a client that asked for it, every update before the result", async () => {
    const from = served.wire.length
    const result = await client.callTool(
      { name: "slow", arguments: { steps: 3, delayMs: 5 } },
      undefined,
      { onprogress: () => undefined }
    )
    assert.deepStrictEqual(textOf(result), ["counted to 3"])
    // Read on the wire: the SDK's client hands progress to `onprogress` a microtask late, and forgets the call's
    // progress once its result is in, so an update that arrives together with the result may never reach it.
    const received = served.wire.slice(from)
    const progress = received.filter((message) => message.method === "notifications/progress")
    assert.deepStrictEqual(
      progress.map((message) => {
        const { progress, total, message: text } = message.params as Record<string, unknown>
        return { progress, total, message: text }
      }),
      [
        { progress: 1, total: 3, message: "step 1" },
        { progress: 2, total: 3, message: "step 2" },
        { progress: 3, total: 3, message: "step 3" }
      ]
    )
    const answered = received.findIndex((message) => "result" in message)
    assert.isTrue(answered > received.indexOf(progress[2]!))
  })

  it("sends what the tool logs at the level the client set", async () => {
    const logged: Array<{ level: string; data: unknown }> = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logged.push({ level: notification.params.level, data: notification.params.data })
    })
    await client.setLoggingLevel("info")
    await client.callTool({ name: "slow", arguments: { steps: 2, delayMs: 1 } })
    assert.deepStrictEqual(logged, [
      { level: "info", data: "step 1 of 2" },
      { level: "info", data: "step 2 of 2" }
    ])
    // Effect's logger drops debug lines below its minimum level (info): a client that asks for debug gets them.
    logged.length = 0
    await client.setLoggingLevel("debug")
    await client.callTool({ name: "slow", arguments: { steps: 2, delayMs: 1 } })
    await client.setLoggingLevel("info")
    assert.deepStrictEqual(logged, [
      { level: "info", data: "step 1 of 2" },
      { level: "debug", data: "debug 1" },
      { level: "info", data: "step 2 of 2" },
      { level: "debug", data: "debug 2" }
    ])
    // The server's own log output keeps its minimum level: no debug line reached it.
    assert.isFalse(served.stderr.lines.some((line) => line.includes("debug 1")))
  })

  it("sends a call's logs to its own client only, never to another client connected at the same time", async () => {
    const other = await served.connect()
    const mine: Array<unknown> = []
    const theirs: Array<unknown> = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      mine.push(notification.params.data)
    })
    other.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      theirs.push(notification.params.data)
    })
    await other.setLoggingLevel("info")
    // The other client has a call in flight (and so a stream open) the whole time this client's call logs.
    const quiet = other.callTool({ name: "slow", arguments: { steps: 1, delayMs: 300 } })
    await client.callTool({ name: "slow", arguments: { steps: 3, delayMs: 5 } })
    await quiet
    assert.deepStrictEqual(mine, ["step 1 of 3", "step 2 of 3", "step 3 of 3"])
    assert.deepStrictEqual(theirs, ["step 1 of 1"])
  })

  it("interrupts a call the client cancels, and its finalizers run", async () => {
    const controller = new AbortController()
    const call = client.callTool(
      { name: "slow", arguments: { steps: 1000, delayMs: 20 } },
      undefined,
      { signal: controller.signal, onprogress: () => controller.abort("the user pressed stop") }
    )
    await call.then(
      () => assert.fail("a cancelled call has no result"),
      (error: unknown) => assert.match(String(error), /stop|abort/i)
    )
    await served.stderr.waitFor((line) => line === "EVENT slow-finalized")
    // The connection goes on.
    assert.deepStrictEqual(textOf(await client.callTool({ name: "echo", arguments: { text: "still here" } })), [
      "still here"
    ])
  })

  it("tells the client when a tool is added or removed, and serves the tools as they are now", async () => {
    let changes = 0
    const changed: Array<() => void> = []
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++
      for (const wake of changed.splice(0)) wake()
    })
    const nextChange = () => new Promise<void>((resolve) => changed.push(resolve))
    const added = nextChange()
    await client.callTool({ name: "toggle_late", arguments: { on: true } })
    await added
    assert.include((await client.listTools()).tools.map((tool) => tool.name), "late_echo")
    assert.deepStrictEqual(textOf(await client.callTool({ name: "late_echo", arguments: { text: "hi" } })), [
      "late: hi"
    ])
    const removed = nextChange()
    await client.callTool({ name: "toggle_late", arguments: { on: false } })
    await removed
    assert.notInclude((await client.listTools()).tools.map((tool) => tool.name), "late_echo")
    assert.isAtLeast(changes, 2)
  })
})

describe("McpServer over Streamable HTTP: requests it refuses", () => {
  let served: Served
  beforeAll(async () => {
    served = await overHttp()
  }, 60_000)
  afterAll(() => served.close())

  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
  })

  /** One POST to the endpoint on 127.0.0.1, with these headers. */
  const post = (headers: Record<string, string>, body = initialize) =>
    new Promise<number>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port: served.port,
        path: "/mcp",
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": String(Buffer.byteLength(body)),
          ...headers
        }
      }, (response) => {
        response.resume()
        response.on("end", () => resolve(response.statusCode!))
      })
      req.on("error", reject)
      req.end(body)
    })

  it("serves a request from the server's own origin, or from no browser at all", async () => {
    assert.deepStrictEqual(
      [await post({}), await post({ origin: `http://127.0.0.1:${served.port}` })],
      [200, 200]
    )
  })

  it("refuses a foreign Origin, and a Host that is not the server's (DNS rebinding)", async () => {
    assert.deepStrictEqual(
      [
        await post({ origin: "http://attacker.example" }),
        await post({ host: "attacker.example" }),
        await post({ host: `attacker.example:${served.port}` })
      ],
      [403, 403, 403]
    )
  })

  it("refuses a body over the size cap", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { pad: "x".repeat(70 * 1024) } })
    assert.strictEqual(await post({}, big), 413)
  })

  it("serves a browser on the server's own [::1] origin, as its own Host", async () => {
    assert.strictEqual(await post({ origin: `http://[::1]:${served.port}` }), 200)
  })

  /** A session of its own: its id, after `initialize` and `notifications/initialized`. */
  const openSession = async () => {
    const opened = await exchange("POST", {}, initialize)
    const id = opened.headers["mcp-session-id"]
    assert.isString(id)
    const ready = await exchange(
      "POST",
      { "mcp-session-id": id as string },
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
    )
    assert.strictEqual(ready.status, 202)
    return id as string
  }

  /** One request to the endpoint; a body without a length is sent chunked; a stream's first events are read. */
  const exchange = (
    method: string,
    headers: Record<string, string>,
    body?: string,
    options: { readonly chunked?: boolean; readonly until?: (text: string) => boolean } = {}
  ) =>
    new Promise<{ status: number; headers: Record<string, unknown>; text: string; ended: boolean }>(
      (resolve, reject) => {
        const req = request({
          host: "127.0.0.1",
          port: served.port,
          path: "/mcp",
          method,
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...(body === undefined || options.chunked === true
              ? {}
              : { "content-length": String(Buffer.byteLength(body)) }),
            ...headers
          }
        }, (response) => {
          let text = ""
          const done = (ended: boolean) => {
            resolve({ status: response.statusCode!, headers: response.headers, text, ended })
            if (!ended) req.destroy()
          }
          response.setEncoding("utf8")
          response.on("data", (chunk: string) => {
            text += chunk
            if (options.until?.(text) === true) done(false)
          })
          response.on("end", () => done(true))
        })
        req.on("error", (error) => options.until === undefined ? reject(error) : undefined)
        if (body !== undefined && options.chunked === true) {
          for (let at = 0; at < body.length; at += 16 * 1024) req.write(body.slice(at, at + 16 * 1024))
        }
        req.end(options.chunked === true ? undefined : body)
      }
    )

  it("refuses a chunked body (no Content-Length) over the size cap with 413, as one whose length says so", async () => {
    const sessionId = await openSession()
    const ping = (pad: number) =>
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { _meta: { pad: "x".repeat(pad) } } })
    const over = await exchange("POST", { "mcp-session-id": sessionId }, ping(70 * 1024), { chunked: true })
    const under = await exchange("POST", { "mcp-session-id": sessionId }, ping(1024), { chunked: true })
    assert.deepStrictEqual([over.status, under.status], [413, 200])
    assert.deepStrictEqual(JSON.parse(under.text), { jsonrpc: "2.0", id: 2, result: {} })
  })

  it("opens a session's stream on GET only for a session that exists, as MCP asks, one at a time", async () => {
    const sessionId = await openSession()
    const stream = { accept: "text/event-stream" }
    const statusOf = async (headers: Record<string, string>) => (await exchange("GET", headers)).status
    assert.deepStrictEqual(
      [
        await statusOf(stream),
        await statusOf({ ...stream, "mcp-session-id": "no-such-session" }),
        await statusOf({ accept: "application/json", "mcp-session-id": sessionId }),
        await statusOf({ ...stream, "mcp-session-id": sessionId, "mcp-protocol-version": "1999-01-01" })
      ],
      [400, 404, 406, 400]
    )
    const open = exchange("GET", { ...stream, "mcp-session-id": sessionId }, undefined, {
      until: (text) => text.includes("list_changed")
    })
    // The stream is open (its keep-alive comes first): a second one for the same session is refused.
    await waitUntil(async () => (await statusOf({ ...stream, "mcp-session-id": sessionId })) === 409)
    // A change of the tool list comes on the stream.
    const toggle = (on: boolean, id: number) =>
      exchange("POST", { "mcp-session-id": sessionId }, JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "toggle_late", arguments: { on } }
      }))
    await toggle(true, 3)
    const events = await open
    assert.deepStrictEqual([events.status, events.headers["content-type"]], [200, "text/event-stream"])
    assert.include(events.text, "\"method\":\"notifications/tools/list_changed\"")
    await toggle(false, 4)
  })

  it("ends a session's stream when the session is deleted; the session is gone after", async () => {
    const sessionId = await openSession()
    const headers = { accept: "text/event-stream", "mcp-session-id": sessionId }
    const open = exchange("GET", headers)
    await waitUntil(async () => (await exchange("GET", headers)).status === 409)
    assert.strictEqual((await exchange("DELETE", { "mcp-session-id": sessionId })).status, 204)
    const ended = await open
    assert.deepStrictEqual([ended.status, ended.ended], [200, true])
    assert.strictEqual((await exchange("GET", headers)).status, 404)
  })

  it("answers a 2024-11-05 session's call with what its revision can carry, never with an error", async () => {
    const opened = await exchange("POST", {}, JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "older", version: "1" } }
    }))
    const session = { "mcp-session-id": opened.headers["mcp-session-id"] as string }
    assert.strictEqual(JSON.parse(opened.text).result.protocolVersion, "2024-11-05")
    await exchange("POST", session, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
    const answered = await exchange("POST", session, JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "every_content", arguments: {} }
    }))
    // Effect's server refused the whole answer ("audio tool content is not supported by MCP 2024-11-05").
    const { result } = JSON.parse(answered.text) as { result: { content: ReadonlyArray<{ type: string }> } }
    assert.deepStrictEqual(result.content.map((block) => block.type), ["text", "image", "text", "resource", "text"])
  })

  it("says which methods the endpoint serves: GET, POST and DELETE", async () => {
    const refused = await exchange("PUT", {}, "{}")
    assert.deepStrictEqual([refused.status, refused.headers["allow"]], [405, "GET, POST, DELETE"])
  })
})

/** Waits until `check` holds, asking every 20 ms, for 5 seconds at most. */
const waitUntil = async (check: () => Promise<boolean>) => {
  for (let tries = 0; tries < 250; tries++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.fail("the condition never held")
}

describe("McpServer over stdio: lines that are no message", () => {
  /** Writes `text` to a fresh stdio server in one write, and gives the answers once `count` have come. */
  const answersTo = (text: string, count: number) =>
    new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", fixture, "stdio"], { stdio: ["pipe", "pipe", "pipe"] })
      const answers: Array<Record<string, unknown>> = []
      let buffer = ""
      const timer = setTimeout(() => {
        child.kill()
        reject(new Error(`${answers.length} of ${count} answers within 20 s: ${JSON.stringify(answers)}`))
      }, 20_000)
      child.stdout!.on("data", (chunk: Buffer) => {
        buffer += chunk.toString()
        let end: number
        while ((end = buffer.indexOf("\n")) >= 0) {
          answers.push(JSON.parse(buffer.slice(0, end)))
          buffer = buffer.slice(end + 1)
        }
        if (answers.length >= count) {
          clearTimeout(timer)
          child.kill()
          resolve(answers)
        }
      })
      child.on("error", reject)
      child.stdin!.write(text)
    })

  const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })

  it("serves a client of every MCP revision from 2024-11-05 on: each gets its own, and what it knows", async () => {
    const cases = [
      // revision, tool annotations and audio (2025-03-26), structuredContent and resource links (2025-06-18)
      ["2024-11-05", false, false, false],
      ["2025-03-26", true, false, true],
      ["2025-06-18", true, true, true],
      ["2025-11-25", true, true, true]
    ] as const
    for (const [revision, hinted, structured, audio] of cases) {
      const call = (id: number, name: string, args: object) =>
        JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })
      const text = [
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "older", version: "1" } }
        }),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
        call(3, "weather", { city: "Oslo" }),
        call(4, "every_content", {})
      ].map((line) => `${line}\n`).join("")
      const answers = await answersTo(text, 4)
      const result = (id: number) => answers.find((answer) => answer.id === id)!.result as Record<string, unknown>
      assert.strictEqual(result(1).protocolVersion, revision)
      const tools = result(2).tools as ReadonlyArray<Record<string, unknown>>
      assert.strictEqual(tools.some((tool) => tool.annotations !== undefined), hinted, revision)
      assert.strictEqual(result(3).structuredContent !== undefined, structured, revision)
      const types = (result(4).content as ReadonlyArray<{ type: string }>).map((block) => block.type)
      assert.strictEqual(types.includes("audio"), audio, `${revision}: ${types.join(", ")}`)
      // What a revision cannot carry is said in a text, never dropped: the block count stays.
      assert.deepStrictEqual(
        types,
        ["text", "image", audio ? "audio" : "text", "resource", structured ? "resource_link" : "text"],
        revision
      )
    }
  }, 60_000)

  it("answers each of them, and every message written with them", async () => {
    const text = [
      ping(1),
      "{oops",
      "   ",
      "null",
      "[]",
      JSON.stringify({ jsonrpc: "2.0", id: null, method: "ping" }),
      JSON.stringify({ jsonrpc: "2.0", result: {} }),
      ping(2),
      // Before `initialize`, a request other than ping is refused, saying so.
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" })
    ].map((line) => `${line}\n`).join("")
    const answers = await answersTo(text, 8)
    const byId = (id: unknown) => answers.filter((answer) => answer.id === id)
    assert.deepStrictEqual(byId(1), [{ jsonrpc: "2.0", id: 1, result: {} }])
    assert.deepStrictEqual(byId(2), [{ jsonrpc: "2.0", id: 2, result: {} }])
    assert.deepStrictEqual(byId(3), [{
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32600, message: "Invalid Request: the session is not initialized; send initialize first" }
    }])
    const invalid = { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } }
    assert.sameDeepMembers(byId(null), [
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
      invalid,
      invalid,
      invalid,
      invalid
    ])
    assert.strictEqual(answers.length, 8)
  }, 30_000)
})

describe("McpServer and a client of MCP 2024-11-05 (the official SDK 1.0.4, as older hosts ship it)", () => {
  it("connects over stdio, lists the tools, and reads every call's answer", async () => {
    const transport = new LegacyStdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", fixture, "stdio"],
      stderr: "ignore"
    })
    const client = new LegacyClient({ name: "older-host", version: "1.0.0" }, { capabilities: {} })
    // The client refuses a server that answers a revision it does not know (the newest, before 2024-11-05 was served).
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      assert.includeMembers(tools.map((tool) => tool.name), ["echo", "weather", "every_content"])
      const echo = await client.callTool({ name: "echo", arguments: { text: "hi" } })
      assert.deepStrictEqual(echo.content, [{ type: "text", text: "hi" }])
      // Its result schema knows text, image and resource: the audio and the resource link come as texts.
      const every = await client.callTool({ name: "every_content", arguments: {} })
      const content = every.content as ReadonlyArray<{ readonly type: string; readonly text?: string }>
      assert.deepStrictEqual(content.map((block) => block.type), ["text", "image", "text", "resource", "text"])
      assert.include(content[2]!.text, "audio")
      assert.include(content[4]!.text, "file:///data/report.csv")
    } finally {
      await client.close()
    }
  }, 60_000)
})

describe("McpServer.serveUntilInputEnds", () => {
  it.effect("succeeds when the server's own fiber is interrupted (its input ended), fails as the server fails", () =>
    Effect.gen(function*() {
      // What Effect's stdio transport does when standard input ends: it interrupts the fiber that built the layer.
      const inputEnds = Layer.effectDiscard(Effect.interrupt)
      assert.deepStrictEqual(yield* Effect.exit(McpServer.serveUntilInputEnds(inputEnds)), Exit.void)
      const broken = Layer.effectDiscard(Effect.fail("port taken"))
      const failed = yield* Effect.exit(McpServer.serveUntilInputEnds(broken))
      assert.isTrue(Exit.isFailure(failed) && Cause.squash(failed.cause) === "port taken")
    }))

  it.effect("an interruption from outside (a signal) still interrupts the program", () =>
    Effect.gen(function*() {
      const serving = yield* Effect.forkChild(McpServer.serveUntilInputEnds(Layer.effectDiscard(Effect.never)))
      yield* Effect.yieldNow
      const exit = yield* Fiber.interrupt(serving).pipe(Effect.andThen(Fiber.await(serving)))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause))
    }))
})

describe("McpServer: types", () => {
  it("serves a ToolSet service or a ToolServer whose calls need at most the request's _meta", () => {
    class Plain extends Context.Service<Plain, ToolSet.Service<never>>()("test/Plain") {}
    class WithMeta extends Context.Service<WithMeta, ToolServer.ToolServer<McpServer.RequestMeta>>()("test/WithMeta") {}
    class NeedsUser extends Context.Service<NeedsUser, ToolServer.ToolServer<CurrentUser>>()("test/NeedsUser") {}
    expectTypeOf(McpServer.layerStdio(Plain, { name: "n", version: "1" })).toEqualTypeOf<
      Layer.Layer<never, Cause.IllegalArgumentError, Plain>
    >()
    expectTypeOf(McpServer.layerHttp(WithMeta, { name: "n", version: "1" })).toEqualTypeOf<
      Layer.Layer<HttpServer.HttpServer, Cause.IllegalArgumentError | HttpServerError.ServeError, WithMeta>
    >()
    // A per-call value MCP cannot supply is a compile error.
    // @ts-expect-error
    McpServer.layerStdio(NeedsUser, { name: "n", version: "1" })
  })
})

/**
 * A hand-written client of an in-memory connection: `send` a message, read the `answer` to a request (skipping the
 * rest), `initialize` (answered with its result).
 */
const memoryClient = (connection: Effect.Success<typeof McpServer.memory>) => {
  const send = (message: object) => connection.send(JSON.stringify(message))
  const answer = (id: number) =>
    Effect.gen(function*() {
      while (true) {
        const message = JSON.parse(yield* connection.receive) as { readonly id?: number; readonly result?: any }
        if (message.id === id) return message.result
      }
    })
  const initialize = Effect.andThen(
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "memory", version: "1" } }
    }),
    answer(1)
  )
  return { send, answer, initialize }
}

describe("McpServer.layer: over a protocol the caller provides (McpServer.memory)", () => {
  it.effect("serves the tools of a ToolSet service over an in-memory connection", () =>
    Effect.gen(function*() {
      const connection = yield* McpServer.memory
      class Served extends Context.Service<Served, ToolSet.Service<never>>()("test/Served") {}
      const Echo = Tool.make("echo", {
        description: "Echo the text back",
        parameters: Schema.Struct({ text: Schema.String }),
        call: ({ text }) => Effect.succeed(text)
      })
      yield* Layer.build(
        McpServer.layer(Served, { name: "memory", version: "1.0.0" }).pipe(
          Layer.provide(connection.protocol),
          Layer.provide(ToolSet.toLayer(Served, ToolSet.make(Echo)))
        )
      )
      const { answer, initialize, send } = memoryClient(connection)
      assert.strictEqual((yield* initialize).protocolVersion, "2025-11-25")
      yield* send({ jsonrpc: "2.0", method: "notifications/initialized" })
      yield* send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } })
      assert.deepStrictEqual((yield* answer(2)).content, [{ type: "text", text: "hi" }])
    }).pipe(Effect.scoped))

  it.effect("a tool that needs approval is denied when a ToolSet serves it, and runs when a ToolServer's hook approves", () =>
    Effect.gen(function*() {
      let wiped = 0
      const Wipe = Tool.make("wipe", {
        description: "Wipe a disk",
        parameters: Schema.Struct({ disk: Schema.String }),
        annotations: { needsApproval: true },
        call: ({ disk }) => Effect.sync(() => `wiped ${disk} (${++wiped})`)
      })
      class Served extends Context.Service<Served, ToolSet.Service<never>>()("test/ServedApproval") {}
      class Guarded extends Context.Service<Guarded, ToolServer.ToolServer>()("test/GuardedApproval") {}
      /** The answers to a call of `wipe` sent before `notifications/initialized` and after it (the direct path). */
      const wipeOver = <E>(served: Layer.Layer<never, E, RpcServer.Protocol>) =>
        Effect.gen(function*() {
          const connection = yield* McpServer.memory
          yield* Layer.build(Layer.provide(served, connection.protocol))
          const { answer, initialize, send } = memoryClient(connection)
          const wipe = (id: number) =>
            send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "wipe", arguments: { disk: "sda" } } })
          yield* initialize
          yield* wipe(2)
          const before = yield* answer(2)
          yield* send({ jsonrpc: "2.0", method: "notifications/initialized" })
          yield* wipe(3)
          return [before, yield* answer(3)]
        }).pipe(Effect.scoped)
      const denied = yield* wipeOver(
        McpServer.layer(Served, { name: "set", version: "1.0.0" }).pipe(
          Layer.provide(ToolSet.toLayer(Served, ToolSet.make(Wipe)))
        )
      )
      const refusal = "this tool needs a human's approval before it runs, and none can be asked for here: it did not run"
      for (const result of denied) {
        assert.deepStrictEqual([result.isError, result.content], [true, [{ type: "text", text: refusal }]])
      }
      assert.strictEqual(wiped, 0)
      const approve = ToolHooks.approval({ decide: () => Effect.succeed(ToolHooks.approve) })
      const approved = yield* wipeOver(
        McpServer.layer(Guarded, { name: "server", version: "1.0.0" }).pipe(
          Layer.provide(ToolServer.layer(Guarded, { tools: ToolSet.make(Wipe), hooks: [approve] }))
        )
      )
      assert.deepStrictEqual(approved.map((result) => result.content[0].text), ["wiped sda (1)", "wiped sda (2)"])
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// What MCP asks of a result, with the official SDK's client as the oracle: in memory (the direct path) and over
// Streamable HTTP (Effect's server, and what the endpoint mends of its answers)
// ---------------------------------------------------------------------------------------------------------------------

const anyArguments = { type: "object", properties: {} } as const

/** Listed with an output schema, answers a text: what the model reads, and nothing the schema describes. */
const TextOnly = DynamicTool.make("text_only", {
  description: "An output schema, and a text",
  parameters: anyArguments,
  outputSchema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
  call: () => Effect.succeed("hello")
})

/** Answers as a tool imported over MCP does: its text, and its structured result beside it. */
const Imported = DynamicTool.make("imported", {
  description: "A text, and its structured result",
  parameters: anyArguments,
  outputSchema: { type: "object", properties: { content: { type: "string" } }, required: ["content"] },
  call: () =>
    Effect.succeed(ToolOutput.content([
      ToolResultContent.text("hello file"),
      ToolResultContent.json({ content: "hello file" })
    ]))
})

/** Two JSON objects: which one is the structured result cannot be told. */
const TwoObjects = DynamicTool.make("two_objects", {
  description: "Two JSON objects",
  parameters: anyArguments,
  outputSchema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
  call: () => Effect.succeed(ToolOutput.content([ToolResultContent.json({ a: 1 }), ToolResultContent.json({ a: 2 })]))
})

const weatherIn = (name: string) =>
  Tool.make(name, {
    description: "The weather in Oslo",
    parameters: Schema.Struct({}),
    success: Schema.Struct({ city: Schema.String, celsius: Schema.Number }),
    call: () => Effect.succeed({ city: "Oslo", celsius: 3 })
  })

/** Hooks that skip `w_skipped`, and rewrite the output of `w_redacted` (to JSON its schema refuses) and `w_text`. */
const rewrites = ToolHooks.make({
  onCall: (event) =>
    Effect.succeed(event.call.name === "w_skipped" ? ToolHooks.skip("rate limited, try later") : ToolHooks.run),
  onResult: (event) =>
    Effect.succeed(
      event.result.name === "w_redacted"
        ? ToolHooks.rewriteOutput(ToolOutput.json({ city: "[redacted]" }))
        : event.result.name === "w_text"
        ? ToolHooks.rewriteOutput(ToolOutput.text("It is 3 degrees in Oslo"))
        : ToolHooks.keep
    )
})

class Structured extends Context.Service<Structured, ToolServer.ToolServer<McpServer.RequestMeta>>()(
  "test/Structured"
) {}

const StructuredLive = ToolServer.layer(Structured, {
  tools: ToolSet.make(
    TextOnly,
    Imported,
    TwoObjects,
    weatherIn("w_plain"),
    weatherIn("w_skipped"),
    weatherIn("w_redacted"),
    weatherIn("w_text")
  ),
  hooks: [rewrites]
})

const structuredOptions = { name: "structured", version: "1.0.0" }

/** The official SDK's client, closed with the scope. */
const sdkClient = (transport: Transport) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = newClient()
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** The SDK's transport over an in-memory connection: what the server writes goes to the client as it comes. */
const memoryTransport = (connection: McpServer.MemoryConnection): Effect.Effect<Transport, never, Scope.Scope> =>
  Effect.gen(function*() {
    const transport: Transport = {
      start: async () => undefined,
      send: (message) => Effect.runPromise(connection.send(JSON.stringify(message))),
      close: async () => transport.onclose?.()
    }
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(
      connection.receive,
      (text) => Effect.sync(() => transport.onmessage?.(JSON.parse(text)))
    )))
    return transport
  })

/** The SDK's client of `Structured`, served over `how`, and the server, for the scope. */
const structuredOver = (how: "memory" | "http") =>
  Effect.gen(function*() {
    if (how === "memory") {
      const connection = yield* McpServer.memory
      const context = yield* Layer.build(
        McpServer.layer(Structured, structuredOptions).pipe(
          Layer.provide(connection.protocol),
          Layer.provideMerge(StructuredLive)
        )
      )
      const client = yield* sdkClient(yield* memoryTransport(connection))
      return { client, server: Context.get(context, Structured) }
    }
    const context = yield* Layer.build(
      McpServer.layerHttp(Structured, { ...structuredOptions, port: 0 }).pipe(Layer.provideMerge(StructuredLive))
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = "port" in address ? address.port : 0
    const client = yield* sdkClient(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)) as Transport
    )
    return { client, server: Context.get(context, Structured) }
  })

const unmatchedNote = { type: "text", text: "the tool's output does not match the output schema it declares" }

/** The SDK client's answer to a call of `name` without arguments, as it hands it over. */
const callOf = (client: Client) => (name: string): Effect.Effect<unknown> =>
  Effect.promise(() => client.callTool({ name, arguments: {} }))

describe.each([["in memory (the direct path)", "memory"], ["Streamable HTTP (Effect's server)", "http"]] as const)(
  "McpServer %s, with the official SDK's client: what MCP asks of a result",
  (_, how) => {
    it.live("gives the one JSON object of an output as structuredContent, beside the output's other blocks", () =>
      Effect.gen(function*() {
        const { client } = yield* structuredOver(how)
        yield* Effect.promise(() => client.listTools())
        const call = callOf(client)
        assert.deepStrictEqual(yield* call("w_plain"), {
          content: [{ type: "text", text: "{\"city\":\"Oslo\",\"celsius\":3}" }],
          structuredContent: { city: "Oslo", celsius: 3 }
        })
        // A tool imported over MCP answers a text and its structured result: the SDK's client refused the answer.
        assert.deepStrictEqual(yield* call("imported"), {
          content: [{ type: "text", text: "hello file" }, { type: "text", text: "{\"content\":\"hello file\"}" }],
          structuredContent: { content: "hello file" }
        })
      }).pipe(Effect.scoped))

    it.live("answers an output without structured content its schema accepts with isError, what it says, and why", () =>
      Effect.gen(function*() {
        const { client } = yield* structuredOver(how)
        yield* Effect.promise(() => client.listTools())
        const call = callOf(client)
        assert.deepStrictEqual(yield* call("text_only"), {
          content: [{ type: "text", text: "hello" }, unmatchedNote],
          isError: true
        })
        assert.deepStrictEqual(yield* call("w_text"), {
          content: [{ type: "text", text: "It is 3 degrees in Oslo" }, unmatchedNote],
          isError: true
        })
        const json = (text: string) => ({
          type: "text",
          text,
          _meta: { "effect-llm-tools/content": { block: "Json" } }
        })
        // JSON the schema refuses (a hook rewrote it), and two objects (which one is meant cannot be told).
        assert.deepStrictEqual(yield* call("w_redacted"), {
          content: [json("{\"city\":\"[redacted]\"}"), unmatchedNote],
          isError: true
        })
        assert.deepStrictEqual(yield* call("two_objects"), {
          content: [json("{\"a\":1}"), json("{\"a\":2}"), unmatchedNote],
          isError: true
        })
      }).pipe(Effect.scoped))

    it.live("answers a call a hook skipped with isError, as a denied one, when the tool has an output schema", () =>
      Effect.gen(function*() {
        const { client } = yield* structuredOver(how)
        yield* Effect.promise(() => client.listTools())
        assert.deepStrictEqual(yield* callOf(client)("w_skipped"), {
          content: [{ type: "text", text: "rate limited, try later" }],
          isError: true
        })
      }).pipe(Effect.scoped))

    it.live("answers a call of a tool that is not served, or no longer, with isError and the tools there are", () =>
      Effect.gen(function*() {
        const { client, server } = yield* structuredOver(how)
        const available = "available tools: `text_only`, `imported`, `two_objects`, `w_plain`, `w_skipped`, " +
          "`w_redacted`, `w_text`"
        assert.deepStrictEqual(yield* callOf(client)("nope"), {
          content: [{ type: "text", text: `tool \`nope\` not found; ${available}` }],
          isError: true
        })
        yield* server.remove("w_plain")
        assert.deepStrictEqual(yield* callOf(client)("w_plain"), {
          content: [{ type: "text", text: `tool \`w_plain\` not found; ${available.replace(" `w_plain`,", "")}` }],
          isError: true
        })
      }).pipe(Effect.scoped))

    it.live("refuses a listing asked with a cursor it never gave, with invalid params, and lists all without one", () =>
      Effect.gen(function*() {
        const { client } = yield* structuredOver(how)
        const refused = yield* Effect.promise(() =>
          client.listTools({ cursor: "bogus" }).then(() => undefined, (error: unknown) => error)
        )
        assert.instanceOf(refused, McpError)
        assert.strictEqual((refused as McpError).code, ErrorCode.InvalidParams)
        assert.match((refused as McpError).message, /cursor/)
        const { nextCursor, tools } = yield* Effect.promise(() => client.listTools())
        assert.deepStrictEqual([tools.length, nextCursor], [7, undefined])
      }).pipe(Effect.scoped))
  }
)

describe("McpServer: a client of a revision before 2025-06-18, which is listed no output schema", () => {
  it.effect("is answered as before: no structuredContent and no error for an output or a skip, on both paths", () =>
    Effect.gen(function*() {
      const connection = yield* McpServer.memory
      yield* Layer.build(
        McpServer.layer(Structured, structuredOptions).pipe(
          Layer.provide(connection.protocol),
          Layer.provide(StructuredLive)
        )
      )
      const send = (message: object) => connection.send(JSON.stringify(message))
      const answer = (id: number) =>
        Effect.gen(function*() {
          while (true) {
            const message = JSON.parse(yield* connection.receive)
            if (message.id === id) return message
          }
        })
      yield* send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "older", version: "1" } }
      })
      yield* answer(1)
      const calls = ["w_plain", "text_only", "w_skipped", "w_text"]
      /** The answers to a call of each tool, from `id` on. */
      const answers = (id: number) =>
        Effect.forEach(calls, (name, i) =>
          Effect.andThen(
            send({ jsonrpc: "2.0", id: id + i, method: "tools/call", params: { name, arguments: {} } }),
            Effect.map(answer(id + i), (message) => message.result)
          ))
      const expected = [
        { content: [{ type: "text", text: "{\"city\":\"Oslo\",\"celsius\":3}" }] },
        { content: [{ type: "text", text: "hello" }] },
        { content: [{ type: "text", text: "rate limited, try later" }] },
        { content: [{ type: "text", text: "It is 3 degrees in Oslo" }] }
      ]
      // Before `notifications/initialized` Effect's server answers; after, the direct path.
      assert.deepStrictEqual(yield* answers(10), expected)
      yield* send({ jsonrpc: "2.0", method: "notifications/initialized" })
      assert.deepStrictEqual(yield* answers(20), expected)
    }).pipe(Effect.scoped))
})
