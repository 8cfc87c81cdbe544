// The package ships no types: this is the one function it exports (CommonJS `module.exports = stem`).
declare module "wink-porter2-stemmer" {
  function stem(word: string): string
  export = stem
}
