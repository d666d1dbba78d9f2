/** `majordomus serve --port 0` in a folder, and the address it says it serves (read from its stderr). */
import { spawn, type ChildProcess } from "node:child_process";
import { BIN } from "./env.ts";

export function startServe(cwd: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(BIN, ["serve", "--port", "0"], { cwd, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stderr!.on("data", (d: Buffer) => {
      seen += d.toString();
      const m = /serving (http:\/\/127\.0\.0\.1:\d+)\//.exec(seen);
      if (m) resolve({ child, url: m[1]! });
    });
    child.once("exit", (code) => reject(new Error(`serve exited ${code}: ${seen}`)));
  });
}
