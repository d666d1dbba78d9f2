/**
 * Builds the majordomus binary.
 *
 *   bun run build.ts              the host's binary: dist/majordomus
 *   bun run build.ts --if-stale   the same, skipped when nothing it is built from changed
 *   bun run build.ts --all        the release: every target, as archives with SHA256SUMS, and the
 *                                 npm packages (dist/release/; see release() below)
 *   bun run build.ts --target T   the same for target T only (repeatable; e.g. linux-x64)
 *   bun run build.ts --noop       a binary that does nothing, built the same way (benchmark baseline)
 *
 * `share/` and `mods/` are embedded through a generated module (each file's path and mode, and the
 * file itself in the executable's own file system), which costs nothing at start-up; from the
 * source tree (bun, deno) the same module is empty and the files are read from disk.
 * The binary must never read `.env` or `bunfig.toml` from the folder it runs in: it runs inside
 * other people's repositories, and a bunfig `preload` would run their code in our process.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { spawnSync } from "node:child_process";
import { parse as parseYaml } from "yaml";

const ROOT = import.meta.dirname;
const DIST = join(ROOT, "dist");
const EMBED_DIRS = ["share", "mods"];
const ENTRY = join(ROOT, "src", "main.ts");
/** Modules a worker thread runs (lib/runtime.ts askWorker): entry points of the binary beside main, under the same names from src/. */
const WORKERS = [join(ROOT, "src", "health", "scan-worker.ts")];
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  home: { github: string | null; npm_scope: string | null };
};
/**
 * The project's home, set in package.json alone: the GitHub repository whose releases install.sh downloads and the
 * npm scope of the packages. Null while the project owns neither: the packages are then named for local installs
 * only, and install.sh says there is no published release.
 */
const HOME = pkg.home;

/**
 * A release target: Bun's name for it, and the npm platform package that carries it (os and cpu as
 * npm names them; none for the baseline builds, which only install.sh hands out, to x64 CPUs
 * without AVX2).
 */
type Target = { bun: Bun.Build.CompileTarget; npm?: { os: string; cpu: string; libc?: string } };

/** Release targets, one row each; the archive is `majordomus-<name>.tar.xz` (`.zip` for Windows). */
const TARGETS: Record<string, Target> = {
  "linux-x64": { bun: "bun-linux-x64", npm: { os: "linux", cpu: "x64", libc: "glibc" } },
  "linux-x64-baseline": { bun: "bun-linux-x64-baseline" },
  "linux-arm64": { bun: "bun-linux-arm64", npm: { os: "linux", cpu: "arm64", libc: "glibc" } },
  "darwin-x64": { bun: "bun-darwin-x64", npm: { os: "darwin", cpu: "x64" } },
  "darwin-x64-baseline": { bun: "bun-darwin-x64-baseline" },
  "darwin-arm64": { bun: "bun-darwin-arm64", npm: { os: "darwin", cpu: "arm64" } },
  "windows-x64": { bun: "bun-windows-x64", npm: { os: "win32", cpu: "x64" } },
  "windows-x64-baseline": { bun: "bun-windows-x64-baseline" },
};

const windows = (name: string) => name.startsWith("windows-");

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

/**
 * The embedded tree as a module: every file under share/ and mods/ with its mode, each file
 * carried by the binary's own file system (an import `with { type: "file" }` is a path inside the
 * executable, read only when asked for). Inlining the contents as string literals made every
 * command that touched the module, each hook among them, load ~600 KB of constants: ~2.6 ms of a
 * 14 ms prompt hook. The parsed content of share/'s data files goes beside them as JSON files
 * written to `scratch`, which the caller removes once the binary is built.
 */
function embeddedModule(scratch: string): string {
  const imports: string[] = [];
  const rows = EMBED_DIRS.flatMap((d) => walk(join(ROOT, d))).map((full, i) => {
    const bytes = readFileSync(full);
    const path = relative(ROOT, full).split(sep).join("/");
    const value = isUtf8(bytes) && path.startsWith("share/") ? parsedValue(path, bytes.toString("utf8")) : undefined;
    imports.push(`import file${i} from ${JSON.stringify(full)} with { type: "file" };`);
    if (value === undefined)
      return `{ path: ${JSON.stringify(path)}, mode: ${statSync(full).mode & 0o777}, file: file${i} }`;
    const parsed = join(scratch, `${i}.json`);
    writeFileSync(parsed, JSON.stringify(value));
    imports.push(`import json${i} from ${JSON.stringify(parsed)} with { type: "file" };`);
    return `{ path: ${JSON.stringify(path)}, mode: ${statSync(full).mode & 0o777}, file: file${i}, json: json${i} }`;
  });
  return `${imports.join("\n")}\nexport const EMBEDDED = [\n  ${rows.join(",\n  ")},\n];\n`;
}

/** A fingerprint of everything the binary is built from. */
function inputsDigest(): string {
  const hash = createHash("sha256");
  const files = [
    ...["src", ...EMBED_DIRS].flatMap((d) => walk(join(ROOT, d))),
    join(ROOT, "build.ts"),
    join(ROOT, "package.json"),
  ];
  for (const file of files)
    hash
      .update(relative(ROOT, file))
      .update("\0")
      .update(readFileSync(file))
      .update(String(statSync(file).mode & 0o777));
  hash.update(Bun.version);
  return hash.digest("hex");
}

function plugins(embed: boolean, scratch: string): Bun.BunPlugin[] {
  if (!embed) return [];
  const generated = embeddedModule(scratch);
  return [
    {
      name: "embed-data-tree",
      setup: (b) =>
        void b.onLoad({ filter: /src[\\/]assets[\\/]embedded\.ts$/ }, () => ({ contents: generated, loader: "ts" })),
    },
  ];
}

async function compile(entry: string, outfile: string, target?: Bun.Build.CompileTarget, embed = true): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), "majordomus-embed-"));
  try {
    await compileWith(entry, outfile, target, plugins(embed, scratch));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function compileWith(
  entry: string,
  outfile: string,
  target: Bun.Build.CompileTarget | undefined,
  embedding: Bun.BunPlugin[],
): Promise<void> {
  const result = await Bun.build({
    entrypoints: entry === ENTRY ? [entry, ...WORKERS] : [entry],
    compile: { outfile, ...(target ? { target } : {}), autoloadDotenv: false, autoloadBunfig: false },
    minify: true,
    splitting: true,
    // --bytecode needs ESM here: the CJS default fails on import.meta and still writes a broken binary.
    bytecode: true,
    format: "esm",
    // MAJORDOMUS_COMPILED: this program is the binary, so a hook can start a copy of it (capture/handoff.ts).
    define: { MAJORDOMUS_VERSION: JSON.stringify(pkg.version), MAJORDOMUS_COMPILED: "true" },
    plugins: embedding,
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
    throw new Error(
      `smoke: ${bin} --version gave ${version.status} ${JSON.stringify(version.stdout + version.stderr)}`,
    );
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
  console.error(
    `built ${relative(ROOT, outfile)} ${pkg.version} in ${Math.round(performance.now() - started)} ms (smoke run passed)`,
  );
}

async function buildNoop(): Promise<void> {
  const entry = join(DIST, ".noop.ts");
  writeFileSync(entry, "export {};\n");
  await compile(entry, join(DIST, "noop"), undefined, false);
  console.error("built dist/noop");
}

const RELEASE = join(DIST, "release");
/** Package names: under the home's npm scope, or (unpublished) plain names for installing the tarballs locally. */
const NPM_NAME = (name: string) => (HOME.npm_scope ? `${HOME.npm_scope}/${name}` : name);
const LAUNCHER_NAME = NPM_NAME("majordomus");

function must(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr || r.error?.message}`);
  return r.stdout;
}

/** The binary of one target inside a one-file archive, named as install.sh downloads it. */
function archive(name: string, binary: string): string {
  const stage = mkdtempSync(join(tmpdir(), "majordomus-stage-"));
  try {
    const inner = windows(name) ? "majordomus.exe" : "majordomus";
    writeFileSync(join(stage, inner), readFileSync(binary), { mode: 0o755 });
    const out = join(RELEASE, `majordomus-${name}${windows(name) ? ".zip" : ".tar.xz"}`);
    rmSync(out, { force: true });
    if (windows(name)) must("zip", ["-q", "-X", out, inner], stage);
    else must("tar", ["--owner=0", "--group=0", "--numeric-owner", "-cJf", out, inner], stage);
    return out;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** The thin npm launcher: finds the platform package's binary and runs it (the esbuild/biome pattern). */
const LAUNCHER = `#!/usr/bin/env node
// majordomus: runs the native binary from the platform package npm installed beside this one.
"use strict";
const { spawnSync } = require("node:child_process");
const os = process.platform === "win32" ? "windows" : process.platform;
const pkg = \`${NPM_NAME("majordomus-cli")}-\${os}-\${process.arch}\`;
const file = process.platform === "win32" ? "majordomus.exe" : "majordomus";
let bin;
try {
  bin = require.resolve(\`\${pkg}/\${file}\`);
} catch {
  console.error(\`majordomus: no build for \${process.platform}/\${process.arch} was installed (\${pkg}); reinstall without --no-optional, or use install.sh\`);
  process.exit(1);
}
const run = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  console.error(\`majordomus: could not start \${bin}: \${run.error.message}\`);
  process.exit(1);
}
process.exit(run.status === null ? 1 : run.status);
`;

type Manifest = { license?: string; description?: string };

/**
 * npm packages in dist/release/npm/: one per platform target (the binary, with os/cpu so npm
 * installs only the matching one) and the thin \`majordomus\` package that depends on all of them
 * optionally and launches the one present. Packed with \`npm pack\`; published by the release workflow.
 */
function npmPackages(built: Array<{ name: string; binary: string }>): string[] {
  const meta = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;
  const npmDir = join(RELEASE, "npm");
  rmSync(npmDir, { recursive: true, force: true });
  mkdirSync(npmDir, { recursive: true });
  const repository = HOME.github ? { type: "git", url: `git+https://github.com/${HOME.github}.git` } : undefined;
  const common = { version: pkg.version, license: meta.license, ...(repository ? { repository } : {}) };
  const platforms: string[] = [];
  for (const { name, binary } of built) {
    const row = TARGETS[name]!;
    if (!row.npm) continue;
    const id = `${NPM_NAME("majordomus-cli")}-${windows(name) ? "windows" : row.npm.os}-${row.npm.cpu}`;
    const dir = join(npmDir, id.replace("/", "__"));
    mkdirSync(dir, { recursive: true });
    const file = windows(name) ? "majordomus.exe" : "majordomus";
    writeFileSync(join(dir, file), readFileSync(binary), { mode: 0o755 });
    writeFileSync(
      join(dir, "README.md"),
      `# ${id}\n\nThe majordomus binary for ${name}. Install \`majordomus\`, which picks this package for this platform.\n`,
    );
    const manifest = {
      name: id,
      ...common,
      description: `The majordomus binary for ${name}`,
      os: [row.npm.os],
      cpu: [row.npm.cpu],
      ...(row.npm.libc ? { libc: [row.npm.libc] } : {}),
      files: [file],
      preferUnplugged: true,
    };
    writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    platforms.push(id);
  }
  const main = join(npmDir, "majordomus");
  mkdirSync(join(main, "bin"), { recursive: true });
  writeFileSync(join(main, "bin", "majordomus.cjs"), LAUNCHER, { mode: 0o755 });
  writeFileSync(
    join(main, "README.md"),
    "# majordomus\n\nKeeps an AI coding agent's continuity in a git repository. This package runs the native binary from the platform package npm installs beside it. Hooks run on every client event: for them, install the binary itself (install.sh) and skip Node's start-up.\n",
  );
  const manifest = {
    name: LAUNCHER_NAME,
    ...common,
    description: meta.description,
    bin: { majordomus: "bin/majordomus.cjs" },
    files: ["bin"],
    optionalDependencies: Object.fromEntries(platforms.map((id) => [id, pkg.version])),
    engines: { node: ">=18" },
  };
  writeFileSync(join(main, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const tarballs: string[] = [];
  for (const dir of readdirSync(npmDir).map((d) => join(npmDir, d))) {
    const packed = JSON.parse(must("npm", ["pack", "--json", "--pack-destination", npmDir], dir)) as Array<{
      filename: string;
    }>;
    tarballs.push(join(npmDir, packed[0]!.filename));
  }
  return tarballs;
}

/**
 * The release, in dist/release/: each target compiled, put in its archive, SHA256SUMS over every
 * archive and install.sh (what people download), and the npm packages packed.
 */
async function release(names: string[]): Promise<void> {
  mkdirSync(join(RELEASE, "bin"), { recursive: true });
  const built: Array<{ name: string; binary: string }> = [];
  const assets: string[] = [];
  for (const name of names) {
    const row = TARGETS[name];
    if (!row) throw new Error(`unknown target ${name}; the targets are ${Object.keys(TARGETS).join(", ")}`);
    const binary = join(RELEASE, "bin", `majordomus-${name}${windows(name) ? ".exe" : ""}`);
    // Progress per target: a cross-compile first fetches that target's runtime, and the archive's xz takes a while.
    console.error(`building ${name} (${names.indexOf(name) + 1} of ${names.length}) …`);
    const started = performance.now();
    await compile(ENTRY, binary, row.bun);
    console.error(`  compiled in ${Math.round(performance.now() - started)} ms; archiving …`);
    built.push({ name, binary });
    assets.push(archive(name, binary));
    console.error(
      `built ${relative(ROOT, assets.at(-1)!)} (${name}: binary ${statSync(binary).size} bytes, archive ${statSync(assets.at(-1)!).size} bytes)`,
    );
  }
  // install.sh as released: its home stamped from package.json (blank: it downloads nothing until there is one).
  const script = readFileSync(join(ROOT, "install.sh"), "utf8");
  if (!/^home=$/m.test(script)) throw new Error("install.sh has no blank `home=` line to stamp");
  writeFileSync(join(RELEASE, "install.sh"), script.replace(/^home=$/m, `home=${HOME.github ?? ""}`), { mode: 0o755 });
  assets.push(join(RELEASE, "install.sh"));
  const sums = assets.map(
    (a) => `${createHash("sha256").update(readFileSync(a)).digest("hex")}  ${relative(RELEASE, a)}`,
  );
  writeFileSync(join(RELEASE, "SHA256SUMS"), `${sums.join("\n")}\n`);
  for (const t of npmPackages(built)) console.error(`packed ${relative(ROOT, t)}`);
}

mkdirSync(DIST, { recursive: true });
const flags = new Set(process.argv.slice(2));
if (flags.has("--noop")) await buildNoop();
else if (flags.has("--all")) {
  await release(Object.keys(TARGETS));
  await buildHost();
} else if (flags.has("--target")) {
  const argv = process.argv.slice(2);
  // `host`: this machine's own target (what `npm run build:release` builds, for install.sh --from dist/release).
  const host = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
  await release(
    argv.flatMap((a, i) => (a === "--target" && argv[i + 1] ? [argv[i + 1] === "host" ? host : argv[i + 1]!] : [])),
  );
} else if (
  flags.has("--if-stale") &&
  existsSync(join(DIST, "majordomus")) &&
  existsSync(join(DIST, ".inputs-digest")) &&
  readFileSync(join(DIST, ".inputs-digest"), "utf8") === inputsDigest()
) {
  console.error("dist/majordomus is up to date");
} else await buildHost();
