/**
 * The data tree compiled into the binary; `null` in the source tree. build.ts replaces this module with one row per
 * file under `share/` and `mods/`, carried in the executable's file system and read only when asked.
 */
export type EmbeddedFile = {
  path: string;
  mode: number;
  file: string;
  /** The content parsed and checked at build time, as JSON: cheaper than YAML on a hook. */
  json?: string;
};

export const EMBEDDED: readonly EmbeddedFile[] | null = null;
