/**
 * A raw HTTP/1.1 client for tests of what a server does with exact bytes: it writes what a
 * test gives and reads the answers as text. A guard closes the connection after a while so
 * that a server that never answers fails the test instead of hanging it; the guard only
 * bounds the wait, it is never what a test asserts.
 */

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();

/** One answer as read off the wire. */
export interface RawAnswer {
  /** The status line, e.g. `HTTP/1.1 200 OK`. */
  status: string;
  /** The head's fields, by lowercase name. */
  headers: Map<string, string>;
  body: string;
}

/** A connection to a server that reads what it answers as text. */
export interface RawConnection {
  /** Writes `bytes` whole. */
  send(bytes: string | Uint8Array): Promise<void>;
  /** Writes `bytes` whole in the background; a failed write (the server closed) is ignored. */
  sendAll(bytes: string | Uint8Array): void;
  /** Reads until what was received contains `text`, or the connection ends. */
  until(text: string): Promise<string>;
  /** Everything received until the server closes the connection. */
  rest(): Promise<string>;
  /** The next answer with a Content-Length after those already taken; undefined when none came. */
  answer(): Promise<RawAnswer | undefined>;
  /** The status lines of every answer received so far, in order. */
  statuses(): string[];
  close(): void;
}

/** Opens a connection to `url`'s host and port; it is closed by `close` or after `guardMs`. */
export async function rawConnect(url: string, guardMs = 30_000): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const connection = await Deno.connect({ hostname, port: Number(port) });
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(guard);
    try {
      connection.close();
    } catch {
      // Closed by the server already.
    }
  };
  const guard = setTimeout(close, guardMs);
  let received = "";
  /** Where the next answer starts in `received`. */
  let taken = 0;
  const buffer = new Uint8Array(65_536);
  const readMore = async () => {
    const count = await connection.read(buffer).catch(() => null);
    if (count === null) return false;
    received += DECODER.decode(buffer.subarray(0, count), { stream: true });
    return true;
  };
  const write = async (bytes: string | Uint8Array) => {
    const data = typeof bytes === "string" ? ENCODER.encode(bytes) : bytes;
    for (let offset = 0; offset < data.byteLength;) {
      offset += await connection.write(data.subarray(offset));
    }
  };
  return {
    send: write,
    sendAll(bytes) {
      write(bytes).catch(() => {});
    },
    async until(text) {
      while (!received.includes(text) && await readMore());
      return received;
    },
    async rest() {
      while (await readMore());
      return received;
    },
    async answer() {
      for (;;) {
        const parsed = parseAnswer(received, taken);
        if (parsed) {
          taken = parsed.end;
          return parsed.answer;
        }
        if (!await readMore()) return undefined;
      }
    },
    statuses: () => received.match(/^HTTP\/1\.1 \d{3}.*$/gm) ?? [],
    close,
  };
}

/** The answer starting at `from` in `text` when all of it is there. */
function parseAnswer(text: string, from: number): { answer: RawAnswer; end: number } | undefined {
  const headEnd = text.indexOf("\r\n\r\n", from);
  if (headEnd < 0) return undefined;
  const [status = "", ...fields] = text.slice(from, headEnd).split("\r\n");
  const headers = new Map<string, string>();
  for (const field of fields) {
    const colon = field.indexOf(":");
    headers.set(field.slice(0, colon).trim().toLowerCase(), field.slice(colon + 1).trim());
  }
  const end = headEnd + 4 + Number(headers.get("content-length") ?? 0);
  // The length counts bytes; the answers these tests read are ASCII.
  if (text.length < end) return undefined;
  return { answer: { status, headers, body: text.slice(headEnd + 4, end) }, end };
}
