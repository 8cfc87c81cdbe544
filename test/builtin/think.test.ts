import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { think } from "../../src/builtin/think.ts"
import { DynamicTool, Tool, ToolOutput, type ToolResult, ToolSet } from "../../src/index.ts"
import { kindOf } from "../support/results.ts"

const set = ToolSet.make(think)

/** What the model sees from one call: the text of the output, and the kind of the error if any. */
const seen = (result: ToolResult.ToolResult) => ({
  status: result.status,
  kind: kindOf(result),
  text: Option.getOrUndefined(ToolOutput.asText(result.output))
})

const execute = (args: unknown) =>
  Effect.map(ToolSet.execute(set, { id: "call_1", name: "think", arguments: args }), seen)

describe("think", () => {
  it("is a portable, read-only tool named think whose one argument is a non-empty thought", () => {
    assert.isTrue(DynamicTool.isPortable(think))
    const definition = Tool.definition(think)
    assert.deepStrictEqual(
      {
        name: definition.name,
        parameters: definition.parameters,
        outputSchema: definition.outputSchema,
        annotations: definition.annotations
      },
      {
        name: "think",
        parameters: {
          type: "object",
          properties: {
            thought: { type: "string", minLength: 1, description: "Your reasoning, written out in full." }
          },
          required: ["thought"],
          additionalProperties: false
        },
        outputSchema: undefined,
        annotations: { title: "Think", readOnly: true, idempotent: true, openWorld: false }
      }
    )
  })

  it("tells the model what it is for, and that it fetches and changes nothing", () => {
    assert.include(think.description, "scratchpad")
    assert.include(think.description, "fetches nothing and changes nothing")
  })

  it("needs no services", () => {
    expectTypeOf(ToolSet.execute(set, { id: "c", name: "think", arguments: {} })).toEqualTypeOf<
      Effect.Effect<ToolResult.ToolResult, never, never>
    >()
  })

  it.effect("returns the thought as one text block, from JSON text or parsed arguments alike", () =>
    Effect.gen(function*() {
      const thought = "First convert to euros, then add the fees: 12 + 3 = 15."
      assert.deepStrictEqual(yield* execute({ thought }), { status: "success", kind: undefined, text: thought })
      assert.deepStrictEqual(yield* execute(JSON.stringify({ thought })), {
        status: "success",
        kind: undefined,
        text: thought
      })
    }))

  it.effect("refuses an empty, missing or non-string thought, and keys it does not know", () =>
    Effect.gen(function*() {
      const refusals = [
        yield* execute({ thought: "" }),
        yield* execute({}),
        yield* execute({ thought: 42 }),
        yield* execute({ thought: ["a"] }),
        yield* execute({ thought: "ok", mood: "calm" }),
        yield* execute("{not json")
      ]
      assert.deepStrictEqual(
        refusals.map((result) => [result.status, result.kind]),
        Array(6).fill(["error", "invalid_args"])
      )
      assert.deepStrictEqual(refusals.slice(0, 3).map((result) => result.text), [
        "tool arguments did not match the schema:\n- $.thought: Expected a value with a length of at least 1",
        "tool arguments did not match the schema:\n- $.thought: Missing key",
        "tool arguments did not match the schema:\n- $.thought: Expected string"
      ])
    }))

  it.effect.prop(
    "any non-empty thought comes back exactly as it was written",
    [Schema.String.check(Schema.isMinLength(1))],
    ([thought]) =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* execute(JSON.stringify({ thought })), {
          status: "success",
          kind: undefined,
          text: thought
        })
      }),
    { arbitrary: { runs: 200 } }
  )
})
