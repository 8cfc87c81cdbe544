import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  buildLexicalIndex,
  defaultLexicalOptions,
  type LexicalDocument,
  maxQueryTerms,
  maxQueryWords
} from "../../src/internal/lexicalIndex.ts"

const tool = (name: string, description: string): LexicalDocument => ({
  name,
  description,
  docs: [],
  parameterNames: [],
  parameterText: []
})

/** The names of the tools a query finds, best first. */
const search = (tools: ReadonlyArray<LexicalDocument>, query: string, options = defaultLexicalOptions) =>
  Effect.map(
    buildLexicalIndex(tools, options),
    (index) => index.search(query, tools.length).map((id) => tools[id]!.name)
  )

describe("buildLexicalIndex", () => {
  it.effect("keeps a word with a digit as written: the stemmer would read mp3 as mpi and 1234 as 12y4", () =>
    Effect.gen(function*() {
      const tools = [tool("convert_audio", "Converts a recording to mp3"), tool("run_job", "Runs an MPI job")]
      assert.deepStrictEqual(yield* search(tools, "mp3"), ["convert_audio"])
      assert.deepStrictEqual(yield* search(tools, "mpi"), ["run_job"])
      const issue = [tool("get_issue", "Reads issue 1234")]
      assert.deepStrictEqual([yield* search(issue, "1234"), yield* search(issue, "12y4")], [["get_issue"], []])
    }))

  it.effect("drops a contraction's ending from a query, with either apostrophe: what's searches no word s", () =>
    Effect.gen(function*() {
      const tools = [tool("get_weather", "The weather forecast"), tool("file_size", "Reads a file's size")]
      for (const query of ["what's the weather", "what\u2019s the weather", "WHAT'S THE WEATHER"]) {
        assert.deepStrictEqual(yield* search(tools, query), ["get_weather"])
      }
      for (const query of ["don't", "we're", "they've", "I'll", "I'd", "I'm", "can\u2019t"]) {
        assert.deepStrictEqual(yield* search([tool("letters", "d ll m re s t ve")], query), [])
      }
    }))

  it.effect("drops a contraction's ending from indexed text: a file's size holds no word s", () =>
    Effect.gen(function*() {
      const tools = [tool("file_size", "Reads a file\u2019s size, if it's there"), tool("letters", "Lists s and t")]
      assert.deepStrictEqual(yield* search(tools, "s"), ["letters"])
      assert.deepStrictEqual(yield* search(tools, "file"), ["file_size"])
    }))

  it.effect("splits text of scripts written without spaces into its words, in documents and queries alike", () =>
    Effect.gen(function*() {
      const tools = [
        tool("forecast", "天気予報を調べる"),
        tool("translate", "文章を翻訳する"),
        tool("weather_zh", "查询天气预报"),
        tool("thai_weather", "พยากรณ์อากาศ")
      ]
      // Tomorrow's weather forecast, please: 天気 and 予報 are words of both.
      assert.deepStrictEqual((yield* search(tools, "明日の天気予報を教えて"))[0], "forecast")
      assert.deepStrictEqual((yield* search(tools, "天气预报怎么样"))[0], "weather_zh")
      assert.deepStrictEqual((yield* search(tools, "翻訳して"))[0], "translate")
      assert.deepStrictEqual((yield* search(tools, "อากาศวันนี้"))[0], "thai_weather")
    }))

  it.effect("reads at most maxQueryWords words of a query, a word said over and over included", () =>
    Effect.gen(function*() {
      const tools = [tool("get_weather", "The weather forecast"), tool("umbrella", "Rain gear")]
      const repeated = "rain ".repeat(maxQueryWords - 1)
      assert.deepStrictEqual(yield* search(tools, `${repeated}weather`), ["get_weather", "umbrella"])
      assert.deepStrictEqual(yield* search(tools, `${repeated}rain weather`), ["umbrella"])
      // The same with a script written without spaces, whose runs are split into words.
      const japanese = [tool("forecast", "天気予報を調べる"), tool("gear", "雨具")]
      assert.deepStrictEqual(yield* search(japanese, `${"雨具".repeat(maxQueryWords)}天気予報`), ["gear"])
    }))

  it.effect("keeps an apostrophe inside a name, and a word that only begins like an ending", () =>
    Effect.gen(function*() {
      const tools = [tool("find_author", "Finds books by O'Reilly or d'Artagnan"), tool("noop", "Does nothing")]
      assert.deepStrictEqual(yield* search(tools, "reilly"), ["find_author"])
      assert.deepStrictEqual(yield* search(tools, "artagnan"), ["find_author"])
    }))

  it.effect("searches a request that names a file or a path for files, though it never says the word", () =>
    Effect.gen(function*() {
      const tools = [tool("get_weather", "The weather forecast"), tool("read_text", "Reads the text of a file")]
      for (const query of ["what does notes.txt say?", "open (src/app.ts)", "what's in .env", "sizes in ~/Movies"]) {
        assert.deepStrictEqual(yield* search(tools, query), ["read_text"])
      }
      const without = { ...defaultLexicalOptions, fileNames: false }
      assert.deepStrictEqual(yield* search(tools, "what does notes.txt say?", without), [])
    }))

  it.effect("takes no abbreviation, version, number or pair of words for a file name", () =>
    Effect.gen(function*() {
      const tools = [tool("get_weather", "The weather forecast"), tool("read_text", "Reads the text of a file")]
      assert.deepStrictEqual(yield* search(tools, "e.g. i.e. U.S.A. v1.2.3 3.5 lat/long and/or 1/2 Mr. Smith"), [])
    }))

  it.effect("looks for a file name only among the words it searches", () =>
    Effect.gen(function*() {
      const tools = [tool("read_text", "Reads the text of a file")]
      const noise = Array.from({ length: maxQueryTerms }, (_, i) => `w${i}x`).join(" ")
      assert.deepStrictEqual(yield* search(tools, `notes.txt ${noise}`), ["read_text"])
      assert.deepStrictEqual(yield* search(tools, `${noise} notes.txt`), [])
    }))
})
