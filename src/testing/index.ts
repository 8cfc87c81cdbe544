/**
 * effect-llm-tools/testing: test tools the way this library tests itself. Generated arguments, arguments a tool must
 * refuse, the property that dispatch is total, and a scripted language model for tool loops. The core never loads it.
 *
 * @since 0.1.0
 */

/** Generated arguments, refused arguments, the totality property and a scripted model. */
export * as ToolTesting from "./ToolTesting.ts"
