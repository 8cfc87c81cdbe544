/**
 * The lines of a byte stream, as its chunks come: MCP's stdio transport is one JSON-RPC message per line.
 *
 * @internal
 */
import { utf8LengthExceeds, utf8LengthUpTo } from "../../internal/json.ts"

/**
 * A line longer than the reader's limit, which was not kept: only its start, enough to tell which request it was (see
 * {@link answerIdOf}).
 */
export class Overlong {
  readonly head: string
  constructor(head: string) {
    this.head = head
  }
}

/** How much of an over-long line is kept, to tell which request it was. */
const headLength = 4096

/** A reader of one stream's lines (see {@link lineReader}); `L` is what a line is read as. */
export interface LineReader<L> {
  /** The lines a chunk completes, in order, without their `\n`. */
  readonly read: (chunk: Uint8Array) => Array<L>
  /** What came after the last `\n`, once the stream has ended. */
  readonly rest: () => L
  /** How many UTF-16 units of the line being read have come, so far. */
  readonly pendingLength: () => number
}

/**
 * A reader of one stream's lines. Lines may be cut anywhere, UTF-8 characters too (one decoder per stream holds the
 * bytes of a character cut at the end of a chunk). Each chunk is searched once: a long line that arrives in many
 * chunks costs time in its size, not in its size times its chunks.
 *
 * With `maxLength`, a line of more UTF-8 bytes than that is not held: its start is kept, the rest dropped as it comes,
 * and it is read as an {@link Overlong}. Memory stays bounded whatever is sent.
 */
export function lineReader(): LineReader<string>
export function lineReader(maxLength: number): LineReader<string | Overlong>
export function lineReader(maxLength: number = Number.POSITIVE_INFINITY): LineReader<string | Overlong> {
  const decoder = new TextDecoder()
  // The start of the line being read, as it came.
  const pending: Array<string> = []
  let pendingLength = 0
  // Its UTF-8 bytes, counted only as far as the limit.
  let pendingBytes = 0
  // The start of the line being read once it is over the limit: the rest of it is dropped.
  let overlong: string | undefined
  const bounded = maxLength !== Number.POSITIVE_INFINITY
  const take = (piece: string): void => {
    if (overlong !== undefined) return
    pending.push(piece)
    pendingLength += piece.length
    if (!bounded) return
    pendingBytes += utf8LengthUpTo(piece, maxLength - pendingBytes)
    if (pendingBytes > maxLength) {
      overlong = pending.join("").slice(0, headLength)
      pending.length = 0
    }
  }
  const complete = (): string | Overlong => {
    const line = overlong !== undefined ? new Overlong(overlong) : pending.join("")
    pending.length = 0
    pendingLength = 0
    pendingBytes = 0
    overlong = undefined
    return line
  }
  return {
    read: (chunk) => {
      const text = decoder.decode(chunk, { stream: true })
      const lines: Array<string | Overlong> = []
      let start = 0
      let end: number
      while ((end = text.indexOf("\n", start)) >= 0) {
        const piece = text.slice(start, end)
        start = end + 1
        if (pending.length === 0 && overlong === undefined && !(bounded && utf8LengthExceeds(piece, maxLength))) {
          lines.push(piece)
        } else {
          take(piece)
          lines.push(complete())
        }
      }
      if (start < text.length) take(text.slice(start))
      return lines
    },
    rest: () => {
      take(decoder.decode())
      return complete()
    },
    pendingLength: () => pendingLength
  }
}

/**
 * What an over-long line is answered with, told from its start alone (its first members whose values are strings,
 * numbers or `null`, as clients write `{"jsonrpc":"2.0","id":7,"method":…`): the id of the request it starts; nothing
 * (`undefined`) for a response (`result` or `error` among them: the client's ids are not the server's) or a
 * notification (a `method` and no `id` before its `params`); `null`, as JSON-RPC answers what it cannot tell, for
 * anything else. Of two `id` members the last counts, as `JSON.parse` reads them.
 */
export const answerIdOf = (head: string): string | number | null | undefined => {
  const member = /^\s*"((?:[^"\\]|\\.)*)"\s*:\s*/
  const scalar = /^("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null|true|false)\s*([,}])/
  let rest = head.trimStart()
  if (!rest.startsWith("{")) return null
  rest = rest.slice(1)
  let id: unknown = undefined
  let method = false
  for (let i = 0; i < 16; i++) {
    const key = member.exec(rest)
    if (key === null) break
    let name: unknown
    try {
      name = JSON.parse(`"${key[1]}"`)
    } catch {
      break
    }
    if (name === "result" || name === "error") return undefined
    rest = rest.slice(key[0].length)
    const value = scalar.exec(rest)
    if (value === null) break
    if (name === "method") method = true
    if (name === "id") id = JSON.parse(value[1]!)
    if (value[2] === "}") break
    rest = rest.slice(value[0].length)
  }
  if (method && id === undefined) return undefined
  return (typeof id === "string" || (typeof id === "number" && Number.isFinite(id))) ? id : null
}
