import { describe, expectTypeOf, it } from "@effect/vitest"
import { Context, type Duration, Effect, Schema } from "effect"
import { DynamicTool, Tool, ToolCall, ToolContext, ToolExecutionError, type ToolResult, ToolSet } from "../src/index.ts"

class CurrentUser extends Context.Service<CurrentUser, { readonly id: string }>()("app/CurrentUser") {}
class Database extends Context.Service<Database, { readonly lookup: (id: string) => string }>()("app/Database") {}
class AuditRecord extends Context.Service<AuditRecord, number>()("app/AuditRecord") {}
class Overflow extends Schema.TaggedError<Overflow>()("Overflow", { limit: Schema.Int }) {}

const Add = Tool.make("add", {
  description: "Add two integers",
  parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
  success: Schema.Struct({ value: Schema.Int }),
  failure: Overflow,
  call: Effect.fn("add")(function*({ left, right }) {
    yield* CurrentUser
    const value = left + right
    yield* ToolContext.insertResult(AuditRecord, value)
    return { value }
  })
})

const Lookup = Tool.make("lookup", {
  description: "Look a user up",
  parameters: Schema.Struct({ id: Schema.String }),
  call: ({ id }) => Effect.map(Database, (db) => db.lookup(id))
})

// Uses only what dispatch provides: the per-call context.
const Facts = Tool.make("facts", {
  description: "The call's facts",
  parameters: Schema.Struct({}),
  call: () =>
    Effect.gen(function*() {
      const callId = yield* ToolContext.callId
      const toolName = yield* ToolContext.toolName
      yield* ToolContext.insertResult(AuditRecord, 1)
      return { callId, toolName }
    })
})

const call = ToolCall.make({ id: "call_1", name: "add", arguments: "{\"left\":1,\"right\":2}" })

// Accepts only an Effect that needs nothing more: what `Effect.runPromise` demands, without running anything.
const runnable = <A, E>(_effect: Effect.Effect<A, E, never>): void => undefined

describe("types", () => {
  it("the tool name is a literal type", () => {
    expectTypeOf<Tool.Name<typeof Add>>().toEqualTypeOf<"add">()
    expectTypeOf(Add.name).toEqualTypeOf<"add">()
    expectTypeOf(ToolSet.names(ToolSet.make(Add, Lookup))).toEqualTypeOf<ReadonlyArray<"add" | "lookup">>()
  })

  it("Parameters, Output and Requirements come from the Schemas and the call", () => {
    expectTypeOf<Tool.Parameters<typeof Add>>().toEqualTypeOf<{ readonly left: number; readonly right: number }>()
    expectTypeOf<Tool.Output<typeof Add>>().toEqualTypeOf<{ readonly value: number }>()
    expectTypeOf<Tool.Requirements<typeof Add>>().toEqualTypeOf<CurrentUser>()
    expectTypeOf<Tool.Parameters<typeof Lookup>>().toEqualTypeOf<{ readonly id: string }>()
    expectTypeOf<Tool.Output<typeof Lookup>>().toEqualTypeOf<string>()
    expectTypeOf<Tool.Requirements<typeof Lookup>>().toEqualTypeOf<Database>()
  })

  it("Failure is the call's typed error channel", () => {
    const Fails = Tool.make("fails", {
      description: "Fails",
      parameters: Schema.Struct({}),
      call: () => Effect.fail(new Overflow({ limit: 1 }))
    })
    expectTypeOf<Tool.Failure<typeof Fails>>().toEqualTypeOf<Overflow>()
    expectTypeOf<Tool.Failure<typeof Lookup>>().toEqualTypeOf<never>()
  })

  it("the seed example has the type the design gives it", () => {
    // The design: `Add: Tool<"add", {left:number,right:number}, {value:number}, Overflow, CurrentUser>` — the
    // `failure` Schema names the tool's typed errors even when this call never fails with one.
    expectTypeOf(Add).toEqualTypeOf<
      Tool.Tool<"add", { readonly left: number; readonly right: number }, { readonly value: number }, Overflow, CurrentUser>
    >()
  })

  it("ToolSet.execute requires the union of the tools' requirements", () => {
    const set = ToolSet.make(Add, Lookup, Facts)
    expectTypeOf(ToolSet.execute(set, call)).toEqualTypeOf<
      Effect.Effect<ToolResult.ToolResult, never, CurrentUser | Database>
    >()
    expectTypeOf(set.pipe(ToolSet.execute(call))).toEqualTypeOf<
      Effect.Effect<ToolResult.ToolResult, never, CurrentUser | Database>
    >()
    expectTypeOf(ToolSet.executeAll(set, [call])).toEqualTypeOf<
      Effect.Effect<Array<ToolResult.ToolResult>, never, CurrentUser | Database>
    >()
    expectTypeOf<ToolSet.Requirements<typeof set>>().toEqualTypeOf<CurrentUser | Database>()
    expectTypeOf(ToolSet.execute(ToolSet.remove(set, "lookup"), call)).toEqualTypeOf<
      Effect.Effect<ToolResult.ToolResult, never, CurrentUser>
    >()
  })

  it("executing without a required service does not compile", () => {
    const set = ToolSet.make(Add, Lookup)
    const unprovided = () =>
      // @ts-expect-error CurrentUser and Database are required
      Effect.runPromise(ToolSet.execute(set, call))
    const halfProvided = () =>
      // @ts-expect-error Database is still required
      Effect.runPromise(ToolSet.execute(set, call).pipe(Effect.provideService(CurrentUser, { id: "u" })))
    const provided = () =>
      Effect.runPromise(
        ToolSet.execute(set, call).pipe(
          Effect.provideService(CurrentUser, { id: "u" }),
          Effect.provideService(Database, { lookup: (id) => id })
        )
      )
    expectTypeOf(unprovided).returns.toEqualTypeOf<Promise<ToolResult.ToolResult>>()
    expectTypeOf(halfProvided).returns.toEqualTypeOf<Promise<ToolResult.ToolResult>>()
    expectTypeOf(provided).returns.toEqualTypeOf<Promise<ToolResult.ToolResult>>()
  })

  it("ToolContext is not a requirement: dispatch provides it", () => {
    expectTypeOf<Tool.Requirements<typeof Facts>>().toEqualTypeOf<never>()
    expectTypeOf(Facts.call).returns.toEqualTypeOf<
      Effect.Effect<{ callId: string; toolName: string }, never, ToolContext.ToolContext>
    >()
    const set = ToolSet.make(Facts)
    expectTypeOf(ToolSet.execute(set, call)).toEqualTypeOf<Effect.Effect<ToolResult.ToolResult, never, never>>()
    runnable(ToolSet.execute(set, call))
    // @ts-expect-error a tool's call on its own still needs the ToolContext that only dispatch gives it
    runnable(Facts.call({}))
  })

  it("a call returning a value that does not match `success` does not compile", () => {
    const Wrong = Tool.make("wrong", {
      description: "Returns the wrong shape",
      parameters: Schema.Struct({}),
      success: Schema.Struct({ value: Schema.Int }),
      // @ts-expect-error `value` must be a number
      call: () => Effect.succeed({ value: "three" })
    })
    const Right = Tool.make("right", {
      description: "Returns the right shape",
      parameters: Schema.Struct({}),
      success: Schema.Struct({ value: Schema.Int }),
      call: () => Effect.succeed({ value: 3 })
    })
    expectTypeOf(Right).toEqualTypeOf<Tool.Tool<"right", {}, { readonly value: number }, never, never>>()
    expectTypeOf(Wrong.name).toEqualTypeOf<"wrong">()
  })

  it("arguments are typed by the parameters Schema", () => {
    const Typed = Tool.make("typed", {
      description: "Reads its arguments",
      parameters: Schema.Struct({ count: Schema.Int }),
      // @ts-expect-error `name` is not a parameter
      call: ({ name }) => Effect.succeed(name)
    })
    expectTypeOf(Typed.name).toEqualTypeOf<"typed">()
  })

  it("mapError sees the failure Schema's type, and unknown without one", () => {
    Tool.make("with_failure", {
      description: "Has a failure Schema",
      parameters: Schema.Struct({}),
      failure: Overflow,
      mapError: (error) => {
        expectTypeOf(error).toEqualTypeOf<Overflow>()
        return ToolExecutionError.other(`overflow past ${error.limit}`)
      },
      call: () => Effect.fail(new Overflow({ limit: 1 }))
    })
    Tool.make("without_failure", {
      description: "Has no failure Schema",
      parameters: Schema.Struct({}),
      mapError: (error) => {
        expectTypeOf(error).toEqualTypeOf<unknown>()
        // @ts-expect-error without a failure Schema the error is unknown
        return ToolExecutionError.other(`${error.limit}`)
      },
      call: () => Effect.fail(new Overflow({ limit: 1 }))
    })
    Tool.make("must_return_an_error", {
      description: "mapError must fold into a ToolExecutionError",
      parameters: Schema.Struct({}),
      failure: Overflow,
      // @ts-expect-error mapError returns a ToolExecutionError
      mapError: (error) => error.limit,
      call: () => Effect.fail(new Overflow({ limit: 1 }))
    })
  })

  it("a tool with a failure Schema cannot fail with an error it did not declare", () => {
    class Undeclared extends Schema.TaggedError<Undeclared>()("Undeclared", {}) {}
    Tool.make("declared_only", {
      description: "Fails only as declared",
      parameters: Schema.Struct({}),
      failure: Overflow,
      call: () =>
        Effect.gen(function*() {
          // Errors dispatch handles itself stay allowed next to the declared one.
          yield* ToolContext.require(CurrentUser)
          if (Math.random() > 2) return yield* ToolExecutionError.other("folded by the author")
          return yield* new Overflow({ limit: 1 })
        })
    })
    Tool.make("undeclared", {
      description: "Fails with something else",
      parameters: Schema.Struct({}),
      failure: Overflow,
      // @ts-expect-error Undeclared is not the failure Schema's type
      call: () => Effect.fail(new Undeclared())
    })
    Tool.make("anything_goes", {
      description: "Without a failure Schema any error is allowed",
      parameters: Schema.Struct({}),
      call: () => Effect.fail(new Undeclared())
    })
  })

  it("parameters must be a Schema of an object", () => {
    Tool.make("record", {
      description: "A record",
      parameters: Schema.Record(Schema.String, Schema.Number),
      call: (args) => Effect.succeed(Object.keys(args).length)
    })
    Tool.make("union", {
      description: "A union of structs",
      parameters: Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.Number })]),
      call: () => Effect.succeed("ok")
    })
    // Checked by the compiler only: `Tool.make` throws for these (see Tool.test.ts).
    const refused = () => [
      Tool.make("string", {
        description: "Not an object",
        // @ts-expect-error a string is not an object
        parameters: Schema.String,
        call: () => Effect.succeed("never")
      }),
      Tool.make("array", {
        description: "Not an object either",
        // @ts-expect-error an array is not an object
        parameters: Schema.Array(Schema.String),
        call: () => Effect.succeed("never")
      })
    ]
    expectTypeOf(refused).toBeFunction()
  })

  it("parameters whose JSON encoding is not an object do not compile, though their type is an object", () => {
    // Checked by the compiler only: `Tool.make` throws for these (see Tool.test.ts).
    const refused = () => [
      Tool.make("date", {
        description: "JSON carries a Date as a string",
        // @ts-expect-error a Date is encoded to a string
        parameters: Schema.Date,
        call: () => Effect.succeed("never")
      }),
      Tool.make("map", {
        description: "JSON carries a Map as an array of pairs",
        // @ts-expect-error a Map is encoded to an array
        parameters: Schema.ReadonlyMap(Schema.String, Schema.Number),
        call: () => Effect.succeed("never")
      }),
      Tool.make("set", {
        description: "JSON carries a Set as an array",
        // @ts-expect-error a Set is encoded to an array
        parameters: Schema.ReadonlySet(Schema.String),
        call: () => Effect.succeed("never")
      }),
      Tool.make("object_or_array", {
        description: "A union with a branch no JSON object decodes to",
        // @ts-expect-error one branch is an array
        parameters: Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Array(Schema.String)]),
        call: () => Effect.succeed("ok")
      }),
      Tool.make("null_or_object", {
        description: "A union with null",
        // @ts-expect-error one branch is null
        parameters: Schema.NullOr(Schema.Struct({})),
        call: () => Effect.succeed("ok")
      }),
      Tool.make("tuple", {
        description: "A tuple",
        // @ts-expect-error a tuple is an array
        parameters: Schema.Tuple([Schema.String]),
        call: () => Effect.succeed("ok")
      })
    ]
    expectTypeOf(refused).toBeFunction()
    // Field names are free: the check looks at symbol keys only.
    const Named = Tool.make("named", {
      description: "Fields named like the members of arrays, maps and dates",
      parameters: Schema.Struct({
        length: Schema.Int,
        size: Schema.Int,
        getTime: Schema.String,
        entries: Schema.String
      }),
      call: ({ length, size }) => Effect.succeed(length + size)
    })
    expectTypeOf<Tool.Parameters<typeof Named>>().toEqualTypeOf<
      { readonly length: number; readonly size: number; readonly getTime: string; readonly entries: string }
    >()
    const Dated = Tool.make("dated", {
      description: "A Date inside an object is fine",
      parameters: Schema.Struct({ at: Schema.Date }),
      call: ({ at }) => Effect.succeed(at.getTime())
    })
    expectTypeOf<Tool.Parameters<typeof Dated>>().toEqualTypeOf<{ readonly at: Date }>()
  })

  it("a generic helper over Tool.ParametersSchema, or over fields of Tool.AnySchema, can call Tool.make", () => {
    const echo = <const Name extends string, P extends Tool.ParametersSchema>(name: Name, parameters: P) =>
      Tool.make(name, { description: "Echo", parameters, call: (args) => Effect.succeed(args) })
    const fromFields = <const Name extends string, F extends Record<string, Tool.AnySchema>>(name: Name, fields: F) =>
      Tool.make(name, {
        description: "Echo",
        parameters: Schema.Struct(fields),
        call: (args) => Effect.succeed(JSON.stringify(args))
      })
    expectTypeOf(echo("echo", Schema.Struct({ text: Schema.String }))).toEqualTypeOf<
      Tool.Tool<"echo", { readonly text: string }, { readonly text: string }, never, never>
    >()
    expectTypeOf(fromFields("fields", { n: Schema.Int, note: Schema.optionalKey(Schema.String) })).toEqualTypeOf<
      Tool.Tool<"fields", { readonly n: number; readonly note?: string }, string, never, never>
    >()
    const refused = () => [
      // @ts-expect-error the helper's constraint keeps out what Tool.make refuses
      echo("scalar", Schema.String),
      // @ts-expect-error and so does it for a Date
      echo("date", Schema.Date)
    ]
    expectTypeOf(refused).toBeFunction()
  })

  it("replacing or removing a tool removes its requirements, but only for a name known exactly", () => {
    const NeedsDb = Tool.make("shared", {
      description: "Needs the database",
      parameters: Schema.Struct({}),
      call: () => Effect.map(Database, (db) => db.lookup("x"))
    })
    const NeedsUser = Tool.make("shared", {
      description: "Needs the user",
      parameters: Schema.Struct({}),
      call: () => Effect.map(CurrentUser, (user) => user.id)
    })
    const replaced = ToolSet.make(NeedsDb).pipe(ToolSet.add(NeedsUser))
    expectTypeOf<ToolSet.Requirements<typeof replaced>>().toEqualTypeOf<CurrentUser>()
    const merged = ToolSet.merge(ToolSet.make(NeedsDb), ToolSet.make(NeedsUser))
    expectTypeOf<ToolSet.Requirements<typeof merged>>().toEqualTypeOf<CurrentUser>()
    const removed = ToolSet.remove(ToolSet.make(NeedsDb, Lookup), "shared")
    expectTypeOf<ToolSet.Requirements<typeof removed>>().toEqualTypeOf<Database>()
    const someName: string = "shared"
    const removedByString = ToolSet.remove(ToolSet.make(NeedsDb), someName)
    expectTypeOf<ToolSet.Requirements<typeof removedByString>>().toEqualTypeOf<Database>()
  })

  describe("tools whose name is not one literal replace and remove nothing in the type", () => {
    const Who = Tool.make("who", {
      description: "Who is asking",
      parameters: Schema.Struct({}),
      call: () => Effect.map(CurrentUser, (user) => user.id)
    })
    const mine = ToolSet.make(Who)
    const whoCall = ToolCall.make({ id: "1", name: "who", arguments: {} })
    // Tools imported at run time (`McpClient`, `DynamicTool.fromSpec`) are named `string`.
    const imported: ReadonlyArray<DynamicTool.PortableTool> = []
    const importedOne = DynamicTool.portable(String("imported"), {
      description: "Imported",
      parameters: { type: "object" },
      call: Effect.succeed
    })

    it("merge with tools named `string` keeps the requirements", () => {
      const merged = ToolSet.merge(mine, ToolSet.make(...imported))
      expectTypeOf<ToolSet.Requirements<typeof merged>>().toEqualTypeOf<CurrentUser>()
      // @ts-expect-error CurrentUser is still required
      runnable(ToolSet.execute(merged, whoCall))
      const piped = mine.pipe(ToolSet.merge(ToolSet.make(...imported)))
      expectTypeOf<ToolSet.Requirements<typeof piped>>().toEqualTypeOf<CurrentUser>()
    })

    it("add of a tool named `string` keeps the requirements", () => {
      const added = ToolSet.add(mine, importedOne)
      expectTypeOf<ToolSet.Requirements<typeof added>>().toEqualTypeOf<CurrentUser>()
      // @ts-expect-error CurrentUser is still required
      runnable(ToolSet.execute(added, whoCall))
      const NeedsDb = DynamicTool.make(String("lookup"), {
        description: "Needs the database",
        parameters: { type: "object" },
        call: () => Effect.map(Database, (db) => db.lookup("x"))
      })
      const both = mine.pipe(ToolSet.add(NeedsDb))
      expectTypeOf<ToolSet.Requirements<typeof both>>().toEqualTypeOf<CurrentUser | Database>()
    })

    it("a name typed as a union or a pattern replaces nothing; an exact one in the same set still does", () => {
      const unionNamed = Tool.make("who" as "who" | "other", {
        description: "One of two names",
        parameters: Schema.Struct({}),
        call: () => Effect.succeed("x")
      })
      const byUnion = ToolSet.add(mine, unionNamed)
      expectTypeOf<ToolSet.Requirements<typeof byUnion>>().toEqualTypeOf<CurrentUser>()
      const patternNamed = Tool.make("who" as `w${string}`, {
        description: "A pattern",
        parameters: Schema.Struct({}),
        call: () => Effect.succeed("x")
      })
      const byPattern = ToolSet.add(mine, patternNamed)
      expectTypeOf<ToolSet.Requirements<typeof byPattern>>().toEqualTypeOf<CurrentUser>()
      const ExactWho = Tool.make("who", {
        description: "Replaces who",
        parameters: Schema.Struct({}),
        call: () => Effect.succeed("x")
      })
      const replaced = ToolSet.merge(mine, ToolSet.make(ExactWho, importedOne))
      expectTypeOf<ToolSet.Requirements<typeof replaced>>().toEqualTypeOf<never>()
    })

    it("remove by a name typed as a union of literals, or as a pattern, keeps the requirements", () => {
      const which = "who" as "who" | "other"
      const removed = ToolSet.remove(mine, which)
      expectTypeOf<ToolSet.Requirements<typeof removed>>().toEqualTypeOf<CurrentUser>()
      // @ts-expect-error CurrentUser is still required: at run time only one of the names is removed
      runnable(ToolSet.execute(removed, whoCall))
      const piped = mine.pipe(ToolSet.remove(which))
      expectTypeOf<ToolSet.Requirements<typeof piped>>().toEqualTypeOf<CurrentUser>()
      const byPattern = ToolSet.remove(mine, "who" as `w${string}`)
      expectTypeOf<ToolSet.Requirements<typeof byPattern>>().toEqualTypeOf<CurrentUser>()
      const exact = ToolSet.remove(mine, "who")
      expectTypeOf<ToolSet.Requirements<typeof exact>>().toEqualTypeOf<never>()
    })

    it("a helper generic over the tools keeps their requirements", () => {
      const run = <T extends Tool.Any>(set: ToolSet.ToolSet<T>) => ToolSet.execute(set, whoCall)
      expectTypeOf(run(mine)).toEqualTypeOf<Effect.Effect<ToolResult.ToolResult, never, CurrentUser>>()
      // @ts-expect-error CurrentUser is required
      runnable(run(mine))
    })
  })

  it("the service of a layer keeps the per-call requirements only", () => {
    class Tools extends Context.Service<Tools, ToolSet.Service<CurrentUser>>()("app/Tools") {}
    const layer = ToolSet.toLayer(Tools, ToolSet.make(Add, Lookup))
    expectTypeOf(layer).toEqualTypeOf<import("effect").Layer.Layer<Tools, never, Database>>()
  })
})

describe("runtime and portable tool types", () => {
  it("a dynamic tool's arguments are a JSON object, and its services are its requirements", () => {
    const Search = DynamicTool.make("search_docs", {
      description: "Search",
      parameters: { type: "object", properties: { query: { type: "string" } } },
      call: (args) => {
        expectTypeOf(args).toEqualTypeOf<DynamicTool.Arguments>()
        expectTypeOf(args).toEqualTypeOf<{ readonly [x: string]: Schema.Json }>()
        return Effect.map(Database, (db) => db.lookup(String(args.query)))
      }
    })
    expectTypeOf(Search).toEqualTypeOf<Tool.Tool<"search_docs", DynamicTool.Arguments, unknown, never, Database>>()
    // ToolContext is not a requirement: dispatch provides it, as for Tool.make.
    const WithContext = DynamicTool.make("with_context", {
      description: "Reads its call id",
      parameters: { type: "object" },
      call: () => ToolContext.callId
    })
    expectTypeOf<Tool.Requirements<typeof WithContext>>().toEqualTypeOf<never>()
  })

  it("a portable tool needs nothing and fails only with a ToolExecutionError", () => {
    const Echo = DynamicTool.portable("echo", {
      description: "Echo",
      parameters: { type: "object" },
      call: (args) => Effect.succeed(args)
    })
    expectTypeOf(Echo).toEqualTypeOf<DynamicTool.PortableTool<"echo">>()
    expectTypeOf<Tool.Requirements<typeof Echo>>().toEqualTypeOf<never>()
    DynamicTool.portable("needs_db", {
      description: "Needs a service",
      parameters: { type: "object" },
      // @ts-expect-error a portable tool's call needs no services
      call: () => Effect.map(Database, (db) => db.lookup("x"))
    })
    DynamicTool.portable("fails", {
      description: "Fails with a plain error",
      parameters: { type: "object" },
      // @ts-expect-error a portable tool fails only with a ToolExecutionError
      call: () => Effect.fail(new Error("boom"))
    })
  })

  it("a spec's annotations are exactly a tool's annotations, the timeout as a Duration", () => {
    expectTypeOf<keyof DynamicTool.Spec["annotations"]>().toEqualTypeOf<keyof Tool.Annotations>()
    expectTypeOf<DynamicTool.Spec["annotations"]["timeout"]>().toEqualTypeOf<Duration.Duration | undefined>()
  })

  it("Tool.provide removes the services it provides from the requirements, and only those", () => {
    const Both = Tool.make("both", {
      description: "Needs both",
      parameters: Schema.Struct({}),
      call: () => Effect.zip(Database, CurrentUser)
    })
    const withDb = Tool.provide(Both, Context.make(Database, { lookup: (id) => id }))
    expectTypeOf<Tool.Requirements<typeof withDb>>().toEqualTypeOf<CurrentUser>()
    expectTypeOf<Tool.Name<typeof withDb>>().toEqualTypeOf<"both">()
    expectTypeOf<Tool.Output<typeof withDb>>().toEqualTypeOf<Tool.Output<typeof Both>>()
    const piped = Both.pipe(Tool.provide(Context.make(CurrentUser, { id: "u" })))
    expectTypeOf<Tool.Requirements<typeof piped>>().toEqualTypeOf<Database>()
    const all = Tool.provide(withDb, Context.make(CurrentUser, { id: "u" }))
    expectTypeOf<Tool.Requirements<typeof all>>().toEqualTypeOf<never>()
    // Executing still needs what was not provided.
    // @ts-expect-error CurrentUser is still required
    runnable(ToolSet.execute(ToolSet.make(withDb), call))
    runnable(ToolSet.execute(ToolSet.make(all), call))
  })

  it("Tool.provide with portable: true compiles only when nothing is left required, and gives a portable tool", () => {
    const Both = Tool.make("both", {
      description: "Needs both",
      parameters: Schema.Struct({ id: Schema.String }),
      call: ({ id }) => Effect.map(Database, (db) => db.lookup(id))
    })
    const services = Context.make(Database, { lookup: (id: string) => id })
    const portable = Tool.provide(Both, services, { portable: true })
    expectTypeOf(portable).toEqualTypeOf<DynamicTool.PortableTool<"both", { readonly id: string }, string, never>>()
    const piped = Both.pipe(Tool.provide(services, { portable: true }))
    expectTypeOf(piped).toEqualTypeOf<typeof portable>()
    // @ts-expect-error Database is still needed: the result could not run anywhere
    Tool.provide(Both, Context.make(CurrentUser, { id: "u" }), { portable: true })
    // @ts-expect-error the same, in the pipeable form
    Both.pipe(Tool.provide(Context.make(CurrentUser, { id: "u" }), { portable: true }))
    // A portable tool stays portable, whatever is provided.
    const Echo = DynamicTool.portable("echo", { description: "Echo", parameters: { type: "object" }, call: Effect.succeed })
    expectTypeOf(Tool.provide(Echo, services)).toEqualTypeOf<DynamicTool.PortableTool<"echo">>()
  })
})
