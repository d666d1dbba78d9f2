/**
 * `majordomus serve --port 0` in a folder, and what it prints: the address it serves, the URL the
 * person opens (a one-time launch secret in its fragment), and the checkout's token (read from the
 * file serve names), which every other request needs.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { BIN } from "./env.ts";

export type Started = {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** The URL the person is told to open in a browser: this run's one-time launch secret in its fragment. */
  open: string;
  token: string;
  /** What serve has said on stderr so far. */
  stderr(): string;
  /** fetch `path` on this server as the person: with the token as a bearer header. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
};

export function startServe(cwd: string, env: Record<string, string> = {}, args: string[] = []): Promise<Started> {
  const child = spawn(BIN, ["serve", ...(args.includes("--port") ? [] : ["--port", "0"]), ...args], {
    cwd,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stderr!.on("data", (d: Buffer) => {
      seen += d.toString();
      const m =
        /serving (http:\/\/[^\s/]+)\/[\s\S]*open (\S+#launch=[A-Za-z0-9_-]+) [\s\S]*the token is in (\S+) /.exec(seen);
      if (!m) return;
      const [, url, open, file] = m as unknown as [string, string, string, string];
      const token = readFileSync(isAbsolute(file) ? file : join(cwd, file), "utf8").trim();
      resolve({
        child,
        url,
        open,
        token,
        stderr: () => seen,
        fetch: (path, init = {}) =>
          fetch(`${url}${path}`, {
            ...init,
            headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
          }),
      });
    });
    child.once("exit", (code) => reject(new Error(`serve exited ${code}: ${seen}`)));
  });
}
