import { assert } from "@effect/vitest"
import { Effect, Exit } from "effect"
import type { Tool, ToolCall } from "../../src/index.ts"
import { ToolSet } from "../../src/index.ts"

/**
 * Runs one call through `ToolSet.execute`, which must never fail or die: the test fails here, showing the exit, when
 * it does. The set's requirements stay the effect's.
 */
export const executeOrFail = <T extends Tool.Any>(
  set: ToolSet.ToolSet<T>,
  call: ToolCall.ToolCall,
  options?: ToolSet.ExecuteOptions
) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(ToolSet.execute(set, call, options))
    if (Exit.isFailure(exit)) return assert.fail(`execute did not succeed: ${String(exit)}`)
    return exit.value
  })
