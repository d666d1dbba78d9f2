/**
 * The only module that touches Bun-specific APIs. Everything here has a portable fallback so
 * `deno run -A src/main.ts` (and Node, for the bundled form) behaves the same.
 *
 * YAML: Bun's built-in parser costs nothing at start-up, while the `yaml` package costs ~13 ms
 * in a compiled binary (measured in Bun 1.4). The built-in one is lenient in two ways
 * we care about (duplicate keys silently take the last value, errors carry no position), so
 * `strict` parses and every error message go through the `yaml` package, loaded on demand.
 */
import { GAVE_UP, onCancel } from "./cancel.ts";
import { programIn, trustedPath } from "./path.ts";
import { traceSpawn } from "./trace.ts";
import { env, environment } from "./env.ts";
import { readOwnMap } from "./yaml-emit.ts";

type YamlApi = { parse(text: string): unknown };

const builtin: YamlApi | undefined = (globalThis as { Bun?: { YAML?: YamlApi } }).Bun?.YAML;
/** Whether JavaScriptCore's JIT runs this process (the hook shims switch it off, see interpreted()). */
const JIT_ON = env("BUN_JSC_useJIT") !== "0";

export class YamlSyntaxError extends Error {
  /** The lines of the text around the error, as the parser drew them (a caret under the spot). */
  readonly frame: readonly string[];
  constructor(message: string, frame: readonly string[] = []) {
    super(message);
    this.name = "YamlSyntaxError";
    this.frame = frame;
  }
}

async function strictParse(text: string): Promise<unknown> {
  const lib = await import("yaml");
  try {
    return lib.parse(text, { uniqueKeys: true, prettyErrors: true, strict: true });
  } catch (err) {
    // The parser's message is one line ending in "at line L, column C:" and then a code frame.
    const [first = "invalid YAML", ...frame] = String((err as Error).message ?? err).split("\n");
    throw new YamlSyntaxError(
      first.replace(/:\s*$/, ""),
      frame.filter((l) => l.trim() !== ""),
    );
  }
}

/**
 * Parse YAML text. `strict` rejects duplicate keys; without it the fast built-in parser is
 * used where it exists, and only a failure pays for the precise message.
 */
export async function parseYaml(text: string, options: { strict?: boolean } = {}): Promise<unknown> {
  if (options.strict || !builtin) return strictParse(text);
  // A document in the shape majordomus writes is read without a parser where the JIT runs (2.6x
  // faster than the built-in one on doctor's 30,000 front matters); the interpreter, as the hooks
  // run, reads it faster natively, and any other shape always goes to the parser.
  if (JIT_ON) {
    const own = readOwnMap(text);
    if (own !== undefined) return own;
  }
  try {
    return builtin.parse(text);
  } catch {
    return strictParse(text);
  }
}

export type SpawnResult = { status: number | null; stdout: string; stderr: string };

type BunChild = {
  exited: Promise<number>;
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  kill(signal?: number | string): void;
  unref(): void;
};
type BunSpawn = (
  cmd: string[],
  opts: {
    cwd: string;
    env: Record<string, string | undefined>;
    stdin: Uint8Array | "ignore";
    stdout: "pipe";
    stderr: "pipe";
  },
) => BunChild;

const bunSpawn: BunSpawn | undefined = (globalThis as { Bun?: { spawn?: BunSpawn } }).Bun?.spawn;

/**
 * Run a program to completion and collect its output as text, without blocking: a command can
 * start git early and do its own work while git runs. node:child_process costs ~2 ms to load, so
 * it is only loaded where Bun is absent.
 */
export async function spawnText(
  cmd: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; input?: string },
): Promise<SpawnResult> {
  const started = performance.now();
  try {
    // Never a program of the repository it runs in, nor one its own children would find there (lib/path.ts).
    const PATH = trustedPath(options.env.PATH, options.cwd);
    const program = cmd.includes("/") ? cmd : programIn(PATH, cmd);
    if (program === undefined) return notStarted(cmd, Object.assign(new Error("not found"), { code: "ENOENT" }));
    return await spawnInner(program, args, { ...options, env: { ...options.env, PATH } });
  } finally {
    traceSpawn(cmd, args, performance.now() - started);
  }
}

/**
 * A program that could not be started (git missing from the PATH a client gives its hooks) is an
 * answer like a failed run, with the reason where its stderr would be: each caller already says
 * what a failed git means (the working tree unknown, nothing written), never "a bug".
 */
function notStarted(cmd: string, err: unknown): SpawnResult {
  const message = err instanceof Error ? err.message : String(err);
  const missing = (err as { code?: string }).code === "ENOENT" || /not found/i.test(message);
  return {
    status: null,
    stdout: "",
    stderr: `${cmd} could not be started: ${missing ? "it is not on the PATH this process was given" : message}`,
  };
}

/** A pipe read to its end, as text. */
async function drain(reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> }): Promise<string> {
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done || value === undefined) return Buffer.concat(chunks).toString("utf8");
    chunks.push(value);
  }
}

async function spawnInner(
  cmd: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; input?: string },
): Promise<SpawnResult> {
  if (bunSpawn) {
    let child: ReturnType<BunSpawn>;
    try {
      child = bunSpawn([cmd, ...args], {
        cwd: options.cwd,
        env: options.env,
        stdin: options.input === undefined ? "ignore" : Buffer.from(options.input, "utf8"),
        stdout: "pipe",
        stderr: "pipe",
      });
    } catch (err) {
      return notStarted(cmd, err);
    }
    // A deadline that passes stops it (lib/cancel.ts) and this returns at once, without waiting for
    // its pipes to close: a program it started itself may hold them open after it is gone.
    let stop: (gaveUp: SpawnResult) => void = () => undefined;
    const stopped = new Promise<SpawnResult>((resolve) => (stop = resolve));
    const readers = [child.stdout.getReader(), child.stderr.getReader()];
    const forget = onCancel(() => {
      child.kill("SIGKILL");
      child.unref();
      // Our ends of its pipes close too, so nothing of it keeps this process alive.
      for (const r of readers) r.cancel().catch(() => undefined);
      stop({ status: null, stdout: "", stderr: GAVE_UP });
    });
    try {
      return await Promise.race([
        stopped,
        Promise.all([drain(readers[0]!), drain(readers[1]!), child.exited]).then(([stdout, stderr, status]) => ({
          status,
          stdout,
          stderr,
        })),
      ]);
    } finally {
      forget();
    }
  }
  const { spawn } = await import("node:child_process");
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args as string[], {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    child.on("error", (err) =>
      (err as { code?: string }).code === "ENOENT" ? resolve(notStarted(cmd, err)) : reject(err),
    );
    const forget = onCancel(() => child.kill("SIGKILL"));
    child.on("close", (status) => {
      forget();
      resolve({ status, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

declare const MAJORDOMUS_COMPILED: boolean | undefined;

/** Whether this process is the compiled binary (then it is its own program). */
export function compiled(): boolean {
  return typeof MAJORDOMUS_COMPILED === "boolean" && MAJORDOMUS_COMPILED;
}

/**
 * The engine's tiers a long command may go on with: `interpreter`, no JIT at all (as the hook
 * shims run, wiring/shims.ts); `no-ftl`, the JIT's first tiers without its last, whose compiles of
 * hot code on a thread of their own cost a one-second command more than they save.
 */
const ENGINES = {
  interpreter: { BUN_JSC_useJIT: "0" },
  "no-ftl": { BUN_JSC_useFTLJIT: "0" },
} as const;

type Execve = (file: string, args: string[], env: Record<string, string | undefined>) => never;

/**
 * Go on with the engine `mode`: the compiled binary replaces itself (execve, so no second process
 * waits) with the arguments it was given and the switch set. A switch the person set either way
 * is kept, and from the source tree (bun, deno) nothing changes. `doctor` calls it: its first run
 * without the last tier, a later one without the JIT (see health/doctor.ts `remembers`).
 */
export function reexecWith(mode: keyof typeof ENGINES): void {
  if (!compiled() || env("BUN_JSC_useJIT") !== undefined || env("BUN_JSC_useFTLJIT") !== undefined) return;
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (typeof execve !== "function") return;
  try {
    execve(process.execPath, [process.execPath, ...process.argv.slice(2)], { ...environment(), ...ENGINES[mode] });
  } catch {
    // Not replaced (the system refused the exec): this process goes on as it is.
  }
}

/** How to run this very program again: the binary itself, or the runtime with the entry script (from the source tree). */
export function selfInvocation(): string[] {
  return compiled() ? [process.execPath] : [process.execPath, process.argv[1] ?? "src/main.ts"];
}

type BunDetachedSpawn = (
  cmd: string[],
  opts: {
    cwd: string;
    env: Record<string, string | undefined>;
    stdin: "ignore";
    stdout: "ignore";
    stderr: "ignore";
    detached: true;
  },
) => { pid: number; unref(): void };
const bunSpawnDetached = bunSpawn as unknown as BunDetachedSpawn | undefined;

/**
 * Start a program that outlives this process: its own session, no stdio shared with ours (a hook's
 * client must not wait for a pipe the child holds open). Returns its pid, or undefined where the
 * runtime cannot (outside Bun); throws when the program cannot be started.
 */
export function spawnDetached(cmd: string[], cwd: string): number | undefined {
  if (!bunSpawnDetached) return undefined;
  const child = bunSpawnDetached(cmd, {
    cwd,
    env: environment(),
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
    detached: true,
  });
  child.unref();
  return child.pid;
}

type BunHasher = new (algorithm: string) => { update(data: string | Uint8Array): { digest(encoding: "hex"): string } };
const bunHasher: BunHasher | undefined = (globalThis as { Bun?: { CryptoHasher?: BunHasher } }).Bun?.CryptoHasher;

/**
 * A hex digest. Bun's hasher is built in; `node:crypto` costs ~10 ms to load in a compiled Bun
 * binary, so it is the fallback (Deno, Node), loaded synchronously through the runtime's require.
 */
export function createHash(algorithm: "sha256", data: string | Uint8Array): string {
  if (bunHasher) return new bunHasher(algorithm).update(data).digest("hex");
  const nodeCrypto = (
    process as unknown as { getBuiltinModule?: (id: string) => typeof import("node:crypto") }
  ).getBuiltinModule?.("node:crypto");
  if (!nodeCrypto) throw new Error("no hash implementation in this runtime");
  return nodeCrypto.createHash(algorithm).update(data).digest("hex");
}

type Crc32 = (data: string) => number;
const bunCrc32: Crc32 | undefined = (globalThis as { Bun?: { hash?: { crc32?: Crc32 } } }).Bun?.hash?.crc32;
let crcTable: Uint32Array | undefined;

/**
 * CRC-32 (IEEE) of a string's UTF-8 bytes. Bun's is native: the hooks run with the JIT off, where
 * a byte loop in JavaScript costs ~20x as much (a hash a line of a cited file is on the start hook).
 * Elsewhere (Deno, Node), the same function computed here.
 */
export const crc32: Crc32 = bunCrc32 ?? portableCrc32;

/** CRC-32 (IEEE) computed in JavaScript: what `crc32` is where the runtime has none built in. */
export function portableCrc32(text: string): number {
  crcTable ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

type GlobClass = new (pattern: string) => { match(path: string): boolean };
const GlobImpl = (globalThis as { Bun?: { Glob?: GlobClass } }).Bun?.Glob;

/** A matcher for a glob pattern (Bun's Glob), or undefined where the runtime has none. */
export function globMatcher(pattern: string): ((path: string) => boolean) | undefined {
  if (!GlobImpl) return undefined;
  const glob = new GlobImpl(pattern);
  return (path) => glob.match(path);
}

/** What a worker thread came back with: its answer, or why there was none (the caller does the work itself). */
export type WorkerReply<T> = { answer: T } | { unavailable: string };

/**
 * One request answered on another thread by the module `entry` (named from src/, like
 * "health/ledger-worker.ts"), so a long pass runs on a second core beside the caller's work. The
 * compiled binary carries that module as an entry point of its own (build.ts); from the source
 * tree it is loaded as it is. Where the runtime has no worker threads (the Node bundle) or the
 * worker cannot be started, the reply says why and the caller works on its own thread.
 */
export function askWorker<T>(entry: string, request: unknown): Promise<WorkerReply<T>> {
  const WorkerClass = (globalThis as { Worker?: typeof Worker }).Worker;
  if (typeof WorkerClass !== "function") return Promise.resolve({ unavailable: "this runtime has no worker threads" });
  // Compiled, every module's URL is the binary's own, beside which the entry points lie; from source, this file is in src/lib/.
  const url = new URL(entry, new URL(compiled() ? "./" : "../", import.meta.url));
  let worker: Worker;
  try {
    worker = new WorkerClass(url.href, { type: "module" });
  } catch (err) {
    return Promise.resolve({ unavailable: String((err as Error)?.message ?? err) });
  }
  return new Promise((resolve) => {
    const done = (reply: WorkerReply<T>) => {
      worker.terminate();
      resolve(reply);
    };
    worker.onmessage = (event: MessageEvent) => done({ answer: event.data as T });
    worker.onmessageerror = () => done({ unavailable: "its answer could not be read" });
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      done({ unavailable: event.message || "it failed to start" });
    };
    worker.postMessage(request);
  });
}

const bunGc = (globalThis as { Bun?: { gc?: (force: boolean) => void } }).Bun?.gc;

/**
 * A function for each item of a long read (doctor's tens of thousands of files, a ledger's
 * chunks): every `every` calls, it asks the engine for a collection of young garbage, which takes
 * about a millisecond. Left to its own pace the engine let such a read pile up tens of MiB before
 * collecting it; the collections keep what the loop touches in cache, so it is no slower.
 * Elsewhere, it does nothing.
 */
export function pacedCollector(every: number): () => void {
  let count = 0;
  return () => {
    if (++count % every === 0) bunGc?.(false);
  };
}
