/**
 * Content blocks of the messages protocol (Anthropic `ContentBlockParam`) <-> IR parts:
 * image and document sources, tool ids, `cache_control` markers, and tool `input`.
 */
import { asRecord, fields, listOf, stringOr } from "../json_read.ts";
import type { IrDocument, IrImage, IrSource } from "../../translate/ir.ts";

/** `cacheControl` of a block that carries a `cache_control` marker. */
export function cacheOf(
  block: Record<string, unknown>,
): { cacheControl?: Record<string, unknown> } {
  const marker = asRecord(block.cache_control);
  return marker ? { cacheControl: marker } : {};
}

/** The `cache_control` field for an IR part that carries a marker. */
export function cacheField(part: { cacheControl?: Record<string, unknown> }) {
  return part.cacheControl ? { cache_control: part.cacheControl } : {};
}

/**
 * The IR source of an image or document `source`: base64, url, text, file, or a
 * `content` source (the text of its text blocks; its images are the caller's to keep).
 */
export function sourceOf(value: unknown): IrSource | undefined {
  const source = fields(value);
  switch (source.type) {
    case "base64":
      return {
        kind: "base64",
        mediaType: stringOr(source.media_type),
        data: stringOr(source.data),
      };
    case "url":
      return { kind: "url", url: stringOr(source.url) };
    case "text":
      return { kind: "text", text: stringOr(source.data) };
    case "file":
      return { kind: "file", fileId: stringOr(source.file_id) };
    case "content": {
      if (typeof source.content === "string") return { kind: "text", text: source.content };
      const texts = listOf(source.content).map(fields).filter((block) => block.type === "text");
      return { kind: "text", text: texts.map((block) => stringOr(block.text)).join("\n") };
    }
  }
  return undefined;
}

/** An `image` block for an IR image, or undefined when messages cannot point at it. */
export function encodeImage(image: IrImage): Record<string, unknown> | undefined {
  const { source } = image;
  if (source.kind === "base64") {
    return {
      type: "image",
      source: { type: "base64", media_type: source.mediaType, data: source.data },
      ...cacheField(image),
    };
  }
  if (source.kind === "url") {
    return { type: "image", source: { type: "url", url: source.url }, ...cacheField(image) };
  }
  // A file id belongs to another provider's file store (Anthropic's needs a beta).
  return undefined;
}

/** A `document` block for an IR document; text files travel as a plain-text source. */
export function encodeDocument(document: IrDocument): Record<string, unknown> | undefined {
  const { source } = document;
  const titled = document.title ?? document.filename;
  const common = { ...(titled ? { title: titled } : {}), ...cacheField(document) };
  if (source.kind === "text") {
    return {
      type: "document",
      source: { type: "text", media_type: "text/plain", data: source.text },
      ...common,
    };
  }
  if (source.kind === "url") {
    return { type: "document", source: { type: "url", url: source.url }, ...common };
  }
  if (source.kind !== "base64") return undefined;
  if (source.mediaType.startsWith("text/")) {
    // The API takes base64 only for PDFs (`Base64PDFSource`); a text file goes as its text.
    const text = new TextDecoder().decode(
      Uint8Array.from(atob(source.data), (c) => c.charCodeAt(0)),
    );
    return {
      type: "document",
      source: { type: "text", media_type: "text/plain", data: text },
      ...common,
    };
  }
  return {
    type: "document",
    source: { type: "base64", media_type: source.mediaType, data: source.data },
    ...common,
  };
}

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * A tool id Anthropic accepts (`^[a-zA-Z0-9_-]+$`): ids from other providers may hold
 * other characters (`call.1`, `functions.get:0`). The same id always maps the same way,
 * so a call and its result still match; a hash of the original keeps two ids that
 * differ only in such characters apart.
 */
export function toolId(id: string): string {
  if (TOOL_ID.test(id)) return id;
  return `${id.replace(/[^a-zA-Z0-9_-]/g, "_")}_${fnv1a(id)}`;
}

// FNV-1a (32 bits) in hex: short, deterministic, and enough to tell ids of one request apart.
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
