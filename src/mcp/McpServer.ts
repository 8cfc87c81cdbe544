/**
 * Serves a `ToolSet` service or a `ToolServer` over MCP, on standard input and output or on Streamable HTTP. It is
 * built on Effect's own MCP server (`effect/ai`), with `@effect/platform-node` for the transports.
 *
 * Every `tools/call` runs through our dispatch, with the server's hooks, limits and telemetry when a `ToolServer` is
 * served. Its `ToolResult` is mapped by `McpContent.toMcp`. Status `error` and `denied` answer `isError: true`, with
 * what the model would see as content. A call of a tool that is not served is a result too (`isError: true`, with
 * dispatch's not_found message, which names the tools there are), never a protocol error. A call of a tool annotated
 * `needsApproval` that a `ToolSet` serves is denied, never run: a set has no hook to ask a human (a `ToolServer` with
 * `ToolHooks.approval` asks).
 *
 * A tool listed with an `outputSchema` (an object one) answers as MCP requires, and as the official SDK's client
 * checks: structured content that the schema accepts, or an error. A successful output gives its one JSON object
 * block as `structuredContent`, whatever blocks sit beside it; an output with no such block, with several, or with
 * one the schema refuses, and a skipped call, answer `isError: true`, with what the model would see (and, for an
 * output, a note that it did not match the schema). A client of a revision before 2025-06-18 is listed no output
 * schema, and is answered as for a tool without one.
 *
 * The server issues no cursors, as it lists everything at once: a listing asked with a cursor is answered with an
 * invalid-params error, as MCP asks for a cursor the server does not know.
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
 * Over stdio and the connections given to {@link layer}, the calls of a client that has initialized take a direct
 * path, from the transport to dispatch (`internal/direct.ts`): Effect's server, which answers every other request,
 * costs more per request than a whole call to an SDK server. They answer as Effect's server does.
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
  Fiber,
  Layer,
  Logger,
  LogLevel,
  Predicate,
  Queue,
  References,
  Result,
  Schema,
  Stream
} from "effect"
import {
  McpClient as EffectMcpClient,
  McpClientError,
  McpProtocol,
  McpSchema,
  McpServer as EffectMcpServer
} from "effect/ai"
import {
  Headers,
  HttpBody,
  HttpEffect,
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
import { bounded } from "../internal/issues.ts"
import { isRecord, objectProperties } from "../internal/jsonSchema.ts"
import { type JsonSchemaValidator, validatorOf } from "../internal/jsonSchemaValidator.ts"
import { noApprover, refusedResult } from "../internal/refusal.ts"
import * as ToolCall from "../ToolCall.ts"
import * as ToolContext from "../ToolContext.ts"
import type * as ToolDefinition from "../ToolDefinition.ts"
import * as ToolHooks from "../ToolHooks.ts"
import * as ToolOutput from "../ToolOutput.ts"
import type { ToolResult } from "../ToolResult.ts"
import type * as ToolResultContent from "../ToolResultContent.ts"
import * as ToolServer from "../ToolServer.ts"
import * as McpContent from "./content.ts"
import * as Direct from "./internal/direct.ts"

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
 * Options of {@link layerStdio}.
 *
 * @category models
 * @since 0.1.0
 */
export interface StdioOptions extends Options {
  /**
   * The largest message read, in bytes (a line of standard input); a longer one is never held whole, and is answered
   * with an invalid-request error, to its request when its start names it. Default 16 MiB, as Effect's MCP client.
   */
  readonly maxMessageBytes?: number | undefined
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
   * `http://localhost:PORT`, `http://[::1]:PORT`). Requests without an `Origin` (not from a browser) are served.
   */
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  /**
   * The `Host` headers served (DNS-rebinding protection). Default: `127.0.0.1:PORT`, `localhost:PORT` and
   * `[::1]:PORT`, and `HOST:PORT` for a `host` option that is none of those.
   */
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  /** The largest request body served, in bytes; a larger one (chunked too) is refused with 413. Default 4 MiB. */
  readonly maxBodyBytes?: number | undefined
}

/** The largest message read from standard input by default, as Effect's MCP client reads at most. */
const defaultMaxMessageBytes = 16 * 1024 * 1024

/** The MCP revisions served, newest first: a client offering another is answered with the first. */
const protocols = [
  McpProtocol.v2025_11_25,
  McpProtocol.v2025_06_18,
  McpProtocol.v2025_03_26,
  McpProtocol.v2024_11_05
] as const

/**
 * The definition of a tool as `tools/list` gives it: its input schema as it is, its output schema when it describes an
 * object (MCP's only kind), its title, and its annotations as MCP's hints (a read-only tool is not destructive). A
 * boolean property schema at the top of either is listed in its object form (`{}`, `{"not":{}}`). Never throws for
 * the definition of a tool (a runtime tool's included); throws a `TypeError` naming the tool for a definition made
 * by hand whose parameters do not describe an object.
 *
 * @category converters
 * @since 0.1.0
 */
export const toMcpTool = (definition: ToolDefinition.ToolDefinition): McpSchema.Tool => {
  const annotations = definition.annotations
  const destructive = annotations.destructive ?? (annotations.readOnly === true ? false : undefined)
  const hints = {
    ...(annotations.title === undefined ? {} : { title: annotations.title }),
    ...(annotations.readOnly === undefined ? {} : { readOnlyHint: annotations.readOnly }),
    // A read-only tool changes nothing, so it destroys nothing: MCP's default (`true`) would contradict it.
    ...(destructive === undefined ? {} : { destructiveHint: destructive }),
    ...(annotations.idempotent === undefined ? {} : { idempotentHint: annotations.idempotent }),
    ...(annotations.openWorld === undefined ? {} : { openWorldHint: annotations.openWorld })
  }
  // MCP's TypeScript SDK refuses a whole tools/list result with a boolean property schema at the top of an input or
  // output schema: each is listed in its object form. Definitions already give parameters their object at the top
  // (`ToolDefinition.make`); this holds for an output schema too.
  const fields = {
    name: definition.name,
    ...(annotations.title === undefined ? {} : { title: annotations.title }),
    description: definition.description,
    inputSchema: objectProperties(definition.parameters) as McpSchema.ToolJson,
    ...(hasObjectOutput(definition)
      ? { outputSchema: objectProperties(definition.outputSchema!) as McpSchema.ToolOutputJson }
      : {}),
    ...(Object.keys(hints).length === 0 ? {} : { annotations: McpSchema.ToolAnnotations.make(hints) })
  }
  try {
    return new McpSchema.Tool(fields)
  } catch (cause) {
    // Only a definition made by hand can get here (parameters of another type than an object, say): say which.
    const reason = cause instanceof Error ? cause.message.split("\n")[0] : String(cause)
    throw new TypeError(
      `tool \`${bounded(String(definition.name), 128)}\` cannot be listed over MCP: its input schema is not an ` +
        `object schema (${reason})`
    )
  }
}

/** MCP's `outputSchema` describes an object: a tool whose output is anything else is listed without one. */
const hasObjectOutput = (definition: ToolDefinition.ToolDefinition): boolean =>
  definition.outputSchema !== undefined && (definition.outputSchema as { readonly type?: unknown }).type === "object"

/** Registrations that hide a tool: Effect's MCP server has no removal, but lists and calls only enabled tools. */
const hidden = Context.make(McpSchema.EnabledWhen, () => false)

/**
 * The tools served now, by name, each with the validator of the output schema it is listed with (none when it is
 * listed without one). Kept by {@link registrations}; the transports' own paths read it.
 */
type Catalog = Map<string, JsonSchemaValidator | undefined>

/**
 * Registers the served tools in Effect's MCP server, and keeps a `ToolServer`'s list current, in `catalog` too.
 * `changed` is told of every change after the first listing (the HTTP transport streams it to idle clients).
 * `direct`, when the transport has a direct path, is given the same tools to serve.
 */
const registrations = <I, S extends Serveable>(
  tag: Context.Key<I, S>,
  changed: Effect.Effect<void>,
  direct: Direct.Direct | undefined,
  catalog: Catalog = new Map()
): Layer.Layer<never, never, I | EffectMcpServer.McpServer> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const served = yield* tag
    const mcp = yield* EffectMcpServer.McpServer
    let calls = 0
    const register = (definition: ToolDefinition.ToolDefinition) => {
      const tool = toMcpTool(definition)
      // Compiled on the first call that needs it.
      const output = tool.outputSchema === undefined ? undefined : validatorOf(tool.outputSchema)
      catalog.set(tool.name, output)
      return mcp.addTool({
        tool,
        annotations: Context.empty(),
        handle: (args: unknown) => Effect.suspend(() => serveCall(mcp, served, tool.name, output, args, ++calls))
      })
    }
    if (direct !== undefined) {
      direct.serves = (name) => catalog.has(name)
      direct.serve = (clientId, name, args, meta, notify) => {
        const call = ToolCall.make({ id: `mcp_${clientId}_${++calls}`, name, arguments: args })
        // A revision that is not served was answered with the newest.
        const asked = direct.started.get(clientId)
        const revision = asked !== undefined && servedVersions.has(asked) ? asked : undefined
        // A tool that is not served has no output schema: dispatch answers not_found.
        return serveDirect(served, call, catalog.get(name), meta, notify, revision)
      }
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
        if (definition !== undefined) return register(definition)
        catalog.delete(name)
        // Hidden, so Effect's server answers its calls as those of a tool it never had; should it call the handler
        // all the same, dispatch answers not_found.
        return mcp.addTool({
          tool: new McpSchema.Tool({ name, inputSchema: { type: "object" } }),
          annotations: hidden,
          handle: (args: unknown) => Effect.suspend(() => serveCall(mcp, served, name, undefined, args, ++calls))
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
 * What a served tool logs, on its way to the client: log messages, and a mark the call leaves once it is done, so that
 * it answers only when all it logged has gone out.
 */
type Forwarded = Direct.LogMessage | Deferred.Deferred<void>

/**
 * Sends the logs of one call through Effect's MCP server as `notifications/message`, in the order they were written,
 * from a fiber of the request: Effect's server delivers a notification sent with a request's context to that
 * request's client alone (over HTTP, on the request's own stream), and one sent without it to every client. Gives
 * where the call's logs go, and an Effect that waits until all of them have gone out.
 */
const callLogs = (mcp: EffectMcpServer.McpServer["Service"]) =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<Forwarded>()
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(
      Queue.take(queue),
      (entry) =>
        "level" in entry
          ? Effect.ignore(mcp.notifications["notifications/message"](entry))
          : Deferred.done(entry, Exit.void)
    )))
    return {
      log: (message: Direct.LogMessage): void => {
        Queue.offerUnsafe(queue, message)
      },
      flushed: Effect.suspend(() => {
        const flushed = Deferred.makeUnsafe<void>()
        Queue.offerUnsafe(queue, flushed)
        return Deferred.await(flushed)
      })
    }
  })

/**
 * One call through dispatch, with the request's metadata, its progress sent by `progress`, and what the tool logs
 * handed to `log`. A hook's stop is the stopped call's result (or the stop itself, when no call finished).
 */
const execute = (
  served: Serveable,
  call: ToolCall.ToolCall,
  meta: Schema.JsonObject,
  progress: (update: ToolContext.Progress) => Effect.Effect<void>,
  log: (message: Direct.LogMessage) => void
): Effect.Effect<ToolResult | ToolHooks.ToolRunStopped> => {
  // A set cannot ask a human for the approval a tool needs: its call is denied, not run.
  const run = needsApproval(served).has(call.name)
    ? Effect.succeed(refusedResult(call, "denied", unasked))
    : served.execute(call)
  return run.pipe(
    Effect.catchTag("ToolRunStopped", (stopped) => Effect.succeed(stopped.results[0] ?? stopped)),
    Effect.updateContext((outer: Context.Context<never>) =>
      Context.merge(
        outer,
        Context.make(RequestMeta, meta).pipe(
          Context.add(ToolContext.ProgressReporter, progress),
          Context.add(CallLogSink, { tool: call.name, log }),
          // Effect's MCP server sets the level `Effect.log` writes at to the client's `logging/setLevel`: the tool's
          // own logs keep their levels, and the server filters the forwarded ones by the client's.
          Context.add(References.CurrentLogLevel, "Info"),
          // Every level reaches the forwarder (a client may ask for debug); the host's loggers keep its minimum.
          Context.add(References.MinimumLogLevel, "All"),
          Context.add(
            References.CurrentLoggers,
            loggersOf(Context.get(outer, References.CurrentLoggers), Context.get(outer, References.MinimumLogLevel))
          )
        )
      )
    )
  )
}

const approvalNames = new WeakMap<Serveable, ReadonlySet<string>>()

/**
 * The names of the tools annotated `needsApproval` that `served` runs unasked: a `ToolSet` service's (a set has no
 * hooks to ask a human, and an MCP client's call comes with no one's approval); none of a `ToolServer`, whose hooks
 * ask, or deny such calls themselves.
 */
const needsApproval = (served: Serveable): ReadonlySet<string> => {
  let names = approvalNames.get(served)
  if (names === undefined) {
    const definitions = ToolServer.isToolServer(served) ? [] : served.definitions ?? []
    names = new Set(
      definitions.filter((definition) => definition.annotations.needsApproval === true).map(({ name }) => name)
    )
    approvalNames.set(served, names)
  }
  return names
}

const unasked = noApprover("serve a ToolServer with ToolHooks.approval to ask for it")

/** Where the logs of the running call go: the tool's name, and the sink of its `notifications/message`. */
class CallLogSink extends Context.Service<CallLogSink, {
  readonly tool: string
  readonly log: (message: Direct.LogMessage) => void
}>()("effect-llm-tools/mcp/CallLogSink") {}

const mcpLevels: Record<string, Direct.Level> = {
  Trace: "debug",
  Debug: "debug",
  Info: "info",
  Warn: "warning",
  Error: "error",
  Fatal: "critical"
}

/** The logger that hands what a tool logs to its call's sink, to go to the client as `notifications/message`. */
const forwarder = Logger.make((options) => {
  const sink = Context.getOrUndefined(options.fiber.context, CallLogSink)
  const level = mcpLevels[options.logLevel]
  if (sink === undefined || level === undefined) return
  const message = Array.isArray(options.message) && options.message.length === 1 ? options.message[0] : options.message
  sink.log({ level, logger: sink.tool, data: typeof message === "string" ? message : safeJson(message) })
})

/**
 * The loggers of a call: the host's, each held to the host's minimum level, and the forwarder, which takes every
 * level. Made once per set of loggers and minimum.
 */
const loggersOf = (loggers: ReadonlySet<Logger.Logger<unknown, any>>, minimum: LogLevel.LogLevel) => {
  let byMinimum = callLoggers.get(loggers)
  if (byMinimum === undefined) {
    byMinimum = new Map()
    callLoggers.set(loggers, byMinimum)
  }
  let made = byMinimum.get(minimum)
  if (made === undefined) {
    made = new Set([...[...loggers].map((logger) => atLeast(logger, minimum)), forwarder])
    byMinimum.set(minimum, made)
  }
  return made
}

const callLoggers = new WeakMap<
  ReadonlySet<Logger.Logger<unknown, any>>,
  Map<LogLevel.LogLevel, ReadonlySet<Logger.Logger<unknown, any>>>
>()

/** A logger that logs only at `minimum` or above. */
const atLeast = (logger: Logger.Logger<unknown, any>, minimum: LogLevel.LogLevel): Logger.Logger<unknown, any> =>
  Logger.make((options) => {
    if (LogLevel.isGreaterThanOrEqualTo(options.logLevel, minimum)) logger.log(options)
  })

/** What a call was told of its progress, to answer after it. */
interface Notified {
  progress: boolean
}

/**
 * The official SDK's client hands a progress update to its handler a microtask late, and forgets the call's progress
 * as soon as its result is read: an update read in the same chunk as the result is lost. A call that reported progress
 * waits a few milliseconds before it answers, so that its last update arrives on its own.
 */
const afterProgress = (notified: Notified): Effect.Effect<void> => notified.progress ? Effect.sleep(5) : Effect.void

/**
 * One `tools/call` through Effect's MCP server: the request's metadata from its context, progress and logs through
 * its notifications.
 */
const serveCall = (
  mcp: EffectMcpServer.McpServer["Service"],
  served: Serveable,
  name: string,
  output: JsonSchemaValidator | undefined,
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
    const notified: Notified = { progress: false }
    const progress = progressReporter(meta.progressToken, notified, (update) =>
      Effect.ignore(mcp.notifications["notifications/progress"](update)))
    // The sender lives as long as the request: a log written after (by a fiber the tool left behind) goes nowhere.
    const result = yield* Effect.scoped(Effect.flatMap(callLogs(mcp), (logs) =>
      execute(served, call, meta, progress, logs.log).pipe(
        // What the tool logged goes out in order, and all of it before the result.
        Effect.tap(() => logs.flushed)
      )))
    yield* afterProgress(notified)
    const revision = request.protocolVersion
    const wire = forRevision(wireResult(result, output, revision), revision)
    return yield* Schema.decodeUnknownEffect(McpSchema.CallToolResult)(wire).pipe(
      Effect.mapError((issue) =>
        new McpSchema.InternalError({ message: `the result of tool \`${name}\` cannot be sent: ${issue.message}` })
      )
    )
  })

/**
 * One `tools/call` on the direct path (see `internal/direct.ts`): the progress and logs go to the caller through
 * `notify`, in order, before the result, which is the wire `CallToolResult` itself.
 */
const serveDirect = (
  served: Serveable,
  call: ToolCall.ToolCall,
  output: JsonSchemaValidator | undefined,
  meta: Schema.JsonObject,
  notify: Direct.Notify,
  revision: string | undefined
): Effect.Effect<object> =>
  Effect.suspend(() => {
    const notified: Notified = { progress: false }
    const progress = progressReporter(meta.progressToken, notified, notify.progress)
    return Effect.flatMap(
      execute(served, call, meta, progress, notify.log),
      (result) => Effect.as(afterProgress(notified), forRevision(wireResult(result, output, revision), revision))
    )
  })

/**
 * Whether a client of `revision` (the newest, when not named) is listed output schemas, and so must be answered
 * structured content: from 2025-06-18 on, the revision that brought both.
 */
const listsOutputSchemas = (revision: string | undefined): boolean => revision === undefined || revision >= "2025-06-18"

/**
 * A wire result as a client of an older MCP revision can read it (Effect's server refuses to send it otherwise):
 * before 2025-06-18 without `structuredContent`, and a `resource_link` block as a text that names the link; before
 * 2025-03-26 an `audio` block as a text saying it was left out. Revisions compare as the dates they are; a revision
 * not named is the newest.
 */
const forRevision = (wire: object, revision: string | undefined): object => {
  if (revision === undefined || revision >= "2025-06-18") return wire
  const { structuredContent: _, ...rest } = wire as { structuredContent?: unknown; content?: ReadonlyArray<unknown> }
  if (!Array.isArray(rest.content)) return rest
  return { ...rest, content: rest.content.map((block) => olderBlock(block, revision)) }
}

const olderBlock = (block: unknown, revision: string): unknown => {
  const { mimeType, name, type, uri } = (block ?? {}) as Record<string, unknown>
  if (type === "resource_link") {
    return { type: "text", text: `[resource link: ${typeof name === "string" ? `${name} ` : ""}<${String(uri)}>]` }
  }
  if (type === "audio" && revision < "2025-03-26") {
    return { type: "text", text: `[audio (${String(mimeType)}) omitted: MCP ${revision} has no audio content]` }
  }
  return block
}

/**
 * The answer of a call, as MCP's `CallToolResult` on the wire: its output as MCP content; an error or denied call is
 * `isError`. `output` is the validator of the output schema the tool is listed with, if any, and `revision` the
 * client's (the newest, when not named). A client that is listed the schema (from 2025-06-18 on) is answered what it
 * describes: a skipped call is `isError` too (it has no output the schema describes), and a successful one answers as
 * {@link structuredResult} says.
 */
const wireResult = (
  result: ToolResult | ToolHooks.ToolRunStopped,
  output: JsonSchemaValidator | undefined,
  revision: string | undefined
): object => {
  if (result instanceof ToolHooks.ToolRunStopped) {
    return { content: [{ type: "text", text: `the run was stopped: ${result.reason}` }], isError: true }
  }
  const listed = output !== undefined && listsOutputSchemas(revision)
  const failed = result.status === "error" || result.status === "denied" || (result.status === "skipped" && listed)
  if (failed) return { ...McpContent.toMcp(result.output), isError: true }
  if (listed) return structuredResult(result.output, output)
  // A client of an older revision: a lone JSON object goes as the text it has beside `structuredContent`, which
  // `forRevision` leaves out.
  return McpContent.toMcp(result.output, { structured: output !== undefined })
}

/**
 * The answer of a successful call of a tool listed with an output schema (`schema`, its validator). MCP requires
 * structured content that the schema accepts, and the official SDK's client refuses a result without it: the value of
 * the output's one Json block that holds an object is given as `structuredContent`, whatever blocks sit beside it (a
 * tool imported over MCP answers with its text and its structured result as two blocks). An output without such a
 * block, with several (which one is meant cannot be told), or with one the schema refuses answers `isError`, with what
 * the model would see and a note that says why, and repeats nothing of the output.
 */
const structuredResult = (output: ToolOutput.ToolOutput, schema: JsonSchemaValidator): object => {
  const blocks = output.content
  let at = -1
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!
    if (block._tag !== "Json" || !isRecord(block.value)) continue
    if (at >= 0) return unmatched(output)
    at = i
  }
  if (at < 0) return unmatched(output)
  const structured = blocks[at] as ToolResultContent.Json
  const checked = schema.validate(structured.value)
  // A schema the validator cannot compile cannot be checked here: the value goes as it is, for the client to judge.
  if (Result.isFailure(checked) && checked.failure._tag === "Mismatch") return unmatched(output)
  if (blocks.length === 1) return McpContent.toMcp(output, { structured: true })
  // The structured block goes as `toMcp` sends the one block of a structured output (its text, without the note
  // that would read it back as a second Json block); the others as they always go.
  const alone = McpContent.toMcp(ToolOutput.content([structured]), { structured: true })
  const { content } = McpContent.toMcp(output)
  return {
    content: content.map((block, i) => i === at ? alone.content[0]! : block),
    structuredContent: alone.structuredContent
  }
}

/** An output that does not give what its tool's output schema describes: an error, saying so. */
const unmatched = (output: ToolOutput.ToolOutput): object => ({
  content: [...McpContent.toMcp(output).content, { type: "text", text: unmatchedNote }],
  isError: true
})

const unmatchedNote = "the tool's output does not match the output schema it declares"

/**
 * Where a call's progress goes: `notifications/progress` with the request's token, sent by `send`, only growing, as
 * MCP requires. Without a token, nowhere.
 */
const progressReporter = (
  token: unknown,
  notified: Notified,
  send: (progress: Direct.Progress) => Effect.Effect<void>
): (update: ToolContext.Progress) => Effect.Effect<void> => {
  if (typeof token !== "string" && typeof token !== "number") return () => Effect.void
  let last = -Infinity
  return (update) => {
    if (update.progress <= last) return Effect.void
    last = update.progress
    notified.progress = true
    return send({
      progressToken: token,
      progress: update.progress,
      ...(update.total === undefined ? {} : { total: update.total }),
      ...(update.message === undefined ? {} : { message: update.message })
    })
  }
}

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
 * // McpServer.serveUntilInputEnds(Main), run with NodeRuntime.runMain from @effect/platform-node
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layerStdio = <I, S extends Serveable>(
  tag: Context.Key<I, S>,
  options: StdioOptions
): Layer.Layer<never, Cause.IllegalArgumentError, I> =>
  Layer.unwrap(Effect.sync(() => {
    const direct = new Direct.Direct()
    return EffectMcpServer.layerStdio({
      ...serverInfo(options),
      protocols,
      registrations: registrations(tag, Effect.void, direct)
    }).pipe(Layer.provide(Direct.stdio(direct, options.maxMessageBytes ?? defaultMaxMessageBytes)))
  })).pipe(
    Layer.provide(NodeStdio.layer),
    Layer.provide(Layer.succeed(References.LogToStderr, true))
  ) as Layer.Layer<never, Cause.IllegalArgumentError, I>

/**
 * Serves a layer's server (made with {@link layerStdio}) until the host closes standard input, then succeeds: the end
 * of a session, not a failure. Effect's stdio transport interrupts the fiber that built it when its input ends, so
 * launched with `Layer.launch` alone the program ends as interrupted (`NodeRuntime.runMain` exits with 130, as for
 * Ctrl-C); here it is built in a fiber of its own, whose interruption means the input ended. An interruption from
 * outside (a signal) still interrupts the program, and a failure of the server fails it.
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
 * const program = McpServer.serveUntilInputEnds(Main)
 * // NodeRuntime.runMain(program) from @effect/platform-node: exit code 0 when the host closes the connection
 * ```
 *
 * @category running
 * @since 0.1.0
 */
export const serveUntilInputEnds = <E, R>(server: Layer.Layer<never, E, R>): Effect.Effect<void, E, R> =>
  Effect.flatMap(
    Effect.forkChild(Layer.launch(server), { startImmediately: true }),
    (fiber) =>
      Effect.flatMap(Fiber.await(fiber), (exit) =>
        Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? Effect.failCause(exit.cause) : Effect.void)
  )

/**
 * Serves the tools of `tag` over a transport you provide: Effect's `RpcServer.Protocol`, one connection per client
 * (an in-memory connection, {@link memory}, in a benchmark or a test, say). `layerStdio` serves the same way over
 * standard input and output.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <I, S extends Serveable>(
  tag: Context.Key<I, S>,
  options: Options
): Layer.Layer<never, Cause.IllegalArgumentError, I | RpcServer.Protocol> =>
  Layer.unwrap(Effect.sync(() => {
    const direct = new Direct.Direct()
    return EffectMcpServer.layer({
      ...serverInfo(options),
      protocols,
      registrations: registrations(tag, Effect.void, direct)
    }).pipe(
      Layer.provide(
        Layer.effect(RpcServer.Protocol, Effect.flatMap(RpcServer.Protocol, (inner) => Direct.wrap(inner, direct)))
      )
    )
  })) as unknown as Layer.Layer<never, Cause.IllegalArgumentError, I | RpcServer.Protocol>

/**
 * An in-memory connection to a server served by {@link layer}: JSON-RPC text in both directions, one message (or
 * batch) per element, as stdio carries lines. For tests and benchmarks that drive a server without a process or a
 * socket, and for a client in the same process.
 *
 * A message is handed to the server at once, and what the server writes is handed back as it writes it: a call of a
 * tool that answers at once is answered before `send` returns.
 *
 * @category models
 * @since 0.1.0
 */
export interface MemoryConnection {
  /** The server's end: provide it to {@link layer}. */
  readonly protocol: Layer.Layer<RpcServer.Protocol>
  /** Hands the server the JSON-RPC text of a message. */
  readonly send: (text: string) => Effect.Effect<void>
  /**
   * The next JSON-RPC text the server wrote (a response or a notification), once there is one. A response to a
   * request of {@link MemoryConnection.transport} goes to that request instead.
   */
  readonly receive: Effect.Effect<string>
  /**
   * The client's end as an MCP client transport, for `McpClient.fromTransport`: a request is handed to the server as
   * it is (no text), and gets the response with its id. It fails with `McpClientError` when the server's end is gone.
   */
  readonly transport: EffectMcpClient.Transport
}

/**
 * Makes a {@link MemoryConnection}: serve with `layer(tag, options)` over its `protocol`, then talk to the server
 * with `send` and `receive`, or import its tools with `McpClient.fromTransport(connection.transport)`.
 *
 * @example
 * ```ts
 * import { Context, Effect, Layer, Schema } from "effect"
 * import { Tool, ToolSet } from "effect-llm-tools"
 * import { McpClient, McpServer } from "effect-llm-tools/mcp"
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
 *   // The server's tools, imported through the connection, as tools of our own.
 *   const client = yield* McpClient.fromTransport(connection.transport)
 *   return ToolSet.make(...(yield* McpClient.tools(client)))
 * }))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const memory: Effect.Effect<MemoryConnection> = Effect.gen(function*() {
  const toClient = yield* Queue.unbounded<string>()
  const waiting = new Map<unknown, Deferred.Deferred<McpSchema.JsonRpcResponse, McpClientError.McpClientError>>()
  const serialization = RpcSerialization.jsonRpc()
  const parser = serialization.makeUnsafe()
  // Until the server runs, what is sent waits; once it has stopped, a request fails.
  let write: ((messages: ReadonlyArray<RpcMessage.FromClientEncoded>) => Effect.Effect<void>) | undefined
  let stopped = false
  const early: Array<ReadonlyArray<RpcMessage.FromClientEncoded>> = []
  const protocol = RpcServer.Protocol.make((writeRequest) =>
    Effect.gen(function*() {
      const context = yield* Effect.context<never>()
      // Read in the server's context, whoever sends.
      write = (messages) =>
        Effect.provideContext(
          Effect.forEach(messages, (message) => writeRequest(0, message), { discard: true }),
          context
        )
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          write = undefined
          stopped = true
          for (const waiter of waiting.values()) Deferred.doneUnsafe(waiter, Exit.fail(memoryStopped()))
          waiting.clear()
        })
      )
      yield* Effect.forEach(early.splice(0), write, { discard: true })
      return {
        disconnects: yield* Queue.make<number>(),
        send: (_clientId: number, response: RpcMessage.FromServerEncoded) => {
          // A response to a request of the transport goes to it as it is: a success as its value, without text.
          const waiter = response._tag === "Exit" ? waiting.get(response.requestId) : undefined
          if (waiter !== undefined) {
            const exit = (response as RpcMessage.ResponseExitEncoded).exit
            waiting.delete((response as RpcMessage.ResponseExitEncoded).requestId)
            Deferred.doneUnsafe(
              waiter,
              Exit.succeed(
                exit._tag === "Success"
                  ? { jsonrpc: "2.0", id: (response as RpcMessage.ResponseExitEncoded).requestId, result: exit.value }
                  : JSON.parse(parser.encode(response) as string)
              )
            )
            return Effect.void
          }
          const encoded = parser.encode(response)
          if (typeof encoded === "string") Queue.offerUnsafe(toClient, encoded)
          return Effect.void
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
  const writeAll = (messages: ReadonlyArray<RpcMessage.FromClientEncoded>): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (write !== undefined) return write(messages)
      if (!stopped) early.push(messages)
      return Effect.void
    })
  const transport: EffectMcpClient.Transport = {
    // Effect does not export the brand of a transport: it is this string.
    ["~effect/ai/McpClient/Transport"]: "~effect/ai/McpClient/Transport",
    protocol: McpProtocol.v2025_11_25,
    isCallable: () => true,
    notify: (message) => writeAll([requestOf(message)]),
    request: (message) =>
      Effect.suspend(() => {
        if (stopped) return Effect.fail(memoryStopped())
        const waiter = Deferred.makeUnsafe<McpSchema.JsonRpcResponse, McpClientError.McpClientError>()
        waiting.set(message.id, waiter)
        return Effect.andThen(writeAll([requestOf(message)]), Deferred.await(waiter)).pipe(
          // A request given up on is cancelled, as MCP asks: the server interrupts it.
          Effect.onInterrupt(() =>
            waiting.delete(message.id) && message.method !== "initialize"
              ? writeAll([requestOf({
                jsonrpc: "2.0",
                method: "notifications/cancelled",
                params: { requestId: message.id }
              })])
              : Effect.void
          )
        )
      })
  }
  return {
    protocol: Layer.effect(RpcServer.Protocol, protocol),
    send: (text) =>
      Effect.suspend(() => {
        // Text that holds no message is answered as JSON-RPC says, and the connection goes on.
        const messages = Direct.readMessages(parser, text)
        return typeof messages === "string" ? Queue.offer(toClient, messages) : writeAll(messages)
      }),
    receive: Queue.take(toClient),
    transport
  }
})

/** A JSON-RPC request or notification of the client, as Effect's server reads one. */
const requestOf = (message: McpSchema.JsonRpcRequest | McpSchema.JsonRpcNotification): RpcMessage.RequestEncoded =>
  "id" in message
    ? { _tag: "Request", id: message.id, tag: message.method, payload: message.params ?? null, headers: [] }
    : {
      _tag: "Request",
      id: "",
      tag: message.method,
      payload: message.params ?? null,
      headers: [],
      isNotification: true
    }

const memoryStopped = () =>
  new McpClientError.McpClientError({
    reason: new McpClientError.TransportError({ description: "the in-memory server stopped" })
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
  const sessions = new Sessions()
  const routes = Layer.unwrap(Effect.gen(function*() {
    const address = (yield* HttpServer.HttpServer).address
    const port = "port" in address ? address.port : 0
    const origins = options.allowedOrigins ??
      [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]
    const hosts = new Set(
      (options.allowedHosts ??
        [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${host}:${port}`]).map((h) => h.toLowerCase())
    )
    const served = yield* tag
    const catalog: Catalog = new Map()
    const mend = answerMender(served, catalog)
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
        const endpoint = pathOf(request.url) === path
        if (endpoint && request.method === "GET") return yield* sessions.open(request.headers)
        const length = Number(request.headers["content-length"] ?? "0")
        if (length > maxBodyBytes) return payloadTooLarge
        // A session's revision was fixed at initialization: a served revision named in the header of one of its
        // requests is not a reason to refuse it (Effect answers 400), so the header is left to the session.
        const version = request.headers["mcp-protocol-version"]
        const passed = request.headers["mcp-session-id"] !== undefined && version !== undefined &&
            servedVersions.has(version)
          ? request.modify({ headers: Headers.remove(request.headers, "mcp-protocol-version") })
          : request
        const response = yield* app.pipe(
          Effect.provideService(HttpServerRequest.HttpServerRequest, passed),
          // A body without a length (chunked) is held to the same cap as it is read.
          Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes))
        )
        if (!endpoint) return response
        // Effect's server answers a body it could not read with a parse error: one over the cap is answered 413, as
        // one whose length says so is. The body is read once; this reads the outcome kept of it.
        if (request.method === "POST" && request.headers["content-length"] === undefined) {
          const read = yield* Effect.exit(
            Effect.provideService(passed.arrayBuffer, HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes))
          )
          if (Exit.isFailure(read) && overflowed(Cause.squash(read.cause))) return payloadTooLarge
        }
        // Effect's server names a new session in a header it adds as the response is sent: read it then.
        const method = request.method
        const sessionId = request.headers["mcp-session-id"]
        yield* HttpEffect.appendPreResponseHandler((_, sent) =>
          Effect.sync(() => {
            sessions.observe(method, sessionId, sent)
            return sent
          })
        )
        // Effect's server lists the methods it serves itself; this endpoint serves GET too.
        if (response.status === 405) return HttpServerResponse.setHeader(response, "allow", "GET, POST, DELETE")
        return request.method === "POST" && response.status === 200 ? yield* mend(passed, response) : response
      }), { global: true })
    return Layer.mergeAll(
      EffectMcpServer.layerHttp({
        ...serverInfo(options),
        path,
        protocols,
        allowedOrigins: origins,
        allowSessionTermination: true,
        registrations: registrations(tag, Effect.sync(() => sessions.changed()), undefined, catalog)
      }),
      guard
    )
  }))
  return HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: options.port ?? 3000, host }))
  ) as Layer.Layer<HttpServer.HttpServer, Cause.IllegalArgumentError | HttpServerError.ServeError, I>
}

const servedVersions: ReadonlySet<string> = new Set(protocols.map((protocol) => protocol.protocolVersion))

/** A request of an HTTP body whose answer from Effect's server MCP wants otherwise (see {@link answerMender}). */
type Mendable =
  | { readonly _tag: "NotServed"; readonly name: string; readonly args: unknown; readonly meta: Schema.JsonObject }
  | { readonly _tag: "Cursor" }

/**
 * Mends what Effect's server answers over HTTP where MCP wants otherwise (over stdio and in memory, the direct path
 * answers these requests itself, see `internal/direct.ts`):
 * - a call of a tool that is not served, which Effect's server answers with an invalid-params error, gets a result:
 *   dispatch's, not_found, which names the tools there are;
 * - a listing asked with a cursor, which Effect's server ignores (it lists everything), gets an invalid-params error:
 *   this server issues no cursors, so none is valid.
 * Only an answer to such a request is read, and only Effect's own answer to it is replaced (an error about the
 * session, say, is left as it is); every other response is sent as it came. Effect's server read the request's body
 * already: its text is the one it kept.
 */
const answerMender = (served: Serveable, catalog: Catalog) => {
  let calls = 0
  const notServed = (name: string, args: unknown, meta: Schema.JsonObject) =>
    Effect.map(
      execute(
        served,
        ToolCall.make({ id: `mcp_http_${++calls}`, name, arguments: args === undefined ? {} : args }),
        meta,
        () => Effect.void,
        () => undefined
      ),
      (result) => wireResult(result, undefined, undefined)
    )
  const mendMessage = (asked: ReadonlyMap<unknown, Mendable>) => (message: unknown): Effect.Effect<unknown> => {
    const request = isRecord(message) ? asked.get(message.id) : undefined
    if (request === undefined || !isRecord(message)) return Effect.succeed(message)
    const { error, id } = message
    if (request._tag === "Cursor") {
      return Effect.succeed("result" in message ? { jsonrpc: "2.0", id, error: Direct.invalidCursor } : message)
    }
    const notFound = isRecord(error) && error.code === -32602 && error.message === `Tool '${request.name}' not found`
    return notFound
      ? Effect.map(notServed(request.name, request.args, request.meta), (result) => ({ jsonrpc: "2.0", id, result }))
      : Effect.succeed(message)
  }
  return (
    request: HttpServerRequest.HttpServerRequest,
    response: HttpServerResponse.HttpServerResponse
  ): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
    Effect.gen(function*() {
      const asked = mendableOf(yield* Effect.orElseSucceed(request.text, () => ""), catalog)
      if (asked === undefined) return response
      const body = response.body
      if (body._tag !== "Uint8Array" && body._tag !== "Stream") return response
      const events = body.contentType.startsWith("text/event-stream")
      const mendText = (text: string) => mendMessages(text, events, mendMessage(asked))
      if (body._tag === "Uint8Array") {
        const text = yield* mendText(textDecoder.decode(body.body))
        return HttpServerResponse.setBody(response, HttpBody.text(text, body.contentType))
      }
      // Each chunk of a stream holds whole events.
      const mended = Stream.mapEffect(
        body.stream,
        (chunk) => Effect.map(mendText(textDecoder.decode(chunk)), (text) => textEncoder.encode(text))
      )
      return HttpServerResponse.setBody(response, HttpBody.stream(mended, body.contentType))
    })
}

const textDecoder = new TextDecoder()
const textEncoder = new TextEncoder()

/**
 * The requests of an HTTP body whose answers may need mending, by id: a `tools/call` of a tool not in `catalog`, and
 * a listing with a cursor (see {@link answerMender}). `undefined` when there is none, as for almost every body.
 */
const mendableOf = (text: string, catalog: Catalog): ReadonlyMap<unknown, Mendable> | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  let asked: Map<unknown, Mendable> | undefined
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (!isRecord(message) || !("id" in message) || !isRecord(message.params)) continue
    const params = message.params
    let mendable: Mendable | undefined
    if (message.method === "tools/call" && typeof params.name === "string" && !catalog.has(params.name)) {
      const meta = isRecord(params._meta) ? params._meta as Schema.JsonObject : {}
      mendable = { _tag: "NotServed", name: params.name, args: params.arguments, meta }
    } else if (Direct.listMethods.has(message.method) && typeof params.cursor === "string") {
      mendable = { _tag: "Cursor" }
    }
    if (mendable !== undefined) (asked ??= new Map()).set(message.id, mendable)
  }
  return asked
}

/**
 * The messages of a response body (one JSON-RPC message or batch, or, with `events`, server-sent events whose `data`
 * lines are messages), each as `mend` gives it back.
 */
const mendMessages = (
  text: string,
  events: boolean,
  mend: (message: unknown) => Effect.Effect<unknown>
): Effect.Effect<string> => {
  const mendJson = (json: string) => {
    let message: unknown
    try {
      message = JSON.parse(json)
    } catch {
      return Effect.succeed(json)
    }
    const mended = Array.isArray(message) ? Effect.forEach(message, mend) : mend(message)
    return Effect.map(mended, (mended) => JSON.stringify(mended))
  }
  if (!events) return Effect.map(mendJson(text.trim()), (json) => `${json}\n`)
  return Effect.map(
    Effect.forEach(text.split("\n"), (line) =>
      line.startsWith("data:")
        ? Effect.map(mendJson(line.slice("data:".length).trim()), (json) => `data: ${json}`)
        : Effect.succeed(line)),
    (lines) => lines.join("\n")
  )
}

const payloadTooLarge = HttpServerResponse.text("Payload Too Large", { status: 413 })

/** Whether a body could not be read because it is larger than the cap: Node's reader says so in a cause. */
const overflowed = (error: unknown): boolean => {
  let current = error
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    if ((current as { readonly _tag?: unknown })._tag === "MaxBytesError") return true
    current = (current as { readonly cause?: unknown }).cause
  }
  return false
}

const pathOf = (url: string): string => {
  try {
    return new URL(url, "http://localhost").pathname
  } catch {
    return url
  }
}

/** `notifications/tools/list_changed` as a server-sent event. */
const listChangedEvent = `event: message\ndata: ${
  JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
}\n\n`

/**
 * The sessions of the HTTP endpoint, and the stream each may open with a GET, on which the server tells it of
 * changes to the tool list (Effect's server offers no such stream). Sessions are learned from Effect's answers: the
 * session id it gives at initialization; a session is gone once a DELETE of it succeeds, or once Effect answers one
 * of its requests with 404. A GET opens a stream only for a session that exists, with a served protocol revision and
 * an `Accept` of `text/event-stream`, one per session at a time (as the official SDK's server does), so that a change
 * goes out once per session; the stream ends with its session.
 */
class Sessions {
  private readonly streams = new Map<string, Queue.Queue<string, Cause.Done> | undefined>()
  /** What Effect's server answered to a request of the endpoint, and what it tells of the sessions. */
  observe(method: string, sessionId: string | undefined, response: HttpServerResponse.HttpServerResponse): void {
    if (method === "POST") {
      const opened = response.headers["mcp-session-id"]
      if (opened !== undefined && !this.streams.has(opened)) this.streams.set(opened, undefined)
      if (sessionId !== undefined && response.status === 404) this.close(sessionId)
    } else if (method === "DELETE" && sessionId !== undefined && response.status >= 200 && response.status < 300) {
      this.close(sessionId)
    }
  }
  /** A GET of the endpoint: the session's stream, or why there is none. */
  open(headers: Headers.Headers): Effect.Effect<HttpServerResponse.HttpServerResponse> {
    if (!acceptsEventStream(headers["accept"])) {
      return Effect.succeed(HttpServerResponse.text("Not Acceptable: the stream is text/event-stream", { status: 406 }))
    }
    const version = headers["mcp-protocol-version"]
    if (version !== undefined && !servedVersions.has(version)) {
      const refused = `Bad Request: unsupported MCP-Protocol-Version ${version}`
      return Effect.succeed(HttpServerResponse.text(refused, { status: 400 }))
    }
    const sessionId = headers["mcp-session-id"]
    if (sessionId === undefined) {
      return Effect.succeed(HttpServerResponse.text("Bad Request: no Mcp-Session-Id", { status: 400 }))
    }
    return Effect.map(Queue.unbounded<string, Cause.Done>(), (queue) => this.stream(sessionId, queue))
  }
  /**
   * The stream of a session, from its queue: the session's own until it ends or its client goes away. Whether the
   * session exists, and has no stream open, is checked here, as the stream is registered.
   */
  private stream(sessionId: string, queue: Queue.Queue<string, Cause.Done>): HttpServerResponse.HttpServerResponse {
    if (!this.streams.has(sessionId)) return HttpServerResponse.text("Not Found: no such session", { status: 404 })
    if (this.streams.get(sessionId) !== undefined) {
      return HttpServerResponse.text("Conflict: this session's stream is already open", { status: 409 })
    }
    this.streams.set(sessionId, queue)
    const events = Stream.merge(
      Stream.fromQueue(queue),
      Stream.map(Stream.tick("15 seconds"), () => ": keep-alive\n\n"),
      { haltStrategy: "left" }
    ).pipe(
      // The client went away, or the session ended: the session may open a stream again, if it still exists.
      Stream.ensuring(Effect.sync(() => {
        if (this.streams.get(sessionId) === queue) this.streams.set(sessionId, undefined)
      }))
    )
    return HttpServerResponse.stream(Stream.encodeText(events), {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache" }
    })
  }
  /** The tool list changed: every open stream is told, once. */
  changed(): void {
    for (const queue of this.streams.values()) if (queue !== undefined) Queue.offerUnsafe(queue, listChangedEvent)
  }
  private close(sessionId: string): void {
    const queue = this.streams.get(sessionId)
    this.streams.delete(sessionId)
    if (queue !== undefined) Queue.endUnsafe(queue)
  }
}

/** Whether an `Accept` header lists `text/event-stream`. */
const acceptsEventStream = (accept: string | undefined): boolean =>
  accept !== undefined &&
  accept.split(",").some((type) => type.split(";")[0]!.trim().toLowerCase() === "text/event-stream")
