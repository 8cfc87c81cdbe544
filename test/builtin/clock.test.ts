import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import { clock } from "../../src/builtin/clock.ts"
import { DynamicTool, type ToolResult, ToolSet } from "../../src/index.ts"
import { definitionOf, executeTool } from "../support/builtinTool.ts"

const set = ToolSet.make(clock)

const execute = executeTool(set, "clock")

/** The clock's answer at `epochMillis`, read from the test clock. */
const at = (epochMillis: number, args: unknown) =>
  Effect.andThen(TestClock.setTime(epochMillis), execute(args))

/** The clock's answer of a success: its `offset` is the one `local` is written with, at its end (such as +01:00). */
const now = (utc: string, timeZone: string, local: string, weekday: string) => ({
  status: "success" as const,
  output: { utc, timeZone, local, offset: local.slice(-6), weekday }
})

const unknownTimeZone = {
  status: "error" as const,
  kind: "invalid_args" as const,
  message:
    "unknown time zone: give an IANA time zone name, such as Europe/Paris, America/New_York, Asia/Kolkata or UTC"
}

// 2025-03-30: the night clocks go forward in most of Europe (at 01:00 UTC), and a Sunday.
const beforeTheChange = Date.UTC(2025, 2, 30, 0, 59, 59, 999)
const afterTheChange = Date.UTC(2025, 2, 30, 1, 0, 0, 0)

describe("definition", () => {
  it("is a portable, read-only tool named clock, whose one argument is an optional time zone", () => {
    assert.isTrue(DynamicTool.isPortable(clock))
    assert.deepStrictEqual(definitionOf(clock), {
      name: "clock",
      parameters: {
        type: "object",
        properties: {
          timeZone: {
            type: "string",
            minLength: 1,
            maxLength: 64,
            description: "An IANA time zone name, such as Europe/Paris; UTC when omitted"
          }
        },
        required: [],
        additionalProperties: false
      },
      outputRequired: ["utc", "timeZone", "local", "offset", "weekday"],
      annotations: { title: "Clock", readOnly: true, openWorld: false }
    })
  })

  it("needs no services: the time comes from the Clock every fiber has", () => {
    expectTypeOf(ToolSet.execute(set, { id: "c", name: "clock", arguments: {} })).toEqualTypeOf<
      Effect.Effect<ToolResult.ToolResult, never, never>
    >()
  })
})

describe("the time", () => {
  it.effect("without a time zone: UTC, read from the test clock", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* at(afterTheChange, {}),
        now("2025-03-30T01:00:00.000Z", "UTC", "2025-03-30T01:00:00.000+00:00", "Sunday")
      )
      // The test clock starts at the epoch: nothing reads the real time.
      yield* TestClock.setTime(0)
      assert.deepStrictEqual(
        yield* execute({}),
        now("1970-01-01T00:00:00.000Z", "UTC", "1970-01-01T00:00:00.000+00:00", "Thursday")
      )
    }))

  it.effect("moves when the clock does", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(afterTheChange)
      const first = yield* execute({})
      yield* TestClock.adjust("90 minutes")
      assert.deepStrictEqual([first, yield* execute({})], [
        now("2025-03-30T01:00:00.000Z", "UTC", "2025-03-30T01:00:00.000+00:00", "Sunday"),
        now("2025-03-30T02:30:00.000Z", "UTC", "2025-03-30T02:30:00.000+00:00", "Sunday")
      ])
    }))

  it.effect("in a named zone: its local time and its offset at that moment, either side of a change of offset", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        [
          yield* at(beforeTheChange, { timeZone: "Europe/Paris" }),
          yield* at(afterTheChange, { timeZone: "Europe/Paris" })
        ],
        [
          now("2025-03-30T00:59:59.999Z", "Europe/Paris", "2025-03-30T01:59:59.999+01:00", "Sunday"),
          now("2025-03-30T01:00:00.000Z", "Europe/Paris", "2025-03-30T03:00:00.000+02:00", "Sunday")
        ]
      )
    }))

  it.effect("half-hour offsets, negative offsets, and a local date that is not the UTC date", () =>
    Effect.gen(function*() {
      const zones = ["Asia/Kolkata", "America/St_Johns", "Pacific/Kiritimati", "America/Los_Angeles", "Etc/GMT+5"]
      const answers = []
      for (const timeZone of zones) answers.push(yield* at(afterTheChange, { timeZone }))
      assert.deepStrictEqual(answers, [
        now("2025-03-30T01:00:00.000Z", "Asia/Kolkata", "2025-03-30T06:30:00.000+05:30", "Sunday"),
        now("2025-03-30T01:00:00.000Z", "America/St_Johns", "2025-03-29T22:30:00.000-02:30", "Saturday"),
        now("2025-03-30T01:00:00.000Z", "Pacific/Kiritimati", "2025-03-30T15:00:00.000+14:00", "Sunday"),
        now("2025-03-30T01:00:00.000Z", "America/Los_Angeles", "2025-03-29T18:00:00.000-07:00", "Saturday"),
        // POSIX sign: Etc/GMT+5 is five hours behind UTC.
        now("2025-03-30T01:00:00.000Z", "Etc/GMT+5", "2025-03-29T20:00:00.000-05:00", "Saturday")
      ])
    }))

  it.effect("a zone name in any capitalization is understood, and reported as it was written", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* at(afterTheChange, { timeZone: "europe/PARIS" }),
        now("2025-03-30T01:00:00.000Z", "europe/PARIS", "2025-03-30T03:00:00.000+02:00", "Sunday")
      )
    }))
})

describe("bad time zones", () => {
  it.effect("an unknown zone is invalid_args naming examples, never repeating what was sent", () =>
    Effect.gen(function*() {
      const zones = ["Mars/Olympus_Mons", "Europe/Pariss", "+01:00", "UTC+2", "Z", " Europe/Paris", "../etc"]
      const answers = []
      for (const timeZone of zones) answers.push(yield* at(afterTheChange, { timeZone }))
      assert.deepStrictEqual(answers, Array(7).fill(unknownTimeZone))
    }))

  it.effect("an empty or overlong name, a non-string, and unknown keys are refused by the schema", () =>
    Effect.gen(function*() {
      const answers: ReadonlyArray<unknown> = [
        yield* execute({ timeZone: "" }),
        yield* execute({ timeZone: "x".repeat(65) }),
        yield* execute({ timeZone: 2 }),
        yield* execute({ timeZone: null }),
        yield* execute({ tz: "Europe/Paris" })
      ]
      assert.deepStrictEqual(
        answers,
        [
          "- $.timeZone: Expected a value with a length of at least 1",
          "- $.timeZone: Expected a value with a length of at most 64",
          "- $.timeZone: Expected string",
          "- $.timeZone: Expected string",
          "- $.tz: Expected no excess property"
        ].map((line) => ({
          status: "error",
          kind: "invalid_args",
          message: `tool arguments did not match the schema:\n${line}`
        }))
      )
    }))
})

describe("properties", () => {
  const Zone = Schema.Literals([
    "UTC",
    "Europe/Paris",
    "Europe/London",
    "America/New_York",
    "America/St_Johns",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    "Australia/Lord_Howe",
    "Pacific/Chatham",
    "Pacific/Kiritimati",
    "Pacific/Pago_Pago"
  ])
  // 1970 to 2100.
  const Instant = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 4_102_444_800_000 }))

  it.effect.prop(
    "utc is the instant, and local is the same instant written with the zone's offset",
    [Instant, Zone],
    ([epochMillis, timeZone]) =>
      Effect.gen(function*() {
        const answer = yield* at(epochMillis, { timeZone })
        assert.strictEqual(answer.status, "success")
        const { local, offset, utc, weekday, ...rest } = (answer as ReturnType<typeof now>).output
        assert.deepStrictEqual(rest, { timeZone })
        assert.strictEqual(utc, new Date(epochMillis).toISOString())
        assert.isTrue(local.endsWith(offset), `${local} does not end with ${offset}`)
        assert.strictEqual(Date.parse(local), epochMillis)
        const intlWeekday = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "long" }).format(epochMillis)
        assert.strictEqual(weekday, intlWeekday)
      }),
    { arbitrary: { runs: 300 } }
  )
})
