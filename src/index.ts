/**
 * effect-llm-tools: author, register and execute the tools that LLMs call, on Effect 4.
 *
 * Every module below is also an entry of its own, for imports that name only what they use:
 * `import * as ToolSet from "effect-llm-tools/ToolSet"`,
 * `import * as OpenAiChat from "effect-llm-tools/provider/OpenAiChat"`.
 *
 * @since 0.1.0
 */

/** Typed tools with one `call`. */
export * as Tool from "./Tool.ts"

/** The per-call context: inbound values, host-only result metadata, call facts. */
export * as ToolContext from "./ToolContext.ts"

/** Content blocks: text, JSON, images, audio, files, resource links. */
export * as ToolResultContent from "./ToolResultContent.ts"

/** The canonical model-visible output, and the conversion of return values into it. */
export * as ToolOutput from "./ToolOutput.ts"

/** The one error envelope, with its closed set of kinds. */
export * as ToolExecutionError from "./ToolExecutionError.ts"

/** What the model asked for. */
export * as ToolCall from "./ToolCall.ts"

/** The single execution view of a call. */
export * as ToolResult from "./ToolResult.ts"

/** Provider-facing definitions with JSON Schema. */
export * as ToolDefinition from "./ToolDefinition.ts"

/** Ordered tool collections and dispatch. */
export * as ToolSet from "./ToolSet.ts"

/** Tools defined at run time from JSON Schema, and portable tools with a serializable spec. */
export * as DynamicTool from "./DynamicTool.ts"

/** A tool marked for retrieval: its embedding docs and its stored context. */
export * as ToolEmbedding from "./ToolEmbedding.ts"

/** Per-request tool selection: an index over embedding tools, and the tool set of one turn. */
export * as ToolIndex from "./ToolIndex.ts"

/** Static, dynamic and embedding tools into one tool set and its index. */
export * as ToolSetBuilder from "./ToolSetBuilder.ts"

/** Hooks before and after every call of a tool server: run, rewrite, skip, deny, stop; human approval. */
export * as ToolHooks from "./ToolHooks.ts"

/** The long-lived dispatch service: hot registration, pinned snapshots, limits, timeouts, retries, hooks. */
export * as ToolServer from "./ToolServer.ts"

/** OpenAI Chat Completions: tool definitions, calls and tool messages. */
export * as OpenAiChat from "./provider/OpenAiChat.ts"

/** OpenAI Responses: function tools, function_call items and function_call_output items. */
export * as OpenAiResponses from "./provider/OpenAiResponses.ts"

/** Anthropic Messages: tool definitions, tool_use calls in, tool_result blocks out. */
export * as Anthropic from "./provider/Anthropic.ts"

/** Gemini: function declarations, functionCall parts in, functionResponse parts out. */
export * as Gemini from "./provider/Gemini.ts"
