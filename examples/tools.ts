/**
 * A small, realistic tool set: the demo runs it, and the tests and provider transcripts use it.
 *
 * - `get_weather`: typed inbound context (the current user's units) and host-only metadata (which upstream served it).
 * - `render_chart`: returns an image next to a caption.
 * - `transfer_funds`: a typed error (insufficient funds) folded into a model-visible message, and a refusal.
 * - `add`: the seed example, with a success Schema.
 */
import { Context, Effect, Schema } from "effect"
import { Tool, ToolContext, ToolExecutionError, ToolOutput, ToolResultContent, ToolSet } from "../src/index.ts"

/** The user on whose behalf the model is calling tools: an inbound value each call needs. */
export class CurrentUser extends Context.Service<CurrentUser, {
  readonly id: string
  readonly units: "metric" | "imperial"
  readonly balance: number
}>()("examples/CurrentUser") {}

/** Host-only: which weather station answered. Never shown to the model. */
export class WeatherSource extends Context.Service<WeatherSource, string>()("examples/WeatherSource") {}

/** Host-only: the audit record of an addition. */
export class AuditRecord extends Context.Service<AuditRecord, number>()("examples/AuditRecord") {}

/** The seed example: add two integers. */
export const Add = Tool.make("add", {
  description: "Add two integers",
  parameters: Schema.Struct({
    left: Schema.Int.annotate({ description: "The left operand" }),
    right: Schema.Int.annotate({ description: "The right operand" })
  }),
  success: Schema.Struct({ value: Schema.Int }),
  call: Effect.fn("add")(function*({ left, right }) {
    const value = left + right
    yield* ToolContext.insertResult(AuditRecord, value)
    return { value }
  })
})

const forecasts: Record<string, number> = { paris: 18, oslo: 4, lima: 22 }

/** Current temperature for a city, in the user's units. */
export const GetWeather = Tool.make("get_weather", {
  description: "Get the current temperature in a city",
  parameters: Schema.Struct({
    city: Schema.String.annotate({ description: "City name, e.g. Paris" })
  }),
  annotations: { readOnly: true, openWorld: true, timeout: "2 seconds" },
  call: Effect.fn("get_weather")(function*({ city }) {
    const user = yield* CurrentUser
    const celsius = forecasts[city.toLowerCase()]
    if (celsius === undefined) {
      return yield* ToolExecutionError.notFound(`no weather station for "${city}"; try Paris, Oslo or Lima`)
    }
    yield* ToolContext.insertResult(WeatherSource, `station-${city.toLowerCase()}`)
    return user.units === "metric"
      ? { city, temperature: celsius, unit: "C" }
      : { city, temperature: Math.round(celsius * 9 / 5 + 32), unit: "F" }
  })
})

// A 1×1 transparent PNG.
const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

/** Renders a chart of a series: an image and its caption. */
export const RenderChart = Tool.make("render_chart", {
  description: "Render a line chart of a numeric series as a PNG image",
  parameters: Schema.Struct({
    title: Schema.String,
    values: Schema.Array(Schema.Finite).check(Schema.isMinLength(1))
  }),
  call: ({ title, values }) =>
    Effect.succeed(ToolOutput.content([
      ToolResultContent.text(`${title}: ${values.length} points, max ${Math.max(...values)}`),
      ToolResultContent.imageBase64(pixel, "image/png")
    ]))
})

/** Not enough money on the account: a typed error of `transfer_funds`. */
export class InsufficientFunds extends Schema.TaggedError<InsufficientFunds>()("InsufficientFunds", {
  needed: Schema.Finite,
  available: Schema.Finite
}) {}

/** Moves money; fails with a typed error the model is told about, and refuses large transfers outright. */
export const TransferFunds = Tool.make("transfer_funds", {
  description: "Transfer money from the user's account to a recipient",
  parameters: Schema.Struct({
    to: Schema.String,
    amount: Schema.Finite.check(Schema.isGreaterThan(0))
  }),
  failure: InsufficientFunds,
  annotations: { destructive: true },
  mapError: (error) =>
    ToolExecutionError.other(`insufficient funds: ${error.needed} needed, ${error.available} available`).pipe(
      ToolExecutionError.withCode("insufficient_funds"),
      ToolExecutionError.withCause(error)
    ),
  call: Effect.fn("transfer_funds")(function*({ to, amount }) {
    const user = yield* CurrentUser
    if (amount > 10_000) return yield* ToolExecutionError.refused("transfers over 10000 need a human's approval")
    if (amount > user.balance) return yield* new InsufficientFunds({ needed: amount, available: user.balance })
    return `sent ${amount} to ${to}`
  })
})

/** All four. */
export const tools = ToolSet.make(Add, GetWeather, RenderChart, TransferFunds)
