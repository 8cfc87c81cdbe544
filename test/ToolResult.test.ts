import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Option, Schema } from "effect"
import { Tool, ToolCall, ToolContext, ToolExecutionError, ToolOutput, ToolResult, ToolSet } from "../src/index.ts"

class Secret extends Context.Service<Secret, string>()("app/Secret") {}
class RowsRead extends Context.Service<RowsRead, number>()("app/RowsRead") {}

const secret = "sk-host-only-91d0c3"

// Succeeds, fails with a chosen kind, or refuses, and always leaves host-only metadata behind first.
const Outcome = Tool.make("outcome", {
  description: "End the way the arguments say",
  parameters: Schema.Struct({
    outcome: Schema.Literals(["succeed", "fail", "refuse"]),
    kind: Schema.optionalKey(ToolExecutionError.ToolErrorKindSchema)
  }),
  call: ({ outcome, kind }) =>
    Effect.gen(function*() {
      yield* ToolContext.insertResult(Secret, secret)
      yield* ToolContext.insertResult(RowsRead, 12)
      if (outcome === "refuse") return yield* ToolExecutionError.refused("not allowed for this user")
      if (outcome === "fail") return yield* ToolExecutionError.make(kind ?? "other", "it failed on purpose")
      return { rows: 12 }
    })
})

const set = ToolSet.make(Outcome)
const run = (args: unknown, name = "outcome") => ToolSet.execute(set, ToolCall.make({ id: "call_1", name, arguments: args }))

describe("ToolResult", () => {
  describe("isSuccess", () => {
    it.effect("is true only for status success", () =>
      Effect.gen(function*() {
        const ok = yield* run({ outcome: "succeed" })
        const failed = yield* run({ outcome: "fail" })
        const refused = yield* run({ outcome: "refuse" })
        const unknown = yield* run({}, "missing")
        assert.deepStrictEqual(
          [ok, failed, refused, unknown].map((result) => [result.status, ToolResult.isSuccess(result)]),
          [["success", true], ["error", false], ["denied", false], ["error", false]]
        )
      }))
  })

  describe("isErrorKind", () => {
    it.effect.prop(
      "is true for exactly the kind a call failed with",
      [ToolExecutionError.ToolErrorKindSchema],
      ([kind]) =>
        Effect.gen(function*() {
          const result = yield* run({ outcome: "fail", kind })
          const matching = ToolExecutionError.kinds.filter((candidate) => ToolResult.isErrorKind(result, candidate))
          assert.deepStrictEqual(matching, [kind])
        })
    )

    it.effect("is false for a refusal, though its kind is permission_denied", () =>
      Effect.gen(function*() {
        const refused = yield* run({ outcome: "refuse" })
        const denied = yield* run({ outcome: "fail", kind: "permission_denied" })
        assert.strictEqual(refused.status, "denied")
        assert.strictEqual(Option.getOrThrow(refused.error).kind, "permission_denied")
        assert.isFalse(ToolResult.isErrorKind(refused, "permission_denied"))
        assert.strictEqual(denied.status, "error")
        assert.isTrue(ToolResult.isErrorKind(denied, "permission_denied"))
      }))

    it.effect("is false for every kind on success", () =>
      Effect.gen(function*() {
        const ok = yield* run({ outcome: "succeed" })
        assert.deepStrictEqual(ToolExecutionError.kinds.filter((kind) => ToolResult.isErrorKind(ok, kind)), [])
      }))

    it.effect("recognizes framework errors: not_found and invalid_args", () =>
      Effect.gen(function*() {
        const unknown = yield* run({}, "missing")
        const invalid = yield* run("{not json")
        assert.isTrue(ToolResult.isErrorKind(unknown, "not_found"))
        assert.isTrue(ToolResult.isErrorKind(invalid, "invalid_args"))
        assert.isFalse(ToolResult.isErrorKind(unknown, "invalid_args"))
      }))
  })

  describe("metadata", () => {
    it.effect("returns what the call inserted, by key, and None for keys it did not", () =>
      Effect.gen(function*() {
        class Other extends Context.Service<Other, string>()("app/Other") {}
        const ok = yield* run({ outcome: "succeed" })
        assert.deepStrictEqual(ToolResult.metadata(ok, Secret), Option.some(secret))
        assert.deepStrictEqual(ToolResult.metadata(ok, RowsRead), Option.some(12))
        assert.deepStrictEqual(ToolResult.metadata(ok, Other), Option.none())
      }))

    it.effect("a typed failure keeps its metadata; a call that never ran has none", () =>
      Effect.gen(function*() {
        const failed = yield* run({ outcome: "fail", kind: "rate_limited" })
        const unknown = yield* run({}, "missing")
        assert.deepStrictEqual(ToolResult.metadata(failed, RowsRead), Option.some(12))
        assert.deepStrictEqual(ToolResult.metadata(unknown, RowsRead), Option.none())
      }))

    it("reads a result made directly", () => {
      const result = ToolResult.make({
        callId: "call_9",
        name: "outcome",
        arguments: {},
        status: "success",
        output: ToolOutput.text("ok"),
        error: Option.none(),
        metadata: Context.make(RowsRead, 5) as Context.Context<never>,
        durationMs: 1
      })
      assert.deepStrictEqual(ToolResult.metadata(result, RowsRead), Option.some(5))
      assert.deepStrictEqual(ToolResult.metadata(result, Secret), Option.none())
    })
  })

  describe("isToolResult", () => {
    it.effect("is true for results and false for look-alikes", () =>
      Effect.gen(function*() {
        const ok = yield* run({ outcome: "succeed" })
        assert.isTrue(ToolResult.isToolResult(ok))
        assert.isTrue(ToolResult.isToolResult(yield* run({}, "missing")))
        assert.isFalse(ToolResult.isToolResult(ok.output))
        assert.isFalse(ToolResult.isToolResult({
          callId: ok.callId,
          name: ok.name,
          arguments: ok.arguments,
          status: ok.status,
          output: ok.output,
          error: ok.error,
          metadata: ok.metadata,
          durationMs: ok.durationMs
        }))
        assert.isFalse(ToolResult.isToolResult(null))
        assert.isFalse(ToolResult.isToolResult(Tool.isTool))
      }))
  })

  describe("serialization", () => {
    it.effect("JSON.stringify of a result never contains its metadata values", () =>
      Effect.gen(function*() {
        for (const args of [{ outcome: "succeed" }, { outcome: "fail", kind: "network" }, { outcome: "refuse" }]) {
          const result = yield* run(args)
          assert.deepStrictEqual(ToolResult.metadata(result, Secret), Option.some(secret))
          const json = JSON.stringify(result)
          assert.isFalse(json.includes(secret), json)
          assert.isFalse(json.includes("app/Secret"), json)
          assert.isFalse(String(result).includes(secret))
        }
      }))

    it.effect("JSON.stringify keeps the call facts, status and output", () =>
      Effect.gen(function*() {
        const result = yield* run({ outcome: "succeed" })
        const parsed = JSON.parse(JSON.stringify(result))
        assert.deepStrictEqual(
          { callId: parsed.callId, name: parsed.name, status: parsed.status, output: parsed.output },
          {
            callId: "call_1",
            name: "outcome",
            status: "success",
            output: JSON.parse(JSON.stringify(ToolOutput.json({ rows: 12 })))
          }
        )
      }))
  })
})
