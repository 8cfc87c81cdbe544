/**
 * One tool, one call: the arguments as JSON text, what the model sees, and the host-only metadata it never sees.
 */
import { Console, Context, Effect, Option, Schema } from "effect"
import { Tool, ToolCall, ToolContext, ToolOutput, ToolResult, ToolSet } from "../src/index.ts"

// Host-only metadata: the host reads it from the result; the model never sees it.
class AuditRecord extends Context.Service<AuditRecord, number>()("app/AuditRecord") {}

const Add = Tool.make("add", {
  description: "Add two integers",
  parameters: Schema.Struct({ left: Schema.Int, right: Schema.Int }),
  success: Schema.Struct({ value: Schema.Int }),
  call: Effect.fn("add")(function*({ left, right }) {
    const value = left + right
    yield* ToolContext.insertResult(AuditRecord, value)
    return { value }
  })
})

const tools = ToolSet.make(Add)

const program = Effect.gen(function*() {
  // The arguments as the model emitted them: JSON text.
  const call = ToolCall.make({ id: "call_1", name: "add", arguments: `{"left":2,"right":3}` })
  // Never fails: bad JSON, wrong types or an unknown tool come back as a result with status "error".
  const result = yield* ToolSet.execute(tools, call)
  yield* Console.log(`status:     ${result.status}`) // success
  yield* Console.log(`model sees: ${ToolOutput.render(result.output)}`) // {"value":5}
  yield* Console.log(`audit:      ${Option.getOrUndefined(ToolResult.metadata(result, AuditRecord))}`) // 5
})

Effect.runPromise(program)
