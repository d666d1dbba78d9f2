import { COMPLETIONS, SHELLS, type Shell } from "../completion.ts";
import { commandTree } from "../tree.ts";
import { command } from "../define.ts";
import { out } from "../print.ts";

export default command({
  meta: {
    name: "completion",
    description: "Print a shell completion script for bash, zsh or fish (generated from the command table)",
  },
  examples: [
    "majordomus completion bash > ~/.local/share/bash-completion/completions/majordomus",
    'majordomus completion zsh > "${fpath[1]}/_majordomus"',
    "majordomus completion fish > ~/.config/fish/completions/majordomus.fish",
  ],
  args: { shell: { type: "positional", description: `One of ${SHELLS.join(", ")}` } },
  // The command table comes from the CLI's root (cli/run.ts hands it over), so this command, one of
  // the table's rows, does not import the table back.
  async run({ args, data }) {
    const shell = String(args.shell);
    if (!(SHELLS as readonly string[]).includes(shell)) {
      const { Failure } = await import("../../lib/failure.ts");
      throw new Failure(
        "usage",
        `no completion for shell ${JSON.stringify(shell)}`,
        `give one of ${SHELLS.join(", ")}`,
      );
    }
    const table = (data as { commands: Parameters<typeof commandTree>[0] }).commands;
    const nodes = await commandTree(table, [
      { flag: "--help", description: "Show help" },
      { flag: "--version", description: "Print the version" },
    ]);
    out(COMPLETIONS[shell as Shell](nodes).trimEnd());
  },
});
