/**
 * The data tree compiled into the binary. In the source tree this is `null` and assets are read
 * from disk; `build.ts` replaces this module at bundle time with one row per file under `share/`
 * and `mods/`: its mode (an embedded file has no mode of its own) and the file itself, carried in
 * the executable's own file system and read only when asked for.
 */
export type EmbeddedFile = {
  /** Path relative to the project root, with `/` separators: `share/events.yaml`. */
  path: string;
  mode: number;
  /** Where the binary carries the file's bytes (a path its own `readFileSync` opens). */
  file: string;
  /**
   * For .json and .yaml files under share/: where the binary carries the content parsed (and
   * checked) at build time, as JSON text; JSON.parse of it is cheaper than parsing YAML on a hook.
   */
  json?: string;
};

export const EMBEDDED: readonly EmbeddedFile[] | null = null;
