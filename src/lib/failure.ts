/**
 * The one exit-code vocabulary. Domain code throws `Failure(kind, message, hint)`;
 * only `src/cli/run.ts` turns a failure into text on stderr and a process exit code.
 */
export const EXIT = {
  ok: 0,
  usage: 2,
  contract: 10,
  drift: 11,
  missing: 12,
  internal: 13,
  refused: 15,
} as const satisfies Record<string, number>;

export type FailureKind = keyof typeof EXIT;

export class Failure extends Error {
  readonly kind: FailureKind;
  /** What the person should do about it, one sentence. */
  readonly hint?: string;
  /** Extra lines printed after the message (e.g. every problem found in a file). */
  readonly details: readonly string[];

  constructor(kind: FailureKind, message: string, hint?: string, details: readonly string[] = []) {
    super(message);
    this.name = "Failure";
    this.kind = kind;
    this.hint = hint;
    this.details = details;
  }

  get code(): number {
    return EXIT[this.kind];
  }
}

export function isFailure(err: unknown): err is Failure {
  return err instanceof Failure;
}

export function errnoCode(err: unknown): string | undefined {
  if (err && typeof err === "object" && "code" in err) {
    const code = (err as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}
