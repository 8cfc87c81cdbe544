import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Logger, Option, Redacted, Schema } from "effect"
import { pipe } from "effect/Function"
import { ToolExecutionError, ToolOutput, ToolResultContent } from "../src/index.ts"

const SECRET = "SECRET:db-password=hunter2 at /srv/app/db.ts:42"

/** The fields of an error as a plain value, to compare errors and to check that builders leave the original alone. */
const fieldsOf = (error: ToolExecutionError.ToolExecutionError) => ({
  kind: error.kind,
  message: error.message,
  modelText: ToolOutput.asText(error.modelOutput),
  modelOutput: error.modelOutput,
  retryable: error.retryable,
  code: error.code,
  httpStatus: error.httpStatus,
  refused: error.refused,
  cause: ToolExecutionError.causeOf(error)
})

describe("ToolExecutionError", () => {
  describe("explicit constructors", () => {
    const cases: ReadonlyArray<
      readonly [string, (message: string) => ToolExecutionError.ToolExecutionError, ToolExecutionError.ToolErrorKind, boolean | undefined]
    > = [
      ["invalidArgs", ToolExecutionError.invalidArgs, "invalid_args", false],
      ["timeout", ToolExecutionError.timeout, "timeout", true],
      ["cancelled", ToolExecutionError.cancelled, "cancelled", false],
      ["notFound", ToolExecutionError.notFound, "not_found", false],
      ["permissionDenied", ToolExecutionError.permissionDenied, "permission_denied", false],
      ["rateLimited", ToolExecutionError.rateLimited, "rate_limited", true],
      ["provider", ToolExecutionError.provider, "provider", undefined],
      ["network", ToolExecutionError.network, "network", true],
      ["other", ToolExecutionError.other, "other", undefined],
      ["make(provider)", (message) => ToolExecutionError.make("provider", message), "provider", undefined],
      ["make(rate_limited)", (message) => ToolExecutionError.make("rate_limited", message), "rate_limited", true]
    ]

    for (const [name, construct, kind, retryable] of cases) {
      it(`${name} makes its message model-visible, with kind ${kind} and retryable ${String(retryable)}`, () => {
        const error = construct("the city name must be a real city; try again with one")
        assert.deepStrictEqual(fieldsOf(error), {
          kind,
          message: "the city name must be a real city; try again with one",
          modelText: Option.some("the city name must be a real city; try again with one"),
          modelOutput: ToolOutput.text("the city name must be a real city; try again with one"),
          retryable,
          code: undefined,
          httpStatus: undefined,
          refused: false,
          cause: undefined
        })
        assert.strictEqual(error._tag, "ToolExecutionError")
        assert.isTrue(ToolExecutionError.isToolExecutionError(error))
      })
    }

    it("make gives every kind its default retryable", () => {
      const retryables = ToolExecutionError.kinds.map((kind) => [kind, ToolExecutionError.make(kind, "m").retryable])
      assert.deepStrictEqual(retryables, [
        ["invalid_args", false],
        ["timeout", true],
        ["cancelled", false],
        ["not_found", false],
        ["permission_denied", false],
        ["rate_limited", true],
        ["provider", undefined],
        ["network", true],
        ["other", undefined]
      ])
    })

    it("timeout and cancelled without a message show the kind's safe default", () => {
      assert.deepStrictEqual(ToolOutput.asText(ToolExecutionError.timeout().modelOutput), Option.some("tool execution timed out"))
      assert.deepStrictEqual(
        ToolOutput.asText(ToolExecutionError.cancelled().modelOutput),
        Option.some("tool execution was cancelled")
      )
    })

    it("refused is a permission_denied error marked refused, with its message model-visible", () => {
      const error = ToolExecutionError.refused("deleting the production database is not allowed")
      assert.deepStrictEqual(fieldsOf(error), {
        kind: "permission_denied",
        message: "deleting the production database is not allowed",
        modelText: Option.some("deleting the production database is not allowed"),
        modelOutput: ToolOutput.text("deleting the production database is not allowed"),
        retryable: false,
        code: undefined,
        httpStatus: undefined,
        refused: true,
        cause: undefined
      })
      assert.isFalse(ToolExecutionError.permissionDenied("no").refused)
    })
  })

  describe("fromError", () => {
    it("passes a ToolExecutionError through as the same object", () => {
      const error = ToolExecutionError.rateLimited("slow down").pipe(ToolExecutionError.withCode("quota"))
      assert.strictEqual(ToolExecutionError.fromError(error), error)
    })

    it("folds an Error into kind other: the model sees the safe default, the cause is kept", () => {
      const cause = new Error(SECRET)
      const error = ToolExecutionError.fromError(cause)
      assert.strictEqual(error.kind, "other")
      assert.deepStrictEqual(ToolOutput.asText(error.modelOutput), Option.some("the tool failed"))
      assert.deepStrictEqual(error.modelOutput, ToolOutput.text("the tool failed"))
      assert.strictEqual(error.retryable, undefined)
      assert.isFalse(error.refused)
      assert.strictEqual(ToolExecutionError.causeOf(error), cause)
      assert.notInclude(error.message, SECRET)
    })

    it("folds tagged errors, strings, numbers, null and plain objects into kind other with the cause kept", () => {
      class Overflow extends Schema.TaggedError<Overflow>()("Overflow", { detail: Schema.String }) {}
      const values: ReadonlyArray<unknown> = [new Overflow({ detail: SECRET }), SECRET, 42, null, { detail: SECRET }]
      for (const value of values) {
        const error = ToolExecutionError.fromError(value)
        assert.deepStrictEqual(
          [error.kind, error.modelOutput, ToolExecutionError.causeOf(error)],
          ["other", ToolOutput.text("the tool failed"), value]
        )
        assert.notInclude(error.message, SECRET)
      }
    })

    it.prop(
      "never shows the model any part of the cause's message, whatever it is",
      [Schema.String],
      ([text]) => {
        const secret = `SECRET:${text}`
        for (const error of [ToolExecutionError.fromError(new Error(secret)), ToolExecutionError.fromError(secret)]) {
          const shown = ToolExecutionError.redact(error).modelOutput
          assert.deepStrictEqual(error.modelOutput, shown)
          assert.notInclude(ToolOutput.render(error.modelOutput), secret)
          assert.notInclude(JSON.stringify(error.modelOutput), JSON.stringify(secret).slice(1, -1))
          assert.notInclude(error.message, secret)
        }
      }
    )
  })

  describe("built from JavaScript", () => {
    /** Fields as JavaScript may pass them, past what the constructor's type allows. */
    const construct = (fields: unknown) => new ToolExecutionError.ToolExecutionError(fields as never)
    const Nested = ToolOutput.content([ToolResultContent.text("see"), ToolResultContent.json({ a: [1] })])

    it("makes every field whole: no fields at all are an error of kind other showing its safe default", () => {
      for (const fields of [undefined, null, {}, 42]) {
        const error = construct(fields)
        assert.deepStrictEqual(fieldsOf(error), {
          kind: "other",
          message: "the tool failed",
          modelText: Option.some("the tool failed"),
          modelOutput: ToolOutput.text("the tool failed"),
          retryable: undefined,
          code: undefined,
          httpStatus: undefined,
          refused: false,
          cause: undefined
        })
        assert.strictEqual(ToolOutput.render(error.modelOutput), "the tool failed")
      }
    })

    it("turns a kind outside the closed set into other, and fields of the wrong type into their defaults", () => {
      const error = construct({
        kind: "exploded",
        message: 42,
        modelOutput: "not an output",
        retryable: "yes",
        code: 7,
        httpStatus: "500",
        refused: "true",
        cause: "the cause"
      })
      assert.deepStrictEqual(fieldsOf(error), {
        kind: "other",
        message: "a ToolExecutionError was built with a message that is a number, not a string",
        modelText: Option.some("the tool failed"),
        modelOutput: ToolOutput.text("the tool failed"),
        retryable: undefined,
        code: undefined,
        httpStatus: undefined,
        refused: false,
        cause: "the cause"
      })
      assert.isTrue(Redacted.isRedacted(error.cause))
      assert.deepStrictEqual(construct({ kind: "timeout", message: "m" }).retryable, true)
    })

    it("shows the kind's safe default for a modelOutput that is missing or holds bad blocks", () => {
      const cyclic: Record<string, unknown> = {}
      cyclic["self"] = cyclic
      const outputs: ReadonlyArray<unknown> = [
        undefined,
        new ToolOutput.ToolOutput([new ToolResultContent.Text({ text: 5 as never })]),
        ToolOutput.json({ n: Number.NaN }),
        ToolOutput.json(cyclic as never),
        new ToolOutput.ToolOutput([] as never),
        { ...ToolOutput.text("a plain object is not an output") },
        new Proxy(ToolOutput.text("x"), {
          get() {
            throw new Error("hunter2secret")
          }
        })
      ]
      for (const modelOutput of outputs) {
        const error = construct({ kind: "rate_limited", message: "m", modelOutput, retryable: true, refused: false })
        assert.deepStrictEqual(error.modelOutput, ToolOutput.text("the tool was rate limited; try again later"))
      }
    })

    it("keeps a valid modelOutput as a frozen copy, which nothing done to the original changes", () => {
      const value = { a: [1] }
      const modelOutput = ToolOutput.json(value)
      const error = construct({ kind: "provider", message: "m", modelOutput, retryable: false, refused: false })
      value.a.push(2)
      assert.deepStrictEqual(error.modelOutput, ToolOutput.json({ a: [1] }))
      assert.isTrue(Object.isFrozen(error.modelOutput))
      assert.deepStrictEqual(ToolExecutionError.withModelOutput(error, Nested).modelOutput, Nested)
    })

    it("reads fields that throw as missing, and never throws itself", () => {
      const fields = {
        kind: "network",
        get message(): string {
          throw new Error("hunter2secret")
        }
      }
      const error = construct(fields)
      assert.deepStrictEqual([error.kind, error.message, error.modelOutput], [
        "network",
        "the tool could not reach its upstream service",
        ToolOutput.text("the tool could not reach its upstream service")
      ])
      const proxied = construct(new Proxy({}, {
        get() {
          throw new Error("hunter2secret")
        }
      }))
      assert.deepStrictEqual([proxied.kind, proxied.message], ["other", "the tool failed"])
    })

    it.effect("stays a yieldable tagged error", () =>
      Effect.gen(function*() {
        const error = construct({ kind: "bogus" })
        const caught = yield* Effect.fail(error).pipe(Effect.catchTag("ToolExecutionError", (e) => Effect.succeed(e.kind)))
        assert.strictEqual(caught, "other")
        const exit = yield* Effect.exit(Effect.gen(function*() {
          yield* error
        }))
        assert.deepStrictEqual(exit, Exit.fail(error))
      }))

    it("fromError makes an error whose fields were changed after it was built whole again", () => {
      const error = ToolExecutionError.rateLimited("slow down")
      const tampered = Object.assign(ToolExecutionError.rateLimited("slow down"), { modelOutput: undefined, kind: "nope" })
      const whole = ToolExecutionError.fromError(tampered)
      assert.notStrictEqual(whole, tampered)
      assert.deepStrictEqual(fieldsOf(whole), {
        ...fieldsOf(error),
        kind: "other",
        retryable: true,
        modelText: Option.some("the tool failed"),
        modelOutput: ToolOutput.text("the tool failed")
      })
      const bare = Object.create(ToolExecutionError.ToolExecutionError.prototype) as ToolExecutionError.ToolExecutionError
      assert.deepStrictEqual(ToolExecutionError.fromError(bare).modelOutput, ToolOutput.text("the tool failed"))
      const blocks = Object.assign(ToolExecutionError.provider("p"), {
        modelOutput: new ToolOutput.ToolOutput([new ToolResultContent.Text({ text: 1 as never })])
      })
      assert.deepStrictEqual(ToolExecutionError.fromError(blocks).modelOutput, ToolOutput.text("the tool provider failed"))
    })

    it("fromError never throws, even for a proxy whose prototype cannot be read", () => {
      const proxy = new Proxy({}, {
        getPrototypeOf() {
          throw new Error("hunter2secret")
        },
        get() {
          throw new Error("hunter2secret")
        }
      })
      const error = ToolExecutionError.fromError(proxy)
      assert.deepStrictEqual([error.kind, error.message], ["other", "tool failed with an unreadable value"])
      const getters = Object.create(ToolExecutionError.ToolExecutionError.prototype, {
        kind: {
          get() {
            throw new Error("hunter2secret")
          }
        }
      })
      assert.deepStrictEqual(
        ToolExecutionError.fromError(getters).message,
        "a ToolExecutionError whose fields could not be read"
      )
    })
  })

  describe("the cause never reaches text output", () => {
    const error = ToolExecutionError.fromError(new Error(SECRET))

    it("String(error) prints kind and message only", () => {
      assert.strictEqual(String(error), `ToolExecutionError(other): ${error.message}`)
      assert.notInclude(String(error), "hunter2")
    })

    it("JSON.stringify(error) prints tag, kind and message only", () => {
      assert.deepStrictEqual(JSON.parse(JSON.stringify(error)), {
        _tag: "ToolExecutionError",
        kind: "other",
        message: error.message
      })
    })

    it("a cause set with withCause stays out of String and JSON.stringify too", () => {
      const withCause = ToolExecutionError.network("upstream unreachable").pipe(
        ToolExecutionError.withCause(new Error(SECRET))
      )
      assert.notInclude(String(withCause), "hunter2")
      assert.notInclude(JSON.stringify(withCause), "hunter2")
    })

    it("Cause.pretty of a failure with the error does not print the cause", () => {
      const pretty = Cause.pretty(Cause.fail(error))
      assert.include(pretty, "ToolExecutionError")
      assert.notInclude(pretty, "hunter2")
    })

    it.effect("Effect's loggers print the error without the cause, as a message and as a Cause", () =>
      Effect.gen(function*() {
        const lines: Array<string> = []
        const capture = Logger.make((options) => {
          lines.push(
            Logger.formatSimple.log(options),
            Logger.formatLogFmt.log(options),
            Logger.formatJson.log(options)
          )
        })
        yield* Effect.gen(function*() {
          yield* Effect.logError("tool failed", error)
          yield* Effect.logError(Cause.fail(error))
          yield* Effect.fail(error).pipe(Effect.tapCause((cause) => Effect.logError("dispatch", cause)), Effect.exit)
          yield* Effect.die(error).pipe(Effect.tapCause((cause) => Effect.logWarning(cause)), Effect.exit)
        }).pipe(Effect.provide(Logger.layer([capture])))
        assert.strictEqual(lines.length, 12)
        for (const line of lines) {
          assert.include(line, "ToolExecutionError")
          assert.notInclude(line, "hunter2")
        }
      }))
  })

  describe("builders", () => {
    const original = ToolExecutionError.fromError(new Error(SECRET))
    const before = fieldsOf(original)

    it("withModelOutput replaces what the model sees, data-first and pipeable, leaving the original alone", () => {
      const output = ToolOutput.json({ retryAfterSeconds: 30 })
      const dataFirst = ToolExecutionError.withModelOutput(original, output)
      const piped = original.pipe(ToolExecutionError.withModelOutput(output))
      assert.deepStrictEqual(fieldsOf(dataFirst), { ...before, modelText: Option.none(), modelOutput: output })
      assert.deepStrictEqual(fieldsOf(piped), fieldsOf(dataFirst))
      assert.notStrictEqual(dataFirst, original)
      assert.deepStrictEqual(fieldsOf(original), before)
    })

    it("withModelFeedback replaces what the model sees with text, data-first and pipeable", () => {
      const dataFirst = ToolExecutionError.withModelFeedback(original, "use an ISO date such as 2024-01-31")
      const piped = pipe(original, ToolExecutionError.withModelFeedback("use an ISO date such as 2024-01-31"))
      assert.deepStrictEqual(fieldsOf(dataFirst), {
        ...before,
        modelText: Option.some("use an ISO date such as 2024-01-31"),
        modelOutput: ToolOutput.text("use an ISO date such as 2024-01-31")
      })
      assert.deepStrictEqual(fieldsOf(piped), fieldsOf(dataFirst))
      assert.deepStrictEqual(fieldsOf(original), before)
    })

    it("redact goes back to the kind's safe default and keeps everything else", () => {
      const visible = ToolExecutionError.rateLimited("quota of 100 calls per minute exhausted").pipe(
        ToolExecutionError.withCode("quota"),
        ToolExecutionError.withHttpStatus(429)
      )
      const visibleBefore = fieldsOf(visible)
      const redacted = ToolExecutionError.redact(visible)
      assert.deepStrictEqual(fieldsOf(redacted), {
        ...visibleBefore,
        modelText: Option.some("the tool was rate limited; try again later"),
        modelOutput: ToolOutput.text("the tool was rate limited; try again later")
      })
      assert.deepStrictEqual(fieldsOf(visible), visibleBefore)
      assert.deepStrictEqual(
        ToolExecutionError.kinds.map((kind) => ToolOutput.render(ToolExecutionError.redact(ToolExecutionError.make(kind, "x")).modelOutput)),
        [
          "tool arguments were invalid",
          "tool execution timed out",
          "tool execution was cancelled",
          "the requested tool or resource was not found",
          "the tool denied the request",
          "the tool was rate limited; try again later",
          "the tool provider failed",
          "the tool could not reach its upstream service",
          "the tool failed"
        ]
      )
    })

    it("redact keeps a refusal a refusal", () => {
      const redacted = ToolExecutionError.redact(ToolExecutionError.refused("not allowed for this user"))
      assert.deepStrictEqual([redacted.kind, redacted.refused, redacted.modelOutput], [
        "permission_denied",
        true,
        ToolOutput.text("the tool denied the request")
      ])
    })

    it("withRetryable, withCode and withHttpStatus set one field each, data-first and pipeable", () => {
      assert.deepStrictEqual(fieldsOf(ToolExecutionError.withRetryable(original, true)), { ...before, retryable: true })
      assert.deepStrictEqual(fieldsOf(original.pipe(ToolExecutionError.withRetryable(false))), {
        ...before,
        retryable: false
      })
      assert.deepStrictEqual(fieldsOf(ToolExecutionError.withCode(original, "E_QUOTA")), { ...before, code: "E_QUOTA" })
      assert.deepStrictEqual(fieldsOf(original.pipe(ToolExecutionError.withCode("E_QUOTA"))), {
        ...before,
        code: "E_QUOTA"
      })
      assert.deepStrictEqual(fieldsOf(ToolExecutionError.withHttpStatus(original, 503)), { ...before, httpStatus: 503 })
      assert.deepStrictEqual(fieldsOf(original.pipe(ToolExecutionError.withHttpStatus(503))), {
        ...before,
        httpStatus: 503
      })
      assert.deepStrictEqual(fieldsOf(original), before)
    })

    it("withCause keeps a new cause for causeOf without changing what the model sees, data-first and pipeable", () => {
      const newCause = new TypeError("socket hang up")
      const base = ToolExecutionError.network("the weather service is unreachable")
      const baseBefore = fieldsOf(base)
      const dataFirst = ToolExecutionError.withCause(base, newCause)
      const piped = base.pipe(ToolExecutionError.withCause(newCause))
      assert.deepStrictEqual(fieldsOf(dataFirst), { ...baseBefore, cause: newCause })
      assert.deepStrictEqual(fieldsOf(piped), fieldsOf(dataFirst))
      assert.deepStrictEqual(fieldsOf(base), baseBefore)
      assert.strictEqual(ToolExecutionError.causeOf(base), undefined)
    })

    it("builders keep the refused flag and the class", () => {
      const refusal = ToolExecutionError.refused("no").pipe(
        ToolExecutionError.withCode("policy"),
        ToolExecutionError.withModelFeedback("ask the user for permission first"),
        ToolExecutionError.withRetryable(false)
      )
      assert.isTrue(ToolExecutionError.isToolExecutionError(refusal))
      assert.deepStrictEqual([refusal.kind, refusal.refused, refusal.code], ["permission_denied", true, "policy"])
    })
  })
})

describe("the safe default outputs", () => {
  it("are shared, frozen, and kept as they are by every error that shows them", () => {
    const first = ToolExecutionError.fromError(new Error("a"))
    const second = ToolExecutionError.makeSafe("other", "b")
    assert.strictEqual(first.modelOutput, second.modelOutput)
    assert.isTrue(Object.isFrozen(first.modelOutput) && Object.isFrozen(first.modelOutput.content))
    assert.isTrue(Object.isFrozen(first.modelOutput.content[0]))
    assert.throws(() => {
      ;(first.modelOutput.content[0] as { text: string }).text = "changed for everyone"
    }, TypeError)
  })
})
