/** The command tree, walked from the command table: every path with its subcommands and options (for completions). */
import type { ArgsDef, CommandDef } from "citty";
import type { Node } from "./completion.ts";

type Entry = CommandDef<any> | (() => Promise<CommandDef<any>>);

const load = async (entry: Entry): Promise<CommandDef<any>> => (typeof entry === "function" ? entry() : entry);
const describe = (cmd: CommandDef<any>) =>
  String((cmd.meta as { description?: string } | undefined)?.description ?? "");

async function optionsOf(cmd: CommandDef<any>): Promise<Node["options"]> {
  const args = ((typeof cmd.args === "function" ? await cmd.args() : cmd.args) ?? {}) as ArgsDef;
  const options: Node["options"] = Object.entries(args)
    .filter(([, d]) => d.type !== "positional")
    .map(([name, d]) => ({
      flag: `--${name}`,
      description: d.description ?? "",
      ...(d.type === "enum" ? { values: d.options ?? [] } : {}),
    }));
  return [...options, { flag: "--help", description: "Show help" }];
}

export async function commandTree(table: Record<string, Entry>, rootOptions: Node["options"]): Promise<Node[]> {
  const nodes: Node[] = [];
  const visit = async (path: string[], subs: Record<string, Entry>, description: string, options: Node["options"]) => {
    const loaded = await Promise.all(
      Object.entries(subs).map(async ([name, entry]) => ({ name, cmd: await load(entry) })),
    );
    nodes.push({
      path: path.join(" "),
      description,
      subcommands: loaded.map((l) => ({ name: l.name, description: describe(l.cmd) })),
      options,
    });
    for (const { name, cmd } of loaded) {
      const children = (typeof cmd.subCommands === "function" ? await cmd.subCommands() : cmd.subCommands) as
        Record<string, Entry> | undefined;
      if (children) await visit([...path, name], children, describe(cmd), await optionsOf(cmd));
      else
        nodes.push({
          path: [...path, name].join(" "),
          description: describe(cmd),
          subcommands: [],
          options: await optionsOf(cmd),
        });
    }
  };
  await visit([], table, "", rootOptions);
  return nodes;
}
