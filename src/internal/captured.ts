/**
 * The services a layer (or a server's `add`) captures for the calls it will run later, and how a call sees them: the
 * caller's own context wins (its tracer, its parent span, its per-call inbound values), captured services fill the
 * rest.
 */
import { Context, Effect, Layer, References, Scope, Tracer } from "effect"

/**
 * What belongs to building a layer stays there: its span (calls are not children of start-up), its stack frame, its
 * scope (a tool's per-call resources are not released only at shutdown) and its memo map.
 */
export const capture = (built: Context.Context<any>): Context.Context<never> =>
  Context.omit(
    Tracer.ParentSpan,
    References.CurrentStackFrame,
    Scope.Scope,
    Layer.CurrentMemoMap
  )(built) as Context.Context<never>

/** Runs `effect` with the captured services under the caller's context. */
export const withCaptured = <A, E>(
  captured: Context.Context<never>,
  effect: Effect.Effect<A, E, any>
): Effect.Effect<A, E, any> =>
  // Nothing captured (a layer that needed no services): nothing to add.
  captured.mapUnsafe.size === 0
    ? effect
    : Effect.updateContext(effect, (caller: Context.Context<never>) => Context.merge(captured, caller) as Context.Context<any>)
