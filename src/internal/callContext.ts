/**
 * The per-call state behind the ToolContext service: the call's facts and the host-only values it inserts.
 */
import { Context } from "effect"

/**
 * The context of one call: its facts, and the host-only values it inserts. Sealed when the call's result is built:
 * a fiber the tool left behind cannot add to a result that has already been handed out.
 */
export class CallContext {
  readonly callId: string
  readonly toolName: string
  private values: Map<string, unknown> | undefined = undefined
  private sealed = false
  constructor(callId: string, toolName: string) {
    this.callId = callId
    this.toolName = toolName
  }
  insert(key: string, value: unknown): void {
    if (this.sealed) return
    if (this.values === undefined) this.values = new Map()
    this.values.set(key, value)
  }
  /** Ends the call: returns what it inserted, or nothing when `keep` is false, and takes no more values. */
  seal(keep: boolean): Context.Context<never> {
    this.sealed = true
    const values = this.values
    this.values = undefined
    return keep && values !== undefined ? Context.makeUnsafe(values) : emptyMetadata
  }
}

const emptyMetadata: Context.Context<never> = Context.empty()
