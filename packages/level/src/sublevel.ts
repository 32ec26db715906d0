/**
 * ShaleSublevel: abstract-level's sublevel (keys prefixed in the same database) of a
 * ShaleLevel, in Node or in the browser, knowing the `msgpack` encoding by name as its root
 * does.
 */
import { AbstractSublevel } from "abstract-level";
import { resolveEncoding, withEncodings } from "./encodings.js";

type Format = Buffer | Uint8Array | string;

// biome-ignore lint/suspicious/noExplicitAny: a sublevel of any ShaleLevel or sublevel
type AnyDatabase = any;

/**
 * A sublevel of a ShaleLevel: abstract-level's own sublevel (prefixed keys in the same
 * engine), knowing the `msgpack` encoding by name as its root does.
 */
export class ShaleSublevel extends AbstractSublevel<AnyDatabase, Format, AnyDatabase, AnyDatabase> {
  constructor(db: AnyDatabase, name: string | string[], options: object) {
    super(db, name as string, withEncodings(options) as never);
  }

  // biome-ignore lint/suspicious/noExplicitAny: overrides abstract-level's overloads
  override keyEncoding(encoding?: any): any {
    return super.keyEncoding(resolveEncoding(encoding) as never);
  }

  // biome-ignore lint/suspicious/noExplicitAny: overrides abstract-level's overloads
  override valueEncoding(encoding?: any): any {
    return super.valueEncoding(resolveEncoding(encoding) as never);
  }

  _sublevel(name: string | string[], options: object): ShaleSublevel {
    return new ShaleSublevel(this, name, options);
  }
}
