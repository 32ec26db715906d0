/** abstract-level's test suite (`abstract-level/test`), which ships no types. */
declare module "abstract-level/test/index.js" {
  interface SuiteOptions {
    // biome-ignore lint/suspicious/noExplicitAny: tape's harness
    test: any;
    // biome-ignore lint/suspicious/noExplicitAny: any abstract-level database
    factory(options?: object): any;
  }
  export default function suite(options: SuiteOptions): void;
}
