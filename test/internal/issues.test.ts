import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"
import * as SchemaParser from "effect/SchemaParser"
import type { AnySchema } from "../../src/Tool.ts"
import { jsonCodec } from "../../src/internal/codec.ts"
import { bounded, formatIssues } from "../../src/internal/issues.ts"

/** Decodes as dispatch does (JSON codec, every error, values reported) and formats the failure. */
const failure = (
  schema: AnySchema,
  input: unknown,
  options: { readonly onExcessProperty?: "ignore" | "error"; readonly reportInput?: boolean } = {}
): string => {
  const exit = SchemaParser.decodeUnknownExit(jsonCodec(schema), {
    errors: "all",
    onExcessProperty: options.onExcessProperty ?? "ignore",
    reportInput: options.reportInput ?? true
  })(input)
  assert.isTrue(Exit.isFailure(exit), "expected the input to be refused")
  const issue = Cause.findErrorOption((exit as Exit.Failure<unknown, SchemaIssue.Issue>).cause)
  assert.isTrue(Option.isSome(issue))
  return formatIssues((issue as Option.Some<SchemaIssue.Issue>).value)
}

/** A filter whose message is built from the value, as a careless author (or a library) may write it. */
const echoing = (message: (s: string) => string, annotations?: Schema.Annotations.Filter) =>
  Schema.String.check(Schema.makeFilter((s: string) => s.length > 1000 || message(s), annotations))

/** A transformation that fails with the value in its message, building the issue without the parse options. */
const EchoingTransformation = Schema.String.pipe(Schema.decodeTo(
  Schema.String,
  SchemaTransformation.transformEffect({
    decode: (s: string) => Effect.fail(new SchemaIssue.InvalidValue({ message: `cannot use ${s}` })),
    encode: (s: string) => Effect.succeed(s)
  })
))

// ---------------------------------------------------------------------------------------------------------------------
// Hostile inputs for arbitrary Schemas: a Schema is built from a stream of choices, over a list of Effect's Schemas
// (checks, literals, template literals, SemVer, transformations from strings) nested in structs, arrays, records,
// tuples and unions; the input follows its shape and carries a marker in values and keys.
// ---------------------------------------------------------------------------------------------------------------------

interface Case {
  readonly schema: AnySchema
  readonly input: unknown
}

class Choices {
  private next = 0
  private nextText = 0
  private readonly ints: ReadonlyArray<number>
  private readonly texts: ReadonlyArray<string>
  readonly valueMarker: string
  readonly keyMarker: string
  constructor(ints: ReadonlyArray<number>, texts: ReadonlyArray<string>, valueMarker: string, keyMarker: string) {
    this.ints = ints
    this.texts = texts
    this.valueMarker = valueMarker
    this.keyMarker = keyMarker
  }
  /** A choice in `[0, n)`. */
  pick(n: number): number {
    const value = this.ints.length === 0 ? 0 : this.ints[this.next++ % this.ints.length]!
    return value % n
  }
  text(): string {
    return this.texts.length === 0 ? "" : this.texts[this.nextText++ % this.texts.length]!
  }
  /** A string holding the value marker somewhere, in company that JSON escapes (quotes, backslashes, controls). */
  value(): string {
    switch (this.pick(5)) {
      case 0:
        return this.valueMarker
      case 1:
        return this.text() + this.valueMarker + this.text()
      case 2:
        return `1.2.3-${this.valueMarker}`
      case 3:
        return `"${this.valueMarker}\\\n${this.text()}`
      default:
        return `  ${this.valueMarker} `
    }
  }
  key(): string {
    return `${this.keyMarker}${this.pick(100)}`
  }
}

const echo = (message: (s: string) => string) =>
  Schema.String.check(Schema.makeFilter((s: string) => s.length > 10_000 || message(s)))

const leaves: ReadonlyArray<(choices: Choices) => Case> = [
  (c) => ({ schema: Schema.String.check(Schema.isMinLength(10_000)), input: c.value() }),
  (c) => ({ schema: Schema.String.check(Schema.isPattern(/^[0-9]+$/)), input: c.value() }),
  (c) => ({ schema: Schema.String.check(Schema.isUUID()), input: c.value() }),
  (c) => ({ schema: Schema.Literals(["a", "b"]), input: c.value() }),
  (c) => ({ schema: Schema.TemplateLiteral(["id-", Schema.Number]), input: `id-${c.value()}` }),
  (c) => ({ schema: Schema.SemVerFromString, input: c.value() }),
  (c) => ({ schema: Schema.SemVer, input: c.value() }),
  (c) => ({ schema: Schema.SemVerRangeFromString, input: `>=${c.value()}` }),
  (c) => ({ schema: Schema.FiniteFromString, input: c.value() }),
  (c) => ({ schema: Schema.Trim.check(Schema.isMaxLength(2)), input: c.value() }),
  (c) => ({ schema: Schema.URLFromString, input: c.value() }),
  (c) => ({ schema: Schema.DateFromString, input: c.value() }),
  (c) => ({ schema: Schema.DurationFromString, input: c.value() }),
  (c) => ({ schema: Schema.BigDecimalFromString, input: c.value() }),
  (c) => ({ schema: Schema.IpAddressFromString, input: c.value() }),
  (c) => ({ schema: Schema.StringFromBase64, input: c.value() }),
  (c) => ({
    schema: Schema.fromJsonString(Schema.Struct({ a: Schema.Number })),
    input: c.pick(2) === 0 ? c.value() : JSON.stringify({ a: c.value(), [c.key()]: c.value() })
  }),
  (c) => ({ schema: Schema.Number, input: c.value() }),
  (c) => ({ schema: Schema.Int, input: c.value() }),
  (c) => ({ schema: Schema.Boolean, input: c.value() }),
  (c) => ({ schema: echo((s) => `bad value ${s}`), input: c.value() }),
  (c) => ({ schema: echo((s) => `bad part ${s.slice(Math.floor(s.length / 3))}`), input: c.value() }),
  (c) => ({ schema: echo((s) => `BAD ${s.toUpperCase()}`), input: c.value() }),
  (c) => ({ schema: echo((s) => `bad ${JSON.stringify(s)}`), input: c.value() }),
  (c) => ({ schema: EchoingTransformation, input: c.value() })
]

const build = (c: Choices, depth: number): Case => {
  if (depth >= 3 || c.pick(3) === 0) return leaves[c.pick(leaves.length)]!(c)
  switch (c.pick(6)) {
    case 0: {
      const fields = Array.from({ length: 1 + c.pick(3) }, () => build(c, depth + 1))
      const optional = c.pick(2) === 0
      const schema = Schema.Struct(
        Object.fromEntries(fields.map((field, i) => [`f${i}`, optional ? Schema.optionalKey(field.schema) : field.schema]))
      )
      const input: Record<string, unknown> = Object.fromEntries(fields.map((field, i) => [`f${i}`, field.input]))
      if (c.pick(2) === 0) input[c.key()] = c.value()
      return { schema, input }
    }
    case 1: {
      const items = Array.from({ length: 1 + c.pick(3) }, () => build(c, depth + 1))
      return { schema: Schema.Array(items[0]!.schema), input: items.map((item) => item.input) }
    }
    case 2: {
      const item = build(c, depth + 1)
      return { schema: Schema.Record(Schema.String, item.schema), input: { [c.key()]: item.input, [c.key()]: c.value() } }
    }
    case 3: {
      const [first, second] = [build(c, depth + 1), build(c, depth + 1)]
      return { schema: Schema.Union([first.schema, second.schema]), input: c.pick(2) === 0 ? first.input : second.input }
    }
    case 4: {
      const [first, second] = [build(c, depth + 1), build(c, depth + 1)]
      return { schema: Schema.Tuple([first.schema, second.schema]), input: [first.input, second.input] }
    }
    default: {
      const item = build(c, depth + 1)
      return { schema: Schema.NullOr(item.schema), input: item.input }
    }
  }
}

/** Decodes as dispatch does and formats the failure, if any. */
const formatted = (schema: AnySchema, input: unknown, onExcessProperty: "ignore" | "error", reportInput: boolean) => {
  const exit = SchemaParser.decodeUnknownExit(jsonCodec(schema), {
    errors: "all",
    onExcessProperty,
    reportInput
  })(input)
  if (Exit.isSuccess(exit)) return ""
  const issue = Cause.findErrorOption(exit.cause)
  return Option.isSome(issue) ? formatIssues(issue.value) : ""
}

const Ints = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 })))

describe("internal/issues", () => {
  describe("formatIssues never repeats the text of the value", () => {
    it.prop(
      "for any Schema built from Effect's and any input carrying a marker in its values and keys",
      [Ints, Schema.Array(Schema.String), Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 }))],
      ([ints, texts, seed]) => {
        const valueMarker = `VALUEMARK_${seed.toString(36)}z`
        const keyMarker = `KEYMARK_${seed.toString(36)}z`
        const { input, schema } = build(new Choices(ints, texts, valueMarker, keyMarker), 0)
        for (const onExcessProperty of ["ignore", "error"] as const) {
          for (const reportInput of [true, false]) {
            const text = formatted(schema, input, onExcessProperty, reportInput)
            for (const line of text === "" ? [] : text.split("\n")) {
              // Keys of the value are where a line points (bounded): they may be in the path, never in the message.
              const match = /^- (\$[^:]*): (.*)$/s.exec(line)
              assert.isNotNull(match, line)
              const [, path, message] = match!
              assert.notInclude(path!.toLowerCase(), valueMarker.toLowerCase(), line)
              assert.notInclude(message!.toLowerCase(), valueMarker.toLowerCase(), line)
              assert.notInclude(message!.toLowerCase(), keyMarker.toLowerCase(), line)
            }
          }
        }
      },
      { arbitrary: { runs: 300 } }
    )

    it("a SemVer that does not parse is told what was expected, not what was sent", () => {
      assert.strictEqual(failure(Schema.Struct({ v: Schema.SemVerFromString }), { v: "sk-live-123" }), "- $.v: Expected SemVer")
      assert.strictEqual(failure(Schema.Struct({ v: Schema.SemVer }), { v: "1.2.3-sk_live_9" }), "- $.v: Expected SemVer")
      assert.strictEqual(
        failure(Schema.Struct({ r: Schema.SemVerRangeFromString }), { r: ">=1.2.3 <sk-live-123" }),
        "- $.r: Expected SemVerRange"
      )
    })

    it("Effect's own messages, which print the value when it is reported, print none", () => {
      assert.strictEqual(failure(Schema.Struct({ m: Schema.Literals(["a", "b"]) }), { m: "sk-live-123" }), "- $.m: Expected \"a\" | \"b\"")
      assert.strictEqual(
        failure(Schema.Struct({ p: Schema.String.check(Schema.isPattern(/^[0-9]+$/)) }), { p: "sk-live-123" }),
        "- $.p: Expected a string matching the RegExp ^[0-9]+$"
      )
      assert.strictEqual(failure(Schema.Struct({ u: Schema.URLFromString }), { u: "sk-live-123" }), "- $.u: Expected a valid URL string")
      assert.strictEqual(failure(Schema.Struct({ n: Schema.Int }), { n: "sk-live-123" }), "- $.n: Expected number")
      assert.strictEqual(
        failure(Schema.Struct({ a: Schema.String }), { a: "x", "sk-live-123": "sk-live-456" }, { onExcessProperty: "error" }),
        "- $[\"sk-live-123\"]: Expected no excess property"
      )
    })

    it("a check's message built from the value gives way to what the check expects", () => {
      const Code = echoing((s) => `bad code ${s}`, { expected: "a code of more than 1000 characters" })
      assert.strictEqual(failure(Schema.Struct({ c: Code }), { c: "sk-live-123" }), "- $.c: Expected a code of more than 1000 characters")
      // With nothing else to say, the check's title; with no title either, a neutral line.
      assert.strictEqual(failure(Schema.Struct({ c: echoing((s) => `bad ${s}`, { title: "a long code" }) }), { c: "sk-live-123" }), "- $.c: Expected a long code")
      assert.strictEqual(failure(Schema.Struct({ c: echoing((s) => `bad ${s}`) }), { c: "sk-live-123" }), "- $.c: Expected a valid value")
    })

    it("a part of the value, the value in JSON or in other case is as much a repetition", () => {
      const value = "abc\"sk-live-123456\"xyz"
      for (
        const message of [
          (s: string) => `bad prefix ${s.slice(0, 12)}`,
          (s: string) => `bad ${JSON.stringify(s)}`,
          (s: string) => `BAD ${s.toUpperCase()}`
        ]
      ) {
        assert.strictEqual(failure(Schema.Struct({ c: echoing(message, { title: "a long code" }) }), { c: value }), "- $.c: Expected a long code")
      }
    })

    it("a few characters of the value, three or more, are as much a repetition", () => {
      const value = "SKLIVEMARKER42xyz"
      for (let length = 3; length <= 7; length++) {
        const message = (s: string) => `bad value ${s.slice(2, 2 + length)}`
        assert.strictEqual(
          failure(Schema.Struct({ c: echoing(message, { title: "a long code" }) }), { c: value }),
          "- $.c: Expected a long code",
          `an excerpt of ${length} characters`
        )
      }
    })

    it("keys and values inside an object value count as well as the value's JSON", () => {
      const Pair = Schema.Struct({ k: Schema.String }).check(
        Schema.makeFilter((o: { readonly k: string }) => `no ${JSON.stringify(o)}`, { title: "a pair" })
      )
      assert.strictEqual(failure(Schema.Struct({ p: Pair }), { p: { k: "sk-live-123" } }), "- $.p: Expected a pair")
      const Keyed = Schema.Record(Schema.String, Schema.String).check(
        Schema.makeFilter((o: Readonly<Record<string, string>>) => `no ${Object.keys(o).join()}`, { title: "a map" })
      )
      assert.strictEqual(failure(Schema.Struct({ m: Keyed }), { m: { "sk-live-123": "x" } }), "- $.m: Expected a map")
    })

    it("a transformation's message built from the value gives way to what the Schema expects there", () => {
      const Named = EchoingTransformation.annotate({ expected: "a usable name" })
      assert.strictEqual(failure(Schema.Struct({ t: Named }), { t: "sk-live-123" }), "- $.t: Expected a usable name")
      assert.strictEqual(failure(Schema.Struct({ t: EchoingTransformation }), { t: "sk-live-123" }), "- $.t: Expected a valid value")
    })

    it("when the parser did not report the value, a message made while decoding is never trusted", () => {
      const Constant = Schema.String.check(Schema.makeFilter((s: string) => s.length > 1000 || "too short"))
      assert.strictEqual(failure(Schema.Struct({ c: Constant }), { c: "abc" }, { reportInput: false }), "- $.c: Expected a valid value")
      assert.strictEqual(
        failure(Schema.Struct({ v: Schema.SemVerFromString }), { v: "sk-live-123" }, { reportInput: false }),
        "- $.v: Expected SemVer"
      )
    })
  })

  describe("formatIssues keeps messages that do not repeat the value", () => {
    it("a constant message made while decoding", () => {
      const Constant = Schema.String.check(Schema.makeFilter((s: string) => s.length > 1000 || "too short"))
      assert.strictEqual(failure(Schema.Struct({ c: Constant }), { c: "sk-live-123" }), "- $.c: too short")
      assert.strictEqual(
        failure(Schema.Struct({ ip: Schema.IpAddressFromString }), { ip: "sk-live-123" }),
        "- $.ip: expected exactly four decimal octets"
      )
    })

    it("a message of the Schema itself, fixed before any call, even when the value happens to say the same", () => {
      const Secretless = Schema.String.check(Schema.isMinLength(40, { message: "write at least forty characters" }))
      assert.strictEqual(
        failure(Schema.Struct({ s: Secretless }), { s: "write at least forty characters" }),
        "- $.s: write at least forty characters"
      )
    })

    it("values too short to be told from ordinary words do not count", () => {
      const Positive = Schema.Number.check(Schema.makeFilter((n: number) => n > 0 || "must be positive"))
      assert.strictEqual(failure(Schema.Struct({ n: Positive }), { n: -1 }), "- $.n: must be positive")
      const Short = Schema.String.check(Schema.makeFilter((s: string) => s.length > 5 || "is too short"))
      assert.strictEqual(failure(Schema.Struct({ s: Short }), { s: "t" }), "- $.s: is too short")
    })

    it("every failing path, one line each", () => {
      assert.strictEqual(
        failure(Schema.Struct({ a: Schema.Int, b: Schema.Array(Schema.String), c: Schema.String }), { a: 1.5, b: ["x", 2] }),
        ["- $.a: Expected an integer", "- $.b[1]: Expected string", "- $.c: Missing key"].join("\n")
      )
    })
  })

  describe("paths", () => {
    it("repeat at most 64 characters of a key, however long", () => {
      const key = "k".repeat(500 * 1024)
      const text = failure(Schema.Struct({ a: Schema.String }), { a: "x", [key]: 1 }, { onExcessProperty: "error" })
      assert.strictEqual(text, `- $["${"k".repeat(64)}…"]: Expected no excess property`)
    })

    it("bound record keys too, and quote what is not an identifier", () => {
      const text = failure(Schema.Record(Schema.String, Schema.Int), { ["a b".repeat(30)]: "x", ok: "y" })
      assert.strictEqual(text, [`- $["${"a b".repeat(21)}a…"]: Expected number`, "- $.ok: Expected number"].join("\n"))
    })

    it("never cut a surrogate pair in half", () => {
      const key = "x" + "😀".repeat(40)
      const text = failure(Schema.Struct({ a: Schema.String }), { a: "x", [key]: 1 }, { onExcessProperty: "error" })
      assert.strictEqual(text, `- $["x${"😀".repeat(31)}…"]: Expected no excess property`)
      assert.isFalse(/[\ud800-\udbff](?![\udc00-\udfff])/.test(text))
    })
  })

  describe("bounded", () => {
    it("keeps text of 64 characters or fewer as it is", () => {
      assert.strictEqual(bounded(""), "")
      assert.strictEqual(bounded("a".repeat(64)), "a".repeat(64))
    })

    it.prop("is at most 65 characters, a prefix of the text, and never ends in half a surrogate pair", [Schema.String], ([text]) => {
      const out = bounded(text)
      if (text.length <= 64) assert.strictEqual(out, text)
      else {
        assert.isTrue(out.endsWith("…"))
        assert.isTrue(text.startsWith(out.slice(0, -1)))
        assert.isAtMost(out.length, 65)
        const last = out.charCodeAt(out.length - 2)
        assert.isFalse(last >= 0xd800 && last <= 0xdbff)
      }
    })
  })
})
