// `npm run bench:texture [-- --list]`: src's texture against the house style's limits (test/support/texture.ts).
import { LIMITS, texture } from "../support/texture.ts";

const t = await texture();
const rows: [string, string, string][] = [
  ["src files / lines", `${t.files} / ${t.lines}`, ""],
  [`files over ${LIMITS.fileLines} lines`, String(t.longFiles.length), "≤ 5"],
  [`functions over ${LIMITS.functionLines} lines`, String(t.longFunctions.length), "≤ 15"],
  ["comment share of non-blank lines", `${(t.commentShare * 100).toFixed(1)}%`, "≤ 8%"],
  [`lines over ${LIMITS.lineChars} characters`, String(t.longLines.length), "≤ 100"],
  ["repeated basenames", String(t.repeatedNames.length), ""],
];
for (const [what, value, goal] of rows) console.log(`${what.padEnd(36)} ${value.padStart(12)}  ${goal}`);
if (process.argv.includes("--list"))
  for (const [title, list] of [
    ["long files", t.longFiles],
    ["long functions", t.longFunctions],
    ["repeated basenames", t.repeatedNames],
    ["long lines", t.longLines],
  ] as const)
    console.log(`\n${title}:\n  ${list.join("\n  ")}`);
