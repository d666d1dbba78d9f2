/** Changes to a person's JSON file that touch only what they name: every other byte stays as the person wrote it. */
import { isDeepStrictEqual } from "node:util";
import { applyEdits, findNodeAtLocation, modify, parseTree, type JSONPath, type Node } from "jsonc-parser";

/** A value set at a path (undefined removes it); `insert` puts it into an array before the index instead. */
export type JsonEdit = { path: JSONPath; value: unknown; insert?: boolean };

/** The file's own indentation, read from its first indented line (two spaces when it has none). */
function formatOf(text: string): { tabSize: number; insertSpaces: boolean; eol: string } {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indent = /\n([ \t]+)\S/.exec(text)?.[1];
  if (indent === undefined) return { tabSize: 2, insertSpaces: true, eol };
  return indent.startsWith("\t")
    ? { tabSize: 1, insertSpaces: false, eol }
    : { tabSize: indent.length, insertSpaces: true, eol };
}

/**
 * A removal takes the member and the comma joining it to a neighbour (jsonc-parser 3.3.1's own removal of an array's
 * last element cuts the wrong span: `[{"x":1},{"y":2}]` became `[{"x":1}}]`).
 */
function removal(text: string, path: JSONPath): { offset: number; length: number } | undefined {
  const node = findNodeAtLocation(parseTree(text)!, path);
  if (!node) return undefined;
  const member = node.parent?.type === "property" ? node.parent : node;
  const siblings = member.parent?.children ?? [member];
  const i = siblings.indexOf(member);
  const end = (n: Node) => n.offset + n.length;
  if (i > 0) return { offset: end(siblings[i - 1]!), length: end(member) - end(siblings[i - 1]!) };
  if (i + 1 < siblings.length) return { offset: member.offset, length: siblings[i + 1]!.offset - member.offset };
  return { offset: member.offset, length: member.length };
}

/** An addition after the last member, in that member's style (its own line and indentation, or inline). */
function addition(
  text: string,
  e: JsonEdit,
  unit: string,
  eol: string,
): { offset: number; length: number; content: string } | undefined {
  const tree = parseTree(text);
  const parentPath = e.path.slice(0, -1);
  const container = tree && (parentPath.length === 0 ? tree : findNodeAtLocation(tree, parentPath));
  const last = container?.children?.at(-1);
  const key = e.path.at(-1)!;
  if (!container || !last) return undefined;
  if (container.type === "array" && !(e.insert && key === container.children!.length)) return undefined;
  if (container.type === "object" && (typeof key !== "string" || findNodeAtLocation(tree!, e.path))) return undefined;
  const at = last.offset + last.length;
  const head = container.type === "object" ? `${JSON.stringify(key)}: ` : "";
  const lineStart = text.lastIndexOf("\n", last.offset) + 1;
  if (lineStart <= container.offset)
    return { offset: at, length: 0, content: `,${head.trimEnd()}${JSON.stringify(e.value)}` };
  const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
  const body = JSON.stringify(e.value, null, unit).split("\n").join(`${eol}${indent}`);
  return { offset: at, length: 0, content: `,${eol}${indent}${head}${body}` };
}

/** The text with the edits made; a result that does not parse to what the edits describe is written out whole. */
export function editJson(text: string, edits: readonly JsonEdit[]): string {
  const formattingOptions = formatOf(text);
  const unit = formattingOptions.insertSpaces ? " ".repeat(formattingOptions.tabSize) : "\t";
  let out = text;
  for (const e of edits) {
    const span = e.value === undefined ? removal(out, e.path) : addition(out, e, unit, formattingOptions.eol);
    if (span) out = applyEdits(out, [{ content: "", ...span }]);
    else if (e.value !== undefined)
      out = applyEdits(out, modify(out, e.path, e.value, { formattingOptions, isArrayInsertion: e.insert === true }));
  }
  const wanted = expected(JSON.parse(text) as unknown, edits);
  try {
    if (isDeepStrictEqual(JSON.parse(out), wanted)) return out;
  } catch {}
  return freshJson(wanted);
}

/** What the edits make of a value, computed on the value itself. */
function expected(value: unknown, edits: readonly JsonEdit[]): unknown {
  const root = structuredClone(value) as Record<string | number, unknown>;
  for (const e of edits) {
    let at = root as Record<string | number, unknown>;
    for (const key of e.path.slice(0, -1)) {
      if (at[key] === undefined || at[key] === null || typeof at[key] !== "object") at[key] = {};
      at = at[key] as Record<string | number, unknown>;
    }
    const last = e.path.at(-1)!;
    if (Array.isArray(at) && typeof last === "number") {
      if (e.insert) at.splice(last, 0, e.value);
      else if (e.value === undefined) at.splice(last, 1);
      else at[last] = e.value;
    } else if (e.value === undefined) delete at[last];
    else at[last] = e.value;
  }
  return root;
}

/** A new file of ours, written the way the edits above would write it. */
export const freshJson = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
