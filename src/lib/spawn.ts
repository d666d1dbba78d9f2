/** Running a program to completion without blocking, under Bun or, where Bun is absent, with node:child_process. */
import { GAVE_UP, onCancel } from "./cancel.ts";
import { programIn, trustedPath } from "./path.ts";
import { traceSpawn } from "./trace.ts";
import { bunSpawn, type BunSpawn } from "./runtime.ts";

export type SpawnResult = { status: number | null; stdout: string; stderr: string };

/**
 * Run a program and collect its output without blocking. node:child_process costs ~2 ms to load, so only where Bun is
 * absent.
 */
export async function spawnText(cmd: string, args: readonly string[], options: SpawnOptions): Promise<SpawnResult> {
  const started = performance.now();
  try {
    const PATH = trustedPath(options.env.PATH, options.cwd);
    const program = cmd.includes("/") ? cmd : programIn(PATH, cmd);
    if (program === undefined) return notStarted(cmd, Object.assign(new Error("not found"), { code: "ENOENT" }));
    return await spawnInner(program, args, { ...options, env: { ...options.env, PATH } });
  } finally {
    traceSpawn(cmd, args, performance.now() - started);
  }
}

/** A program that could not start (no git on the client's PATH) answers like a failed run, its reason as stderr. */
function notStarted(cmd: string, err: unknown): SpawnResult {
  const message = err instanceof Error ? err.message : String(err);
  const missing = (err as { code?: string }).code === "ENOENT" || /not found/i.test(message);
  return {
    status: null,
    stdout: "",
    stderr: `${cmd} could not be started: ${missing ? "it is not on the PATH this process was given" : message}`,
  };
}

async function drain(reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> }): Promise<string> {
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done || value === undefined) return Buffer.concat(chunks).toString("utf8");
    chunks.push(value);
  }
}

/** `group`: the program and all it starts in a process group of their own, stopped together at a deadline. */
type SpawnOptions = { cwd: string; env: Record<string, string | undefined>; input?: string; group?: boolean };

/** Stop a program, and with `group` everything it started (a hook git ran that sleeps), never leaving it running. */
function stop(pid: number, group: boolean | undefined): void {
  try {
    process.kill(group ? -pid : pid, "SIGKILL");
  } catch {
    // already gone
  }
}

async function spawnInner(cmd: string, args: readonly string[], options: SpawnOptions): Promise<SpawnResult> {
  return bunSpawn ? spawnWithBun(bunSpawn, cmd, args, options) : spawnWithNode(cmd, args, options);
}

async function spawnWithBun(
  spawn: BunSpawn,
  cmd: string,
  args: readonly string[],
  options: SpawnOptions,
): Promise<SpawnResult> {
  let child: ReturnType<BunSpawn>;
  try {
    child = spawn([cmd, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdin: options.input === undefined ? "ignore" : Buffer.from(options.input, "utf8"),
      stdout: "pipe",
      stderr: "pipe",
      ...(options.group ? { detached: true } : {}),
    });
  } catch (err) {
    return notStarted(cmd, err);
  }
  // A passed deadline returns at once: a grandchild may hold the pipes open after the program is gone.
  const stopped = Promise.withResolvers<SpawnResult>();
  const readers = [child.stdout.getReader(), child.stderr.getReader()];
  const forget = onCancel(() => {
    stop(child.pid, options.group);
    child.unref();
    for (const r of readers) r.cancel().catch(() => undefined);
    stopped.resolve({ status: null, stdout: "", stderr: GAVE_UP });
  });
  try {
    const ran = Promise.all([drain(readers[0]!), drain(readers[1]!), child.exited]);
    return await Promise.race([stopped.promise, ran.then(([stdout, stderr, status]) => ({ status, stdout, stderr }))]);
  } finally {
    forget();
  }
}

async function spawnWithNode(cmd: string, args: readonly string[], options: SpawnOptions): Promise<SpawnResult> {
  const { spawn } = await import("node:child_process");
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args as string[], {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: options.group === true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    child.on("error", (err) =>
      (err as { code?: string }).code === "ENOENT" ? resolve(notStarted(cmd, err)) : reject(err),
    );
    const forget = onCancel(() => child.pid !== undefined && stop(child.pid, options.group));
    child.on("close", (status) => {
      forget();
      resolve({ status, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
