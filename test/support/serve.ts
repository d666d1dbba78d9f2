/**
 * `majordomus serve --port 0` in a folder, and what it prints: the address it serves, the URL the
 * person opens (it carries the token), and the token itself, which every other request needs.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { BIN } from "./env.ts";

export type Started = {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** The URL the person is told to open in a browser. */
  open: string;
  token: string;
  /** What serve has said on stderr so far. */
  stderr(): string;
  /** fetch `path` on this server as the person: with the token as a bearer header. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
};

export function startServe(cwd: string, env: Record<string, string> = {}, args: string[] = []): Promise<Started> {
  const child = spawn(BIN, ["serve", "--port", "0", ...args], {
    cwd,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stderr!.on("data", (d: Buffer) => {
      seen += d.toString();
      const m = /serving (http:\/\/[^\s/]+)\/[\s\S]*open (\S+\?token=([A-Za-z0-9_-]+)) /.exec(seen);
      if (!m) return;
      const [, url, open, token] = m as unknown as [string, string, string, string];
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
