/**
 * Token counting within a budget of work, whatever the text. The text is cut into chunks
 * of a few hundred characters, each cut where it changes no piece of the split (the
 * split's `cleanCut`: o200k_split.ts), and the chunks are counted in an order whose every
 * prefix is spread evenly over the text.
 * When the budget lasts for all of them, the sum is the exact count; when it runs out, the
 * chunks counted are an even sample, and their tokens per character scale to the whole
 * text. An estimate is lowered by a margin, so that it does not count more than the exact
 * count of ordinary text: a context-window check must never refuse a prompt that fits.
 */
import type { BpeRanks } from "./bpe.ts";
import { PieceCounter, type Split } from "./piece_count.ts";

/** A text's count and what it cost. */
export interface TokenTally {
  tokens: number;
  /** False when the count is an estimate (or a piece was merged a window at a time). */
  exact: boolean;
  /** Units of work spent: characters split into pieces, and the merges' work. */
  work: number;
}

/** The bounds a counter works within. */
export interface CountBounds {
  /** Units of work after which no further chunk is counted. */
  work: number;
  /**
   * Characters up to which a text is counted whole, exact whatever its cuts: few enough
   * that the costliest kind (~75 units of work a character) stays within `work`.
   */
  wholeChars: number;
  /** Characters of a chunk (more where the next cut that changes no piece is further). */
  chunkChars: number;
  /** Bytes of a piece merged at once (pieces longer are merged a window at a time). */
  mergeBytes: number;
  /** The fraction an estimate is lowered by. */
  margin: number;
}

/**
 * Bounds that keep a count of any text well within design.md's bound on a request's CPU
 * (bench/README.md measures them).
 */
export const DEFAULT_BOUNDS: CountBounds = {
  work: 750_000,
  wholeChars: 8_192,
  chunkChars: 256,
  // 12 x 341: a multiple of every UTF-8 character's length (piece_count.ts).
  mergeBytes: 4_092,
  margin: 0.01,
};

/** The most a count is lowered for its chunks' rough ends (cuts that may split a piece). */
const ROUGH_SHARE = 0.005;

/** How far past a chunk's nominal end a cut that changes no piece is looked for. */
const CUT_SEARCH = 128;

/** A token counter whose every call stays within its bounds. */
export interface BoundedCounter {
  /** The tokens of `text`, counted or estimated. */
  tally(text: string): TokenTally;
  /**
   * Where the longest prefix of `text` within `limit` tokens ends (at a piece's end):
   * counted from the start while the work lasts, then placed by the tokens per character
   * counted so far.
   */
  fit(text: string, limit: number): number;
}

/** A counter over `ranks` and `split` whose every count stays within `bounds`. */
export function boundedCounter(
  ranks: BpeRanks,
  split: Split,
  bounds: CountBounds = DEFAULT_BOUNDS,
): BoundedCounter {
  const pieces = new PieceCounter(ranks, split, bounds.mergeBytes);
  const isClean = split.cleanCut ?? ((text: string, at: number) => at <= 0 || at >= text.length);
  /** Characters looked at for a clean cut since this counter was built: work too. */
  let searched = 0;
  const spent = () => pieces.work + searched;
  /** Where a chunk that would end at `at` ends: at the first clean cut from there, if near. */
  const cut = (text: string, at: number) => {
    const limit = Math.min(text.length, at + CUT_SEARCH);
    for (let i = at; i < limit; i++, searched++) {
      if (isClean(text, i)) return i;
    }
    return Math.min(at, text.length);
  };
  const chunkOf = (text: string, chunk: number, chunks: number) =>
    chunks === 1 ? [0, text.length] as const : [
      chunk === 0 ? 0 : cut(text, chunk * bounds.chunkChars),
      cut(text, (chunk + 1) * bounds.chunkChars),
    ] as const;
  return {
    tally(text) {
      pieces.forget();
      const start = spent();
      const windowed = pieces.windowed;
      const chunks = text.length <= bounds.wholeChars
        ? 1
        : Math.ceil(text.length / bounds.chunkChars);
      let tokens = 0;
      let counted = 0;
      let countedChars = 0;
      // Chunk ends where no clean cut was near: each may have split a piece in two.
      let rough = 0;
      for (const chunk of spreadOrder(chunks)) {
        if (counted > 0 && spent() - start >= bounds.work) break;
        const [from, to] = chunkOf(text, chunk, chunks);
        rough += (isClean(text, from) ? 0 : 1) + (isClean(text, to) ? 0 : 1);
        tokens += pieces.count(text.slice(from, to));
        countedChars += to - from;
        counted++;
      }
      const work = spent() - start;
      const exact = rough === 0 && pieces.windowed === windowed;
      if (counted === chunks && exact) return { tokens, exact, work };
      // A piece split in two counts a token more: one off for each rough end, so that the
      // count of ordinary text (rough ends are rare in it) does not pass the exact one; at
      // most half a per cent off, for a text with no clean cut at all is cut anywhere, as
      // its pieces are (a run of one letter). What was counted stands; the rest is
      // estimated, and lowered by the margin.
      const sure = tokens - Math.min(rough, Math.floor(tokens * ROUGH_SHARE));
      const rest = (text.length - countedChars) * (sure / countedChars) * (1 - bounds.margin);
      return { tokens: sure + Math.floor(rest), exact: false, work };
    },
    fit(text, limit) {
      pieces.forget();
      const start = spent();
      let tokens = 0;
      let to = 0;
      const chunks = text.length <= bounds.wholeChars ? 1 : Infinity;
      for (let chunk = 0; to < text.length; chunk++) {
        if (spent() - start >= bounds.work) {
          const perChar = tokens / Math.max(1, to);
          return Math.min(text.length, to + Math.floor((limit - tokens) / Math.max(perChar, 1e-9)));
        }
        const [from, end] = chunkOf(text, chunk, chunks);
        const fitted = pieces.fit(text.slice(from, end), limit - tokens);
        if (from + fitted.chars < end) return from + fitted.chars;
        tokens += fitted.tokens;
        to = end;
      }
      return text.length;
    },
  };
}

/**
 * 0 to `count - 1` in bit-reversed order (0, half, a quarter, three quarters, ...): every
 * prefix of it is spread evenly over the range.
 */
function* spreadOrder(count: number): Generator<number> {
  let bits = 0;
  while (1 << bits < count) bits++;
  for (let i = 0; i < 1 << bits; i++) {
    let reversed = 0;
    for (let bit = 0; bit < bits; bit++) reversed |= ((i >> bit) & 1) << (bits - 1 - bit);
    if (reversed < count) yield reversed;
  }
}
