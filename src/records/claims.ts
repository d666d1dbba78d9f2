/**
 * What a record's text cites that the repository can check: paths (with a line or range, `src/a.ts:40-58`), a symbol
 * as code beside a path, commit ids, and backticked commands that run a package script. Read from the kept (redacted)
 * body when written, stored as `claims` in the front matter. Pure; records/claims-check.ts labels them.
 */

export type Claim =
  | {
      kind: "path";
      path: string;
      lines?: readonly [number, number];
      mark?: string;
      /** The file as written: its fingerprint, or `none` when it was not there. */
      file?: string;
    }
  | { kind: "symbol"; path: string; name: string }
  | { kind: "commit"; id: string }
  | { kind: "script"; command: string; name: string };

export type ClaimState =
  | "deleted"
  | "moved"
  | "lines_changed"
  | "changed"
  | "lines_moved"
  | "never_existed"
  | "symbol_gone"
  | "not_in_history"
  | "no_script"
  | "created"
  | "untracked"
  | "unknown"
  | "unchanged"
  | "in_history"
  | "script";

export const RANK: Record<ClaimState, number> = {
  deleted: 0,
  moved: 1,
  lines_changed: 2,
  changed: 3,
  lines_moved: 4,
  never_existed: 5,
  symbol_gone: 6,
  not_in_history: 7,
  no_script: 8,
  created: 9,
  untracked: 10,
  unknown: 11,
  unchanged: 12,
  in_history: 12,
  script: 12,
};

export const isNews = (state: ClaimState): boolean => RANK[state] < RANK.unchanged;

export type ClaimLabel = { cited: string; kind: Claim["kind"]; state: ClaimState; label: string };

export type ClaimsCheck = {
  labels: ClaimLabel[];
  all_gone: boolean;
  why?: string;
  omitted?: number;
};

export const CLAIMS_KEPT = 24;

const PATH_CHARS = 240;

const PATH = /^((?:[\w@+-][\w@.+-]*\/)*[\w@+-][\w@.+-]*)(?::(\d{1,7})(?:-(\d{1,7}))?)?$/;
/** Letters first, so `0.1.0` and `v1.2` are versions, not files. */
const EXTENSION = /\.[A-Za-z][A-Za-z0-9]{0,9}$/;
const SYMBOL = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?$/;
/** At least one digit and one letter a-f. */
const COMMIT = /^(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}$/;
const RUN = /^(?:npm|pnpm|yarn|bun) run(?:-script)? ([\w:.-]+)(?: .*)?$/;
const NPM_ALONE = /^npm (test|start|stop|restart)(?: .*)?$/;
const BY_NAME = /^(?:pnpm|yarn) ([\w:.-]+)(?: .*)?$/;
const OWN_COMMANDS = new Set(["install", "add", "remove", "init", "exec", "dlx", "create", "publish", "why", "up"]);

/** Repository-relative; undefined for a URL, an absolute path or `..`. */
function pathOf(text: string, bare: boolean): { path: string; lines?: [number, number] } | undefined {
  const m = PATH.exec(text.replace(/^\.\//, ""));
  if (!m) return undefined;
  const path = m[1]!;
  if (path.length > PATH_CHARS || path.split("/").some((s) => s === "." || s === "..")) return undefined;
  // In running text a path needs a folder and an extension; as code, either is enough.
  const named = bare ? path.includes("/") && EXTENSION.test(path) : path.includes("/") || EXTENSION.test(path);
  if (!named || /^\d+(\.\d+)*$/.test(path)) return undefined;
  if (m[2] === undefined) return { path };
  const from = Number(m[2]);
  const to = m[3] === undefined ? from : Number(m[3]);
  return from >= 1 && to >= from ? { path, lines: [from, to] } : { path };
}

function scriptOf(text: string): { command: string; name: string } | undefined {
  const command = text.trim();
  const name = RUN.exec(command)?.[1] ?? NPM_ALONE.exec(command)?.[1] ?? BY_NAME.exec(command)?.[1];
  if (name === undefined || (BY_NAME.test(command) && !RUN.test(command) && OWN_COMMANDS.has(name))) return undefined;
  return { command, name };
}

const key = (c: Claim): string =>
  c.kind === "path"
    ? `path ${c.path}${c.lines ? `:${c.lines[0]}${c.lines[1] !== c.lines[0] ? `-${c.lines[1]}` : ""}` : ""}${c.mark ? ` @${c.mark}` : ""}${c.file ? ` +${c.file}` : ""}`
    : c.kind === "symbol"
      ? `symbol ${c.path} ${c.name}`
      : c.kind === "commit"
        ? `commit ${c.id}`
        : `script ${c.command}`;

function claimsOfLine(line: string): Claim[] {
  const found: Claim[] = [];
  const symbols: Array<{ name: string; at: number }> = [];
  const paths: Array<{ path: string; at: number }> = [];
  const prose = line.replace(/`([^`\n]+)`/g, (span: string, code: string, at: number) => {
    const text = code.trim();
    const path = pathOf(text, false);
    if (path) {
      found.push({ kind: "path", ...path });
      paths.push({ path: path.path, at });
    } else if (COMMIT.test(text)) found.push({ kind: "commit", id: text });
    else {
      const script = scriptOf(text);
      if (script) found.push({ kind: "script", ...script });
      else if (SYMBOL.test(text)) symbols.push({ name: text.replace(/\(\)$/, ""), at });
    }
    return " ".repeat(span.length);
  });
  for (const word of prose.matchAll(/\S+/g)) {
    if (word[0].includes("://")) continue;
    const text = word[0].replace(/^[("'[<]+/, "").replace(/[)"'\]>,;.!?:]+$/, "");
    const path = pathOf(text, true);
    if (path) {
      found.push({ kind: "path", ...path });
      paths.push({ path: path.path, at: word.index });
    } else if (COMMIT.test(text) && /\bcommit/i.test(prose)) found.push({ kind: "commit", id: text });
  }
  for (const s of symbols) {
    const near = paths.reduce<{ path: string; at: number } | undefined>(
      (best, p) => (!best || Math.abs(p.at - s.at) < Math.abs(best.at - s.at) ? p : best),
      undefined,
    );
    if (near) found.push({ kind: "symbol", path: near.path, name: s.name });
  }
  return found;
}

export function claimsIn(body: string): Claim[] {
  const seen = new Set<string>();
  const out: Claim[] = [];
  for (const line of body.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) continue;
    for (const c of claimsOfLine(line)) {
      const k = key(c);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(c);
      if (out.length >= CLAIMS_KEPT) return out;
    }
  }
  return out;
}

export const claimText = key;

export function parseClaim(text: string): Claim | undefined {
  const space = text.indexOf(" ");
  const kind = text.slice(0, space);
  const rest = text.slice(space + 1);
  if (space < 0 || rest === "") return undefined;
  if (kind === "path") {
    const [where, ...marks] = rest.split(" ");
    const p = pathOf(where!, false);
    if (!p) return undefined;
    const mark = marks.find((m) => m.startsWith("@"))?.slice(1);
    const file = marks.find((m) => m.startsWith("+"))?.slice(1);
    return {
      kind: "path",
      ...p,
      ...(p.lines && mark && MARK.test(mark) ? { mark } : {}),
      ...(file && FILE_MARK.test(file) ? { file } : {}),
    };
  }
  if (kind === "symbol") {
    const at = rest.lastIndexOf(" ");
    const path = at > 0 ? pathOf(rest.slice(0, at), false) : undefined;
    const name = rest.slice(at + 1);
    return path && !path.lines && SYMBOL.test(name) ? { kind: "symbol", path: path.path, name } : undefined;
  }
  if (kind === "commit") return COMMIT.test(rest) ? { kind: "commit", id: rest } : undefined;
  if (kind === "script") {
    const s = scriptOf(rest);
    return s && { kind: "script", ...s };
  }
  return undefined;
}

const MARK = /^\d{1,7}\.[0-9a-f]{8}\.[0-9a-f]{12}$/;
const FILE_MARK = /^(none|[0-9a-f]{16})$/;

export function cited(c: Claim): string {
  const text = key(c.kind === "path" ? { ...c, mark: undefined, file: undefined } : c);
  return text.slice(text.indexOf(" ") + 1);
}
