/**
 * Serves a `ToolSet` service or a `ToolServer` over MCP, on standard input and output or on Streamable HTTP. It is
 * built on Effect's own MCP server (`effect/ai`), with `@effect/platform-node` for the transports.
 *
 * Every `tools/call` runs through our dispatch, with the server's hooks, limits and telemetry when a `ToolServer` is
 * served. Its `ToolResult` is mapped by `McpContent.toMcp`. Status `error` and `denied` answer `isError: true`, with
 * what the model would see as content. A tool with an object `outputSchema` answers a JSON output with
 * `structuredContent` too.
 *
 * Around each call:
 * - The request's `_meta` reaches the tool as {@link RequestMeta}.
 * - `ToolContext.progress` sends `notifications/progress` when the request asked for progress.
 * - What the tool logs with Effect's logger reaches the client as `notifications/message`, at the level the client
 *   set.
 * - `notifications/cancelled` interrupts the call, and its finalizers run.
 *
 * A `ToolServer`'s `changes` keep the tool list current and tell the client (`notifications/tools/list_changed`).
 *
 * Over HTTP, the server binds to 127.0.0.1 unless told otherwise. It refuses a `Host` or an `Origin` that is not the
 * server's own (DNS-rebinding protection), and refuses a request body over `maxBodyBytes`.
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import {
  ByteSize,
  Cause,
  Context,
  Deferred,
  Effect,
  Exit,
  Layer,
  Logger,
  Predicate,
  PubSub,
  Queue,
  References,
  Schema,
  Stream
} from "effect"
import { McpProtocol, McpSchema, McpServer as EffectMcpServer } from "effect/ai"
import {
  Headers,
  HttpIncomingMessage,
  HttpRouter,
  HttpServer,
  type HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "effect/http"
import { RpcSerialization, RpcServer } from "effect/rpc"
import type * as RpcMessage from "effect/rpc/RpcMessage"
import { createServer } from "node:http"
import * as ToolCall from "../ToolCall.ts"
import * as ToolContext from "../ToolContext.ts"
import type * as ToolDefinition from "../ToolDefinition.ts"
import * as ToolHooks from "../ToolHooks.ts"
import type { ToolResult } from "../ToolResult.ts"
import * as ToolServer from "../ToolServer.ts"
import * as McpContent from "./content.ts"

/**
 * The `_meta` of the MCP request being served, an inbound value of the call: a tool reads it with
 * `ToolContext.get(McpServer.RequestMeta)`, or requires it (served tools may require it per call).
 *
 * @category services
 * @since 0.1.0
 */
export class RequestMeta extends Context.Service<RequestMeta, Schema.JsonObject>()("effect-llm-tools/mcp/RequestMeta") {}

/**
 * What can be served: a `ToolSet` service (`ToolSet.toLayer`) or a `ToolServer`, whose calls need at most the
 * request's {@link RequestMeta} per call.
 *
 * @category models
 * @since 0.1.0
 */
export interface Serveable {
  readonly execute: (
    call: ToolCall.ToolCall
  ) => Effect.Effect<ToolResult, ToolHooks.ToolRunStopped, RequestMeta>
  readonly definitions?: ReadonlyArray<ToolDefinition.ToolDefinition>
}

/**
 * What every transport needs: how the server introduces itself.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly name: string
  readonly version: string
  /** Shown to the client at initialization: how to use these tools. */
  readonly instructions?: string | undefined
}

/**
 * Options of {@link layerHttp}.
 *
 * @category models
 * @since 0.1.0
 */
export interface HttpOptions extends Options {
  /** The endpoint's path. Default `/mcp`. */
  readonly path?: `/${string}` | undefined
  /** Default 3000; 0 picks a free port. */
  readonly port?: number | undefined
  /** The interface to bind to. Default `127.0.0.1`: only this machine can connect. */
  readonly host?: string | undefined
  /**
   * The `Origin`s a browser may call from. Default: the server's own (`http://127.0.0.1:PORT`,
   * `http://localhost:PORT`). Requests without an `Origin` (not from a browser) are served.
   */
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  /**
   * The `Host` headers served (DNS-rebinding protection). Default: `127.0.0.1:PORT`, `localhost:PORT` and
   * `[::1]:PORT`, and `HOST:PORT` for a `host` option that is none of those.
   */
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  /** The largest request body served, in bytes; a larger one is refused with 413. Default 4 MiB. */
  readonly maxBodyBytes?: number | undefined
}

/** The MCP revisions served, newest first: a client offering another is answered with the first. */
const protocols = [McpProtocol.v2025_11_25, McpProtocol.v2025_06_18, McpProtocol.v2025_03_26] as const

/**
 * The definition of a tool as `tools/list` gives it: its input schema as it is, its output schema when it describes an
 * object (MCP's only kind), its title, and its annotations as MCP's hints.
 *
 * @category converters
 * @since 0.1.0
 */
export const toMcpTool = (definition: ToolDefinition.ToolDefinition): McpSchema.Tool => {
  const annotations = definition.annotations
  const hints = {
    ...(annotations.title === undefined ? {} : { title: annotations.title }),
    ...(annotations.readOnly === undefined ? {} : { readOnlyHint: annotations.readOnly }),
    ...(annotations.destructive === undefined ? {} : { destructiveHint: annotations.destructive }),
    ...(annotations.idempotent === undefined ? {} : { idempotentHint: annotations.idempotent }),
    ...(annotations.openWorld === undefined ? {} : { openWorldHint: annotations.openWorld })
  }
  return new McpSchema.Tool({
    name: definition.name,
    ...(annotations.title === undefined ? {} : { title: annotations.title }),
    description: definition.description,
    inputSchema: definition.parameters as McpSchema.ToolJson,
    ...(hasObjectOutput(definition) ? { outputSchema: definition.outputSchema as McpSchema.ToolOutputJson } : {}),
    ...(Object.keys(hints).length === 0 ? {} : { annotations: McpSchema.ToolAnnotations.make(hints) })
  })
}

/** MCP's `outputSchema` describes an object: a tool whose output is anything else is listed without one. */
const hasObjectOutput = (definition: ToolDefinition.ToolDefinition): boolean =>
  definition.outputSchema !== undefined && (definition.outputSchema as { readonly type?: unknown }).type === "object"

/** Registrations that hide a tool: Effect's MCP server has no removal, but lists and calls only enabled tools. */
const hidden = Context.make(McpSchema.EnabledWhen, () => false)

/**
 * Registers the served tools in Effect's MCP server, and keeps a `ToolServer`'s list current. `changed` is told of
 * every change after the first listing (the HTTP transport streams it to idle clients).
 */
const registrations = <I, S extends Serveable>(
  tag: Context.Key<I, S>,
  changed: Effect.Effect<void>
): Layer.Layer<never, never, I | EffectMcpServer.McpServer> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const served = yield* tag
    const mcp = yield* EffectMcpServer.McpServer
    const logs = yield* forwarding(mcp)
    let calls = 0
    const register = (definition: ToolDefinition.ToolDefinition) => {
      const tool = toMcpTool(definition)
      // A tool listed with an output schema answers a JSON object with structuredContent too.
      const structured = tool.outputSchema !== undefined
      return mcp.addTool({
        tool,
        annotations: Context.empty(),
        handle: (args: unknown) => Effect.suspend(() => serveCall(mcp, logs, served, tool.name, structured, args, ++calls))
      })
    }
    if (!ToolServer.isToolServer(served)) {
      yield* Effect.forEach(served.definitions ?? [], register, { discard: true })
      return
    }
    const server = served as unknown as ToolServer.ToolServer<RequestMeta>
    // Listen before the first listing, so that no change is missed in between. Each change is reconciled with the
    // registry as it is when the change is handled: events that arrive late, or twice, leave the right list.
    const reconcile = (name: string) =>
      // Without a query a snapshot cannot fail.
      Effect.flatMap(Effect.orDie(server.snapshot()), (snapshot) => {
        const definition = snapshot.definitions.find((definition) => definition.name === name)
        return definition !== undefined
          ? register(definition)
          : mcp.addTool({
            tool: new McpSchema.Tool({ name, inputSchema: { type: "object" } }),
            annotations: hidden,
            handle: () => Effect.fail(new McpSchema.InvalidParams({ message: `tool \`${name}\` was removed` }))
          })
      })
    yield* Effect.forkScoped(
      Stream.runForEach(server.changes, (change) => Effect.andThen(reconcile(change.name), changed))
    )
    yield* Effect.yieldNow
    const snapshot = yield* Effect.orDie(server.snapshot())
    yield* Effect.forEach(snapshot.definitions, register, { discard: true })
  }))

/**
 * What the served tools log, on its way to the client: log messages, and marks a call leaves once it is done, so that
 * it answers only when all it logged has gone out.
 */
type Forwarded = LogMessage | Deferred.Deferred<void>

/**
 * One fiber, for as long as the server, sends the tools' logs as `notifications/message`, in the order they were
 * written. A fiber per call would cost every call a fork and a join, logging or not.
 */
const forwarding = (mcp: EffectMcpServer.McpServer["Service"]) =>
  Effect.gen(function*() {
    const logs = yield* Queue.unbounded<Forwarded>()
    yield* Queue.take(logs).pipe(
      Effect.flatMap((entry) =>
        "level" in entry
          ? Effect.ignore(mcp.notifications["notifications/message"](entry))
          : Deferred.done(entry, Exit.void)
      ),
      Effect.forever,
      Effect.forkScoped
    )
    return logs
  })

/** One `tools/call`: through dispatch, with the request's metadata, progress and logs, mapped back to MCP. */
const serveCall = (
  mcp: EffectMcpServer.McpServer["Service"],
  logs: Queue.Queue<Forwarded>,
  served: Serveable,
  name: string,
  structured: boolean,
  args: unknown,
  count: number
) =>
  Effect.gen(function*() {
    const request = yield* McpSchema.McpRequestContext
    // The metadata came as JSON: an object of it is a JSON object.
    const meta = Predicate.isObject(request.requestMetadata) ? request.requestMetadata as Schema.JsonObject : {}
    const call = ToolCall.make({
      id: `mcp_${request.clientId}_${count}`,
      name,
      arguments: args === undefined ? {} : args
    })
    const notified = { progress: false, logged: false }
    const result = yield* served.execute(call).pipe(
      Effect.catchTag("ToolRunStopped", (stopped) => Effect.succeed(stopped.results[0] ?? stopped)),
      Effect.provideService(RequestMeta, meta),
      Effect.provideService(ToolContext.ProgressReporter, progressReporter(mcp, meta.progressToken, notified)),
      // Effect's MCP server sets the level `Effect.log` writes at to the client's `logging/setLevel`: the tool's
      // own logs keep their levels, and the server filters the forwarded ones by the client's.
      Effect.provideService(References.CurrentLogLevel, "Info"),
      Effect.updateService(Logger.CurrentLoggers, (loggers) => new Set([...loggers, forwarder(logs, name, notified)]))
    )
    // What the tool logged goes out in order, and all of it before the result.
    if (notified.logged) {
      const flushed = Deferred.makeUnsafe<void>()
      Queue.offerUnsafe(logs, flushed)
      yield* Deferred.await(flushed)
    }
    // The official SDK's client hands a progress update to its handler a microtask late, and forgets the call's
    // progress as soon as its result is read: an update read in the same chunk as the result is lost. A call that
    // reported progress waits a few milliseconds before it answers, so that its last update arrives on its own.
    if (notified.progress) yield* Effect.sleep(5)
    return yield* toCallToolResult(result, structured)
  })

/** The answer of a call: its output as MCP content; an error or denied call is `isError`. */
const toCallToolResult = (
  result: ToolResult | ToolHooks.ToolRunStopped,
  structured: boolean
): Effect.Effect<McpSchema.CallToolResult, McpSchema.InternalError> => {
  if (result instanceof ToolHooks.ToolRunStopped) {
    return Effect.succeed(McpSchema.CallToolResult.make({
      content: [McpSchema.TextContent.make({ type: "text", text: `the run was stopped: ${result.reason}` })],
      isError: true
    }))
  }
  const failed = result.status === "error" || result.status === "denied"
  const wire = McpContent.toMcp(result.output, { structured: structured && !failed })
  return Schema.decodeUnknownEffect(McpSchema.CallToolResult)({ ...wire, ...(failed ? { isError: true } : {}) }).pipe(
    Effect.mapError((issue) =>
      new McpSchema.InternalError({ message: `the result of tool \`${result.name}\` cannot be sent: ${issue.message}` })
    )
  )
}

/**
 * Where a call's progress goes: `notifications/progress` with the request's token, only growing, as MCP requires.
 * Without a token, nowhere.
 */
const progressReporter = (
  mcp: EffectMcpServer.McpServer["Service"],
  token: unknown,
  notified: { progress: boolean }
): (update: ToolContext.Progress) => Effect.Effect<void> => {
  if (typeof token !== "string" && typeof token !== "number") return () => Effect.void
  let last = -Infinity
  return (update) => {
    if (update.progress <= last) return Effect.void
    last = update.progress
    notified.progress = true
    return Effect.ignore(mcp.notifications["notifications/progress"]({
      progressToken: token,
      progress: update.progress,
      ...(update.total === undefined ? {} : { total: update.total }),
      ...(update.message === undefined ? {} : { message: update.message })
    }))
  }
}

const mcpLevels: Record<string, "debug" | "info" | "warning" | "error" | "critical"> = {
  Trace: "debug",
  Debug: "debug",
  Info: "info",
  Warn: "warning",
  Error: "error",
  Fatal: "critical"
}

/** One `notifications/message`. */
interface LogMessage {
  readonly level: "debug" | "info" | "warning" | "error" | "critical"
  readonly logger: string
  readonly data: Schema.Json
}

/** A logger that queues what the tool logs, to go to the client as `notifications/message`. */
const forwarder = (logs: Queue.Queue<Forwarded>, tool: string, notified: { logged: boolean }) =>
  Logger.make((options) => {
    const level = mcpLevels[options.logLevel]
    if (level === undefined) return
    const message = Array.isArray(options.message) && options.message.length === 1
      ? options.message[0]
      : options.message
    notified.logged = true
    Queue.offerUnsafe(logs, { level, logger: tool, data: typeof message === "string" ? message : safeJson(message) })
  })

/** A log message as JSON the wire can carry. */
const safeJson = (value: unknown): Schema.Json => {
  try {
    return JSON.parse(JSON.stringify(value) ?? "null")
  } catch {
    return String(value)
  }
}

/**
 * Serves the tools of `tag` over standard input and output, as an MCP host launches a server. Logs go to standard
 * error, so that nothing but the protocol is written to standard output.
 *
 * @example
 * ```ts
 * import { Context, Effect, Layer, Schema } from "effect"
 * import { Tool, ToolSet } from "effect-llm-tools"
 * import { McpServer } from "effect-llm-tools/mcp"
 *
 * const Echo = Tool.make("echo", {
 *   description: "Echo the text back",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   call: ({ text }) => Effect.succeed(text)
 * })
 * class Tools extends Context.Service<Tools, ToolSet.Service<never>>()("app/Tools") {}
 *
 * const Main = McpServer.layerStdio(Tools, { name: "echo", version: "1.0.0" }).pipe(
 *   Layer.provide(ToolSet.toLayer(Tools, ToolSet.make(Echo)))
 * )
 * // Layer.launch(Main), run with NodeRuntime.runMain from @effect/platform-node
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layerStdio = <I, S extends Serveable>(
  tag: Context.Key<I, S>,
  options: Options
): Layer.Layer<never, Cause.IllegalArgumentError, I> =>
  EffectMcpServer.layerStdio({ ...serverInfo(options), protocols, registrations: registrations(tag, Effect.void) }).pipe(
    Layer.provide(NodeStdio.layer),
    Layer.provide(Layer.succeed(References.LogToStderr, true))
  ) as Layer.Layer<never, Cause.IllegalArgumentError, I>

/**
 * Serves the tools of `tag` over a transport you provide: Effect's `RpcServer.Protocol` (an in-memory pair in a
 * benchmark or a test, say). `layerStdio` and `layerHttp` are this with their transports.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <I, S extends Serveable>(
  tag: Context.Key<I, S>,
  options: Options
): Layer.Layer<never, Cause.IllegalArgumentError, I | RpcServer.Protocol> =>
  EffectMcpServer.layer({
    ...serverInfo(options),
    protocols,
    registrations: registrations(tag, Effect.void)
  }) as unknown as Layer.Layer<never, Cause.IllegalArgumentError, I | RpcServer.Protocol>

/**
 * An in-memory connection to a server served by {@link layer}: JSON-RPC text in both directions, one message (or
 * batch) per element, as stdio carries lines. For tests and benchmarks that drive a server without a process or a
 * socket.
 *
 * @category models
 * @since 0.1.0
 */
export interface MemoryConnection {
  /** The server's end: provide it to {@link layer}. */
  readonly protocol: Layer.Layer<RpcServer.Protocol>
  /** Hands the server the JSON-RPC text of a message. */
  readonly send: (text: string) => Effect.Effect<void>
  /** The next JSON-RPC text the server wrote (a response or a notification), once there is one. */
  readonly receive: Effect.Effect<string>
}

/**
 * Makes a {@link MemoryConnection}: serve with `layer(tag, options)` over its `protocol`, then talk to the server
 * with `send` and `receive`.
 *
 * @example
 * ```ts
 * import { Context, Effect, Layer, Schema } from "effect"
 * import { Tool, ToolSet } from "effect-llm-tools"
 * import { McpServer } from "effect-llm-tools/mcp"
 *
 * const Echo = Tool.make("echo", {
 *   description: "Echo the text back",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   call: ({ text }) => Effect.succeed(text)
 * })
 * class Tools extends Context.Service<Tools, ToolSet.Service<never>>()("app/Tools") {}
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const connection = yield* McpServer.memory
 *   yield* Layer.build(McpServer.layer(Tools, { name: "echo", version: "1.0.0" }).pipe(
 *     Layer.provide(connection.protocol),
 *     Layer.provide(ToolSet.toLayer(Tools, ToolSet.make(Echo)))
 *   ))
 *   yield* connection.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }))
 *   return yield* connection.receive // {"jsonrpc":"2.0","id":1,"result":{}}
 * }))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const memory: Effect.Effect<MemoryConnection> = Effect.gen(function*() {
  const toServer = yield* Queue.unbounded<string>()
  const toClient = yield* Queue.unbounded<string>()
  const serialization = RpcSerialization.jsonRpc()
  const protocol = RpcServer.Protocol.make((writeRequest) =>
    Effect.gen(function*() {
      const parser = serialization.makeUnsafe()
      yield* Queue.take(toServer).pipe(
        Effect.flatMap((text) =>
          Effect.forEach(
            parser.decode(text) as ReadonlyArray<RpcMessage.FromClientEncoded>,
            (message) => writeRequest(0, message),
            { discard: true }
          )
        ),
        Effect.forever,
        Effect.forkScoped
      )
      return {
        disconnects: yield* Queue.make<number>(),
        send: (_clientId: number, response: RpcMessage.FromServerEncoded) => {
          const encoded = parser.encode(response)
          return typeof encoded === "string" ? Effect.asVoid(Queue.offer(toClient, encoded)) : Effect.void
        },
        end: () => Effect.void,
        clientIds: Effect.succeed(new Set([0])),
        initialMessage: Effect.succeedNone,
        supportsAck: false,
        supportsTransferables: false,
        supportsSpanPropagation: false,
        supportsNotifications: true,
        codecFor: serialization.codecFor
      }
    })
  )
  return {
    protocol: Layer.effect(RpcServer.Protocol, protocol),
    send: (text) => Effect.asVoid(Queue.offer(toServer, text)),
    receive: Queue.take(toClient)
  }
})

const serverInfo = (options: Options) => ({
  name: options.name,
  version: options.version,
  ...(options.instructions === undefined ? {} : { instructions: options.instructions })
})

/**
 * Serves the tools of `tag` over Streamable HTTP at `http://HOST:PORT/PATH`, bound to 127.0.0.1 by default. The layer
 * gives the `HttpServer`, whose `address` says the port (useful with `port: 0`).
 *
 * Besides the POST endpoint, a session may open the endpoint with GET to hear of tool changes while it makes no
 * request (Effect's endpoint sends them only with responses).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerHttp = <I, S extends Serveable>(
  tag: Context.Key<I, S>,
  options: HttpOptions
): Layer.Layer<HttpServer.HttpServer, Cause.IllegalArgumentError | HttpServerError.ServeError, I> => {
  const path = options.path ?? "/mcp"
  const host = options.host ?? "127.0.0.1"
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024
  const changes = Effect.runSync(PubSub.unbounded<void>())
  const routes = Layer.unwrap(Effect.gen(function*() {
    const address = (yield* HttpServer.HttpServer).address
    const port = "port" in address ? address.port : 0
    const origins = options.allowedOrigins ?? [`http://127.0.0.1:${port}`, `http://localhost:${port}`]
    const hosts = new Set(
      (options.allowedHosts ??
        [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${host}:${port}`]).map((h) => h.toLowerCase())
    )
    const guard = HttpRouter.middleware((app) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const hostHeader = request.headers["host"]
        if (hostHeader === undefined || !hosts.has(hostHeader.toLowerCase())) {
          return HttpServerResponse.text("Forbidden: unknown Host", { status: 403 })
        }
        const origin = request.headers["origin"]
        if (origin !== undefined && !origins.includes(origin)) {
          return HttpServerResponse.text("Forbidden: unknown Origin", { status: 403 })
        }
        if (request.method === "GET" && pathOf(request.url) === path) {
          if (request.headers["mcp-session-id"] === undefined) return HttpServerResponse.empty({ status: 400 })
          return HttpServerResponse.stream(Stream.encodeText(listChangedEvents(changes)), {
            contentType: "text/event-stream",
            headers: { "cache-control": "no-cache" }
          })
        }
        const length = Number(request.headers["content-length"] ?? "0")
        if (length > maxBodyBytes) return HttpServerResponse.text("Payload Too Large", { status: 413 })
        // A session's revision was fixed at initialization: a served revision named in the header of one of its
        // requests is not a reason to refuse it (Effect answers 400), so the header is left to the session.
        const version = request.headers["mcp-protocol-version"]
        const served = request.headers["mcp-session-id"] !== undefined && version !== undefined &&
            servedVersions.has(version)
          ? Effect.provideService(
            app,
            HttpServerRequest.HttpServerRequest,
            request.modify({ headers: Headers.remove(request.headers, "mcp-protocol-version") })
          )
          : app
        // A body without a length (chunked) is held to the same cap as it is read.
        return yield* Effect.provideService(served, HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes))
      }), { global: true })
    return Layer.mergeAll(
      EffectMcpServer.layerHttp({
        ...serverInfo(options),
        path,
        protocols,
        allowedOrigins: origins,
        allowSessionTermination: true,
        registrations: registrations(tag, Effect.asVoid(PubSub.publish(changes, undefined)))
      }),
      guard
    )
  }))
  return HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: options.port ?? 3000, host }))
  ) as Layer.Layer<HttpServer.HttpServer, Cause.IllegalArgumentError | HttpServerError.ServeError, I>
}

const servedVersions: ReadonlySet<string> = new Set(protocols.map((protocol) => protocol.protocolVersion))

const pathOf = (url: string): string => {
  try {
    return new URL(url, "http://localhost").pathname
  } catch {
    return url
  }
}

/** `notifications/tools/list_changed` as server-sent events, one per change, with a keep-alive comment. */
const listChangedEvents = (changes: PubSub.PubSub<void>): Stream.Stream<string> => {
  const event = `event: message\ndata: ${
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
  }\n\n`
  return Stream.merge(
    Stream.map(Stream.fromPubSub(changes), () => event),
    Stream.map(Stream.tick("15 seconds"), () => ": keep-alive\n\n")
  )
}
