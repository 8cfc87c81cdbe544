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
    Tool.make("string", {
      description: "Not an object",
      // @ts-expect-error a string is not an object
      parameters: Schema.String,
      call: () => Effect.succeed("never")
    })
    Tool.make("array", {
      description: "Not an object either",
      // @ts-expect-error an array is not an object
      parameters: Schema.Array(Schema.String),
      call: () => Effect.succeed("never")
    })
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
