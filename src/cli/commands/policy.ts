import { command } from "../define.ts";
import { workspace } from "../../workspace/workspace.ts";
import { flatten } from "../../policy/index.ts";
import { jsonArg } from "../args.ts";
import { out, err, outJson } from "../print.ts";

export default command({
  meta: { name: "policy", description: "Check the policy against its schema and print every key it sets" },
  examples: ["majordomus policy"],
  args: { ...jsonArg },
  async run({ args }) {
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    // Strict: a key written twice is an error here, although hooks read the file leniently.
    const loaded = await ws.policy({ strict: true });
    if (args.json) {
      outJson("policy", { path: loaded.path, policy: loaded.policy });
      return;
    }
    for (const [key, value] of flatten(loaded.policy)) out(`${key} = ${JSON.stringify(value)}`);
    err(`majordomus: ${loaded.path} is valid`);
  },
});
