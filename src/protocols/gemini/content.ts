/**
 * Parts of Gemini contents (Gemini API reference, `Part`, `Blob`, `FileData`) <-> IR
 * media, function-call arguments and results, and thought signatures.
 *
 * | Gemini                                  | IR                                              |
 * |-----------------------------------------|-------------------------------------------------|
 * | `inlineData` image/*                    | image, base64 source                            |
 * | `inlineData` application/pdf, text/*, application/json | document, base64 source          |
 * | `fileData` (`fileUri`)                  | image or document, URL source (by `mimeType`)   |
 * | `inlineData`, `fileData` audio, video   | refused (no IR equivalent)                      |
 * | `functionResponse.response` `{output}` / `{error}` | tool result text / text with `isError` |
 * | any other `response` object             | tool result of its JSON text                    |
 * | `thoughtSignature` holding `tollgate:<kind>:` | the opaque state of that kind (translate/opaque.ts) |
 */
import type { IrDocument, IrImage, IrOpaque, IrSource, IrToolResult } from "../../translate/ir.ts";
import { unwrapOpaque, wrapOpaque } from "../../translate/opaque.ts";
import { asRecord } from "../json_read.ts";
import { field, stringField } from "./fields.ts";

/**
 * An image or document of the given media type, or undefined for one the IR cannot carry
 * (audio, video).
 */
export function mediaOf(
  mimeType: string,
  source: IrSource,
  name?: string,
): IrImage | IrDocument | undefined {
  const type = mimeType.toLowerCase();
  if (type.startsWith("image/")) return { type: "image", source };
  if (type === "application/pdf" || type.startsWith("text/") || type === "application/json") {
    return { type: "document", source, ...(name ? { filename: name } : {}) };
  }
  return undefined;
}

/** The IR source of `inlineData` (base64) or `fileData` (a URI), with the part's media type. */
export function mediaSource(
  part: Record<string, unknown>,
): { mimeType: string; source: IrSource } | undefined {
  const inline = asRecord(field(part, "inlineData"));
  if (inline) {
    const mimeType = stringField(inline, "mimeType");
    return {
      mimeType,
      source: { kind: "base64", mediaType: mimeType, data: stringField(inline, "data") },
    };
  }
  const file = asRecord(field(part, "fileData"));
  if (file) {
    return {
      mimeType: stringField(file, "mimeType"),
      source: { kind: "url", url: stringField(file, "fileUri") },
    };
  }
  return undefined;
}

// Media types of common file names, for a URL that goes as `fileData` without one.
const TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  heic: "image/heic",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
};

/** The Gemini part of an IR image or document, or undefined when Gemini cannot point at it. */
export function mediaPart(part: IrImage | IrDocument): Record<string, unknown> | undefined {
  const { source } = part;
  if (source.kind === "base64") {
    return { inlineData: { mimeType: source.mediaType, data: source.data } };
  }
  if (source.kind === "text") {
    const title = part.type === "document" && part.title ? `${part.title}\n\n` : "";
    return { text: title + source.text };
  }
  if (source.kind === "url") {
    const path = source.url.split(/[?#]/)[0] ?? "";
    const extension = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
    const mimeType = TYPE_BY_EXTENSION[extension];
    return { fileData: { ...(mimeType ? { mimeType } : {}), fileUri: source.url } };
  }
  // A file id of another provider's store means nothing to Gemini.
  return undefined;
}

/** A tool result's content and error flag from a `functionResponse.response` object. */
export function resultOfResponse(response: unknown): Pick<IrToolResult, "content" | "isError"> {
  const object = asRecord(response) ?? {};
  const keys = Object.keys(object);
  // The reference: use "output" for the function's output and "error" for its error details.
  if (keys.length === 1 && typeof object.output === "string") {
    return { content: object.output ? [{ type: "text", text: object.output }] : [] };
  }
  if (keys.length === 1 && object.error !== undefined) {
    const text = typeof object.error === "string" ? object.error : JSON.stringify(object.error);
    return { content: [{ type: "text", text }], isError: true };
  }
  return { content: keys.length === 0 ? [] : [{ type: "text", text: JSON.stringify(object) }] };
}

/** The `functionResponse.response` of a tool result's text: `{output}`, or `{error}` for an error. */
export function responseOfResult(
  text: string,
  isError: boolean | undefined,
): Record<string, unknown> {
  return isError ? { error: text } : { output: text };
}

/**
 * The `thoughtSignature` that carries opaque state to a Gemini client: Gemini's own as it
 * is, another provider's wrapped (translate/opaque.ts).
 */
export function signatureOf(opaque: IrOpaque): string {
  return wrapOpaque(opaque, "gemini_signature");
}

/**
 * The opaque state a `thoughtSignature` carries: another provider's that tollgate wrapped
 * there, else Gemini's own (Gemini CLI's placeholder is no state: see contents_decode.ts).
 */
export function opaqueOfSignature(signature: string): IrOpaque {
  return unwrapOpaque(signature, "gemini_signature");
}

/** The arguments JSON text of a `functionCall.args` object (`{}` when absent). */
export function argumentsOf(args: unknown): string {
  return JSON.stringify(asRecord(args) ?? {});
}
