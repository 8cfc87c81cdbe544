/**
 * effect-llm-tools/builtin: portable tools a model can trust without anyone writing them (a scratchpad, exact
 * arithmetic, the time, the files under one folder, web pages from allowed hosts), and `Builtin.toolSet`, which
 * gathers the ones a configuration asks for.
 *
 * @since 0.1.0
 */

/** The built-in tools: think, calculator, clock, filesystem and http, and the tool set of a configuration. */
export * as Builtin from "./Builtin.ts"
