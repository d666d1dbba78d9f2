import { workspace } from "../../../workspace/workspace.ts";
import { filesToCommit } from "../../../wiring/files.ts";
import { jsonArg } from "../../args.ts";
import { command } from "../../define.ts";
import { out, outJson } from "../../print.ts";

export default command({
  meta: {
    name: "files",
    description:
      "The files to commit after init and capture install: .ai, .gitignore and what install wrote for each client wired here",
  },
  examples: ['git add $(majordomus capture files) && git commit -m "Supervise with majordomus"'],
  args: { ...jsonArg },
  async run({ args }) {
    const files = await filesToCommit(await workspace());
    if (args.json === true) return outJson("capture-files", { files });
    for (const f of files) out(f);
  },
});
