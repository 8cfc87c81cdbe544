/**
 * How the `fetch` built-in reduces HTML to text: what a reader keeps, what it drops, and that a page written to hurt
 * (deep nesting, unclosed tags, link floods) costs time in proportion to its size and never overflows the stack.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { htmlToText } from "../../src/builtin/internal/htmlText.ts"

const base = new URL("https://docs.test/guide/start.html")
const text = (html: string, maxChars = 1_000_000) => htmlToText(html, { base, maxChars }).text

/** One test for each case `[label, html, expected]`: the HTML converts to exactly the expected text. */
const convertsEach = (cases: ReadonlyArray<readonly [label: string, html: string, expected: string]>) => {
  for (const [label, html, expected] of cases) {
    it(label, () => assert.strictEqual(text(html), expected))
  }
}

describe("what a reader keeps", () => {
  convertsEach([
    ["whitespace collapses as a browser renders it", "<p>  one\n\t two   three </p>", "one two three"],
    ["inline tags join their text", "fo<b>o</b> <i>bar</i>baz", "foo barbaz"],
    ["paragraphs are separated by a blank line", "<p>one</p><p>two</p>", "one\n\ntwo"],
    ["divs start lines", "<div>one</div><div>two</div>", "one\ntwo"],
    ["<br> breaks a line, and two make a blank line", "a<br>b<br/><br>c</br>d", "a\nb\n\nc\nd"],
    ["headings are marked by level", "<h1>Title</h1><h3>Sub</h3>text", "# Title\n\n### Sub\n\ntext"],
    ["unordered lists use dashes", "<ul><li>one<li>two</ul>", "- one\n- two"],
    ["ordered lists count", "<ol><li>one</li><li>two</li></ol>", "1. one\n2. two"],
    [
      "nested lists are indented",
      "<ul><li>a<ol><li>b</li><li>c</li></ol></li><li>d</li></ul>",
      "- a\n  1. b\n  2. c\n- d"
    ],
    [
      "table cells are separated by bars, rows by lines",
      "<table><tr><td>a<td>b</tr><tr><td>c<td>d</table>",
      "a | b\nc | d"
    ],
    ["a rule is three dashes", "one<hr>two", "one\n\n---\n\ntwo"],
    ["preformatted text is kept as it is", "<p>x</p><pre>  a\n    b</pre><p>y</p>", "x\n\n  a\n    b\n\ny"],
    ["entities are decoded", "&lt;b&gt; &amp; &quot;q&quot; &#x41;&#66; caf&eacute;", "<b> & \"q\" AB café"],
    ["a non-breaking space is a space", "a&nbsp;b", "a b"],
    ["a < that starts no tag is text", "1 < 2 and 3<4", "1 < 2 and 3<4"],
    ["tag names are read in any case", "<P>one</P><DIV>two</DIV>", "one\n\ntwo"],
    ["a quoted attribute may hold a >", "<p title=\"a > b\">text</p>", "text"]
  ])
})

describe("links", () => {
  convertsEach([
    ["a relative link is made absolute", "<a href=\"next.html\">next</a>", "next (https://docs.test/guide/next.html)"],
    ["a root-relative link too", "<a href='/api?x=1&amp;y=2'>api</a>", "api (https://docs.test/api?x=1&y=2)"],
    ["an unquoted href is read", "<a href=/faq>faq</a>", "faq (https://docs.test/faq)"],
    ["a link to a place in the page is not shown", "<a href=\"#top\">top</a>", "top"],
    ["a javascript: link is not shown", "<a href=\"javascript:alert(1)\">click</a>", "click"],
    ["a data: link is not shown", "<a href=\"data:text/html,hi\">data</a>", "data"],
    ["a mailto: link is shown", "<a href=\"mailto:a@docs.test\">write</a>", "write (mailto:a@docs.test)"],
    [
      "a link whose text is its URL is not repeated",
      "<a href=\"https://x.test/\">https://x.test/</a>",
      "https://x.test/"
    ],
    ["a link without text shows its URL", "<a href=\"/logo\"><img src=\"l.png\"></a>", "https://docs.test/logo"],
    [
      "a link opened inside another closes it",
      "<a href=\"/a\">one<a href=\"/b\">two</a>",
      "one (https://docs.test/a)two (https://docs.test/b)"
    ],
    ["an unclosed link is closed at the end", "<a href=\"/a\">one", "one (https://docs.test/a)"]
  ])
})

describe("what a reader drops", () => {
  convertsEach([
    ["scripts", "a<script>var x = \"<p>not text</p>\"</script>b", "ab"],
    ["scripts whose end tag is in another case", "a<SCRIPT>x()</ScRiPt >b", "ab"],
    ["styles", "<style>p { color: red }</style>text", "text"],
    ["the title", "<title>Title</title><p>body</p>", "body"],
    [
      "templates, SVG and MathML, nested or not",
      "<template><p>t</p><template>u</template>v</template>w<svg><text>s</text></svg>x<math><mi>m</mi></math>",
      "wx"
    ],
    ["noscript and textarea", "<noscript>enable JS</noscript><textarea>typed</textarea>seen", "seen"],
    [
      "comments, doctypes, processing instructions and CDATA",
      "<!doctype html><!-- c --><?php x ?><![CDATA[d]]>seen",
      "seen"
    ],
    ["images and attributes", "<img src=\"a.png\" alt=\"alt\"><p class=\"c\" data-x=\"y\">seen</p>", "seen"],
    ["an unclosed script hides the rest, as in a browser", "seen<script>alert(1)", "seen"],
    ["an unclosed comment hides the rest", "seen<!-- never closed <p>x</p>", "seen"]
  ])
})

describe("pages written to hurt", () => {
  it("200,000 nested elements convert without overflowing the stack", () => {
    const depth = 200_000
    const html = `${"<div><span>".repeat(depth)}deep${"</span></div>".repeat(depth)}`
    assert.deepStrictEqual(htmlToText(html, { maxChars: 100 }), { text: "deep", truncated: false })
  })

  it("200,000 unclosed lists and formatting tags convert; indentation stays bounded", () => {
    const html = `${"<ul><li><b>".repeat(200_000)}deep`
    const result = htmlToText(html, { maxChars: 10_000_000 })
    assert.isTrue(result.text.endsWith("- deep"))
    assert.isAtMost(result.text.split("\n").at(-1)!.length, "  ".repeat(8).length + "- deep".length)
  })

  it("100,000 unclosed script tags convert in one pass", () => {
    assert.strictEqual(text(`seen${"<script>".repeat(100_000)}`), "seen")
  })

  it("100,000 tags with an unclosed quote convert", () => {
    assert.strictEqual(text(`seen${"<a href=\"x".repeat(100_000)}`), "seen")
  })

  it("a flood of links made long by the base URL is cut at maxChars, and says so", () => {
    const longBase = new URL(`https://docs.test/${"segment/".repeat(500)}`)
    const html = "<a href=x>.</a>".repeat(10_000)
    const result = htmlToText(html, { base: longBase, maxChars: 50_000 })
    assert.deepStrictEqual([result.text.length, result.truncated], [50_000, true])
  })
})

describe("properties", () => {
  const options = { arbitrary: { runs: 300 } }
  const Markupish = Schema.String.check(Schema.isPattern(/^[<>/a-z "'=&;!?-]*$/))

  it.prop("any input converts without throwing, within maxChars", [Schema.String, Markupish], (inputs) => {
    for (const html of inputs) {
      const result = htmlToText(html, { base, maxChars: 64 })
      assert.isAtMost(result.text.length, 64)
    }
  }, options)

  it.prop("text without markup or entities comes back whitespace-collapsed", [
    Schema.String.check(Schema.isPattern(/^[^<&]*$/))
  ], ([plain]) => {
    // HTML's whitespace is these five characters only (not \v, not NBSP); a non-breaking space stays, as a space.
    const collapsed = plain.replace(/[ \t\n\f\r]+/g, " ").replace(/^ | $/g, "")
    assert.strictEqual(text(plain), collapsed.replace(/\u00a0/g, " "))
  }, options)

  it.prop("nothing inside a script ever reaches the text", [Schema.String], ([inside]) => {
    const body = inside.replace(/<\/script/gi, "")
    assert.strictEqual(text(`before<script>${body}</script>after`), "beforeafter")
  }, options)
})
