/**
 * The only module that touches Bun-specific APIs. Everything here has a portable fallback so
 * `deno run -A src/main.ts` (and Node, for the bundled form) behaves the same.
 *
 * YAML: Bun's built-in parser costs nothing at start-up, while the `yaml` package costs ~13 ms
 * in a compiled binary (../shared/reference/bun.md §4). The built-in one is lenient in two ways
 * we care about (duplicate keys silently take the last value, errors carry no position), so
 * `strict` parses and every error message go through the `yaml` package, loaded on demand.
 */
type YamlApi = { parse(text: string): unknown };

const builtin: YamlApi | undefined = (globalThis as { Bun?: { YAML?: YamlApi } }).Bun?.YAML;

export class YamlSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "YamlSyntaxError";
  }
}

async function strictParse(text: string): Promise<unknown> {
  const lib = await import("yaml");
  try {
    return lib.parse(text, { uniqueKeys: true, prettyErrors: true, strict: true });
  } catch (err) {
    const first = String((err as Error).message ?? err).split("\n")[0] ?? "invalid YAML";
    throw new YamlSyntaxError(first);
  }
}

/**
 * Parse YAML text. `strict` rejects duplicate keys; without it the fast built-in parser is
 * used where it exists, and only a failure pays for the precise message.
 */
export async function parseYaml(text: string, options: { strict?: boolean } = {}): Promise<unknown> {
  if (options.strict || !builtin) return strictParse(text);
  try {
    return builtin.parse(text);
  } catch {
    return strictParse(text);
  }
}

export type SpawnResult = { status: number | null; stdout: string; stderr: string };

type BunSpawn = (cmd: string[], opts: { cwd: string; env: Record<string, string | undefined>; stdin?: Uint8Array; stdout: "pipe"; stderr: "pipe" }) => {
  exitCode: number | null;
  stdout: Uint8Array;
  stderr: Uint8Array;
};

const bunSpawn: BunSpawn | undefined = (globalThis as { Bun?: { spawnSync?: BunSpawn } }).Bun?.spawnSync;

/**
 * Run a program to completion and collect its output as text. Bun's own spawn is about twice as
 * fast as node:child_process here (5 ms vs 9 ms for `git --version`), and node:child_process also
 * costs ~2 ms just to load, so it is only loaded where Bun is absent.
 */
export async function spawnText(cmd: string, args: readonly string[], options: { cwd: string; env: Record<string, string | undefined>; input?: string }): Promise<SpawnResult> {
  if (bunSpawn) {
    const input = options.input === undefined ? undefined : Buffer.from(options.input, "utf8");
    const run = bunSpawn([cmd, ...args], { cwd: options.cwd, env: options.env, stdin: input, stdout: "pipe", stderr: "pipe" });
    return { status: run.exitCode, stdout: Buffer.from(run.stdout).toString("utf8"), stderr: Buffer.from(run.stderr).toString("utf8") };
  }
  const { spawnSync } = await import("node:child_process");
  const run = spawnSync(cmd, args as string[], { cwd: options.cwd, env: options.env, input: options.input, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  return { status: run.status, stdout: run.stdout ?? "", stderr: run.stderr ?? "" };
}

type BunHasher = new (algorithm: string) => { update(data: string | Uint8Array): { digest(encoding: "hex"): string } };
const bunHasher: BunHasher | undefined = (globalThis as { Bun?: { CryptoHasher?: BunHasher } }).Bun?.CryptoHasher;

/**
 * A hex digest. Bun's hasher is built in; `node:crypto` costs ~10 ms to load in a compiled Bun
 * binary, so it is the fallback (Deno, Node), loaded synchronously through the runtime's require.
 */
export function createHash(algorithm: "sha256", data: string | Uint8Array): string {
  if (bunHasher) return new bunHasher(algorithm).update(data).digest("hex");
  const nodeCrypto = (process as unknown as { getBuiltinModule?: (id: string) => typeof import("node:crypto") }).getBuiltinModule?.("node:crypto");
  if (!nodeCrypto) throw new Error("no hash implementation in this runtime");
  return nodeCrypto.createHash(algorithm).update(data).digest("hex");
}
