/**
 * `clock`: the current date and time, in UTC and, when the model names one, in an IANA time zone. The time comes
 * from Effect's `Clock`, so a test (with `TestClock`) or a host decides what "now" is.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Effect, Option, Schema } from "effect"
import type { PortableTool } from "../DynamicTool.ts"
import * as Tool from "../Tool.ts"
import * as ToolExecutionError from "../ToolExecutionError.ts"

/** Longer than any IANA name (the longest have about 30 characters): bounds what is handed to `Intl`. */
const maxTimeZoneLength = 64

/**
 * What the clock returns.
 *
 * @category schemas
 */
export const ClockResult = Schema.Struct({
  utc: Schema.String.annotate({ description: "The current time in UTC, ISO 8601: 2025-03-30T08:15:00.000Z" }),
  timeZone: Schema.String.annotate({ description: "The time zone of `local`: the one asked for, or UTC" }),
  local: Schema.String.annotate({
    description: "The current time in that zone, ISO 8601 with its offset: 2025-03-30T10:15:00.000+02:00"
  }),
  offset: Schema.String.annotate({ description: "The zone's offset from UTC at this moment: +02:00" }),
  weekday: Schema.String.annotate({ description: "The day of the week in that zone: Sunday" })
})

/**
 * The type of {@link ClockResult}.
 *
 * @category models
 */
export interface ClockResult extends Schema.Schema.Type<typeof ClockResult> {}

const weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const

const unknownTimeZone = ToolExecutionError.invalidArgs(
  "unknown time zone: give an IANA time zone name, such as Europe/Paris, America/New_York, Asia/Kolkata or UTC"
)

/**
 * The zone an IANA name denotes, by its canonical name. Effect caches every zone it makes by the name it is given,
 * and `Intl` accepts any capitalization of a name: asking for the canonical one keeps that cache to the few hundred
 * zones that exist, whatever the names sent.
 */
const namedZone = (name: string): Option.Option<DateTime.TimeZone.Named> => {
  let canonical: string
  try {
    canonical = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone
  } catch {
    return Option.none()
  }
  return DateTime.zoneMakeNamed(canonical)
}

const utcZone = DateTime.zoneMakeNamedUnsafe("UTC")

const Clock = Tool.make("clock", {
  description: "Get the current date and time. Without arguments, in UTC; with timeZone (an IANA time zone name " +
    "such as Europe/Paris, America/New_York, Asia/Tokyo or UTC), also the local time there. Returns utc (ISO 8601), " +
    "timeZone, local (ISO 8601 with the UTC offset), offset (such as +02:00) and the weekday in that zone.",
  parameters: Schema.Struct({
    timeZone: Schema.optionalKey(
      Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(maxTimeZoneLength)).annotate({
        description: "An IANA time zone name, such as Europe/Paris; UTC when omitted"
      })
    )
  }),
  success: ClockResult,
  annotations: { title: "Clock", readOnly: true, openWorld: false },
  onExcessProperty: "error",
  call: ({ timeZone }) =>
    Effect.gen(function*() {
      const zone = timeZone === undefined ? Option.some(utcZone) : namedZone(timeZone)
      if (Option.isNone(zone)) return yield* unknownTimeZone
      const now = yield* DateTime.now
      const local = DateTime.setZone(now, zone.value)
      return {
        utc: DateTime.formatIso(now),
        // As asked: a valid name the model chose reads back as it wrote it, even where `Intl` prefers an older alias.
        timeZone: timeZone ?? "UTC",
        local: DateTime.formatIsoOffset(local),
        offset: DateTime.zonedOffsetIso(local),
        weekday: weekdays[DateTime.toParts(local).weekDay]!
      }
    })
})

/**
 * The `clock` tool: arguments `{ timeZone? }`; it returns {@link ClockResult}. An unknown time zone is
 * `invalid_args`. Portable: it reads the time from Effect's `Clock`, which every fiber has.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { TestClock } from "effect/testing"
 * import { ToolCall, ToolSet } from "effect-llm-tools"
 * import { Builtin } from "effect-llm-tools/builtin"
 *
 * const program = Effect.gen(function*() {
 *   yield* TestClock.setTime(Date.UTC(2025, 2, 30, 8, 15))
 *   return yield* ToolSet.make(Builtin.clock).pipe(
 *     ToolSet.execute(ToolCall.make({ id: "call_1", name: "clock", arguments: { timeZone: "Europe/Paris" } }))
 *   )
 * }).pipe(Effect.provide(TestClock.layer()))
 * // output: { utc: "2025-03-30T08:15:00.000Z", timeZone: "Europe/Paris", local: "2025-03-30T10:15:00.000+02:00",
 * //           offset: "+02:00", weekday: "Sunday" }
 * ```
 *
 * @category tools
 */
export const clock: PortableTool<
  "clock",
  { readonly timeZone?: string },
  ClockResult,
  ToolExecutionError.ToolExecutionError
> = Tool.provide(Clock, Context.empty(), { portable: true })
