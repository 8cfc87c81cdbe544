import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Arbitrary, Result, Schema } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import os from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { z } from "zod"
// zod 3's API, which the published MCP servers build their schemas with.
import { z as z3 } from "zod/v3"
import { checkSchema, type SchemaField, validatorOf } from "../../src/internal/jsonSchemaValidator.ts"
import { Compiler } from "../../src/testing/internal/jsonSchemaArbitrary.ts"
import { nestedTree, recursiveTrees } from "../support/mcpSchemas.ts"

// -------------------------------------------------------------------------------------------------------------
// Real schemas, as their producers make them
// -------------------------------------------------------------------------------------------------------------

const requireHere = createRequire(import.meta.url)
const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

/** A module without type declarations, loaded by name: what it exports is read as data. */
const importUntyped = (specifier: string): Promise<Record<string, unknown>> => import(specifier)

interface NamedSchema {
  readonly name: string
  readonly schema: Record<string, unknown>
}

/**
 * The JSON Schemas the GitHub MCP server builds: its own zod schemas, through the zod-to-json-schema it calls in
 * `tools/list` (draft-07, with `$ref`s to repeated parts such as `#/properties/commit/properties/author`).
 */
const githubSchemas = async (): Promise<ReadonlyArray<NamedSchema>> => {
  const { zodToJsonSchema } = await importUntyped("zod-to-json-schema") as {
    readonly zodToJsonSchema: (schema: unknown) => Record<string, unknown>
  }
  const modules = ["branches", "commits", "files", "issues", "pulls", "repository", "search"]
    .map((name) => `@modelcontextprotocol/server-github/dist/operations/${name}.js`)
    .concat("@modelcontextprotocol/server-github/dist/common/types.js")
  const schemas: Array<NamedSchema> = []
  for (const specifier of modules) {
    for (const [name, value] of Object.entries(await importUntyped(specifier))) {
      const typeName = (value as { readonly _def?: { readonly typeName?: unknown } } | undefined)?._def?.typeName
      if (name.endsWith("Schema") && typeName === "ZodObject") schemas.push({ name, schema: zodToJsonSchema(value) })
    }
  }
  return schemas
}

interface ListedTool {
  readonly name: string
  readonly inputSchema: Record<string, unknown>
  readonly outputSchema?: Record<string, unknown> | undefined
}

/** The tools the filesystem MCP server lists over stdio, schemas as sent; only `tools/list` is asked. */
const filesystemTools = async (): Promise<ReadonlyArray<ListedTool>> => {
  const scratch = mkdtempSync(join(os.tmpdir(), "json-schema-validator-"))
  const manifestPath = requireHere.resolve("@modelcontextprotocol/server-filesystem/package.json")
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { readonly bin: Record<string, string> }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(dirname(manifestPath), Object.values(manifest.bin)[0]!), scratch],
    env: getDefaultEnvironment(),
    stderr: "ignore",
    cwd: scratch
  })
  const client = new Client({ name: "json-schema-validator-test", version: "0.1.0" })
  try {
    await client.connect(transport)
    return (await client.listTools()).tools as ReadonlyArray<ListedTool>
  } finally {
    await client.close()
    rmSync(scratch, { recursive: true, force: true })
  }
}

const github = await githubSchemas()
const filesystem = await filesystemTools()

// -------------------------------------------------------------------------------------------------------------
// Helpers
// -------------------------------------------------------------------------------------------------------------

/** `"valid"`, or the mismatch lines; a validator error fails the test. */
const linesOf = (schema: object, value: unknown): "valid" | ReadonlyArray<string> => {
  const result = validatorOf(schema).validate(value)
  if (Result.isSuccess(result)) return "valid"
  if (result.failure._tag === "ValidatorError") throw new Error(`unexpected validator error: ${result.failure.reason}`)
  return result.failure.lines
}

/** The message of the TypeError `checkSchema` throws for `schema`. */
const refusal = (schema: unknown, field?: SchemaField, toolName = "search_docs"): string => {
  try {
    checkSchema(schema, toolName, field)
  } catch (error) {
    assert.instanceOf(error, TypeError)
    return (error as TypeError).message
  }
  return assert.fail("the schema was accepted")
}

const prefix = "tool `search_docs`: parameters is not a usable JSON Schema: "

const SearchDocs = {
  type: "object",
  properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1, maximum: 20 } },
  required: ["query"],
  additionalProperties: false
}

const Add = {
  type: "object",
  properties: { left: { type: "integer" }, right: { type: "integer" } },
  required: ["left", "right"],
  additionalProperties: false
}

const draft07 = "http://json-schema.org/draft-07/schema#"
const draft2020 = "https://json-schema.org/draft/2020-12/schema"
const draft2019 = "https://json-schema.org/draft/2019-09/schema"
const draft06 = "http://json-schema.org/draft-06/schema#"

// -------------------------------------------------------------------------------------------------------------
// checkSchema
// -------------------------------------------------------------------------------------------------------------

describe("checkSchema", () => {
  it("accepts object schemas and says which dialect their $schema names, 2020-12 by default", () => {
    assert.deepStrictEqual(
      [
        checkSchema(SearchDocs, "search_docs"),
        checkSchema({ $schema: draft07, type: "object" }, "t"),
        checkSchema({ $schema: "http://json-schema.org/draft-07/schema", type: "object" }, "t"),
        checkSchema({ $schema: draft2020, type: "object" }, "t"),
        checkSchema({ $schema: `${draft2020}#`, type: "object" }, "t"),
        checkSchema({}, "t"),
        checkSchema({ type: ["object", "null"] }, "t"),
        checkSchema({ $ref: "#/definitions/Args", definitions: { Args: { type: "object" } } }, "t")
      ],
      ["draft-2020-12", "draft-07", "draft-07", "draft-2020-12", "draft-2020-12", "draft-2020-12", "draft-2020-12", "draft-2020-12"]
    )
  })

  it("reads the other spellings of draft-07, and draft-06 and 2019-09, each with or without the empty fragment", () => {
    const dialects = [
      ["https://json-schema.org/draft-07/schema#", "draft-07"],
      ["https://json-schema.org/draft-07/schema", "draft-07"],
      [draft06, "draft-06"],
      ["http://json-schema.org/draft-06/schema", "draft-06"],
      ["https://json-schema.org/draft-06/schema#", "draft-06"],
      ["https://json-schema.org/draft-06/schema", "draft-06"],
      [draft2019, "draft-2019-09"],
      [`${draft2019}#`, "draft-2019-09"]
    ] as const
    assert.deepStrictEqual(
      dialects.map(([$schema]) => checkSchema({ $schema, type: "object" }, "t")),
      dialects.map(([, dialect]) => dialect)
    )
    // Each against its own meta-schema: a draft-06 exclusiveMinimum is a number, 2019-09 has no prefixItems.
    assert.strictEqual(
      refusal({ $schema: draft06, type: "object", properties: { n: { exclusiveMinimum: true } } }),
      `${prefix}it is not valid against the draft-06 meta-schema: at /properties/n/exclusiveMinimum must be number`
    )
    assert.strictEqual(
      refusal({ $schema: draft2019, type: "object", properties: { p: { items: [{}], additionalItems: 5 } } }),
      `${prefix}it is not valid against the draft-2019-09 meta-schema: at /properties/p/additionalItems must be ` +
        "object,boolean"
    )
  })

  it("refuses a schema that is not a JSON object, naming the tool, the field and the problem", () => {
    assert.deepStrictEqual(
      [[], true, "object", null, 42, undefined].map((schema) => refusal(schema)),
      ["an array", "a boolean", "a string", "null", "a number", "a undefined"]
        .map((kind) => `${prefix}a tool's JSON Schema is a JSON object, not ${kind}`)
    )
    assert.strictEqual(
      refusal(["not", "a", "schema"], "outputSchema", "list_files"),
      "tool `list_files`: outputSchema is not a usable JSON Schema: a tool's JSON Schema is a JSON object, not an array"
    )
  })

  it("bounds the tool name it repeats", () => {
    const name = "n".repeat(100)
    assert.strictEqual(
      refusal([], "parameters", name),
      `tool \`${"n".repeat(64)}…\`: parameters is not a usable JSON Schema: a tool's JSON Schema is a JSON object, not an array`
    )
  })

  it("refuses parameters that do not describe an object, at the root or where the root $ref leads", () => {
    assert.deepStrictEqual(
      [
        { type: "string" },
        { type: ["string", "null"] },
        { $ref: "#/$defs/List", $defs: { List: { type: "array" } } }
      ].map((schema) => refusal(schema)),
      ["\"string\"", "[\"string\",\"null\"]", "\"array\""]
        .map((type) => `${prefix}tool arguments are a JSON object, and this schema's type is ${type}`)
    )
    // An output may be any JSON value.
    assert.strictEqual(checkSchema({ type: "string" }, "t", "outputSchema"), "draft-2020-12")
  })

  it("refuses a $schema other than draft-06, draft-07, 2019-09 or 2020-12", () => {
    const supported = `name draft-06 (${draft06}), draft-07 (${draft07}), 2019-09 (${draft2019}) or 2020-12 ` +
      `(${draft2020}), or leave $schema out for 2020-12`
    assert.deepStrictEqual(
      [
        "http://json-schema.org/draft-04/schema#",
        "https://json-schema.org/draft/2019-09/schema/",
        "https://example.com/my-meta-schema"
      ].map(($schema) => refusal({ $schema, type: "object" })),
      [
        `${prefix}its $schema "http://json-schema.org/draft-04/schema#" is not supported: ${supported}`,
        `${prefix}its $schema "https://json-schema.org/draft/2019-09/schema/" is not supported: ${supported}`,
        `${prefix}its $schema "https://example.com/my-meta-schema" is not supported: ${supported}`
      ]
    )
    assert.strictEqual(refusal({ $schema: 7, type: "object" }), `${prefix}its $schema (a number) is not supported: ${supported}`)
  })

  it("refuses a schema that breaks its meta-schema", () => {
    assert.strictEqual(
      refusal({ type: 5 }),
      `${prefix}it is not valid against the draft-2020-12 meta-schema: at /type must be equal to one of the allowed ` +
        "values; at /type must be array; at /type must match a schema in anyOf"
    )
    assert.deepStrictEqual(
      [
        { type: "object", properties: { limit: { type: "integer", minimum: "1" } } },
        { type: "object", required: "query" },
        { $schema: draft07, type: "object", properties: { limit: { type: "integer", minimum: "1" } } }
      ].map((schema) => refusal(schema)),
      [
        `${prefix}it is not valid against the draft-2020-12 meta-schema: at /properties/limit/minimum must be number`,
        `${prefix}it is not valid against the draft-2020-12 meta-schema: at /required must be array`,
        `${prefix}it is not valid against the draft-07 meta-schema: at /properties/limit/minimum must be number`
      ]
    )
  })

  it("refuses a pattern that does not compile, with the u flag or without it", () => {
    assert.deepStrictEqual(
      [
        { type: "object", properties: { code: { type: "string", pattern: "([a-z]" } } },
        { type: "object", patternProperties: { "^x-(": { type: "string" } } }
      ].map((schema) => refusal(schema)),
      [
        `${prefix}pattern "([a-z]" at /properties/code/pattern is not a valid regular expression`,
        `${prefix}patternProperties at the root holds "^x-(", which is not a valid regular expression`
      ]
    )
  })

  it("accepts patterns with identity escapes, valid in JSON Schema but not under the u flag", () => {
    for (const pattern of ["^\\d{3}\\-\\d{4}$", "[^\\s\\@]+@", "^\\#[0-9a-f]{6}$", "^[a-z\\_]+$"]) {
      assert.strictEqual(checkSchema({ type: "object", properties: { code: { type: "string", pattern } } }, "t"), "draft-2020-12")
    }
    assert.strictEqual(checkSchema({ type: "object", patternProperties: { "^x\\-": {} } }, "t"), "draft-2020-12")
  })

  it("reads tuple `items` by the dialect: draft-07 allows a list of schemas, 2020-12 wants prefixItems", () => {
    const tuple = { type: "object", properties: { point: { type: "array", items: [{ type: "number" }, { type: "number" }] } } }
    assert.strictEqual(checkSchema({ $schema: draft07, ...tuple }, "t"), "draft-07")
    assert.strictEqual(
      refusal(tuple),
      `${prefix}it is not valid against the draft-2020-12 meta-schema: at /properties/point/items must be object,boolean`
    )
  })

  it("refuses any reference that is not local, wherever it is", () => {
    const remote = (ref: string, where: string, schema: object) => ({ ref, where, schema })
    const cases = [
      remote("https://example.com/schemas/query.json", "/properties/query", {
        type: "object",
        properties: { query: { $ref: "https://example.com/schemas/query.json" } }
      }),
      remote("defs.json#/Query", "/properties/query", { type: "object", properties: { query: { $ref: "defs.json#/Query" } } }),
      remote("//example.com/query", "/definitions/Query", {
        $schema: draft07,
        type: "object",
        definitions: { Query: { $ref: "//example.com/query" } }
      }),
      remote("urn:example:query", "/anyOf/1", { type: "object", anyOf: [{ required: ["a"] }, { $ref: "urn:example:query" }] }),
      remote("https://example.com/a", "/properties/pair/prefixItems/0", {
        type: "object",
        properties: { pair: { type: "array", prefixItems: [{ $ref: "https://example.com/a" }] } }
      }),
      remote("https://example.com/x-extension", "/x-extension", {
        type: "object",
        "x-extension": { $ref: "https://example.com/x-extension" }
      })
    ]
    for (const { ref, schema, where } of cases) {
      assert.strictEqual(
        refusal(schema),
        `${prefix}$ref ${JSON.stringify(ref)} at ${where} is not local: only references inside the schema (#…) are ` +
          "allowed, and none is ever fetched"
      )
    }
    assert.strictEqual(
      refusal({ type: "object", $dynamicRef: "https://example.com/meta#meta" }),
      `${prefix}$dynamicRef "https://example.com/meta#meta" at the root is not local: only references inside the ` +
        "schema (#…) are allowed, and none is ever fetched"
    )
  })

  it("accepts local references, and `$ref` text that is data or a property's name", () => {
    const schema = {
      type: "object",
      $defs: { Query: { $anchor: "query", type: "string" } },
      properties: {
        a: { $ref: "#/$defs/Query" },
        b: { $ref: "#query" },
        c: { $ref: "#" },
        $ref: { type: "string" },
        d: { enum: [{ $ref: "https://example.com/a" }], default: { $ref: "https://example.com/b" } },
        e: { const: { $ref: "https://example.com/c" }, examples: [{ $ref: "https://example.com/d" }] }
      }
    }
    assert.strictEqual(checkSchema(schema, "t"), "draft-2020-12")
  })

  it("refuses what JSON cannot hold: functions, class instances, undefined, non-finite numbers, cycles", () => {
    const cyclic: Record<string, unknown> = { type: "object", properties: {} }
    ;(cyclic.properties as Record<string, unknown>).self = cyclic
    const at = (pointer: string, problem: string, schema: Record<string, unknown>) => ({ pointer, problem, schema })
    const cases = [
      at("/properties/a/default", "a function is not JSON", { type: "object", properties: { a: { default: () => 1 } } }),
      at("/properties/a/default", "Date is not JSON", { type: "object", properties: { a: { default: new Date(0) } } }),
      at("/properties/a/description", "a undefined is not JSON", { type: "object", properties: { a: { description: undefined } } }),
      at("/properties/a/maximum", "NaN is not a JSON number", { type: "object", properties: { a: { maximum: Number.NaN } } }),
      at("/properties/a/maximum", "Infinity is not a JSON number", { type: "object", properties: { a: { maximum: Infinity } } }),
      at("/properties/a/maximum", "a bigint is not JSON", { type: "object", properties: { a: { maximum: 10n } } })
    ]
    assert.deepStrictEqual(
      cases.map(({ schema }) => refusal(schema)),
      cases.map(({ pointer, problem }) => `${prefix}${problem}, at ${pointer}`)
    )
    assert.strictEqual(refusal(cyclic), `${prefix}it refers back to itself at /properties/self: JSON has no cycles`)
    // A part used twice is not a cycle.
    const shared = { type: "string" }
    assert.strictEqual(checkSchema({ type: "object", properties: { a: shared, b: shared } }, "t"), "draft-2020-12")
  })

  it("refuses a schema that nests deeper than 256 levels, and accepts one of 250", () => {
    const nested = (levels: number): Record<string, unknown> => {
      let schema: Record<string, unknown> = { type: "string" }
      // Each step adds two levels: the schema and its `properties`.
      for (let i = 0; i < (levels - 2) / 2; i++) schema = { type: "object", properties: { a: schema } }
      return schema
    }
    assert.strictEqual(checkSchema(nested(250), "t"), "draft-2020-12")
    assert.match(refusal(nested(300)), /^tool `search_docs`: parameters is not a usable JSON Schema: it nests deeper than 256 levels at \/properties\/a/)
  })

  it("refuses ajv's $async, and a `__proto__` declared where ajv would skip it", () => {
    assert.strictEqual(
      refusal({ $async: true, type: "object" }),
      `${prefix}$async at the root is an ajv extension, not JSON Schema: tool schemas are validated synchronously`
    )
    for (const keyword of ["properties", "patternProperties"]) {
      assert.strictEqual(
        refusal(JSON.parse(`{"type":"object","${keyword}":{"__proto__":{"type":"string"}}}`)),
        `${prefix}${keyword} at the root declares "__proto__", which the validator would not check`
      )
    }
    assert.strictEqual(
      refusal(JSON.parse(`{"$schema":"${draft07}","type":"object","dependencies":{"__proto__":["a"]}}`)),
      `${prefix}dependencies at the root declares "__proto__", which the validator would not check`
    )
    // Requiring it is fine: ajv checks `required` names as own keys.
    assert.strictEqual(checkSchema({ type: "object", required: ["__proto__"] }, "t"), "draft-2020-12")
  })

  it("refuses a cycle of references alone, which would recurse without end, and accepts one through a value", () => {
    const cycle = (defs: object) => ({ type: "object", properties: { x: { $ref: "#/$defs/a" } }, $defs: defs })
    assert.deepStrictEqual(
      [
        cycle({ a: { $ref: "#/$defs/a" } }),
        cycle({ a: { $ref: "#/$defs/b", description: "an alias" }, b: { $ref: "#/$defs/a" } }),
        { $schema: draft07, $ref: "#", definitions: {} }
      ].map((schema) => refusal(schema)),
      [
        `${prefix}$ref at /properties/x leads to a cycle of references alone (/$defs/a → /$defs/a), which validates ` +
        "nothing and never ends",
        `${prefix}$ref at /properties/x leads to a cycle of references alone (/$defs/a → /$defs/b → /$defs/a), ` +
        "which validates nothing and never ends",
        `${prefix}$ref at the root leads to a cycle of references alone (the root → the root), which validates ` +
        "nothing and never ends"
      ]
    )
    // A reference that is reached again only inside a value, as a recursive type's, descends: it ends with the value.
    const list = { type: "object", properties: { next: { $ref: "#/$defs/node" } }, $defs: { node: { $ref: "#" } } }
    assert.strictEqual(checkSchema(list, "t"), "draft-2020-12")
    assert.strictEqual(linesOf(list, { next: { next: {} } }), "valid")
  })

  it("leaves to the compiler what only the compiler finds: an unresolvable local $ref is accepted here", () => {
    const schema = { type: "object", properties: { a: { $ref: "#/definitions/Missing" } } }
    assert.strictEqual(checkSchema(schema, "t"), "draft-2020-12")
    const result = validatorOf(schema).validate({ a: 1 })
    assert.isTrue(Result.isFailure(result))
    const failure = (result as Result.Failure<void, { readonly _tag: string; readonly reason?: string }>).failure
    assert.deepStrictEqual(
      [failure._tag, failure.reason],
      ["ValidatorError", "the JSON Schema cannot be compiled: can't resolve reference #/definitions/Missing from id #"]
    )
  })

  it("accepts every schema the filesystem MCP server sends, input and output, as draft-07", () => {
    assert.isAtLeast(filesystem.length, 10)
    for (const tool of filesystem) {
      assert.strictEqual(checkSchema(tool.inputSchema, tool.name), "draft-07", tool.name)
      if (tool.outputSchema !== undefined) {
        assert.strictEqual(checkSchema(tool.outputSchema, tool.name, "outputSchema"), "draft-07", tool.name)
      }
    }
  })

  it("accepts every schema the GitHub MCP server builds", () => {
    assert.isAtLeast(github.length, 40)
    for (const { name, schema } of github) assert.strictEqual(checkSchema(schema, name), "draft-07", name)
  })
})

// -------------------------------------------------------------------------------------------------------------
// validatorOf
// -------------------------------------------------------------------------------------------------------------

describe("validatorOf", () => {
  /** A copy of `Add` that counts how often its `properties` are read: compiling reads them, nothing else does. */
  const counted = () => {
    const reads = { count: 0 }
    const schema = { ...Add }
    Object.defineProperty(schema, "properties", {
      enumerable: true,
      get: () => {
        reads.count++
        return Add.properties
      }
    })
    return { reads, schema }
  }

  it("compiles nothing until the first validate, then compiles once", () => {
    const tools = Array.from({ length: 1_000 }, counted)
    const validators = tools.map(({ schema }) => validatorOf(schema))
    assert.strictEqual(tools.reduce((sum, { reads }) => sum + reads.count, 0), 0)

    const { reads } = tools[0]!
    assert.isTrue(Result.isSuccess(validators[0]!.validate({ left: 1, right: 2 })))
    const afterCompile = reads.count
    assert.isAbove(afterCompile, 0)
    validators[0]!.validate({ left: 1, right: "2" })
    validators[0]!.validate({ left: 3, right: 4 })
    assert.strictEqual(reads.count, afterCompile)
    assert.strictEqual(tools.slice(1).reduce((sum, { reads }) => sum + reads.count, 0), 0)
  })

  it("gives one validator per schema object: the same object shares it, an equal copy has its own", () => {
    const copy = structuredClone(Add)
    assert.strictEqual(validatorOf(Add), validatorOf(Add))
    assert.notStrictEqual(validatorOf(Add), validatorOf(copy))
    assert.strictEqual(validatorOf(Add).schema, Add)
  })

  it("answers every call of a schema that does not compile with the same failure, compiling it once", () => {
    const reads = { count: 0 }
    const broken = Object.defineProperty({ type: "object" }, "properties", {
      enumerable: true,
      get: () => {
        reads.count++
        return { left: { $ref: "#/$defs/Missing" } }
      }
    })
    const validator = validatorOf(broken)
    const first = validator.validate({ left: 1 })
    const afterCompile = reads.count
    assert.isTrue(Result.isFailure(first))
    assert.isAbove(afterCompile, 0)
    assert.strictEqual(validator.validate({}), first)
    assert.strictEqual(validator.validate({ left: 2 }), first)
    assert.strictEqual(reads.count, afterCompile)
  })

  it("never fetches a remote $ref, even when the schema was never checked", () => {
    const original = globalThis.fetch
    const fetched: Array<unknown> = []
    globalThis.fetch = ((input: unknown) => {
      fetched.push(input)
      return Promise.reject(new Error("no network in this test"))
    }) as typeof fetch
    try {
      const result = validatorOf({ $ref: "https://example.com/schemas/args.json" }).validate({})
      assert.isTrue(Result.isFailure(result))
      const failure = (result as Result.Failure<void, { readonly _tag: string; readonly reason?: string }>).failure
      assert.deepStrictEqual(
        [failure._tag, failure.reason],
        [
          "ValidatorError",
          "the JSON Schema cannot be compiled: can't resolve reference https://example.com/schemas/args.json from id #"
        ]
      )
      assert.deepStrictEqual(fetched, [])
    } finally {
      globalThis.fetch = original
    }
  })

  it("does not run an $async schema, which ajv would answer with a promise", () => {
    const result = validatorOf({ $async: true, type: "object", required: ["a"] }).validate({})
    assert.isTrue(Result.isFailure(result))
    const failure = (result as Result.Failure<void, { readonly _tag: string; readonly reason?: string }>).failure
    assert.deepStrictEqual(
      [failure._tag, failure.reason],
      ["ValidatorError", "the JSON Schema is an ajv $async schema, which validates asynchronously"]
    )
  })

  it("refuses a schema with an unknown $schema when it is compiled, as a validator error", () => {
    const result = validatorOf({ $schema: "https://example.com/meta", type: "object" }).validate({})
    assert.isTrue(Result.isFailure(result))
    const failure = (result as Result.Failure<void, { readonly _tag: string; readonly reason?: string }>).failure
    assert.strictEqual(failure._tag, "ValidatorError")
    assert.match(failure.reason!, /^the JSON Schema cannot be compiled: its \$schema "https:\/\/example.com\/meta" is not supported/)
  })

  it("turns a validator that throws into a validator error, not a throw", () => {
    // A value no JSON parser makes: a getter that throws while ajv reads it.
    const hostile = Object.defineProperty({}, "left", {
      enumerable: true,
      get: () => {
        throw new Error("boom")
      }
    })
    const result = validatorOf(Add).validate(hostile)
    assert.isTrue(Result.isFailure(result))
    const failure = (result as Result.Failure<void, { readonly _tag: string; readonly reason?: string }>).failure
    assert.deepStrictEqual([failure._tag, failure.reason], ["ValidatorError", "the JSON Schema validator threw: boom"])
  })

  it("keeps each schema's recursive anchor to itself: two 2019-09 trees check by their own rules, either first", () => {
    // New objects for each order: a schema's validator is compiled once, on its first call.
    const broken = { n: 1, child: { x: "not allowed", n: "one" } }
    const strictLines = ["- $.child.x: is not allowed", "- $.child.n: must be number"]
    const looseFirst = recursiveTrees()
    const looseThenStrict = [linesOf(looseFirst.loose, nestedTree), linesOf(looseFirst.strict, broken)]
    const strictFirst = recursiveTrees()
    const strictThenLoose = [linesOf(strictFirst.strict, broken), linesOf(strictFirst.loose, nestedTree)]
    assert.deepStrictEqual([looseThenStrict, strictThenLoose], [["valid", strictLines], [strictLines, "valid"]])
  })
})

// -------------------------------------------------------------------------------------------------------------
// Mismatch lines
// -------------------------------------------------------------------------------------------------------------

describe("mismatch lines", () => {
  it("say which keyword failed: maximum, required, additionalProperties", () => {
    assert.deepStrictEqual(linesOf(SearchDocs, { limit: 25, extra: true }), [
      "- $.query: is required",
      "- $.extra: is not allowed",
      "- $.limit: must be <= 20"
    ])
    assert.strictEqual(linesOf(SearchDocs, { query: "effect layers", limit: 20 }), "valid")
    const result = validatorOf(SearchDocs).validate({ limit: 0 })
    assert.isTrue(Result.isFailure(result))
    const failure = (result as Result.Failure<void, { readonly _tag: string; readonly message?: string }>).failure
    assert.deepStrictEqual([failure._tag, failure.message], ["Mismatch", "- $.query: is required\n- $.limit: must be >= 1"])
  })

  it("find all three of `toString`, `constructor` and `__proto__` missing from {}, and present when sent", () => {
    const schema = { type: "object", required: ["toString", "constructor", "__proto__"] }
    assert.deepStrictEqual(linesOf(schema, {}), [
      "- $.toString: is required",
      "- $.constructor: is required",
      "- $.__proto__: is required"
    ])
    assert.strictEqual(linesOf(schema, JSON.parse(`{"toString":1,"constructor":2,"__proto__":3}`)), "valid")
  })

  it("treat a `__proto__` key from JSON.parse as an own key, never as a prototype", () => {
    const sent = JSON.parse(`{"__proto__":{"polluted":true,"query":"x"}}`)
    assert.deepStrictEqual(linesOf(SearchDocs, sent), ["- $.query: is required", "- $.__proto__: is not allowed"])
    assert.deepStrictEqual(linesOf({ type: "object", required: ["polluted"] }, sent), ["- $.polluted: is required"])
    assert.deepStrictEqual(
      linesOf({ type: "object", properties: { query: { type: "string" } }, patternProperties: { "^__": { type: "string" } } }, sent),
      ["- $.__proto__: must be string"]
    )
    assert.strictEqual(linesOf({ type: "object", required: ["__proto__"] }, sent), "valid")
    assert.isUndefined(({} as Record<string, unknown>).polluted)
  })

  it("compare array items as JSON values for uniqueItems, `__proto__` strings and objects included", () => {
    const strings = { type: "array", items: { type: "string" }, uniqueItems: true }
    const anything = { type: "array", uniqueItems: true }
    assert.deepStrictEqual(
      [
        linesOf(strings, JSON.parse(`["__proto__","a","__proto__"]`)),
        linesOf(strings, ["toString", "toString"]),
        linesOf(anything, [{ a: 1, b: [2, 3] }, { b: [2, 3], a: 1 }]),
        linesOf(anything, JSON.parse(`[{"__proto__":1},{"__proto__":1}]`)),
        linesOf(anything, [0, JSON.parse("-0")])
      ],
      [
        ["- $: must NOT have duplicate items (items 0 and 2 are identical)"],
        ["- $: must NOT have duplicate items (items 0 and 1 are identical)"],
        ["- $: must NOT have duplicate items (items 0 and 1 are identical)"],
        ["- $: must NOT have duplicate items (items 0 and 1 are identical)"],
        ["- $: must NOT have duplicate items (items 0 and 1 are identical)"]
      ]
    )
    assert.deepStrictEqual(
      [
        linesOf(anything, [1, "1", [1], { "1": 1 }, null, true, "true"]),
        linesOf(anything, JSON.parse(`[{"__proto__":1},{"__proto__":2},{}]`)),
        linesOf(strings, ["__proto__", "constructor", "toString"])
      ],
      ["valid", "valid", "valid"]
    )
  })

  it("compare const and enum values without calling what the value holds (`toString`, `valueOf`)", () => {
    const schema = {
      type: "object",
      properties: {
        fixed: { const: { unit: "celsius", scale: [1, 2] } },
        choice: { enum: ["auto", 3, null, { unit: "kelvin" }] }
      }
    }
    const sent = JSON.parse(`{"fixed":{"toString":{}},"choice":{"valueOf":1,"unit":"kelvin"}}`)
    assert.deepStrictEqual(linesOf(schema, sent), [
      "- $.fixed: must be equal to constant",
      "- $.choice: must be equal to one of the allowed values"
    ])
    assert.deepStrictEqual(linesOf(schema, { fixed: { toString: 1, unit: "celsius", scale: [1, 2] } }), [
      "- $.fixed: must be equal to constant"
    ])
    // Equal JSON is equal whatever the order of its keys; numbers, strings and null are compared by value.
    assert.strictEqual(linesOf(schema, { fixed: { scale: [1, 2], unit: "celsius" }, choice: { unit: "kelvin" } }), "valid")
    assert.deepStrictEqual(
      [linesOf(schema, { choice: 3 }), linesOf(schema, { choice: null }), linesOf(schema, { choice: "3" })],
      ["valid", "valid", ["- $.choice: must be equal to one of the allowed values"]]
    )
    assert.deepStrictEqual(linesOf(schema, { fixed: { unit: "celsius", scale: [2, 1] } }), ["- $.fixed: must be equal to constant"])
  })

  it("write paths as Schema issues do: dots, indexes, quoted keys", () => {
    const schema = {
      type: "object",
      properties: {
        a: { type: "object", properties: { b: { type: "integer" } } },
        items: { type: "array", items: { type: "integer" } },
        "weird key": { type: "string" },
        "3": { type: "null" },
        "a/b~c": { type: "null" },
        "é": { type: "null" },
        table: { type: "object", additionalProperties: { type: "array", items: { type: "boolean" } } }
      }
    }
    const value = { a: { b: "x" }, items: [1, 2, 3, "x"], "weird key": 1, "3": 0, "a/b~c": 1, "é": 1, table: { "0": [true, 5] } }
    assert.deepStrictEqual(linesOf(schema, value), [
      "- $[\"3\"]: must be null",
      "- $.a.b: must be integer",
      "- $.items[3]: must be integer",
      "- $[\"weird key\"]: must be string",
      "- $[\"a/b~c\"]: must be null",
      "- $[\"é\"]: must be null",
      "- $.table[\"0\"][1]: must be boolean"
    ])
  })

  it("bound the keys they repeat to 64 characters, never cutting a surrogate pair", () => {
    const exact = "k".repeat(64)
    const cut = `${"k".repeat(63)}😀tail`
    const long = "k".repeat(10_000)
    assert.deepStrictEqual(linesOf(SearchDocs, { query: "q", [exact]: 1, [cut]: 2, [long]: 3 }), [
      `- $.${exact}: is not allowed`,
      `- $["${"k".repeat(63)}…"]: is not allowed`,
      `- $["${"k".repeat(64)}…"]: is not allowed`
    ])
  })

  it("name a key that breaks propertyNames in the path, and say why", () => {
    assert.deepStrictEqual(
      linesOf({ type: "object", propertyNames: { pattern: "^[a-z_]+$", maxLength: 8 } }, { ok: 1, "Bad Key": 2, much_too_long: 3 }),
      [
        "- $[\"Bad Key\"]: the name must match pattern \"^[a-z_]+$\"",
        "- $.much_too_long: the name must NOT have more than 8 characters"
      ]
    )
    assert.deepStrictEqual(linesOf({ type: "object", propertyNames: false }, { a: 1 }), ["- $.a: the name is not allowed"])
  })

  it("never repeat a value that was sent, whatever keyword failed", () => {
    const secret = "sk-live-7f3a9c1e"
    const schema = {
      type: "object",
      properties: {
        kind: { enum: ["a", "b"] },
        fixed: { const: "k" },
        code: { type: "string", pattern: "^x" },
        email: { type: "string", format: "email" },
        site: { type: "string", format: "uri" },
        when: { type: "string", format: "date-time" },
        short: { type: "string", maxLength: 3 },
        count: { type: "integer" },
        not: { not: { type: "string" } },
        either: { anyOf: [{ type: "integer" }, { type: "boolean" }] },
        exactly: { oneOf: [{ type: "string" }, { type: "string", minLength: 2 }] },
        list: { type: "array", contains: { type: "integer" }, uniqueItems: true },
        pair: { type: "array", prefixItems: [{ type: "integer" }], items: false }
      },
      dependentRequired: { kind: ["fixed2"] },
      if: { required: ["kind"] },
      then: { required: ["then_needed"] },
      unevaluatedProperties: false
    }
    const value = {
      kind: secret,
      fixed: secret,
      code: secret,
      email: secret,
      site: `${secret} with spaces`,
      when: secret,
      short: secret,
      count: secret,
      not: secret,
      either: secret,
      exactly: secret,
      list: [secret, secret],
      pair: [secret, secret],
      [`${secret}_key`]: 1
    }
    const lines = linesOf(schema, value)
    assert.deepStrictEqual(lines, [
      "- $.then_needed: is required",
      "- $: must match \"then\" schema",
      "- $.kind: must be equal to one of the allowed values",
      "- $.fixed: must be equal to constant",
      "- $.code: must match pattern \"^x\"",
      "- $.email: must match format \"email\"",
      "- $.site: must match format \"uri\"",
      "- $.when: must match format \"date-time\"",
      "- $.short: must NOT have more than 3 characters",
      "- $.count: must be integer",
      "- $.not: must NOT be valid",
      "- $.either: must be integer",
      "- $.either: must be boolean",
      "- $.either: must match a schema in anyOf",
      "- $.exactly: must match exactly one schema in oneOf",
      "- $.list[0]: must be integer",
      "- $.list[1]: must be integer",
      "- $.list: must contain at least 1 valid item(s)",
      "- $.list: must NOT have duplicate items (items 0 and 1 are identical)",
      "- $.pair[0]: must be integer",
      "- $.pair: must NOT have more than 1 items",
      "- $: must have property fixed2 when property kind is present",
      `- $["${secret}_key"]: is not allowed`
    ])
    // The key is in a path, bounded like any key; no value appears anywhere.
    for (const line of lines as ReadonlyArray<string>) {
      if (!line.startsWith(`- $["${secret}_key"]`)) assert.notInclude(line, secret)
    }
  })

  it("list each line once, in the same order every time", () => {
    const schema = { type: "object", allOf: [{ required: ["a"] }, { required: ["a"] }, { properties: { b: { type: "string" } } }] }
    const first = linesOf(schema, { b: 1 })
    assert.deepStrictEqual(first, ["- $.a: is required", "- $.b: must be string"])
    assert.deepStrictEqual(linesOf(schema, { b: 1 }), first)
  })

  it("stop at 100 lines, and say how many more there were", () => {
    const value = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`extra${i}`, i]))
    const lines = linesOf(SearchDocs, { query: "q", ...value }) as ReadonlyArray<string>
    assert.strictEqual(lines.length, 101)
    assert.deepStrictEqual(
      [lines[0], lines[99], lines[100]],
      ["- $.extra0: is not allowed", "- $.extra99: is not allowed", "- …: 50 more not shown"]
    )
  })

  it("check draft-07 as MCP servers send it: definitions, $ref, tuple items, additionalItems", async () => {
    const { zodToJsonSchema } = await importUntyped("zod-to-json-schema") as {
      readonly zodToJsonSchema: (schema: unknown, options: unknown) => Record<string, unknown>
    }
    const Route = z3.object({
      start: z3.tuple([z3.number(), z3.number()]),
      stops: z3.tuple([z3.string()]).rest(z3.number()),
      contact: z3.string().email()
    })
    const schema = zodToJsonSchema(Route, { name: "Route" })
    assert.deepStrictEqual(
      [schema.$schema, schema.$ref, Object.keys(schema.definitions as object)],
      [draft07, "#/definitions/Route", ["Route"]]
    )
    assert.strictEqual(checkSchema(schema, "plan_route"), "draft-07")
    assert.strictEqual(linesOf(schema, { start: [1, 2], stops: ["home", 3, 4], contact: "ada@example.com" }), "valid")
    assert.deepStrictEqual(linesOf(schema, { start: [1, 2, 3], stops: ["home", "work"], contact: "ada", extra: 1 }), [
      "- $.extra: is not allowed",
      "- $.start: must NOT have more than 2 items",
      "- $.stops[1]: must be number",
      "- $.contact: must match format \"email\""
    ])
  })

  it("check the GitHub server's schemas, with their `#/properties/…` references", () => {
    const response = github.find(({ name }) => name === "GitHubCreateUpdateFileResponseSchema")!.schema
    const commit = (response.properties as Record<string, { readonly properties: Record<string, unknown> }>).commit!
    assert.deepStrictEqual(commit.properties.committer, { $ref: "#/properties/commit/properties/author" })
    const author = { name: "Ada", email: "ada@example.com", date: "2024-01-01T00:00:00Z" }
    const value = {
      content: null,
      commit: {
        sha: "abc",
        node_id: "n",
        url: "u",
        html_url: "h",
        author,
        committer: { ...author, email: 5 },
        message: "m",
        tree: { sha: "t", url: "u" },
        parents: []
      }
    }
    assert.deepStrictEqual(linesOf(response, value), ["- $.commit.committer.email: must be string"])
    assert.strictEqual(linesOf(response, { ...value, commit: { ...value.commit, committer: author } }), "valid")
  })

  it("check 2020-12 as zod 4 writes it: $defs, prefixItems, items: false", () => {
    const Point = z.object({ x: z.number(), y: z.number() }).meta({ id: "Point" })
    const schema = z.toJSONSchema(
      z.object({ from: Point, to: Point, span: z.tuple([z.int(), z.string()]), tags: z.tuple([z.string()], z.number()) })
    ) as Record<string, unknown>
    assert.deepStrictEqual([schema.$schema, Object.keys(schema.$defs as object)], [draft2020, ["Point"]])
    assert.strictEqual(checkSchema(schema, "draw"), "draft-2020-12")
    const valid = { from: { x: 0, y: 1 }, to: { x: 2, y: 3 }, span: [1, "a"], tags: ["t", 1, 2] }
    assert.strictEqual(linesOf(schema, valid), "valid")
    assert.deepStrictEqual(linesOf(schema, { ...valid, to: { x: "2" }, span: [1.5, "a", true], tags: ["t", "u"] }), [
      "- $.to.y: is required",
      "- $.to.x: must be number",
      "- $.span: must NOT have more than 2 items",
      "- $.span[0]: must be integer",
      "- $.tags[1]: must be number"
    ])
  })

  it("check a recursive schema, whose `$ref: \"#\"` zod 4 writes for a type that contains itself", () => {
    interface Tree {
      readonly name: string
      readonly children: ReadonlyArray<Tree>
    }
    const Tree: z.ZodType<Tree> = z.object({
      name: z.string(),
      get children() {
        return z.array(Tree)
      }
    })
    const schema = z.toJSONSchema(Tree) as Record<string, unknown>
    assert.deepStrictEqual((schema.properties as { children: unknown }).children, { type: "array", items: { $ref: "#" } })
    assert.strictEqual(checkSchema(schema, "tree"), "draft-2020-12")
    assert.strictEqual(
      linesOf(schema, { name: "root", children: [{ name: "leaf", children: [] }] }),
      "valid"
    )
    assert.deepStrictEqual(linesOf(schema, { name: "root", children: [{ name: "leaf", children: [{ name: 1 }] }] }), [
      "- $.children[0].children[0].children: is required",
      "- $.children[0].children[0].name: must be string"
    ])
  })

  it("check patterns with identity escapes without the u flag, and every other schema's patterns with it", () => {
    const phone = { type: "object", properties: { phone: { type: "string", pattern: "^\\d{3}\\-\\d{4}$" } } }
    assert.strictEqual(linesOf(phone, { phone: "555-1234" }), "valid")
    assert.deepStrictEqual(linesOf(phone, { phone: "5551234" }), ["- $.phone: must match pattern \"^\\d{3}\\-\\d{4}$\""])
    const keys = { type: "object", patternProperties: { "^x\\-": { type: "string" } } }
    assert.strictEqual(linesOf(keys, { "x-a": "1" }), "valid")
    assert.deepStrictEqual(linesOf(keys, { "x-a": 1 }), ["- $[\"x-a\"]: must be string"])
    // `.` is one UTF-16 unit without the u flag, one code point with it: an emoji is two of the first, one of the second.
    const oneCharacter = (pattern: string) => ({ type: "object", properties: { c: { type: "string", pattern } } })
    assert.deepStrictEqual(linesOf(oneCharacter("^-?.$"), { c: "\u{1F600}" }), "valid")
    assert.deepStrictEqual(linesOf(oneCharacter("^\\#?.$"), { c: "\u{1F600}" }), [
      "- $.c: must match pattern \"^\\#?.$\""
    ])
    // Each pattern by itself: `\p{L}` keeps the u flag, which it needs, next to a pattern that cannot have it.
    const mixed = {
      type: "object",
      properties: { word: { type: "string", pattern: "^\\p{L}+$" }, colour: { type: "string", pattern: "^\\#[0-9a-f]{6}$" } }
    }
    assert.strictEqual(checkSchema(mixed, "t"), "draft-2020-12")
    assert.strictEqual(linesOf(mixed, { word: "Zoë", colour: "#a0b1c2" }), "valid")
    assert.deepStrictEqual(linesOf(mixed, { word: "p{L}", colour: "a0b1c2" }), [
      "- $.word: must match pattern \"^\\p{L}+$\"",
      "- $.colour: must match pattern \"^\\#[0-9a-f]{6}$\""
    ])
  })

  it("check draft-06 and 2019-09 by their own rules: numeric exclusive bounds, dependentRequired, $recursiveRef", () => {
    const limits = { $schema: draft06, type: "object", properties: { n: { type: "number", exclusiveMinimum: 0 } } }
    assert.strictEqual(linesOf(limits, { n: 1 }), "valid")
    assert.deepStrictEqual(linesOf(limits, { n: 0 }), ["- $.n: must be > 0"])
    const card = {
      $schema: draft2019,
      type: "object",
      properties: { card: { type: "string" }, cvc: { type: "string" }, next: { $recursiveRef: "#" } },
      dependentRequired: { card: ["cvc"] },
      unevaluatedProperties: false
    }
    assert.strictEqual(linesOf(card, { card: "4111", cvc: "123", next: { card: "4222", cvc: "456" } }), "valid")
    assert.deepStrictEqual(linesOf(card, { next: { card: "4222", extra: 1 } }), [
      "- $.next: must have property cvc when property card is present",
      "- $.next.extra: is not allowed"
    ])
  })

  it("check multipleOf on numbers as JSON writes them: 19.99 is a multiple of 0.01, 0.015 is not", () => {
    const cents = { type: "number", multipleOf: 0.01 }
    const multiples = [19.99, 4.35, 0.07, 1.1, 0.3, 20, 0, -19.99, 123456789.01]
    assert.deepStrictEqual(multiples.map((amount) => linesOf(cents, amount)), multiples.map(() => "valid" as const))
    const others = [0.015, 19.995, 0.001, -0.07001, 1.5e-7]
    assert.deepStrictEqual(
      others.map((amount) => linesOf(cents, amount)),
      others.map(() => ["- $: must be multiple of 0.01"])
    )
    // Steps below 1e-6, which JavaScript writes with an exponent, and integers with a decimal step.
    const cases: ReadonlyArray<readonly [value: number, step: number, multiple: boolean]> = [
      [3e-7, 1e-7, true],
      [1.5e-7, 1e-7, false],
      [20, 2.5, true],
      [21, 2.5, false],
      [0.75, 0.25, true],
      // Integers are read exactly, however large; ajv's own test reads 1e21 / 1 with parseInt, as 1.
      [1e21, 1, true],
      [1e21, 7, false],
      [2 ** 70, 1024, true],
      [2 ** 70, 7, false],
      // 2^70 is also what 1180591620717411300000 (its shortest decimal, a multiple of 3) reads as.
      [2 ** 70, 3, true],
      [2 ** 53, 3, false],
      // Read as the text a model writes for them: ajv's own test took these as multiples.
      [1e23, 1000, true],
      [12345678901234567890, 10, true],
      [1e23, 1e22, true],
      [3e23, 1e23, true],
      [1e23, 7, false]
    ]
    for (const [value, step, multiple] of cases) {
      assert.deepStrictEqual(
        linesOf({ multipleOf: step }, value),
        multiple ? "valid" : [`- $: must be multiple of ${step}`],
        `${value} / ${step}`
      )
    }
  })

  it("ignore a `nullable` ajv would not compile, as JSON Schema ignores a keyword no dialect defines", () => {
    const milestone = { type: "object", properties: { id: { type: "integer" } }, required: ["id"] }
    // As OpenAPI generators write it: `nullable` beside `allOf`, and no `type`.
    const withNullable = {
      type: "object",
      properties: {
        milestone: { nullable: true, allOf: [{ $ref: "#/$defs/Milestone" }] },
        state: { type: ["string", "null"], nullable: false, enum: ["open", "closed", null] },
        label: { type: "string", nullable: "sometimes" },
        tag: { $ref: "#/components/schemas/Tag" },
        // A reference to a schema that loses its `nullable` still leads to it.
        previous: { $ref: "#/properties/milestone" }
      },
      $defs: { Milestone: milestone },
      components: { schemas: { Tag: { nullable: true, minLength: 2 } } }
    }
    const without = {
      type: "object",
      properties: {
        milestone: { allOf: [{ $ref: "#/$defs/Milestone" }] },
        state: { type: ["string", "null"], enum: ["open", "closed", null] },
        label: { type: "string" },
        tag: { $ref: "#/components/schemas/Tag" },
        previous: { $ref: "#/properties/milestone" }
      },
      $defs: { Milestone: milestone },
      components: { schemas: { Tag: { minLength: 2 } } }
    }
    const values = [
      {},
      { milestone: { id: 1 }, state: "open", label: "bug", tag: "ui", previous: { id: 0 } },
      { milestone: null, state: null, label: null, tag: "u", previous: { id: "0" } },
      { milestone: {}, state: "merged", tag: 1 }
    ]
    for (const value of values) {
      assert.deepStrictEqual(linesOf(withNullable, value), linesOf(without, value), JSON.stringify(value))
    }
    assert.deepStrictEqual(linesOf(withNullable, values[2]), [
      "- $.milestone: must be object",
      "- $.label: must be string",
      "- $.tag: must NOT have fewer than 2 characters",
      "- $.previous.id: must be integer"
    ])
    // ajv reads `nullable: true` beside a `type` as allowing null too, and still does.
    assert.strictEqual(linesOf({ type: "string", nullable: true }, null), "valid")
    // Data and the names of properties are not schemas: a `nullable` there stays.
    const named = {
      type: "object",
      properties: { nullable: false, fixed: { const: { nullable: true } }, choice: { enum: [{ nullable: 1 }] } },
      $defs: { nullable: true },
      propertyNames: { $ref: "#/$defs/nullable" }
    }
    assert.deepStrictEqual(linesOf(named, { nullable: 1, fixed: {}, choice: {} }), [
      "- $.nullable: is not allowed",
      "- $.fixed: must be equal to constant",
      "- $.choice: must be equal to one of the allowed values"
    ])
    assert.strictEqual(linesOf(named, { fixed: { nullable: true }, choice: { nullable: 1 } }), "valid")
  })

  it("compare a scalar const or enum with ===, as ajv does, and accept nothing for an empty enum", () => {
    const notOneOf = ["- $: must be equal to one of the allowed values"]
    assert.deepStrictEqual(
      [linesOf({ enum: [] }, 1), linesOf({ enum: [] }, null), linesOf({ enum: [] }, {}), linesOf({ enum: [] }, [])],
      [notOneOf, notOneOf, notOneOf, notOneOf]
    )
    const quoted = "a\u2028\"'`${b}\\"
    assert.deepStrictEqual(
      [
        linesOf({ const: 0 }, JSON.parse("-0")),
        linesOf({ enum: [JSON.parse("-0")] }, 0),
        linesOf({ const: quoted }, quoted),
        linesOf({ enum: [1, quoted, null, false] }, quoted),
        linesOf({ const: 1 }, "1"),
        linesOf({ const: null }, {}),
        linesOf({ enum: [false, 0, ""] }, null),
        linesOf({ enum: ["a", 1] }, ["a"])
      ],
      [
        "valid",
        "valid",
        "valid",
        "valid",
        ["- $: must be equal to constant"],
        ["- $: must be equal to constant"],
        notOneOf,
        notOneOf
      ]
    )
  })

  it("compile 20,000 consts and enums, of scalars and of objects, in one schema", () => {
    const alternative = (i: number) =>
      i % 3 === 0 ? { const: `k${i}` } : i % 3 === 1 ? { enum: [`e${i}`, i] } : { const: { id: i } }
    const many = { anyOf: Array.from({ length: 20_000 }, (_, i) => alternative(i)) }
    assert.deepStrictEqual(
      [linesOf(many, "k19998"), linesOf(many, "e19999"), linesOf(many, { id: 19997 }), linesOf(many, 19999)],
      ["valid", "valid", "valid", "valid"]
    )
  }, 60_000)

  it("check formats, in both dialects: email, uri, date-time", () => {
    const formats = { email: { format: "email" }, site: { format: "uri" }, when: { format: "date-time" } }
    for (const $schema of [draft07, draft2020]) {
      const schema = { $schema, type: "object", properties: formats }
      assert.strictEqual(linesOf(schema, { email: "ada@example.com", site: "https://example.com/a?b=c", when: "2024-02-29T12:30:00Z" }), "valid")
      assert.deepStrictEqual(linesOf(schema, { email: "ada at example", site: "not a uri", when: "2024-02-30T12:30:00Z" }), [
        "- $.email: must match format \"email\"",
        "- $.site: must match format \"uri\"",
        "- $.when: must match format \"date-time\""
      ])
    }
  })

  it("check outputs with the same machinery: the filesystem server's outputSchema", () => {
    const tool = filesystem.find(({ name }) => name === "read_text_file")!
    const output = tool.outputSchema!
    assert.deepStrictEqual(output.required, ["content"])
    assert.strictEqual(linesOf(output, { content: "hello" }), "valid")
    assert.deepStrictEqual(linesOf(output, { content: 5, size: 10 }), ["- $.size: is not allowed", "- $.content: must be string"])
  })
})

// -------------------------------------------------------------------------------------------------------------
// Loading
// -------------------------------------------------------------------------------------------------------------

describe("loading", () => {
  it("does not load ajv when the package or this module is imported; the first check loads it", () => {
    const script = `
      const { createRequire } = await import("node:module")
      const cache = createRequire(process.cwd() + "/").cache
      const ajvLoaded = () => Object.keys(cache).some((path) => path.includes("/node_modules/ajv/"))
      await import("./src/index.ts")
      const validator = await import("./src/internal/jsonSchemaValidator.ts")
      const afterImport = ajvLoaded()
      validator.checkSchema({ type: "object" }, "t")
      console.log(JSON.stringify([afterImport, ajvLoaded()]))
    `
    const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", script], {
      cwd: repositoryRoot,
      encoding: "utf8"
    })
    assert.deepStrictEqual(JSON.parse(output.trim()), [false, true])
  }, 30_000)
})

// -------------------------------------------------------------------------------------------------------------
// Properties
// -------------------------------------------------------------------------------------------------------------

/** Every string in a JSON value, prefixed with `marker`; keys are left as they are, since paths may show them. */
const marked = (value: Schema.Json, marker: string): Schema.Json => {
  if (typeof value === "string") return `${marker}${value}`
  if (Array.isArray(value)) return value.map((inner) => marked(inner, marker))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, marked(inner as Schema.Json, marker)]))
  }
  return value
}

const KeywordZoo = {
  type: "object",
  properties: {
    kind: { enum: ["a", "b", 1] },
    fixed: { const: { k: "v" } },
    code: { type: "string", pattern: "^[a-z]+$", minLength: 2, maxLength: 5 },
    email: { type: "string", format: "email" },
    site: { type: "string", format: "uri" },
    when: { type: "string", format: "date-time" },
    count: { type: "integer", minimum: 0, maximum: 10, multipleOf: 2 },
    either: { anyOf: [{ type: "integer" }, { type: "array", items: { type: "string" } }] },
    list: { type: "array", uniqueItems: true, contains: { const: "x" }, maxItems: 3 },
    nested: { type: "object", additionalProperties: { type: "boolean" }, propertyNames: { maxLength: 3 } }
  },
  required: ["kind"],
  additionalProperties: false
}

const propertyNames = (schema: Record<string, unknown>): Array<string> =>
  Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {})

const markerSchemas: ReadonlyArray<NamedSchema> = [
  { name: "search_docs", schema: SearchDocs },
  { name: "add", schema: Add },
  { name: "keyword zoo", schema: KeywordZoo },
  ...github.slice(0, 10),
  ...filesystem.slice(0, 5).map(({ inputSchema, name }) => ({ name, schema: inputSchema }))
]

describe("properties", () => {
  it.prop(
    "any JSON value gives a success or mismatch lines, never a throw, and no line repeats a string that was sent",
    [Schema.Json, Schema.Array(Schema.Json)],
    ([anything, values]) => {
      const marker = "Zq7-sent-4Kx"
      for (const { name: schemaName, schema } of markerSchemas) {
        const names = propertyNames(schema)
        const inputs = [
          marked(anything, marker),
          marked(Object.fromEntries(names.map((name, i) => [name, values[i % Math.max(values.length, 1)] ?? anything])), marker)
        ]
        for (const input of inputs) {
          const result = validatorOf(schema).validate(input)
          if (Result.isSuccess(result)) continue
          assert.strictEqual(
            result.failure._tag,
            "Mismatch",
            `${schemaName}: ${result.failure._tag === "ValidatorError" ? result.failure.reason : ""}`
          )
          const lines = result.failure._tag === "Mismatch" ? result.failure.lines : []
          assert.isAbove(lines.length, 0)
          for (const line of lines) {
            assert.match(line, /^- (\$|…)/)
            assert.notInclude(line, marker)
          }
        }
      }
    },
    { arbitrary: { runs: 200 } }
  )

  const Steps = ["0.01", "0.05", "0.1", "0.25", "0.5", "2.5", "0.001"] as const
  const stepSchemas = new Map(Steps.map((step) => [step, { type: "number", multipleOf: Number(step) }]))

  /** `units` × 10^-scale as decimal text: 1999n and 2 are "19.99". */
  const decimalText = (units: bigint, scale: number): string => {
    const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, "0")
    return `${units < 0n ? "-" : ""}${digits.slice(0, -scale)}.${digits.slice(-scale)}`
  }

  it.prop(
    "k × step as a short decimal is a multiple of a decimal step for any integer k, and k × step + step / 2 is not",
    [Schema.Int.check(Schema.isBetween({ minimum: -1e9, maximum: 1e9 })), Schema.Literals(Steps)],
    ([k, step]) => {
      const [whole, fraction = ""] = step.split(".")
      const units = BigInt(`${whole}${fraction}`)
      const schema = stepSchemas.get(step)!
      const multiple = Number(decimalText(BigInt(k) * units, fraction.length))
      const between = Number(decimalText((2n * BigInt(k) + 1n) * units * 5n, fraction.length + 1))
      assert.strictEqual(linesOf(schema, multiple), "valid", `${multiple} / ${step}`)
      assert.deepStrictEqual(linesOf(schema, between), [`- $: must be multiple of ${step}`], `${between} / ${step}`)
    },
    { arbitrary: { runs: 500 } }
  )

  const Scalar = Schema.Union([Schema.String, Schema.Finite, Schema.Boolean, Schema.Null])
  const isScalar = (value: unknown): boolean => typeof value !== "object" || value === null

  it.prop(
    "a const or enum of scalars accepts exactly the values === one of them, whichever code compares them",
    [Schema.Array(Scalar), Schema.Array(Scalar), Schema.Json],
    ([allowed, others, json]) => {
      // A scalar const is ajv's own code; an enum, and a const that is an object, compare as JSON.
      const marker = { "~marker": "Zq7-not-sent" }
      const scalarEnum = { enum: allowed }
      const mixedEnum = { enum: [...allowed, marker] }
      const singles = allowed.map((one) => ({ one, asConst: { const: one }, asEnum: { enum: [one] } }))
      const negated = allowed.flatMap((value) => typeof value === "number" ? [-value] : [])
      for (const value of [...allowed, ...negated, ...others, 0, -0, "", json]) {
        const member = isScalar(value) && allowed.some((one) => one === value)
        const enumLines = member ? "valid" : ["- $: must be equal to one of the allowed values"]
        assert.deepStrictEqual(linesOf(scalarEnum, value), enumLines, JSON.stringify(value))
        assert.deepStrictEqual(linesOf(mixedEnum, value), enumLines, JSON.stringify(value))
        for (const { one, asConst, asEnum } of singles) {
          const equal = isScalar(value) && value === one
          const lines: ReadonlyArray<unknown> = [linesOf(asConst, value), linesOf(asEnum, value)]
          const expected: ReadonlyArray<unknown> = equal
            ? ["valid", "valid"]
            : [["- $: must be equal to constant"], ["- $: must be equal to one of the allowed values"]]
          assert.deepStrictEqual(lines, expected, `${JSON.stringify(value)} against ${JSON.stringify(one)}`)
        }
      }
    },
    { arbitrary: { runs: 100 } }
  )

  const realSchemas: ReadonlyArray<NamedSchema> = [
    { name: "search_docs", schema: SearchDocs },
    { name: "add", schema: Add },
    ...github,
    ...filesystem.flatMap((tool) => [
      { name: `${tool.name} input`, schema: tool.inputSchema },
      ...tool.outputSchema === undefined ? [] : [{ name: `${tool.name} output`, schema: tool.outputSchema }]
    ]),
    {
      name: "zod 4 route",
      schema: z.toJSONSchema(
        z.object({
          from: z.object({ x: z.number(), y: z.number() }).meta({ id: "Point2" }),
          span: z.tuple([z.int().min(-5).max(5), z.string().max(3)]),
          tags: z.tuple([z.string()], z.number().gt(0).lt(1)),
          kind: z.enum(["walk", "ride"]),
          email: z.email(),
          site: z.url(),
          when: z.iso.datetime(),
          note: z.string().min(2).max(4).optional(),
          count: z.int().min(1).max(20).nullable(),
          literal: z.literal("fixed")
        })
      ) as Record<string, unknown>
    }
  ]

  it.prop(
    "values generated from real tool schemas always pass validation",
    // The test kit's generator, before the validator filters anything: it builds values from the schema alone.
    [Arbitrary.all(realSchemas.map(({ schema }) => new Compiler(schema).value()))],
    ([values]) => {
      values.forEach((value, i) => {
        const { name, schema } = realSchemas[i]!
        const lines = linesOf(schema, value)
        assert.strictEqual(lines, "valid", `${name}: ${JSON.stringify(value)}\n${lines === "valid" ? "" : lines.join("\n")}`)
      })
    },
    { timeout: 60_000, arbitrary: { runs: 60 } }
  )
})
