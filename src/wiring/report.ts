import type { Trust } from "./trust.ts";
/** What an install or an uninstall says it did, one line per file: the path, what happened to it, and why. */
export type Action =
  | "written"
  | "rewritten"
  | "already present"
  | "left alone"
  | "removed"
  | "not written"
  | "not there"
  | "merged"
  | "refused";
export type Line = { path: string; action: Action; note?: string };

export type InstallReport = {
  lines: Line[];
  missing: Array<{ event: string; entry: string }>;
  backup?: string;
  trust?: Trust;
};
