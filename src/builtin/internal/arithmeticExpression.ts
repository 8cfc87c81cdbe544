/**
 * The calculator's language: one arithmetic expression, read by a recursive-descent parser into a tree, then
 * evaluated with the bounded decimals of `decimalArithmetic.ts`. Nothing in it is ever run as code.
 *
 * Grammar, loosest first:
 *
 * ```
 * sum     = product (("+" | "-") product)*
 * product = signed (("*" | "/" | "%") signed)*
 * signed  = ("+" | "-") signed | power
 * power   = primary (("^" | "**") signed)?
 * primary = number | name | name "(" sum ("," sum)* ")" | "(" sum ")"
 * ```
 *
 * So `^` binds tighter than a sign on its left (`-2^2` is -4), is right-associative (`2^3^2` is 512), and takes a
 * signed exponent (`2^-1`). `×`, `÷` and `−` are `*`, `/` and `-`; `π` is `pi`.
 *
 * Every level of nesting (a parenthesis, a sign, a power, a function call) counts towards `maxDepth`, checked as the
 * parser descends: the recursion is bounded, whatever the input. Chains of `+` or `*` are read in a loop and kept
 * flat, so the tree is never deeper than the nesting either, and neither is the evaluation.
 */
import { Data, Result } from "effect"
import * as Decimal from "./decimalArithmetic.ts"

/** The bounds of an expression, besides those of its numbers. */
export interface ExpressionLimits {
  /** The most characters (UTF-16 code units) an expression may have. */
  readonly maxLength: number
  /** The most levels of nesting. */
  readonly maxDepth: number
}

/** The bounds the calculator tool uses. */
export const defaultLimits: ExpressionLimits = { maxLength: 1000, maxDepth: 256 }

/** Why an expression has no value, and where: `column` counts characters (code points) from 1. */
export class ExpressionError extends Data.TaggedError("ExpressionError")<{
  readonly column: number
  readonly reason: string
}> {
  override get message(): string {
    return `column ${this.column}: ${this.reason}`
  }
}

type Operator = "+" | "-" | "*" | "/" | "%" | "^"

type Token =
  | { readonly _tag: "Number"; readonly column: number; readonly text: string }
  | { readonly _tag: "Name"; readonly column: number; readonly name: string }
  | { readonly _tag: "Operator"; readonly column: number; readonly operator: Operator; readonly written: string }
  | { readonly _tag: "Open"; readonly column: number }
  | { readonly _tag: "Close"; readonly column: number }
  | { readonly _tag: "Comma"; readonly column: number }
  | { readonly _tag: "End"; readonly column: number }

type OperatorToken = Extract<Token, { readonly _tag: "Operator" }>

interface FunctionSpec {
  readonly minArity: number
  readonly maxArity: number
  readonly apply: (args: ReadonlyArray<Decimal.Value>) => Result.Result<Decimal.Value, Decimal.Failure>
}

const unary = (f: (a: Decimal.Value) => Result.Result<Decimal.Value, Decimal.Failure>): FunctionSpec => ({
  minArity: 1,
  maxArity: 1,
  apply: (args) => f(args[0]!)
})

const functions: Record<string, FunctionSpec> = {
  sqrt: unary(Decimal.squareRoot),
  abs: unary((a) => Result.succeed(Decimal.abs(a))),
  round: {
    minArity: 1,
    maxArity: 2,
    apply: (args) => Decimal.roundTo(args[0]!, args[1])
  },
  floor: unary(Decimal.floor),
  ceil: unary(Decimal.ceil),
  trunc: unary(Decimal.truncate),
  min: { minArity: 1, maxArity: Infinity, apply: (args) => Result.succeed(Decimal.extremum(args, false)) },
  max: { minArity: 1, maxArity: Infinity, apply: (args) => Result.succeed(Decimal.extremum(args, true)) }
}

// Written to more digits than a value keeps, and rounded to them when read.
const constants: Record<string, Decimal.Value> = {
  pi: Decimal.constant(
    "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651"
  ),
  e: Decimal.constant(
    "2.71828182845904523536028747135266249775724709369995957496696762772407663035354759457138217852516642742746639193"
  )
}

/** The functions the calculator knows, for its description and its error messages. */
export const functionNames: ReadonlyArray<string> = Object.keys(functions)

/** The constants the calculator knows, for its description and its error messages. */
export const constantNames: ReadonlyArray<string> = Object.keys(constants)

const knownNames = `the functions are ${functionNames.join(", ")} and the constants are ${constantNames.join(", ")}`

type Node =
  | { readonly _tag: "Literal"; readonly value: Decimal.Value }
  | { readonly _tag: "Negate"; readonly operand: Node }
  | {
    readonly _tag: "Chain"
    readonly first: Node
    readonly rest: ReadonlyArray<{ readonly operator: Operator; readonly column: number; readonly operand: Node }>
  }
  | { readonly _tag: "Power"; readonly column: number; readonly base: Node; readonly exponent: Node }
  | { readonly _tag: "Call"; readonly column: number; readonly spec: FunctionSpec; readonly args: ReadonlyArray<Node> }

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9"
const isNameStart = (c: string | undefined): boolean => c !== undefined && /^[A-Za-z_]$/.test(c)
const isNamePart = (c: string | undefined): boolean => c !== undefined && /^[A-Za-z0-9_]$/.test(c)
const isSpace = (c: string): boolean => /^\s$/u.test(c)

const singleOperators: Record<string, Operator> = {
  "+": "+",
  "-": "-",
  "\u2212": "-",
  "*": "*",
  "\u00d7": "*",
  "/": "/",
  "\u00f7": "/",
  "%": "%",
  "^": "^"
}

const fail = (column: number, reason: string): never => {
  throw new ExpressionError({ column, reason })
}

/** The tokens of an expression, given as code points so that columns count characters. */
const tokenize = (chars: ReadonlyArray<string>): Array<Token> => {
  const tokens: Array<Token> = []
  let i = 0
  while (i < chars.length) {
    const c = chars[i]!
    const column = i + 1
    if (isSpace(c)) {
      i++
    } else if (isDigit(c) || (c === "." && isDigit(chars[i + 1]))) {
      const start = i
      while (isDigit(chars[i])) i++
      if (chars[i] === ".") {
        i++
        while (isDigit(chars[i])) i++
      }
      // An exponent only when digits follow: in `2e` or `2e+x`, the `e` is a name (and the parser says what is wrong).
      if (chars[i] === "e" || chars[i] === "E") {
        const sign = chars[i + 1] === "+" || chars[i + 1] === "-" ? 1 : 0
        if (isDigit(chars[i + 1 + sign])) {
          i += 1 + sign
          while (isDigit(chars[i])) i++
        }
      }
      tokens.push({ _tag: "Number", column, text: chars.slice(start, i).join("") })
    } else if (isNameStart(c)) {
      const start = i
      while (isNamePart(chars[i])) i++
      tokens.push({ _tag: "Name", column, name: chars.slice(start, i).join("").toLowerCase() })
    } else if (c === "\u03c0") {
      tokens.push({ _tag: "Name", column, name: "pi" })
      i++
    } else if (c === "*" && chars[i + 1] === "*") {
      tokens.push({ _tag: "Operator", column, operator: "^", written: "**" })
      i += 2
    } else if (singleOperators[c] !== undefined) {
      tokens.push({ _tag: "Operator", column, operator: singleOperators[c], written: c })
      i++
    } else if (c === "(") {
      tokens.push({ _tag: "Open", column })
      i++
    } else if (c === ")") {
      tokens.push({ _tag: "Close", column })
      i++
    } else if (c === ",") {
      tokens.push({ _tag: "Comma", column })
      i++
    } else {
      // The character is not repeated: the column says where it is.
      fail(
        column,
        "unexpected character: an expression is made of numbers, the operators + - * / % ^ **, parentheses, " +
          "commas between function arguments, and names of functions and constants"
      )
    }
  }
  tokens.push({ _tag: "End", column: chars.length + 1 })
  return tokens
}

/** What a token is, in an error message: never the text of a number or a name that was sent. */
const describe = (token: Token): string => {
  switch (token._tag) {
    case "Number":
      return "a number"
    case "Name":
      return "a name"
    case "Operator":
      return `'${token.written}'`
    case "Open":
      return "'('"
    case "Close":
      return "')'"
    case "Comma":
      return "','"
    case "End":
      return "the end of the expression"
  }
}

const parse = (tokens: ReadonlyArray<Token>, maxDepth: number): Node => {
  let position = 0
  const peek = (): Token => tokens[position]!
  const next = (): Token => tokens[position++]!

  const enter = (depth: number, column: number): number => {
    if (depth >= maxDepth) fail(column, `the expression is nested too deeply: at most ${maxDepth} levels`)
    return depth + 1
  }

  const isOperator = (token: Token, ...operators: ReadonlyArray<Operator>): token is OperatorToken =>
    token._tag === "Operator" && operators.includes(token.operator)

  const chain = (operators: ReadonlyArray<Operator>, operand: () => Node): Node => {
    const first = operand()
    const rest: Array<{ operator: Operator; column: number; operand: Node }> = []
    while (true) {
      const token = peek()
      if (!isOperator(token, ...operators)) break
      next()
      rest.push({ operator: token.operator, column: token.column, operand: operand() })
    }
    return rest.length === 0 ? first : { _tag: "Chain", first, rest }
  }

  const sum = (depth: number): Node => chain(["+", "-"], () => product(depth))
  const product = (depth: number): Node => chain(["*", "/", "%"], () => signed(depth))

  const signed = (depth: number): Node => {
    const token = peek()
    if (isOperator(token, "+", "-")) {
      next()
      const operand = signed(enter(depth, token.column))
      return token.operator === "-" ? { _tag: "Negate", operand } : operand
    }
    return power(depth)
  }

  const power = (depth: number): Node => {
    const base = primary(depth)
    const token = peek()
    if (!isOperator(token, "^")) return base
    next()
    return { _tag: "Power", column: token.column, base, exponent: signed(enter(depth, token.column)) }
  }

  const primary = (depth: number): Node => {
    const token = next()
    switch (token._tag) {
      case "Number":
        return Result.match(Decimal.literal(token.text), {
          onSuccess: (value): Node => ({ _tag: "Literal", value }),
          onFailure: (reason) => fail(token.column, reason)
        })
      case "Name":
        return name(token, depth)
      case "Open": {
        const inner = sum(enter(depth, token.column))
        expectClose(token.column)
        return inner
      }
      default:
        return fail(token.column, `expected a number, a name or '(' but found ${describe(token)}`)
    }
  }

  const name = (token: Extract<Token, { _tag: "Name" }>, depth: number): Node => {
    const spec = Object.hasOwn(functions, token.name) ? functions[token.name] : undefined
    if (spec === undefined) {
      if (Object.hasOwn(constants, token.name)) return { _tag: "Literal", value: constants[token.name]! }
      return fail(token.column, `unknown name: ${knownNames}`)
    }
    const open = next()
    if (open._tag !== "Open") {
      return fail(open.column, `expected '(' after the function ${token.name} but found ${describe(open)}`)
    }
    const inner = enter(depth, open.column)
    const args = [sum(inner)]
    while (peek()._tag === "Comma") {
      next()
      args.push(sum(inner))
    }
    expectClose(open.column)
    if (args.length < spec.minArity || args.length > spec.maxArity) {
      fail(token.column, `${token.name} takes ${arity(spec)}, not ${args.length}`)
    }
    return { _tag: "Call", column: token.column, spec, args }
  }

  const expectClose = (openColumn: number): void => {
    const token = next()
    if (token._tag !== "Close") {
      fail(
        token.column,
        `expected ')' to close the '(' at column ${openColumn}${
          token._tag === "Comma" ? "" : " or an operator"
        } but found ${describe(token)}`
      )
    }
  }

  if (peek()._tag === "End") fail(1, "the expression is empty")
  const tree = sum(0)
  const rest = peek()
  if (rest._tag === "Close") fail(rest.column, "')' without a matching '('")
  if (rest._tag !== "End") {
    fail(
      rest.column,
      `expected an operator or the end of the expression but found ${describe(rest)}` +
        (rest._tag === "Number" || rest._tag === "Name" || rest._tag === "Open"
          ? " (multiplication is written with *)"
          : "")
    )
  }
  return tree
}

const arity = (spec: FunctionSpec): string =>
  spec.maxArity === Infinity
    ? `at least ${spec.minArity} argument${spec.minArity === 1 ? "" : "s"}`
    : spec.minArity === spec.maxArity
    ? `${spec.minArity} argument${spec.minArity === 1 ? "" : "s"}`
    : `${spec.minArity} or ${spec.maxArity} arguments`

type Operation = (a: Decimal.Value, b: Decimal.Value) => Result.Result<Decimal.Value, Decimal.Failure>

const binary: Record<Operator, Operation> = {
  "+": Decimal.add,
  "-": Decimal.subtract,
  "*": Decimal.multiply,
  "/": Decimal.divide,
  "%": Decimal.remainder,
  "^": Decimal.power
}

/** Left to right, operands before their operator: the first failure in that order is the one reported. */
const evaluateNode = (node: Node): Decimal.Value => {
  switch (node._tag) {
    case "Literal":
      return node.value
    case "Negate":
      return Decimal.negate(evaluateNode(node.operand))
    case "Chain": {
      let value = evaluateNode(node.first)
      for (const { column, operand, operator } of node.rest) {
        value = orFail(binary[operator](value, evaluateNode(operand)), column)
      }
      return value
    }
    case "Power":
      return orFail(Decimal.power(evaluateNode(node.base), evaluateNode(node.exponent)), node.column)
    case "Call":
      return orFail(node.spec.apply(node.args.map(evaluateNode)), node.column)
  }
}

const orFail = (result: Result.Result<Decimal.Value, Decimal.Failure>, column: number): Decimal.Value =>
  Result.isSuccess(result) ? result.success : fail(column, result.failure)

/** An evaluated expression: the number as text (see `decimalArithmetic.format`) and whether it is exact. */
export interface Evaluated {
  readonly result: string
  readonly exact: boolean
}

/**
 * The value of one expression within `limits`, every digit of it. Never throws for any string: a mistake in it, a
 * bound it breaks, or an operation without a result (division by zero) is an `ExpressionError` with the column where
 * it happened.
 */
export const evaluateValue = (
  expression: string,
  limits: ExpressionLimits = defaultLimits
): Result.Result<Decimal.Value, ExpressionError> => {
  if (expression.length > limits.maxLength) {
    return Result.fail(
      new ExpressionError({
        column: limits.maxLength + 1,
        reason: `the expression is too long: at most ${limits.maxLength} characters`
      })
    )
  }
  try {
    return Result.succeed(evaluateNode(parse(tokenize(Array.from(expression)), limits.maxDepth)))
  } catch (error) {
    if (error instanceof ExpressionError) return Result.fail(error)
    throw error
  }
}

/** {@link evaluateValue}, as the model reads it. */
export const evaluate = (
  expression: string,
  limits: ExpressionLimits = defaultLimits
): Result.Result<Evaluated, ExpressionError> =>
  Result.map(evaluateValue(expression, limits), (value) => ({ result: Decimal.format(value), exact: value.exact }))
