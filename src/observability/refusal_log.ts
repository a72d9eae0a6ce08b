/**
 * The request log's refusals: every request refused before it reached routing (so without
 * a ledger row) is kept as a record, written in batches off the request path. Until its
 * batch is written a record is pending here, and lookups see it (`pending`). A client
 * address past `perMinute` keyless refusals in a minute (a flood of bad keys) gets one
 * record for the rest of that minute, counting them, so that a flood fills neither the
 * disk nor the database's writer.
 */
import type { NewRefusal } from "../db/schema.ts";
import { elapsedMs, type RequestRecord } from "./record.ts";

/** Keyless refusals of one address in a minute that each get their own record. */
export const REFUSALS_PER_MINUTE = 60;
/** Addresses counted in one minute; past these, the others share one flood record. */
const MAX_ADDRESSES = 10_000;
/** Records held when the database does not take them; past these the oldest are dropped. */
const MAX_PENDING = 50_000;
const MINUTE_MS = 60_000;
/** The address of the flood record shared by the addresses past MAX_ADDRESSES. */
const OTHER_ADDRESSES = "(other addresses)";

/** Where the refusals go, and a clock. */
export interface RefusalLogOptions {
  /** Writes a batch; a rejection keeps the batch for the next flush. */
  write(rows: readonly NewRefusal[]): Promise<void>;
  /** Milliseconds since the epoch (the clock of the records' times). */
  now?: () => number;
  /** How long a record waits for others to be written with (ms). */
  flushMs?: number;
  /** Keyless refusals one address gets records for in a minute. */
  perMinute?: number;
  /** Told once of each failed write (the log's). */
  onError?: (error: unknown) => void;
}

/** The refusals' records of a serving process. */
export interface RefusalLog {
  /** A refused request is over: keeps its record (or counts it in its address's flood). */
  refused(record: RequestRecord, totalMs?: number): void;
  /** The records not written yet, flood records of the current minute included. */
  pending(): readonly NewRefusal[];
  /** Resolves once every record kept so far is written (flood records included). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is pending. */
  close(): Promise<void>;
}

interface AddressMinute {
  minute: number;
  count: number;
  flood?: NewRefusal;
}

/** A refusal log writing through `options.write`. */
export function createRefusalLog(options: RefusalLogOptions): RefusalLog {
  const flushMs = options.flushMs ?? 500;
  const perMinute = options.perMinute ?? REFUSALS_PER_MINUTE;
  const now = options.now ?? Date.now;
  let queue: NewRefusal[] = [];
  /** The batch being written: still pending until its write is done. */
  let inFlight: readonly NewRefusal[] = [];
  let addresses = new Map<string, AddressMinute>();
  let minuteOfMap = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();
  let closed = false;

  const schedule = () => {
    if (timer !== undefined || closed) return;
    const id = setTimeout(() => {
      timer = undefined;
      void writeDue(false);
    }, flushMs);
    // Pending records alone do not keep the process running (close() writes them).
    Deno.unrefTimer(id as unknown as number);
    timer = id;
  };

  /** Moves the flood records of past minutes (or all) into the queue. */
  const takeFloods = (all: boolean, minute: number) => {
    if (!all && minute === minuteOfMap) return;
    for (const entry of addresses.values()) if (entry.flood) queue.push(entry.flood);
    addresses = new Map();
    minuteOfMap = minute;
  };

  const writeDue = (all: boolean): Promise<void> => {
    writing = writing.then(async () => {
      takeFloods(all, Math.floor(now() / MINUTE_MS));
      if (queue.length === 0) return;
      const batch = queue;
      queue = [];
      inFlight = batch;
      try {
        await options.write(batch);
        inFlight = [];
      } catch (error) {
        inFlight = [];
        options.onError?.(error);
        queue = batch.concat(queue).slice(-MAX_PENDING);
        schedule();
      }
    });
    return writing;
  };

  return {
    refused(record, totalMs = elapsedMs(record)) {
      if (record.keyId === undefined) {
        const minute = Math.floor(record.time / MINUTE_MS);
        if (minute !== minuteOfMap) takeFloods(true, minute);
        let address = record.clientAddress ?? "";
        if (!addresses.has(address) && addresses.size >= MAX_ADDRESSES) address = OTHER_ADDRESSES;
        let counted = addresses.get(address);
        if (!counted) addresses.set(address, counted = { minute, count: 0 });
        counted.count++;
        if (counted.count > perMinute) {
          // Past the address's records of this minute: counted, no record of its own.
          if (counted.flood) counted.flood.count++;
          else {
            const row = refusalRow(record, totalMs);
            counted.flood = {
              ...row,
              client_address: address,
              code: "refusal_flood",
              reason: `More than ${perMinute} refusals without a known key from ` +
                `${address} in this minute, counted in this record (the first: ${row.code}, ` +
                `${row.reason})`,
            };
            schedule();
          }
          return;
        }
      }
      queue.push(refusalRow(record, totalMs));
      if (queue.length > MAX_PENDING) queue.shift();
      schedule();
    },
    pending() {
      const floods = [...addresses.values()].flatMap((entry) => entry.flood ? [entry.flood] : []);
      return inFlight.concat(queue, floods);
    },
    flush: () => writeDue(true),
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await writeDue(true);
    },
  };
}

/** The record of a refused request. */
export function refusalRow(record: RequestRecord, totalMs: number): NewRefusal {
  return {
    request_id: record.requestId,
    created_at: record.time,
    key_id: record.keyId ?? null,
    key_prefix: record.keyId === undefined ? record.keyPrefix ?? null : null,
    account: record.account ?? null,
    entry_point: record.entry ?? null,
    method: record.method,
    path: record.path,
    model: record.model ?? null,
    http_status: record.status,
    code: record.refusal?.code ?? `http_${record.status}`,
    reason: record.refusal?.reason ?? "",
    client_address: record.clientAddress ?? "",
    duration_ms: Math.round(totalMs),
    count: 1,
  };
}
