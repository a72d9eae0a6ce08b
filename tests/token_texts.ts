/**
 * Texts for token counting: the kinds that cost a BPE counter most (runs its split
 * pattern does not cut, pieces of a character or two, scripts past ASCII), made from a
 * seed, and ordinary texts (prose, code, JSON) read from the packages this checkout has
 * installed, so that a test or a bench run sees the same bytes each time.
 */

/** A generator of numbers in [0, 1) from `seed` (mulberry32): the same texts each run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `length` characters drawn from `alphabet` (code points) by `next`. */
function drawn(alphabet: string, length: number, next: () => number): string {
  const points = [...alphabet];
  const out: string[] = [];
  for (let i = 0; i < length; i++) out.push(points[Math.floor(next() * points.length)]!);
  return out.join("");
}

/** `text` repeated and cut to `bytes` UTF-8 bytes (at a character's end). */
function sized(text: string, bytes: number): string {
  const once = new TextEncoder().encode(text).length;
  const encoded = new TextEncoder().encode(text.repeat(Math.ceil(bytes / once))).subarray(0, bytes);
  return new TextDecoder().decode(encoded).replace(/\uFFFD+$/, "");
}

const WORDS_OF_SCRIPTS = [
  "日本語の文章",
  "中文的句子",
  "한국어문장",
  "Ελληνικά",
  "Русский",
  "العربية",
  "हिन्दी",
  "ภาษาไทย",
  "עברית",
  "Tiếng",
  "English",
];

const EMOJI = ["😀", "👍🏽", "👨‍👩‍👧", "🇫🇷", "❤️", "🧑🏿‍💻", "🎉", "🐍"];

/** Characters of the random block a generated text repeats. */
const BLOCK = 65_536;

/**
 * Texts of `bytes` UTF-8 bytes each (a character's bytes less, at most), of every kind that
 * is hard for a counter; the random ones repeat a block of 64 Ki characters.
 */
export function pathologicalTexts(bytes: number, seed = 1): Record<string, string> {
  const next = random(seed);
  const draw = (alphabet: string) => sized(drawn(alphabet, BLOCK, next), bytes);
  let binary = "";
  for (let i = 0; i < BLOCK; i++) binary += String.fromCharCode(Math.floor(next() * 256));
  const pick = (list: string[]) => list[Math.floor(next() * list.length)]!;
  return {
    "one letter": sized("x", bytes),
    "base64": sized(btoa(binary), bytes),
    "hex": draw("0123456789abcdef"),
    "hex letters": draw("abcdef"),
    "lower-case letters": draw("abcdefghijklmnopqrstuvwxyz"),
    "minified JS": sized(minifiedJs(), bytes),
    "minified JSON": sized(JSON.stringify(ordinaryJson()), bytes),
    "spaces": sized(" ", bytes - 1) + "x",
    "spaces and tabs": draw(" \t"),
    "blank lines": sized("\n", bytes),
    "digits": draw("0123456789"),
    "punctuation": draw("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "mixed scripts": sized(
      Array.from({ length: 4096 }, () => pick(WORDS_OF_SCRIPTS)).join(""),
      bytes,
    ),
    "combining marks": sized("a" + "\u0301".repeat(1000), bytes),
    "CJK": draw("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年"),
    "emoji": sized(Array.from({ length: 4096 }, () => pick(EMOJI)).join(""), bytes),
  };
}

const MODULES = new URL("../node_modules/", import.meta.url);

/** A package's file, as installed. */
function packageFile(path: string): string {
  return Deno.readTextFileSync(new URL(path, MODULES));
}

/** A minified script: web-streams-polyfill's, which the openai SDK's dependencies install. */
function minifiedJs(): string {
  const dir = new URL(".deno/", MODULES);
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.name.startsWith("web-streams-polyfill@")) continue;
    return Deno.readTextFileSync(
      new URL(`${entry.name}/node_modules/web-streams-polyfill/dist/polyfill.min.js`, dir),
    );
  }
  throw new Error("Reading a minified script failed: web-streams-polyfill is not installed.");
}

/** JSON data: the installed packages' manifests. */
function ordinaryJson(): unknown[] {
  const manifests: unknown[] = [];
  for (const entry of Deno.readDirSync(MODULES)) {
    if (entry.name.startsWith(".")) continue;
    const names = entry.name.startsWith("@")
      ? [...Deno.readDirSync(new URL(entry.name, MODULES))].map((e) => `${entry.name}/${e.name}`)
      : [entry.name];
    for (const name of names) {
      try {
        manifests.push(JSON.parse(packageFile(`${name}/package.json`)));
      } catch {
        // A folder that is no package (node_modules/.bin).
      }
    }
  }
  return manifests;
}

/** Ordinary texts, each several hundred KB: prose (READMEs), code, JSON, and the three mixed. */
export function ordinaryTexts(): { prose: string; code: string; json: string; mixed: string } {
  const prose = [
    "openai/README.md",
    "@anthropic-ai/sdk/README.md",
    "fast-check/README.md",
    "kysely/README.md",
    "hono/README.md",
    "pg/README.md",
    "smol-toml/README.md",
    "prom-client/README.md",
    "gpt-tokenizer/README.md",
    "openai/CHANGELOG.md",
  ].map(packageFile).join("\n\n");
  const code = [
    "openai/client.js",
    "openai/core/streaming.js",
    "openai/resources/chat/completions/completions.d.ts",
    "openai/resources/responses/responses.d.ts",
    "@anthropic-ai/sdk/resources/messages/messages.d.ts",
    "kysely/dist/query-builder/select-query-builder.d.ts",
    "hono/dist/hono-base.js",
  ].map(packageFile).join("\n\n");
  // JSON as tools return it: records of the lines of those files, and the manifests.
  const lines = (text: string, file: string) =>
    text.split("\n").slice(0, 3_000).map((line, i) => ({ file, line: i + 1, text: line }));
  const json = JSON.stringify(
    {
      files: [...lines(prose, "README.md"), ...lines(code, "client.js")],
      packages: ordinaryJson(),
    },
    null,
    2,
  );
  const parts = [prose, code, json].map((text) => text.match(/[^]{1,5000}/g)!);
  const mixed: string[] = [];
  for (let i = 0; i < Math.max(...parts.map((p) => p.length)); i++) {
    for (const p of parts) if (p[i] !== undefined) mixed.push(p[i]!);
  }
  return { prose, code, json, mixed: mixed.join("") };
}
