/**
 * The only module that touches Bun-specific APIs; each has a portable fallback (Deno, the Node bundle). YAML: the
 * `yaml` package costs ~13 ms at start-up in a compiled binary, Bun's parser nothing, but Bun's takes duplicate keys
 * and gives no position, so `strict` parses and every error go through `yaml`, loaded on demand.
 */
import { env, environment } from "./env.ts";
import { readOwnMap } from "./yaml-emit.ts";

type YamlApi = { parse(text: string): unknown };

const builtin: YamlApi | undefined = (globalThis as { Bun?: { YAML?: YamlApi } }).Bun?.YAML;
const JIT_ON = env("BUN_JSC_useJIT") !== "0";

export class YamlSyntaxError extends Error {
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
    const [first = "invalid YAML", ...frame] = String((err as Error).message ?? err).split("\n");
    throw new YamlSyntaxError(
      first.replace(/:\s*$/, ""),
      frame.filter((l) => l.trim() !== ""),
    );
  }
}

/** `strict` rejects duplicate keys; otherwise the built-in parser, and only a failure pays for the precise message. */
export async function parseYaml(text: string, options: { strict?: boolean } = {}): Promise<unknown> {
  if (options.strict || !builtin) return strictParse(text);
  // Our own shape is read without a parser where the JIT runs (2.6x faster on doctor's 30,000 front matters); the
  // interpreter reads it faster natively.
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

export type BunChild = {
  pid: number;
  exited: Promise<number>;
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  kill(signal?: number | string): void;
  unref(): void;
};
export type BunSpawn = (
  cmd: string[],
  opts: {
    cwd: string;
    env: Record<string, string | undefined>;
    stdin: Uint8Array | "ignore";
    stdout: "pipe";
    stderr: "pipe";
    detached?: boolean;
  },
) => BunChild;

export const bunSpawn: BunSpawn | undefined = (globalThis as { Bun?: { spawn?: BunSpawn } }).Bun?.spawn;

declare const MAJORDOMUS_COMPILED: boolean | undefined;

export function compiled(): boolean {
  return typeof MAJORDOMUS_COMPILED === "boolean" && MAJORDOMUS_COMPILED;
}

/** `no-ftl`: the JIT without its last tier, whose background compiles cost a one-second command more than they save. */
const ENGINES = {
  interpreter: { BUN_JSC_useJIT: "0" },
  "no-ftl": { BUN_JSC_useFTLJIT: "0" },
} as const;

type Execve = (file: string, args: string[], env: Record<string, string | undefined>) => never;

/** Go on with the engine `mode` by execve of the same binary and arguments; a switch the person set is kept. */
export function reexecWith(mode: keyof typeof ENGINES): void {
  if (!compiled() || env("BUN_JSC_useJIT") !== undefined || env("BUN_JSC_useFTLJIT") !== undefined) return;
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (typeof execve !== "function") return;
  try {
    execve(process.execPath, [process.execPath, ...process.argv.slice(2)], { ...environment(), ...ENGINES[mode] });
  } catch {}
}

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

/** Start a program that outlives this process, in its own session, sharing no stdio; undefined outside Bun. */
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

/** `node:crypto` costs ~10 ms to load in a compiled binary: Bun's hasher first. */
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

/** CRC-32 (IEEE) of UTF-8. The hooks run without the JIT, where a JavaScript byte loop costs ~20x Bun's native one. */
export const crc32: Crc32 = bunCrc32 ?? portableCrc32;

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

export function globMatcher(pattern: string): ((path: string) => boolean) | undefined {
  if (!GlobImpl) return undefined;
  const glob = new GlobImpl(pattern);
  return (path) => glob.match(path);
}

export type WorkerReply<T> = { answer: T } | { unavailable: string };

/** One request answered by module `entry` on another thread; where none can start, the caller does the work. */
export function askWorker<T>(entry: string, request: unknown): Promise<WorkerReply<T>> {
  const WorkerClass = (globalThis as { Worker?: typeof Worker }).Worker;
  if (typeof WorkerClass !== "function") return Promise.resolve({ unavailable: "this runtime has no worker threads" });
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

/** Collect young garbage every `every` calls (~1 ms): doctor's reads piled up tens of MiB without it. */
export function pacedCollector(every: number): () => void {
  let count = 0;
  return () => {
    if (++count % every === 0) bunGc?.(false);
  };
}

/** A read-only SQLite store (opencode's sessions): Bun's built-in driver, else `node:sqlite` (Deno, Node 22). */
export type Store = { all(sql: string, ...params: string[]): Array<Record<string, unknown>>; close(): void };

export async function openStoreReadOnly(path: string): Promise<Store> {
  if ((globalThis as { Bun?: unknown }).Bun) {
    const { Database } = (await import("bun:sqlite")) as unknown as {
      Database: new (
        p: string,
        o: { readonly: boolean },
      ) => {
        query(sql: string): { all(...p: string[]): Array<Record<string, unknown>> };
        close(): void;
      };
    };
    const db = new Database(path, { readonly: true });
    return { all: (sql, ...params) => db.query(sql).all(...params), close: () => db.close() };
  }
  const { DatabaseSync } = (await import("node:sqlite")) as unknown as {
    DatabaseSync: new (
      p: string,
      o: { readOnly: boolean },
    ) => {
      prepare(sql: string): { all(...p: string[]): Array<Record<string, unknown>> };
      close(): void;
    };
  };
  const db = new DatabaseSync(path, { readOnly: true });
  return { all: (sql, ...params) => db.prepare(sql).all(...params), close: () => db.close() };
}
