/**
 * The subset of `node:util`'s `parseArgs` that citty calls (strict: false, allowPositionals),
 * written out so the binary does not load `node:util`: in a compiled Bun 1.4 binary that module
 * alone costs ~4 ms of start-up, a fifth of a hook's whole budget. `build.ts` points citty's
 * import here; `test/cli/parse-args.test.ts` holds this to node's own parser, case by case.
 */
type OptionSpec = { type: "string" | "boolean"; short?: string; default?: string | boolean; multiple?: boolean };
type Config = { args?: string[]; options?: Record<string, OptionSpec>; allowPositionals?: boolean; strict?: boolean };
type Values = Record<string, string | boolean | undefined>;

export function parseArgs(config: Config): { values: Values; positionals: string[] } {
  const options = config.options ?? {};
  const args = [...(config.args ?? [])];
  const values: Values = Object.create(null);
  const positionals: string[] = [];
  const byShort = new Map<string, string>();
  for (const [name, spec] of Object.entries(options)) if (spec.short) byShort.set(spec.short, name);
  const isString = (name: string) => options[name]?.type === "string";
  const store = (name: string, value: string | boolean) => {
    values[name] = value;
  };

  while (args.length > 0) {
    const arg = args.shift()!;
    if (arg === "--") {
      positionals.push(...args);
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      if (eq !== -1) {
        store(arg.slice(2, eq), arg.slice(eq + 1));
        continue;
      }
      const name = arg.slice(2);
      store(name, isString(name) && args.length > 0 ? args.shift()! : true);
      continue;
    }
    if (arg.length > 1 && arg.startsWith("-")) {
      const letters = arg.slice(1);
      const first = byShort.get(letters[0]!) ?? letters[0]!;
      if (letters.length === 1) {
        store(first, isString(first) && args.length > 0 ? args.shift()! : true);
        continue;
      }
      if (isString(first)) {
        store(first, letters.slice(1));
        continue;
      }
      // A group of short flags: every letter but a string option at the end stands alone.
      for (let i = 0; i < letters.length; i++) {
        const name = byShort.get(letters[i]!) ?? letters[i]!;
        if (isString(name) && i === letters.length - 1 && args.length > 0) store(name, args.shift()!);
        else store(name, isString(name) && i < letters.length - 1 ? letters.slice(i + 1) : true);
        if (isString(name)) break;
      }
      continue;
    }
    positionals.push(arg);
  }

  for (const [name, spec] of Object.entries(options)) {
    if (values[name] === undefined && spec.default !== undefined) values[name] = spec.default;
  }
  return { values, positionals };
}
