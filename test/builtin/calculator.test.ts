import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Arbitrary, Effect, Result, Schema } from "effect"
import { calculator } from "../../src/builtin/calculator.ts"
import { evaluate, evaluateValue } from "../../src/builtin/internal/arithmeticExpression.ts"
import { DynamicTool, type ToolExecutionError, type ToolResult, ToolSet } from "../../src/index.ts"
import { definitionOf, executeTool } from "../support/builtinTool.ts"

// ---------------------------------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------------------------------

const set = ToolSet.make(calculator)

const execute = executeTool(set, "calculator")

const calculate = (expression: string) => execute({ expression })

const value = (result: string, exact = true) => ({ status: "success" as const, output: { result, exact } })

const refused = (message: string) => ({ status: "error" as const, kind: "invalid_args" as const, message })

const refusedBySchema = (line: string) => refused(`tool arguments did not match the schema:\n${line}`)

const expectedOperand = (column: number, found: string) =>
  refused(`column ${column}: expected a number, a name or '(' but found ${found}`)

const expectedOperator = (column: number, found: string) =>
  refused(
    `column ${column}: expected an operator or the end of the expression but found ${found}` +
      (found === "','" ? "" : " (multiplication is written with *)")
  )

const unclosed = (column: number, open: number, found: string) =>
  refused(`column ${column}: expected ')' to close the '(' at column ${open} or an operator but found ${found}`)

const unexpectedCharacter = (column: number) =>
  refused(
    `column ${column}: unexpected character: an expression is made of numbers, the operators + - * / % ^ **, ` +
      "parentheses, commas between function arguments, and names of functions and constants"
  )

const unknownName = (column: number) =>
  refused(
    `column ${column}: unknown name: the functions are sqrt, abs, round, floor, ceil, trunc, min, max and the ` +
      "constants are pi, e"
  )

const tooLarge = (column: number) =>
  refused(`column ${column}: the result is too large: magnitudes must stay below 1e+1000`)

const tooSmall = (column: number) =>
  refused(
    `column ${column}: the result is too small: nonzero magnitudes must be at least 1e-1000 (it is not rounded to zero)`
  )

const tooDeep = "the expression is nested too deeply: at most 256 levels"

const tooLong = refusedBySchema("- $.expression: Expected a value with a length of at most 1000")

/** The parser without the tool's length bound: only its nesting bound stands between it and the stack. */
const unbounded = { maxLength: Infinity, maxDepth: 256 }

/** The message of an expression's failure, straight from the parser. */
const failureOf = (expression: string, limits = unbounded): string | undefined =>
  Result.match(evaluate(expression, limits), { onSuccess: () => undefined, onFailure: (error) => error.message })

/** Runs every case, and fails listing each one whose outcome differs (values are JSON: compared as JSON text). */
const calculateAll = (cases: ReadonlyArray<readonly [string, unknown]>) =>
  Effect.gen(function*() {
    const mismatches: Array<string> = []
    for (const [expression, expected] of cases) {
      const actual = yield* calculate(expression)
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        mismatches.push(`${expression.length > 80 ? `${expression.slice(0, 80)}…` : expression}\n  actual:   ${
          JSON.stringify(actual)
        }\n  expected: ${JSON.stringify(expected)}`)
      }
    }
    assert.deepStrictEqual(mismatches, [])
  })

// ---------------------------------------------------------------------------------------------------------------------
// definition
// ---------------------------------------------------------------------------------------------------------------------

describe("definition", () => {
  it("is a portable tool named calculator, with its bounds in the JSON Schema the model reads", () => {
    assert.isTrue(DynamicTool.isPortable(calculator))
    assert.deepStrictEqual(definitionOf(calculator), {
      name: "calculator",
      parameters: {
        type: "object",
        properties: {
          expression: {
            type: "string",
            maxLength: 1000,
            description: "The expression, such as (12.5 * 3 - 4) / 7 or sqrt(2) ^ 2"
          }
        },
        required: ["expression"],
        additionalProperties: false
      },
      outputRequired: ["result", "exact"],
      annotations: { title: "Calculator", readOnly: true, idempotent: true, openWorld: false }
    })
  })

  it("names every function and constant in its description", () => {
    for (const name of ["sqrt", "abs", "round", "floor", "ceil", "trunc", "min", "max", "pi", "e", "20 significant"]) {
      assert.include(calculator.description, name)
    }
  })

  it("needs no services and fails only with ToolExecutionError", () => {
    expectTypeOf(calculator.call).returns.toEqualTypeOf<
      Effect.Effect<{ readonly result: string; readonly exact: boolean }, ToolExecutionError.ToolExecutionError>
    >()
    expectTypeOf(ToolSet.execute(set, { id: "c", name: "calculator", arguments: {} })).toEqualTypeOf<
      Effect.Effect<ToolResult.ToolResult, never, never>
    >()
  })
})

// ---------------------------------------------------------------------------------------------------------------------
// operators, precedence and associativity
// ---------------------------------------------------------------------------------------------------------------------

describe("operators", () => {
  it.effect("each operator, in ASCII and in its usual symbol", () =>
    calculateAll([
      ["7 + 5", value("12")],
      ["7 - 5", value("2")],
      ["7 \u2212 5", value("2")],
      ["7 * 5", value("35")],
      ["7 \u00d7 5", value("35")],
      ["7 / 5", value("1.4")],
      ["7 \u00f7 5", value("1.4")],
      ["7 % 5", value("2")],
      ["7 ^ 2", value("49")],
      ["7 ** 2", value("49")],
      ["-7", value("-7")],
      ["+7", value("7")],
      ["(7)", value("7")]
    ]))

  it.effect("* / % bind tighter than + -, and each level groups to the left", () =>
    calculateAll([
      ["2 + 3 * 4", value("14")],
      ["(2 + 3) * 4", value("20")],
      ["10 - 4 - 3", value("3")],
      ["10 - (4 - 3)", value("9")],
      ["100 / 10 / 5", value("2")],
      ["100 / (10 / 5)", value("50")],
      ["2 * 9 % 4", value("2")],
      ["2 * (9 % 4)", value("2")],
      ["20 % 7 * 2", value("12")],
      ["1 - 2 + 3", value("2")],
      ["8 / 2 * 4", value("16")]
    ]))

  it.effect("^ binds tighter than a sign on its left and groups to the right; its exponent may be signed", () =>
    calculateAll([
      ["2^3^2", value("512")],
      ["(2^3)^2", value("64")],
      ["2**3**2", value("512")],
      ["-2^2", value("-4")],
      ["(-2)^2", value("4")],
      ["-2^-2", value("-0.25")],
      ["2^-1", value("0.5")],
      ["2 * 3^2", value("18")],
      ["-3^3", value("-27")],
      ["(-3)^3", value("-27")],
      ["2^(1+2)", value("8")],
      ["0^0", value("1")],
      ["0^5", value("0")]
    ]))

  it.effect("signs stack, and may follow any operator", () =>
    calculateAll([
      ["2 - -3", value("5")],
      ["2 * -3", value("-6")],
      ["--3", value("3")],
      ["-+-3", value("3")],
      ["-(2 + 3)", value("-5")],
      ["-0", value("0")]
    ]))

  it.effect("% keeps the sign of the dividend, and works on decimals", () =>
    calculateAll([
      ["-7 % 3", value("-1")],
      ["7 % -3", value("1")],
      ["5.5 % 2", value("1.5")],
      ["0.3 % 0.1", value("0")]
    ]))

  it.effect("whitespace anywhere between tokens is ignored", () =>
    calculateAll([
      ["  1+2  ", value("3")],
      ["\t1\n*\n2 ", value("2")],
      ["sqrt ( 4 )", value("2")]
    ]))
})

// ---------------------------------------------------------------------------------------------------------------------
// exact decimals, and how inexact results are rounded
// ---------------------------------------------------------------------------------------------------------------------

describe("exact decimal arithmetic", () => {
  it.effect("decimal fractions are exact where binary floating point is not", () =>
    calculateAll([
      ["0.1 + 0.2", value("0.3")],
      ["0.3 - 0.1", value("0.2")],
      ["1.1 * 1.1", value("1.21")],
      ["0.1 * 3", value("0.3")],
      ["1 / 8", value("0.125")],
      ["4.35 * 100", value("435")],
      ["1.005 * 1000", value("1005")],
      ["9007199254740993 + 0", value("9007199254740993")],
      ["2^-10", value("0.0009765625")]
    ]))

  it.effect("every digit of an exact result is shown, however many", () =>
    calculateAll([
      ["2^100", value("1.267650600228229401496703205376e+30")],
      ["2^64", value("18446744073709551616")],
      ["123456789.123456789 * 1000000000", value("123456789123456789")],
      ["0.000000123456789123456789", value("0.000000123456789123456789")],
      ["0.0000000123456789123456789", value("1.23456789123456789e-8")]
    ]))

  it.effect("plain notation from 1e-7 to below 1e21, scientific outside", () =>
    calculateAll([
      ["1e20", value("100000000000000000000")],
      ["1e21", value("1e+21")],
      ["-1.5e25", value("-1.5e+25")],
      ["1e-7", value("0.0000001")],
      ["1e-8", value("1e-8")],
      ["1.5E3", value("1500")],
      ["25e-1", value("2.5")],
      [".5", value("0.5")],
      ["5.", value("5")]
    ]))

  it.effect("a quotient that does not terminate is inexact, shown to 20 significant digits, half to even", () =>
    calculateAll([
      ["1/3", value("0.33333333333333333333", false)],
      ["2/3", value("0.66666666666666666667", false)],
      ["1/7", value("0.14285714285714285714", false)],
      ["-1/6", value("-0.16666666666666666667", false)],
      ["10^30 / 3", value("3.3333333333333333333e+29", false)],
      ["(1/3) * 3", value("1", false)]
    ]))

  it.effect("a quotient that terminates is exact, however long; one that does not keeps 102 digits, rounded to odd", () =>
    calculateAll([
      // 1/3 is 0.333… to 102 digits, so three of it falls short of 1 by one unit of the 102nd digit.
      ["(1/3) * 3 - 1", value("-1e-102", false)],
      // 2/3 cut to 102 digits ends in an even 6, made odd: …67.
      ["(2/3) * 3 - 2", value("1e-102", false)],
      // Digits 81 to 100 of 3/7, shown: the two kept beyond them keep the 100th right.
      ["3/7 - 0.42857142857142857142857142857142857142857142857142857142857142857142857142857142", value(
        "8.5714285714285714286e-81",
        false
      )],
      // 5000…0.5 has 101 digits, and is exact.
      ["(10^100 + 1) / 2 - 5 * 10^99", value("0.5")],
      [`(0.123456789012345678915 - 1e-101) / 1`, value(`0.12345678901234567891${"4".padEnd(81, "9")}`)],
      // Just below …8915: shown rounded once, down. (Kept half to even at the 100th digit it would be …8915000…, a
      // tie when shown, and the 20 shown would end in 2.)
      ["(0.123456789012345678915 * 3 - 1e-101) / 3", value("0.12345678901234567891", false)]
    ]))

  it.effect("square roots are exact when they terminate, and computed to 102 digits when not", () =>
    calculateAll([
      ["sqrt(16)", value("4")],
      ["sqrt(2.25)", value("1.5")],
      ["sqrt(0.0001)", value("0.01")],
      ["sqrt(1e-100)", value("1e-50")],
      ["sqrt(0)", value("0")],
      ["sqrt(2)", value("1.4142135623730950488", false)],
      // sqrt(2) to 102 digits, cut and made odd, falls short.
      ["sqrt(2) * sqrt(2) - 2", value("-1.4181298678818790579e-101", false)],
      // 3.1622776601683793319|988…: rounded up to …3320, shown without its trailing zero.
      ["sqrt(10^99)", value("3.162277660168379332e+49", false)]
    ]))

  it.effect("pi and e are inexact constants of 102 digits; names are case-insensitive, and π is pi", () =>
    calculateAll([
      ["pi", value("3.1415926535897932385", false)],
      ["PI", value("3.1415926535897932385", false)],
      ["\u03c0", value("3.1415926535897932385", false)],
      ["e", value("2.7182818284590452354", false)],
      // pi cut to 102 digits ends in …1706798 (the true digits are …17067982…), made odd: …1706799. Taking away its
      // first 99 digits leaves 7.99e-99.
      [
        "(pi - 3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706) " +
        "* 10^99",
        value("7.99", false)
      ]
    ]))

  it.effect("a number can be written with up to 100 significant digits, and all of them count", () =>
    calculateAll([
      [`${"9".repeat(100)} + 1`, value("1e+100")],
      [`0.${"0".repeat(200)}1 * 10^201`, value("1")]
    ]))

  it.effect("values past 1000 significant digits are rounded and the result is inexact", () =>
    calculateAll([
      // 10^500 + 10^-500 needs 1001 digits: cut to 1000 and made odd, it is 10^500 + 10^-499.
      ["10^500 + 10^-500 - 10^500", value("1e-499", false)],
      ["10^499 + 10^-500 - 10^499", value("1e-500")]
    ]))
})

// ---------------------------------------------------------------------------------------------------------------------
// functions
// ---------------------------------------------------------------------------------------------------------------------

describe("functions", () => {
  it.effect("round halves away from zero, to whole numbers or to places either side of the point", () =>
    calculateAll([
      ["round(2.5)", value("3")],
      ["round(-2.5)", value("-3")],
      ["round(2.4999)", value("2")],
      ["round(1.2345, 2)", value("1.23")],
      ["round(1.235, 2)", value("1.24")],
      ["round(-1.235, 2)", value("-1.24")],
      ["round(1250, -2)", value("1300")],
      ["round(1/3, 5)", value("0.33333", false)],
      ["ROUND(7.5)", value("8")]
    ]))

  it.effect("floor, ceil and trunc go down, up and toward zero", () =>
    calculateAll([
      ["floor(1.5)", value("1")],
      ["floor(-1.5)", value("-2")],
      ["ceil(1.5)", value("2")],
      ["ceil(-1.5)", value("-1")],
      ["trunc(1.7)", value("1")],
      ["trunc(-1.7)", value("-1")],
      ["floor(3)", value("3")]
    ]))

  it.effect("abs, min and max; min and max take any number of arguments, and are exact when all of them are", () =>
    calculateAll([
      ["abs(-3.5)", value("3.5")],
      ["abs(3.5)", value("3.5")],
      ["min(3, 1, 2)", value("1")],
      ["max(3, 1, 2)", value("3")],
      ["max(-1)", value("-1")],
      ["max(1/3, 0.3)", value("0.33333333333333333333", false)],
      // Exact only when every argument is: 2/3 rounds up at its 100th digit, past this number, which is greater
      // than 2/3 itself; min chooses the number, though the true least is 2/3.
      [`min(2/3, 0.${"6".repeat(100)} + 7e-101)`, value("0.66666666666666666667", false)],
      ["min(1/3, 0.3)", value("0.3", false)],
      ["max(1, 2) * min(3, 4) + abs(-1)", value("7")]
    ]))

  it.effect("a function's arguments are whole expressions, and calls nest", () =>
    calculateAll([
      ["sqrt(9 + 16)", value("5")],
      ["max(sqrt(16), 2^3, abs(-9))", value("9")],
      ["round(sqrt(2), 3)", value("1.414", false)]
    ]))
})

// ---------------------------------------------------------------------------------------------------------------------
// errors, with their position
// ---------------------------------------------------------------------------------------------------------------------

describe("errors say where and what was expected", () => {
  it.effect("syntax errors", () =>
    calculateAll([
      ["", refused("column 1: the expression is empty")],
      ["   ", refused("column 1: the expression is empty")],
      ["1 +", expectedOperand(4, "the end of the expression")],
      ["1 + * 2", expectedOperand(5, "'*'")],
      ["* 2", expectedOperand(1, "'*'")],
      ["()", expectedOperand(2, "')'")],
      ["2 ^ ^ 3", expectedOperand(5, "'^'")],
      ["2 *** 3", expectedOperand(5, "'*'")],
      ["(1 + 2", unclosed(7, 1, "the end of the expression")],
      ["((1) + 2", unclosed(9, 1, "the end of the expression")],
      ["1 + 2)", refused("column 6: ')' without a matching '('")],
      ["2 3", expectedOperator(3, "a number")],
      ["2(3)", expectedOperator(2, "'('")],
      ["2pi", expectedOperator(2, "a name")],
      ["1, 2", expectedOperator(2, "','")],
      ["1.2.3", expectedOperator(4, "a number")],
      ["2e", expectedOperator(2, "a name")]
    ]))

  it.effect("unknown characters and names are located, never repeated", () =>
    calculateAll([
      ["1 $ 2", unexpectedCharacter(3)],
      ["\u{1F600} + 1", unexpectedCharacter(1)],
      ["(\u{1F600}", unexpectedCharacter(2)],
      ["1 + secret_key", unknownName(5)],
      ["__proto__", unknownName(1)],
      ["constructor(1)", unknownName(1)]
    ]))

  it.effect("function calls: a parenthesis after the name, and the right number of arguments", () =>
    calculateAll([
      ["sqrt 4", refused("column 6: expected '(' after the function sqrt but found a number")],
      ["sqrt", refused("column 5: expected '(' after the function sqrt but found the end of the expression")],
      ["sqrt(4, 2)", refused("column 1: sqrt takes 1 argument, not 2")],
      ["round(1, 2, 3)", refused("column 1: round takes 1 or 2 arguments, not 3")],
      ["1 + min()", expectedOperand(9, "')'")],
      ["max(1 2)", unclosed(7, 4, "a number")],
      ["max(1,)", expectedOperand(7, "')'")],
      ["pi(2)", expectedOperator(3, "'('")]
    ]))

  it.effect("operations without a result are located at their operator or function", () =>
    calculateAll([
      ["1 / 0", refused("column 3: division by zero")],
      ["1 / (2 - 2)", refused("column 3: division by zero")],
      ["0 / 0", refused("column 3: division by zero")],
      ["1 + 2 / 0 * 3", refused("column 7: division by zero")],
      ["5 % 0", refused("column 3: division by zero")],
      ["0 ^ -1", refused("column 3: division by zero")],
      ["1 + sqrt(-4)", refused("column 5: the square root of a negative number is not a real number")],
      ["2 ^ 0.5", refused("column 3: the exponent must be a whole number (use sqrt for square roots)")],
      ["2 ^ (1/3)", refused("column 3: the exponent must be a whole number (use sqrt for square roots)")],
      ["round(1, 0.5)", refused("column 1: the number of decimal places must be a whole number")],
      ["round(1, 1001)", refused("column 1: the number of decimal places must be between -1000 and 1000")]
    ]))

  it.effect("the first failure in evaluation order is the one reported: left operand, right operand, operator", () =>
    calculateAll([
      ["1/0 + sqrt(-1)", refused("column 2: division by zero")],
      ["sqrt(-1) + 1/0", refused("column 1: the square root of a negative number is not a real number")],
      ["(1/0) ^ 1e100", refused("column 3: division by zero")]
    ]))

  it.effect("a syntax error anywhere wins over an operation that would fail before it", () =>
    calculateAll([["1/0 +", expectedOperand(6, "the end of the expression")]]))

  it.effect("arguments that are not { expression: string } are refused by the schema", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        [
          yield* execute({}),
          yield* execute({ expression: 12 }),
          yield* execute({ expression: "1", precision: 50 }),
          yield* execute("not json")
        ].map((result) => [result.status, (result as { kind?: unknown }).kind]),
        [["error", "invalid_args"], ["error", "invalid_args"], ["error", "invalid_args"], ["error", "invalid_args"]]
      )
      assert.deepStrictEqual(
        yield* execute({ expression: "1", precision: 50 }),
        refusedBySchema("- $.precision: Expected no excess property")
      )
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// bounds
// ---------------------------------------------------------------------------------------------------------------------

describe("bounds", () => {
  it.effect("an expression longer than 1000 characters is refused before it is read", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* calculate(` 1${"+1".repeat(499)}`), value("500"))
      assert.deepStrictEqual(yield* calculate(`1${"+1".repeat(500)}`), tooLong)
      // The parser's own bound, for whoever calls it without the tool's Schema.
      assert.deepStrictEqual(
        failureOf(`1${"+1".repeat(500)}`, { maxLength: 1000, maxDepth: 256 }),
        "column 1001: the expression is too long: at most 1000 characters"
      )
    }))

  it.effect("100,000 open parentheses are refused, not a stack overflow", () =>
    Effect.gen(function*() {
      const deep = "(".repeat(100_000) + "1" + ")".repeat(100_000)
      assert.deepStrictEqual(yield* calculate(deep), tooLong)
      // Without the length bound, the nesting bound stops the parser at the 257th level, whatever nests.
      assert.deepStrictEqual(
        [failureOf(deep), failureOf("-".repeat(100_000) + "1"), failureOf(`2${"^2".repeat(100_000)}`)],
        [`column 257: ${tooDeep}`, `column 257: ${tooDeep}`, `column 514: ${tooDeep}`]
      )
      // A long flat chain is read in a loop: it nests nothing.
      assert.deepStrictEqual(
        evaluate(`1${"+1".repeat(10_000)}`, unbounded),
        Result.succeed({ result: "10001", exact: true })
      )
    }))

  it.effect("256 levels of nesting are allowed, 257 are not", () =>
    calculateAll([
      ["(".repeat(256) + "1" + ")".repeat(256), value("1")],
      ["(".repeat(257) + "1" + ")".repeat(257), refused(`column 257: ${tooDeep}`)],
      ["-".repeat(256) + "1", value("1")],
      ["-".repeat(257) + "1", refused(`column 257: ${tooDeep}`)]
    ]))

  it("every kind of nesting counts: function calls and powers too", () => {
    const one = Result.succeed({ result: "1", exact: true })
    assert.deepStrictEqual(evaluate("sqrt(".repeat(256) + "1" + ")".repeat(256), unbounded), one)
    assert.deepStrictEqual(failureOf("sqrt(".repeat(257) + "1" + ")".repeat(257)), `column 1285: ${tooDeep}`)
    assert.deepStrictEqual(evaluate(`1${"^1".repeat(256)}`, unbounded), one)
    assert.deepStrictEqual(failureOf(`1${"^1".repeat(257)}`), `column 514: ${tooDeep}`)
  })

  it.effect("huge powers are refused from an estimate, before they are computed", () =>
    calculateAll([
      ["10^1000000000", tooLarge(3)],
      ["2^2^2^2^2", tooLarge(2)],
      ["9^9^9", tooLarge(2)],
      ["0.5^1000000000", tooSmall(4)],
      ["10^-1000000000", tooSmall(3)],
      ["1.5^9007199254740992", refused("column 4: the exponent is too large: at most 9007199254740991 either way")],
      ["1.5^1e100", refused("column 4: the exponent is too large: at most 9007199254740991 either way")],
      // Bases 0 and ±1 stay in bounds whatever the exponent.
      ["1^1e100", value("1")],
      ["(-1)^1e100", value("1")],
      ["(-1)^(1e100 + 1)", value("-1")],
      ["0^1e100", value("0")],
      // A base near 1 can take a large exponent: its result is in bounds, and rounded to 1000 digits.
      ["round(1.000000001^1000000000, 6)", value("2.718282", false)]
    ]))

  it.effect("magnitudes stay in [1e-1000, 1e+1000): at the edges, and just past them", () =>
    calculateAll([
      ["10^999", value("1e+999")],
      ["9.99^1000", value("3.6769542477096404463e+999", false)],
      ["10^1000", tooLarge(3)],
      ["1e999 * 10", tooLarge(7)],
      ["1e999 + 9e999", tooLarge(7)],
      ["10^-1000", value("1e-1000")],
      ["10^-1001", tooSmall(3)],
      ["1e-1000 / 10", tooSmall(9)],
      ["1 / 1e-1000", tooLarge(3)],
      ["sqrt(1e-999) * 1e-600", tooSmall(14)]
    ]))

  it.effect("huge numbers as written are refused where they are written", () =>
    calculateAll([
      [`1 + ${"1".repeat(101)}`, refused("column 5: a number may have at most 100 significant digits")],
      [`1 + 1.${"0".repeat(100)}`, refused("column 5: a number may have at most 100 significant digits")],
      ["1e1000", tooLarge(1)],
      ["2 * 1e99999999999999999999", tooLarge(5)],
      ["1e-1001", tooSmall(1)],
      ["2 * 1e-99999999999999999999", tooSmall(5)],
      ["0e99999999999", value("0")]
    ]))
})

// ---------------------------------------------------------------------------------------------------------------------
// properties
// ---------------------------------------------------------------------------------------------------------------------

/** An exact rational: `numerator / denominator`, the denominator positive, the fraction in lowest terms. */
interface Rational {
  readonly numerator: bigint
  readonly denominator: bigint
}

const gcd = (a: bigint, b: bigint): bigint => {
  let x = a < 0n ? -a : a
  let y = b < 0n ? -b : b
  while (y !== 0n) [x, y] = [y, x % y]
  return x
}

const rational = (numerator: bigint, denominator: bigint): Rational => {
  if (numerator === 0n) return { numerator: 0n, denominator: 1n }
  const sign = denominator < 0n ? -1n : 1n
  const divisor = gcd(numerator, denominator)
  return { numerator: (sign * numerator) / divisor, denominator: (sign * denominator) / divisor }
}

const digitCount = (n: bigint): number => (n < 0n ? -n : n).toString().length

/** `unscaled * 10^-scale`. */
const decimalValue = (unscaled: bigint, scale: number): Rational =>
  scale >= 0 ? rational(unscaled, 10n ** BigInt(scale)) : rational(unscaled * 10n ** BigInt(-scale), 1n)

/**
 * `q` rounded to `digits` significant digits, half to even (or, with `"odd"`, its digits cut and the last made odd
 * when anything was cut), and whether that changed it: computed on the fraction, with no decimal type in between.
 */
const roundRational = (
  q: Rational,
  digits: number,
  rounding: "even" | "odd" = "even"
): { readonly value: Rational; readonly exact: boolean } => {
  if (q.numerator === 0n) return { value: q, exact: true }
  const magnitude = q.numerator < 0n ? -q.numerator : q.numerator
  // The exponent of the leading digit: 10^exponent <= |q| < 10^(exponent + 1).
  let exponent = digitCount(magnitude) - digitCount(q.denominator)
  const atLeast = (e: number) =>
    e >= 0 ? magnitude >= q.denominator * 10n ** BigInt(e) : magnitude * 10n ** BigInt(-e) >= q.denominator
  while (!atLeast(exponent)) exponent--
  while (atLeast(exponent + 1)) exponent++
  // |q| * 10^shift has `digits` digits before the point.
  const shift = digits - 1 - exponent
  const scaledNumerator = shift >= 0 ? magnitude * 10n ** BigInt(shift) : magnitude
  const scaledDenominator = shift >= 0 ? q.denominator : q.denominator * 10n ** BigInt(-shift)
  let kept = scaledNumerator / scaledDenominator
  const rest = scaledNumerator % scaledDenominator
  if (rounding === "odd") {
    if (rest !== 0n && kept % 2n === 0n) kept += 1n
  } else {
    const twiceRest = 2n * rest
    if (twiceRest > scaledDenominator || (twiceRest === scaledDenominator && kept % 2n === 1n)) kept += 1n
  }
  const sign = q.numerator < 0n ? -1n : 1n
  return { value: decimalValue(sign * kept, shift), exact: scaledNumerator % scaledDenominator === 0n }
}

/** A small decimal, as written: up to three digits before the point and two after, either sign. */
interface Leaf {
  readonly _tag: "Leaf"
  readonly text: string
}

interface Branch {
  readonly _tag: "Branch"
  readonly operator: "+" | "-" | "*" | "/"
  /** Write the operator as its usual symbol (× ÷ −) rather than in ASCII. */
  readonly symbol: boolean
  /** Parenthesize the branch even where precedence does not need it. */
  readonly parenthesized: boolean
  readonly left: Tree
  readonly right: Tree
}

type Tree = Leaf | Branch

const LeafArbitrary: Arbitrary.Arbitrary<Leaf> = Arbitrary.map(
  Arbitrary.schema(Schema.Struct({
    whole: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 999 })),
    hundredths: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 99 })),
    places: Schema.Literals([0, 1, 2]),
    negative: Schema.Boolean
  })),
  ({ hundredths, negative, places, whole }): Leaf => {
    const fraction = String(hundredths).padStart(2, "0").slice(0, places)
    return { _tag: "Leaf", text: `${negative ? "-" : ""}${whole}${places === 0 ? "" : `.${fraction}`}` }
  }
)

// Zeros on purpose: divisions by zero must come up, and so must zero operands.
const ZeroArbitrary: Arbitrary.Arbitrary<Leaf> = Arbitrary.Constant<Leaf>({ _tag: "Leaf", text: "0" })

const BranchShape = Arbitrary.schema(Schema.Struct({
  operator: Schema.Literals(["+", "-", "*", "/"]),
  symbol: Schema.Boolean,
  parenthesized: Schema.Boolean
}))

const branchOf = (child: Arbitrary.Arbitrary<Tree>): Arbitrary.Arbitrary<Tree> =>
  Arbitrary.map(
    Arbitrary.all({ shape: BranchShape, left: child, right: child }),
    ({ left, right, shape }): Tree => ({ _tag: "Branch", ...shape, left, right })
  )

const NodeKind = Arbitrary.schema(Schema.Literals(["leaf", "leaf", "zero", "branch", "branch", "branch", "branch"]))

const treeOfDepth = (depth: number): Arbitrary.Arbitrary<Tree> => {
  if (depth === 0) return LeafArbitrary
  const branch = branchOf(treeOfDepth(depth - 1))
  return Arbitrary.flatMap(NodeKind, (kind) =>
    kind === "leaf" ? LeafArbitrary : kind === "zero" ? ZeroArbitrary : branch)
}

// At least one operator, at most 32 leaves: with the leaves' sizes, every value stays far inside the magnitude
// bounds.
const TreeArbitrary = branchOf(treeOfDepth(4))

const leafValue = (leaf: Leaf): Rational => {
  const [whole, fraction = ""] = leaf.text.split(".")
  return rational(BigInt(`${whole}${fraction}`), 10n ** BigInt(fraction.length))
}

const precedence = { "+": 1, "-": 1, "*": 2, "/": 2 } as const
const symbols = { "+": "+", "-": "\u2212", "*": "\u00d7", "/": "\u00f7" } as const

/** The expression of a tree, with the column of each branch's operator; parentheses only where needed or asked. */
const render = (tree: Tree): { readonly text: string; readonly columns: Map<Branch, number> } => {
  let text = ""
  const columns = new Map<Branch, number>()
  const go = (node: Tree, parenthesize: boolean): void => {
    if (parenthesize) text += "("
    if (node._tag === "Leaf") {
      text += node.text
    } else {
      const { left, operator, right } = node
      go(left, left._tag === "Branch" && (left.parenthesized || precedence[left.operator] < precedence[operator]))
      text += " "
      columns.set(node, text.length + 1)
      text += node.symbol ? symbols[operator] : operator
      text += " "
      // A right operand of the same precedence is parenthesized: the order of operations decides the rounding.
      go(right, right._tag === "Branch" && (right.parenthesized || precedence[right.operator] <= precedence[operator]))
    }
    if (parenthesize) text += ")"
  }
  go(tree, false)
  return { text, columns }
}

type Reference =
  | { readonly _tag: "Value"; readonly exactValue: Rational; readonly value: Rational; readonly exact: boolean }
  | { readonly _tag: "DivisionByZero"; readonly column: number }

const add = (a: Rational, b: Rational) =>
  rational(a.numerator * b.denominator + b.numerator * a.denominator, a.denominator * b.denominator)
const subtract = (a: Rational, b: Rational) =>
  rational(a.numerator * b.denominator - b.numerator * a.denominator, a.denominator * b.denominator)
const multiply = (a: Rational, b: Rational) => rational(a.numerator * b.numerator, a.denominator * b.denominator)
const divide = (a: Rational, b: Rational) => rational(a.numerator * b.denominator, a.denominator * b.numerator)

/**
 * The reference: exact rational arithmetic (`exactValue`), and beside it the calculator's documented rounding
 * (`value`): a quotient exact when it terminates within 1000 significant digits, else rounded to 102; any result held
 * to 1000; both rounded to odd.
 */
const reference = (tree: Tree, columns: Map<Branch, number>): Reference => {
  if (tree._tag === "Leaf") {
    const leaf = leafValue(tree)
    return { _tag: "Value", exactValue: leaf, value: leaf, exact: true }
  }
  const left = reference(tree.left, columns)
  if (left._tag === "DivisionByZero") return left
  const right = reference(tree.right, columns)
  if (right._tag === "DivisionByZero") return right
  if (tree.operator === "/" && right.value.numerator === 0n) {
    return { _tag: "DivisionByZero", column: columns.get(tree)! }
  }
  const operation = { "+": add, "-": subtract, "*": multiply, "/": divide }[tree.operator]
  const exactQuotient = tree.operator === "/" ? divide(left.value, right.value) : undefined
  const quotient = exactQuotient === undefined || roundRational(exactQuotient, 1000).exact
    ? undefined
    : roundRational(exactQuotient, 102, "odd")
  const rounded = roundRational(quotient?.value ?? operation(left.value, right.value), 1000, "odd")
  return {
    _tag: "Value",
    // Dividing by a divisor that is zero exactly but not once rounded leaves no exact value: the result is inexact,
    // so it is never compared with one.
    exactValue: tree.operator === "/" && right.exactValue.numerator === 0n
      ? rounded.value
      : operation(left.exactValue, right.exactValue),
    value: rounded.value,
    exact: left.exact && right.exact && (quotient?.exact ?? true) && rounded.exact
  }
}

/** The value of the number the calculator printed, read exactly. */
const parseResult = (text: string): Rational => {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text)
  assert.isNotNull(match, `not a number: ${text}`)
  const [, sign, whole, fraction = "", exponent = "0"] = match!
  return decimalValue(BigInt(`${sign}${whole}${fraction}`), fraction.length - Number(exponent))
}

describe("properties", () => {
  it.effect.prop(
    "1,000 random expressions agree with exact rational arithmetic, and with the rounding the tool documents",
    [TreeArbitrary],
    ([tree]) =>
      Effect.gen(function*() {
        const { columns, text } = render(tree)
        const expected = reference(tree, columns)
        const actual = yield* calculate(text)
        if (expected._tag === "DivisionByZero") {
          assert.deepStrictEqual(actual, refused(`column ${expected.column}: division by zero`), text)
          return
        }
        assert.strictEqual(actual.status, "success", `${text}: ${JSON.stringify(actual)}`)
        const { exact, result } = (actual as { output: { result: string; exact: boolean } }).output
        assert.strictEqual(exact, expected.exact, text)
        // Every digit the calculator kept is the one the documented rounding gives.
        const kept = Result.getOrThrow(evaluateValue(text)).decimal
        assert.deepStrictEqual(decimalValue(kept.value, kept.scale), expected.value, text)
        const printed = parseResult(result)
        if (exact) {
          // Exact means exact: the very value of the expression.
          assert.deepStrictEqual(printed, expected.exactValue, text)
        } else {
          assert.deepStrictEqual(printed, roundRational(expected.value, 20).value, text)
        }
      }),
    { arbitrary: { runs: 1000 } }
  )

  it.effect.prop(
    "a quotient of any two decimals is shown as its true value rounded once, half to even, to 20 digits",
    [
      Schema.Struct({
        numerator: Schema.String.check(Schema.isPattern(/^[1-9][0-9]{0,59}$/)),
        denominator: Schema.String.check(Schema.isPattern(/^[1-9][0-9]{0,59}$/)),
        numeratorPlaces: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 60 })),
        denominatorPlaces: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 60 }))
      })
    ],
    ([{ denominator, denominatorPlaces, numerator, numeratorPlaces }]) =>
      Effect.gen(function*() {
        const a = decimalValue(BigInt(numerator), numeratorPlaces)
        const b = decimalValue(BigInt(denominator), denominatorPlaces)
        const text = `${numerator}e-${numeratorPlaces} / ${denominator}e-${denominatorPlaces}`
        const actual = yield* calculate(text)
        assert.strictEqual(actual.status, "success", text)
        const { exact, result } = (actual as { output: { result: string; exact: boolean } }).output
        const quotient = divide(a, b)
        const shown = roundRational(quotient, 20)
        // Exact when the quotient terminates (within these operands' digits it always does within 1000 digits).
        assert.strictEqual(exact, roundRational(quotient, 1000).exact, text)
        assert.deepStrictEqual(parseResult(result), exact ? quotient : shown.value, text)
      }),
    { arbitrary: { runs: 500 } }
  )

  const Piece = Schema.Literals([
    ..."0123456789.+-*/%^(), e\u00d7\u00f7\u2212\u03c0",
    "sqrt",
    "round",
    "min",
    "pi",
    "9e9",
    "**"
  ])

  it.effect.prop(
    "any string over the calculator's alphabet gives a value or invalid_args with a column, never another failure",
    [Schema.Array(Piece).check(Schema.isMaxLength(60))],
    ([pieces]) =>
      Effect.gen(function*() {
        const actual = yield* calculate(pieces.join(""))
        if (actual.status === "success") return
        assert.strictEqual(actual.kind, "invalid_args", JSON.stringify(actual))
        assert.match(actual.message!, /^column \d+: /)
      }),
    { arbitrary: { runs: 500 } }
  )

  it.effect.prop(
    "any string at all gives a value or invalid_args",
    [Schema.String],
    ([expression]) =>
      Effect.gen(function*() {
        const actual = yield* calculate(expression)
        assert.isTrue(actual.status === "success" || actual.kind === "invalid_args", JSON.stringify(actual))
      }),
    { arbitrary: { runs: 300 } }
  )

  const Unit = Schema.Int.check(Schema.isBetween({ minimum: -1_000_000, maximum: 1_000_000 }))

  it.effect.prop(
    "a sum or a product of decimals is exact, whatever their scales",
    [
      Schema.Array(Unit).check(Schema.isMinLength(1), Schema.isMaxLength(12)),
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 12 })),
      Schema.Literals(["+", "*"])
    ],
    ([units, scale, operator]) =>
      Effect.gen(function*() {
        const terms = units.map((unit) => decimalValue(BigInt(unit), scale))
        const text = units.map((unit) => `${unit}e-${scale}`).join(` ${operator} `)
        const actual = yield* calculate(text)
        assert.strictEqual(actual.status, "success", `${text}: ${JSON.stringify(actual)}`)
        const { exact, result } = (actual as { output: { result: string; exact: boolean } }).output
        assert.isTrue(exact, text)
        assert.deepStrictEqual(parseResult(result), terms.reduce(operator === "+" ? add : multiply), text)
      }),
    { arbitrary: { runs: 300 } }
  )
})
