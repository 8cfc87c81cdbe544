/**
 * The typed blocks a tool's model-visible output is made of: text, JSON, images, audio, files and resource links.
 * Blocks stay typed until a provider adapter renders them for its wire format.
 *
 * Blocks are classes: a value is a block because it was built by one of these constructors, never because a plain
 * object happens to have the same shape. Each block class has a Schema to serialize it (`TextBlockSchema`,
 * `JsonBlockSchema`, …), and {@link schema} takes any block.
 *
 * @since 0.1.0
 */
import { Data, Predicate, Schema, SchemaTransformation } from "effect"

/**
 * Where an image's or a file's bytes are: inline as base64, or at a URL.
 *
 * @category models
 */
export type Source =
  | { readonly _tag: "Base64"; readonly data: string }
  | { readonly _tag: "Url"; readonly url: string }

/**
 * How much detail a provider should use when it looks at an image.
 *
 * @category models
 */
export type ImageDetail = "auto" | "low" | "high"

/**
 * Hints about a block for whoever shows it: who it is for, how much it matters (0 to 1) and when it last changed
 * (an ISO 8601 timestamp). They are MCP's content annotations, kept so that content imported over MCP loses nothing.
 *
 * @category models
 */
export interface Annotations {
  readonly audience?: ReadonlyArray<"user" | "assistant"> | undefined
  readonly priority?: number | undefined
  readonly lastModified?: string | undefined
}

/**
 * Metadata attached to a block, for programs rather than the model: MCP's `_meta`. Adapters never show it.
 *
 * @category models
 */
export type Meta = Schema.JsonObject

/**
 * An icon a host can show for a resource link.
 *
 * @category models
 */
export interface Icon {
  readonly src: string
  readonly mimeType?: string | undefined
  readonly sizes?: ReadonlyArray<string> | undefined
  readonly theme?: "light" | "dark" | undefined
}

/** The fields every block may carry besides its content. */
interface Common {
  readonly annotations?: Annotations | undefined
  readonly meta?: Meta | undefined
}

/** The fields of a block that stands for a resource's contents: where the contents come from, and its own metadata. */
interface FromResource {
  readonly uri?: string | undefined
  readonly resourceMeta?: Meta | undefined
}

/**
 * Plain text for the model. A text resource's contents keep their `uri` and `mediaType`.
 *
 * @category models
 */
export class Text extends Data.TaggedClass("Text")<
  & {
    readonly text: string
    readonly mediaType?: string | undefined
  }
  & FromResource
  & Common
> {}

/**
 * A JSON value for the model. Adapters render it as compact JSON text where the provider wants text, and keep it
 * structured where the provider takes structure.
 *
 * @category models
 */
export class Json extends Data.TaggedClass("Json")<{ readonly value: Schema.Json } & Common> {}

/**
 * An image, inline (base64) or by URL. An image resource's contents keep their `uri`.
 *
 * @category models
 */
export class Image extends Data.TaggedClass("Image")<
  & {
    readonly source: Source
    readonly mediaType?: string | undefined
    readonly detail?: ImageDetail | undefined
  }
  & FromResource
  & Common
> {}

/**
 * Audio as base64 data with its media type. An audio resource's contents keep their `uri`.
 *
 * @category models
 */
export class Audio extends Data.TaggedClass("Audio")<
  & { readonly data: string; readonly mediaType: string }
  & FromResource
  & Common
> {}

/**
 * A document such as a PDF, inline (base64) or by URL. A binary resource's contents keep their `uri`.
 *
 * @category models
 */
export class File extends Data.TaggedClass("File")<
  & {
    readonly source: Source
    readonly mediaType: string
    readonly filename?: string | undefined
  }
  & FromResource
  & Common
> {}

/**
 * A link to a resource the model (or the host) can fetch, not its contents.
 *
 * @category models
 */
export class ResourceLink extends Data.TaggedClass("ResourceLink")<ResourceLinkFields> {}

/** What a resource link holds: its address and name, and what a host may show about it. */
interface ResourceLinkFields extends Common {
  readonly uri: string
  readonly name: string
  readonly title?: string | undefined
  readonly mediaType?: string | undefined
  readonly description?: string | undefined
  /** The size of the resource in bytes, when known. */
  readonly size?: number | undefined
  readonly icons?: ReadonlyArray<Icon> | undefined
}

/**
 * Any content block.
 *
 * @category models
 */
export type ToolResultContent = Text | Json | Image | Audio | File | ResourceLink

const blockClasses = [Text, Json, Image, Audio, File, ResourceLink] as const

/**
 * True for a value built as a content block. Plain objects shaped like blocks are not blocks.
 *
 * @example
 * ```ts
 * import { ToolResultContent } from "effect-llm-tools"
 *
 * ToolResultContent.isToolResultContent(ToolResultContent.text("hi")) // true
 * ToolResultContent.isToolResultContent({ _tag: "Text", text: "hi" }) // false
 * ```
 *
 * @category guards
 */
export const isToolResultContent = (u: unknown): u is ToolResultContent => {
  if (!Predicate.isObject(u)) return false
  for (const Block of blockClasses) {
    if (u instanceof Block) return true
  }
  return false
}

/**
 * A block of one field, as its class's constructor makes it: the same prototype, the same own fields in the same
 * order (the field, then `_tag`), so equal to and indistinguishable from `new Json({ value })`. Made without that
 * constructor, which copies its argument's fields one by one and defines `_tag` as a class field: for the blocks
 * dispatch makes on every call, it costs more than the rest of making an output (a test pins the equivalence).
 */
const made = <B>(prototype: B, field: string, value: unknown, tag: string): B => {
  const block = Object.create(prototype as object)
  block[field] = value
  block._tag = tag
  return block
}

/**
 * A Text block.
 *
 * @category constructors
 */
export const text = (text: string): Text => made(Text.prototype, "text", text, "Text")

/**
 * A Json block. The value must be JSON (plain objects, arrays, strings, finite numbers, booleans, null).
 *
 * @category constructors
 */
export const json = (value: Schema.Json): Json => made(Json.prototype, "value", value, "Json")

/**
 * An image from base64 data.
 *
 * @category constructors
 */
export const imageBase64 = (data: string, mediaType?: string, detail?: ImageDetail): Image =>
  new Image({ source: { _tag: "Base64", data }, mediaType, detail })

/**
 * An image at a URL.
 *
 * @category constructors
 */
export const imageUrl = (url: string, mediaType?: string, detail?: ImageDetail): Image =>
  new Image({ source: { _tag: "Url", url }, mediaType, detail })

/**
 * Audio from base64 data.
 *
 * @category constructors
 */
export const audio = (data: string, mediaType: string): Audio => new Audio({ data, mediaType })

/**
 * A file (a PDF, say) from base64 data.
 *
 * @category constructors
 */
export const fileBase64 = (data: string, mediaType: string, filename?: string): File =>
  new File({ source: { _tag: "Base64", data }, mediaType, filename })

/**
 * A file at a URL.
 *
 * @category constructors
 */
export const fileUrl = (url: string, mediaType: string, filename?: string): File =>
  new File({ source: { _tag: "Url", url }, mediaType, filename })

/**
 * A link to a resource.
 *
 * @category constructors
 */
export const resourceLink = (options: ResourceLinkFields): ResourceLink => new ResourceLink(options)

// ---------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------

const SourceSchema = Schema.Union([
  Schema.TaggedStruct("Base64", { data: Schema.String }),
  Schema.TaggedStruct("Url", { url: Schema.String })
])

const optional = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.UndefinedOr(schema))

const AnnotationsSchema = Schema.Struct({
  audience: optional(Schema.Array(Schema.Literals(["user", "assistant"]))),
  priority: optional(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))),
  lastModified: optional(Schema.String)
})

const IconSchema = Schema.Struct({
  src: Schema.String,
  mimeType: optional(Schema.String),
  sizes: optional(Schema.Array(Schema.String)),
  theme: optional(Schema.Literals(["light", "dark"]))
})

const commonFields = {
  annotations: optional(AnnotationsSchema),
  meta: optional(Schema.JsonObject)
}

const resourceFields = {
  uri: optional(Schema.String),
  resourceMeta: optional(Schema.JsonObject)
}

/** Encodes a block class as its tagged struct of fields, and decodes the struct into a class instance. */
const blockSchema = <Fields extends Schema.Struct.Fields, C extends new(fields: any) => { readonly _tag: string }>(
  Block: C,
  tag: InstanceType<C>["_tag"],
  fields: Fields
) =>
  Schema.TaggedStruct(tag, fields).pipe(
    Schema.decodeTo(
      Schema.instanceOf(Block),
      SchemaTransformation.transform({
        decode: (fields) => {
          const { _tag, ...rest } = fields as { readonly _tag: string }
          return new Block(rest) as InstanceType<C>
        },
        encode: (block) => ({ ...block }) as any
      })
    )
  )

/**
 * The Schema of a Text block. Each block Schema encodes its class to a tagged struct and decodes it back.
 *
 * @category schemas
 */
export const TextBlockSchema = blockSchema(Text, "Text", {
  text: Schema.String,
  mediaType: optional(Schema.String),
  ...resourceFields,
  ...commonFields
})

/**
 * The Schema of a Json block.
 *
 * @category schemas
 */
export const JsonBlockSchema = blockSchema(Json, "Json", { value: Schema.Json, ...commonFields })

/**
 * The Schema of an Image block.
 *
 * @category schemas
 */
export const ImageBlockSchema = blockSchema(Image, "Image", {
  source: SourceSchema,
  mediaType: optional(Schema.String),
  detail: optional(Schema.Literals(["auto", "low", "high"])),
  ...resourceFields,
  ...commonFields
})

/**
 * The Schema of an Audio block.
 *
 * @category schemas
 */
export const AudioBlockSchema = blockSchema(Audio, "Audio", {
  data: Schema.String,
  mediaType: Schema.String,
  ...resourceFields,
  ...commonFields
})

/**
 * The Schema of a File block.
 *
 * @category schemas
 */
export const FileBlockSchema = blockSchema(File, "File", {
  source: SourceSchema,
  mediaType: Schema.String,
  filename: optional(Schema.String),
  ...resourceFields,
  ...commonFields
})

/**
 * The Schema of a ResourceLink block.
 *
 * @category schemas
 */
export const ResourceLinkBlockSchema = blockSchema(ResourceLink, "ResourceLink", {
  uri: Schema.String,
  name: Schema.String,
  title: optional(Schema.String),
  mediaType: optional(Schema.String),
  description: optional(Schema.String),
  size: optional(Schema.Int),
  icons: optional(Schema.Array(IconSchema)),
  ...commonFields
})

/**
 * The Schema of any block: encodes a block into a tagged JSON object and decodes it back into its class.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ToolResultContent } from "effect-llm-tools"
 *
 * const encoded = Schema.encodeSync(ToolResultContent.schema)(ToolResultContent.text("hi"))
 * // { _tag: "Text", text: "hi" }
 * ```
 *
 * @category schemas
 */
export const schema = Schema.Union([
  TextBlockSchema,
  JsonBlockSchema,
  ImageBlockSchema,
  AudioBlockSchema,
  FileBlockSchema,
  ResourceLinkBlockSchema
])
