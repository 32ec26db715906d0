/** abstract-level's test suite (`abstract-level/test`), which ships no types. */
declare module "abstract-level/test/*.js" {
  // biome-ignore lint/suspicious/noExplicitAny: tape's harness and abstract-level's testCommon
  type Any = any;
  /** The whole suite (index.js), or a module's `all(test, testCommon)` (and a few others). */
  const entry: ((...args: Any[]) => Any) & { all(test: Any, testCommon: Any): void };
  export default entry;
}
declare module "abstract-level/test/index.js" {
  // biome-ignore lint/suspicious/noExplicitAny: tape's harness and abstract-level's testCommon
  type Any = any;
  export default function suite(options: { test: Any; factory(options?: object): Any }): void;
}
