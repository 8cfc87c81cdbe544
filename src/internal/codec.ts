/**
 * The JSON codec of a tool's Schemas: Effect's (`Schema.toCodecJson`), except that a number is a JSON number.
 *
 * Effect's JSON codec for `Schema.Number` also accepts the strings `"Infinity"`, `"-Infinity"` and `"NaN"`, so that
 * every number survives a round trip. Tool arguments are JSON a model writes, and a tool that asks for a number
 * should receive a finite one: `{"n":"NaN"}` must be refused, and the definition must say `{"type":"number"}`.
 * Effect leaves a number alone in its JSON codec when the number is already known to be finite (`Schema.Finite`,
 * `Schema.Int`), and that is the mechanism used here: every number of the Schema that JSON reaches is made finite
 * before the codec is derived, so the codec, the JSON Schema and the checks and annotations on the number all come
 * out of Effect's own derivation.
 */
import { Schema, SchemaAST } from "effect"

// One instance, shared by every number this module makes finite.
const finite = Schema.isFinite()

const finiteIds: ReadonlySet<unknown> = new Set(["effect/schema/isFinite", "effect/schema/isInt"])

/** Whether the checks already rule out NaN and the infinities: what Effect looks for when it derives a JSON codec. */
const hasFiniteCheck = (checks: ReadonlyArray<SchemaAST.Check<any>>): boolean =>
  checks.some((check) =>
    finiteIds.has(check.annotations?.representation?.id) ||
    (check._tag === "FilterGroup" && hasFiniteCheck(check.checks))
  )

const finiteAsts = new WeakMap<SchemaAST.AST, SchemaAST.AST>()

/**
 * The AST with every `Number` that JSON reaches made finite. It walks what Effect's JSON codec derivation walks: a
 * node with an encoding through the last link of its encoding only (the encoded side is what JSON meets), and
 * otherwise the node's children, including the type parameters a declaration builds its JSON link from. Keys of
 * records are left alone: they are strings in JSON. A node with nothing to change is returned as it is.
 */
const finiteAst = (ast: SchemaAST.AST): SchemaAST.AST => {
  const known = finiteAsts.get(ast)
  if (known !== undefined) return known
  const out = rebuild(ast)
  finiteAsts.set(ast, out)
  return out
}

const rebuild = (ast: SchemaAST.AST): SchemaAST.AST => {
  if (ast.encoding !== undefined) {
    const links = ast.encoding
    const last = links[links.length - 1]!
    const to = finiteAst(last.to)
    if (to === last.to) return ast
    const encoding: SchemaAST.Encoding = [...links.slice(0, -1), new SchemaAST.Link(to, last.transformation)] as any
    // Only the encoding changes: a copy keeps the node's prototype and every other field, as Effect's own copies do.
    return Object.assign(Object.create(Object.getPrototypeOf(ast)), ast, { encoding })
  }
  switch (ast._tag) {
    case "Number":
      return ast.checks !== undefined && hasFiniteCheck(ast.checks)
        ? ast
        // First, so that NaN is refused as not finite before other checks have their say.
        : new SchemaAST.Number(ast.annotations, [finite, ...(ast.checks ?? [])], undefined, ast.context)
    case "Objects": {
      const properties = ast.propertySignatures.map((property) => {
        const type = finiteAst(property.type)
        return type === property.type ? property : new SchemaAST.PropertySignature(property.name, type)
      })
      const indexes = ast.indexSignatures.map((index) => {
        const type = finiteAst(index.type)
        return type === index.type ? index : new SchemaAST.IndexSignature(index.parameter, type)
      })
      return unchanged(properties, ast.propertySignatures) && unchanged(indexes, ast.indexSignatures)
        ? ast
        : new SchemaAST.Objects(properties, indexes, ast.annotations, ast.checks, undefined, ast.context, ast.encodingChecks)
    }
    case "Arrays": {
      const elements = ast.elements.map(finiteAst)
      const rest = ast.rest.map(finiteAst)
      return unchanged(elements, ast.elements) && unchanged(rest, ast.rest)
        ? ast
        : new SchemaAST.Arrays(
          ast.isMutable,
          elements,
          rest,
          ast.annotations,
          ast.checks,
          undefined,
          ast.context,
          ast.encodingChecks
        )
    }
    case "Union": {
      const types = ast.types.map(finiteAst)
      return unchanged(types, ast.types)
        ? ast
        : new SchemaAST.Union(types, ast.options, ast.annotations, ast.checks, undefined, ast.context, ast.encodingChecks)
    }
    case "Declaration": {
      const typeParameters = ast.typeParameters.map(finiteAst)
      return unchanged(typeParameters, ast.typeParameters)
        ? ast
        : new SchemaAST.Declaration(
          typeParameters,
          ast.run,
          ast.annotations,
          ast.checks,
          undefined,
          ast.context,
          ast.encodingChecks,
          ast.encodingRun
        )
    }
    case "Suspend": {
      // The target may not be defined yet, and may lead back here: walk it when the parser first needs it.
      const thunk = ast.thunk
      return new SchemaAST.Suspend(() => finiteAst(thunk()), ast.annotations, ast.checks, undefined, ast.context)
    }
    default:
      return ast
  }
}

const unchanged = <A>(next: ReadonlyArray<A>, previous: ReadonlyArray<A>): boolean =>
  next.every((item, i) => item === previous[i])

const finiteSchemas = new WeakMap<Schema.Top, Schema.Top>()

/**
 * The Schema with every number that JSON reaches made finite (as if written `Schema.Finite`): the same Schema for
 * values that are already finite, and the one to derive JSON codecs and JSON Schemas from.
 */
export const finiteNumbers = <S extends Schema.Top>(schema: S): S => {
  let out = finiteSchemas.get(schema)
  if (out === undefined) {
    const ast = finiteAst(schema.ast)
    out = ast === schema.ast ? schema : Schema.make<S>(ast as S["ast"])
    finiteSchemas.set(schema, out)
  }
  return out as S
}

/**
 * The JSON codec dispatch decodes arguments and encodes outputs with: Effect's `Schema.toCodecJson` of the Schema
 * with finite numbers. A JSON number decodes as before; `"NaN"`, `"Infinity"` and `"-Infinity"` where a number is
 * expected fail with `Expected number`, and a NaN or infinite number fails as not finite, in both directions.
 */
export const jsonCodec = <S extends Schema.Top>(
  schema: S
): Schema.Codec<S["Type"], Schema.Json, S["DecodingServices"], S["EncodingServices"]> =>
  Schema.toCodecJson(finiteNumbers(schema))
