/**
 * JSON Schema checks shared by the tests of generated schemas: a draft 2020-12 validator from an independent
 * implementation, and the `$ref`s a schema holds.
 */
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation"
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker"
import type { JsonSchema } from "../../src/internal/jsonSchema.ts"

const validator = new CfWorkerJsonSchemaValidator({ draft: "2020-12" })

/** Whether a draft 2020-12 validator accepts `value` under `schema`. */
export const accepts = (schema: JsonSchema, value: unknown): boolean =>
  validator.getValidator(schema as JsonSchemaType)(value).valid

/** Every `$ref` string in a JSON Schema, sorted: tests compare them as a set with repeats. */
export const refsIn = (schema: unknown): Array<string> => {
  const refs: Array<string> = []
  const stack: Array<unknown> = [schema]
  while (stack.length > 0) {
    const node = stack.pop()
    if (Array.isArray(node)) stack.push(...node)
    else if (typeof node === "object" && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" && typeof value === "string") refs.push(value)
        else stack.push(value)
      }
    }
  }
  return refs.sort()
}
