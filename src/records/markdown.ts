/** The Markdown shapes records use: `---` front matter followed by a body of `# Section` blocks. */

import { emitMap, type Value } from "../lib/yaml-emit.ts";

export type Split = { frontMatter: string; body: string };

/** A record's text: its front matter (these entries, in order), then its body, ending in one newline. */
export function renderDocument(entries: ReadonlyArray<readonly [string, Value]>, body: string): string {
  return `---\n${emitMap(entries)}---\n\n${body.replace(/\s*$/, "")}\n`;
}

/** Separate front matter from body; undefined when the text does not open with a closed `---` block. */
export function splitFrontMatter(text: string): Split | undefined {
  const normalized = text.replace(/\r\n/g, "\n");
  if (!normalized.startsWith("---\n")) return undefined;
  const end = normalized.indexOf("\n---\n", 3);
  const endAtEof = normalized.endsWith("\n---") ? normalized.length - 4 : -1;
  const close = end !== -1 ? end : endAtEof;
  if (close === -1) return undefined;
  return { frontMatter: normalized.slice(4, close + 1), body: normalized.slice(close + 5).replace(/^\n/, "") };
}

/**
 * Level-one sections of a body: heading text → lines under it (until the next level-one heading). A heading already
 * seen is a line of the section it stands in, never a new start: an agent pasting a template twice loses no words.
 */
export function sections(body: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  let fence = false;
  for (const line of body.split("\n")) {
    if (/^(```|~~~)/.test(line.trim())) fence = !fence;
    const heading = fence ? null : /^#\s+(.+?)\s*#*\s*$/.exec(line);
    const name = heading?.[1]!.trim();
    if (name !== undefined && !out.has(name)) {
      current = [];
      out.set(name, current);
    } else current?.push(line);
  }
  return out;
}

/** A line that says nothing: blank, or a lone `<placeholder>`. */
export function isPlaceholder(line: string): boolean {
  const t = line.trim();
  return t === "" || /^<[^<>]*>$/.test(t);
}

/** The section's text with leading and trailing blank lines removed; inner blank lines kept. */
export function trimmedSection(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === "") start++;
  while (end > start && lines[end - 1]!.trim() === "") end--;
  return lines.slice(start, end);
}

/** Level-one headings a body gives more than once (outside code fences), each named once. */
export function repeatedSections(body: string): string[] {
  const seen = new Set<string>();
  const again = new Set<string>();
  let fence = false;
  for (const line of body.split("\n")) {
    if (/^(```|~~~)/.test(line.trim())) fence = !fence;
    const name = fence ? undefined : /^#\s+(.+?)\s*#*\s*$/.exec(line)?.[1]!.trim();
    if (name === undefined) continue;
    if (seen.has(name)) again.add(name);
    seen.add(name);
  }
  return [...again];
}

/** Required sections that are absent or hold only blank and placeholder lines. */
export function missingSections(body: string, required: readonly string[]): string[] {
  const found = sections(body);
  return required.filter((name) => !(found.get(name) ?? []).some((line) => !isPlaceholder(line)));
}
