/** A rule's time bound, enforced inside its scan: past it the scan throws and the gate masks the text. */
export class Deadline {
  /** The steps taken: what a scan's growth is measured by, never by a clock. */
  steps = 0;

  constructor(private readonly at: number) {}

  tick(): void {
    if ((++this.steps & 255) === 0 && performance.now() > this.at) throw new Error("it ran past its time bound");
  }
}

export const NO_DEADLINE = new Deadline(Number.POSITIVE_INFINITY);
