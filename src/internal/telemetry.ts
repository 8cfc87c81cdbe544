/**
 * Telemetry for tool calls, following the OpenTelemetry GenAI conventions: one `execute_tool <name>` span per call
 * (only when a tracing backend is installed), and two metrics updated for every call.
 */
import { Metric } from "effect"
import type { Context, Tracer } from "effect"
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

interface Instruments {
  readonly calls: Metric.Metric<number, unknown>
  readonly duration: Metric.Metric<number, unknown>
}

/**
 * The attributed metrics of one tool, made on first use for each status and kind, then reused: a call updates its
 * metrics without building attribute sets.
 */
export class ToolMetrics {
  // Success, by far the most common outcome, skips the map.
  private success: Instruments | undefined = undefined
  private readonly byOutcome = new Map<string, Instruments>()
  private readonly toolName: string
  constructor(toolName: string) {
    this.toolName = toolName
  }
  record(result: ToolResult, context: Context.Context<never>): void {
    const instruments = result.status === "success"
      ? (this.success ??= this.instruments(result))
      : this.instruments(result)
    instruments.calls.updateUnsafe(1, context)
    instruments.duration.updateUnsafe(result.durationMs, context)
  }
  private instruments(result: ToolResult): Instruments {
    const kind = result.error._tag === "Some" ? result.error.value.kind : undefined
    const key = kind === undefined ? result.status : `${result.status}:${kind}`
    let instruments = this.byOutcome.get(key)
    if (instruments === undefined) {
      // One metric object per series, with its attributes built in. (`Metric.withAttributes` wraps a shared
      // metric and re-derives its series key whenever the attributes differ from the previous update's, which
      // costs a JSON encoding per call as soon as calls rotate between tools.)
      const attributes: Record<string, string> = { "gen_ai.tool.name": this.toolName, "tool.status": result.status }
      instruments = {
        duration: Metric.histogram(durationName, {
          description: durationDescription,
          boundaries: durationBoundaries,
          attributes
        }),
        calls: Metric.counter(callsName, {
          description: callsDescription,
          incremental: true,
          attributes: kind === undefined ? attributes : { ...attributes, "error.type": kind }
        })
      }
      this.byOutcome.set(key, instruments)
    }
    return instruments
  }
}

/** Sets the attributes of a finished call on its span. */
export const annotateSpan = (span: Tracer.Span, result: ToolResult): void => {
  span.attribute("tool.status", result.status)
  span.attribute("gen_ai.tool.call.outcome", result.status)
  if (result.error._tag === "Some") span.attribute("error.type", result.error.value.kind)
}
