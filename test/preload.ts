/** Runs before every test file: isolate the environment, and make sure the binary is current. */
import { afterAll } from "bun:test";
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { PROJECT, isolate } from "./support/env.ts";

const home = isolate();
// bun test fires no process "exit" handlers; a global afterAll runs once, after the last file.
afterAll(() => rmSync(home, { recursive: true, force: true }));
const build = spawnSync(process.execPath, ["run", "build.ts", "--if-stale"], { cwd: PROJECT, encoding: "utf8" });
if (build.status !== 0) throw new Error(`building dist/majordomus failed:\n${build.stderr}`);
