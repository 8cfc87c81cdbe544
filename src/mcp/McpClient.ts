/**
 * Imports another MCP server's tools: connect to it (a child process on stdio, or Streamable HTTP), and turn the
 * tools it lists into portable tools that run through our dispatch like any other.
 *
 * - Arguments are checked locally against the server's `inputSchema`, so a bad call costs no round trip and reads
 *   like any other `invalid_args`.
 * - Results are read from their wire form by `McpContent.fromMcp`: images, audio, embedded resources (with their
 *   `uri`), resource links, annotations and `_meta` survive. `structuredContent` becomes a Json block, checked
 *   against the tool's `outputSchema`; the `structuredContent` option of {@link tools} says whether the content is
 *   kept beside it.
 * - `isError: true` fails the call with kind `other`, and the model still sees the server's content.
 * - A timeout fails the call with kind `timeout`, and the server is told to cancel (`notifications/cancelled`).
 * - A transport that fails, or a server process that exits, fails the call with kind `provider`, at once.
 * - It asks for MCP 2025-11-25, and speaks 2025-06-18, 2025-03-26 or 2024-11-05 with a server that answers one of them.
 * - Over stdio, a line of the server's output that is not a JSON-RPC message (a banner, a log record) is skipped, with a
 *   warning, instead of ending the connection.
 *
 * It is built on Effect's MCP client (`effect/ai`), with `@effect/platform-node` for the child process.
 *
 * @since 0.1.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import {
  ByteSize,
  Context,
  Duration,
  Effect,
  Option,
  Predicate,
  PubSub,
  Exit,
  Result,
  Scope,
  Semaphore,
  Stream
} from "effect"
import { McpClient as EffectMcpClient, type McpClientError, McpProtocol, type McpSchema } from "effect/ai"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as DynamicTool from "../DynamicTool.ts"
import type * as Tool from "../Tool.ts"
import * as ToolExecutionError from "../ToolExecutionError.ts"
import * as ToolOutput from "../ToolOutput.ts"
import type * as ToolServer from "../ToolServer.ts"
import * as ToolSet from "../ToolSet.ts"
import { bounded } from "../internal/issues.ts"
import { validatorOf } from "../internal/jsonSchemaValidator.ts"
import * as McpContent from "./content.ts"
import { serverOutputReader } from "./internal/serverOutput.ts"

const TypeId = "~effect-llm-tools/mcp/McpClient" as const

/**
 * A notification the server sent: `notifications/tools/list_changed`, `notifications/message`, … Seen on stdio only:
 * Effect's HTTP transport opens no stream for them.
 *
 * @category models
 * @since 0.1.0
 */
export interface Notification {
  readonly method: string
  readonly params?: unknown
}

/**
 * A connection to one MCP server, open until the scope it was made in closes (which ends a child process).
 *
 * @category models
 * @since 0.1.0
 */
export interface McpClient {
  readonly [TypeId]: typeof TypeId
  /** Who the server said it is. */
  readonly serverInfo: McpSchema.Implementation | undefined
  /**
   * The revision of MCP both sides speak: 2025-11-25, or the older one a server answered with (2025-06-18, 2025-03-26
   * or 2024-11-05). Over HTTP, that of the session now: a new session, after the server ended one, may speak another.
   */
  readonly protocolVersion: string
  /** What the server says about using it, for a system prompt. */
  readonly instructions: string | undefined
  /**
   * Effect's client on the same connection, for what this module does not cover (prompts, resources). Its
   * `callTool` gives results decoded by Effect, not mapped to our content.
   */
  readonly effectClient: EffectMcpClient.McpClient
  /** The server's notifications from the moment the stream is run (stdio only; empty over HTTP). */
  readonly notifications: Stream.Stream<Notification>
}

/**
 * True for a client made by {@link stdio} or {@link http}.
 *
 * @category guards
 * @since 0.1.0
 */
export const isMcpClient = (u: unknown): u is McpClient => Predicate.hasProperty(u, TypeId)

/**
 * What every connection is told: how this client names itself to the server, and how long the handshake and each
 * listing of tools may take (Effect's default: 60 seconds).
 *
 * @category models
 * @since 0.1.0
 */
export interface ConnectOptions {
  readonly name?: string | undefined
  readonly version?: string | undefined
  readonly timeout?: Duration.Input | undefined
}

/**
 * The largest message read from the server, for {@link stdio} and {@link http}: Effect's transports end the connection
 * on a larger one (every later request fails with `McpClientError`). Effect's default is 16 MiB; a file or an image
 * a server sends whole, in base64 and again as structured content, may need more.
 *
 * @category models
 * @since 0.1.0
 */
export interface MessageLimit {
  /** Bytes, or a size such as `"64 MiB"`. Not a positive whole number of bytes: the connection fails, saying so. */
  readonly maxMessageBytes?: ByteSize.Input | undefined
}

/**
 * The options of {@link stdio}: the program that serves MCP on its standard input and output.
 *
 * @category models
 * @since 0.1.0
 */
export interface StdioOptions extends ConnectOptions, MessageLimit {
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  /** The child's environment; without `extendEnv: true` it replaces the inherited one. */
  readonly env?: Record<string, string> | undefined
  readonly extendEnv?: boolean | undefined
  readonly cwd?: string | undefined
}

/**
 * The options of {@link http}: the Streamable HTTP endpoint, and headers for every request (authorization, say).
 *
 * @category models
 * @since 0.1.0
 */
export interface HttpOptions extends ConnectOptions, MessageLimit {
  readonly url: string | URL
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * The options of {@link tools}.
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolsOptions {
  /** Put before every server tool's name: `fs_` turns `read_file` into `fs_read_file`. */
  readonly prefix?: string | undefined
  /**
   * Each call's timeout, as the tools' `timeout` annotation: dispatch ends a call past it with kind `timeout`, and the
   * server is told to cancel.
   */
  readonly timeout?: Duration.Input | undefined
  /**
   * What the model is given of a successful result that carries `structuredContent`:
   * - `"merge"` (the default): the content, with the structured value as a Json block in place of the text block that
   *   is its JSON, or after the content when no block is;
   * - `"content"`: the content alone, as the server wrote it for a model (the structured value is still checked
   *   against the tool's `outputSchema`);
   * - `"structured"`: the structured value alone, as one Json block (checked against the `outputSchema` by dispatch).
   *
   * A server whose text tells the structured value in other words is read twice under `"merge"`: server-filesystem,
   * for one, answers with the text and again with `{ content: <the text> }`. An error result, and a result without
   * `structuredContent`, are always read whole. Any other value is a `TypeError`, at the call.
   */
  readonly structuredContent?: StructuredContentMode | undefined
}

/**
 * How a result's `structuredContent` and its content are read: see {@link ToolsOptions.structuredContent}.
 *
 * @category models
 * @since 0.1.0
 */
export type StructuredContentMode = "merge" | "content" | "structured"

const structuredContentModes: ReadonlySet<unknown> = new Set<StructuredContentMode>(["merge", "content", "structured"])

/** The options' `structuredContent`, or a `TypeError` naming the function for a value that is none of the modes. */
const modeOf = (options: ToolsOptions | undefined, at: string): StructuredContentMode => {
  const mode: unknown = options?.structuredContent === undefined ? "merge" : options.structuredContent
  if (!structuredContentModes.has(mode)) {
    const given = typeof mode === "string" ? JSON.stringify(mode) : mode === null ? "null" : `a ${typeof mode}`
    throw new TypeError(`McpClient.${at}: structuredContent must be "merge", "content" or "structured", not ${given}`)
  }
  return mode as StructuredContentMode
}

// ---------------------------------------------------------------------------
// The wire, as the server sent it
// ---------------------------------------------------------------------------

/**
 * Where the transport leaves the raw tool list of the listing the calling fiber makes. Effect's client fills in MCP's
 * defaults for hints the server never gave; our annotations want only those the server gave, so the transport keeps
 * the list as it came here.
 */
interface Capture {
  readonly tools: Array<unknown>
}

const CurrentCapture = Context.Reference<Capture | undefined>("effect-llm-tools/mcp/McpClient/Capture", {
  defaultValue: () => undefined
})

const capturing = (inner: EffectMcpClient.Transport, revision: Revision): EffectMcpClient.Transport => {
  // Only a transport of our revision follows the one agreed on (see `Revision`); another is left as it was made.
  const follows = inner.protocol.protocolVersion === ourRevision.protocolVersion
  const listing = (message: McpSchema.JsonRpcRequest, tool?: McpSchema.Tool) =>
    Effect.gen(function*() {
      const response = yield* inner.request(message, tool)
      const capture = yield* CurrentCapture
      if (capture === undefined || !("result" in response)) return response
      const result: unknown = response.result
      if (Predicate.isObject(result) && Array.isArray(result.tools)) capture.tools.push(...result.tools)
      return response
    })
  return {
    ...inner,
    protocol: follows ? revision.follow() : inner.protocol,
    request: (message, tool) =>
      message.method === "initialize" && follows
        ? Effect.map(inner.request(message, tool), (response) => revision.agree(response))
        : message.method === "tools/list"
        ? listing(message, tool)
        : inner.request(message, tool)
  }
}

// ---------------------------------------------------------------------------
// The revision spoken
// ---------------------------------------------------------------------------

/** The revision the client asks for. */
const ourRevision = McpProtocol.v2025_11_25

/** The revisions before ours that Effect speaks: a server that answers with one of them is spoken to in it. */
const olderRevisions: ReadonlyMap<string, McpProtocol.AnyProtocolAdapter> = new Map<string, McpProtocol.AnyProtocolAdapter>([
  ["2025-06-18", McpProtocol.v2025_06_18],
  ["2025-03-26", McpProtocol.v2025_03_26],
  ["2024-11-05", McpProtocol.v2024_11_05]
])

/**
 * The revision of MCP one connection speaks. The client asks for ours (2025-11-25); a server that does not speak it
 * answers `initialize` with the revision it prefers, and MCP's lifecycle has the client go on in that revision when it
 * speaks it too. Effect's client gives up instead (it was told one revision), and Effect has the older revisions'
 * adapters: the connection's adapter follows the agreed revision (its requests' and results' codecs), the answer is
 * shown to Effect's client as the revision it asked for, and the HTTP requests that follow carry the agreed one in
 * their `MCP-Protocol-Version` header (see {@link http}).
 */
class Revision {
  adapter: McpProtocol.AnyProtocolAdapter = ourRevision

  /** Back to ours, for the handshake of a new session, whose server may answer with another revision. */
  reset(): void {
    this.adapter = ourRevision
  }

  /** The revision agreed on: ours until the server's answer to `initialize` names another one. */
  get version(): string {
    return this.adapter.protocolVersion
  }

  /** Whether the server answered with an older revision, which the connection now speaks. */
  get agreed(): boolean {
    return this.adapter !== ourRevision
  }

  /** The adapter Effect's client is given: ours by its revision, and in all else the adapter of the revision agreed on. */
  follow(): EffectMcpClient.Transport["protocol"] {
    const revision = this
    return {
      protocolVersion: ourRevision.protocolVersion,
      get runtime() {
        return revision.adapter.runtime
      },
      get clientRpcs() {
        return revision.adapter.clientRpcs
      },
      get clientNotificationRpcs() {
        return revision.adapter.clientNotificationRpcs
      },
      get serverRequestRpcs() {
        return revision.adapter.serverRequestRpcs
      },
      get serverNotificationRpcs() {
        return revision.adapter.serverNotificationRpcs
      },
      payloadCodecs: (rpc) => revision.adapter.payloadCodecs(rpc),
      installHandlers: (core, lifecycle, target) => revision.adapter.installHandlers(core, lifecycle, target),
      makeReverseClient: (profile) => revision.adapter.makeReverseClient(profile),
      projectNotification: (notification) => revision.adapter.projectNotification(notification),
      normalizeCancellation: (payload) => revision.adapter.normalizeCancellation(payload)
    } as EffectMcpClient.Transport["protocol"]
  }

  /**
   * The server's answer to `initialize`: when it names an older revision Effect speaks, that revision is agreed on,
   * and the answer shown to Effect's client names the one it asked for. Any other answer is left as it came (Effect's
   * client refuses a revision it cannot speak).
   */
  agree(response: McpSchema.JsonRpcResponse): McpSchema.JsonRpcResponse {
    if (response.error !== undefined) return response
    const result: unknown = response.result
    if (!Predicate.isObject(result) || typeof result.protocolVersion !== "string") return response
    const older = olderRevisions.get(result.protocolVersion)
    if (older === undefined) return response
    this.adapter = older
    return { jsonrpc: response.jsonrpc, id: response.id, result: { ...result, protocolVersion: ourRevision.protocolVersion } }
  }
}

// ---------------------------------------------------------------------------
// Connecting
// ---------------------------------------------------------------------------

interface Internal {
  readonly client: EffectMcpClient.McpClient
  /** The connection itself: tool calls go straight through it (see `callOf`). */
  readonly transport: EffectMcpClient.Transport
  /** Where the server's notifications are published, when the transport lets them be seen. */
  readonly pubsub: PubSub.PubSub<Notification> | undefined
}

const internals = new WeakMap<McpClient, Internal>()

const internalOf = (client: McpClient): Internal => {
  const internal = internals.get(client)
  if (internal === undefined) throw new TypeError("not a client made by McpClient.stdio, McpClient.http or McpClient.fromTransport")
  return internal
}

const connect = (
  transport: EffectMcpClient.Transport,
  options: ConnectOptions,
  notifications: Stream.Stream<Notification>,
  pubsub?: PubSub.PubSub<Notification>,
  revision: Revision = new Revision()
): Effect.Effect<McpClient, McpClientError.McpClientError, Scope.Scope> =>
  Effect.gen(function*() {
    const client = yield* EffectMcpClient.make({
      name: options.name ?? "effect-llm-tools",
      version: options.version ?? "0.1.0",
      timeout: options.timeout
    }).pipe(Effect.provideService(EffectMcpClient.Transport, capturing(transport, revision)))
    const handle: McpClient = {
      [TypeId]: TypeId,
      serverInfo: client.serverInfo,
      // The revision of the session now: an HTTP client's next session may speak another (see `resumable`).
      get protocolVersion() {
        return revision.agreed ? revision.version : client.protocolVersion
      },
      instructions: client.instructions,
      effectClient: client,
      notifications
    }
    internals.set(handle, { client, transport, pubsub })
    return handle
  })

/**
 * Connects over any of Effect's MCP transports (`effect/ai` `McpClient.Transport`): one of your own, or one made with
 * Effect's constructors and options this module does not offer. {@link stdio} and {@link http} are this, with
 * Effect's transports. The transport's adapter should be MCP 2025-11-25's (`McpProtocol.v2025_11_25`): the client
 * then also speaks the older revisions a server may answer with, as {@link stdio} and {@link http} do (an HTTP
 * transport of your own sends its `MCP-Protocol-Version` header as it was made). The server's
 * notifications cannot come through a transport: give them as `notifications` (see {@link attach}), or the handle
 * has none.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient as EffectMcpClient, McpProtocol } from "effect/ai"
 * import { ChildProcess } from "effect/process"
 * import * as NodeServices from "@effect/platform-node/NodeServices"
 * import { McpClient } from "effect-llm-tools/mcp"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const transport = yield* EffectMcpClient.stdio({
 *     command: ChildProcess.make("my-mcp-server", []),
 *     protocol: McpProtocol.v2025_11_25,
 *     maxMessageBytes: 64 * 1024 * 1024
 *   })
 *   const client = yield* McpClient.fromTransport(transport)
 *   return yield* McpClient.tools(client)
 * })).pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromTransport = (
  transport: EffectMcpClient.Transport,
  options?: ConnectOptions & { readonly notifications?: Stream.Stream<Notification> | undefined }
): Effect.Effect<McpClient, McpClientError.McpClientError, Scope.Scope> =>
  Effect.gen(function*() {
    const source = options?.notifications
    if (source === undefined) return yield* connect(transport, options ?? {}, Stream.empty)
    const pubsub = yield* PubSub.unbounded<Notification>()
    yield* Effect.addFinalizer(() => PubSub.shutdown(pubsub))
    yield* source.pipe(Stream.runForEach((notification) => PubSub.publish(pubsub, notification)), Effect.forkScoped)
    return yield* connect(transport, options ?? {}, Stream.fromPubSub(pubsub), pubsub)
  })

/**
 * The child's stdout as Effect's client reads it (see `internal/serverOutput.ts`): the lines that are JSON-RPC
 * messages, their envelopes mended, and the notifications published as they pass (Effect's client drops them). A
 * line that is not a message (a banner, a log record) is dropped, with a warning, instead of ending the connection.
 */
const readServerOutput = (pubsub: PubSub.PubSub<Notification>, maxBytes: number) => {
  const read = serverOutputReader(maxBytes)
  const encoder = new TextEncoder()
  return (chunk: Uint8Array): Effect.Effect<Uint8Array> =>
    Effect.suspend(() => {
      const { dropped, messages, notifications } = read(chunk)
      const bytes = messages.length === 0 ? empty : encoder.encode(`${messages.join("\n")}\n`)
      const published = notifications.length === 0 ? Effect.void : PubSub.publishAll(pubsub, notifications)
      const warned = dropped.length === 0
        ? Effect.void
        : Effect.forEach(dropped, (what) => Effect.logWarning(`The MCP server's output held ${what}; it was skipped`))
      return Effect.as(Effect.andThen(published, warned), bytes)
    })
}

const empty = new Uint8Array(0)

/**
 * The bytes of `maxMessageBytes` as Effect's transport reads it (16 MiB when not given). One it cannot read is no
 * limit here: Effect's transport refuses it, and the connection with it.
 */
const messageLimit = (input: ByteSize.Input | undefined): number => {
  const size: Option.Option<ByteSize.ByteSize> = input === undefined
    ? Option.some(ByteSize.mebibytes(16))
    : ByteSize.fromInput(input)
  const bytes: Option.Option<number> = Option.flatMap(size, ByteSize.toNumber)
  return Option.isSome(bytes) && bytes.value > 0 ? bytes.value : Number.POSITIVE_INFINITY
}

/**
 * Starts an MCP server as a child process and connects to it over its standard input and output. The child lives
 * as long as the scope: closing it closes the child's input, then ends it (SIGTERM, then SIGKILL).
 *
 * The process is spawned by the `ChildProcessSpawner` of the context when there is one (a test can watch the wire
 * through it), and by Node's otherwise. Fails with Effect's `McpClientError` when the program cannot be spawned, or
 * the handshake fails.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient } from "effect-llm-tools/mcp"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const client = yield* McpClient.stdio({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] })
 *   return yield* McpClient.tools(client, { prefix: "everything_", timeout: "30 seconds" })
 * }))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const stdio = (
  options: StdioOptions
): Effect.Effect<McpClient, McpClientError.McpClientError, Scope.Scope> =>
  Effect.gen(function*() {
    const given = yield* Effect.serviceOption(ChildProcessSpawner.ChildProcessSpawner)
    const open = Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const pubsub = yield* PubSub.unbounded<Notification>()
      yield* Effect.addFinalizer(() => PubSub.shutdown(pubsub))
      const reading = ChildProcessSpawner.make((command) =>
        Effect.map(spawner.spawn(command), (handle) =>
          ChildProcessSpawner.makeHandle({
            ...handle,
            stdout: handle.stdout.pipe(Stream.mapEffect(readServerOutput(pubsub, messageLimit(options.maxMessageBytes))))
          }))
      )
      const command = ChildProcess.make(options.command, [...(options.args ?? [])], {
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.extendEnv === undefined ? {} : { extendEnv: options.extendEnv }),
        ...(options.cwd === undefined ? {} : { cwd: options.cwd })
      })
      const transport = yield* EffectMcpClient.stdio({
        command,
        protocol: ourRevision,
        maxMessageBytes: options.maxMessageBytes
      }).pipe(
        Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, reading)
      )
      return yield* connect(transport, options, Stream.fromPubSub(pubsub), pubsub)
    })
    return yield* Option.isSome(given)
      ? Effect.provideService(open, ChildProcessSpawner.ChildProcessSpawner, given.value)
      : open.pipe(Effect.provide(NodeServices.layer))
  })

/**
 * Connects to an MCP server over Streamable HTTP. The connection (and its session) lasts as long as the scope.
 *
 * Requests go through the `HttpClient` of the context when there is one, and through `fetch` otherwise. Fails with
 * Effect's `McpClientError` when the server cannot be reached or the handshake fails.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient } from "effect-llm-tools/mcp"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const client = yield* McpClient.http({ url: "http://127.0.0.1:3001/mcp", headers: { authorization: "Bearer …" } })
 *   return yield* McpClient.tools(client)
 * }))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const http = (
  options: HttpOptions
): Effect.Effect<McpClient, McpClientError.McpClientError, Scope.Scope> =>
  Effect.gen(function*() {
    const given = yield* Effect.serviceOption(HttpClient.HttpClient)
    const revision = new Revision()
    const open = Effect.gen(function*() {
      // Effect's transport sets the header once, to the revision asked for: the requests after an older revision was
      // agreed on carry that one, as MCP's HTTP transport requires.
      const client = HttpClient.mapRequest(
        yield* HttpClient.HttpClient,
        (request) =>
          !revision.agreed
            ? request
            : HttpClientRequest.setHeader(request, "mcp-protocol-version", revision.version)
      )
      return yield* EffectMcpClient.http({
        url: options.url,
        protocol: ourRevision,
        headers: options.headers,
        maxMessageBytes: options.maxMessageBytes
      }).pipe(Effect.provideService(HttpClient.HttpClient, client))
    })
    const opened = Option.isSome(given)
      ? Effect.provideService(open, HttpClient.HttpClient, given.value)
      : open.pipe(Effect.provide(FetchHttpClient.layer))
    // A new session: a transport, and the handshake on it, in whatever revision the server answers now (the client
    // made for the handshake is not used past that).
    const session = Effect.suspend(() => {
      revision.reset()
      return Effect.tap(opened, (transport) =>
        EffectMcpClient.make({
          name: options.name ?? "effect-llm-tools",
          version: options.version ?? "0.1.0",
          timeout: options.timeout
        }).pipe(Effect.provideService(EffectMcpClient.Transport, capturing(transport, revision))))
    })
    return yield* connect(yield* resumable(opened, session), options, Stream.empty, undefined, revision)
  })

/**
 * A transport that starts a new session when the server ended its own: MCP's HTTP transport says a client that is
 * answered 404 for its session (the server restarted, or dropped it) must start a new one, with a new `initialize`.
 * Effect's transport fails every request from then on: this one opens a new transport, runs the handshake on it, and
 * sends the request again there, once. Only a request the server never took is sent again: one answered 404, or one
 * Effect's transport refused to send once the session had ended. A session's transport is closed once it is replaced
 * and no request is left on it (closing it fails the requests on it as the session's end would, though the server
 * may have taken them), or when the scope ends. Requests that fail meanwhile share the new session.
 */
const resumable = (
  opened: Effect.Effect<EffectMcpClient.Transport, McpClientError.McpClientError, Scope.Scope>,
  session: Effect.Effect<EffectMcpClient.Transport, McpClientError.McpClientError, Scope.Scope>
): Effect.Effect<EffectMcpClient.Transport, McpClientError.McpClientError, Scope.Scope> =>
  Effect.gen(function*() {
    const parent = yield* Effect.scope
    const semaphore = yield* Semaphore.make(1)
    // The first session's handshake is the client's own (see `connect`).
    const firstScope = yield* Scope.fork(parent)
    const first = yield* Scope.provide(opened, firstScope)
    let current = new Session(first, firstScope)
    // The session after `failed`: a new one, unless another request already started it.
    const renewed = (failed: Session) =>
      semaphore.withPermit(Effect.suspend(() => {
        if (current !== failed) return Effect.succeed(current)
        return Effect.gen(function*() {
          const scope = yield* Scope.fork(parent)
          const transport = yield* Scope.provide(session, scope).pipe(
            Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
          )
          current = new Session(transport, scope)
          yield* failed.retire()
          return current
        })
      }))
    const expired = (error: McpClientError.McpClientError): boolean =>
      error.reason._tag === "ClosedError" && error.reason.sessionExpired === true
    const send = (used: Session, message: McpSchema.JsonRpcRequest, tool: McpSchema.Tool | undefined) =>
      Effect.acquireUseRelease(
        Effect.sync(() => used.requests++),
        () => used.transport.request(message, tool),
        () => Effect.suspend(() => --used.requests === 0 && used.retired ? used.close() : Effect.void)
      )
    return {
      ...first,
      request: (message, tool) =>
        Effect.suspend(() => {
          const used = current
          return send(used, message, tool).pipe(
            Effect.catch((error) =>
              expired(error)
                ? Effect.flatMap(renewed(used), (next) => send(next, message, tool))
                : Effect.fail(error)
            )
          )
        }),
      notify: (message) => Effect.suspend(() => current.transport.notify(message)),
      isCallable: (tool) => current.transport.isCallable(tool)
    }
  })

/** One session of {@link resumable}: its transport, the scope it lives in, and the requests on it. */
class Session {
  readonly transport: EffectMcpClient.Transport
  readonly scope: Scope.Closeable
  requests = 0
  retired = false
  constructor(transport: EffectMcpClient.Transport, scope: Scope.Closeable) {
    this.transport = transport
    this.scope = scope
  }
  /** Replaced by a new session: closed now, or once its last request is done. */
  retire(): Effect.Effect<void> {
    this.retired = true
    return this.requests === 0 ? this.close() : Effect.void
  }
  close(): Effect.Effect<void> {
    return Scope.close(this.scope, Exit.void)
  }
}

// ---------------------------------------------------------------------------
// Importing tools
// ---------------------------------------------------------------------------

/** Our annotations from the hints the server gave: only those it gave, never MCP's defaults for the others. */
const annotationsOf = (raw: Record<string, unknown>, timeout: Duration.Input | undefined): Tool.Annotations => {
  const hints = Predicate.isObject(raw.annotations) ? raw.annotations : {}
  const annotations: { -readonly [K in keyof Tool.Annotations]: Tool.Annotations[K] } = {}
  const title = typeof raw.title === "string" ? raw.title : hints.title
  if (typeof title === "string") annotations.title = title
  if (typeof hints.readOnlyHint === "boolean") annotations.readOnly = hints.readOnlyHint
  if (typeof hints.destructiveHint === "boolean") annotations.destructive = hints.destructiveHint
  if (typeof hints.idempotentHint === "boolean") annotations.idempotent = hints.idempotentHint
  if (typeof hints.openWorldHint === "boolean") annotations.openWorld = hints.openWorldHint
  if (timeout !== undefined) annotations.timeout = timeout
  return annotations
}

const describeReason = (error: McpClientError.McpClientError): string => {
  const reason = error.reason as { readonly _tag: string; readonly description?: unknown }
  return typeof reason.description === "string" ? `${reason._tag}: ${reason.description}` : reason._tag
}

/**
 * The error a failed request becomes: a timeout is `timeout`; anything else the connection did is `provider`. A
 * session the server ended (it answered 404 to the session's id) was started again, and the call sent again in the
 * new one (see `resumable`): that one ended too.
 */
const fromClientError = (name: string, error: McpClientError.McpClientError): ToolExecutionError.ToolExecutionError => {
  const reason = error.reason
  if (reason._tag === "TimeoutError") return ToolExecutionError.timeout()
  const why = reason._tag === "ClosedError" && reason.sessionExpired === true
    ? "the server ended the MCP session (HTTP 404), and the new one started for the call"
    : describeReason(error)
  return ToolExecutionError.makeSafe("provider", `MCP tool \`${name}\` failed: ${why}`, error)
}

/** Ids of our own `tools/call` requests: strings, so that they never meet the numbers Effect's client counts. */
let callIds = 0

/**
 * The call of one imported tool: `tools/call`, and its result read from the wire.
 *
 * The request goes straight through the transport, not through Effect's `callTool`: the raw result is all we read,
 * and `callTool` would check its payload and result twice with Schemas, and race every call against the client's
 * closing, for nothing we use. The transport still matches the response, fails the call when the connection ends,
 * and tells the server to cancel when the call is interrupted (by the tool's `timeout`, which dispatch enforces).
 */
const callOf = (
  transport: EffectMcpClient.Transport,
  descriptor: McpSchema.Tool,
  name: string,
  outputSchema: () => DynamicTool.JsonSchema | undefined,
  mode: StructuredContentMode
) =>
(args: DynamicTool.Arguments): Effect.Effect<ToolOutput.ToolOutput, ToolExecutionError.ToolExecutionError> =>
  Effect.flatMap(
    Effect.suspend(() =>
      transport.request(
        {
          jsonrpc: "2.0",
          id: `call-${++callIds}`,
          method: "tools/call",
          params: { name: descriptor.name, arguments: args }
        } as McpSchema.JsonRpcRequest,
        descriptor
      )
    ).pipe(Effect.mapError((error) => fromClientError(name, error))),
    (response) => readResponse(response, name, outputSchema, mode)
  )

/** A `tools/call`'s response as the call's output, or why it is not one. */
const readResponse = (
  response: McpSchema.JsonRpcResponse,
  name: string,
  outputSchema: () => DynamicTool.JsonSchema | undefined,
  mode: StructuredContentMode
): Effect.Effect<ToolOutput.ToolOutput, ToolExecutionError.ToolExecutionError> => {
  if ("error" in response) {
    const message = Predicate.isObject(response.error) && typeof response.error.message === "string"
      ? response.error.message
      : "an error without a message"
    return Effect.fail(
      ToolExecutionError.makeSafe("provider", `MCP tool \`${name}\` failed: ProtocolError: ${bounded(message)}`)
    )
  }
  const result: unknown = response.result
  if (!Predicate.isObject(result)) {
    return Effect.fail(ToolExecutionError.makeSafe("provider", `MCP tool \`${name}\` answered without a result`))
  }
  const structured = result.structuredContent
  // An error is read whole: what the server says went wrong may be in either part.
  const read = mode === "merge" || structured === undefined || result.isError === true
    ? McpContent.fromMcp(result.content, structured)
    : mode === "content"
    ? McpContent.fromMcp(result.content)
    : McpContent.fromMcp([], structured)
  if (Result.isFailure(read)) {
    return Effect.fail(ToolExecutionError.makeSafe(
      "provider",
      `MCP tool \`${name}\` answered with content that cannot be read: ${read.failure.message}`,
      read.failure
    ))
  }
  const output = read.success
  if (result.isError === true) {
    return Effect.fail(
      new ToolExecutionError.ToolExecutionError({
        kind: "other",
        message: `MCP tool \`${name}\` reported an error: ${bounded(ToolOutput.render(output))}`,
        modelOutput: output,
        retryable: undefined,
        refused: false
      })
    )
  }
  const schema = outputSchema()
  if (schema === undefined) return Effect.succeed(output)
  // MCP requires structured content that matches the declared output schema.
  if (result.structuredContent === undefined) {
    return Effect.fail(ToolExecutionError.makeSafe(
      "other",
      `MCP tool \`${name}\` has an outputSchema but answered without structuredContent`
    ))
  }
  // An output that is that one Json block is checked by dispatch, against the same schema: this checks it only where
  // it stands beside other blocks, which dispatch does not look into.
  if (Option.isSome(ToolOutput.asJson(output))) return Effect.succeed(output)
  const checked = validatorOf(schema).validate(result.structuredContent)
  if (Result.isSuccess(checked)) return Effect.succeed(output)
  const failure = checked.failure
  return Effect.fail(ToolExecutionError.makeSafe(
    "other",
    failure._tag === "Mismatch"
      ? `MCP tool \`${name}\`: the structuredContent does not match the outputSchema:\n${failure.message}`
      : `MCP tool \`${name}\`: the outputSchema cannot be used: ${failure.reason}`,
    failure._tag === "Mismatch" ? undefined : failure.cause
  ))
}

/**
 * The server's tools, as portable tools to put in a `ToolSet` or a `ToolServer`: named with the prefix, described,
 * with the server's `inputSchema` as their parameters (checked locally by dispatch), its `outputSchema`, its title
 * and hints as annotations (`readOnly`, `destructive`, `idempotent`, `openWorld`: only those the server gave), and
 * the timeout.
 *
 * A call sends `tools/call` and reads the result with `McpContent.fromMcp`:
 * - `structuredContent` becomes a Json block, and must match the `outputSchema` (else kind `other`);
 * - `isError: true` is kind `other`, and the model sees the server's content;
 * - past the timeout, kind `timeout`, and the server is sent `notifications/cancelled`;
 * - a connection that fails or a server that exits, and content that cannot be read, are kind `provider`.
 *
 * Base64 data is kept as the server sent it: data that is not strict base64 (unpadded, say) is not refused here.
 *
 * A tool that cannot be imported is left out, with a warning in the log that says why: its name (with the prefix)
 * is not a valid tool name, repeats another's, or its schemas are not usable JSON Schemas. Tools that need
 * task-augmented execution are not listed by Effect's client, and so are not imported.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolSet } from "effect-llm-tools"
 * import { McpClient } from "effect-llm-tools/mcp"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const client = yield* McpClient.stdio({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] })
 *   const tools = yield* McpClient.tools(client, { prefix: "ev_", timeout: "1 minute" })
 *   return ToolSet.make(...tools)
 * }))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const tools = (
  client: McpClient,
  options?: ToolsOptions
): Effect.Effect<Array<DynamicTool.PortableTool>, McpClientError.McpClientError> => {
  const mode = modeOf(options, "tools")
  return Effect.gen(function*() {
    const { client: effectClient, transport } = internalOf(client)
    const capture: Capture = { tools: [] }
    const listed = yield* effectClient.listTools().pipe(Effect.provideService(CurrentCapture, capture))
    const rawByName = new Map<string, Record<string, unknown>>()
    for (const raw of capture.tools) {
      if (Predicate.isObject(raw) && typeof raw.name === "string" && !rawByName.has(raw.name)) rawByName.set(raw.name, raw)
    }
    const prefix = options?.prefix ?? ""
    const timeout = options?.timeout
    const imported: Array<DynamicTool.PortableTool> = []
    const names = new Set<string>()
    for (const descriptor of listed) {
      const name = prefix + descriptor.name
      if (names.has(name)) {
        yield* Effect.logWarning(`MCP tool \`${bounded(name)}\` is not imported: the server lists it twice`)
        continue
      }
      const raw = rawByName.get(descriptor.name) ?? {}
      let tool: DynamicTool.PortableTool | undefined
      try {
        tool = DynamicTool.portable(name, {
          description: descriptor.description ?? descriptor.title ?? "",
          parameters: descriptor.inputSchema as DynamicTool.JsonSchema,
          outputSchema: descriptor.outputSchema as DynamicTool.JsonSchema | undefined,
          annotations: annotationsOf(raw, timeout),
          call: callOf(transport, descriptor, name, () => tool?.jsonSchemas?.outputSchema, mode)
        })
      } catch (error) {
        yield* Effect.logWarning(
          `MCP tool \`${bounded(name)}\` is not imported: ${error instanceof Error ? error.message : String(error)}`
        )
        continue
      }
      names.add(name)
      imported.push(tool)
    }
    return imported
  })
}

// ---------------------------------------------------------------------------
// Following the server's list
// ---------------------------------------------------------------------------

/**
 * What {@link attach} gives: a way to re-list the server's tools now, for a transport that cannot see
 * `notifications/tools/list_changed` (Streamable HTTP).
 *
 * @category models
 * @since 0.1.0
 */
export interface Attached {
  /** Lists the server's tools and brings the ToolServer in line with them, as a `list_changed` does. */
  readonly refresh: Effect.Effect<void, McpClientError.McpClientError>
}

const specOf = (tool: Tool.Any | undefined): DynamicTool.Spec | undefined =>
  tool !== undefined && DynamicTool.isPortable(tool) ? tool.spec : undefined

/**
 * Registers the server's tools (as {@link tools} imports them) into a `ToolServer`, and keeps them in line with the
 * server's list for as long as the scope lasts: each `notifications/tools/list_changed` (stdio) lists the tools again,
 * as {@link Attached.refresh} does.
 *
 * - A newer listing is never undone by an older one that finishes later: a listing is applied only when no listing
 *   started after it was applied already.
 * - A name that was registered in the ToolServer by anyone else since is never replaced, and never removed.
 * - A tool the server dropped is removed only if the ToolServer still holds the very tool that was registered for it.
 *
 * These hold against changes made before the listing is applied; the ToolServer has no compare-and-set, so a tool
 * registered by another fiber while a listing is being applied can still be replaced.
 *
 * @example
 * ```ts
 * import { Context, Effect } from "effect"
 * import { ToolServer, ToolSet } from "effect-llm-tools"
 * import { McpClient } from "effect-llm-tools/mcp"
 *
 * class Tools extends Context.Service<Tools, ToolServer.ToolServer>()("app/Tools") {}
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const client = yield* McpClient.stdio({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] })
 *   yield* McpClient.attach(client, Tools, { prefix: "ev_" })
 *   const server = yield* Tools
 *   return (yield* server.snapshot()).definitions
 * })).pipe(Effect.provide(ToolServer.layer(Tools, { tools: ToolSet.empty })))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const attach = <I, PerCall>(
  client: McpClient,
  server: Context.Key<I, ToolServer.ToolServer<PerCall>>,
  options?: ToolsOptions
): Effect.Effect<Attached, McpClientError.McpClientError, I | Scope.Scope> => {
  modeOf(options, "attach")
  return Effect.gen(function*() {
    const target = yield* server
    const { pubsub } = internalOf(client)
    // Subscribed before the first listing: a change the server makes meanwhile is not missed.
    const subscription = pubsub === undefined ? undefined : yield* PubSub.subscribe(pubsub)
    /** The spec of the tool registered for each name: what tells our tool from anyone else's. */
    const ours = new Map<string, DynamicTool.Spec>()
    const applying = yield* Semaphore.make(1)
    let started = 0
    let applied = 0

    const apply = (listed: ReadonlyArray<DynamicTool.PortableTool>) =>
      Effect.gen(function*() {
        // Without a query a snapshot ranks nothing, and cannot fail.
        const registered = (yield* Effect.orDie(target.snapshot())).toolSet
        const now = (name: string) => specOf(Option.getOrUndefined(ToolSet.get(registered, name)))
        const isOurs = (name: string) => {
          const spec = now(name)
          return spec !== undefined && spec === ours.get(name)
        }
        const names = new Set(listed.map((tool) => tool.name))
        for (const [name] of ours) {
          if (names.has(name)) continue
          if (isOurs(name)) yield* target.remove(name)
          ours.delete(name)
        }
        for (const tool of listed) {
          const taken = Option.isSome(ToolSet.get(registered, tool.name)) && !isOurs(tool.name)
          if (taken) {
            ours.delete(tool.name)
            continue
          }
          yield* target.add(tool)
          ours.set(tool.name, tool.spec)
        }
      })

    const refresh = Effect.gen(function*() {
      const generation = ++started
      const listed = yield* tools(client, options)
      yield* Semaphore.withPermits(applying, 1)(Effect.suspend(() => {
        if (generation < applied) return Effect.void
        applied = generation
        return apply(listed)
      }))
    })

    yield* refresh
    if (subscription !== undefined) {
      yield* Effect.forever(
        Effect.flatMap(PubSub.take(subscription), (notification) =>
          notification.method === "notifications/tools/list_changed"
            ? refresh.pipe(
              Effect.catch((error) => Effect.logWarning(`MCP tools could not be listed again: ${describeReason(error)}`))
            )
            : Effect.void)
      ).pipe(Effect.forkScoped)
    }
    return { refresh }
  })
}
