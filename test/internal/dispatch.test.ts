import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Option, Result } from "effect"
import { exitTypeId, isEffectValue, isExitValue } from "../../src/internal/dispatch.ts"

class Service extends Context.Service<Service, { readonly n: number }>()("Service") {}

const effects: ReadonlyArray<Effect.Effect<unknown, unknown, unknown>> = [
  Effect.succeed(1),
  Effect.fail("no"),
  Effect.void,
  Exit.die(new Error("boom")),
  Exit.interrupt(),
  Effect.sync(() => 1),
  Effect.suspend(() => Effect.succeed(1)),
  Effect.flatMap(Effect.succeed(1), Effect.succeed),
  Effect.never,
  Effect.service(Service)
]

describe("dispatch's inline guards", () => {
  it("isEffectValue answers as Effect.isEffect, for Effects and for anything else", () => {
    const others: ReadonlyArray<unknown> = [
      undefined,
      null,
      0,
      "",
      "~effect/Effect",
      {},
      [],
      () => 1,
      Promise.resolve(1),
      Option.some(1),
      Result.succeed(1),
      { "~effect/Exit": "~effect/Exit" },
      Service
    ]
    for (const value of [...effects, ...others]) assert.strictEqual(isEffectValue(value), Effect.isEffect(value))
  })

  it("isExitValue finds every Exit, and only Exits: the fast path of a tool answering with one is taken", () => {
    for (const effect of effects) assert.strictEqual(isExitValue(effect), Exit.isExit(effect))
    assert.isTrue(isExitValue(Effect.succeed(1)))
    assert.isTrue(isExitValue(Effect.fail("no")))
    assert.isFalse(isExitValue(Effect.sync(() => 1)))
    // Found by its type id, not by Exit.isExit, which it falls back to when this version of Effect has no such id.
    assert.isDefined(exitTypeId)
  })
})
