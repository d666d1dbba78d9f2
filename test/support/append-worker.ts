// Appends lines to a repository's ledger through the real ledger module, as a separate process.
// argv: <repo dir> <worker id> <count> <padding bytes>
import { workspace } from "../../src/workspace/workspace.ts";
import { appendEvent } from "../../src/ledger/store.ts";

const [dir, worker, count, pad] = process.argv.slice(2);
const ctx = await workspace(dir!);
for (let i = 0; i < Number(count); i++) {
  await appendEvent({ ledger: ctx.ledger, position: ctx.position }, "layer.initialized", {
    mode: "extend",
    created: 0,
    worker: Number(worker),
    seq: i,
    pad: "x".repeat(Number(pad)),
  });
}
