/// <reference path="./wink-porter2-stemmer.d.ts" />
/**
 * The default, offline retriever: BM25 (minisearch) over what a tool definition holds, with a Porter2 stemmer.
 *
 * minisearch and the stemmer are loaded with `import()` the first time an index is built, so that importing the
 * package never loads them.
 */
import { Effect } from "effect"
import { cutAt } from "./issues.ts"

/** What the index reads of one tool. */
export interface LexicalDocument {
  readonly name: string
  readonly description: string
  readonly docs: ReadonlyArray<string>
  /** The parameters' names and enum values (see `parameterText.ts`). */
  readonly parameterNames: ReadonlyArray<string>
  /** The parameters' descriptions and titles. */
  readonly parameterText: ReadonlyArray<string>
}

/** Field weights: how much a query term found in each field counts. */
export interface FieldBoosts {
  readonly name: number
  readonly description: number
  readonly docs: number
  readonly parameterNames: number
  readonly parameterText: number
}

/**
 * The retriever's features, each one measurable on its own (the retrieval evaluation turns them off one by one).
 */
export interface LexicalOptions {
  /** Porter2-stem every word, of documents and queries alike. */
  readonly stem: boolean
  /** Split names on `_`, `-`, `.`, `:` and camelCase; otherwise a name is one token. */
  readonly splitNames: boolean
  /** Index the parameters' names, descriptions and enum values. */
  readonly parameters: boolean
  /** Drop common English function words from documents and queries. */
  readonly stopWords: boolean
  /** Let a query word of four letters or more also match the words it begins ("repo" finds "repository"). */
  readonly prefix: boolean
  /** Add the words of a small general thesaurus to a query ("remove" also searches "delete"), at a lower weight. */
  readonly thesaurus: boolean
  /** Let a query that names a file or a path (`notes.txt`, `~/Documents`) also search "file", as a thesaurus word. */
  readonly fileNames: boolean
  readonly boost: FieldBoosts
}

/** The features the default retriever uses; each was kept because it raised recall on the evaluation's dev half. */
export const defaultLexicalOptions: LexicalOptions = {
  stem: true,
  splitNames: true,
  parameters: true,
  stopWords: true,
  prefix: true,
  thesaurus: true,
  fileNames: true,
  boost: { name: 2, description: 1, docs: 1, parameterNames: 0.5, parameterText: 0.25 }
}

/** A built index: the ids (positions in the documents it was built from) of the matching tools, best first. */
export interface LexicalIndex {
  readonly search: (query: string, limit: number) => Array<number>
}

/**
 * At most this many distinct query words are searched. A query is usually a user's message, which can be a pasted
 * page: each word costs a lookup, and the first few hundred carry the request.
 */
export const maxQueryTerms = 256

/** At most this many words of a query are read, repeated ones included: a page of one word said over and over. */
export const maxQueryWords = 4 * maxQueryTerms

/** A thesaurus word counts for less than a word the user wrote. */
const thesaurusWeight = 0.5

// The words that appear in almost every request and every description: they carry no preference for a tool.
const stopWords = new Set([
  "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
  "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "here", "him", "his", "how", "i",
  "if", "in", "into", "is", "it", "its", "just", "let", "like", "me", "might", "my", "of", "on", "or", "our", "please",
  "she", "should", "so", "some", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
  "those", "to", "us", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
  "with", "would", "you", "your"
])

/**
 * Words that users and tool authors use for the same thing: the everyday verbs of reading and changing things, and
 * the usual short forms of software objects. General English and general software vocabulary, never the names of
 * particular tools: a request rarely uses the author's word ("remove" for delete, "folder" for directory, "PR" for
 * pull request). A query word in a group also searches the group's other words.
 */
const thesaurusGroups: ReadonlyArray<ReadonlyArray<string>> = [
  ["delete", "remove", "erase", "drop", "forget", "destroy", "discard"],
  ["create", "make", "new", "add", "start", "setup"],
  ["get", "fetch", "retrieve", "show", "display", "view", "see"],
  ["list", "show", "enumerate"],
  ["search", "find", "lookup", "look", "query", "grep", "locate", "seek"],
  ["update", "edit", "change", "modify", "fix", "alter", "replace", "amend"],
  ["write", "save", "store", "overwrite", "record"],
  ["send", "post", "tell", "notify", "announce", "share", "message"],
  ["move", "rename", "relocate"],
  ["reply", "respond", "answer", "comment"],
  ["remember", "memory", "memorize", "recall", "note"],
  ["run", "execute", "launch"],
  ["think", "reason", "reasoning", "thought", "thoughts"],
  ["directory", "directories", "folder", "folders", "dir"],
  ["repository", "repositories", "repo", "repos"],
  ["pull", "pr", "prs"],
  ["merge", "mr", "mrs"],
  ["database", "db", "sql"],
  ["image", "picture", "photo", "pic", "screenshot"],
  ["audio", "sound", "recording", "voice"],
  ["user", "users", "member", "members", "people", "person", "profile"],
  ["reaction", "emoji", "react"],
  ["environment", "env"],
  ["configuration", "config", "settings"],
  ["information", "info", "details", "metadata"],
  ["issue", "ticket", "bug"],
  ["size", "big", "large", "bytes"],
  ["web", "internet", "online", "google"],
  ["coordinates", "latitude", "longitude", "lat", "gps"],
  ["elevation", "altitude", "height"],
  ["directions", "route", "navigate"],
  ["distance", "far"]
]

/**
 * A file name: two letters, digits, `_` or `-`, a dot and an extension (a letter, then at most four letters or digits)
 * that ends the token. "e.g." and "v1.2" are none.
 */
const fileNamePattern = /[\p{L}\p{N}_-]{2}\.\p{L}[\p{L}\p{N}]{0,4}(?![\p{L}\p{N}_/-]|\.[\p{L}\p{N}])/u

/** A path or a dot file: a token that begins with `/`, `~/`, `./`, `../`, or `.` and a letter. */
const pathPattern = /(?<![^\s([{"'`‘“])(?:(?:~|\.\.?)?\/[\p{L}\p{N}]|\.\p{L})/u

/**
 * Whether a request names a file or a path ("open notes/todo.md", "what's in .env", "the videos in ~/Movies"): then
 * it is about a file, though it may never say the word.
 */
const namesAFile = (text: string): boolean => fileNamePattern.test(text) || pathPattern.test(text)

interface Engines {
  readonly MiniSearch: typeof import("minisearch").default
  readonly stem: (word: string) => string
}

let loading: Promise<Engines> | undefined

const load = (): Promise<Engines> =>
  loading ??= Promise.all([import("minisearch"), import("wink-porter2-stemmer")]).then(
    ([minisearch, stemmer]) => ({ MiniSearch: minisearch.default, stem: stemmer.default }),
    (error: unknown) => {
      // A failed load is not remembered: the next build tries again.
      loading = undefined
      throw error
    }
  )

// Marks belong to the letter before them (a decomposed "é", Devanagari's vowel signs): they never split a word. An
// English contraction's ending ("what's", "file’s", "don't", "we're") is matched with its word and dropped: alone it
// would be a word of one or two letters that matches every other contraction and possessive.
const wordPattern = /([\p{L}\p{M}\p{N}]+)(?:['’](?:s|t|re|ve|ll|d|m)(?![\p{L}\p{M}\p{N}]))?/giu

const hasUpperCase = /\p{Lu}/u

// Scripts written without spaces between words: a run of them is a sentence, not a word, and is split into its words
// by Unicode's word boundaries, which ICU finds with dictionaries for these scripts ("明日の天気予報" is 明日, の,
// 天気, 予報).
const unspaced = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u

let wordSegmenter: Intl.Segmenter | undefined

/** How much of a run of such a script is split into words at once. */
const segmentedLength = 256

/**
 * Calls `f` with the words of a text, in Unicode's compatibility form (NFKC), lower-cased, in order, until it returns
 * false; identifiers inside the text (`read_file`, `entityNames`, `HTTPServer`) are split into their words, and so is
 * text of a script written without spaces (Chinese, Japanese, Thai, …), and contraction endings dropped. A caller
 * who needs only the first words of a long text reads only those. Answers the normalized text, up to the last word
 * read.
 */
const eachWord = (raw: string, f: (word: string) => boolean): string => {
  // One spelling for each word: composed "é" and "e" with its accent, full-width and plain letters, ligatures.
  const text = raw.normalize("NFKC")
  wordPattern.lastIndex = 0
  for (let match = wordPattern.exec(text); match !== null; match = wordPattern.exec(text)) {
    const run = match[1]!
    if (unspaced.test(run)) {
      wordSegmenter ??= new Intl.Segmenter(undefined, { granularity: "word" })
      // In pieces: finding the boundaries of one run takes time that grows faster than its length (16,000
      // characters 37 ms, a megabyte minutes). A word cut at a piece's end is two words.
      for (let at = 0; at < run.length; at += segmentedLength) {
        for (const { isWordLike, segment } of wordSegmenter.segment(run.slice(at, at + segmentedLength))) {
          if (isWordLike === true && !f(cut(segment.toLowerCase()))) return text.slice(0, wordPattern.lastIndex)
        }
      }
      continue
    }
    if (!hasUpperCase.test(run)) {
      if (!f(cut(run))) return text.slice(0, wordPattern.lastIndex)
      continue
    }
    const parts = run.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2").replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    for (const part of parts.split(" ")) if (!f(cut(part.toLowerCase()))) return text.slice(0, wordPattern.lastIndex)
  }
  return text
}

/**
 * The longest word kept whole. A longer one (a hash, base64, a sentence of a script written without spaces) is cut
 * here, in documents and queries alike: the stemmer's time grows with the square of a word's length, and a word of a
 * megabyte would hold the thread for hours.
 */
const maxWordLength = 64

const cut = (word: string): string => cutAt(word, maxWordLength)

const hasDigit = /\p{N}/u

/**
 * A word's stem. A word with a digit (a number, `mp3`, `ipv4`, `k8s`) is a name or a value, kept as written: the
 * stemmer, made for English words, mangles it ("300" to "y00", "mp3" to "mpi").
 */
const stemOf = (stem: (word: string) => string, word: string): string => hasDigit.test(word) ? word : stem(word)

const fields = ["name", "description", "docs", "parameterNames", "parameterText"] as const

interface Row {
  readonly id: number
  readonly name: string
  readonly description: string
  readonly docs: string
  readonly parameterNames: string
  readonly parameterText: string
}

/**
 * Builds the index. Documents are identified by their position; `search` answers positions, best first, ties in
 * document order.
 */
export const buildLexicalIndex = (
  documents: ReadonlyArray<LexicalDocument>,
  options: LexicalOptions = defaultLexicalOptions
): Effect.Effect<LexicalIndex> =>
  Effect.map(Effect.promise(load), ({ MiniSearch, stem }) => {
    // Stems of the documents' words, kept for queries. Words only a query brought are stemmed, never stored, so
    // that queries cannot grow the index.
    const stems = new Map<string, string>()
    /** A word's term: `undefined` for a stop word, its stem otherwise, from `stems` or kept in `kept` once made. */
    const termOf = (word: string, kept: Map<string, string>): string | undefined => {
      if (options.stopWords && stopWords.has(word)) return undefined
      if (!options.stem) return word
      let stemmed = stems.get(word) ?? kept.get(word)
      if (stemmed === undefined) {
        stemmed = stemOf(stem, word)
        kept.set(word, stemmed)
      }
      return stemmed
    }
    const normalize = (word: string): string | undefined => termOf(word, stems)
    const terms = (text: string, keepWhole: boolean): Array<string> => {
      if (keepWhole) return text === "" ? [] : [text.toLowerCase()]
      const out: Array<string> = []
      eachWord(text, (word) => {
        const term = normalize(word)
        if (term !== undefined) out.push(term)
        return true
      })
      return out
    }
    const rows: Array<Row> = documents.map((document, id) => ({
      id,
      name: document.name,
      description: document.description,
      docs: document.docs.join("\n"),
      parameterNames: options.parameters ? document.parameterNames.join(" ") : "",
      parameterText: options.parameters ? document.parameterText.join("\n") : ""
    }))
    const index = new MiniSearch<Row>({
      idField: "id",
      fields: [...fields],
      storeFields: [],
      tokenize: (text, field) => terms(text, field === "name" && !options.splitNames),
      // Terms come out of `tokenize` already normalized.
      processTerm: (term) => term
    })
    index.addAll(rows)
    // Queries are normalized once here, then searched as they are.
    const searchOptions = {
      boost: { ...options.boost },
      prefix: options.prefix ? (term: string) => term.length >= 4 : false,
      tokenize: (text: string) => text.split(" "),
      processTerm: (term: string) => term,
      combineWith: "OR" as const
    }
    const fileTerm = options.fileNames ? normalize("file") : undefined
    // Each word's thesaurus terms, normalized as documents are.
    const related = new Map<string, Array<string>>()
    if (options.thesaurus) {
      for (const group of thesaurusGroups) {
        for (const word of group) {
          const terms = related.get(word) ?? []
          for (const other of group) {
            const term = other === word ? undefined : normalize(other)
            if (term !== undefined && !terms.includes(term)) terms.push(term)
          }
          related.set(word, terms)
        }
      }
    }
    return {
      search: (query, limit) => {
        if (limit <= 0) return []
        const unique = new Set<string>()
        const expansions = new Set<string>()
        // The stems of the words only the query has: each stemmed once a query, and never kept in the index.
        const seen = new Map<string, string>()
        let words = 0
        const read = eachWord(query, (word) => {
          const term = termOf(word, seen)
          if (term !== undefined && term !== "") unique.add(term)
          for (const other of related.get(word) ?? []) expansions.add(other)
          return unique.size < maxQueryTerms && ++words < maxQueryWords
        })
        if (fileTerm !== undefined && namesAFile(read)) expansions.add(fileTerm)
        for (const term of unique) expansions.delete(term)
        if (unique.size === 0 && expansions.size === 0) return []
        const hits = index.search([...unique, ...expansions].join(" "), {
          ...searchOptions,
          boostTerm: (term: string) => expansions.has(term) ? thesaurusWeight : 1
        })
        // minisearch sorts by score alone; equal scores are put in document order, so that a ranking never
        // depends on how the engine iterated.
        hits.sort((left, right) => right.score - left.score || (left.id as number) - (right.id as number))
        const out: Array<number> = []
        for (let i = 0; i < hits.length && i < limit; i++) out.push(hits[i]!.id as number)
        return out
      }
    }
  })
