/**
 * Arguments of a union of objects. Effect tries a union's members in order and takes the first that decodes; with
 * unknown keys dropped, an earlier member would take arguments meant for a later one, and lose their keys.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Tool, ToolSet } from "../src/index.ts"

const call = (name: string, args: unknown) => ({ id: "call_1", name, arguments: args })

/** A tool that returns the arguments it was called with. */
const echo = <S extends Tool.AnySchema>(name: string, parameters: S & Tool.ObjectParameters<S>) =>
  Tool.make(name, { description: "Echoes its arguments", parameters, call: (args) => Effect.succeed({ args }) })

const argsOf = (result: { readonly output: { readonly content: ReadonlyArray<unknown> } }) =>
  (result.output.content[0] as { readonly value: { readonly args: unknown } }).value.args

describe("arguments: a union of objects", () => {
  const Search = Schema.Union([
    Schema.Struct({ query: Schema.String }),
    Schema.Struct({ query: Schema.String, page: Schema.Int })
  ])
  const set = ToolSet.make(echo("search", Search), echo("nested", Schema.Struct({ filter: Search })))

  it.effect("go to the member that knows every key, as the JSON Schema offered says, not to the first that decodes", () =>
    Effect.gen(function*() {
      const paged = yield* ToolSet.execute(set, call("search", { query: "q", page: 3 }))
      assert.deepStrictEqual(argsOf(paged), { query: "q", page: 3 })
      const nested = yield* ToolSet.execute(set, call("nested", JSON.stringify({ filter: { query: "q", page: 2 } })))
      assert.deepStrictEqual(argsOf(nested), { filter: { query: "q", page: 2 } })
    }))

  it.effect("a member behind Schema.suspend is one too", () =>
    Effect.gen(function*() {
      const Plain = Schema.Struct({ query: Schema.String })
      const Paged = Schema.Struct({ query: Schema.String, page: Schema.Int })
      const Suspended = Schema.Union([Schema.suspend(() => Plain), Schema.suspend(() => Paged)])
      const result = yield* ToolSet.execute(ToolSet.make(echo("suspended", Suspended)), call("suspended", { query: "q", page: 2 }))
      assert.deepStrictEqual(argsOf(result), { query: "q", page: 2 })
    }))

  it.effect("keys no member knows are still dropped, and a mismatch is still invalid_args", () =>
    Effect.gen(function*() {
      const extra = yield* ToolSet.execute(set, call("search", { query: "q", unknown: 1 }))
      assert.deepStrictEqual(argsOf(extra), { query: "q" })
      const both = yield* ToolSet.execute(set, call("search", { query: "q", page: 1, unknown: 1 }))
      assert.deepStrictEqual(argsOf(both), { query: "q" })
      const bad = yield* ToolSet.execute(set, call("search", { query: 1 }))
      assert.deepStrictEqual([bad.status, bad.error._tag === "Some" && bad.error.value.kind], ["error", "invalid_args"])
    }))
})
