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
// From 10 µs to about 11 minutes (0.01 ms × 4¹³), so that a tool that runs for seconds or minutes (a server's timeout
// is often 30 s or more) still lands in a bucket of its own, then +Infinity.
const durationBoundaries = Metric.exponentialBoundaries({ start: 0.01, factor: 4, count: 15 })

/**
 * The unit of the duration histogram, as an attribute of its series: Effect's metrics have no unit of their own, and
 * its OpenTelemetry exporter reads the `unit` attribute as the instrument's unit (UCUM `ms`).
 */
const durationUnit = { unit: "ms" } as const

/**
 * The name calls to tools that do not exist are counted under: the names a model invents are unbounded, and metric
 * attributes must not be.
 */
export const unknownToolName = "_unknown"

/** The duration histogram's bucket boundaries, sorted, the last one `+Infinity` (as Effect's histograms have them). */
const boundaries = Float64Array.from(durationBoundaries).sort()
const bucketCount = boundaries.length
// A duration series is a run of numbers in its store's array: count, sum, min and max, then the bucket counts. What
// every call updates comes first, next to the calls counter allocated just before it: a call touches one cache line
// or two, not three.
const countAt = 0
const sumAt = 1
const minAt = 2
const maxAt = 3
const bucketsAt = 4
const durationSize = bucketsAt + bucketCount

const noop = () => {}

/**
 * The series of one registry (Effect's `MetricRegistry` of the calling context): their keys, and their numbers, all
 * in one array, so that the series a call updates sit side by side (a series is an offset into `data`). Two sets that
 * hold a tool of the same name count into the same series, as Effect's own metrics would.
 */
interface Store {
  data: Float64Array
  used: number
  readonly counters: Map<string, number>
  readonly durations: Map<string, number>
}

const stores = new WeakMap<Metric.MetricRegistry, Store>()

const storeOf = (registry: Metric.MetricRegistry): Store => {
  let store = stores.get(registry)
  if (store === undefined) {
    store = { data: new Float64Array(1024), used: 0, counters: new Map(), durations: new Map() }
    stores.set(registry, store)
  }
  return store
}

/** Room for `size` more numbers in the store: the offset of the first. The array doubles when it is full. */
const allocate = (store: Store, size: number): number => {
  const offset = store.used
  if (offset + size > store.data.length) {
    const grown = new Float64Array(Math.max(2 * store.data.length, offset + size))
    grown.set(store.data)
    store.data = grown
  }
  store.used = offset + size
  return offset
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
  readonly store: Store
  /** The offset of the calls counter. */
  readonly calls: number
  /** The offset of the duration histogram. */
  readonly duration: number
}

/**
 * The metrics of one tool, held in its plan: per-tool series without a per-call lookup.
 *
 * Effect's metrics look their series up in the registry on every update (two context reads and a map lookup per
 * metric), and a histogram's series keeps its state in a closure, two typed arrays and boxed numbers: rotating calls
 * over 10,000 tools, those lookups and scattered states cost more than the call itself. Here each series is a run
 * of numbers in one array per registry, found once and held by the tool's plan, and the registry reads it through
 * `Metric.registerUnsafe` hooks: `Metric.snapshot` and exporters see the same series, attributes and states as
 * Effect's counter and histogram would give, always current.
 */
export class ToolMetrics {
  private readonly toolName: string
  // The registry and metric attributes the series below were found for: a context with others finds its own.
  private registry: Metric.MetricRegistry | undefined = undefined
  private extra: Metric.Metric.AttributeSet | undefined = undefined
  // Success, by far the most common outcome, skips the map: its store and offsets are held here (-1: not found yet),
  // so that a successful call reaches its numbers in one step.
  private successStore: Store | undefined = undefined
  private successCalls = -1
  private successDuration = -1
  private byOutcome: Map<string, Series> | undefined = undefined
  constructor(toolName: string) {
    this.toolName = toolName
  }
  record(result: ToolResult, context: Context.Context<never>): void {
    const registry = Context.get(context, Metric.MetricRegistry)
    const extra = Context.get(context, Metric.CurrentMetricAttributes)
    if (registry !== this.registry || extra !== this.extra) {
      this.registry = registry
      this.extra = extra
      this.successStore = undefined
      this.successCalls = -1
      this.successDuration = -1
      this.byOutcome = undefined
    }
    if (result.status === "success") {
      if (this.successCalls < 0) {
        const series = this.series(result, registry, extra, context)
        this.successStore = series.store
        this.successCalls = series.calls
        this.successDuration = series.duration
      }
      const data = this.successStore!.data
      data[this.successCalls] += 1
      observe(data, this.successDuration, result.durationMs)
      return
    }
    const series = this.series(result, registry, extra, context)
    const data = series.store.data
    data[series.calls] += 1
    observe(data, series.duration, result.durationMs)
  }
  private series(
    result: ToolResult,
    registry: Metric.MetricRegistry,
    extra: Metric.Metric.AttributeSet,
    context: Context.Context<never>
  ): Series {
    const kind = result.error._tag === "Some" ? result.error.value.kind : undefined
    const outcome = kind === undefined ? result.status : `${result.status}:${kind}`
    const byOutcome = this.byOutcome ??= new Map()
    let series = byOutcome.get(outcome)
    if (series === undefined) {
      const store = storeOf(registry)
      const attributes: Record<string, string> = { "gen_ai.tool.name": this.toolName, "tool.status": result.status }
      const callsAttributes = kind === undefined ? attributes : { ...attributes, "error.type": kind }
      const durationAttributes = { ...callsAttributes, ...durationUnit }
      const extraKey = attributesKey(extra)
      const callsKey = `${attributesKey(callsAttributes)}${extraKey}`
      let calls = store.counters.get(callsKey)
      if (calls === undefined) {
        const at = allocate(store, 1)
        calls = at
        store.counters.set(callsKey, at)
        Metric.registerUnsafe(
          Metric.counter(callsName, { description: callsDescription, incremental: true, attributes: callsAttributes }),
          context,
          { get: () => ({ count: store.data[at]!, incremental: true }), update: noop, modify: noop }
        )
      }
      const durationKey = `${attributesKey(durationAttributes)}${extraKey}`
      let duration = store.durations.get(durationKey)
      if (duration === undefined) {
        const at = allocate(store, durationSize)
        store.data[at + minAt] = Number.MAX_VALUE
        store.data[at + maxAt] = -Number.MAX_VALUE
        duration = at
        store.durations.set(durationKey, at)
        Metric.registerUnsafe(
          Metric.histogram(durationName, {
            description: durationDescription,
            boundaries: durationBoundaries,
            attributes: durationAttributes
          }),
          context,
          { get: () => histogramState(store.data, at), update: noop, modify: noop }
        )
      }
      series = { store, calls, duration }
      byOutcome.set(outcome, series)
    }
    return series
  }
}

/** One duration into its bucket (the first whose boundary is not below it), and into count, sum, min and max. */
const observe = (data: Float64Array, at: number, value: number): void => {
  let bucket = 0
  while (bucket < bucketCount - 1 && value > boundaries[bucket]!) bucket++
  data[at + bucketsAt + bucket] += 1
  data[at + countAt] += 1
  data[at + sumAt] += value
  if (value < data[at + minAt]!) data[at + minAt] = value
  if (value > data[at + maxAt]!) data[at + maxAt] = value
}

/** A duration series read as Effect's histogram state: cumulative counts at each boundary. */
const histogramState = (data: Float64Array, at: number): Metric.HistogramState => {
  const buckets: Array<[number, number]> = []
  let cumulated = 0
  for (let i = 0; i < bucketCount; i++) {
    cumulated += data[at + bucketsAt + i]!
    buckets.push([boundaries[i]!, cumulated])
  }
  return { buckets, count: data[at + countAt]!, min: data[at + minAt]!, max: data[at + maxAt]!, sum: data[at + sumAt]! }
}

/** Sets the attributes of a finished call on its span; the tool's description when the tool was found. */
export const annotateSpan = (span: Tracer.Span, result: ToolResult, description: string | undefined): void => {
  if (description !== undefined && description !== "") span.attribute("gen_ai.tool.description", description)
  span.attribute("tool.status", result.status)
  span.attribute("gen_ai.tool.call.outcome", result.status)
  if (result.error._tag === "Some") span.attribute("error.type", result.error.value.kind)
}
