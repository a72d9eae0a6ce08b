/**
 * Images and documents in chat messages (OpenAI `ChatCompletionContentPartImage`,
 * `ChatCompletionContentPart.File`) <-> IR sources: a `data:` URL is a base64 source.
 */
import { stringOr } from "../json_read.ts";
import { convertError } from "../../translate/errors.ts";
import type { IrDocument, IrImage, IrSource } from "../../translate/ir.ts";

/** The media type and base64 payload of a `data:…;base64,` URL, or undefined for any other URL. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith("data:")) return undefined;
  const comma = url.indexOf(",");
  if (comma < 0) return undefined;
  const header = url.slice(5, comma).split(";");
  if (header.length < 2 || header[header.length - 1]!.toLowerCase() !== "base64") return undefined;
  return { mediaType: header[0] || "application/octet-stream", data: url.slice(comma + 1) };
}

/** A `data:` URL for base64 data. */
export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/** The IR source of an image URL: base64 for a `data:` URL, else the URL itself. */
export function sourceOfUrl(url: string): IrSource {
  const parsed = parseDataUrl(url);
  return parsed ? { kind: "base64", ...parsed } : { kind: "url", url };
}

// File names chat needs beside `file_data`; the API reference asks for one with inline data.
const EXTENSION_BY_TYPE: Record<string, string> = {
  "application/pdf": "pdf",
  "text/plain": "txt",
  "text/markdown": "md",
  "text/csv": "csv",
};

/** The media type a file name suggests (chat `file_data` may be bare base64 without one). */
export function mediaTypeOfName(filename: string | undefined): string {
  const extension = filename?.split(".").pop()?.toLowerCase();
  const found = Object.entries(EXTENSION_BY_TYPE).find(([, ext]) => ext === extension);
  return found?.[0] ?? "application/pdf";
}

/**
 * A document given the OpenAI way (chat `file`, responses `input_file`): inline data (a
 * data URL, or bare base64 typed by the file name), a `file_url`, or a `file_id`. `fields`
 * says which ones the client's protocol has, for the error when none is set.
 */
export function documentOfFile(
  file: Record<string, unknown>,
  path: string,
  fields: string,
): IrDocument {
  const filename = stringOr(file.filename) || undefined;
  const named = filename ? { filename } : {};
  const data = stringOr(file.file_data);
  if (data) {
    const parsed = parseDataUrl(data);
    const source = parsed
      ? { kind: "base64" as const, ...parsed }
      : { kind: "base64" as const, mediaType: mediaTypeOfName(filename), data };
    return { type: "document", source, ...named };
  }
  const url = stringOr(file.file_url);
  if (url) return { type: "document", source: { kind: "url", url }, ...named };
  const fileId = stringOr(file.file_id);
  if (fileId) return { type: "document", source: { kind: "file", fileId }, ...named };
  throw convertError(path, `the file has ${fields}`);
}

/** A chat `image_url` part for an IR image, or undefined when chat cannot point at it. */
export function encodeImage(image: IrImage): Record<string, unknown> | undefined {
  const url = image.source.kind === "url"
    ? image.source.url
    : image.source.kind === "base64"
    ? dataUrl(image.source.mediaType, image.source.data)
    : undefined;
  if (url === undefined) return undefined;
  const imageUrl: Record<string, unknown> = { url };
  if (image.detail) imageUrl.detail = image.detail;
  return { type: "image_url", image_url: imageUrl };
}

/** A chat `file` (or `text`) part for an IR document, or undefined when chat has no form for it. */
export function encodeDocument(document: IrDocument): Record<string, unknown> | undefined {
  const { source } = document;
  if (source.kind === "text") {
    const title = document.title ? `${document.title}\n\n` : "";
    return { type: "text", text: title + source.text };
  }
  if (source.kind === "file") return { type: "file", file: { file_id: source.fileId } };
  if (source.kind !== "base64") return undefined;
  const filename = document.filename ?? document.title ??
    `document.${EXTENSION_BY_TYPE[source.mediaType] ?? "pdf"}`;
  return {
    type: "file",
    file: { filename, file_data: dataUrl(source.mediaType, source.data) },
  };
}
