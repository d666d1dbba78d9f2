/**
 * Turns a command's argv into its arguments, from the command's own citty `args` definition.
 *
 * citty's parser is not used: it accepts any unknown flag silently, maps every error to exit 1,
 * and costs ~1.5 ms per run deriving camel- and kebab-case aliases, which matters on a path that
 * runs on every hook event. This one is strict: an unknown option, a missing value, a bad enum
 * value, a repeated option or a stray argument is a usage error naming it.
 */
import type { ArgDef, ArgsDef } from "citty";
import { Failure } from "../lib/failure.ts";
import { closest } from "../lib/suggest.ts";

export type Parsed = { _: string[]; [name: string]: string | boolean | string[] | undefined };

function usage(message: string, scope: string): Failure {
  return new Failure("usage", message, `run \`${scope} --help\` to see its arguments`);
}

function aliasesOf(def: ArgDef): string[] {
  const alias = "alias" in def ? def.alias : undefined;
  return alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
}

export function parseArgv(argv: readonly string[], defs: ArgsDef, scope: string): Parsed {
  const options = new Map<string, [string, ArgDef]>();
  const positionals: Array<[string, ArgDef]> = [];
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") positionals.push([name, def]);
    else for (const key of [name, ...aliasesOf(def)]) options.set(key, [name, def]);
  }
  const loose: string[] = [];
  const out: Parsed = { _: loose };
  const given = new Set<string>();
  const set = (name: string, value: string | boolean, token: string) => {
    if (given.has(name)) throw usage(`${token} was given twice; give it once`, scope);
    given.add(name);
    out[name] = value;
  };

  const rest = [...argv];
  while (rest.length > 0) {
    const token = rest.shift()!;
    if (token === "--") {
      loose.push(...rest);
      break;
    }
    if (!token.startsWith("-") || token === "-") {
      loose.push(token);
      continue;
    }
    const body = token.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const key = eq === -1 ? body : body.slice(0, eq);
    const inline = eq === -1 ? undefined : body.slice(eq + 1);
    const flag = token.slice(0, token.length - (inline === undefined ? 0 : inline.length + 1));
    const direct = options.get(key);
    const negated = !direct && key.startsWith("no-") ? options.get(key.slice(3)) : undefined;
    if (negated && negated[1].type === "boolean" && inline === undefined) {
      set(negated[0], false, flag);
      continue;
    }
    if (!direct) {
      const names = [...options.entries()].map(([k]) => (k.length === 1 ? `-${k}` : `--${k}`));
      const near = closest(flag, names);
      throw usage(`unknown option ${flag} for \`${scope}\`${near ? `; did you mean ${near}?` : ""}`, scope);
    }
    const [name, def] = direct;
    if (def.type === "boolean") {
      if (inline !== undefined && inline !== "true" && inline !== "false")
        throw usage(`${flag} takes no value (got ${JSON.stringify(inline)})`, scope);
      set(name, inline !== "false", flag);
      continue;
    }
    const value = inline ?? rest.shift();
    if (value === undefined || (inline === undefined && value.startsWith("--")))
      throw usage(`${flag} needs a value`, scope);
    if (def.type === "enum" && !(def.options ?? []).includes(value)) {
      throw usage(`${flag} must be one of ${(def.options ?? []).join(", ")} (got ${JSON.stringify(value)})`, scope);
    }
    set(name, value, flag);
  }

  for (const [name, def] of positionals) {
    const value = loose.shift();
    if (value !== undefined) out[name] = value;
    else if (def.default !== undefined) out[name] = def.default;
    else if (def.required !== false) throw usage(`missing argument <${name}>`, scope);
  }
  if (loose.length > 0) {
    // `handover list`, `checkpoint show`: a word that is one of the command's switches was meant as that switch.
    const meant = Object.entries(defs).find(([name, def]) => def.type === "boolean" && name === loose[0]);
    if (meant)
      throw new Failure(
        "usage",
        `unexpected argument ${JSON.stringify(loose[0])}; did you mean \`${scope} --${meant[0]}\`?`,
        `run \`${scope} --help\` to see its arguments`,
      );
    throw usage(`unexpected argument ${JSON.stringify(loose[0])}`, scope);
  }
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional" || out[name] !== undefined) continue;
    if (def.default !== undefined) out[name] = def.default as string | boolean;
    else if (def.required) throw usage(`missing option --${name}`, scope);
  }
  return out;
}
