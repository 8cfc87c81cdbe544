/**
 * The `Builtin` namespace: the built-ins as their own modules define them, and `toolSet`, the set of built-ins a
 * configuration asks for (what `effect-llm-tools mcp` serves).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import * as Calculator from "../../src/builtin/calculator.ts"
import * as Clock from "../../src/builtin/clock.ts"
import * as Filesystem from "../../src/builtin/filesystem.ts"
import * as Http from "../../src/builtin/http.ts"
import { Builtin } from "../../src/builtin/index.ts"
import * as Think from "../../src/builtin/think.ts"
import { DynamicTool, ToolCall, ToolResultContent, ToolSet } from "../../src/index.ts"

const folder = mkdtempSync(join(tmpdir(), "effect-llm-tools-builtin-"))
writeFileSync(join(folder, "long.txt"), "0123456789abcdef")
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const base = ["think", "calculator", "clock"]
const reads = ["read_file", "list_directory", "search_files", "file_info"]
const writes = ["write_file", "edit_file"]

const namesOf = (set: ToolSet.Any): ReadonlyArray<string> => ToolSet.names(set)

const build = (options?: Builtin.ToolSetOptions) => Builtin.toolSet(options).pipe(Effect.provide(NodeServices.layer))

/** The options error `toolSet` fails with, as `{ tag, option }`. */
const refusal = (options: Builtin.ToolSetOptions) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(build(options))
    assert.isTrue(Exit.isFailure(exit), "the options were accepted")
    const error = yield* Effect.flip(build(options))
    return { tag: error._tag, option: error.option }
  })

const execute = (set: ToolSet.Any, name: string, args: Record<string, unknown>) =>
  ToolSet.execute(set, ToolCall.make({ id: "call_1", name, arguments: args }))

describe("Builtin", () => {
  it("re-exports each built-in as its own module defines it", () => {
    assert.strictEqual(Builtin.think, Think.think)
    assert.strictEqual(Builtin.calculator, Calculator.calculator)
    assert.strictEqual(Builtin.clock, Clock.clock)
    assert.strictEqual(Builtin.filesystem, Filesystem.filesystem)
    assert.strictEqual(Builtin.http, Http.http)
    assert.strictEqual(Builtin.BuiltinOptionsError, Filesystem.BuiltinOptionsError)
    assert.strictEqual(Builtin.HttpOptionsError, Http.HttpOptionsError)
    assert.strictEqual(Builtin.CalculatorResult, Calculator.CalculatorResult)
    assert.strictEqual(Builtin.ClockResult, Clock.ClockResult)
    for (const tool of [Builtin.think, Builtin.calculator, Builtin.clock]) assert.isTrue(DynamicTool.isPortable(tool))
  })

  it.effect("toolSet() holds think, calculator and clock, the very tools the namespace exports", () =>
    Effect.gen(function*() {
      const set = yield* build()
      assert.deepStrictEqual(namesOf(set), base)
      assert.deepStrictEqual<ReadonlyArray<unknown>>(set.tools, [Builtin.think, Builtin.calculator, Builtin.clock])
      const result = yield* execute(set, "calculator", { expression: "0.1 + 0.2" })
      assert.deepStrictEqual([result.status, result.output.content], [
        "success",
        [ToolResultContent.json({ result: "0.3", exact: true })]
      ])
    }))

  it.effect("with a root: the read-only filesystem tools; with write too: the write tools", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(namesOf(yield* build({ root: folder })), [...base, ...reads])
      assert.deepStrictEqual(namesOf(yield* build({ root: folder, write: false })), [...base, ...reads])
      const writable = yield* build({ root: folder, write: true })
      assert.deepStrictEqual(namesOf(writable), [...base, ...reads, ...writes])
      const written = yield* execute(writable, "write_file", { path: "new.txt", content: "written" })
      assert.strictEqual(written.status, "success")
      assert.strictEqual(readFileSync(join(folder, "new.txt"), "utf8"), "written")
      const escaped = yield* execute(writable, "write_file", { path: "../escaped.txt", content: "no" })
      assert.strictEqual(escaped.status, "denied")
    }))

  it.effect("maxBytes reaches the filesystem tools", () =>
    Effect.gen(function*() {
      const read = yield* execute(yield* build({ root: folder, maxBytes: 8 }), "read_file", { path: "long.txt" })
      const text = JSON.stringify(read.output.content)
      assert.include(text, "01234567")
      assert.notInclude(text, "89abcdef")
    }))

  it.effect("with hosts: fetch, for those hosts only; an empty list adds nothing", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(namesOf(yield* build({ allowHosts: [] })), base)
      const set = yield* build({ allowHosts: ["docs.example.test"], maxBytes: 4096, timeout: "5 seconds" })
      assert.deepStrictEqual(namesOf(set), [...base, "fetch"])
      // Refused by the allow-list, before any name is resolved or any connection made. A loopback literal: were the
      // allow-list broken, no packet would leave this machine (a name would be resolved by the system's DNS).
      const refused = yield* execute(set, "fetch", { url: "http://127.0.0.2/" })
      assert.strictEqual(refused.status, "denied")
      assert.include(JSON.stringify(refused.output.content), "docs.example.test")
    }))

  it.effect("refuses options it cannot work with, and builds nothing", () =>
    Effect.gen(function*() {
      const missing = join(folder, "missing")
      assert.deepStrictEqual(yield* refusal(null as never), { tag: "BuiltinOptionsError", option: "options" })
      assert.deepStrictEqual(yield* refusal({ write: true }), { tag: "BuiltinOptionsError", option: "write" })
      assert.deepStrictEqual(
        yield* refusal({ write: "yes" as unknown as boolean }),
        { tag: "BuiltinOptionsError", option: "write" }
      )
      assert.deepStrictEqual(yield* refusal({ root: missing }), { tag: "BuiltinOptionsError", option: "root" })
      assert.deepStrictEqual(
        yield* refusal({ root: join(folder, "long.txt") }),
        { tag: "BuiltinOptionsError", option: "root" }
      )
      assert.deepStrictEqual(
        yield* refusal({ allowHosts: ["not a host"] }),
        { tag: "HttpOptionsError", option: "allow" }
      )
      assert.deepStrictEqual(yield* refusal({ maxBytes: 0 }), { tag: "BuiltinOptionsError", option: "maxBytes" })
      assert.deepStrictEqual(yield* refusal({ maxBytes: 1.5 }), { tag: "BuiltinOptionsError", option: "maxBytes" })
      assert.deepStrictEqual(
        yield* refusal({ timeout: "soon" as never }),
        { tag: "BuiltinOptionsError", option: "timeout" }
      )
      assert.deepStrictEqual(yield* refusal({ timeout: 0 }), { tag: "BuiltinOptionsError", option: "timeout" })
    }))

  it.effect.prop(
    "holds the base tools, then the filesystem tools with a root (write ones with write), then fetch with hosts",
    [Schema.Boolean, Schema.Boolean, Schema.Boolean],
    ([withRoot, write, withHosts]) =>
      Effect.gen(function*() {
        const options: Builtin.ToolSetOptions = {
          ...(withRoot ? { root: folder } : {}),
          write,
          allowHosts: withHosts ? ["docs.example.test", "*.example.test"] : []
        }
        const exit = yield* Effect.exit(build(options))
        if (write && !withRoot) {
          assert.isTrue(Exit.isFailure(exit))
          return
        }
        const expected = [
          ...base,
          ...(withRoot ? reads : []),
          ...(withRoot && write ? writes : []),
          ...(withHosts ? ["fetch"] : [])
        ]
        assert.deepStrictEqual(Exit.isSuccess(exit) ? namesOf(exit.value) : [], expected)
      }),
    { arbitrary: { runs: 16 } }
  )

  it("toolSet's type names every built-in it may hold, and needs only FileSystem and Path", () => {
    type Built = Effect.Success<ReturnType<typeof Builtin.toolSet>>
    expectTypeOf<ToolSet.Tools<Built>["name"]>().toEqualTypeOf<
      | "think"
      | "calculator"
      | "clock"
      | "read_file"
      | "list_directory"
      | "search_files"
      | "file_info"
      | "write_file"
      | "edit_file"
      | "fetch"
    >()
    expectTypeOf<Effect.Services<ReturnType<typeof Builtin.toolSet>>>().toEqualTypeOf<
      import("effect").FileSystem.FileSystem | import("effect").Path.Path
    >()
  })
})
