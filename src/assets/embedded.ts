/**
 * The data tree compiled into the binary. In the source tree this is `null` and assets are read
 * from disk; `build.ts` replaces this module at bundle time with every file under `share/` and
 * `mods/` inlined, each with its mode (an embedded file has no mode of its own).
 */
export type EmbeddedFile = {
  /** Path relative to the project root, with `/` separators: `share/events.yaml`. */
  path: string;
  mode: number;
  encoding: "utf8" | "base64";
  data: string;
  /**
   * For .json and .yaml files under share/: the content parsed (and checked) at build time, as
   * JSON text. JSON.parse of one file when it is asked for is cheaper than evaluating every
   * file's object literal at start-up (which cost most hooks about a millisecond).
   */
  json?: string;
};

export const EMBEDDED: readonly EmbeddedFile[] | null = null;
