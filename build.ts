/**
 * Builds the majordomus binary.
 *
 *   bun run build.ts              the host's binary: dist/majordomus
 *   bun run build.ts --if-stale   the same, skipped when nothing it is built from changed
 *   bun run build.ts --all        every release target: dist/majordomus-<os>-<arch>[.exe]
 *   bun run build.ts --noop       a binary that does nothing, built the same way (benchmark baseline)
 *
 * `share/` and `mods/` are embedded through a generated module (path, mode and content inlined),
 * which costs nothing at start-up and works the same under bun, deno and in the binary.
 * The binary must never read `.env` or `bunfig.toml` from the folder it runs in: it runs inside
 * other people's repositories, and a bunfig `preload` would run their code in our process.
 */
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { spawnSync } from "node:child_process";
import { parse as parseYaml } from "yaml";

const ROOT = import.meta.dirname;
const DIST = join(ROOT, "dist");
const EMBED_DIRS = ["share", "mods"];
const ENTRY = join(ROOT, "src", "main.ts");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };

type Target = { bun: Bun.Build.CompileTarget; out: string };

/** Release targets: one row each, named as the release assets are. */
const TARGETS: Record<string, Target> = {
  "linux-x64": { bun: "bun-linux-x64", out: "majordomus-linux-x64" },
  "linux-arm64": { bun: "bun-linux-arm64", out: "majordomus-linux-arm64" },
  "darwin-x64": { bun: "bun-darwin-x64", out: "majordomus-darwin-x64" },
  "darwin-arm64": { bun: "bun-darwin-arm64", out: "majordomus-darwin-arm64" },
  "windows-x64": { bun: "bun-windows-x64", out: "majordomus-windows-x64.exe" },
};

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      return statSync(full).isDirectory() ? walk(full) : [full];
    });
}

function isUtf8(bytes: Buffer): boolean {
  return !bytes.includes(0) && Buffer.from(bytes.toString("utf8"), "utf8").equals(bytes);
}

/** Data files are parsed here, strictly (duplicate keys refused), so a broken one fails the build. */
function parsedValue(path: string, text: string): unknown {
  try {
    if (path.endsWith(".json")) return JSON.parse(text);
    if (/\.ya?ml$/.test(path)) return parseYaml(text, { uniqueKeys: true, strict: true });
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
  return undefined;
}

/** The embedded tree as a module: every file under share/ and mods/ with its mode. */
function embeddedModule(): string {
  const rows = EMBED_DIRS.flatMap((d) => walk(join(ROOT, d))).map((full) => {
    const bytes = readFileSync(full);
    const utf8 = isUtf8(bytes);
    const path = relative(ROOT, full).split(sep).join("/");
    const value = utf8 && path.startsWith("share/") ? parsedValue(path, bytes.toString("utf8")) : undefined;
    return {
      path,
      mode: statSync(full).mode & 0o777,
      encoding: utf8 ? "utf8" : "base64",
      data: utf8 ? bytes.toString("utf8") : bytes.toString("base64"),
      ...(value === undefined ? {} : { json: JSON.stringify(value) }),
    };
  });
  return `export const EMBEDDED = ${JSON.stringify(rows)};\n`;
}

/** A fingerprint of everything the binary is built from. */
function inputsDigest(): string {
  const hash = createHash("sha256");
  const files = [...["src", ...EMBED_DIRS].flatMap((d) => walk(join(ROOT, d))), join(ROOT, "build.ts"), join(ROOT, "package.json")];
  for (const file of files) hash.update(relative(ROOT, file)).update("\0").update(readFileSync(file)).update(String(statSync(file).mode & 0o777));
  hash.update(Bun.version);
  return hash.digest("hex");
}

function plugins(embed: boolean): Bun.BunPlugin[] {
  if (!embed) return [];
  const generated = embeddedModule();
  return [{ name: "embed-data-tree", setup: (b) => void b.onLoad({ filter: /src[\\/]assets[\\/]embedded\.ts$/ }, () => ({ contents: generated, loader: "ts" })) }];
}

async function compile(entry: string, outfile: string, target?: Bun.Build.CompileTarget, embed = true): Promise<void> {
  const result = await Bun.build({
    entrypoints: [entry],
    compile: { outfile, ...(target ? { target } : {}), autoloadDotenv: false, autoloadBunfig: false },
    minify: true,
    splitting: true,
    // --bytecode needs ESM here: the CJS default fails on import.meta and still writes a broken binary.
    bytecode: true,
    format: "esm",
    // MAJORDOMUS_COMPILED: this program is the binary, so a hook can start a copy of it (capture/handoff.ts).
    define: { MAJORDOMUS_VERSION: JSON.stringify(pkg.version), MAJORDOMUS_COMPILED: "true" },
    plugins: plugins(embed),
    throw: false,
  });
  const problems = result.logs.filter((l) => l.level === "error" || /bytecode/i.test(l.message));
  if (!result.success || problems.length > 0) {
    for (const l of result.logs) console.error(String(l));
    throw new Error(`build of ${outfile} failed`);
  }
  chmodSync(outfile, 0o755);
}

function run(bin: string, args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(bin, args, { cwd, encoding: "utf8", env: { ...process.env, MAJORDOMUS_LOG: "warn" } });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/** Run the fresh binary from an unrelated folder: --version, then init, which writes embedded data. */
function smoke(bin: string): void {
  const version = run(bin, ["--version"], tmpdir());
  if (version.status !== 0 || version.stdout.trim() !== pkg.version) {
    throw new Error(`smoke: ${bin} --version gave ${version.status} ${JSON.stringify(version.stdout + version.stderr)}`);
  }
  const scratch = mkdtempSync(join(tmpdir(), "majordomus-smoke-"));
  try {
    spawnSync("git", ["init", "-q"], { cwd: scratch });
    const init = run(bin, ["init"], scratch);
    const written = join(scratch, ".ai", "repo", "policy.yaml");
    const expected = readFileSync(join(ROOT, "share", "skeleton", "repo", "policy.yaml"), "utf8");
    if (init.status !== 0 || !existsSync(written) || readFileSync(written, "utf8") !== expected) {
      throw new Error(`smoke: ${bin} init did not write the embedded policy (exit ${init.status}): ${init.stderr}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function buildHost(): Promise<void> {
  const outfile = join(DIST, "majordomus");
  const started = performance.now();
  await compile(ENTRY, outfile);
  smoke(outfile);
  writeFileSync(join(DIST, ".inputs-digest"), inputsDigest());
  console.error(`built ${relative(ROOT, outfile)} ${pkg.version} in ${Math.round(performance.now() - started)} ms (smoke run passed)`);
}

async function buildNoop(): Promise<void> {
  const entry = join(DIST, ".noop.ts");
  writeFileSync(entry, "export {};\n");
  await compile(entry, join(DIST, "noop"), undefined, false);
  console.error("built dist/noop");
}

async function buildAll(): Promise<void> {
  for (const [name, target] of Object.entries(TARGETS)) {
    const outfile = join(DIST, target.out);
    await compile(ENTRY, outfile, target.bun);
    console.error(`built ${relative(ROOT, outfile)} (${name}, ${statSync(outfile).size} bytes)`);
  }
  await buildHost();
}

mkdirSync(DIST, { recursive: true });
const flags = new Set(process.argv.slice(2));
if (flags.has("--noop")) await buildNoop();
else if (flags.has("--all")) await buildAll();
else if (flags.has("--if-stale") && existsSync(join(DIST, "majordomus")) && existsSync(join(DIST, ".inputs-digest")) && readFileSync(join(DIST, ".inputs-digest"), "utf8") === inputsDigest()) {
  console.error("dist/majordomus is up to date");
} else await buildHost();
