/**
 * `calculator`: one arithmetic expression, evaluated exactly where decimals allow it (`0.1 + 0.2` is `0.3`), by a
 * parser of its own: nothing the model writes is ever run as code.
 *
 * - **Numbers** are Effect's `BigDecimal`s. Sums, differences, products, remainders and whole-number powers are
 *   exact, and so is a quotient that terminates. A quotient or a square root that does not terminate is computed to
 *   102 significant digits, rounded to odd; so are the constants `pi` and `e`. A result that needed any such rounding
 *   is marked `exact: false`, and shown to 20 significant digits (`1/3` is `0.33333333333333333333`): for one such
 *   operation, its true value rounded once, half to even (a value rounded to odd with two digits more than are shown
 *   rounds as its true value does). An exact result shows every digit.
 * - **Operators**: `+ - * / % ^ **` (`×`, `÷` and `−` too), parentheses, signs. `^` binds tighter than a sign on its
 *   left (`-2^2` is -4) and groups to the right (`2^3^2` is 512). `%` is the remainder with the sign of the
 *   dividend (`-7 % 3` is -1).
 * - **Functions**: `sqrt`, `abs`, `round(x)` / `round(x, places)` (halves away from zero), `floor`, `ceil`,
 *   `trunc`, `min(…)`, `max(…)` (exact only when all their arguments are); names are case-insensitive.
 * - **Bounds**: 1000 characters, 256 levels of nesting, numbers written with at most 100 significant digits, values
 *   of at most 1000 significant digits (more are rounded, and the result is inexact), magnitudes in
 *   [1e-1000, 1e+1000) (a result outside is refused, never rounded to zero or infinity), whole-number exponents of
 *   at most 2^53 - 1. A power whose result would be out of bounds is refused before it is computed.
 *
 * The output is JSON: `{ "result": "0.3", "exact": true }`, the number as a string (plain from 1e-7 to 1e21,
 * scientific outside: `1e+30`). A mistake, a broken bound, or an operation without a result (division by zero, the
 * square root of a negative number) is `invalid_args`, with the column (counted in characters, from 1) where it
 * happened, and what was expected there; the message never repeats a number or a name from the expression.
 *
 * @since 0.1.0
 */
import { Context, Effect, Result, Schema } from "effect"
import type { PortableTool } from "../DynamicTool.ts"
import * as Tool from "../Tool.ts"
import * as ToolExecutionError from "../ToolExecutionError.ts"
import { constantNames, defaultLimits, evaluate, functionNames } from "./internal/arithmeticExpression.ts"

/**
 * What the calculator returns: the number as a string, every digit when `exact`, and 20 significant digits when not.
 *
 * @category schemas
 */
export const CalculatorResult = Schema.Struct({
  result: Schema.String.annotate({ description: "The value, as a decimal number (scientific notation when large)" }),
  exact: Schema.Boolean.annotate({
    description: "false when rounding made the value approximate: a division or square root that does not " +
      "terminate, pi or e, or a value of more than 1000 digits"
  })
})

/**
 * The type of {@link CalculatorResult}.
 *
 * @category models
 */
export interface CalculatorResult extends Schema.Schema.Type<typeof CalculatorResult> {}

const Calculator = Tool.make("calculator", {
  description: "Evaluate one arithmetic expression exactly, with decimal arithmetic (0.1 + 0.2 is exactly 0.3). " +
    "Operators: + - * / (or × ÷), % (remainder, with the sign of the dividend), ^ or ** (power with a whole-number " +
    "exponent; 2^3^2 is 512 and -2^2 is -4), parentheses. Write every multiplication out: 2*pi, not 2pi. " +
    `Functions: ${functionNames.join(", ")} (round(x, places) rounds halves away from zero; min and max take any ` +
    `number of arguments). Constants: ${constantNames.join(", ")}. Numbers like 12, 0.5, .5 or 1.5e-3. ` +
    "Returns { result, exact }: result is the number as a string; exact is false when a division that does not " +
    "terminate, a square root or a constant made it approximate, and it is then rounded to 20 significant digits. " +
    `At most ${defaultLimits.maxLength} characters; magnitudes between 1e-1000 and 1e+1000.`,
  parameters: Schema.Struct({
    expression: Schema.String.check(Schema.isMaxLength(defaultLimits.maxLength)).annotate({
      description: "The expression, such as (12.5 * 3 - 4) / 7 or sqrt(2) ^ 2"
    })
  }),
  success: CalculatorResult,
  annotations: { title: "Calculator", readOnly: true, idempotent: true, openWorld: false },
  onExcessProperty: "error",
  call: ({ expression }) =>
    Effect.suspend(() =>
      Result.match(evaluate(expression), {
        onSuccess: (evaluated) => Effect.succeed(evaluated),
        onFailure: (error) => Effect.fail(ToolExecutionError.invalidArgs(error.message))
      })
    )
})

/**
 * The `calculator` tool: arguments `{ expression }`; it returns {@link CalculatorResult}. Portable: it needs no
 * services.
 *
 * @example
 * ```ts
 * import { ToolCall, ToolSet } from "effect-llm-tools"
 * import { Builtin } from "effect-llm-tools/builtin"
 *
 * const program = ToolSet.make(Builtin.calculator).pipe(
 *   ToolSet.execute(ToolCall.make({ id: "call_1", name: "calculator", arguments: { expression: "0.1 + 0.2" } }))
 * )
 * // Effect<ToolResult>: its output one JSON block, { "result": "0.3", "exact": true }
 * ```
 *
 * @category tools
 */
export const calculator: PortableTool<
  "calculator",
  { readonly expression: string },
  CalculatorResult,
  ToolExecutionError.ToolExecutionError
> = Tool.provide(Calculator, Context.empty(), { portable: true })
