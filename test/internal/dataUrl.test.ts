import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { isDataUrl, urlContent } from "../../src/internal/dataUrl.ts"

describe("urlContent", () => {
  it("is a link for any URL that is not a data: URL", () => {
    expect([
      urlContent("https://example.com/a.png"),
      urlContent("gs://bucket/data:x"),
      urlContent("datas:text/plain,x")
    ]).toStrictEqual([
      { _tag: "Link", url: "https://example.com/a.png" },
      { _tag: "Link", url: "gs://bucket/data:x" },
      { _tag: "Link", url: "datas:text/plain,x" }
    ])
  })

  it("reads base64 data with its media type, lower-cased and without parameters, whatever the scheme's case", () => {
    expect([
      urlContent("data:image/PNG;base64,iVBORw0KGgo="),
      urlContent(" DATA:text/plain;charset=utf-8;base64,aGk="),
      urlContent("data:application/pdf;base64,JVBE\n Ri0="),
      isDataUrl("  Data:x")
    ]).toStrictEqual([
      { _tag: "Inline", mediaType: "image/png", base64: "iVBORw0KGgo=" },
      { _tag: "Inline", mediaType: "text/plain", base64: "aGk=" },
      { _tag: "Inline", mediaType: "application/pdf", base64: "JVBERi0=" },
      true
    ])
  })

  it("reads percent-encoded data as base64 of its bytes, UTF-8 for characters outside ASCII", () => {
    expect([urlContent("data:,hi%20there"), urlContent("data:text/plain,caf\u00e9")]).toStrictEqual([
      { _tag: "Inline", mediaType: "text/plain", base64: btoa("hi there") },
      { _tag: "Inline", mediaType: "text/plain", base64: btoa("caf\u00c3\u00a9") }
    ])
  })

  it("names no media type for a header that is not one, and keeps the bytes", () => {
    expect(urlContent("data:not a type;base64,aGk=")).toStrictEqual({ _tag: "Inline", mediaType: undefined, base64: "aGk=" })
  })

  it("is malformed without a comma, with bad base64 or with a bad percent escape", () => {
    expect([
      urlContent("data:image/png;base64"),
      urlContent("data:image/png;base64,iVBOR!"),
      urlContent("data:image/png;base64,a"),
      urlContent("data:text/plain,100%")
    ]).toStrictEqual([{ _tag: "Malformed" }, { _tag: "Malformed" }, { _tag: "Malformed" }, { _tag: "Malformed" }])
  })

  it.prop("reads back the base64 of any bytes with the media type it was written with", [
    Schema.Uint8Array,
    Schema.Literals(["image/png", "application/pdf", "audio/wav", "text/plain"])
  ], ([bytes, mediaType]) => {
    const base64 = btoa(String.fromCharCode(...bytes))
    expect(urlContent(`data:${mediaType};base64,${base64}`)).toStrictEqual({ _tag: "Inline", mediaType, base64 })
  })

  it.prop("never throws, and never calls a data: URL a link", [Schema.String], ([text]) => {
    for (const url of [text, `data:${text}`, `data:image/png;base64,${text}`, `data:,${text}`]) {
      const content = urlContent(url)
      expect(content._tag === "Link").toBe(!isDataUrl(url))
    }
  })
})
