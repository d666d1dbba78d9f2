import { redactForWrite } from "../../lib/redact.ts";
import { Failure } from "../../lib/failure.ts";
import { wall } from "../../lib/clock.ts";
import { workspace } from "../../workspace/workspace.ts";
import { appendEvent } from "../../ledger/store.ts";
import {
  addQuestion,
  describeMalformed,
  readQuestions,
  resolveQuestion,
  type Question,
} from "../../questions/store.ts";
import { activeTask } from "../../task/record.ts";
import { jsonArg } from "../args.ts";
import { command } from "../define.ts";
import { out, outJson } from "../print.ts";

async function taskId(ws: Awaited<ReturnType<typeof workspace>>): Promise<string> {
  return (await activeTask(ws.layer)).active?.id ?? "none";
}

/** A question as the JSON documents give it (snake_case, every key present). */
function questionJson(q: Question) {
  return {
    text: q.text,
    task_id: q.taskId,
    opened: q.opened ?? null,
    resolved: q.resolved ?? null,
    answer: q.answer ?? null,
    line: q.line,
  };
}

const add = command({
  meta: { name: "add", description: "Add an open question (a blocker for finishing as completed)" },
  examples: ['majordomus question add "which locale is the default?"'],
  args: { question: { type: "positional", description: "The question, in one line" }, ...jsonArg },
  async run({ args }) {
    const ws = await workspace();
    const q = addQuestion(ws.layer, await redactForWrite(String(args.question), "question"), await taskId(ws), wall());
    await appendEvent(ws, "question.opened", { task_id: q.taskId, question: q.text });
    if (args.json) outJson("question", { question: questionJson(q) });
    else out(`opened: ${q.text} (task ${q.taskId})`);
  },
});

const list = command({
  meta: { name: "list", description: "List open questions, numbered (exit 10 if any line is malformed)" },
  examples: ["majordomus question list", "majordomus question list --all"],
  args: { all: { type: "boolean", description: "Also list resolved questions" }, ...jsonArg },
  async run({ args }) {
    const ws = await workspace(process.cwd(), undefined, { readOnly: true });
    const q = readQuestions(ws.layer);
    if (args.json)
      outJson("question-list", {
        items: q.open.map((item, i) => ({ number: i + 1, ...questionJson(item) })),
        resolved: args.all ? q.resolved.map(questionJson) : [],
        malformed: q.malformed,
      });
    else {
      q.open.forEach((item, i) => out(`${i + 1}. ${item.text}  (task ${item.taskId}, opened ${item.opened})`));
      if (args.all)
        for (const item of q.resolved)
          out(`-  ${item.text}  (task ${item.taskId}, resolved ${item.resolved}: ${item.answer})`);
      if (q.open.length === 0) out("no open questions");
    }
    if (q.malformed.some((m) => m.whole))
      throw new Failure("contract", describeMalformed(q)[0]!, "look at it (`ls -l`), then move it away");
    if (q.malformed.length > 0) {
      throw new Failure(
        "contract",
        `${q.malformed.length} line(s) of ${q.path} are not questions`,
        "rewrite each in one of the two shapes shown in the file's comment",
        describeMalformed(q),
      );
    }
  },
});

const resolve = command({
  meta: {
    name: "resolve",
    description: "Resolve an open question (by number or by a piece of its text) with an answer",
  },
  examples: ['majordomus question resolve 1 --answer "en-GB"', 'majordomus question resolve locale --answer "en-GB"'],
  args: {
    question: { type: "positional", description: "Its number in `question list`, or a unique piece of its text" },
    answer: { type: "string", required: true, description: "The answer, in one line" },
    ...jsonArg,
  },
  async run({ args }) {
    const ws = await workspace();
    const resolverTask = await taskId(ws);
    const q = resolveQuestion(
      ws.layer,
      String(args.question),
      await redactForWrite(String(args.answer), "answer"),
      wall(),
    );
    await appendEvent(ws, "question.resolved", { task_id: resolverTask, question: q.text, answer: q.answer });
    if (args.json) outJson("question", { question: questionJson(q) });
    else out(`resolved: ${q.text} — ${q.answer}`);
  },
});

export default command({
  meta: { name: "question", description: "Open questions: add, list, resolve" },
  examples: ['majordomus question add "which locale is the default?"', "majordomus question list"],
  subCommands: { add, list, resolve },
});
