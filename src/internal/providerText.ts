/**
 * Text renderings shared by the provider adapters, so that every provider says the same thing the same way where
 * it can only take text.
 */
import type * as ToolResultContent from "../ToolResultContent.ts"
import type { ToolResult } from "../ToolResult.ts"

/** A Json block as compact JSON text. */
export const jsonText = (value: unknown): string => JSON.stringify(value)

/**
 * The text of a block that has a text form (Text, Json, ResourceLink), or `undefined` for media (Image, Audio, File),
 * which each adapter lowers by its provider's capabilities.
 */
export const blockText = (block: ToolResultContent.ToolResultContent): string | undefined => {
  switch (block._tag) {
    case "Text":
      return block.text
    case "Json":
      return jsonText(block.value)
    case "ResourceLink":
      return `${block.name}: ${block.uri}${block.description ? ` (${block.description})` : ""}`
    default:
      return undefined
  }
}

/**
 * For providers with no error flag (OpenAI): the words put before a failed, denied or skipped result's text, so the
 * model reads it as what it is. `undefined` for success.
 */
export const statusPrefix = (result: ToolResult): string | undefined => {
  switch (result.status) {
    case "success":
      return undefined
    case "denied":
      return "Tool call denied: "
    case "skipped":
      return "Tool call skipped: "
    case "error":
      return `Tool call failed (${result.error._tag === "Some" ? result.error.value.kind : "other"}): `
  }
}
