/**
 * Telemetry for tool calls, following the OpenTelemetry GenAI conventions: one `execute_tool <name>` span per call
 * (only when a tracing backend is installed), and two metrics updated for every call.
 */
import { Context, Metric } from "effect"
import type { Tracer } from "effect"
import type { ToolResult } from "../ToolResult.ts"

const callsName = "gen_ai.tool.calls"
const callsDescription = "Tool calls executed, by tool, status and error kind"
const durationName = "gen_ai.tool.duration"
const durationDescription = "Wall time of tool calls in milliseconds"
const durationBoundaries = Metric.exponentialBoundaries({ start: 0.01, factor: 4, count: 12 })

/**
 * The name calls to tools that do not exist are counted under: the names a model invents are unbounded, and metric
 * attributes must not be.
 */
export const unknownToolName = "_unknown"

/** The duration histogram's bucket boundaries, sorted, the last one `+Infinity` (as Effect's histograms have them). */
const boundaries = Float64Array.from(durationBoundaries).sort()
const bucketCount = boundaries.length
// A duration series is one Float64Array: the bucket counts, then count, sum, min and max.
const countAt = bucketCount + 1
const sumAt = bucketCount + 2
const minAt = bucketCount + 3
const maxAt = bucketCount + 4

const noop = () => {}

/**
 * The series of one registry (Effect's `MetricRegistry` of the calling context), by series key. Two sets that hold a
 * tool of the same name count into the same series, as Effect's own metrics would.
 */
interface Store {
  readonly counters: Map<string, Float64Array>
  readonly durations: Map<string, Float64Array>
}

const stores = new WeakMap<Metric.MetricRegistry, Store>()

const storeOf = (registry: Metric.MetricRegistry): Store => {
  let store = stores.get(registry)
  if (store === undefined) {
    store = { counters: new Map(), durations: new Map() }
    stores.set(registry, store)
  }
  return store
}

/** The series key of a set of attributes, the same whatever the order the attributes were given in. */
const attributesKey = (attributes: Metric.Metric.AttributeSet): string => {
  const keys = Object.keys(attributes)
  if (keys.length === 0) return ""
  return JSON.stringify(keys.sort().map((key) => [key, attributes[key]]))
}

/**
 * The series one outcome of one tool counts into, in the registry and with the metric attributes of the calling
 * context.
 */
interface Series {
  readonly calls: Float64Array
  readonly duration: Float64Array
}

/**
 * The metrics of one tool, held in its plan: per-tool series without a per-call lookup.
 *
 * Effect's metrics look their series up in the registry on every update (two context reads and a map lookup per
 * metric), and a histogram's series keeps its state in a closure, two typed arrays and boxed numbers: rotating calls
 * over 10,000 tools, those lookups and scattered states cost more than the call itself. Here each series is a
 * plain array that the tool's plan holds once it is found, and that the registry reads through
 * `Metric.registerUnsafe` hooks: `Metric.snapshot` and exporters see the same series, attributes and states as
 * Effect's counter and histogram would give, always current.
 */
export class ToolMetrics {
  private readonly toolName: string
  // The registry and metric attributes the series below were found for: a context with others finds its own.
  private registry: Metric.MetricRegistry | undefined = undefined
  private extra: Metric.Metric.AttributeSet | undefined = undefined
  // Success, by far the most common outcome, skips the map.
  private success: Series | undefined = undefined
  private readonly byOutcome = new Map<string, Series>()
  constructor(toolName: string) {
    this.toolName = toolName
  }
  record(result: ToolResult, context: Context.Context<never>): void {
    const registry = Context.get(context, Metric.MetricRegistry)
    const extra = Context.get(context, Metric.CurrentMetricAttributes)
    if (registry !== this.registry || extra !== this.extra) {
      this.registry = registry
      this.extra = extra
      this.success = undefined
      this.byOutcome.clear()
    }
    const series = result.status === "success"
      ? (this.success ??= this.series(result, registry, extra, context))
      : this.series(result, registry, extra, context)
    series.calls[0] += 1
    observe(series.duration, result.durationMs)
  }
  private series(
    result: ToolResult,
    registry: Metric.MetricRegistry,
    extra: Metric.Metric.AttributeSet,
    context: Context.Context<never>
  ): Series {
    const kind = result.error._tag === "Some" ? result.error.value.kind : undefined
    const outcome = kind === undefined ? result.status : `${result.status}:${kind}`
    let series = this.byOutcome.get(outcome)
    if (series === undefined) {
      const store = storeOf(registry)
      const attributes: Record<string, string> = { "gen_ai.tool.name": this.toolName, "tool.status": result.status }
      const callsAttributes = kind === undefined ? attributes : { ...attributes, "error.type": kind }
      const extraKey = attributesKey(extra)
      const callsKey = `${attributesKey(callsAttributes)}${extraKey}`
      let calls = store.counters.get(callsKey)
      if (calls === undefined) {
        const state = new Float64Array(1)
        calls = state
        store.counters.set(callsKey, state)
        Metric.registerUnsafe(
          Metric.counter(callsName, { description: callsDescription, incremental: true, attributes: callsAttributes }),
          context,
          { get: () => ({ count: state[0]!, incremental: true }), update: noop, modify: noop }
        )
      }
      const durationKey = `${attributesKey(attributes)}${extraKey}`
      let duration = store.durations.get(durationKey)
      if (duration === undefined) {
        const state = new Float64Array(bucketCount + 5)
        state[minAt] = Number.MAX_VALUE
        state[maxAt] = -Number.MAX_VALUE
        duration = state
        store.durations.set(durationKey, state)
        Metric.registerUnsafe(
          Metric.histogram(durationName, { description: durationDescription, boundaries: durationBoundaries, attributes }),
          context,
          { get: () => histogramState(state), update: noop, modify: noop }
        )
      }
      series = { calls, duration }
      this.byOutcome.set(outcome, series)
    }
    return series
  }
}

/** One duration into its bucket (the first whose boundary is not below it), and into count, sum, min and max. */
const observe = (state: Float64Array, value: number): void => {
  let bucket = 0
  while (bucket < bucketCount - 1 && value > boundaries[bucket]!) bucket++
  state[bucket] += 1
  state[countAt] += 1
  state[sumAt] += value
  if (value < state[minAt]!) state[minAt] = value
  if (value > state[maxAt]!) state[maxAt] = value
}

/** A duration series read as Effect's histogram state: cumulative counts at each boundary. */
const histogramState = (state: Float64Array): Metric.HistogramState => {
  const buckets: Array<[number, number]> = []
  let cumulated = 0
  for (let i = 0; i < bucketCount; i++) {
    cumulated += state[i]!
    buckets.push([boundaries[i]!, cumulated])
  }
  return { buckets, count: state[countAt]!, min: state[minAt]!, max: state[maxAt]!, sum: state[sumAt]! }
}

/** Sets the attributes of a finished call on its span. */
export const annotateSpan = (span: Tracer.Span, result: ToolResult): void => {
  span.attribute("tool.status", result.status)
  span.attribute("gen_ai.tool.call.outcome", result.status)
  if (result.error._tag === "Some") span.attribute("error.type", result.error.value.kind)
}
