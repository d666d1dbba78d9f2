/**
 * One line to stderr, written to the descriptor itself: `console.error` colours its text red when
 * stderr is a terminal (whatever TERM or NO_COLOR say), and `process.stderr` costs milliseconds to
 * set up in a compiled Bun binary. Plain text, the same in a terminal, a pipe or a log.
 */
import { writeSync } from "node:fs";

export function stderrLine(text: string): void {
  const data = Buffer.from(`${text}\n`, "utf8");
  let offset = 0;
  let tries = 0;
  while (offset < data.length) {
    try {
      offset += writeSync(2, data, offset, data.length - offset);
    } catch (err) {
      // A non-blocking pipe that is full for a moment: try again a few times, then give up on the line.
      if ((err as { code?: string }).code !== "EAGAIN" || ++tries > 1000) return;
    }
  }
}
