/**
 * The lines of a byte stream, as its chunks come: MCP's stdio transport is one JSON-RPC message per line.
 *
 * @internal
 */

/**
 * A line longer than the reader's limit, which was not kept: only its start, enough to tell which request it was (see
 * {@link leadingId}).
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
 * With `maxLength`, a line longer than that many UTF-16 units (each at least one UTF-8 byte) is not held: its start is
 * kept, the rest dropped as it comes, and it is read as an {@link Overlong}. Memory stays bounded whatever is sent.
 */
export function lineReader(): LineReader<string>
export function lineReader(maxLength: number): LineReader<string | Overlong>
export function lineReader(maxLength: number = Number.POSITIVE_INFINITY): LineReader<string | Overlong> {
  const decoder = new TextDecoder()
  // The start of the line being read, as it came.
  const pending: Array<string> = []
  let pendingLength = 0
  // The start of the line being read once it is over the limit: the rest of it is dropped.
  let overlong: string | undefined
  const take = (piece: string): void => {
    if (overlong !== undefined) return
    pending.push(piece)
    pendingLength += piece.length
    if (pendingLength > maxLength) {
      overlong = pending.join("").slice(0, headLength)
      pending.length = 0
    }
  }
  const complete = (): string | Overlong => {
    const line = overlong !== undefined ? new Overlong(overlong) : pending.join("")
    pending.length = 0
    pendingLength = 0
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
        if (pending.length === 0 && overlong === undefined && piece.length <= maxLength) lines.push(piece)
        else {
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
 * The id of the request a line starts, read from its start alone: the `id` among the first members of its object
 * whose values are strings, numbers or `null` (`{"jsonrpc":"2.0","id":7,"method":…`), as clients write them. Once a
 * member holds anything else, what follows cannot be told from a part of the line: `undefined`.
 */
export const leadingId = (head: string): string | number | undefined => {
  const member = /^\s*"((?:[^"\\]|\\.)*)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null)\s*([,}])/
  let rest = head.trimStart()
  if (!rest.startsWith("{")) return undefined
  rest = rest.slice(1)
  for (let i = 0; i < 8; i++) {
    const match = member.exec(rest)
    if (match === null) return undefined
    try {
      if (JSON.parse(`"${match[1]}"`) === "id") {
        const id: unknown = JSON.parse(match[2]!)
        return typeof id === "string" || typeof id === "number" ? id : undefined
      }
    } catch {
      return undefined
    }
    if (match[3] === "}") return undefined
    rest = rest.slice(match[0].length)
  }
  return undefined
}
