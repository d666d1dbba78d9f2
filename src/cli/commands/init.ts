import { command } from "../define.ts";
import { initLayer } from "../../lifecycle/init.ts";
import { locate } from "../../repo/where.ts";
import { jsonArg } from "../args.ts";
import { out, err, outJson } from "../print.ts";

export default command({
  meta: { name: "init", description: "Create the .ai layer (manifest, policy, local state) in this git repository" },
  examples: ["majordomus init", "majordomus init --extend   # a teammate's clone: add the local half"],
  args: {
    extend: { type: "boolean", description: "Add only what is missing to an existing layer; never overwrite" },
    ...jsonArg,
  },
  async run({ args }) {
    const result = await initLayer(await locate(), { extend: args.extend === true });
    if (args.json) {
      outJson("init", result);
      return;
    }
    for (const path of result.created) out(`created  ${path}`);
    for (const path of result.kept) out(`kept     ${path}`);
    out(
      result.gitignore === "added"
        ? "added    .ai/local/ to .gitignore"
        : "kept     .gitignore (already ignores the local half)",
    );
    err(
      `majordomus: ${result.mode === "init" ? "initialised" : "extended"} the layer in ${result.root} (${result.created.length} created, ${result.kept.length} kept)`,
    );
    if (result.mode === "init")
      err(
        "majordomus: next: `majordomus capture install` wires your coding clients' hooks to it (Claude Code, and " +
          "Codex, Gemini and Copilot when they are on PATH)",
      );
  },
});
