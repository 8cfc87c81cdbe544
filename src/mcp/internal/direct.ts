/**
 * `tools/call` straight from the transport to dispatch. Effect's MCP server answers every request through its RPC
 * server, whose machinery (sessions, dated schemas, a fiber per request, the result decoded and encoded again) costs
 * more per request than a whole call to an SDK server: on the transports where one connection is one client (stdio,
 * an in-memory connection), the calls of an initialized client skip it.
 *
 * A {@link Direct} sits between the transport's protocol and Effect's server, and reads every message on its way:
 * - a `tools/call` of a served tool, from a client that has initialized, is run at once by dispatch, in a fiber of
 *   its own, and answered on the same connection: the result as `McpServer` maps it, the tool's progress and logs as
 *   notifications before it (logs at the level the client set with `logging/setLevel`, `info` until it does);
 * - a `tools/call` of a tool that is not served, from a client that has sent `initialize`, is answered the same way:
 *   dispatch's not_found, as a result (Effect's server would answer a protocol error, where MCP wants a result);
 * - `notifications/cancelled` of such a call interrupts its fiber (its finalizers run), and nothing answers it; a call
 *   that dies is answered with JSON-RPC's internal error, as Effect's server answers a defect;
 * - a request before `initialize` (but `ping`) is answered with an invalid request, saying to initialize first
 *   (Effect's server would fail it as an internal error);
 * - a listing asked with a cursor is answered with invalid params: the server lists everything at once, and issues no
 *   cursor (Effect's server would ignore it, and list everything, as if the cursor were valid);
 * - everything else (initialization, listings, ping, malformed requests) goes to Effect's server, which answers as it
 *   always does.
 *
 * Over stdio, a line that is no message (blank, not JSON, not a request or response, or a request with a null id) is
 * answered here too, and never reaches Effect's server, which would drop the other messages read with it.
 *
 * @internal
 */
import { Cause, Effect, Fiber, Layer, Queue, type Schema, type Scope, Stdio, Stream } from "effect"
import { RpcSerialization, RpcServer } from "effect/rpc"
import type * as RpcMessage from "effect/rpc/RpcMessage"
import { isRecord } from "../../internal/jsonSchema.ts"
import { answerIdOf, lineReader, Overlong } from "./lines.ts"

/** MCP's log levels, in order: a client that set one hears it and those above. */
const levels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const

/** One MCP log level. */
export type Level = typeof levels[number]

const orderOf = new Map<unknown, number>(levels.map((level, i) => [level, i]))

/** A `notifications/message`. */
export interface LogMessage {
  readonly level: Level
  readonly logger: string
  readonly data: Schema.Json
}

/** A `notifications/progress`. */
export interface Progress {
  readonly progressToken: string | number
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/** Where a direct call's notifications go: to the client that made it, in the order they are made. */
export interface Notify {
  readonly progress: (progress: Progress) => Effect.Effect<void>
  /** Sent when the client's level lets it through, in the order the tool logged. */
  readonly log: (message: LogMessage) => void
}

/**
 * How the served tools answer a call: an Effect giving the wire `CallToolResult`; for a name that is not served, the
 * not_found result.
 */
export type Serve = (
  clientId: number,
  name: string,
  args: Record<string, unknown>,
  meta: Schema.JsonObject,
  notify: Notify
) => Effect.Effect<object>

/**
 * The state of the direct path of one served server: how calls are served (set once the tools are registered), and
 * what it knows of each client.
 */
export class Direct {
  serve: Serve | undefined = undefined
  /** Whether a tool of this name is served now (set with `serve`). */
  serves: (name: string) => boolean = () => false
  /**
   * The clients that sent `initialize`, each with the MCP revision it asked for, if it named one (the session has it
   * when it is served, the newest served otherwise): a result is shaped for it.
   */
  readonly started = new Map<number, string | undefined>()
  /** The clients that sent `notifications/initialized`. */
  readonly initialized = new Set<number>()
  /** The level each client set with `logging/setLevel`; `info` until it does. */
  readonly levels = new Map<number, Level>()
  /** The calls running, per client, by request id. */
  readonly running = new Map<number, Map<string | number, Fiber.Fiber<unknown>>>()
}

/**
 * The direct path of one connection's messages: `handle` takes a message the client sent, and answers whether the
 * direct path took it (the rest is for Effect's server). What it sends goes out through `send`. The calls it runs live
 * in the context it is made in (the server's), and are interrupted when their client leaves or the scope closes.
 */
export interface Interceptor {
  readonly handle: (clientId: number, message: RpcMessage.FromClientEncoded) => boolean
  readonly disconnect: (clientId: number) => Effect.Effect<void>
}

/** Makes the {@link Interceptor} of a connection, sending through `send`. */
export const interceptor = (
  direct: Direct,
  send: (clientId: number, message: RpcMessage.FromServerEncoded) => Effect.Effect<void>
): Effect.Effect<Interceptor, never, Scope.Scope> =>
  Effect.gen(function*() {
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...direct.running.values()].flatMap((calls) => [...calls.values()]), Fiber.interrupt, {
        discard: true
      })
    )

    const notification = (clientId: number, method: string, params: object) =>
      send(clientId, { _tag: "Request", id: "", tag: method, payload: params, headers: [], isNotification: true })

    const notifyOf = (clientId: number): Notify => ({
      progress: (progress) => notification(clientId, "notifications/progress", progress),
      log: (message) => {
        const level = direct.levels.get(clientId) ?? "info"
        if (orderOf.get(message.level)! >= orderOf.get(level)!) {
          runFork(notification(clientId, "notifications/message", message))
        }
      }
    })

    /** Runs a call of a client that has sent `initialize`; `false` for Effect's server to answer the request. */
    const call = (clientId: number, request: RpcMessage.RequestEncoded): boolean => {
      const serve = direct.serve
      const params = request.payload
      if (serve === undefined || !isRecord(params)) return false
      const { name, arguments: args, _meta: meta } = params
      if (typeof name !== "string" || (args !== undefined && !isRecord(args))) return false
      if (meta !== undefined && !isRecord(meta)) return false
      // Until its client has initialized, a call is Effect's server's, but for a tool that is not served, which it
      // would answer with a protocol error: the not_found result answers it from the start.
      if (!direct.initialized.has(clientId) && direct.serves(name)) return false
      const served = serve(clientId, name, args ?? {}, (meta ?? {}) as Schema.JsonObject, notifyOf(clientId))
      const id = request.id
      const fiber = runFork(served.pipe(
        Effect.flatMap((result) =>
          send(clientId, { _tag: "Exit", requestId: id, exit: { _tag: "Success", value: result } })
        ),
        // A cancelled call is not answered; one that died is answered as Effect's server answers a defect.
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.void : send(clientId, errorAnswer(id, internalError))
        )
      ))
      if (fiber.pollUnsafe() === undefined) {
        const running = direct.running.get(clientId) ?? new Map<string | number, Fiber.Fiber<unknown>>()
        direct.running.set(clientId, running)
        running.set(id, fiber)
        fiber.addObserver(() => {
          if (running.get(id) === fiber) running.delete(id)
        })
      }
      return true
    }

    /** A `notifications/cancelled` of a running direct call interrupts it; `false` for any other. */
    const cancel = (clientId: number, params: unknown): boolean => {
      if (!isRecord(params)) return false
      const requestId = params.requestId
      if (typeof requestId !== "string" && typeof requestId !== "number") return false
      const calls = direct.running.get(clientId)
      // Ids are compared as they came: the number or the string of the client's request.
      const fiber = calls?.get(requestId)
      if (fiber === undefined) return false
      calls!.delete(requestId)
      fiber.interruptUnsafe()
      return true
    }

    const handle = (clientId: number, message: RpcMessage.FromClientEncoded): boolean => {
      if (message._tag !== "Request") return false
      // Effect's server can answer no request but these before `initialize` (it fails them as internal errors).
      if (
        message.isNotification !== true && !direct.started.has(clientId) && message.tag !== "initialize" &&
        message.tag !== "ping"
      ) {
        runFork(send(clientId, errorAnswer(message.id, notInitialized)))
        return true
      }
      if (listMethods.has(message.tag) && message.isNotification !== true && hasCursor(message.payload)) {
        runFork(send(clientId, errorAnswer(message.id, invalidCursor)))
        return true
      }
      switch (message.tag) {
        case "tools/call":
          return message.isNotification !== true && call(clientId, message)
        case "notifications/cancelled":
          return cancel(clientId, message.payload)
        case "notifications/initialized":
          direct.initialized.add(clientId)
          return false
        case "logging/setLevel": {
          const level = isRecord(message.payload) ? message.payload.level : undefined
          if (orderOf.has(level)) direct.levels.set(clientId, level as Level)
          return false
        }
        case "initialize": {
          // A client that starts over is served by Effect's server until it has initialized again.
          forget(clientId)
          const revision = isRecord(message.payload) ? message.payload.protocolVersion : undefined
          direct.started.set(clientId, typeof revision === "string" ? revision : undefined)
          return false
        }
      }
      return false
    }

    /** Forgets what the direct path knows of a client: whether it initialized, and its log level. */
    const forget = (clientId: number): void => {
      direct.initialized.delete(clientId)
      direct.levels.delete(clientId)
    }

    const disconnect = (clientId: number): Effect.Effect<void> => {
      forget(clientId)
      direct.started.delete(clientId)
      const calls = direct.running.get(clientId)
      direct.running.delete(clientId)
      return calls === undefined ? Effect.void : Effect.forEach(calls.values(), Fiber.interrupt, { discard: true })
    }

    return { handle, disconnect }
  })

/**
 * The protocol Effect's server reads, with the direct path in front of `protocol`: what the direct path takes never
 * reaches Effect's server, and its answers go out through `protocol`.
 */
export const wrap = (
  protocol: RpcServer.Protocol["Service"],
  direct: Direct
): Effect.Effect<RpcServer.Protocol["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const { disconnect, handle } = yield* interceptor(direct, protocol.send)
    // A client that leaves takes its calls with it; Effect's server hears of it next.
    const disconnects = yield* Queue.unbounded<number>()
    yield* Queue.take(protocol.disconnects).pipe(
      Effect.flatMap((clientId) => Effect.andThen(disconnect(clientId), Queue.offer(disconnects, clientId))),
      Effect.forever,
      Effect.forkScoped
    )
    return RpcServer.Protocol.of({
      ...protocol,
      disconnects,
      run: (writeRequest) =>
        protocol.run((clientId, message) => handle(clientId, message) ? Effect.void : writeRequest(clientId, message))
    })
  })

/**
 * The standard input and output Effect's stdio server reads and writes, with the direct path in front: the lines the
 * direct path takes never reach Effect's server (which reads the others as they came), and what it sends goes out on
 * the same output, a line each.
 */
export const stdio = (direct: Direct, maxMessageBytes: number): Layer.Layer<Stdio.Stdio, never, Stdio.Stdio> =>
  Layer.effect(
    Stdio.Stdio,
    Effect.gen(function*() {
      const real = yield* Stdio.Stdio
      const parser = RpcSerialization.jsonRpc().makeUnsafe()
      const out = yield* Queue.unbounded<string, Cause.Done>()
      yield* Stream.fromQueue(out).pipe(Stream.run(real.stdout()), Effect.ignore, Effect.forkScoped)
      /** A message as a line of output; an error as MCP's stdio has it (Effect's server writes its own so). */
      const lineOf = (message: RpcMessage.FromServerEncoded): string => {
        if (message._tag === "Exit" && message.exit._tag === "Failure") {
          const failure = message.exit.cause.find((failure) => failure._tag === "Fail")
          const error = failure?._tag === "Fail" ? failure.error : internalError
          return `${JSON.stringify({ jsonrpc: "2.0", id: message.requestId, error })}\n`
        }
        return `${parser.encode(message) as string}\n`
      }
      const { disconnect, handle } = yield* interceptor(
        direct,
        (_, message) => Effect.asVoid(Queue.offer(out, lineOf(message)))
      )
      const forwarded = yield* Queue.unbounded<Uint8Array, Cause.Done>()
      // A line longer than the limit is never held whole (a client that sends one without end cannot exhaust memory):
      // it is answered as too large, to the request it starts when that can be told, and not at all when it is a
      // response or a notification (see `answerIdOf`).
      const lines = lineReader(maxMessageBytes)
      const encoder = new TextEncoder()
      const tooLarge = (line: Overlong): void => {
        const id = answerIdOf(line.head)
        if (id === undefined) return
        const error = { code: -32600, message: `Invalid Request: the message is larger than ${maxMessageBytes} bytes` }
        Queue.offerUnsafe(out, `${JSON.stringify({ jsonrpc: "2.0", id, error })}\n`)
      }
      /**
       * The complete lines of a chunk, to be read: those the direct path neither takes nor answers are forwarded as
       * they came, together.
       */
      const read = (chunk: Uint8Array): void => {
        let kept = ""
        for (const line of lines.read(chunk)) {
          if (line instanceof Overlong) tooLarge(line)
          else if (forwards(line, true)) kept += `${line}\n`
        }
        if (kept !== "") Queue.offerUnsafe(forwarded, encoder.encode(kept))
      }
      /**
       * Whether Effect's server is to read a line. Not when the direct path takes it (a message alone, when `mayTake`),
       * nor when it is no message (see {@link readMessages}): Effect's stdio server reads what it is given a chunk at a
       * time, and one line it cannot read costs every message of its chunk, unanswered. A blank line is skipped.
       */
      const forwards = (line: string, mayTake: boolean): boolean => {
        if (line.trim() === "") return false
        const messages = readMessages(parser, line)
        if (typeof messages === "string") {
          Queue.offerUnsafe(out, `${messages}\n`)
          return false
        }
        // A batch, even of one message, is Effect's server's: its answer is a batch too.
        return !(mayTake && messages.length === 1 && line.trimStart().startsWith("{") && handle(0, messages[0]!))
      }
      yield* real.stdin.pipe(
        Stream.runForEach((chunk) => Effect.sync(() => read(chunk))),
        Effect.ignore,
        Effect.ensuring(Effect.suspend(() => {
          // The last line, unended: read as the others, but left to Effect's server, as the client is leaving.
          const rest = lines.rest()
          if (rest instanceof Overlong) tooLarge(rest)
          else if (forwards(rest, false)) Queue.offerUnsafe(forwarded, encoder.encode(rest))
          return Effect.andThen(disconnect(0), Queue.end(forwarded))
        })),
        Effect.forkScoped
      )
      return Stdio.make({
        args: real.args,
        stdinIsTerminal: real.stdinIsTerminal,
        stdoutIsTerminal: real.stdoutIsTerminal,
        stderrIsTerminal: real.stderrIsTerminal,
        stdout: real.stdout,
        stderr: real.stderr,
        stdin: Stream.fromQueue(forwarded)
      })
    })
  )

/**
 * The messages of one client's text, as Effect's server reads them, or, for text that holds none, the JSON-RPC error
 * to answer (with a null id, as JSON-RPC answers what has no id): a parse error for text that is not JSON, an invalid
 * request for JSON that is neither a request nor a response (not an object, an empty batch, an object without a method
 * or an id) and for a request whose id is `null`, which MCP forbids. Effect's server would leave those unanswered, or
 * answer a null id with `""`.
 */
export const readMessages = (
  parser: RpcSerialization.Parser,
  text: string
): ReadonlyArray<RpcMessage.FromClientEncoded> | string => {
  let messages: ReadonlyArray<RpcMessage.FromClientEncoded>
  try {
    messages = parser.decode(text) as ReadonlyArray<RpcMessage.FromClientEncoded>
  } catch {
    return parseError
  }
  const single = messages.length === 1 ? messages[0]! : undefined
  // The parser reads a message without a method as a response (an Exit), as clients send them too; it reads an id
  // that is `null` or missing as `""`, which a client may also send: the text is read again, only then.
  const shape = single as { readonly _tag: string; readonly requestId?: unknown } | undefined
  const noId = single?._tag === "Request"
    ? single.isNotification !== true && single.id === ""
    : shape?._tag === "Exit" && shape.requestId === ""
  return messages.length === 0 || noId && hasNoId(text) ? invalidRequest : messages
}

const parseError = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })
const invalidRequest = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } })

const hasNoId = (text: string): boolean => {
  const parsed: unknown = JSON.parse(text)
  return isRecord(parsed) && (parsed.id === null || parsed.id === undefined)
}

/** A JSON-RPC error. */
interface RpcError {
  readonly code: number
  readonly message: string
}

/** JSON-RPC's internal error: how a call that died is answered, nothing of the defect. */
const internalError: RpcError = { code: -32603, message: "Internal error" }

/** How a request before `initialize` is answered: an invalid request, saying what to send first. */
const notInitialized: RpcError = {
  code: -32600,
  message: "Invalid Request: the session is not initialized; send initialize first"
}

/** The listings of MCP, which a client pages through with the cursor the server gave it. */
export const listMethods: ReadonlySet<unknown> = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list"
])

/** Whether the params of a listing name a cursor (one of another type is Effect's server's to refuse). */
const hasCursor = (params: unknown): boolean => isRecord(params) && typeof params.cursor === "string"

/**
 * How a listing asked with a cursor is answered: the server lists everything at once and issues no cursor, so none is
 * valid, and MCP asks for invalid params.
 */
export const invalidCursor: RpcError = {
  code: -32602,
  message: "Invalid params: unknown cursor; this server lists everything at once and gives no cursors"
}

/** The answer to request `id` with `error`. */
const errorAnswer = (id: string | number, error: RpcError): RpcMessage.FromServerEncoded => ({
  _tag: "Exit",
  requestId: id,
  exit: { _tag: "Failure", cause: [{ _tag: "Fail", error }] }
})

