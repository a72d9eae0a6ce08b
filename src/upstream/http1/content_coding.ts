/**
 * Bodies an upstream compressed although tollgate asked for none (it sends no
 * Accept-Encoding): some servers and proxies compress anyway, as fetch would have hidden.
 * gzip, deflate and brotli are decoded through the runtime's DecompressionStream; any
 * other coding is refused with its name, never read as if it were the answer itself.
 */
import { concatBytes } from "../../bytes.ts";
import type { Http1Body } from "./body.ts";
import { MalformedResponse } from "./head.ts";
import { answerTooLarge } from "./limits.ts";

/** DecompressionStream's name for each coding tollgate reads (RFC 9110 §8.4.1). */
const FORMATS: Record<string, CompressionFormat | "brotli"> = {
  gzip: "gzip",
  "x-gzip": "gzip",
  deflate: "deflate",
  br: "brotli",
};

/**
 * `body` as its coding (the Content-Encoding header) says to read it: itself when there
 * is none; throws MalformedResponse for a coding tollgate cannot read.
 */
export function decodedBody(coding: string | undefined, body: Http1Body): Http1Body {
  const name = coding?.trim().toLowerCase();
  if (!name || name === "identity") return body;
  const format = FORMATS[name];
  if (!format) {
    throw new MalformedResponse(
      `its Content-Encoding "${name.slice(0, 40)}" is not one tollgate reads`,
    );
  }
  return new DecodedBody(body, format);
}

/**
 * A body read through a decompressor; reads hand out what it has decoded so far. Read
 * whole, its decoded size is what `max_answer_bytes` bounds: a small body may inflate
 * a thousandfold.
 */
class DecodedBody implements Http1Body {
  readonly maxAnswerBytes: number;
  readonly #coded: Http1Body;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(coded: Http1Body, format: CompressionFormat | "brotli") {
    this.#coded = coded;
    this.maxAnswerBytes = coded.maxAnswerBytes;
    const source = new ReadableStream<BufferSource>({
      async pull(controller) {
        const chunk = await coded.read();
        if (chunk) controller.enqueue(chunk as Uint8Array<ArrayBuffer>);
        else controller.close();
      },
      cancel: (reason) => coded.cancel(reason),
    });
    this.#reader = source.pipeThrough(new DecompressionStream(format as CompressionFormat))
      .getReader() as ReadableStreamDefaultReader<Uint8Array>;
  }

  async read(): Promise<Uint8Array | undefined> {
    for (;;) {
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      if (value.byteLength > 0) return value;
    }
  }

  async readAll(): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let size = 0;
    for (let part = await this.read(); part; part = await this.read()) {
      size += part.byteLength;
      if (size > this.maxAnswerBytes) {
        const failure = answerTooLarge(this.maxAnswerBytes);
        await this.cancel(failure);
        throw failure;
      }
      parts.push(part);
    }
    return concatBytes(parts);
  }

  async cancel(reason?: unknown): Promise<void> {
    await this.#reader.cancel(reason).catch(() => {});
    await this.#coded.cancel(reason);
  }
}
