/// <reference types="node" preserve="true" />
/**
 * `fetch`, a built-in tool that reads a web page for the model: an HTTP GET to a host on an allow-list, answered as
 * readable text, that cannot be turned against the network it runs in.
 *
 * - **Hosts.** A URL's host must be on the allow-list: exact hosts (`docs.example.com`, `93.184.216.34`), and
 *   `*.example.com` for every subdomain of `example.com` (not `example.com` itself: list it too if it is wanted).
 *   Any port of an allowed host is allowed. URLs with a user name or password are refused.
 * - **Addresses.** The host is resolved once, and every address it resolves to must be public, or the request is
 *   refused: no loopback, private, link-local, unique-local, unspecified, multicast, shared (CGNAT), reserved or
 *   documentation address, in IPv4 or IPv6. IPv4-mapped IPv6 addresses are checked as the IPv4 address they map to,
 *   NAT64 (`64:ff9b::/96`) addresses by the IPv4 address they embed, and the other embeddings (6to4, Teredo,
 *   IPv4-compatible, SIIT, local-use NAT64) are refused. An IP literal in the URL is checked the same way. The
 *   connection then goes to an address that was checked, never to the name, so a DNS answer that changes between
 *   the check and the connection (a rebind) cannot move it: TLS is set up with the host name for SNI and the
 *   certificate check, and the `Host` header names the host.
 * - **Redirects.** Followed up to `maxRedirects` (at most 5), each one checked again as above: allow-list, DNS,
 *   addresses. A redirect to a scheme other than http or https is refused.
 * - **Size and time.** At most `maxBytes` of the body are read (after decompression; an endless body is cut there
 *   and the output says so). The whole request — resolution, connection, redirects, the slowest body — must finish
 *   within `timeout`, or the call fails with kind `timeout`.
 * - **Content.** HTML is reduced to readable text (headings, paragraphs, lists, table cells, links with absolute
 *   URLs); `text/*`, JSON and XML come back as they are, decoded by the charset the server names (UTF-8 when it
 *   names none). Any other content type, or none, is refused with an error that names the type, without reading the
 *   body.
 * - **Errors.** Every failure is a `ToolExecutionError` whose model-visible message never repeats the URL or an
 *   address: a refused host or address is `permission_denied` with status `denied`; a DNS or connection failure is
 *   `network`; an HTTP error status maps to a kind (404 is `not_found`, 429 `rate_limited`, 5xx `provider`) and
 *   carries the status.
 *
 * The tool is portable: it needs no services. It is built on `node:http` over a socket that this module dials
 * itself (see {@link Connector}), because Effect's `HttpClient` chooses where to connect from the URL and has no
 * way to pin a request to an address checked beforehand.
 *
 * @since 0.1.0
 */
import { Context, Data, Duration, Effect, Option, Redacted, Schema, type Scope } from "effect"
import * as dns from "node:dns"
import { type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http"
import * as net from "node:net"
import type { Duplex } from "node:stream"
import * as tls from "node:tls"
import type { PortableTool } from "../DynamicTool.ts"
import * as Tool from "../Tool.ts"
import * as ToolExecutionError from "../ToolExecutionError.ts"
import * as ToolOutput from "../ToolOutput.ts"
import { checkAddress } from "./internal/address.ts"
import { type AllowList, canonicalHostname, isAllowed, isIpLiteral, parseAllowList } from "./internal/hostAllowList.ts"
import { htmlToText } from "./internal/htmlText.ts"
import {
  type BodyError,
  contentCodingOf,
  type ContentType,
  contentTypeOf,
  decodeText,
  describeMime,
  readBody
} from "./internal/responseBody.ts"

/**
 * Resolves a host name to its IP addresses, as text (`"93.184.216.34"`, `"2606:2800:220:1::248"`). The default,
 * {@link defaultResolver}, is `node:dns`'s `lookup` with `all: true`. Inject one to test the address policy, or to
 * resolve through a resolver of your own. An answer that is not an IP address is treated as a non-public one.
 *
 * @category models
 */
export type Resolver = (hostname: string) => Effect.Effect<ReadonlyArray<string>, unknown>

/**
 * Where to connect: an address that was checked, never a name to resolve.
 *
 * @category models
 */
export interface ConnectTarget {
  /** The checked IP address to dial, canonical (an IPv4-mapped IPv6 address is given as its IPv4 address). */
  readonly address: string
  readonly family: 4 | 6
  readonly port: number
  /** The URL's host: the name for TLS's SNI and certificate check (an IP literal when the URL names one). */
  readonly hostname: string
  /** True for https: the connection must be TLS, with the certificate checked against `hostname`. */
  readonly tls: boolean
}

/**
 * Opens a connection to a checked address: TCP for http, TLS (with `servername` and the certificate checked against
 * the host name) for https. The connection is the caller's until the scope closes, when it is destroyed (by the
 * connector's finalizer, and by the tool's own). The default, {@link defaultConnector}, uses `node:net` and
 * `node:tls`. Inject one to test the tool without sending a packet anywhere else than where the test says.
 * Connecting must be interruptible (an `Effect.acquireRelease` needs `{ interruptible: true }`): the call's timeout
 * ends it by interruption, and one that cannot be interrupted holds the call until the peer or the system gives up.
 *
 * @category models
 */
export type Connector = (target: ConnectTarget) => Effect.Effect<Duplex, unknown, Scope.Scope>

/**
 * The options of {@link http}.
 *
 * @category models
 */
export interface HttpOptions {
  /** The hosts the tool may fetch from: `example.com`, `*.example.com` (its subdomains), or an IP address. */
  readonly allow: ReadonlyArray<string>
  /** The most bytes of a body that are read (after decompression); the rest is cut. Default: 1 MiB. */
  readonly maxBytes?: number | undefined
  /** The longest a whole request may take, redirects and body included. Default: 30 seconds. */
  readonly timeout?: Duration.Input | undefined
  /** The most redirects followed, from 0 to 5. Default: 5. */
  readonly maxRedirects?: number | undefined
  /** Resolves host names; default {@link defaultResolver}. */
  readonly resolve?: Resolver | undefined
  /** Opens connections to checked addresses; default {@link defaultConnector}. */
  readonly connect?: Connector | undefined
}

/**
 * The defaults of {@link HttpOptions}, and the most redirects that may be allowed.
 *
 * @category constants
 */
export const defaults = {
  maxBytes: 1024 * 1024,
  timeout: Duration.seconds(30),
  maxRedirects: 5,
  maxRedirectsLimit: 5
} as const

/**
 * The name of the tool: `fetch`.
 *
 * @category constants
 */
export const name = "fetch" as const

/**
 * The arguments of the tool: the URL to GET, absolute, http or https. Other keys are refused, so that a model that
 * asks for a method or a body learns that it cannot have them.
 *
 * @category schemas
 */
export const Parameters = Schema.Struct({
  url: Schema.String.check(Schema.isMaxLength(8192)).annotate({
    description: "The absolute http or https URL to fetch, on one of the allowed hosts"
  })
})

/**
 * The tool {@link http} gives: a portable tool named `fetch` whose output is the page as text.
 *
 * @category models
 */
export type FetchTool = PortableTool<typeof name, typeof Parameters.Type, string, ToolExecutionError.ToolExecutionError>

/**
 * Options that {@link http} cannot work with: `option` names the one, `message` says why.
 *
 * @category errors
 */
export class HttpOptionsError extends Data.TaggedError("HttpOptionsError")<{
  readonly option: "options" | "allow" | "maxBytes" | "timeout" | "maxRedirects" | "resolve" | "connect"
  readonly message: string
}> {}

// ---------------------------------------------------------------------------------------------------------------------
// defaults
// ---------------------------------------------------------------------------------------------------------------------

/**
 * `node:dns`'s `lookup` with `all: true`: every address the system's resolver gives for the name (the hosts file
 * included), in its order. Node cannot cancel a lookup: an interrupted one finishes in the background, unread.
 *
 * @category resolvers
 */
export const defaultResolver: Resolver = (hostname) =>
  Effect.callback<ReadonlyArray<string>, Error>((resume) => {
    dns.lookup(hostname, { all: true }, (error, addresses) => {
      if (error !== null) resume(Effect.fail(error))
      else resume(Effect.succeed(addresses.map((entry) => entry.address)))
    })
  })

/** Refuses every lookup: connections are made to addresses, so a name reaching Node's resolver here is a bug. */
const noLookup: net.LookupFunction = (hostname, _options, callback) =>
  callback(
    Object.assign(new Error(`refusing to resolve ${hostname}: connections go to checked addresses only`), {
      code: "ENOTFOUND"
    }),
    "",
    0
  )

/**
 * Connects with `node:net` (http) or `node:tls` (https) to `target.address`, never to a name. TLS sends the host
 * name as SNI (not for an IP literal, which SNI does not allow) and checks the certificate against it, with Node's
 * default trust store; it offers only HTTP/1.1 by ALPN. The socket is destroyed when the scope closes.
 *
 * @category connectors
 */
export const defaultConnector: Connector = (target) =>
  Effect.acquireRelease(
    Effect.callback<Duplex, Error>((resume) => {
      const socket = target.tls
        ? tls.connect({
          host: target.address,
          port: target.port,
          ...(isIpLiteral(target.hostname) ? {} : { servername: target.hostname }),
          ALPNProtocols: ["http/1.1"],
          lookup: noLookup
        })
        : net.connect({ host: target.address, port: target.port, lookup: noLookup })
      const onError = (error: Error) => {
        socket.destroy()
        resume(Effect.fail(error))
      }
      socket.once("error", onError)
      socket.once(target.tls ? "secureConnect" : "connect", () => {
        socket.off("error", onError)
        resume(Effect.succeed(socket))
      })
      return Effect.sync(() => socket.destroy())
    }),
    (socket) => Effect.sync(() => socket.destroy()),
    // Interruptible while it connects: the call's timeout ends a peer that never answers (dropped SYNs, a TLS
    // handshake that stalls), destroying the socket, instead of waiting for the system to give up.
    { interruptible: true }
  )

// ---------------------------------------------------------------------------------------------------------------------
// errors the model sees
// ---------------------------------------------------------------------------------------------------------------------

const failure = (
  kind: ToolExecutionError.ToolErrorKind,
  model: string,
  operator: string = model,
  cause?: unknown
): ToolExecutionError.ToolExecutionError =>
  new ToolExecutionError.ToolExecutionError({
    kind,
    message: operator,
    modelOutput: ToolOutput.text(model),
    retryable: ToolExecutionError.defaultRetryable(kind),
    refused: false,
    cause: cause === undefined ? undefined : Redacted.make(cause)
  })

const denied = (model: string, operator: string): ToolExecutionError.ToolExecutionError =>
  new ToolExecutionError.ToolExecutionError({
    kind: "permission_denied",
    message: operator,
    modelOutput: ToolOutput.text(model),
    retryable: false,
    refused: true
  })

const statusError = (status: number): ToolExecutionError.ToolExecutionError => {
  const [kind, meaning]: readonly [ToolExecutionError.ToolErrorKind, string] = status === 404 || status === 410
    ? ["not_found", "the page does not exist"]
    : status === 401 || status === 403 || status === 407
    ? ["permission_denied", "access to the page is denied"]
    : status === 429
    ? ["rate_limited", "too many requests; try again later"]
    : status === 408 || status === 504
    ? ["timeout", "the server or a gateway timed out"]
    : status >= 500
    ? ["provider", "the server failed or is unavailable"]
    : ["other", "the request was not successful"]
  const error = failure(kind, `the server answered with status ${status}: ${meaning}`)
  return ToolExecutionError.withHttpStatus(error, status)
}

// ---------------------------------------------------------------------------------------------------------------------
// one request
// ---------------------------------------------------------------------------------------------------------------------

interface Config {
  readonly allow: AllowList
  readonly maxBytes: number
  readonly timeout: Duration.Duration
  readonly maxRedirects: number
  readonly resolve: Resolver
  readonly connect: Connector
}

/** A URL that passed the allow-list, and the checked addresses of its host. */
interface Target {
  readonly url: URL
  readonly hostname: string
  readonly port: number
  readonly tls: boolean
  readonly addresses: ReadonlyArray<{ readonly address: string; readonly family: 4 | 6 }>
}

type Hop =
  | { readonly _tag: "Page"; readonly text: string }
  | { readonly _tag: "Redirect"; readonly location: string | undefined }

/** The URL the model asked for, or why it is not one this tool fetches. */
const requestUrl = (text: string): Effect.Effect<URL, ToolExecutionError.ToolExecutionError> => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return Effect.fail(ToolExecutionError.invalidArgs("url must be an absolute http or https URL"))
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Effect.fail(ToolExecutionError.invalidArgs("url must be an http or https URL"))
  }
  if (url.username !== "" || url.password !== "") {
    return Effect.fail(ToolExecutionError.invalidArgs("url must not hold a user name or password"))
  }
  url.hash = ""
  return Effect.succeed(url)
}

/** The URL a redirect points to, relative to the URL that answered it, or why it is not followed. */
const redirectUrl = (
  from: URL,
  location: string | undefined
): Effect.Effect<URL, ToolExecutionError.ToolExecutionError> => {
  if (location === undefined) {
    return Effect.fail(failure("provider", "the server answered with a redirect that names no location"))
  }
  let url: URL
  try {
    url = new URL(location, from)
  } catch {
    return Effect.fail(failure("provider", "the server redirected to an invalid URL"))
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Effect.fail(denied(
      "the server redirected to a URL that is not http or https, which this tool does not follow",
      `redirect from ${from.href} to a ${url.protocol} URL refused`
    ))
  }
  if (url.username !== "" || url.password !== "") {
    return Effect.fail(denied(
      "the server redirected to a URL with a user name or password, which this tool does not follow",
      `redirect from ${from.href} to a URL with credentials refused`
    ))
  }
  url.hash = ""
  return Effect.succeed(url)
}

/** What the resolver answers, whatever it does: a failure, a defect and an answer that is not a list are failures. */
const resolveHost = (config: Config, hostname: string): Effect.Effect<ReadonlyArray<unknown>, unknown> =>
  Effect.suspend(() => config.resolve(hostname)).pipe(
    Effect.catchDefect((defect) => Effect.fail(defect)),
    Effect.flatMap((answer) =>
      Array.isArray(answer) ? Effect.succeed(answer as ReadonlyArray<unknown>) : Effect.fail(answer)
    )
  )

/** Checks a URL against the allow-list, resolves its host once, and checks every address it resolves to. */
const checkTarget = (
  config: Config,
  url: URL,
  viaRedirect: boolean
): Effect.Effect<Target, ToolExecutionError.ToolExecutionError> =>
  Effect.gen(function*() {
    const hostname = canonicalHostname(url.hostname)
    if (!isAllowed(config.allow, hostname)) {
      return yield* Effect.fail(denied(
        viaRedirect
          ? `the server redirected to a host that is not on this tool's allow-list (${
            config.allow.entries.join(", ")
          })`
          : `the host is not on this tool's allow-list; allowed hosts: ${config.allow.entries.join(", ")}`,
        `host ${hostname} is not on the allow-list${viaRedirect ? " (redirect)" : ""}`
      ))
    }
    const literal = isIpLiteral(hostname)
    const answers: ReadonlyArray<unknown> = literal
      ? [hostname]
      : yield* resolveHost(config, hostname).pipe(
        Effect.mapError((cause) =>
          failure("network", "the host name could not be resolved", `resolving ${hostname} failed`, cause)
        )
      )
    if (answers.length === 0) {
      return yield* Effect.fail(failure("network", "the host name resolved to no address", `${hostname}: no address`))
    }
    const addresses: Array<{ readonly address: string; readonly family: 4 | 6 }> = []
    const seen = new Set<string>()
    for (const answer of answers) {
      const verdict = typeof answer === "string"
        ? checkAddress(answer)
        : { _tag: "NonPublic" as const, range: "not an IP address" }
      if (verdict._tag === "NonPublic") {
        const shown = typeof answer === "string" ? answer.slice(0, 100) : `a ${typeof answer}`
        return yield* Effect.fail(denied(
          literal
            ? `${
              viaRedirect ? "the server redirected to" : "the URL names"
            } a non-public address; this tool connects only to public addresses`
            : `${
              viaRedirect ? "the server redirected to a host that" : "the host"
            } resolved to a non-public address; this tool connects only to public addresses`,
          `${hostname} ${literal ? "is" : "resolved to"} ${shown} (${verdict.range})` +
            (viaRedirect ? " after a redirect" : "")
        ))
      }
      if (seen.has(verdict.address)) continue
      seen.add(verdict.address)
      addresses.push({ address: verdict.address, family: verdict.family })
    }
    const tlsWanted = url.protocol === "https:"
    return {
      url,
      hostname,
      port: url.port === "" ? (tlsWanted ? 443 : 80) : Number(url.port),
      tls: tlsWanted,
      addresses
    }
  })

/** Connects to the checked addresses in turn, until one answers. */
const dial = (
  config: Config,
  target: Target
): Effect.Effect<
  { readonly socket: Duplex; readonly address: string },
  ToolExecutionError.ToolExecutionError,
  Scope.Scope
> =>
  Effect.gen(function*() {
    let lastCause: unknown
    for (const { address, family } of target.addresses) {
      const connected = yield* Effect.suspend(() =>
        config.connect({ address, family, port: target.port, hostname: target.hostname, tls: target.tls })
      ).pipe(
        Effect.catchDefect((defect) => Effect.fail(defect)),
        Effect.map(Option.some),
        Effect.catch((cause) => {
          lastCause = cause
          return Effect.succeed(Option.none<Duplex>())
        })
      )
      if (Option.isNone(connected)) continue
      const socket = connected.value
      if (
        typeof socket !== "object" || socket === null || typeof socket.on !== "function" ||
        typeof socket.destroy !== "function"
      ) {
        lastCause = new TypeError("the connector gave something that is not a stream")
        continue
      }
      // The tool owns the connection from here: it is destroyed when the request is done, whatever the connector
      // does, and an error on it after the request no longer listens is not an uncaught exception.
      socket.on("error", () => {})
      yield* Effect.addFinalizer(() => Effect.sync(() => socket.destroy()))
      return { socket, address }
    }
    return yield* Effect.fail(failure(
      "network",
      "could not connect to the host",
      `could not connect to ${target.hostname}:${target.port} at ${target.addresses.map((a) => a.address).join(", ")}`,
      lastCause
    ))
  })

const userAgent = "effect-llm-tools-fetch/0.1"

/** Sends the GET over a connection that is already open, and waits for the response's head. */
const send = (socket: Duplex, address: string, target: Target): Effect.Effect<IncomingMessage, unknown> =>
  Effect.callback<IncomingMessage, unknown>((resume) => {
    const host = isIpLiteral(target.hostname) && target.hostname.includes(":")
      ? `[${target.hostname}]`
      : target.hostname
    let request: ClientRequest
    try {
      request = httpRequest({
        method: "GET",
        // Node connects through `createConnection`, which hands it the socket dialled to the checked address: these
        // are that address, in case anything in Node reads them, and Node never resolves a name (`lookup`).
        host: address,
        port: target.port,
        lookup: noLookup,
        createConnection: () => socket,
        path: `${target.url.pathname}${target.url.search}`,
        setHost: false,
        headers: {
          host: target.url.port === "" ? host : `${host}:${target.url.port}`,
          "user-agent": userAgent,
          accept: "text/html, text/plain;q=0.9, application/json;q=0.9, text/*;q=0.8, */*;q=0.1",
          "accept-encoding": "identity",
          connection: "close"
        }
      })
    } catch (cause) {
      resume(Effect.fail(cause))
      return
    }
    request.on("error", (cause) => resume(Effect.fail(cause)))
    request.once("response", (response) => resume(Effect.succeed(response)))
    request.end()
    return Effect.sync(() => request.destroy())
  })

const isRedirect = (status: number): boolean =>
  status === 301 || status === 302 || status === 303 || status === 307 || status === 308

const headerOf = (response: IncomingMessage, name: string): string | undefined => {
  const value = response.headers[name]
  return Array.isArray(value) ? value[0] : value
}

const bodyFailure = (error: BodyError): ToolExecutionError.ToolExecutionError =>
  error.reason === "Closed"
    ? failure("network", "the connection closed before the whole page arrived", "body cut short", error.cause)
    : failure("provider", "the server sent a compressed body that could not be decompressed", "bad body", error.cause)

/** What the model reads: where the page came from, its type, its text, and whether it was cut. */
const render = (url: URL, contentType: ContentType, text: string, truncated: boolean, maxBytes: number): string =>
  [
    `URL: ${url.href}`,
    `Content-Type: ${contentType.mime}`,
    "",
    text,
    ...(truncated ? ["", `[truncated: the page is longer than ${maxBytes} bytes; the rest was not read]`] : [])
  ].join("\n")

/** One request: check, connect, send, and read either a redirect or the page. */
const hop = (
  config: Config,
  url: URL,
  viaRedirect: boolean
): Effect.Effect<Hop, ToolExecutionError.ToolExecutionError, Scope.Scope> =>
  Effect.gen(function*() {
    const target = yield* checkTarget(config, url, viaRedirect)
    const { address, socket } = yield* dial(config, target)
    const response = yield* send(socket, address, target).pipe(
      Effect.mapError((cause) =>
        failure("network", "the server did not send a valid HTTP response", `request to ${url.href} failed`, cause)
      )
    )
    yield* Effect.addFinalizer(() => Effect.sync(() => response.destroy()))
    const status = response.statusCode ?? 0
    if (isRedirect(status)) return { _tag: "Redirect", location: headerOf(response, "location") } as const
    if (status < 200 || status > 299) return yield* Effect.fail(statusError(status))
    const contentType = contentTypeOf(headerOf(response, "content-type"))
    if (contentType.kind === "unsupported") {
      return yield* Effect.fail(failure(
        "other",
        `the page is ${
          describeMime(contentType.mime)
        }, which this tool does not read; it reads HTML, text, JSON and XML`,
        `unsupported content type from ${url.href}`
      ).pipe(ToolExecutionError.withRetryable(false)))
    }
    const coding = contentCodingOf(headerOf(response, "content-encoding"))
    if (coding === undefined) {
      return yield* Effect.fail(failure(
        "other",
        "the server sent the page in a content encoding this tool does not decode",
        `unsupported content encoding from ${url.href}`
      ).pipe(ToolExecutionError.withRetryable(false)))
    }
    const body = yield* readBody(response, coding, config.maxBytes).pipe(Effect.mapError(bodyFailure))
    const text = decodeText(body.bytes, contentType.charset)
    if (contentType.kind === "text") {
      return { _tag: "Page", text: render(url, contentType, text, body.truncated, config.maxBytes) } as const
    }
    const converted = htmlToText(text, { base: url, maxChars: config.maxBytes })
    return {
      _tag: "Page",
      text: render(url, contentType, converted.text, body.truncated || converted.truncated, config.maxBytes)
    } as const
  })

/** A whole fetch: the URL, its redirects, and the page, within the timeout. */
const fetchPage = (config: Config, text: string): Effect.Effect<string, ToolExecutionError.ToolExecutionError> =>
  Effect.gen(function*() {
    let url = yield* requestUrl(text)
    for (let redirects = 0;; redirects++) {
      const outcome = yield* Effect.scoped(hop(config, url, redirects > 0))
      if (outcome._tag === "Page") return outcome.text
      if (redirects >= config.maxRedirects) {
        return yield* Effect.fail(failure(
          "other",
          config.maxRedirects === 0
            ? "the server answered with a redirect, and this tool follows none"
            : `the server redirected more than ${config.maxRedirects} times; this tool stops there`,
          `too many redirects from ${text.slice(0, 200)}`
        ).pipe(ToolExecutionError.withRetryable(false)))
      }
      url = yield* redirectUrl(url, outcome.location)
    }
  }).pipe(
    Effect.timeoutOrElse({
      duration: config.timeout,
      orElse: () =>
        Effect.fail(ToolExecutionError.timeout(`the request did not finish within ${Duration.format(config.timeout)}`))
    })
  )

// ---------------------------------------------------------------------------------------------------------------------
// the tool
// ---------------------------------------------------------------------------------------------------------------------

const optionsError = (option: HttpOptionsError["option"], message: string) =>
  new HttpOptionsError({ option, message })

const configOf = (options: HttpOptions): Effect.Effect<Config, HttpOptionsError> =>
  Effect.gen(function*() {
    if (typeof options !== "object" || options === null) {
      return yield* Effect.fail(optionsError("options", "the options must be an object with an `allow` list"))
    }
    if (!Array.isArray(options.allow)) {
      return yield* Effect.fail(optionsError("allow", "`allow` must be a list of hosts"))
    }
    const allow = parseAllowList(options.allow)
    if (allow._tag === "Failure") return yield* Effect.fail(optionsError("allow", allow.failure))
    const maxBytes = options.maxBytes ?? defaults.maxBytes
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
      return yield* Effect.fail(optionsError("maxBytes", "`maxBytes` must be a whole number of one or more"))
    }
    const timeout = options.timeout === undefined ? Option.some(defaults.timeout) : Duration.fromInput(options.timeout)
    if (Option.isNone(timeout) || !Duration.isFinite(timeout.value) || !Duration.isPositive(timeout.value)) {
      return yield* Effect.fail(optionsError("timeout", "`timeout` must be a finite duration longer than zero"))
    }
    const maxRedirects = options.maxRedirects ?? defaults.maxRedirects
    if (!Number.isInteger(maxRedirects) || maxRedirects < 0 || maxRedirects > defaults.maxRedirectsLimit) {
      return yield* Effect.fail(optionsError(
        "maxRedirects",
        `\`maxRedirects\` must be a whole number from 0 to ${defaults.maxRedirectsLimit}`
      ))
    }
    if (options.resolve !== undefined && typeof options.resolve !== "function") {
      return yield* Effect.fail(optionsError("resolve", "`resolve` must be a function"))
    }
    if (options.connect !== undefined && typeof options.connect !== "function") {
      return yield* Effect.fail(optionsError("connect", "`connect` must be a function"))
    }
    return {
      allow: allow.success,
      maxBytes,
      timeout: timeout.value,
      maxRedirects,
      resolve: options.resolve ?? defaultResolver,
      connect: options.connect ?? defaultConnector
    }
  })

/**
 * The `fetch` tool, for the hosts of `options.allow`: an HTTP GET whose answer the model reads as text. Fails with
 * an {@link HttpOptionsError} when the options cannot be used (an empty or malformed allow-list, a size or timeout
 * that is not positive, more than 5 redirects). See the module's documentation for what it refuses and why.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolSet } from "effect-llm-tools"
 * import { Builtin } from "effect-llm-tools/builtin"
 *
 * const program = Effect.gen(function*() {
 *   const fetch = yield* Builtin.http({ allow: ["docs.example.com", "*.wikipedia.org"], timeout: "10 seconds" })
 *   const set = ToolSet.make(fetch)
 *   return yield* ToolSet.execute(set, {
 *     id: "call_1",
 *     name: "fetch",
 *     arguments: { url: "https://en.wikipedia.org/wiki/Effect_system" }
 *   })
 * })
 * ```
 *
 * @category constructors
 */
export const http = (options: HttpOptions): Effect.Effect<FetchTool, HttpOptionsError> =>
  Effect.map(configOf(options), (config) => {
    const hosts = config.allow.entries.join(", ")
    const tool = Tool.make(name, {
      description: "Fetch a web page or text document with an HTTP GET and return it as readable text. " +
        `Only these hosts are allowed: ${hosts}. HTML is reduced to text with links; text, JSON and XML come back ` +
        `as they are; other content types are refused. At most ${config.maxBytes} bytes of the page are read.`,
      parameters: Parameters,
      onExcessProperty: "error",
      annotations: { title: "Fetch a web page", readOnly: true, idempotent: true, openWorld: true },
      call: ({ url }) => fetchPage(config, url)
    })
    return Tool.provide(tool, Context.empty(), { portable: true })
  })
