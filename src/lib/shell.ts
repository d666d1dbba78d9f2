/** A text as one POSIX shell word: single-quoted, each `'` written as `'\''`. */
export const shellQuoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
