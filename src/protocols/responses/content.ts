/**
 * Input content parts (OpenAI `ResponseInputText`, `ResponseInputImage`,
 * `ResponseInputFile`) <-> IR parts. `image_url` is an http or `data:` URL (a `data:` URL
 * is a base64 source); `file_data` is a `data:` URL, or bare base64 from some clients.
 */
import { fields, stringOr } from "../json_read.ts";
import { dataUrl, documentOfFile, sourceOfUrl } from "../chat/content.ts";
import { convertError } from "../../translate/errors.ts";
import type { IrDocument, IrImage, IrText } from "../../translate/ir.ts";
import type { Drop } from "../../translate/encoding.ts";

/** A part of input content: what user messages and tool outputs hold. */
export type InputPart = IrText | IrImage | IrDocument;

/** The IR part of one input content part; throws naming `path` for a type the IR cannot carry. */
export function decodeInputPart(value: unknown, path: string): InputPart {
  const part = fields(value);
  switch (part.type) {
    // `output_text` is what an SDK's response item holds; some clients echo it as input.
    case "input_text":
    case "output_text":
      return { type: "text", text: stringOr(part.text) };
    case "input_image":
      return imageOf(part, path);
    case "input_file":
      return documentOfFile(part, path, "no `file_data`, `file_url` or `file_id`");
    case "input_audio":
      throw convertError(path, "audio input has no equivalent on this channel's protocol");
  }
  throw convertError(path, `a ${describe(part)} part cannot be translated`);
}

function imageOf(part: Record<string, unknown>, path: string): IrImage {
  const detail = stringOr(part.detail);
  const detailed = detail ? { detail } : {};
  const url = stringOr(part.image_url);
  if (url) return { type: "image", source: sourceOfUrl(url), ...detailed };
  const fileId = stringOr(part.file_id);
  if (fileId) return { type: "image", source: { kind: "file", fileId }, ...detailed };
  throw convertError(path, "the image has neither `image_url` nor `file_id`");
}

// `detail` is always written: `ResponseInputImage` requires it.
/** The input content part of an IR part; undefined for an image given as text. */
export function encodeInputPart(
  part: InputPart,
  drop: Drop,
): Record<string, unknown> | undefined {
  if (part.cacheControl) {
    drop("cache_control", "responses caches prompts by itself (no cache markers)");
  }
  if (part.type === "text") return { type: "input_text", text: part.text };
  const { source } = part;
  if (part.type === "image") {
    const detail = part.detail ?? "auto";
    if (source.kind === "file") return { type: "input_image", file_id: source.fileId, detail };
    const url = source.kind === "url"
      ? source.url
      : source.kind === "base64"
      ? dataUrl(source.mediaType, source.data)
      : undefined;
    return url === undefined ? undefined : { type: "input_image", image_url: url, detail };
  }
  if (source.kind === "text") {
    const title = part.title ? `${part.title}\n\n` : "";
    return { type: "input_text", text: title + source.text };
  }
  const filename = part.filename ?? part.title;
  const named = filename ? { filename } : {};
  if (source.kind === "url") return { type: "input_file", file_url: source.url, ...named };
  if (source.kind === "file") return { type: "input_file", file_id: source.fileId, ...named };
  // Inline data needs a file name with its extension (the API reference's file inputs).
  const extension = EXTENSIONS[source.mediaType] ?? "pdf";
  const name = filename ?? "document";
  return {
    type: "input_file",
    filename: name.includes(".") ? name : `${name}.${extension}`,
    file_data: dataUrl(source.mediaType, source.data),
  };
}

const EXTENSIONS: Record<string, string> = {
  "application/pdf": "pdf",
  "text/plain": "txt",
  "text/markdown": "md",
  "text/csv": "csv",
};

/** How an error names a part: its type, or that it has none. */
export function describe(part: Record<string, unknown>): string {
  return typeof part.type === "string" ? `\`${part.type}\`` : "typeless";
}
