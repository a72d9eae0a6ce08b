/**
 * The hold journal of a SQLite file (`tollgate.db-holds`): the serving process appends
 * each batch of holds it took here, one write, before their requests go upstream, and
 * writes them into the database with the settlements, a few milliseconds on
 * (sqlite_store.ts). A commit of the database costs tens of pwrite and fcntl calls on the
 * request's path; an append costs one. The file
 * survives a crash of the process as a commit in WAL mode with NORMAL sync does, so a
 * hold that reached the journal but not the database is not lost: the next server
 * writes it into the database and interrupts it. One process owns the journal (an
 * exclusive lock); another server on the same file takes its holds in the database.
 *
 * Format: one line per batch of holds, a JSON array: an instance's id, then the figures of
 * each of its holds as an array (FIGURES; a line of the journal's first version
 * holds objects instead; both are read). A line `committed` says every hold above it is
 * in the database, but for those of the line right after it: holds still only in the
 * journal when the mark was made (young ones, which the database gets only if their
 * request outlives a moment: sqlite_store.ts). A torn line is a batch whose holds never
 * resolved.
 */
import { DatabaseUnavailableError, type NewHold } from "./store.ts";

/** Past this size the journal is emptied at its next commit (all is in the database then). */
const COMPACT_AFTER_BYTES = 1 << 20;
const COMMITTED = "committed";
/**
 * A hold's figures in a line, in this order, after its instance's id: half the bytes of an
 * object with its names, and half the time to write (an append is on a request's path).
 * The journal's own order, not the holds table's (holds.ts): a journal left by a crash is
 * read by the next version, whatever its schema.
 */
const FIGURES = [
  "id",
  "accountId",
  "keyId",
  "amountMicros",
  "tokens",
  "createdAt",
  "expiresAt",
  "requestId",
  "model",
  "entryPoint",
  "stream",
  "inputTokens",
  "inputCostMicros",
  // Added with budgets (issue 43): a line written before them has neither (0).
  "keyBudgetMicros",
  "accountBudgetMicros",
] as const satisfies readonly (keyof NewHold)[];

/** The values of a hold's `Names`, each in its place. */
type ValuesOf<Names extends readonly (keyof NewHold)[]> = {
  -readonly [I in keyof Names]: NewHold[Names[I] & keyof NewHold];
};
/** A hold's figures as a line holds them. */
type Figures = ValuesOf<typeof FIGURES>;

/** The journal as its owner writes it. */
export interface HoldJournal {
  /** Appends holds taken together; they survive a crash of the process once it returns. */
  append(holds: readonly NewHold[]): void;
  /**
   * Records that every hold appended so far is in the database but `open`, which the
   * journal keeps (they are written again after the mark, in one write with it).
   */
  committed(open?: readonly NewHold[]): void;
  close(): void;
}

/** The journal, taken, and the holds a dead owner left out of the database. */
export interface TakenJournal {
  journal: HoldJournal;
  leftover: NewHold[];
}

/**
 * Takes the journal at `path`; undefined when another process owns it. Past
 * `compactAfterBytes` it is emptied at its next commit instead of marked.
 */
export function takeHoldJournal(
  path: string,
  { compactAfterBytes = COMPACT_AFTER_BYTES } = {},
): TakenJournal | undefined {
  // Appending: every write lands at the end, also after the file was emptied.
  const file = Deno.openSync(path, { read: true, append: true, create: true });
  if (!file.tryLockSync(true)) {
    file.close();
    return undefined;
  }
  const text = new TextDecoder().decode(Deno.readFileSync(path));
  const encoder = new TextEncoder();
  let size = file.statSync().size;
  const write = (text: string) => {
    const bytes = encoder.encode(text);
    try {
      for (let done = 0; done < bytes.length;) done += file.writeSync(bytes.subarray(done));
    } catch (error) {
      throw new DatabaseUnavailableError(error);
    }
    size += bytes.length;
  };
  // A dead owner's torn last line ends here, so the next line starts afresh.
  if (text !== "" && !text.endsWith("\n")) write("\n");
  return {
    leftover: uncommitted(text),
    journal: {
      append: (holds) => write(`${line(holds)}\n`),
      committed(open = []) {
        const kept = open.length > 0 ? `${line(open)}\n` : "";
        if (size < compactAfterBytes) return write(`${COMMITTED}\n${kept}`);
        file.truncateSync(0);
        size = 0;
        if (kept !== "") write(kept);
      },
      close: () => file.close(),
    },
  };
}

/** A line of `holds`: an instance's id before the first of its holds, then each one's figures. */
function line(holds: readonly NewHold[]): string {
  const values: unknown[] = [];
  let instance = "";
  for (const hold of holds) {
    if (hold.instanceId !== instance) values.push(instance = hold.instanceId);
    values.push(figuresOf(hold));
  }
  return JSON.stringify(values);
}

/** The holds of a line: each after its instance's id, or (the first version) objects. */
function holdsOf(line: string): NewHold[] {
  const holds: NewHold[] = [];
  let instanceId = "";
  for (const value of JSON.parse(line) as (string | Figures | NewHold)[]) {
    if (typeof value === "string") instanceId = value;
    else holds.push(Array.isArray(value) ? holdOf(instanceId, value) : value);
  }
  return holds;
}

/** A hold's figures in FIGURES' order, each named, so that the type checks the order. */
function figuresOf(hold: NewHold): Figures {
  return [
    hold.id,
    hold.accountId,
    hold.keyId,
    hold.amountMicros,
    hold.tokens,
    hold.createdAt,
    hold.expiresAt,
    hold.requestId,
    hold.model,
    hold.entryPoint,
    hold.stream,
    hold.inputTokens,
    hold.inputCostMicros,
    hold.keyBudgetMicros ?? 0,
    hold.accountBudgetMicros ?? 0,
  ];
}

/** The hold of `instanceId` whose figures figuresOf wrote (read once, at a journal's taking). */
function holdOf(instanceId: string, figures: Figures): NewHold {
  const hold: Record<string, unknown> = { instanceId };
  FIGURES.forEach((name, i) => hold[name] = figures[i]);
  // A hold without budgets has none (a line of an earlier version has no such figures).
  if (!hold.keyBudgetMicros) delete hold.keyBudgetMicros;
  if (!hold.accountBudgetMicros) delete hold.accountBudgetMicros;
  return hold as unknown as NewHold;
}

/** The holds after the last `committed` line; a torn line (it does not parse) holds none. */
function uncommitted(text: string): NewHold[] {
  const lines = text.split("\n");
  const holds: NewHold[] = [];
  for (const line of lines.slice(lines.lastIndexOf(COMMITTED) + 1)) {
    try {
      if (line !== "") holds.push(...holdsOf(line));
    } catch {
      // The append a crash cut short: its holds never resolved.
    }
  }
  return holds;
}
