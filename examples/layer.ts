/**
 * The dispatch service, supplied by a layer: the database is captured once, when the layer is built; the current
 * user is provided on each call.
 */
import { Console, Context, Effect, Layer, Schema } from "effect"
import { Tool, ToolCall, ToolExecutionError, ToolOutput, ToolSet } from "../src/index.ts"

// Captured when the layer is built.
class Database extends Context.Service<Database, {
  readonly orderOwner: (orderId: string) => string | undefined
}>()("app/Database") {
  static readonly layer = Layer.succeed(Database, {
    orderOwner: (orderId) => orderId === "order_7" ? "alice" : undefined
  })
}

// Provided on every call.
class CurrentUser extends Context.Service<CurrentUser, { readonly id: string }>()("app/CurrentUser") {}

const GetOrder = Tool.make("get_order", {
  description: "Look up one of the current user's orders",
  parameters: Schema.Struct({ orderId: Schema.String }),
  call: Effect.fn("get_order")(function*({ orderId }) {
    const db = yield* Database
    const user = yield* CurrentUser
    if (db.orderOwner(orderId) !== user.id) {
      return yield* ToolExecutionError.notFound(`you have no order "${orderId}"`)
    }
    return { orderId, owner: user.id, status: "shipped" }
  })
})

// The service type names what each call must bring: CurrentUser.
class Tools extends Context.Service<Tools, ToolSet.Service<CurrentUser>>()("app/Tools") {}

// ToolSet.toLayer(…) is a Layer<Tools, never, Database>; providing the database leaves a Layer<Tools>.
const ToolsLive = ToolSet.toLayer(Tools, ToolSet.make(GetOrder)).pipe(Layer.provide(Database.layer))

const program = Effect.gen(function*() {
  const tools = yield* Tools
  for (const id of ["alice", "bob"]) {
    const call = ToolCall.make({ id: `call_${id}`, name: "get_order", arguments: `{"orderId":"order_7"}` })
    const result = yield* tools.execute(call).pipe(Effect.provideService(CurrentUser, { id }))
    yield* Console.log(`${id}: ${result.status}: ${ToolOutput.render(result.output)}`)
  }
})

Effect.runPromise(program.pipe(Effect.provide(ToolsLive)))
