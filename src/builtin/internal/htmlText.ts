/**
 * HTML to readable text, in one linear pass over the markup, with no tree and no recursion.
 *
 * Tree-building converters (html-to-text on htmlparser2, for one) keep a stack of open elements that costs time in
 * proportion to its depth on every tag, and walk the tree recursively: a page of a few hundred thousand nested
 * `<div>`s, well under a megabyte, blocks the event loop for tens of seconds (no timeout can interrupt synchronous
 * code) or overflows the stack. A fetched page is written by whoever serves it, so this converter reads tags as a
 * stream instead: each tag opens or closes a block, a list item, a cell or a link, and text is whitespace-collapsed
 * as a browser would render it. Its cost is linear in the input, and its output is capped.
 *
 * What it keeps: text, line and paragraph breaks, headings as `#`, list items as `-`, table cells separated by
 * `|`, links as `text (absolute URL)`, preformatted text as it is. What it drops: scripts, styles, templates, SVG,
 * MathML, `<noscript>`, `<title>`, `<textarea>`, comments, and every attribute but `href`. Entities are decoded by
 * the `entities` package, to the HTML standard's rules.
 *
 * @internal
 */
import { decodeHTML, decodeHTMLAttribute } from "entities/decode"

/** The result of a conversion: the text, and whether it was cut at `maxChars`. */
export interface Converted {
  readonly text: string
  readonly truncated: boolean
}

/** Elements whose content is not markup (raw text and escapable raw text) and is not shown. */
const rawText = new Set(["script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "title", "textarea"])

/** Elements whose content is markup that is not shown. */
const hidden = new Set(["template", "svg", "math"])

/** Elements that stand apart from the text around them by a blank line. */
const paragraphs = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "dl",
  "table",
  "blockquote",
  "pre",
  "figure",
  "hr",
  "address",
  "details",
  "fieldset",
  "form"
])

/** Elements that start on a line of their own. */
const lines = new Set([
  "div",
  "section",
  "article",
  "header",
  "footer",
  "main",
  "nav",
  "aside",
  "li",
  "dt",
  "dd",
  "tr",
  "caption",
  "figcaption",
  "summary",
  "legend",
  "center",
  "body",
  "html",
  "br"
])

/** How deep list nesting is indented; deeper lists stay at this depth. */
const maxIndent = 8

const isWhitespace = (code: number): boolean =>
  code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d

const isAsciiAlpha = (code: number): boolean => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)

/** Collects the output: whitespace collapsed, breaks merged, and the length capped. */
class Output {
  private readonly parts: Array<string> = []
  private length = 0
  /** Newlines asked for since the last text: 0, 1 (a line break) or 2 (a blank line). */
  private pendingBreak = 0
  private pendingSpace = false
  private atLineStart = true
  truncated = false
  private readonly maxChars: number

  constructor(maxChars: number) {
    this.maxChars = maxChars
  }

  private push(piece: string): void {
    if (this.truncated) return
    const room = this.maxChars - this.length
    if (piece.length > room) {
      this.parts.push(piece.slice(0, room))
      this.length = this.maxChars
      this.truncated = true
      return
    }
    this.parts.push(piece)
    this.length += piece.length
  }

  /** Writes what is pending before new content: the breaks, or one space between words. */
  private flush(): void {
    if (this.pendingBreak > 0) {
      if (this.length > 0) this.push("\n".repeat(this.pendingBreak))
      this.atLineStart = true
    } else if (this.pendingSpace && !this.atLineStart) {
      this.push(" ")
    }
    this.pendingBreak = 0
    this.pendingSpace = false
  }

  /** Text of the page, entities decoded: runs of whitespace become one space, as a browser renders them. */
  text(decoded: string): void {
    let start = 0
    let end = decoded.length
    while (start < end && isWhitespace(decoded.charCodeAt(start))) start++
    if (start === end) {
      if (end > 0) this.pendingSpace = true
      return
    }
    while (isWhitespace(decoded.charCodeAt(end - 1))) end--
    if (start > 0) this.pendingSpace = true
    this.flush()
    this.push(decoded.slice(start, end).replace(/[ \t\n\f\r]+/g, " "))
    this.atLineStart = false
    this.pendingSpace = end < decoded.length
  }

  /** Preformatted text, kept as it is. */
  preformatted(decoded: string): void {
    if (decoded.length === 0) return
    this.flush()
    this.push(decoded)
    this.atLineStart = decoded.endsWith("\n")
  }

  /** Markup of our own (a bullet, a heading mark, a cell separator): written as it is, after pending breaks. */
  mark(text: string): void {
    this.flush()
    this.push(text)
    this.atLineStart = false
  }

  /** A cell separator, unless the cell starts its row. */
  cell(): void {
    if (this.pendingBreak === 0 && !this.atLineStart && this.length > 0) {
      this.pendingSpace = false
      this.push(" | ")
    }
  }

  /** Asks for a line break (1) or a blank line (2) before the next content; `<br>`s add up, blocks do not. */
  newline(count: 1 | 2, additive = false): void {
    this.pendingBreak = Math.min(2, additive ? this.pendingBreak + count : Math.max(this.pendingBreak, count))
    this.pendingSpace = false
  }

  /** Text of our own written right after the last content, before any pending space or break (a link's URL). */
  suffix(text: string): void {
    this.push(text)
  }

  /** A point in the output, to read what was written since with {@link since}. */
  checkpoint(): number {
    return this.parts.length
  }

  /** What was written since `checkpoint`: only those parts are joined, so reading each link's text costs its length. */
  since(checkpoint: number): string {
    return this.parts.slice(checkpoint).join("")
  }

  result(): Converted {
    return { text: this.parts.join("").replace(/\u00a0/g, " "), truncated: this.truncated }
  }
}

/** Decodes text only when it holds an entity: most text does not. */
const decodeText = (text: string): string => text.includes("&") ? decodeHTML(text) : text

/** A tag's name, lower-cased, from `start`; it ends at whitespace, `/` or `>`. */
const readName = (html: string, start: number): number => {
  let i = start
  while (i < html.length) {
    const code = html.charCodeAt(i)
    if (isWhitespace(code) || code === 0x2f || code === 0x3e) break
    i++
  }
  return i
}

interface Tag {
  readonly name: string
  readonly end: number
  /** False when the input ended inside the tag: the HTML standard's parser drops such a tag. */
  readonly complete: boolean
  readonly selfClosing: boolean
  readonly href: string | undefined
}

/** Reads a start tag's attributes from `i` (just after its name) to its `>`; keeps `href`. Linear in the tag. */
const readAttributes = (html: string, name: string, from: number): Tag => {
  let i = from
  let href: string | undefined
  let selfClosing = false
  const n = html.length
  while (i < n) {
    const code = html.charCodeAt(i)
    if (code === 0x3e) return { name, end: i + 1, complete: true, selfClosing, href }
    if (isWhitespace(code)) {
      i++
      continue
    }
    if (code === 0x2f) {
      selfClosing = true
      i++
      continue
    }
    selfClosing = false
    const nameStart = i
    i++
    while (i < n) {
      const c = html.charCodeAt(i)
      if (isWhitespace(c) || c === 0x2f || c === 0x3e || c === 0x3d) break
      i++
    }
    const attribute = html.slice(nameStart, i).toLowerCase()
    while (i < n && isWhitespace(html.charCodeAt(i))) i++
    if (html.charCodeAt(i) !== 0x3d) continue
    i++
    while (i < n && isWhitespace(html.charCodeAt(i))) i++
    let value: string
    const quote = html.charCodeAt(i)
    if (quote === 0x22 || quote === 0x27) {
      const close = html.indexOf(quote === 0x22 ? "\"" : "'", i + 1)
      const stop = close === -1 ? n : close
      value = html.slice(i + 1, stop)
      i = stop + 1
    } else {
      const valueStart = i
      while (i < n && !isWhitespace(html.charCodeAt(i)) && html.charCodeAt(i) !== 0x3e) i++
      value = html.slice(valueStart, i)
    }
    if (attribute === "href" && href === undefined) href = value
  }
  return { name, end: n, complete: false, selfClosing, href }
}

/** Where the content of a raw-text element ends: the start of its end tag, or the end of the input. */
const rawTextEnd = (html: string, name: string, from: number): number => {
  const pattern = new RegExp(`</${name}[\\s/>]`, "gi")
  pattern.lastIndex = from
  const found = pattern.exec(html)
  return found === null ? html.length : found.index
}

/** A link target worth showing: an absolute http, https or mailto URL that is not a link within the page. */
const linkTarget = (href: string | undefined, base: URL | undefined): string | undefined => {
  if (href === undefined) return undefined
  const raw = decodeHTMLAttribute(href).trim()
  if (raw === "" || raw.startsWith("#")) return undefined
  let url: URL
  try {
    url = base === undefined ? new URL(raw) : new URL(raw, base)
  } catch {
    return undefined
  }
  return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:" ? url.href : undefined
}

/**
 * Converts HTML to text. `base` resolves relative links (the page's URL); the output holds at most `maxChars`
 * characters, and says whether it was cut. Never throws on any input.
 */
export const htmlToText = (
  html: string,
  options: { readonly base?: URL | undefined; readonly maxChars: number }
): Converted => {
  const out = new Output(options.maxChars)
  const n = html.length
  // Content that is not shown: the name of the element that hides it, and how many of them are open.
  let hiddenBy: string | undefined
  let hiddenDepth = 0
  let preDepth = 0
  const lists: Array<{ ordered: boolean; count: number }> = []
  let link: { readonly target: string; readonly start: number } | undefined

  const closeLink = () => {
    if (link === undefined) return
    const text = out.since(link.start).trim()
    if (text === "") out.mark(link.target)
    else if (text !== link.target && `mailto:${text}` !== link.target) out.suffix(` (${link.target})`)
    link = undefined
  }

  const openTag = (tag: Tag) => {
    const { name } = tag
    if (hiddenBy !== undefined) {
      if (name === hiddenBy && !tag.selfClosing) hiddenDepth++
      return
    }
    if (hidden.has(name)) {
      if (!tag.selfClosing) {
        hiddenBy = name
        hiddenDepth = 1
      }
      return
    }
    if (name === "br") return out.newline(1, true)
    if (paragraphs.has(name) && !((name === "ul" || name === "ol") && lists.length > 0)) out.newline(2)
    else if (lines.has(name)) out.newline(1)
    switch (name) {
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6":
        return out.mark(`${"#".repeat(Number(name[1]))} `)
      case "hr":
        out.mark("---")
        return out.newline(2)
      case "pre":
        preDepth++
        return
      case "ul":
      case "ol":
        // A list inside a list item continues it: a line, not a blank one.
        if (lists.length > 0) out.newline(1)
        lists.push({ ordered: name === "ol", count: 0 })
        return
      case "li": {
        const list = lists[lists.length - 1]
        const indent = "  ".repeat(Math.min(Math.max(lists.length - 1, 0), maxIndent))
        if (list === undefined || !list.ordered) return out.mark(`${indent}- `)
        list.count++
        return out.mark(`${indent}${list.count}. `)
      }
      case "td":
      case "th":
        return out.cell()
      case "a": {
        // An `<a>` inside an open one closes it, as the HTML standard's parser does.
        closeLink()
        const target = linkTarget(tag.href, options.base)
        if (target !== undefined) link = { target, start: out.checkpoint() }
        return
      }
    }
  }

  const closeTag = (name: string) => {
    if (hiddenBy !== undefined) {
      if (name === hiddenBy && --hiddenDepth === 0) hiddenBy = undefined
      return
    }
    if (name === "a") return closeLink()
    if (name === "br") return out.newline(1, true)
    if (name === "pre" && preDepth > 0) preDepth--
    if (name === "ul" || name === "ol") {
      lists.pop()
      return out.newline(lists.length > 0 ? 1 : 2)
    }
    if (paragraphs.has(name)) out.newline(2)
    else if (lines.has(name)) out.newline(1)
  }

  const text = (from: number, to: number) => {
    if (hiddenBy !== undefined || to <= from) return
    const decoded = decodeText(html.slice(from, to))
    if (preDepth > 0) out.preformatted(decoded)
    else out.text(decoded)
  }

  let i = 0
  while (i < n && !out.truncated) {
    const lt = html.indexOf("<", i)
    if (lt === -1) {
      text(i, n)
      break
    }
    text(i, lt)
    const next = html.charCodeAt(lt + 1)
    if (html.startsWith("<!--", lt)) {
      const close = html.indexOf("-->", lt + 4)
      i = close === -1 ? n : close + 3
    } else if (next === 0x21 || next === 0x3f) {
      // A doctype, a CDATA section, a processing instruction: none of them is text to show.
      const close = html.indexOf(">", lt + 2)
      i = close === -1 ? n : close + 1
    } else if (next === 0x2f && isAsciiAlpha(html.charCodeAt(lt + 2))) {
      const nameEnd = readName(html, lt + 2)
      closeTag(html.slice(lt + 2, nameEnd).toLowerCase())
      const close = html.indexOf(">", nameEnd)
      i = close === -1 ? n : close + 1
    } else if (next === 0x2f) {
      // `</` and no name: a bogus comment, up to the next `>`.
      const close = html.indexOf(">", lt + 2)
      i = close === -1 ? n : close + 1
    } else if (isAsciiAlpha(next)) {
      const nameEnd = readName(html, lt + 1)
      const tag = readAttributes(html, html.slice(lt + 1, nameEnd).toLowerCase(), nameEnd)
      i = tag.end
      if (!tag.complete) break
      if (rawText.has(tag.name) && !tag.selfClosing) {
        const end = rawTextEnd(html, tag.name, i)
        const close = html.indexOf(">", end)
        i = end >= n || close === -1 ? n : close + 1
      } else {
        openTag(tag)
      }
    } else {
      // A `<` that starts no tag is text.
      text(lt, lt + 1)
      i = lt + 1
    }
  }
  closeLink()
  return out.result()
}
