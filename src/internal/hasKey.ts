/**
 * `Predicate.hasProperty`, without its data-first-or-last wrapper: the guards the path of every call asks several
 * times per call (is this an Effect, an Exit, a tool set) call this.
 *
 * @internal
 */
export const hasKey = (u: unknown, key: PropertyKey): boolean =>
  (typeof u === "object" && u !== null || typeof u === "function") && key in u
