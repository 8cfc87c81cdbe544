/**
 * The lines of a byte stream, as its chunks come: MCP's stdio transport is one JSON-RPC message per line.
 *
 * @internal
 */

/** A reader of one stream's lines (see {@link lineReader}). */
export interface LineReader {
  /** The lines a chunk completes, in order, without their `\n`. */
  readonly read: (chunk: Uint8Array) => Array<string>
  /** What came after the last `\n`, once the stream has ended. */
  readonly rest: () => string
  /** How many UTF-16 units of the line being read have come, so far. */
  readonly pendingLength: () => number
}

/**
 * A reader of one stream's lines. Lines may be cut anywhere, UTF-8 characters too (one decoder per stream holds the
 * bytes of a character cut at the end of a chunk). Each chunk is searched once: a long line that arrives in many
 * chunks costs time in its size, not in its size times its chunks.
 */
export const lineReader = (): LineReader => {
  const decoder = new TextDecoder()
  // The start of the line being read, as it came.
  const pending: Array<string> = []
  let pendingLength = 0
  return {
    read: (chunk) => {
      const text = decoder.decode(chunk, { stream: true })
      const lines: Array<string> = []
      let start = 0
      let end: number
      while ((end = text.indexOf("\n", start)) >= 0) {
        const piece = text.slice(start, end)
        start = end + 1
        lines.push(pending.length === 0 ? piece : pending.join("") + piece)
        pending.length = 0
        pendingLength = 0
      }
      if (start < text.length) {
        pending.push(text.slice(start))
        pendingLength += text.length - start
      }
      return lines
    },
    rest: () => {
      const rest = pending.join("") + decoder.decode()
      pending.length = 0
      pendingLength = 0
      return rest
    },
    pendingLength: () => pendingLength
  }
}
