import { Context, Effect, Schema } from "effect"
import { Tool } from "../../src/index.ts"

/** A database built once with its layer: what a tool captures when it is registered. */
export class Database extends Context.Service<Database, { readonly lookup: (id: string) => string }>()(
  "test/Database"
) {}

/** The user a call is made for: each call brings its own. */
export class CurrentUser extends Context.Service<CurrentUser, { readonly id: string }>()("test/CurrentUser") {}

/** The host's locale. */
export class Locale extends Context.Service<Locale, string>()("test/Locale") {}

/** A tool that needs a captured service (the Database) and a per-call one (the CurrentUser). */
export const Whoami = Tool.make("whoami", {
  description: "Who is asking, as the database knows them",
  parameters: Schema.Struct({}),
  call: () =>
    Effect.gen(function*() {
      const db = yield* Database
      const user = yield* CurrentUser
      return db.lookup(user.id)
    })
})

/** A tool that needs the Locale. */
export const Greet = Tool.make("greet", {
  description: "Greet someone in the host's locale",
  parameters: Schema.Struct({ name: Schema.String }),
  call: ({ name }) => Effect.map(Locale, (locale) => `${locale}: hello ${name}`)
})
