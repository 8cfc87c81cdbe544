import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import {
  Context,
  Deferred,
  Effect,
  Exit,
  Fiber,
  Layer,
  ManagedRuntime,
  Option,
  Schedule,
  Schema,
  Tracer
} from "effect"
import * as TestClock from "effect/testing/TestClock"
import {
  Tool,
  ToolCall,
  ToolContext,
  ToolExecutionError,
  ToolHooks,
  ToolOutput,
  ToolResult,
  ToolServer,
  ToolSet
} from "../src/index.ts"
import { Bank, fileApprovalStore, makeBank, PendingApprovalJson } from "./fixtures/resumeApproval.ts"
import { withoutNegativeZero } from "./support/json.ts"
import { errorField, errorOf, kindOf, summarizeResult } from "./support/results.ts"
import { makeRecorder } from "./support/tracing.ts"

// ---------------------------------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------------------------------

class Tools extends Context.Service<Tools, ToolServer.ToolServer>()("test/Tools") {}

/** Runs `body` against a fresh server built from `options`. */
const withServer = <T extends Tool.Any, H extends ToolHooks.Any, A, E>(
  options: ToolServer.Options<T, H>,
  body: (server: ToolServer.ToolServer) => Effect.Effect<A, E>
) => Effect.flatMap(Tools, body).pipe(Effect.provide(ToolServer.layer(Tools, options)))

/** Executes one call on a fresh server built from `options`. */
const executeOne = <T extends Tool.Any, H extends ToolHooks.Any>(
  options: ToolServer.Options<T, H>,
  toolCall: ToolCall.ToolCall,
  callOptions?: ToolServer.ServerExecuteOptions
) => withServer(options, (server) => server.execute(toolCall, callOptions))

/** Executes `calls` as one batch on a fresh server built from `options`. */
const executeBatch = <T extends Tool.Any, H extends ToolHooks.Any>(
  options: ToolServer.Options<T, H>,
  calls: ReadonlyArray<ToolCall.ToolCall>,
  batchOptions?: ToolServer.ServerExecuteAllOptions
) => withServer(options, (server) => server.executeAll(calls, batchOptions))

const call = (name: string, args: unknown, id = "call_1") => ToolCall.make({ id, name, arguments: args })

/** A tool that echoes its text back and counts how often it ran. */
const makeEcho = (name = "echo", annotations: Tool.Annotations = {}) => {
  let runs = 0
  const tool = Tool.make(name, {
    description: "Echo the text back",
    parameters: Schema.Struct({ text: Schema.String }),
    annotations,
    call: ({ text }) =>
      Effect.sync(() => {
        runs++
        return text
      })
  })
  return { tool, runs: () => runs }
}

const onCall = <R = never>(decide: (event: ToolHooks.CallEvent) => Effect.Effect<ToolHooks.CallDecision, unknown, R>) =>
  ToolHooks.make({ onCall: decide })

const onResult = <R = never>(
  decide: (event: ToolHooks.ResultEvent) => Effect.Effect<ToolHooks.ResultDecision, unknown, R>
) => ToolHooks.make({ onResult: decide })

/** The fields of a result a test asserts on as one value. */
const summarize = (result: ToolResult.ToolResult) => ({
  ...summarizeResult(result),
  refused: errorField(result, "refused")
})

/** What `summarize` gives: the value the expected summaries below are compared with. */
type Summary = ReturnType<typeof summarize>

/**
 * The summary of a call that ended with `status` and answered `modelText`. Only a denial has an error: a refusal of
 * kind permission_denied.
 */
const expectedSummary = (
  status: "success" | "skipped" | "denied",
  callId: string,
  name: string,
  args: unknown,
  modelText: string
): Summary => ({
  callId,
  name,
  arguments: args,
  status,
  kind: status === "denied" ? "permission_denied" : undefined,
  refused: status === "denied" ? true : undefined,
  modelText
})

/** What the model sees for an error of kind `other`: the kind's safe default, nothing of the hook's failure. */
const otherOutput = ToolOutput.text(ToolExecutionError.safeDefault("other"))

/** The error an Effect failed with (it must fail with one). */
const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<E, never, R> =>
  Effect.flatMap(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) return Effect.die(new Error("expected a failure, got a success"))
    const error = Exit.findErrorOption(exit)
    return Option.isSome(error) ? Effect.succeed(error.value) : Effect.die(new Error("expected a typed failure"))
  })

class RowsRead extends Context.Service<RowsRead, number>()("test/RowsRead") {}

// Accept only what needs nothing more: the `@ts-expect-error` lines below rest on this.
const buildable = <A, E>(_layer: Layer.Layer<A, E, never>): void => undefined

// ---------------------------------------------------------------------------------------------------------------------
// onCall
// ---------------------------------------------------------------------------------------------------------------------

describe("onCall decisions", () => {
  it.effect("run: the tool runs with its arguments; the hook sees the call, the tool, the parsed arguments", () =>
    Effect.gen(function*() {
      const echo = makeEcho("echo", { readOnly: true })
      const events: Array<ToolHooks.CallEvent> = []
      const result = yield* executeOne(
        {
          tools: ToolSet.make(echo.tool),
          hooks: [onCall((event) => Effect.sync(() => (events.push(event), ToolHooks.run)))]
        },
        call("echo", "{\"text\":\"hi\"}", "call_run")
      )
      assert.deepStrictEqual(summarize(result), expectedSummary("success", "call_run", "echo", { text: "hi" }, "hi"))
      assert.strictEqual(echo.runs(), 1)
      assert.strictEqual(events.length, 1)
      const event = events[0]!
      assert.deepStrictEqual(event.call, { id: "call_run", name: "echo", arguments: "{\"text\":\"hi\"}" })
      assert.deepStrictEqual(event.arguments, { text: "hi" })
      assert.deepStrictEqual([event.tool.name, event.tool.annotations.readOnly], ["echo", true])
      assert.deepStrictEqual([event.attempt, event.approved], [1, false])
    }))

  it.effect("rewrite: later hooks see the rewritten arguments, the tool runs with them, result.arguments shows them", () =>
    Effect.gen(function*() {
      const echo = makeEcho()
      const seen: Array<unknown> = []
      const result = yield* executeOne(
        {
          tools: ToolSet.make(echo.tool),
          hooks: [
            onCall(() => Effect.succeed(ToolHooks.rewrite({ text: "rewritten" }))),
            onCall((event) => Effect.sync(() => (seen.push(event.arguments), ToolHooks.run)))
          ]
        },
        call("echo", { text: "original" })
      )
      assert.deepStrictEqual(seen, [{ text: "rewritten" }])
      assert.deepStrictEqual(
        summarize(result),
        expectedSummary("success", "call_1", "echo", { text: "rewritten" }, "rewritten")
      )
      assert.strictEqual(echo.runs(), 1)
    }))

  it.effect("rewrite: arguments rewritten into ones that cannot run give invalid_args, and the tool never runs", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, unknown]> = [
        ["a value the Schema rejects", { text: 42 }],
        ["not an object", [1, 2, 3]],
        ["a number", 42],
        ["JSON text that does not parse", "{\"text\":"],
        ["too deep for the call's limits", { text: "deep", extra: { a: { b: { c: {} } } } }]
      ]
      for (const [label, rewritten] of cases) {
        const echo = makeEcho()
        const result = yield* executeOne(
          { tools: ToolSet.make(echo.tool), hooks: [onCall(() => Effect.succeed(ToolHooks.rewrite(rewritten)))] },
          call("echo", { text: "fine" }),
          { maxArgumentDepth: 3 }
        )
        assert.deepStrictEqual([result.status, errorOf(result).kind], ["error", "invalid_args"], label)
        assert.strictEqual(echo.runs(), 0, label)
      }
    }))

  it.effect("rewrite: result.arguments shows the rewritten arguments the Schema rejected", () =>
    Effect.gen(function*() {
      const echo = makeEcho()
      const result = yield* executeOne(
        { tools: ToolSet.make(echo.tool), hooks: [onCall(() => Effect.succeed(ToolHooks.rewrite({ text: 42 })))] },
        call("echo", { text: "fine" })
      )
      assert.deepStrictEqual(result.arguments, { text: 42 })
      assert.strictEqual(errorOf(result).kind, "invalid_args")
    }))

  it.effect("skip: status skipped, the reason is the output, no error, and the tool never runs", () =>
    Effect.gen(function*() {
      const echo = makeEcho()
      const result = yield* executeOne(
        {
          tools: ToolSet.make(echo.tool),
          hooks: [onCall(() => Effect.succeed(ToolHooks.skip("already answered earlier in the conversation")))]
        },
        call("echo", { text: "hi" }, "call_skip")
      )
      assert.deepStrictEqual(
        summarize(result),
        expectedSummary("skipped", "call_skip", "echo", { text: "hi" }, "already answered earlier in the conversation")
      )
      assert.deepStrictEqual(result.output, ToolOutput.text("already answered earlier in the conversation"))
      assert.strictEqual(echo.runs(), 0)
    }))

  it.effect("deny: status denied, kind permission_denied, refused, the reason is the output; the tool never runs", () =>
    Effect.gen(function*() {
      const echo = makeEcho()
      const result = yield* executeOne(
        { tools: ToolSet.make(echo.tool), hooks: [onCall(() => Effect.succeed(ToolHooks.deny("not on weekends")))] },
        call("echo", { text: "hi" }, "call_deny")
      )
      assert.deepStrictEqual(
        summarize(result),
        expectedSummary("denied", "call_deny", "echo", { text: "hi" }, "not on weekends")
      )
      assert.strictEqual(echo.runs(), 0)
    }))

  it.effect("stop: execute fails with ToolRunStopped carrying the reason; the tool never runs", () =>
    Effect.gen(function*() {
      const echo = makeEcho()
      const stopped = yield* failureOf(executeOne(
        { tools: ToolSet.make(echo.tool), hooks: [onCall(() => Effect.succeed(ToolHooks.stop("budget spent")))] },
        call("echo", { text: "hi" }, "call_stop")
      ))
      assert.instanceOf(stopped, ToolHooks.ToolRunStopped)
      assert.strictEqual(stopped.reason, "budget spent")
      // The stopping call itself is answered, so that the model's call is not left without a result.
      assert.deepStrictEqual(
        stopped.results.map(summarize),
        [expectedSummary("skipped", "call_stop", "echo", { text: "hi" }, "budget spent")]
      )
      assert.strictEqual(echo.runs(), 0)
    }))

  it.effect("a decision that ends the chain (skip, deny, stop) is final: later hooks are not asked", () =>
    Effect.gen(function*() {
      const decisions = [ToolHooks.skip("s"), ToolHooks.deny("d"), ToolHooks.stop("t")]
      for (const decision of decisions) {
        let asked = 0
        const echo = makeEcho()
        yield* withServer(
          {
            tools: ToolSet.make(echo.tool),
            hooks: [
              onCall(() => Effect.succeed(decision)),
              onCall(() => Effect.sync(() => (asked++, ToolHooks.run)))
            ]
          },
          (server) => Effect.exit(server.execute(call("echo", { text: "hi" })))
        )
        assert.deepStrictEqual([asked, echo.runs()], [0, 0], decision._tag)
      }
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// onResult
// ---------------------------------------------------------------------------------------------------------------------

const Query = Tool.make("query", {
  description: "Read rows; records how many it read",
  parameters: Schema.Struct({ table: Schema.String }),
  call: ({ table }) =>
    Effect.gen(function*() {
      yield* ToolContext.insertResult(RowsRead, 42)
      if (table === "quota") return yield* ToolExecutionError.rateLimited("the upstream quota is exhausted")
      return `rows of ${table}: alice@example.com, bob@example.com`
    })
})

describe("onResult decisions", () => {
  it.effect("keep: the result is the one the hook saw", () =>
    Effect.gen(function*() {
      const seen: Array<ToolHooks.ResultEvent> = []
      const result = yield* executeOne(
        { tools: ToolSet.make(Query), hooks: [onResult((event) => Effect.sync(() => (seen.push(event), ToolHooks.keep)))] },
        call("query", { table: "users" }, "call_keep")
      )
      assert.strictEqual(seen.length, 1)
      assert.deepStrictEqual(seen[0]!.call, { id: "call_keep", name: "query", arguments: { table: "users" } })
      assert.deepStrictEqual(seen[0]!.result, result)
      assert.deepStrictEqual(
        [result.status, ToolOutput.asText(result.output), ToolResult.metadata(result, RowsRead)],
        ["success", Option.some("rows of users: alice@example.com, bob@example.com"), Option.some(42)]
      )
    }))

  it.effect("every result the host gets back is seen, that of a list of calls that could not be read to its end too", () =>
    Effect.gen(function*() {
      const echo = makeEcho()
      const seen: Array<string> = []
      const audit = onResult((event) =>
        Effect.sync(() => {
          seen.push(event.result.callId)
          return ToolHooks.rewriteOutput(ToolOutput.text(`[audited] ${ToolOutput.render(event.result.output)}`))
        })
      )
      function* calls() {
        yield call("echo", { text: "a" }, "a")
        throw new Error("the list broke")
      }
      const results = yield* withServer({ tools: ToolSet.make(echo.tool), hooks: [audit] }, (server) =>
        server.executeAll(calls()))
      assert.deepStrictEqual(seen, ["a", ""])
      assert.deepStrictEqual(results.map((result) => [result.callId, result.status, kindOf(result)]), [
        ["a", "success", undefined],
        ["", "error", "invalid_args"]
      ])
      assert.match(ToolOutput.render(results[1]!.output), /^\[audited\] the list of tool calls could not be read/)
    }))

  it.effect("rewriteOutput on a success changes the output; status, error and metadata stay", () =>
    Effect.gen(function*() {
      const result = yield* executeOne(
        {
          tools: ToolSet.make(Query),
          hooks: [onResult(() => Effect.succeed(ToolHooks.rewriteOutput(ToolOutput.text("[redacted]"))))]
        },
        call("query", { table: "users" }, "call_redact")
      )
      assert.deepStrictEqual(
        summarize(result),
        expectedSummary("success", "call_redact", "query", { table: "users" }, "[redacted]")
      )
      assert.deepStrictEqual(result.output, ToolOutput.text("[redacted]"))
      assert.deepStrictEqual(result.error, Option.none())
      assert.deepStrictEqual(ToolResult.metadata(result, RowsRead), Option.some(42))
    }))

  it.effect("rewriteOutput on an error changes the output; status, error and metadata stay", () =>
    Effect.gen(function*() {
      const [plain, rewritten] = yield* Effect.all([
        executeOne({ tools: ToolSet.make(Query) }, call("query", { table: "quota" })),
        executeOne(
          {
            tools: ToolSet.make(Query),
            hooks: [onResult(() => Effect.succeed(ToolHooks.rewriteOutput(ToolOutput.json({ retryInSeconds: 30 }))))]
          },
          call("query", { table: "quota" })
        )
      ])
      assert.deepStrictEqual(rewritten.output, ToolOutput.json({ retryInSeconds: 30 }))
      assert.strictEqual(rewritten.status, "error")
      assert.deepStrictEqual(rewritten.error, plain.error)
      assert.deepStrictEqual(
        [errorOf(rewritten).kind, errorOf(rewritten).message],
        ["rate_limited", "the upstream quota is exhausted"]
      )
      assert.deepStrictEqual(ToolResult.metadata(rewritten, RowsRead), Option.some(42))
    }))

  it.effect("rewriteOutput into something that is not a ToolOutput gives kind other", () =>
    Effect.gen(function*() {
      const result = yield* executeOne(
        {
          tools: ToolSet.make(Query),
          hooks: [
            onResult(() => Effect.succeed(ToolHooks.rewriteOutput("plain text" as unknown as ToolOutput.ToolOutput)))
          ]
        },
        call("query", { table: "users" })
      )
      assert.deepStrictEqual([result.status, errorOf(result).kind], ["error", "other"])
      assert.deepStrictEqual(result.output, otherOutput)
    }))

  it.effect("stop: execute fails with ToolRunStopped holding the finished result", () =>
    Effect.gen(function*() {
      const echo = makeEcho()
      const stopped = yield* failureOf(executeOne(
        { tools: ToolSet.make(echo.tool), hooks: [onResult(() => Effect.succeed(ToolHooks.stop("enough for today")))] },
        call("echo", { text: "hi" }, "call_done")
      ))
      assert.strictEqual(stopped.reason, "enough for today")
      assert.deepStrictEqual(
        stopped.results.map(summarize),
        [expectedSummary("success", "call_done", "echo", { text: "hi" }, "hi")]
      )
      assert.strictEqual(echo.runs(), 1)
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// order and services
// ---------------------------------------------------------------------------------------------------------------------

class Blocklist extends Context.Service<Blocklist, ReadonlySet<string>>()("test/Blocklist") {}
class AuditLog extends Context.Service<AuditLog, Array<string>>()("test/AuditLog") {}
class Approver extends Context.Service<Approver, { readonly name: string }>()("test/Approver") {}
class CurrentUser extends Context.Service<CurrentUser, { readonly id: string }>()("test/CurrentUser") {}

class UserTools extends Context.Service<UserTools, ToolServer.ToolServer<CurrentUser>>()("test/UserTools") {}

const blocklist = onCall((event) =>
  Effect.map(Blocklist, (blocked) => blocked.has(event.tool.name) ? ToolHooks.deny("blocked") : ToolHooks.run)
)

const audit = ToolHooks.make({
  onResult: (event) => Effect.map(AuditLog, (log) => (log.push(event.result.callId), ToolHooks.keep))
})

const byUser = ToolHooks.make({
  onCall: (event) =>
    Effect.map(CurrentUser, (user) => user.id === "guest" ? ToolHooks.deny(`${event.tool.name}: guests may not`) : ToolHooks.run)
})

describe("order and services", () => {
  it.effect("hooks run in order: every onCall, the tool, every onResult; each sees what the one before it left", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const Logged = Tool.make("logged", {
        description: "Logs that it ran",
        parameters: Schema.Struct({}),
        call: () => Effect.sync(() => (log.push("tool"), "ran"))
      })
      const hook = (name: string, output: string) =>
        ToolHooks.make({
          onCall: () => Effect.sync(() => (log.push(`${name}:call`), ToolHooks.run)),
          onResult: (event) =>
            Effect.sync(() => {
              log.push(`${name}:result saw ${Option.getOrElse(ToolOutput.asText(event.result.output), () => "?")}`)
              return ToolHooks.rewriteOutput(ToolOutput.text(output))
            })
        })
      const result = yield* executeOne(
        { tools: ToolSet.make(Logged), hooks: [hook("first", "one"), hook("second", "two"), hook("third", "three")] },
        call("logged", {})
      )
      assert.deepStrictEqual(log, [
        "first:call",
        "second:call",
        "third:call",
        "tool",
        "first:result saw ran",
        "second:result saw one",
        "third:result saw two"
      ])
      assert.deepStrictEqual(result.output, ToolOutput.text("three"))
    }))

  it("the services hooks use join the layer's requirements; per-call ones join execute's instead (types)", () => {
    expectTypeOf(blocklist).toEqualTypeOf<ToolHooks.ToolHooks<Blocklist>>()
    const guarded = ToolServer.layer(Tools, { tools: ToolSet.make(Query), hooks: [blocklist, audit] })
    expectTypeOf(guarded).toEqualTypeOf<Layer.Layer<Tools, never, Blocklist | AuditLog>>()
    // @ts-expect-error the blocklist and the audit log are requirements of building the layer
    buildable(guarded)
    // @ts-expect-error providing the blocklist alone is not enough
    buildable(guarded.pipe(Layer.provide(Layer.succeed(Blocklist)(new Set<string>()))))
    buildable(
      guarded.pipe(Layer.provide(Layer.succeed(Blocklist)(new Set<string>())), Layer.provide(Layer.succeed(AuditLog)([])))
    )
    const approvals = ToolHooks.approval({
      decide: () => Effect.map(Approver, (approver) => approver.name === "" ? ToolHooks.defer : ToolHooks.approve)
    })
    expectTypeOf(approvals).toEqualTypeOf<ToolHooks.ToolHooks<Approver>>()
    const approved = ToolServer.layer(Tools, { tools: ToolSet.make(Query), hooks: [approvals] })
    expectTypeOf(approved).toEqualTypeOf<Layer.Layer<Tools, never, Approver>>()
    // @ts-expect-error the approver is a requirement of building the layer
    buildable(approved)
    // A hook's per-call service is not the layer's: each execute brings it.
    const perUser = ToolServer.layer(UserTools, { tools: ToolSet.make(Query), hooks: [byUser, blocklist] })
    expectTypeOf(perUser).toEqualTypeOf<Layer.Layer<UserTools, never, Blocklist>>()
    expectTypeOf<UserTools["Service"]["execute"]>().returns.toEqualTypeOf<
      Effect.Effect<ToolResult.ToolResult, ToolHooks.ToolRunStopped, CurrentUser>
    >()
  })

  it.effect("a hook sees the services captured by the layer and the per-call values of each execute", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const layer = ToolServer.layer(UserTools, { tools: ToolSet.make(Query), hooks: [blocklist, byUser, audit] }).pipe(
        Layer.provide(Layer.succeed(Blocklist)(new Set(["nothing_blocked"]))),
        Layer.provide(Layer.succeed(AuditLog)(log))
      )
      const results = yield* Effect.gen(function*() {
        const server = yield* UserTools
        const member = yield* server.execute(call("query", { table: "users" }, "call_member")).pipe(
          Effect.provideService(CurrentUser, { id: "member" })
        )
        const guest = yield* server.execute(call("query", { table: "users" }, "call_guest")).pipe(
          Effect.provideService(CurrentUser, { id: "guest" })
        )
        return [member, guest]
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(results.map((result) => [result.callId, result.status]), [
        ["call_member", "success"],
        ["call_guest", "denied"]
      ])
      assert.deepStrictEqual(ToolOutput.asText(results[1]!.output), Option.some("query: guests may not"))
      assert.deepStrictEqual(log, ["call_member", "call_guest"])
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// hooks that misbehave
// ---------------------------------------------------------------------------------------------------------------------

const boom = new Error("the policy service is down")

/** A hook's misbehaviour, and what the result's error must keep of it for operators. */
interface Misbehaviour {
  readonly label: string
  readonly run: () => unknown
  readonly checkCause: (error: ToolExecutionError.ToolExecutionError) => void
}

const keepsBoom = (error: ToolExecutionError.ToolExecutionError) =>
  assert.strictEqual(ToolExecutionError.causeOf(error), boom)

const misbehaviours: ReadonlyArray<Misbehaviour> = [
  { label: "fails", run: () => Effect.fail(boom), checkCause: keepsBoom },
  { label: "dies", run: () => Effect.die(boom), checkCause: keepsBoom },
  { label: "fails after a fiber step", run: () => Effect.flatMap(Effect.yieldNow, () => Effect.fail(boom)), checkCause: keepsBoom },
  {
    label: "throws synchronously",
    run: () => {
      throw boom
    },
    checkCause: keepsBoom
  },
  {
    label: "returns a Promise, not an Effect",
    run: () => Promise.resolve(ToolHooks.run),
    checkCause: (error) => assert.instanceOf(ToolExecutionError.causeOf(error), TypeError)
  },
  {
    label: "returns undefined",
    run: () => undefined,
    checkCause: (error) => assert.instanceOf(ToolExecutionError.causeOf(error), TypeError)
  },
  {
    label: "returns a decision that is not one",
    run: () => Effect.succeed({ _tag: "Launch", reason: 1 }),
    checkCause: (error) => assert.match(error.message, /not a decision/)
  },
  {
    label: "returns no decision at all",
    run: () => Effect.succeed(null),
    checkCause: (error) => assert.match(error.message, /not a decision/)
  }
]

/**
 * A hook's decision function that misbehaves for the call `bad` and decides `otherwise` for every other call. The cast
 * is the point: a misbehaviour is what the types would not let a hook return.
 */
const misbehavingAtBad = <D>(misbehaviour: Misbehaviour, otherwise: D) =>
  ((event: { readonly call: ToolCall.ToolCall }) =>
    event.call.id === "bad" ? misbehaviour.run() : Effect.succeed(otherwise)) as (event: {
      readonly call: ToolCall.ToolCall
    }) => Effect.Effect<D>

/**
 * Runs the calls `ok_1`, `bad` and `ok_2` of the tool `name` (with `args` in that order) as one batch, checks that only
 * `bad` failed, with kind other and the kind's safe default as its output, and gives back the results.
 */
const runAroundBadCall = <T extends Tool.Any, H extends ToolHooks.Any>(
  options: ToolServer.Options<T, H>,
  name: string,
  args: readonly [unknown, unknown, unknown]
) =>
  Effect.gen(function*() {
    const results = yield* executeBatch(options, [
      call(name, args[0], "ok_1"),
      call(name, args[1], "bad"),
      call(name, args[2], "ok_2")
    ])
    assert.deepStrictEqual(results.map((result) => [result.callId, result.status, kindOf(result)]), [
      ["ok_1", "success", undefined],
      ["bad", "error", "other"],
      ["ok_2", "success", undefined]
    ])
    assert.deepStrictEqual(results[1]!.output, otherOutput)
    return results
  })

describe("a hook that misbehaves", () => {
  for (const misbehaviour of misbehaviours) {
    it.effect(`onCall ${misbehaviour.label}: that call is other, its tool never runs, the batch goes on`, () =>
      Effect.gen(function*() {
        const echo = makeEcho()
        const hook = ToolHooks.make({ onCall: misbehavingAtBad(misbehaviour, ToolHooks.run) })
        const results = yield* runAroundBadCall({ tools: ToolSet.make(echo.tool), hooks: [hook] }, "echo", [
          { text: "first" },
          { text: "second" },
          { text: "third" }
        ])
        assert.deepStrictEqual(results.map((result) => ToolOutput.asText(result.output)), [
          Option.some("first"),
          Option.some(ToolExecutionError.safeDefault("other")),
          Option.some("third")
        ])
        misbehaviour.checkCause(errorOf(results[1]!))
        assert.strictEqual(echo.runs(), 2)
      }))

    it.effect(`onResult ${misbehaviour.label}: that call is other, the batch goes on`, () =>
      Effect.gen(function*() {
        const hook = ToolHooks.make({ onResult: misbehavingAtBad(misbehaviour, ToolHooks.keep) })
        const results = yield* runAroundBadCall({ tools: ToolSet.make(Query), hooks: [hook] }, "query", [
          { table: "a" },
          { table: "b" },
          { table: "c" }
        ])
        misbehaviour.checkCause(errorOf(results[1]!))
      }))
  }

  it.effect("an onCall hook interrupted on its own gives that call other, and the batch goes on", () =>
    Effect.gen(function*() {
      const echo = makeEcho()
      const results = yield* withServer(
        {
          tools: ToolSet.make(echo.tool),
          hooks: [onCall((event) => event.call.id === "bad" ? Effect.interrupt : Effect.succeed(ToolHooks.run))]
        },
        (server) => server.executeAll([call("echo", { text: "a" }, "bad"), call("echo", { text: "b" }, "ok")])
      )
      assert.deepStrictEqual(results.map((result) => [result.callId, result.status, kindOf(result)]), [
        ["bad", "error", "other"],
        ["ok", "success", undefined]
      ])
      assert.strictEqual(echo.runs(), 1)
    }))
})


// ---------------------------------------------------------------------------------------------------------------------
// stop
// ---------------------------------------------------------------------------------------------------------------------

/**
 * A tool whose call signals `started` and then waits for `release`: while it waits, it is provably in flight.
 */
const makeSlow = (
  started: Deferred.Deferred<void>,
  release: Deferred.Deferred<void>,
  annotations: Tool.Annotations = {}
) => {
  let runs = 0
  let finished = 0
  const tool = Tool.make("slow", {
    description: "Waits to be released",
    parameters: Schema.Struct({}),
    annotations,
    call: () =>
      Effect.gen(function*() {
        runs++
        yield* Deferred.succeed(started, undefined)
        yield* Deferred.await(release)
        finished++
        return "slow done"
      })
  })
  return { tool, runs: () => runs, finished: () => finished }
}

/**
 * Hooks that stop the batch at the call `stop`, once the slow call is in flight, and release the slow call only
 * after the stop: the slow call is in flight when the batch stops, and finishes afterwards.
 */
const stopWhileSlowRuns = (
  started: Deferred.Deferred<void>,
  release: Deferred.Deferred<void>,
  stage: "onCall" | "onResult",
  asked: Array<string> = []
) =>
  ToolHooks.make({
    onCall: (event) => {
      asked.push(event.call.id)
      return event.call.id === "stop" && stage === "onCall"
        ? Effect.as(Deferred.await(started), ToolHooks.stop("the user pressed stop"))
        : Effect.succeed(ToolHooks.run)
    },
    onResult: (event) => {
      if (event.call.id !== "stop") return Effect.succeed(ToolHooks.keep)
      const decision = stage === "onResult" ? ToolHooks.stop("the user pressed stop") : ToolHooks.keep
      const waitForSlow = stage === "onResult" ? Deferred.await(started) : Effect.void
      return Effect.andThen(waitForSlow, Effect.as(Deferred.succeed(release, undefined), decision))
    }
  })

describe("stop", () => {
  for (const stage of ["onCall", "onResult"] as const) {
    it.effect(`${stage} stop in executeAll: calls not started never run, calls in flight finish, results in call order`, () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const slow = makeSlow(started, release)
        const later = makeEcho("later")
        const asked: Array<string> = []
        const stopped = yield* withServer(
          { tools: ToolSet.make(slow.tool, later.tool), hooks: [stopWhileSlowRuns(started, release, stage, asked)] },
          (server) =>
            failureOf(server.executeAll([
              call("slow", {}, "slow"),
              call("later", { text: "the stopper" }, "stop"),
              call("later", { text: "never" }, "later_1"),
              call("later", { text: "never either" }, "later_2")
            ], { concurrency: 2 }))
        )
        assert.instanceOf(stopped, ToolHooks.ToolRunStopped)
        assert.strictEqual(stopped.reason, "the user pressed stop")
        // The slow call finished after the stopper, and still comes first: call order, not finishing order.
        assert.deepStrictEqual(stopped.results.map((result) => [result.callId, result.status]), [
          ["slow", "success"],
          ["stop", stage === "onCall" ? "skipped" : "success"]
        ])
        assert.deepStrictEqual(ToolOutput.asText(stopped.results[0]!.output), Option.some("slow done"))
        assert.strictEqual(slow.finished(), 1)
        // Only the stopper itself may have run, and only when it was stopped after running.
        assert.strictEqual(later.runs(), stage === "onCall" ? 0 : 1)
        // The calls that never started were not shown to the hooks either.
        assert.deepStrictEqual(asked, ["slow", "stop"])
      }))
  }

  // The permit is the server's (`concurrency`) or the tool's own (its `concurrency` annotation): a call that waits for
  // one has passed its hooks, but its tool has not started.
  for (const limit of ["server", "tool"] as const) {
    it.effect(`a call still waiting for a ${limit} permit when the batch stops never runs, and has no result`, () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const slow = makeSlow(started, release, limit === "tool" ? { concurrency: 1 } : {})
        const stopper = makeEcho("stopper")
        const stopped = yield* withServer(
          {
            tools: ToolSet.make(slow.tool, stopper.tool),
            hooks: [stopWhileSlowRuns(started, release, "onCall")],
            ...(limit === "server" ? { concurrency: 1 } : {})
          },
          (server) =>
            failureOf(server.executeAll([
              call("slow", {}, "slow"),
              call("slow", {}, "queued"),
              call("stopper", { text: "the stopper" }, "stop")
            ]))
        )
        assert.strictEqual(stopped.reason, "the user pressed stop")
        assert.deepStrictEqual([slow.runs(), slow.finished(), stopper.runs()], [1, 1, 0])
        assert.deepStrictEqual(stopped.results.map((result) => [result.callId, result.status]), [
          ["slow", "success"],
          ["stop", "skipped"]
        ])
      }))
  }

  it.effect("a call whose onCall hooks are still deciding when the batch stops never runs, and has no result", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const echo = makeEcho()
      const hook = ToolHooks.make({
        onCall: (event) =>
          event.call.id === "stop"
            ? Effect.succeed(ToolHooks.stop("halt"))
            : Effect.as(Deferred.await(gate), ToolHooks.run),
        // The deciding call is let through only once the batch has stopped.
        onResult: (event) =>
          event.call.id === "stop" ? Effect.as(Deferred.succeed(gate, undefined), ToolHooks.keep) : Effect.succeed(ToolHooks.keep)
      })
      const stopped = yield* withServer(
        { tools: ToolSet.make(echo.tool), hooks: [hook] },
        (server) =>
          failureOf(server.executeAll([call("echo", { text: "deciding" }, "deciding"), call("echo", { text: "s" }, "stop")]))
      )
      assert.strictEqual(echo.runs(), 0)
      assert.deepStrictEqual(stopped.results.map((result) => [result.callId, result.status]), [["stop", "skipped"]])
    }))

  it.effect("calls of other batches are not stopped", () =>
    Effect.gen(function*() {
      const echo = makeEcho()
      const results = yield* withServer(
        {
          tools: ToolSet.make(echo.tool),
          hooks: [onCall((event) => Effect.succeed(event.call.id === "stop" ? ToolHooks.stop("halt") : ToolHooks.run))]
        },
        (server) =>
          Effect.gen(function*() {
            const first = yield* Effect.exit(server.executeAll([call("echo", { text: "x" }, "stop")]))
            assert.isTrue(Exit.isFailure(first))
            return yield* server.executeAll([call("echo", { text: "a" }, "a"), call("echo", { text: "b" }, "b")])
          })
      )
      assert.deepStrictEqual(results.map((result) => [result.callId, result.status]), [["a", "success"], ["b", "success"]])
      assert.strictEqual(echo.runs(), 2)
    }))

  it.effect("a stop ends its batch at once: a call waiting for a permit never runs, however long the holder runs", () =>
    Effect.gen(function*() {
      const holder = Tool.make("hold", {
        description: "Runs until interrupted",
        parameters: Schema.Struct({}),
        call: () => Effect.never
      })
      const waiting = makeEcho("waiting")
      const stopper = onCall((event) =>
        Effect.succeed(event.tool.name === "stopper" ? ToolHooks.stop("the user pressed stop") : ToolHooks.run)
      )
      const stopperTool = makeEcho("stopper")
      yield* withServer(
        { tools: ToolSet.make(holder, waiting.tool, stopperTool.tool), hooks: [stopper], concurrency: 1 },
        (server) =>
          Effect.gen(function*() {
            // Another request holds the server's one permit, and never gives it back.
            const other = yield* Effect.forkChild(server.execute(call("hold", {}, "other")))
            yield* Effect.yieldNow
            const stopped = yield* failureOf(server.executeAll([
              call("waiting", { text: "never" }, "waiting"),
              call("stopper", { text: "stop" }, "stop")
            ]))
            assert.instanceOf(stopped, ToolHooks.ToolRunStopped)
            const answered = stopped.results.map((result) => [result.callId, result.status])
            assert.deepStrictEqual(answered, [["stop", "skipped"]])
            // The permit is the holder's still; the stopped call took none, nor holds a place in line.
            yield* Fiber.interrupt(other)
            const after = yield* server.execute(call("waiting", { text: "after" }, "after"))
            assert.strictEqual(after.status, "success")
          })
      )
      assert.strictEqual(waiting.runs(), 1)
    }))

  it.effect("a stop ends a retry's wait: the call keeps the result it has, and its hooks are not asked again", () =>
    Effect.gen(function*() {
      let runs = 0
      const flaky = Tool.make("flaky", {
        description: "Fails with a retryable error",
        parameters: Schema.Struct({}),
        call: () => Effect.suspend(() => Effect.fail(ToolExecutionError.network(`down ${++runs}`)))
      })
      const stopperTool = makeEcho("stopper")
      const asked: Array<string> = []
      const stopper = onCall((event): Effect.Effect<ToolHooks.CallDecision> => {
        asked.push(`${event.tool.name}#${event.attempt}`)
        // The stop comes while the flaky call waits a minute before its second attempt.
        return event.tool.name === "stopper"
          ? Effect.as(Effect.sleep("1 second"), ToolHooks.stop("the user pressed stop"))
          : Effect.succeed(ToolHooks.run)
      })
      const fiber = yield* Effect.forkChild(withServer(
        {
          tools: ToolSet.make(flaky, stopperTool.tool),
          hooks: [stopper],
          retry: Schedule.max([Schedule.spaced("1 minute"), Schedule.recurs(3)])
        },
        (server) => failureOf(server.executeAll([call("flaky", {}, "f"), call("stopper", { text: "x" }, "s")]))
      ))
      yield* TestClock.adjust("1 second")
      const stopped = yield* Fiber.join(fiber)
      assert.instanceOf(stopped, ToolHooks.ToolRunStopped)
      assert.deepStrictEqual(
        stopped.results.map((result) => [result.callId, result.status, result.attempts]),
        [["f", "error", 1], ["s", "skipped", 1]]
      )
      assert.deepStrictEqual([runs, asked], [1, ["flaky#1", "stopper#1"]])
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// approval
// ---------------------------------------------------------------------------------------------------------------------

const makeTools = () => {
  const plain = makeEcho("plain")
  const wipe = makeEcho("wipe", { destructive: true })
  const publish = makeEcho("publish", { needsApproval: true })
  return {
    set: ToolSet.make(plain.tool, wipe.tool, publish.tool),
    runs: () => ({ plain: plain.runs(), wipe: wipe.runs(), publish: publish.runs() })
  }
}

/** A call of each tool of `makeTools`, in order, with the texts given: their ids are `p`, `w` and `u`. */
const oneCallOfEach = (plain: string, wipe: string, publish: string) => [
  call("plain", { text: plain }, "p"),
  call("wipe", { text: wipe }, "w"),
  call("publish", { text: publish }, "u")
]

/** An approval hook that defers every call it is asked about. It keeps no state, so tests may share it. */
const deferEvery = ToolHooks.approval({ decide: () => Effect.succeed(ToolHooks.defer) })

/** The pending approval of a deferred result: the test fails here when the result was not deferred. */
const pendingOf = (result: ToolResult.ToolResult) => Option.getOrThrow(ToolHooks.pendingApproval(result))

/** Defers `toolCall` on a fresh server of `tools` that defers every call, then runs `body` with its pending approval. */
const withDeferred = <T extends Tool.Any, A, E>(
  tools: ToolSet.ToolSet<T>,
  toolCall: ToolCall.ToolCall,
  body: (server: ToolServer.ToolServer, pending: ToolHooks.PendingApproval) => Effect.Effect<A, E>
) =>
  withServer(
    { tools, hooks: [deferEvery] },
    (server) => Effect.flatMap(server.execute(toolCall), (deferred) => body(server, pendingOf(deferred)))
  )

describe("approval", () => {
  it.effect("by default destructive and needsApproval tools are asked about; other tools run without asking", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      const asked: Array<string> = []
      const results = yield* executeBatch(
        {
          tools: tools.set,
          hooks: [
            ToolHooks.approval({ decide: (request) => Effect.sync(() => (asked.push(request.tool.name), ToolHooks.approve)) })
          ]
        },
        oneCallOfEach("p", "w", "u"),
        { concurrency: 1 }
      )
      assert.deepStrictEqual(asked, ["wipe", "publish"])
      assert.deepStrictEqual(results.map((result) => result.status), ["success", "success", "success"])
      assert.deepStrictEqual(tools.runs(), { plain: 1, wipe: 1, publish: 1 })
    }))

  it.effect("a server without an approval hook never runs a needsApproval tool: its calls are denied", () =>
    Effect.gen(function*() {
      const logging = onCall(() => Effect.succeed(ToolHooks.run))
      for (const hooks of [[], [logging]]) {
        const tools = makeTools()
        const results = yield* executeBatch({ tools: tools.set, hooks }, oneCallOfEach("p", "w", "u"))
        assert.deepStrictEqual(results.map((result) => [result.status, kindOf(result)]), [
          ["success", undefined],
          ["success", undefined],
          ["denied", "permission_denied"]
        ])
        assert.match(summarizeResult(results[2]!).modelText ?? "", /needs a human.s approval/)
        assert.deepStrictEqual(tools.runs(), { plain: 1, wipe: 1, publish: 0 })
      }
    }))

  it("isApproval tells the hooks approval made from any other hooks", () => {
    assert.isTrue(ToolHooks.isApproval(deferEvery))
    assert.isFalse(ToolHooks.isApproval(onCall(() => Effect.succeed(ToolHooks.run))))
    assert.isFalse(ToolHooks.isApproval(ToolHooks.make({})))
    // Hooks made anew from an approval's function are other hooks.
    assert.isFalse(ToolHooks.isApproval(ToolHooks.make({ onCall: deferEvery.onCall })))
  })

  it.effect("a call a human approved through resume runs on a server without an approval hook, sharing the store", () =>
    Effect.gen(function*() {
      class Front extends Context.Service<Front, ToolServer.ToolServer>()("test/Front") {}
      class Worker extends Context.Service<Worker, ToolServer.ToolServer>()("test/Worker") {}
      const tools = makeTools()
      const layers = Layer.mergeAll(
        ToolServer.layer(Front, { tools: tools.set, hooks: [deferEvery] }),
        ToolServer.layer(Worker, { tools: tools.set })
      ).pipe(Layer.provide(ToolHooks.ApprovalStore.layerMemory))
      const resumed = yield* Effect.gen(function*() {
        const deferred = yield* (yield* Front).execute(call("publish", { text: "news" }, "u"))
        return yield* (yield* Worker).resume(pendingOf(deferred), ToolHooks.approve)
      }).pipe(Effect.provide(layers))
      assert.deepStrictEqual([resumed.callId, resumed.status], ["u", "success"])
      assert.deepStrictEqual(tools.runs(), { plain: 0, wipe: 0, publish: 1 })
    }))

  it.effect("a needs of your own replaces the default, annotations included: a call it does not pick runs", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      const onlyWipe = ToolHooks.approval({
        needs: (event) => event.tool.name === "wipe",
        decide: () => Effect.succeed(ToolHooks.deny("no"))
      })
      const results = yield* executeBatch({ tools: tools.set, hooks: [onlyWipe] }, oneCallOfEach("p", "w", "u"))
      assert.deepStrictEqual(results.map((result) => result.status), ["success", "denied", "success"])
      assert.deepStrictEqual(tools.runs(), { plain: 1, wipe: 0, publish: 1 })
    }))

  it.effect("the approvals of a batch a hook stopped are issued too: they can be resumed", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      const stopAtPlain = onCall((event) =>
        Effect.succeed(event.call.name === "plain" ? ToolHooks.stop("enough") : ToolHooks.run)
      )
      yield* withServer({ tools: tools.set, hooks: [deferEvery, stopAtPlain] }, (server) =>
        Effect.gen(function*() {
          const stopped = yield* failureOf(server.executeAll(
            [call("publish", { text: "news" }, "u"), call("plain", { text: "p" }, "p")],
            { concurrency: 1 }
          ))
          assert.instanceOf(stopped, ToolHooks.ToolRunStopped)
          const deferred = stopped.results.find((result) => result.callId === "u")!
          const resumed = yield* server.resume(pendingOf(deferred), ToolHooks.approve)
          assert.deepStrictEqual([resumed.callId, resumed.status], ["u", "success"])
          assert.deepStrictEqual(tools.runs(), { plain: 0, wipe: 0, publish: 1 })
        }))
    }))

  it.effect("a custom needs decides which calls are asked about, and decide sees the call's arguments", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      const asked: Array<unknown> = []
      const results = yield* executeBatch(
        {
          tools: tools.set,
          hooks: [
            ToolHooks.approval({
              needs: (event) => (event.arguments as { readonly text: string }).text.startsWith("ask"),
              decide: (request) => Effect.sync(() => (asked.push(request.arguments), ToolHooks.deny("no")))
            })
          ]
        },
        oneCallOfEach("ask me", "just do it", "ask first"),
        { concurrency: 1 }
      )
      assert.deepStrictEqual(asked, [{ text: "ask me" }, { text: "ask first" }])
      assert.deepStrictEqual(results.map((result) => result.status), ["denied", "success", "denied"])
      assert.deepStrictEqual(tools.runs(), { plain: 0, wipe: 1, publish: 0 })
    }))

  it.effect("decide deny: status denied, permission_denied, refused, the reason is the output; nothing runs", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      const result = yield* executeOne(
        {
          tools: tools.set,
          hooks: [ToolHooks.approval({ decide: () => Effect.succeed(ToolHooks.deny("the on-call engineer said no")) })]
        },
        call("wipe", { text: "prod" }, "call_wipe")
      )
      assert.deepStrictEqual(
        summarize(result),
        expectedSummary("denied", "call_wipe", "wipe", { text: "prod" }, "the on-call engineer said no")
      )
      assert.deepStrictEqual(ToolHooks.pendingApproval(result), Option.none())
      assert.deepStrictEqual(tools.runs(), { plain: 0, wipe: 0, publish: 0 })
    }))

  it.effect("defer: a skipped result carrying a PendingApproval with the call id, tool name and arguments", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      const result = yield* executeOne(
        { tools: tools.set, hooks: [deferEvery] },
        call("publish", "{\"text\":\"release notes\"}", "call_publish")
      )
      assert.deepStrictEqual([result.callId, result.status, result.error], ["call_publish", "skipped", Option.none()])
      const pending = pendingOf(result)
      assert.instanceOf(pending, ToolHooks.PendingApproval)
      assert.deepStrictEqual(
        { callId: pending.callId, toolName: pending.toolName, arguments: pending.arguments },
        { callId: "call_publish", toolName: "publish", arguments: { text: "release notes" } }
      )
      assert.isTrue(pending.id.length > 0)
      assert.deepStrictEqual(tools.runs(), { plain: 0, wipe: 0, publish: 0 })
    }))

  it.effect("each deferral is a request of its own: two deferred calls have different ids", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      const results = yield* executeBatch(
        { tools: tools.set, hooks: [deferEvery] },
        [call("wipe", { text: "a" }, "a"), call("wipe", { text: "a" }, "b")]
      )
      const ids = results.map((result) => pendingOf(result).id)
      assert.notStrictEqual(ids[0], ids[1])
    }))

  it.effect("pendingApproval is none for results that were not deferred", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      const results = yield* executeBatch(
        {
          tools: tools.set,
          hooks: [onCall((event) => Effect.succeed(event.call.id === "s" ? ToolHooks.skip("no") : ToolHooks.run))]
        },
        [call("plain", { text: "a" }, "ok"), call("plain", { text: "b" }, "s")]
      )
      assert.deepStrictEqual(results.map(ToolHooks.pendingApproval), [Option.none(), Option.none()])
    }))

  it.effect("resume with approve runs the call once; resuming again fails with ApprovalAlreadyResolved", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      yield* withDeferred(tools.set, call("wipe", { text: "staging" }, "call_wipe"), (server, pending) =>
        Effect.gen(function*() {
          const resumed = yield* server.resume(pending, ToolHooks.approve)
          // Approved once: the approval hook does not defer the resumed call again.
          assert.deepStrictEqual(
            summarize(resumed),
            expectedSummary("success", "call_wipe", "wipe", { text: "staging" }, "staging")
          )
          assert.deepStrictEqual(tools.runs().wipe, 1)
          for (const decision of [ToolHooks.approve, ToolHooks.deny("changed my mind")]) {
            const again = yield* failureOf(server.resume(pending, decision))
            assert.instanceOf(again, ToolHooks.ApprovalAlreadyResolved)
            assert.deepStrictEqual(
              [again._tag, (again as ToolHooks.ApprovalAlreadyResolved).approvalId, (again as ToolHooks.ApprovalAlreadyResolved).callId],
              ["ApprovalAlreadyResolved", pending.id, "call_wipe"]
            )
          }
          assert.deepStrictEqual(tools.runs().wipe, 1)
        }))
    }))

  it.effect("resume with deny gives denied with the reason; the call never runs, even when approved later", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      yield* withDeferred(tools.set, call("publish", { text: "draft" }, "call_publish"), (server, pending) =>
        Effect.gen(function*() {
          const resumedDenied = yield* server.resume(pending, ToolHooks.deny("the draft is not ready"))
          assert.deepStrictEqual(
            summarize(resumedDenied),
            expectedSummary("denied", "call_publish", "publish", { text: "draft" }, "the draft is not ready")
          )
          const again = yield* failureOf(server.resume(pending, ToolHooks.approve))
          assert.instanceOf(again, ToolHooks.ApprovalAlreadyResolved)
          assert.strictEqual(tools.runs().publish, 0)
        }))
    }))

  it.effect("a resumed call goes through the other hooks, which see it as approved", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      const seen: Array<readonly [string, boolean]> = []
      yield* withServer(
        {
          tools: tools.set,
          hooks: [
            deferEvery,
            onCall((event) =>
              Effect.sync(() => {
                seen.push([event.call.id, event.approved])
                return ToolHooks.rewrite({ text: "rewritten on resume" })
              })
            )
          ]
        },
        (server) =>
          Effect.gen(function*() {
            const deferred = yield* server.execute(call("wipe", { text: "original" }, "call_wipe"))
            yield* server.execute(call("plain", { text: "original" }, "call_plain"))
            const resumed = yield* server.resume(pendingOf(deferred), ToolHooks.approve)
            assert.deepStrictEqual(
              [resumed.status, resumed.arguments, ToolOutput.asText(resumed.output)],
              ["success", { text: "rewritten on resume" }, Option.some("rewritten on resume")]
            )
          })
      )
      // The deferred call never reached the second hook; the resumed one did, approved.
      assert.deepStrictEqual(seen, [["call_plain", false], ["call_wipe", true]])
      assert.deepStrictEqual(tools.runs(), { plain: 1, wipe: 1, publish: 0 })
    }))

  it.effect("a resumed call runs what the human approved: the hooks up to the approval may deny it, not rewrite it", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      let limit = 10
      let killed = false
      const seen: Array<string> = []
      // Rewrites what it sees: applied again, or with another limit, it would change what the human approved.
      const sign = onCall((event) =>
        Effect.sync(() => {
          seen.push(event.call.id)
          const text = (event.arguments as { text: string }).text
          return ToolHooks.rewrite({ text: `${text.slice(0, limit)} (signed)` })
        })
      )
      const killSwitch = onCall(() => Effect.sync(() => killed ? ToolHooks.deny("stopped by the operator") : ToolHooks.run))
      yield* withServer({ tools: tools.set, hooks: [killSwitch, sign, deferEvery] }, (server) =>
        Effect.gen(function*() {
          const first = pendingOf(yield* server.execute(call("wipe", { text: "hello, world" }, "w1")))
          const second = pendingOf(yield* server.execute(call("wipe", { text: "goodbye" }, "w2")))
          // The human is shown the arguments as they would run.
          assert.deepStrictEqual(first.arguments, { text: "hello, wor (signed)" })
          limit = 3
          const resumed = yield* server.resume(first, ToolHooks.approve)
          assert.deepStrictEqual(
            [resumed.status, resumed.arguments, ToolOutput.asText(resumed.output)],
            ["success", first.arguments, Option.some("hello, wor (signed)")]
          )
          // A hook before the approval still decides whether the call runs at all.
          killed = true
          const denied = yield* server.resume(second, ToolHooks.approve)
          assert.deepStrictEqual([denied.status, kindOf(denied)], ["denied", "permission_denied"])
        }))
      assert.deepStrictEqual(seen, ["w1", "w2", "w1"])
      assert.deepStrictEqual(tools.runs(), { plain: 0, wipe: 1, publish: 0 })
    }))

  it.effect("with two approval hooks, a call the second deferred is not rewritten again by a hook between them", () =>
    Effect.gen(function*() {
      const tools = makeTools()
      const sign = onCall((event) =>
        Effect.succeed(ToolHooks.rewrite({ text: `${(event.arguments as { text: string }).text} (signed)` }))
      )
      const approveWipes = ToolHooks.approval({
        needs: (event) => event.tool.name === "wipe",
        decide: () => Effect.succeed(ToolHooks.approve)
      })
      const deferAll = ToolHooks.approval({ needs: () => true, decide: () => Effect.succeed(ToolHooks.defer) })
      const after = onCall((event) => Effect.succeed(ToolHooks.rewrite({ text: `${(event.arguments as { text: string }).text}!` })))
      yield* withServer({ tools: tools.set, hooks: [approveWipes, sign, deferAll, after] }, (server) =>
        Effect.gen(function*() {
          const pending = pendingOf(yield* server.execute(call("plain", { text: "hello" }, "p")))
          assert.deepStrictEqual(pending.arguments, { text: "hello (signed)" })
          const resumed = yield* server.resume(pending, ToolHooks.approve)
          // The hook after the last approval rewrites as it does for any call.
          assert.deepStrictEqual(resumed.arguments, { text: "hello (signed)!" })
        }))
      assert.deepStrictEqual(tools.runs(), { plain: 1, wipe: 0, publish: 0 })
    }))

  it.effect("an approved call that is retried is not asked about again", () =>
    Effect.gen(function*() {
      let asked = 0
      let calls = 0
      const Charge = Tool.make("charge", {
        description: "Charge a card; the gateway drops the first attempt",
        parameters: Schema.Struct({}),
        annotations: { destructive: true, idempotent: true },
        call: () =>
          Effect.suspend(() =>
            ++calls === 1
              ? Effect.fail(ToolExecutionError.network("gateway reset").pipe(ToolExecutionError.withRetryable(true)))
              : Effect.succeed("charged")
          )
      })
      const result = yield* withServer(
        {
          tools: ToolSet.make(Charge),
          hooks: [ToolHooks.approval({ decide: () => Effect.sync(() => (asked++, ToolHooks.approve)) })],
          retry: Schedule.recurs(2)
        },
        (server) => server.execute(call("charge", {}))
      )
      assert.deepStrictEqual([result.status, result.attempts, calls, asked], ["success", 2, 2, 1])
    }))

  it.effect("a decide that fails or returns no decision gives kind other, the cause kept; nothing runs", () =>
    Effect.gen(function*() {
      const deciders: ReadonlyArray<readonly [string, () => Effect.Effect<ToolHooks.ApprovalDecision, unknown>, (cause: unknown) => void]> = [
        ["fails", () => Effect.fail(boom), (cause) => assert.strictEqual(cause, boom)],
        ["dies", () => Effect.die(boom), (cause) => assert.strictEqual(cause, boom)],
        [
          "returns no decision",
          () => Effect.succeed({ _tag: "Maybe" } as unknown as ToolHooks.ApprovalDecision),
          (cause) => assert.instanceOf(cause, TypeError)
        ]
      ]
      for (const [label, decide, checkCause] of deciders) {
        const tools = makeTools()
        const results = yield* withServer(
          { tools: tools.set, hooks: [ToolHooks.approval({ decide })] },
          (server) => server.executeAll([call("wipe", { text: "x" }, "w"), call("plain", { text: "y" }, "p")])
        )
        assert.deepStrictEqual(results.map((result) => [result.status, kindOf(result)]), [
          ["error", "other"],
          ["success", undefined]
        ], label)
        assert.deepStrictEqual(results[0]!.output, otherOutput, label)
        checkCause(ToolExecutionError.causeOf(errorOf(results[0]!)))
        assert.deepStrictEqual(tools.runs(), { plain: 1, wipe: 0, publish: 0 }, label)
      }
    }))

  it.effect("a PendingApproval round-trips through its JSON codec", () =>
    Effect.gen(function*() {
      const pending = new ToolHooks.PendingApproval({
        id: "approval-1",
        callId: "call_1",
        toolName: "wipe",
        arguments: { text: "prod", nested: [1, null, { ok: true }] }
      })
      const text = JSON.stringify(Schema.encodeSync(PendingApprovalJson)(pending))
      assert.deepStrictEqual(JSON.parse(text), {
        id: "approval-1",
        callId: "call_1",
        toolName: "wipe",
        arguments: { text: "prod", nested: [1, null, { ok: true }] }
      })
      assert.deepStrictEqual(Schema.decodeUnknownSync(PendingApprovalJson)(JSON.parse(text)), pending)
    }))

  it.effect("decoding stored JSON that is not a PendingApproval fails", () =>
    Effect.gen(function*() {
      const decode = Schema.decodeUnknownExit(PendingApprovalJson)
      for (const stored of [{}, { id: "a", callId: "c", toolName: 3, arguments: {} }, null, "pending"]) {
        assert.isTrue(Exit.isFailure(decode(stored)), JSON.stringify(stored))
      }
    }))

  const Anything = Tool.make("anything", {
    description: "Accepts any object; needs approval",
    parameters: Schema.Record(Schema.String, Schema.Json),
    annotations: { needsApproval: true },
    call: () => Effect.succeed("ran")
  })

  it.effect.prop(
    "a deferred call's PendingApproval, encoded to JSON text and decoded, is equal to it, arguments and all",
    [Schema.Record(Schema.String, Schema.Json)],
    ([args]) =>
      withDeferred(ToolSet.make(Anything), call("anything", args, "call_prop"), (_server, pending) =>
        Effect.sync(() => {
          assert.deepStrictEqual(withoutNegativeZero(pending.arguments), withoutNegativeZero(args))
          const text = JSON.stringify(Schema.encodeSync(PendingApprovalJson)(pending))
          const decoded = Schema.decodeUnknownSync(PendingApprovalJson)(JSON.parse(text))
          assert.instanceOf(decoded, ToolHooks.PendingApproval)
          // JSON has no negative zero: the one change a JSON text round trip makes.
          assert.deepStrictEqual(
            decoded,
            new ToolHooks.PendingApproval({ ...pending, arguments: withoutNegativeZero(pending.arguments) as Schema.Json })
          )
        })),
    { arbitrary: { runs: 100 } }
  )
})

// ---------------------------------------------------------------------------------------------------------------------
// ApprovalStore
// ---------------------------------------------------------------------------------------------------------------------

/** A fresh temporary directory, removed when the scope closes. */
const tempDirectory = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(os.tmpdir(), "tool-hooks-"))),
  (directory) => Effect.sync(() => rmSync(directory, { recursive: true, force: true }))
)

/** Defers one transfer in a bank, and gives back its pending approval. */
const deferTransfer = (id: string) =>
  Effect.gen(function*() {
    const bank = yield* Bank
    const deferred = yield* bank.execute(call("transfer_funds", { to: "ACME", amount: 250 }, id))
    assert.strictEqual(deferred.status, "skipped")
    return pendingOf(deferred)
  })

describe("ApprovalStore", () => {
  it.effect("the default store is in memory and per server: each server resumes only what it deferred, once", () =>
    Effect.gen(function*() {
      const first = makeBank()
      const second = makeBank()
      const [pending, resumed, again] = yield* Effect.gen(function*() {
        const bank = yield* Bank
        const pending = yield* deferTransfer("call_t")
        const resumed = yield* bank.resume(pending, ToolHooks.approve)
        const again = yield* failureOf(bank.resume(pending, ToolHooks.approve))
        return [pending, resumed, again] as const
      }).pipe(Effect.provide(first.layer))
      assert.strictEqual(resumed.status, "success")
      assert.instanceOf(again, ToolHooks.ApprovalAlreadyResolved)
      assert.strictEqual(first.runs(), 1)
      // A second server with its own memory never issued it: that is what a shared store is for.
      const elsewhere = yield* failureOf(Effect.flatMap(Bank, (bank) => bank.resume(pending, ToolHooks.approve))).pipe(
        Effect.provide(second.layer)
      )
      assert.instanceOf(elsewhere, ToolHooks.ApprovalNotIssued)
      assert.strictEqual(second.runs(), 0)
    }))

  it.effect("resume runs only the approval the store issued, unchanged: edited, forged or re-id'd ones run nothing", () =>
    Effect.gen(function*() {
      const bank = makeBank()
      const outcomes = yield* Effect.gen(function*() {
        const server = yield* Bank
        const pending = yield* deferTransfer("call_t")
        const edit = (fields: Partial<ToolHooks.PendingApproval>) => new ToolHooks.PendingApproval({ ...pending, ...fields })
        const tampered = [
          edit({ arguments: { to: "mallory", amount: 250 } }),
          edit({ arguments: { to: "ACME", amount: 250, note: "x" } }),
          edit({ toolName: "transfer_all" }),
          edit({ callId: "call_other" }),
          edit({ id: "forged" }),
          new ToolHooks.PendingApproval({
            id: "never-issued",
            callId: "c",
            toolName: "transfer_funds",
            arguments: { to: "mallory", amount: 1 }
          })
        ]
        const refused = yield* Effect.forEach(tampered, (approval) =>
          failureOf(server.resume(approval, ToolHooks.approve)))
        // The same approval, its arguments' keys in another order (as a store may keep them): it is the one issued.
        const reordered = edit({ arguments: { amount: 250, to: "ACME" } })
        const resumed = yield* server.resume(reordered, ToolHooks.approve)
        // Once run, a copy under a new id is not issued either.
        const replayed = yield* failureOf(server.resume(edit({ id: `${pending.id}x` }), ToolHooks.approve))
        return { refused, resumed, replayed }
      }).pipe(Effect.provide(bank.layer))
      for (const error of outcomes.refused) assert.instanceOf(error, ToolHooks.ApprovalNotIssued)
      assert.strictEqual(outcomes.resumed.status, "success")
      assert.instanceOf(outcomes.replayed, ToolHooks.ApprovalNotIssued)
      assert.strictEqual(bank.runs(), 1)
    }))

  it.effect("ApprovalStore.memory answers true the first time an approval is resolved, false after", () =>
    Effect.gen(function*() {
      const store = ToolHooks.ApprovalStore.memory()
      const a = new ToolHooks.PendingApproval({ id: "a", callId: "c", toolName: "t", arguments: {} })
      const b = new ToolHooks.PendingApproval({ id: "b", callId: "c", toolName: "t", arguments: {} })
      yield* store.issue(a)
      assert.deepStrictEqual([yield* store.issued("a"), yield* store.issued("b")], [Option.some(a), Option.none()])
      const answers = [
        yield* store.resolve(a, "approved"),
        yield* store.resolve(a, "denied"),
        yield* store.resolve(b, "denied"),
        yield* store.resolve(b, "approved")
      ]
      assert.deepStrictEqual(answers, [true, false, true, false])
    }))

  it.effect("a store shared by two runtimes: deferred in one, resumed in the other, then refused in the first", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      const first = makeBank(fileApprovalStore(directory))
      const second = makeBank(fileApprovalStore(directory))
      const firstRuntime = yield* Effect.acquireRelease(
        Effect.sync(() => ManagedRuntime.make(first.layer)),
        (runtime) => Effect.promise(() => runtime.dispose())
      )
      const secondRuntime = yield* Effect.acquireRelease(
        Effect.sync(() => ManagedRuntime.make(second.layer)),
        (runtime) => Effect.promise(() => runtime.dispose())
      )
      const pending = yield* Effect.promise(() => firstRuntime.runPromise(deferTransfer("call_shared")))
      const resumed = yield* Effect.promise(() =>
        secondRuntime.runPromise(Effect.flatMap(Bank, (bank) => bank.resume(pending, ToolHooks.approve)))
      )
      assert.deepStrictEqual([resumed.callId, resumed.status], ["call_shared", "success"])
      const refused = yield* Effect.promise(() =>
        firstRuntime.runPromise(failureOf(Effect.flatMap(Bank, (bank) => bank.resume(pending, ToolHooks.approve))))
      )
      assert.instanceOf(refused, ToolHooks.ApprovalAlreadyResolved)
      assert.deepStrictEqual([first.runs(), second.runs()], [0, 1])
    }))

  it.effect("two runtimes resuming one approval at once: exactly one runs it", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      const first = makeBank(fileApprovalStore(directory))
      const second = makeBank(fileApprovalStore(directory))
      const runtimes = [first, second].map((bank) => ManagedRuntime.make(bank.layer))
      yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all(runtimes.map((runtime) => runtime.dispose()))))
      const pending = yield* Effect.promise(() => runtimes[0]!.runPromise(deferTransfer("call_race")))
      const exits = yield* Effect.promise(() =>
        Promise.all(
          runtimes.map((runtime) =>
            runtime.runPromiseExit(Effect.flatMap(Bank, (bank) => bank.resume(pending, ToolHooks.approve)))
          )
        )
      )
      assert.deepStrictEqual(exits.map(Exit.isSuccess).sort(), [false, true])
      const failure = exits.find(Exit.isFailure)!
      assert.instanceOf(Option.getOrThrow(Exit.findErrorOption(failure)), ToolHooks.ApprovalAlreadyResolved)
      assert.strictEqual(first.runs() + second.runs(), 1)
    }))

  it.live("a pending approval stored as JSON is resumed in a fresh process, where the tool runs exactly once", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      const store = join(directory, "resolved")
      yield* Effect.sync(() => mkdirSync(store))
      const here = makeBank(fileApprovalStore(store))
      const pending = yield* deferTransfer("call_fresh").pipe(Effect.provide(here.layer))
      const pendingPath = join(directory, "pending.json")
      writeFileSync(pendingPath, JSON.stringify(Schema.encodeSync(PendingApprovalJson)(pending)))
      const fixture = fileURLToPath(new URL("./fixtures/resumeApproval.ts", import.meta.url))
      const { stdout } = yield* Effect.promise(() =>
        promisify(execFile)(process.execPath, ["--import", "tsx", fixture, pendingPath, store], {
          cwd: fileURLToPath(new URL("..", import.meta.url)),
          timeout: 60_000
        })
      )
      const report = JSON.parse(stdout) as {
        readonly pid: number
        readonly runs: number
        readonly again: string
        readonly result: { readonly callId: string; readonly status: string; readonly output: unknown }
      }
      assert.notStrictEqual(report.pid, process.pid)
      assert.strictEqual(report.runs, 1)
      assert.deepStrictEqual(
        [report.result.callId, report.result.status],
        ["call_fresh", "success"]
      )
      assert.deepStrictEqual(
        report.result.output,
        JSON.parse(JSON.stringify(ToolOutput.text(`sent 250 to ACME from process ${report.pid}`)))
      )
      assert.strictEqual(report.again, "ApprovalAlreadyResolved")
      // The store is shared with this process too: the approval the subprocess resolved cannot be resumed here.
      const refused = yield* failureOf(Effect.flatMap(Bank, (bank) => bank.resume(pending, ToolHooks.approve))).pipe(
        Effect.provide(here.layer)
      )
      assert.instanceOf(refused, ToolHooks.ApprovalAlreadyResolved)
      assert.strictEqual(here.runs(), 0)
    }), 60_000)
})

// ---------------------------------------------------------------------------------------------------------------------
// telemetry
// ---------------------------------------------------------------------------------------------------------------------

const attributesOf = (spans: ReadonlyArray<Tracer.NativeSpan>, callId: string) => {
  const found = spans.filter((span) => span.attributes.get("gen_ai.tool.call.id") === callId)
  assert.strictEqual(found.length, 1, `exactly one span for ${callId}`)
  const attributes = found[0]!.attributes
  return {
    outcome: attributes.get("gen_ai.tool.call.outcome"),
    callDecisions: attributes.get("tool.hook.call_decisions"),
    resultDecisions: attributes.get("tool.hook.result_decisions"),
    approval: attributes.get("tool.approval"),
    attempts: attributes.get("tool.attempts")
  }
}

/** A tool that fails with a retryable error on its first call, and succeeds after. */
const makeFlaky = () => {
  let calls = 0
  return Tool.make("flaky", {
    description: "Fails once, then works",
    parameters: Schema.Struct({}),
    call: () =>
      Effect.suspend(() =>
        ++calls === 1
          ? Effect.fail(ToolExecutionError.network("connection reset").pipe(ToolExecutionError.withRetryable(true)))
          : Effect.succeed("worked")
      )
  })
}

describe("telemetry", () => {
  it.effect("the span of a call carries each hook's decision per attempt, the attempts and the outcome", () =>
    Effect.gen(function*() {
      const { spans, tracer } = makeRecorder()
      const echo = makeEcho()
      const first = onCall((event) => {
        switch (event.call.id) {
          case "rewrite":
            return Effect.succeed(ToolHooks.rewrite({ text: "new" }))
          case "failed":
            return Effect.fail(boom)
          case "invalid":
            return Effect.succeed({ _tag: "Nope" } as unknown as ToolHooks.CallDecision)
          default:
            return Effect.succeed(ToolHooks.run)
        }
      })
      const second = onCall((event) => {
        switch (event.call.id) {
          case "skip":
            return Effect.succeed(ToolHooks.skip("no need"))
          case "deny":
            return Effect.succeed(ToolHooks.deny("not allowed"))
          case "stop":
            return Effect.succeed(ToolHooks.stop("halt"))
          default:
            return Effect.succeed(ToolHooks.run)
        }
      })
      const results = onResult((event) => {
        switch (event.call.id) {
          case "rewrite_output":
            return Effect.succeed(ToolHooks.rewriteOutput(ToolOutput.text("shown")))
          case "result_stop":
            return Effect.succeed(ToolHooks.stop("halt after"))
          case "result_failed":
            return Effect.die(boom)
          case "result_invalid":
            return Effect.succeed(42 as unknown as ToolHooks.ResultDecision)
          default:
            return Effect.succeed(ToolHooks.keep)
        }
      })
      const ids = [
        "run",
        "rewrite",
        "skip",
        "deny",
        "stop",
        "failed",
        "invalid",
        "rewrite_output",
        "result_stop",
        "result_failed",
        "result_invalid"
      ]
      yield* withServer(
        {
          tools: ToolSet.make(echo.tool, makeFlaky()),
          hooks: [first, second, results],
          retry: Schedule.recurs(2)
        },
        (server) =>
          Effect.gen(function*() {
            // One execute per call: a stop ends only its own.
            for (const id of ids) yield* Effect.exit(server.execute(call("echo", { text: "x" }, id)))
            yield* server.execute(call("flaky", {}, "flaky"))
          })
      ).pipe(Effect.withTracer(tracer))
      const table = Object.fromEntries([...ids, "flaky"].map((id) => [id, attributesOf(spans, id)]))
      const entry = (outcome: string, callDecisions: Array<string>, resultDecisions: Array<string>, attempts = 1) => ({
        outcome,
        callDecisions,
        resultDecisions,
        approval: undefined,
        attempts
      })
      assert.deepStrictEqual(table, {
        run: entry("success", ["run", "run"], ["keep"]),
        rewrite: entry("success", ["rewrite", "run"], ["keep"]),
        skip: entry("skipped", ["run", "skip"], ["keep"]),
        deny: entry("denied", ["run", "deny"], ["keep"]),
        stop: entry("skipped", ["run", "stop"], ["keep"]),
        failed: entry("error", ["failed"], ["keep"]),
        invalid: entry("error", ["invalid"], ["keep"]),
        rewrite_output: entry("success", ["run", "run"], ["rewrite_output"]),
        result_stop: entry("success", ["run", "run"], ["stop"]),
        result_failed: entry("error", ["run", "run"], ["failed"]),
        result_invalid: entry("error", ["run", "run"], ["invalid"]),
        // Two hooks, two attempts: one entry per hook per attempt.
        flaky: entry("success", ["run", "run", "run", "run"], ["keep"], 2)
      })
    }))

  it.effect("the spans a hook makes are children of the call's execute_tool span", () =>
    Effect.gen(function*() {
      const { spans, tracer } = makeRecorder()
      const echo = makeEcho()
      const checked = onCall(() => Effect.withSpan(Effect.succeed(ToolHooks.run), "policy check"))
      const reviewed = onResult(() => Effect.withSpan(Effect.succeed(ToolHooks.keep), "output review"))
      yield* executeOne({ tools: ToolSet.make(echo.tool), hooks: [checked, reviewed] }, call("echo", { text: "x" }))
        .pipe(Effect.withTracer(tracer))
      const execute = spans.find((span) => span.name === "execute_tool echo")!
      const parentOf = (name: string) =>
        spans.filter((span) => span.name === name).map((span) => Option.map(span.parent, (parent) => parent.spanId))
      assert.deepStrictEqual(parentOf("policy check"), [Option.some(execute.spanId)])
      assert.deepStrictEqual(parentOf("output review"), [Option.some(execute.spanId)])
    }))

  it.live("a call whose batch a hook stopped before its tool ran ends its span with the outcome stopped", () =>
    Effect.gen(function*() {
      const { spans, tracer } = makeRecorder()
      const echo = makeEcho()
      // "first" waits in its hook while "second" stops the batch: "first" never runs and has no result.
      const hook = onCall((event) =>
        event.call.id === "second"
          ? Effect.succeed(ToolHooks.stop("halt"))
          : Effect.as(Effect.sleep("20 millis"), ToolHooks.run)
      )
      const stopped = yield* failureOf(executeBatch(
        { tools: ToolSet.make(echo.tool), hooks: [hook] },
        [call("echo", { text: "x" }, "first"), call("echo", { text: "y" }, "second")],
        { concurrency: "unbounded" }
      ).pipe(Effect.withTracer(tracer)))
      assert.instanceOf(stopped, ToolHooks.ToolRunStopped)
      assert.deepStrictEqual(stopped.results.map((result) => result.callId), ["second"])
      assert.strictEqual(echo.runs(), 0)
      const first = spans.find((span) => span.attributes.get("gen_ai.tool.call.id") === "first")!
      assert.strictEqual(first.status._tag, "Ended")
      assert.strictEqual(first.attributes.get("gen_ai.tool.call.outcome"), "stopped")
      assert.strictEqual(first.attributes.get("tool.batch_stopped"), true)
    }))

  it.effect("the span of a call carries the approval outcome: approved, denied, deferred, and on resume", () =>
    Effect.gen(function*() {
      const { spans, tracer } = makeRecorder()
      const tools = makeTools()
      const approvals = ToolHooks.approval({
        decide: (request) =>
          Effect.succeed(
            request.call.id === "approved"
              ? ToolHooks.approve
              : request.call.id === "denied"
              ? ToolHooks.deny("no")
              : ToolHooks.defer
          )
      })
      yield* withServer({ tools: tools.set, hooks: [approvals] }, (server) =>
        Effect.gen(function*() {
          const results = yield* server.executeAll([
            call("wipe", { text: "a" }, "approved"),
            call("wipe", { text: "b" }, "denied"),
            call("wipe", { text: "c" }, "deferred"),
            call("wipe", { text: "d" }, "resumed_approved"),
            call("wipe", { text: "e" }, "resumed_denied"),
            call("plain", { text: "f" }, "not_asked")
          ])
          yield* server.resume(pendingOf(results[3]!), ToolHooks.approve)
          yield* server.resume(pendingOf(results[4]!), ToolHooks.deny("later no"))
        })).pipe(Effect.withTracer(tracer))
      const outcomes = (callId: string) =>
        spans
          .filter((span) => span.attributes.get("gen_ai.tool.call.id") === callId)
          .map((span) => [span.attributes.get("tool.approval"), span.attributes.get("gen_ai.tool.call.outcome")])
      assert.deepStrictEqual(outcomes("approved"), [["approved", "success"]])
      assert.deepStrictEqual(outcomes("denied"), [["denied", "denied"]])
      assert.deepStrictEqual(outcomes("deferred"), [["deferred", "skipped"]])
      assert.deepStrictEqual(outcomes("resumed_approved"), [["deferred", "skipped"], ["approved", "success"]])
      assert.deepStrictEqual(outcomes("resumed_denied"), [["deferred", "skipped"], ["denied", "denied"]])
      assert.deepStrictEqual(outcomes("not_asked"), [[undefined, "success"]])
    }))
})
