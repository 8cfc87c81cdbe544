/**
 * What a retriever reads of a tool's parameters: their names and enum values, and their descriptions and titles.
 * Read from the parameters Schema itself, which costs a walk; from a JSON Schema when that is what a tool holds.
 */
import { SchemaAST } from "effect"

/** The parameters' names and enum values, and their descriptions and titles, in schema order. */
export interface ParameterText {
  readonly names: Array<string>
  readonly text: Array<string>
}

/** Bounds on a walk: a schema is author-controlled, and may be large, deeply nested or recursive. */
const maxNodes = 2_000
const maxDepth = 16

/**
 * The parameter text of a Schema, from its AST: property names, string literals, and the `description` and `title`
 * annotations below the root (the root's description is the tool's own). Classes are read through their encoded
 * side, which is the struct the model writes.
 */
export const fromSchemaAst = (root: SchemaAST.AST): ParameterText => {
  const names: Array<string> = []
  const text: Array<string> = []
  const seen = new Set<SchemaAST.AST>()
  const annotations = (ast: SchemaAST.AST) => {
    const description = ast.annotations?.description
    if (typeof description === "string") text.push(description)
    const title = ast.annotations?.title
    if (typeof title === "string") text.push(title)
  }
  const visit = (ast: SchemaAST.AST, depth: number): void => {
    if (depth > maxDepth || seen.has(ast) || seen.size >= maxNodes) return
    seen.add(ast)
    if (depth > 0) annotations(ast)
    switch (ast._tag) {
      case "Objects":
        for (const signature of ast.propertySignatures) {
          if (typeof signature.name === "string") names.push(signature.name)
          visit(signature.type, depth + 1)
        }
        for (const signature of ast.indexSignatures) visit(signature.type, depth + 1)
        return
      case "Arrays":
        for (const element of ast.elements) visit(element, depth + 1)
        for (const element of ast.rest) visit(element, depth + 1)
        return
      case "Union":
        for (const member of ast.types) visit(member, depth + 1)
        return
      case "Literal":
        if (typeof ast.literal === "string") names.push(ast.literal)
        return
      case "Enum":
        for (const [, value] of ast.enums) if (typeof value === "string") names.push(value)
        return
      case "Suspend":
        visit(ast.thunk(), depth + 1)
        return
      case "Declaration": {
        const encoded = SchemaAST.toEncoded(ast)
        if (encoded !== ast) visit(encoded, depth)
        return
      }
    }
  }
  visit(root, 0)
  return { names, text }
}

/** The parameter text of a JSON Schema: property names, string enum and const values, descriptions and titles. */
export const fromJsonSchema = (schema: unknown): ParameterText => {
  const names: Array<string> = []
  const text: Array<string> = []
  const seen = new Set<object>()
  const visit = (node: unknown, depth: number): void => {
    if (typeof node !== "object" || node === null || depth > maxDepth || seen.has(node) || seen.size >= maxNodes) {
      return
    }
    seen.add(node)
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1)
      return
    }
    const record = node as Record<string, unknown>
    if (depth > 0) {
      if (typeof record.description === "string") text.push(record.description)
      if (typeof record.title === "string") text.push(record.title)
    }
    if (Array.isArray(record.enum)) {
      for (const value of record.enum) if (typeof value === "string") names.push(value)
    }
    if (typeof record.const === "string") names.push(record.const)
    const properties = record.properties
    if (typeof properties === "object" && properties !== null && !Array.isArray(properties)) {
      for (const [key, value] of Object.entries(properties)) {
        names.push(key)
        visit(value, depth + 1)
      }
    }
    for (const key of ["items", "prefixItems", "additionalProperties", "anyOf", "oneOf", "allOf"]) {
      visit(record[key], depth + 1)
    }
    for (const key of ["$defs", "definitions"]) {
      const definitions = record[key]
      if (typeof definitions === "object" && definitions !== null) {
        for (const value of Object.values(definitions)) visit(value, depth + 1)
      }
    }
  }
  visit(schema, 0)
  return { names, text }
}
