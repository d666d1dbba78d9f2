/**
 * The texture of src as the house style measures it, from prettier's own TypeScript parser: files over 300 lines,
 * functions over 50, the share of non-blank lines that hold only comment, lines over 120 characters, and basenames
 * used more than once.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import * as typescript from "prettier/plugins/typescript";

const ROOT = join(import.meta.dir, "..", "..");
export const LIMITS = { fileLines: 300, functionLines: 50, commentShare: 0.08, lineChars: 120 };

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

type Node = { type?: string; loc?: { start: { line: number }; end: { line: number } } } & Record<string, unknown>;
const FUNCTION = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

async function parse(path: string, text: string): Promise<{ fns: string[]; commentOnly: number }> {
  const ast = (await typescript.parsers.typescript.parse(text, {} as never)) as unknown as Node & { comments: Node[] };
  const fns: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== "object") return;
    const n = node as Node;
    if (n.type && FUNCTION.has(n.type) && n.loc) {
      const lines = n.loc.end.line - n.loc.start.line + 1;
      if (lines > LIMITS.functionLines) fns.push(`${relative(ROOT, path)}:${n.loc.start.line} ${lines}`);
    }
    for (const [k, v] of Object.entries(n)) if (k !== "loc" && k !== "range" && k !== "parent") visit(v);
  };
  visit(ast.body);
  // A line holds only comment when nothing is left on it once its comments are blanked out.
  let code = text;
  for (const c of [...ast.comments].reverse()) {
    const [a, b] = c.range as [number, number];
    code = code.slice(0, a) + code.slice(a, b).replace(/[^\n]/g, " ") + code.slice(b);
  }
  const rows = text.split("\n");
  const commentOnly = code.split("\n").filter((r, i) => r.trim() === "" && rows[i]!.trim() !== "").length;
  return { fns, commentOnly };
}

export type Texture = {
  files: number;
  lines: number;
  longFiles: string[];
  longFunctions: string[];
  commentShare: number;
  longLines: string[];
  repeatedNames: string[];
};

export async function texture(dir = join(ROOT, "src")): Promise<Texture> {
  const paths = files(dir);
  const out: Texture = {
    files: paths.length,
    lines: 0,
    longFiles: [],
    longFunctions: [],
    commentShare: 0,
    longLines: [],
    repeatedNames: [],
  };
  let comment = 0;
  let nonBlank = 0;
  const names = new Map<string, number>();
  for (const path of paths) {
    const text = readFileSync(path, "utf8");
    const rows = text.split("\n");
    const n = text.endsWith("\n") ? rows.length - 1 : rows.length;
    out.lines += n;
    if (n > LIMITS.fileLines) out.longFiles.push(`${relative(ROOT, path)} ${n}`);
    rows.forEach(
      (r, i) => r.length > LIMITS.lineChars && out.longLines.push(`${relative(ROOT, path)}:${i + 1} ${r.length}`),
    );
    const parsed = await parse(path, text);
    comment += parsed.commentOnly;
    nonBlank += rows.filter((r) => r.trim() !== "").length;
    out.longFunctions.push(...parsed.fns);
    names.set(basename(path), (names.get(basename(path)) ?? 0) + 1);
  }
  out.commentShare = comment / nonBlank;
  out.repeatedNames = [...names].filter(([, k]) => k > 1).map(([name, k]) => `${name} ×${k}`);
  return out;
}
