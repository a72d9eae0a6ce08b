/**
 * An upstream's answer as the relay reads it, whichever transport brought it: tollgate's
 * HTTP/1.1 client (http1/client.ts) for channels, a fetch Response for the echo channel
 * and the doctor. Bodies are read chunk by chunk, each chunk the reader's own bytes.
 */
/** A body read chunk by chunk. */
export interface BodyReader {
  /** The next bytes of the body (the caller may keep them), or undefined once it ended. */
  read(): Promise<Uint8Array | undefined>;
  /** Stops reading and discards the rest (its connection cannot be reused). */
  cancel(reason?: unknown): Promise<void>;
  /** Whether the bytes read so far ended the body (the next read is undefined), when known. */
  readonly ended?: boolean;
  /**
   * The most bytes a reader should hold of it at once, when its transport was given a
   * bound (`max_answer_bytes`): the whole body, or one event of a stream (sse.ts).
   */
  readonly maxAnswerBytes?: number;
}

/** An upstream response whose head arrived. */
export interface UpstreamResponse {
  readonly status: number;
  /** The value of a header, by its lowercase name. */
  header(name: string): string | undefined;
  /** The whole body as UTF-8 text. */
  text(): Promise<string>;
  /** The whole body's bytes. */
  bytes(): Promise<Uint8Array<ArrayBuffer>>;
  /** The body, or null when the answer has none. */
  readonly body: BodyReader | null;
}

/** A fetch Response as an UpstreamResponse (the echo channel's, the doctor's). */
export function fromFetchResponse(response: Response): UpstreamResponse {
  return {
    status: response.status,
    header: (name) => response.headers.get(name) ?? undefined,
    text: () => response.text(),
    bytes: async () => new Uint8Array(await response.arrayBuffer()),
    body: response.body && streamReader(response.body),
  };
}

/** A web stream of bytes as a BodyReader. */
export function streamReader(stream: ReadableStream<Uint8Array>): BodyReader {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return {
    async read() {
      reader ??= stream.getReader();
      const { done, value } = await reader.read();
      return done ? undefined : value;
    },
    async cancel(reason) {
      await (reader ?? stream).cancel(reason).catch(() => {});
    },
  };
}
