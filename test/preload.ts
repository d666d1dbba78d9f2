/** Runs before every test file: isolate the environment, and make sure the binary is current. */
import { spawnSync } from "node:child_process";
import { PROJECT, isolate } from "./support/env.ts";

isolate();
const build = spawnSync(process.execPath, ["run", "build.ts", "--if-stale"], { cwd: PROJECT, encoding: "utf8" });
if (build.status !== 0) throw new Error(`building dist/majordomus failed:\n${build.stderr}`);
