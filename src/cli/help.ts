/**
 * `--help` text, as a pure view over one command's definition: its full path (`majordomus session
 * start`, never only its own name), what it does, its arguments and options, its subcommands and
 * examples. Plain text, the same in a terminal, a pipe or a log.
 */
import type { ArgDef, ArgsDef } from "citty";

export type HelpInput = {
  /** The command's path under the root, e.g. ["session", "start"]; [] for the root. */
  path: readonly string[];
  description?: string;
  version?: string;
  args: ArgsDef;
  subcommands: ReadonlyArray<{ name: string; description?: string; group?: string }>;
  examples: readonly string[];
};

const ROOT = "majordomus";

function flagOf(name: string, def: ArgDef): string {
  const alias = "alias" in def && def.alias !== undefined ? (Array.isArray(def.alias) ? def.alias : [def.alias]) : [];
  const short = alias.filter((a) => a.length === 1).map((a) => `-${a}, `);
  const value =
    def.type === "boolean"
      ? ""
      : def.type === "enum"
        ? ` <${(def.options ?? []).join("|")}>`
        : ` <${"valueHint" in def && def.valueHint ? def.valueHint : name.replace(/_/g, "-")}>`;
  return `${short.join("")}--${name}${value}`;
}

function table(rows: Array<[string, string]>): string[] {
  const width = Math.min(34, Math.max(...rows.map(([left]) => left.length)));
  return rows.map(([left, right]) =>
    right === ""
      ? `  ${left}`
      : left.length > width
        ? `  ${left}\n  ${" ".repeat(width)}  ${right}`
        : `  ${left.padEnd(width)}  ${right}`,
  );
}

/** Subcommands under their headings, in the order each heading first appears ("Commands" for those without one). */
function grouped(subcommands: HelpInput["subcommands"]): string[] {
  const headings = [...new Set(subcommands.map((s) => s.group ?? "Commands"))];
  return headings.flatMap((heading) => {
    const rows = subcommands.filter((s) => (s.group ?? "Commands") === heading);
    return ["", `${heading}:`, ...table(rows.map((s) => [s.name, s.description ?? ""]))];
  });
}

export function helpText(h: HelpInput): string {
  const name = [ROOT, ...h.path].join(" ");
  const entries = Object.entries(h.args);
  const positionals = entries.filter(([, d]) => d.type === "positional");
  const options = entries.filter(([, d]) => d.type !== "positional");
  const synopsis = [
    name,
    ...(h.subcommands.length > 0 ? ["<command>"] : []),
    ...positionals.map(([n, d]) => (d.required === false ? `[${n}]` : `<${n}>`)),
    ...(options.length > 0 || h.path.length === 0 ? ["[options]"] : []),
  ].join(" ");
  const lines: string[] = [
    `${name}${h.version ? ` ${h.version}` : ""}${h.description ? ` — ${h.description}` : ""}`,
    "",
    `Usage: ${synopsis}`,
  ];
  lines.push(...grouped(h.subcommands));
  if (positionals.length > 0) {
    lines.push(
      "",
      "Arguments:",
      ...table(
        positionals.map(([n, d]) => [
          d.required === false ? `[${n}]` : `<${n}>`,
          [d.description ?? "", d.default !== undefined ? `(default: ${String(d.default)})` : ""]
            .filter(Boolean)
            .join(" "),
        ]),
      ),
    );
  }
  const optionRows: Array<[string, string]> = options.map(([n, d]) => [
    flagOf(n, d),
    [
      d.description ?? "",
      d.default !== undefined && d.type !== "boolean" ? `(default: ${String(d.default)})` : "",
      d.required ? "(required)" : "",
    ]
      .filter(Boolean)
      .join(" "),
  ]);
  optionRows.push(["-h, --help", "Show this help"]);
  if (h.path.length === 0) optionRows.push(["-v, --version", "Print the version"]);
  lines.push("", "Options:", ...table(optionRows));
  if (h.examples.length > 0) lines.push("", "Examples:", ...h.examples.map((e) => `  ${e}`));
  if (h.subcommands.length > 0) lines.push("", `Run \`${name} <command> --help\` for a command's arguments.`);
  return lines.join("\n");
}
