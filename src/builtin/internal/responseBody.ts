/**
 * Reading a response body for the `fetch` tool: which content types it reads, the body capped at a number of bytes
 * (after decompression, and before it too), and the bytes decoded by their charset.
 *
 * @internal
 */
import { Data, Effect } from "effect"
import type { IncomingMessage } from "node:http"
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib"

/** How the body is read: HTML (made into text), text as it is, or not at all. */
export type ContentKind = "html" | "text" | "unsupported"

/** What a `Content-Type` header says. */
export interface ContentType {
  readonly kind: ContentKind
  /** The media type, lower case, without parameters; `undefined` without a header. */
  readonly mime: string | undefined
  readonly charset: string | undefined
}

const textTypes = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript"
])

// A media type as the standard writes it; anything else a server sends is not repeated to the model.
const mimePattern = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/

/**
 * The media type and charset of a `Content-Type` header, and what the tool does with it. A type that is not written
 * as a media type is unsupported, so that the output's `Content-Type:` line only ever repeats a well-formed one.
 */
export const contentTypeOf = (header: string | undefined): ContentType => {
  if (header === undefined) return { kind: "unsupported", mime: undefined, charset: undefined }
  const [type = "", ...parameters] = header.split(";")
  const mime = type.trim().toLowerCase()
  let charset: string | undefined
  for (const parameter of parameters) {
    const match = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(parameter)
    if (match !== null) charset = match[1]!.toLowerCase()
  }
  const kind: ContentKind = !mimePattern.test(mime)
    ? "unsupported"
    : mime === "text/html" || mime === "application/xhtml+xml"
    ? "html"
    : mime.startsWith("text/") || textTypes.has(mime) || /^application\/[^/]+\+(json|xml)$/.test(mime)
    ? "text"
    : "unsupported"
  return { kind, mime, charset }
}

/** The media type, when it is one, for a message; a server's header is not repeated otherwise. */
export const describeMime = (mime: string | undefined): string =>
  mime === undefined || mime === ""
    ? "of no declared type"
    : mimePattern.test(mime)
    ? mime
    : "of a type that is not a valid media type"

/** The content codings the body can be decoded from; `identity` is none. */
export type ContentCoding = "identity" | "gzip" | "deflate" | "br"

/** The coding of a `Content-Encoding` header, or `undefined` for one this tool does not decode. */
export const contentCodingOf = (header: string | undefined): ContentCoding | undefined => {
  const coding = (header ?? "").trim().toLowerCase()
  switch (coding) {
    case "":
    case "identity":
      return "identity"
    case "gzip":
    case "x-gzip":
      return "gzip"
    case "deflate":
      return "deflate"
    case "br":
      return "br"
    default:
      return undefined
  }
}

/** The body read: at most `maxBytes` of it, and whether there was more. */
export interface Body {
  readonly bytes: Uint8Array
  readonly truncated: boolean
}

/**
 * Why a body could not be read: the connection closed before its end (`Closed`), or it could not be decompressed
 * (`Decompress`).
 */
export class BodyError extends Data.TaggedError("BodyError")<{
  readonly reason: "Closed" | "Decompress"
  readonly cause: unknown
}> {}

const decompressor = (coding: Exclude<ContentCoding, "identity">) =>
  coding === "gzip" ? createGunzip() : coding === "deflate" ? createInflate() : createBrotliDecompress()

/**
 * Reads at most `maxBytes` of a body, decompressed. Reading stops, and the response is destroyed, as soon as the cap is
 * reached: an endless body, or a small one that decompresses to gigabytes, is read only up to it. A compressed stream
 * that decompresses to nothing at all keeps nothing in memory, and is ended by the request's timeout.
 */
export const readBody = (
  response: IncomingMessage,
  coding: ContentCoding,
  maxBytes: number
): Effect.Effect<Body, BodyError> =>
  Effect.callback<Body, BodyError>((resume) => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    let done = false
    let responseEnded = false
    const inflate = coding === "identity" ? undefined : decompressor(coding)
    const cleanup = () => {
      response.destroy()
      inflate?.destroy()
    }
    const finish = (truncated: boolean) => {
      if (done) return
      done = true
      cleanup()
      resume(Effect.succeed({ bytes: Buffer.concat(chunks, size), truncated }))
    }
    const fail = (reason: BodyError["reason"], cause: unknown) => {
      if (done) return
      done = true
      cleanup()
      resume(Effect.fail(new BodyError({ reason, cause })))
    }
    const take = (chunk: Buffer) => {
      if (done) return
      const room = maxBytes - size
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room))
        size = maxBytes
        return finish(true)
      }
      chunks.push(chunk)
      size += chunk.length
    }
    response.on("end", () => {
      responseEnded = true
    })
    response.on("error", (cause) => fail("Closed", cause))
    // A body cut short by the server ends with `close` and no `end`.
    response.on("close", () => {
      if (!responseEnded) fail("Closed", new Error("the connection closed before the end of the body"))
    })
    if (inflate === undefined) {
      response.on("data", take)
      response.on("end", () => finish(false))
    } else {
      // `pipe` holds the response back while the decompressor is busy, so the compressed bytes wait on the socket.
      response.pipe(inflate)
      inflate.on("data", take)
      inflate.on("end", () => finish(false))
      inflate.on("error", (cause) => fail("Decompress", cause))
    }
    return Effect.sync(() => {
      done = true
      cleanup()
    })
  })

/** The text of a body in its charset; UTF-8 when it names none, or one this runtime does not know. */
export const decodeText = (bytes: Uint8Array, charset: string | undefined): string => {
  let decoder: InstanceType<typeof TextDecoder>
  try {
    decoder = new TextDecoder(charset ?? "utf-8")
  } catch {
    decoder = new TextDecoder("utf-8")
  }
  return decoder.decode(bytes)
}
