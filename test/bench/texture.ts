// The texture of src as the house style measures it: long files, long functions, the comment share,
// long lines, repeated basenames. Run: npm run bench:texture [-- --list]
import { readdirSync, readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import * as typescript from "prettier/plugins/typescript";

const ROOT = join(import.meta.dir, "..", "..");
const LIMITS = { fileLines: 300, functionLines: 50, commentShare: 0.08, lineChars: 120 };

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

type Fn = { where: string; lines: number };
type Node = { type?: string; loc?: { start: { line: number }; end: { line: number } } } & Record<string, unknown>;
const FUNCTION = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/** Long functions, and the lines that hold only comment, from prettier's own TypeScript parser. */
async function parse(path: string, text: string): Promise<{ fns: Fn[]; commentOnly: number }> {
  const ast = (await typescript.parsers.typescript.parse(text, {} as never)) as unknown as Node & { comments: Node[] };
  const fns: Fn[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== "object") return;
    const n = node as Node;
    if (n.type && FUNCTION.has(n.type) && n.loc) {
      const lines = n.loc.end.line - n.loc.start.line + 1;
      if (lines > LIMITS.functionLines) fns.push({ where: `${relative(ROOT, path)}:${n.loc.start.line}`, lines });
    }
    for (const [k, v] of Object.entries(n)) if (k !== "loc" && k !== "range" && k !== "parent") visit(v);
  };
  visit(ast.body);
  const rows = text.split("\n");
  const code = new Set<number>();
  const commented = new Set<number>();
  for (const c of ast.comments) for (let l = c.loc!.start.line; l <= c.loc!.end.line; l++) commented.add(l);
  // a line is comment-only when it holds nothing once its comments are removed
  let stripped = text;
  for (const c of [...ast.comments].reverse()) {
    const [a, b] = c.range as [number, number];
    stripped = stripped.slice(0, a) + stripped.slice(a, b).replace(/[^\n]/g, " ") + stripped.slice(b);
  }
  stripped.split("\n").forEach((r, i) => r.trim() !== "" && code.add(i + 1));
  const commentOnly = [...commented].filter((l) => !code.has(l) && (rows[l - 1] ?? "").trim() !== "").length;
  return { fns, commentOnly };
}

const list = process.argv.includes("--list");
const paths = files(join(ROOT, "src"));
let lines = 0;
let comment = 0;
let nonBlank = 0;
const long: string[] = [];
const wide: string[] = [];
const fns: Fn[] = [];
const names = new Map<string, number>();
for (const path of paths) {
  const text = readFileSync(path, "utf8");
  const rows = text.split("\n");
  const n = text.endsWith("\n") ? rows.length - 1 : rows.length;
  lines += n;
  if (n > LIMITS.fileLines) long.push(`${relative(ROOT, path)} ${n}`);
  rows.forEach((r, i) => r.length > LIMITS.lineChars && wide.push(`${relative(ROOT, path)}:${i + 1} ${r.length}`));
  const parsed = await parse(path, text);
  comment += parsed.commentOnly;
  nonBlank += rows.filter((r) => r.trim() !== "").length;
  fns.push(...parsed.fns);
  names.set(basename(path), (names.get(basename(path)) ?? 0) + 1);
}
const repeated = [...names].filter(([, n]) => n > 1).map(([name, n]) => `${name} ×${n}`);
const rows: [string, string, string][] = [
  ["src files / lines", `${paths.length} / ${lines}`, ""],
  [`files over ${LIMITS.fileLines} lines`, String(long.length), "≤ 5"],
  [`functions over ${LIMITS.functionLines} lines`, String(fns.length), "≤ 15"],
  ["comment share of non-blank lines", `${((comment / nonBlank) * 100).toFixed(1)}%`, "≤ 8%"],
  [`lines over ${LIMITS.lineChars} characters`, String(wide.length), "≤ 100"],
  ["repeated basenames", String(repeated.length), ""],
];
for (const [what, value, goal] of rows) console.log(`${what.padEnd(36)} ${value.padStart(12)}  ${goal}`);
if (list) {
  console.log("\nlong files:\n  " + long.join("\n  "));
  console.log("\nlong functions:\n  " + fns.map((f) => `${f.where} ${f.lines}`).join("\n  "));
  console.log("\nrepeated basenames:\n  " + repeated.join("\n  "));
  console.log("\nlong lines:\n  " + wide.join("\n  "));
}
