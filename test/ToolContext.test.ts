import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Option, Schema } from "effect"
import * as TestClock from "effect/testing/TestClock"
import { Tool, ToolCall, ToolContext, ToolExecutionError, ToolOutput, ToolResult, ToolSet } from "../src/index.ts"

class Locale extends Context.Service<Locale, string>()("app/Locale") {}
class Audit extends Context.Service<Audit, string>()("app/Audit") {}
class Late extends Context.Service<Late, string>()("app/Late") {}

const call = (name: string, args: unknown = {}, id = "call_1") => ToolCall.make({ id, name, arguments: args })

describe("ToolContext", () => {
  it.effect("callId and toolName are the call's id and the tool's name", () =>
    Effect.gen(function*() {
      const Facts = Tool.make("facts", {
        description: "Report the call facts",
        parameters: Schema.Struct({}),
        call: () =>
          Effect.gen(function*() {
            return { callId: yield* ToolContext.callId, toolName: yield* ToolContext.toolName }
          })
      })
      const set = ToolSet.make(Facts)
      const first = yield* ToolSet.execute(set, call("facts", {}, "call_a1"))
      const second = yield* ToolSet.execute(set, call("facts", {}, "call_b2"))
      assert.deepStrictEqual(first.output, ToolOutput.json({ callId: "call_a1", toolName: "facts" }))
      assert.deepStrictEqual(second.output, ToolOutput.json({ callId: "call_b2", toolName: "facts" }))
    }))

  describe("get", () => {
    const ReadLocale = Tool.make("read_locale", {
      description: "Read the locale if the host gave one",
      parameters: Schema.Struct({}),
      call: () => Effect.map(ToolContext.get(Locale), Option.getOrElse(() => "<none>"))
    })
    const set = ToolSet.make(ReadLocale)

    it.effect("returns Some when the caller provided the value", () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(set, call("read_locale")).pipe(Effect.provideService(Locale, "fr-FR"))
        assert.deepStrictEqual(result.output, ToolOutput.text("fr-FR"))
      }))

    it.effect("returns None when the caller did not", () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(set, call("read_locale"))
        assert.deepStrictEqual(result.output, ToolOutput.text("<none>"))
      }))

    it.effect("returns the value itself, typed by the key", () =>
      Effect.gen(function*() {
        const value = yield* ToolContext.get(Locale).pipe(Effect.provideService(Locale, "de"))
        assert.deepStrictEqual(value, Option.some("de"))
      }))
  })

  describe("require", () => {
    class Boom extends Schema.TaggedError<Boom>()("Boom", {}) {}
    const NeedsLocale = Tool.make("needs_locale", {
      description: "Needs a locale from the host",
      parameters: Schema.Struct({ boom: Schema.optionalKey(Schema.Boolean) }),
      // Would rewrite every failure it sees: a framework error must not reach it.
      mapError: () => ToolExecutionError.other("rewritten by the tool's mapError"),
      call: ({ boom }) =>
        Effect.gen(function*() {
          if (boom === true) return yield* new Boom()
          return yield* ToolContext.require(Locale)
        })
    })
    const set = ToolSet.make(NeedsLocale)

    it.effect("returns the value when the caller provided it", () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(set, call("needs_locale")).pipe(Effect.provideService(Locale, "en-GB"))
        assert.strictEqual(result.status, "success")
        assert.deepStrictEqual(result.output, ToolOutput.text("en-GB"))
      }))

    it.effect("a missing value is kind other with a model-visible message naming the key, bypassing mapError", () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(set, call("needs_locale"))
        const message = "required tool context value `app/Locale` was not found"
        assert.strictEqual(result.status, "error")
        assert.deepStrictEqual(result.output, ToolOutput.text(message))
        assert.isTrue(Option.isSome(result.error))
        const error = Option.getOrThrow(result.error)
        assert.strictEqual(error.kind, "other")
        assert.strictEqual(error.message, message)
        assert.isFalse(error.refused)
      }))

    it.effect("the same tool's own typed failures do go through its mapError", () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(set, call("needs_locale", { boom: true }))
        assert.strictEqual(result.status, "error")
        assert.deepStrictEqual(result.output, ToolOutput.text("rewritten by the tool's mapError"))
      }))

    it.effect("fails with MissingToolContext carrying the key", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(ToolContext.require(Locale))
        assert.instanceOf(error, ToolContext.MissingToolContext)
        assert.strictEqual(error.key, "app/Locale")
        assert.strictEqual(error.message, "required tool context value `app/Locale` was not found")
      }))
  })

  describe("progress", () => {
    /** A tool that reports the given updates, then answers "done". */
    const reporting = (updates: ReadonlyArray<readonly [number, (number | undefined)?, (string | undefined)?]>) =>
      ToolSet.make(Tool.make("report", {
        description: "Report progress",
        parameters: Schema.Struct({}),
        call: () =>
          Effect.as(
            Effect.forEach(updates, ([progress, total, message]) => ToolContext.progress(progress, total, message)),
            "done"
          )
      }))

    /** Runs `effect` with a reporter that keeps every update it gets. */
    const recording = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
      const updates: Array<ToolContext.Progress> = []
      return Effect.map(
        Effect.provideService(effect, ToolContext.ProgressReporter, (update) => Effect.sync(() => updates.push(update))),
        (value) => ({ value, updates })
      )
    }

    it.effect("does nothing where nobody serves progress: the call goes on as usual", () =>
      Effect.gen(function*() {
        const result = yield* ToolSet.execute(reporting([[1, 2, "half"], [2, 2]]), call("report"))
        assert.deepStrictEqual([result.status, result.output], ["success", ToolOutput.text("done")])
      }))

    it.effect("reaches the reporter of the caller, in order, with the total and message as given", () =>
      Effect.gen(function*() {
        const { updates, value } = yield* recording(
          ToolSet.execute(reporting([[1, 3, "read"], [2, undefined, "parsed"], [3, 3]]), call("report"))
        )
        assert.strictEqual(value.status, "success")
        assert.deepStrictEqual(updates, [
          { progress: 1, total: 3, message: "read" },
          { progress: 2, total: undefined, message: "parsed" },
          { progress: 3, total: 3, message: undefined }
        ])
      }))

    it.effect("a progress or total that is not a finite number is not sent", () =>
      Effect.gen(function*() {
        const { updates } = yield* recording(
          ToolSet.execute(reporting([[NaN], [1, Infinity], [-Infinity, 2], [2, 4]]), call("report"))
        )
        assert.deepStrictEqual(updates, [{ progress: 2, total: 4, message: undefined }])
      }))
  })

  describe("insertResult", () => {
    it.effect("inserting the same key twice keeps the last value", () =>
      Effect.gen(function*() {
        const Twice = Tool.make("twice", {
          description: "Insert twice",
          parameters: Schema.Struct({}),
          call: () =>
            Effect.gen(function*() {
              yield* ToolContext.insertResult(Audit, "first")
              yield* ToolContext.insertResult(Audit, "second")
              return "ok"
            })
        })
        const result = yield* ToolSet.execute(ToolSet.make(Twice), call("twice"))
        assert.deepStrictEqual(ToolResult.metadata(result, Audit), Option.some("second"))
      }))

    it.effect("each call starts with no metadata of its own", () =>
      Effect.gen(function*() {
        const Sometimes = Tool.make("sometimes", {
          description: "Insert only when asked",
          parameters: Schema.Struct({ insert: Schema.Boolean }),
          call: ({ insert }) =>
            Effect.gen(function*() {
              if (insert) yield* ToolContext.insertResult(Audit, "inserted")
              return "ok"
            })
        })
        const set = ToolSet.make(Sometimes)
        const first = yield* ToolSet.execute(set, call("sometimes", { insert: true }))
        const second = yield* ToolSet.execute(set, call("sometimes", { insert: false }))
        assert.deepStrictEqual(ToolResult.metadata(first, Audit), Option.some("inserted"))
        assert.deepStrictEqual(ToolResult.metadata(second, Audit), Option.none())
      }))

    it.effect("a call that does not complete leaves no metadata: defect and timeout", () =>
      Effect.gen(function*() {
        const Unfinished = Tool.make("unfinished", {
          description: "Inserts, then dies or hangs",
          parameters: Schema.Struct({ how: Schema.Literals(["die", "hang", "fail"]) }),
          annotations: { timeout: "1 second" },
          call: ({ how }) =>
            Effect.gen(function*() {
              yield* ToolContext.insertResult(Audit, "partial")
              if (how === "die") return yield* Effect.die(new Error("bug"))
              if (how === "fail") return yield* ToolExecutionError.network("upstream down")
              return yield* Effect.never
            })
        })
        const set = ToolSet.make(Unfinished)
        const died = yield* ToolSet.execute(set, call("unfinished", { how: "die" }))
        const failed = yield* ToolSet.execute(set, call("unfinished", { how: "fail" }))
        const hanging = yield* Effect.forkChild(ToolSet.execute(set, call("unfinished", { how: "hang" })))
        yield* TestClock.adjust("2 seconds")
        const timedOut = yield* Fiber.join(hanging)
        assert.deepStrictEqual(
          [died, failed, timedOut].map((result) => [
            Option.map(result.error, (error) => error.kind),
            ToolResult.metadata(result, Audit)
          ]),
          [
            [Option.some("other"), Option.none()],
            [Option.some("network"), Option.some("partial")],
            [Option.some("timeout"), Option.none()]
          ]
        )
      }))

    it.effect("a fiber the tool forked cannot add metadata after the call finished", () =>
      Effect.gen(function*() {
        const release = yield* Deferred.make<void>()
        const forked = yield* Deferred.make<Fiber.Fiber<void>>()
        const Leaky = Tool.make("leaky", {
          description: "Leaves a fiber behind",
          parameters: Schema.Struct({}),
          call: () =>
            Effect.gen(function*() {
              yield* ToolContext.insertResult(Audit, "in time")
              const fiber = yield* Effect.forkDetach(
                Deferred.await(release).pipe(
                  Effect.andThen(ToolContext.insertResult(Audit, "overwritten late")),
                  Effect.andThen(ToolContext.insertResult(Late, "too late"))
                )
              )
              yield* Deferred.succeed(forked, fiber)
              return "done"
            })
        })
        const result = yield* ToolSet.execute(ToolSet.make(Leaky), call("leaky"))
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(yield* Deferred.await(forked))
        assert.deepStrictEqual(ToolResult.metadata(result, Audit), Option.some("in time"))
        assert.deepStrictEqual(ToolResult.metadata(result, Late), Option.none())
      }))
  })
})
