/**
 * The calculator's numbers: Effect's `BigDecimal`, each with a flag that says whether it is exact, and the bounded
 * operations on them. Sums, differences, products, remainders and whole-number powers are exact; a quotient or a
 * square root that does not terminate is rounded to `limits.roundedDigits` significant digits and marked inexact.
 * Every result is held within `limits`, so no expression can make a number grow without bound.
 *
 * A value is rounded to odd (its digits cut, and the last made odd when anything nonzero was cut), and only the
 * shown result is rounded half to even: so the 20 digits shown of one quotient, root or long sum are those of its
 * true value rounded once, never a rounding of a rounding (a value kept with at least two more digits than are shown
 * and rounded to odd rounds to nearest as its true value does). Results of several rounded operations carry their
 * errors, as any arithmetic of finite precision does.
 */
import { BigDecimal, Result } from "effect"

/**
 * The bounds every number is held to.
 *
 * - `maxSignificantDigits`: a value with more digits than this (a long product, a sum of numbers of very different
 *   sizes) is rounded to it (to odd) and becomes inexact. It bounds the cost of every operation.
 * - `roundedDigits`: the significant digits of a quotient, a square root or a constant that does not terminate: 100,
 *   and two more, so that a value they are cut from (a quotient less a number of 80 digits) still shows its 100th
 *   digit right, rounded to odd as they are.
 * - `maxExponent`: every nonzero magnitude lies in [10^-maxExponent, 10^maxExponent); a result outside is refused,
 *   never rounded to zero or infinity.
 * - `displayDigits`: the significant digits an inexact result is shown with.
 * - `maxLiteralDigits`: the significant digits a number written in an expression may have.
 */
export const limits = {
  maxSignificantDigits: 1000,
  roundedDigits: 102,
  maxExponent: 1000,
  displayDigits: 20,
  maxLiteralDigits: 100
} as const

/** A number, and whether it is exactly the value the expression denotes so far. */
export interface Value {
  readonly decimal: BigDecimal.BigDecimal
  readonly exact: boolean
}

/** Why an operation has no result, in words for the model. */
export type Failure = string

const zero = BigDecimal.fromBigInt(0n)
const one = BigDecimal.fromBigInt(1n)

/** An exact value. */
export const exact = (decimal: BigDecimal.BigDecimal): Value => ({ decimal, exact: true })

const digitCount = (n: bigint): number => (n < 0n ? -n : n).toString().length

const pow10 = (n: number): bigint => 10n ** BigInt(n)

/** The decimal exponent of the leading digit of a nonzero value: 2 for 123, -3 for 0.00123. */
const exponentOf = (decimal: BigDecimal.BigDecimal): number => digitCount(decimal.value) - 1 - decimal.scale

const tooLarge: Failure = `the result is too large: magnitudes must stay below 1e+${limits.maxExponent}`
const tooSmall: Failure =
  `the result is too small: nonzero magnitudes must be at least 1e-${limits.maxExponent} (it is not rounded to zero)`
const divisionByZero: Failure = "division by zero"

/**
 * How a value is rounded: `"odd"` (to odd) for the values kept, `"even"` (half to even) for the result shown. See the
 * module's description.
 */
type Rounding = "odd" | "even"

/**
 * `|n|` rounded to `digits` significant digits; `sticky` says that something nonzero was already cut off below `n`
 * (so that a dropped half is more than a half, and nothing dropped is still inexact). Returns the kept digits, how
 * many were dropped, and whether nothing nonzero was lost.
 */
const roundMagnitude = (n: bigint, digits: number, sticky: boolean, rounding: Rounding) => {
  const drop = digitCount(n) - digits
  if (drop <= 0) {
    // Nothing more to cut: rounded to odd, a value something was cut from still ends odd.
    const kept = rounding === "odd" && sticky && n % 2n === 0n ? n + 1n : n
    return { kept, dropped: 0, exact: !sticky }
  }
  const unit = pow10(drop)
  let kept = n / unit
  const rest = n % unit
  if (rounding === "odd") {
    // An even number plus one never carries: the kept digits stay as many.
    if ((sticky || rest !== 0n) && kept % 2n === 0n) kept += 1n
  } else {
    const twice = 2n * rest
    if (twice > unit || (twice === unit && (sticky || kept % 2n === 1n))) kept += 1n
  }
  return { kept, dropped: drop, exact: !sticky && rest === 0n }
}

/** `decimal` rounded to `digits` significant digits, and whether that changed it. */
const roundSignificant = (decimal: BigDecimal.BigDecimal, digits: number, rounding: Rounding): Value => {
  const negative = decimal.value < 0n
  const rounded = roundMagnitude(negative ? -decimal.value : decimal.value, digits, false, rounding)
  if (rounded.dropped === 0) return { decimal, exact: true }
  return {
    decimal: BigDecimal.normalize(
      BigDecimal.make(negative ? -rounded.kept : rounded.kept, decimal.scale - rounded.dropped)
    ),
    exact: rounded.exact
  }
}

/** A result made whole: normalized, rounded to the digits a value may have, and refused outside the magnitudes. */
const checked = (decimal: BigDecimal.BigDecimal, isExact: boolean): Result.Result<Value, Failure> => {
  const rounded = roundSignificant(BigDecimal.normalize(decimal), limits.maxSignificantDigits, "odd")
  if (BigDecimal.isZero(rounded.decimal)) return Result.succeed({ decimal: zero, exact: isExact && rounded.exact })
  const exponent = exponentOf(rounded.decimal)
  if (exponent >= limits.maxExponent) return Result.fail(tooLarge)
  if (exponent < -limits.maxExponent) return Result.fail(tooSmall)
  return Result.succeed({ decimal: rounded.decimal, exact: isExact && rounded.exact })
}

/**
 * A number as written: `digits` (with an optional `.`) and a decimal exponent. Refuses more than
 * `maxLiteralDigits` significant digits, and magnitudes outside the bounds.
 */
export const literal = (text: string): Result.Result<Value, Failure> => {
  const mantissa = text.split(/[eE]/)[0]!
  const significant = mantissa.replace(".", "").replace(/^0+/, "")
  if (significant.length > limits.maxLiteralDigits) {
    return Result.fail(`a number may have at most ${limits.maxLiteralDigits} significant digits`)
  }
  if (significant.replace(/0+$/, "") === "") return Result.succeed(exact(zero))
  const exponentText = text.slice(mantissa.length + 1)
  // An exponent too long to be a safe integer is far outside the bounds: refused without building the number.
  if (exponentText.replace(/^[+-]?0*/, "").length > 6) {
    return Result.fail(exponentText.startsWith("-") ? tooSmall : tooLarge)
  }
  const parsed = BigDecimal.fromString(mantissa)
  if (parsed._tag === "None") return Result.fail("the number is not valid")
  const exponent = exponentText === "" ? 0 : Number(exponentText)
  return checked(BigDecimal.make(parsed.value.value, parsed.value.scale - exponent), true)
}

/** A constant given by more digits than values keep, rounded to `roundedDigits` significant digits: inexact. */
export const constant = (digits: string): Value => {
  const rounded = roundSignificant(BigDecimal.fromStringUnsafe(digits), limits.roundedDigits, "odd")
  return { decimal: rounded.decimal, exact: false }
}

/** `a + b`, exact up to `maxSignificantDigits`. */
export const add = (a: Value, b: Value): Result.Result<Value, Failure> =>
  checked(BigDecimal.sum(a.decimal, b.decimal), a.exact && b.exact)

/** `a - b`, exact up to `maxSignificantDigits`. */
export const subtract = (a: Value, b: Value): Result.Result<Value, Failure> =>
  checked(BigDecimal.subtract(a.decimal, b.decimal), a.exact && b.exact)

/** `a * b`, exact up to `maxSignificantDigits`. */
export const multiply = (a: Value, b: Value): Result.Result<Value, Failure> =>
  checked(BigDecimal.multiply(a.decimal, b.decimal), a.exact && b.exact)

/** `-a`. */
export const negate = (a: Value): Value => ({ decimal: BigDecimal.negate(a.decimal), exact: a.exact })

/**
 * `a / b`: exact when the quotient terminates within `maxSignificantDigits` (held to them as any value is); else
 * rounded to `roundedDigits` significant digits, and inexact.
 *
 * Not `BigDecimal.divide`: it keeps at least as many digits as the integer part of the quotient of the operands'
 * unscaled integers, so how many digits a quotient has would depend on how its operands happen to be stored. Here
 * it is always the same, which is what the description of the tool promises.
 */
export const divide = (a: Value, b: Value): Result.Result<Value, Failure> => {
  if (BigDecimal.isZero(b.decimal)) return Result.fail(divisionByZero)
  if (BigDecimal.isZero(a.decimal)) return Result.succeed({ decimal: zero, exact: a.exact && b.exact })
  const numerator = a.decimal.value < 0n ? -a.decimal.value : a.decimal.value
  const denominator = b.decimal.value < 0n ? -b.decimal.value : b.decimal.value
  // Enough digits for the integer quotient to have at least one more than a value keeps: whether it terminates within
  // them, and if not, digits to round from.
  const shift = Math.max(0, limits.maxSignificantDigits + 1 + digitCount(denominator) - digitCount(numerator))
  const scaled = numerator * pow10(shift)
  const terminates = scaled % denominator === 0n
  const quotient = scaled / denominator
  const rounded = terminates
    ? { kept: quotient, dropped: 0, exact: true }
    : roundMagnitude(quotient, limits.roundedDigits, true, "odd")
  const negative = (a.decimal.value < 0n) !== (b.decimal.value < 0n)
  return checked(
    BigDecimal.make(
      negative ? -rounded.kept : rounded.kept,
      a.decimal.scale - b.decimal.scale + shift - rounded.dropped
    ),
    a.exact && b.exact && rounded.exact
  )
}

/** The remainder of `a / b` truncated toward zero: it has the sign of `a` (`-7 % 3` is `-1`), as in JavaScript. */
export const remainder = (a: Value, b: Value): Result.Result<Value, Failure> => {
  if (BigDecimal.isZero(b.decimal)) return Result.fail(divisionByZero)
  return checked(BigDecimal.remainderUnsafe(a.decimal, b.decimal), a.exact && b.exact)
}

/** The largest exponent a power may have (2^53 - 1, either way). */
const maxPowerExponent = BigInt(Number.MAX_SAFE_INTEGER)

const exponentTooLarge: Failure = `the exponent is too large: at most ${maxPowerExponent} either way`

/**
 * `base ^ exponent` for a whole-number exponent, by repeated squaring, each product rounded to
 * `maxSignificantDigits`. `0 ^ 0` is 1. A result that would leave the bounds is refused before any of it is
 * computed, from an estimate of its magnitude: `10^1000000000` costs nothing.
 */
export const power = (base: Value, exponent: Value): Result.Result<Value, Failure> => {
  if (!BigDecimal.isInteger(exponent.decimal)) {
    return Result.fail("the exponent must be a whole number (use sqrt for square roots)")
  }
  const isExact = base.exact && exponent.exact
  const whole = BigDecimal.normalize(exponent.decimal)
  const magnitude = BigDecimal.abs(base.decimal)
  if (BigDecimal.isZero(magnitude)) {
    if (BigDecimal.isNegative(whole)) return Result.fail(divisionByZero)
    return Result.succeed({ decimal: BigDecimal.isZero(whole) ? one : zero, exact: isExact })
  }
  if (BigDecimal.isZero(whole)) return Result.succeed({ decimal: one, exact: isExact })
  if (BigDecimal.equals(magnitude, one)) {
    // A normalized whole number with a negative scale ends in a zero: it is even.
    const odd = whole.scale === 0 && whole.value % 2n !== 0n
    const negative = BigDecimal.isNegative(base.decimal) && odd
    return Result.succeed({ decimal: negative ? BigDecimal.negate(one) : one, exact: isExact })
  }
  // Checked before the integer is built: an exponent like 1e999 is a whole number with a thousand digits.
  if (exponentOf(whole) > 15) return Result.fail(exponentTooLarge)
  const n = whole.value * pow10(-whole.scale)
  const absolute = n < 0n ? -n : n
  if (absolute > maxPowerExponent) return Result.fail(exponentTooLarge)
  const estimate = Number(n) * log10(magnitude)
  // One order of slack for the estimate's error: a result near a bound is checked exactly once computed.
  if (estimate > limits.maxExponent + 1) return Result.fail(tooLarge)
  if (estimate < -(limits.maxExponent + 1)) return Result.fail(tooSmall)
  let result: Value = exact(one)
  let square: Value = base
  let remaining = absolute
  while (remaining > 0n) {
    if (remaining % 2n === 1n) result = productRounded(result, square)
    remaining /= 2n
    if (remaining > 0n) square = productRounded(square, square)
  }
  if (n < 0n) return divide(exact(one), { decimal: result.decimal, exact: result.exact && isExact })
  return checked(result.decimal, result.exact && isExact)
}

/** A product rounded to the digits a value may have, without the magnitude check (done once, on the result). */
const productRounded = (a: Value, b: Value): Value => {
  const rounded = roundSignificant(
    BigDecimal.normalize(BigDecimal.multiply(a.decimal, b.decimal)),
    limits.maxSignificantDigits,
    "odd"
  )
  return { decimal: rounded.decimal, exact: a.exact && b.exact && rounded.exact }
}

/** log10 of a positive value, to a double's precision: for estimates only. */
const log10 = (positive: BigDecimal.BigDecimal): number => {
  const digits = positive.value.toString()
  const leading = Number(`0.${digits.slice(0, 17)}`)
  return digits.length - positive.scale + Math.log10(leading)
}

/** The floor of the square root of a non-negative integer, by Newton's method from above. */
const integerSquareRoot = (n: bigint): bigint => {
  if (n < 2n) return n
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2))
  while (true) {
    const next = (x + n / x) >> 1n
    if (next >= x) return x
    x = next
  }
}

/** The square root to `roundedDigits` significant digits; exact when it terminates within them. */
export const squareRoot = (a: Value): Result.Result<Value, Failure> => {
  if (BigDecimal.isNegative(a.decimal)) return Result.fail("the square root of a negative number is not a real number")
  if (BigDecimal.isZero(a.decimal)) return Result.succeed(a)
  const { scale, value } = BigDecimal.normalize(a.decimal)
  // value * 10^shift has at least 2 * (roundedDigits + 1) digits, so that its root has roundedDigits + 1 to round
  // from, and an even scale, so that the root of 10^-(scale + shift) is a power of ten.
  let shift = Math.max(0, 2 * (limits.roundedDigits + 1) - digitCount(value))
  if ((scale + shift) % 2 !== 0) shift++
  const radicand = value * pow10(shift)
  const root = integerSquareRoot(radicand)
  const rounded = roundMagnitude(root, limits.roundedDigits, root * root !== radicand, "odd")
  return checked(BigDecimal.make(rounded.kept, (scale + shift) / 2 - rounded.dropped), a.exact && rounded.exact)
}

/** The most decimal places `round(x, places)` takes, either way. */
const maxRoundingPlaces = limits.maxExponent

/** `a` rounded to `places` decimal places (negative: to tens, hundreds, …), halves away from zero. */
export const roundTo = (a: Value, places: Value = exact(zero)): Result.Result<Value, Failure> => {
  if (!BigDecimal.isInteger(places.decimal)) return Result.fail("the number of decimal places must be a whole number")
  // Within the magnitudes a value may have, so at worst Infinity, which is refused next.
  const count = BigDecimal.toNumberUnsafe(places.decimal)
  if (Math.abs(count) > maxRoundingPlaces) {
    return Result.fail(`the number of decimal places must be between -${maxRoundingPlaces} and ${maxRoundingPlaces}`)
  }
  return checked(BigDecimal.round(a.decimal, { scale: count, mode: "half-from-zero" }), a.exact && places.exact)
}

/** The greatest whole number not above `a`. */
export const floor = (a: Value): Result.Result<Value, Failure> => checked(BigDecimal.floor(a.decimal, 0), a.exact)

/** The least whole number not below `a`. */
export const ceil = (a: Value): Result.Result<Value, Failure> => checked(BigDecimal.ceil(a.decimal, 0), a.exact)

/** `a` without its fraction: toward zero. */
export const truncate = (a: Value): Result.Result<Value, Failure> =>
  checked(BigDecimal.truncate(a.decimal, 0), a.exact)

/** `|a|`. */
export const abs = (a: Value): Value => ({ decimal: BigDecimal.abs(a.decimal), exact: a.exact })

/**
 * The least (or, with `greatest`, the greatest) of values. Exact only when all of them are: a rounded value can
 * compare the other way round from the value it stands for, and then the one chosen is not the true extremum.
 */
export const extremum = (values: ReadonlyArray<Value>, greatest: boolean): Value => {
  const chosen = values.reduce((best, next) =>
    (greatest
        ? BigDecimal.isGreaterThan(next.decimal, best.decimal)
        : BigDecimal.isLessThan(next.decimal, best.decimal))
      ? next
      : best
  )
  return { decimal: chosen.decimal, exact: values.every((value) => value.exact) }
}

/**
 * A value as the model reads it: every digit when it is exact; rounded to `displayDigits` significant digits, half
 * to even, when it is not. Plain notation from 1e-7 up to 1e21, as JavaScript prints numbers; scientific
 * (`1.5e+25`, `2e-9`) outside, so that a result never runs to a thousand zeros.
 */
export const format = (value: Value): string => {
  const shown = value.exact ? value.decimal : roundSignificant(value.decimal, limits.displayDigits, "even").decimal
  const { scale, value: unscaled } = BigDecimal.normalize(shown)
  if (unscaled === 0n) return "0"
  const sign = unscaled < 0n ? "-" : ""
  const digits = (unscaled < 0n ? -unscaled : unscaled).toString()
  const exponent = digits.length - 1 - scale
  if (exponent >= 21 || exponent < -7) {
    const mantissa = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`
    return `${sign}${mantissa}e${exponent >= 0 ? "+" : ""}${exponent}`
  }
  if (scale <= 0) return `${sign}${digits}${"0".repeat(-scale)}`
  const padded = digits.padStart(scale + 1, "0")
  return `${sign}${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`
}
