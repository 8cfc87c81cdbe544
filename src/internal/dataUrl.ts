/**
 * `data:` URLs (RFC 2397) are inline media, not links: whatever reads a block's URL (the adapters, `render`) asks
 * here first, so that the bytes they carry are handled as base64 content and never land in text.
 */

/** What a URL stands for: a link, inline bytes (as base64, with the media type the URL names), or a broken `data:` URL. */
export type UrlContent =
  | { readonly _tag: "Link"; readonly url: string }
  | { readonly _tag: "Inline"; readonly mediaType: string | undefined; readonly base64: string }
  | { readonly _tag: "Malformed" }

const dataScheme = /^\s*data:/i
const base64Text = /^[A-Za-z0-9+/]*={0,2}$/

/** True for a URL with the `data:` scheme, well-formed or not. */
export const isDataUrl = (url: string): boolean => dataScheme.test(url)

/**
 * What `url` stands for. A `data:` URL's media type is lower-cased and stripped of its parameters (`charset`, …);
 * percent-encoded (non-base64) data is turned into base64 of its bytes; anything that is not valid base64 after
 * that is `Malformed`, and must be shown as neither a link nor text.
 */
export const urlContent = (url: string): UrlContent => {
  if (!isDataUrl(url)) return { _tag: "Link", url }
  const start = url.indexOf(":") + 1
  const comma = url.indexOf(",", start)
  if (comma < 0) return { _tag: "Malformed" }
  const header = url.slice(start, comma).split(";").map((part) => part.trim())
  const isBase64 = header.length > 1 && header[header.length - 1]!.toLowerCase() === "base64"
  const type = header[0]!.toLowerCase()
  // RFC 2397: a URL that names no media type is `text/plain`.
  const mediaType = type === ""
    ? "text/plain"
    : /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type)
    ? type
    : undefined
  const bytes = percentDecode(url.slice(comma + 1))
  if (bytes === undefined) return { _tag: "Malformed" }
  if (isBase64) {
    const base64 = bytes.replace(/\s+/g, "")
    return base64.length % 4 === 1 || !base64Text.test(base64) ? { _tag: "Malformed" } : { _tag: "Inline", mediaType, base64 }
  }
  return { _tag: "Inline", mediaType, base64: btoa(bytes) }
}

/** The bytes of percent-encoded text, as a binary string (one char a byte), or `undefined` for a bad escape. */
const percentDecode = (text: string): string | undefined => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 37 /* % */) {
      const hex = text.slice(i + 1, i + 3)
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined
      out += String.fromCharCode(parseInt(hex, 16))
      i += 2
    } else if (code > 0x7f) {
      // A character outside ASCII stands for its UTF-8 bytes.
      const char = String.fromCodePoint(text.codePointAt(i)!)
      for (const byte of new TextEncoder().encode(char)) out += String.fromCharCode(byte)
      if (char.length === 2) i++
    } else out += text[i]
  }
  return out
}
