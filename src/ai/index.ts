/**
 * The effect/ai bridge: our tool sets as effect/ai toolkits and back, and the model ⇄ tools loop over a
 * `LanguageModel`.
 *
 * @since 0.1.0
 */

/** Tool sets as effect/ai toolkits, and effect/ai toolkits as tool sets. */
export * as AiToolkit from "./AiToolkit.ts"

/** The model ⇄ tools loop over an effect/ai `LanguageModel`. */
export * as ToolLoop from "./ToolLoop.ts"
