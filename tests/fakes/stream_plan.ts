/**
 * What a fake sends as an answer's body, beat by beat: frames (or slices of a whole body),
 * waits on gates, and an abort, laid out from the behaviour's faults; then played as the
 * body stream of a Response.
 */
import type { Behaviour, StreamPoint } from "./behaviour.ts";
import type { WireFrame } from "./reply.ts";
import type { Tally } from "./tally.ts";

/** One step of a body: bytes to send, a wait, or an abort of the connection. */
export type Beat = { send: string } | { wait: Promise<void> } | { abort: string };

/** The index of the first frame after `point` (see StreamPoint). */
export function pointIndex(frames: WireFrame[], point: StreamPoint): number {
  const closing = frames.findIndex((frame) => frame.kind === "closing");
  const end = closing < 0 ? frames.length : closing;
  if (point === "content") return end;
  const wanted = point === "preamble" ? 0 : point;
  let seen = 0;
  for (let index = 0; index < end; index++) {
    if (frames[index]!.kind !== "content") continue;
    if (seen === wanted) return index;
    if (++seen === wanted) return index + 1;
  }
  return end;
}

/** A frame at `index` whose data is a content frame's JSON cut in half. */
export function malformedFrame(frames: WireFrame[], index: number): string {
  const isContent = (frame: WireFrame) => frame.kind === "content";
  const source = frames.slice(index).find(isContent) ?? frames.slice(0, index).findLast(isContent);
  const text = source?.text ?? 'data: {"choices":[{"delta":{"content":"abcd"}}]}\n\n';
  const lines = text.trimEnd().split("\n").map((line) => {
    if (!line.startsWith("data: ")) return line;
    const data = line.slice("data: ".length);
    return `data: ${data.slice(0, Math.ceil(data.length / 2))}`;
  });
  return `${lines.join("\n")}\n\n`;
}

/** What a stream plan needs from the fake. */
export interface PlanContext {
  /** The protocol's error event, as the stream's frame number `sequence`. */
  errorFrame(sequence: number): string;
  /** Resolves when the fake's `release()` is called. */
  released(): Promise<void>;
  name: string;
}

/** The beats of a stream of `frames` under `behaviour`'s stream faults. */
export function planStream(frames: WireFrame[], behaviour: Behaviour, plan: PlanContext): Beat[] {
  const sends = (list: WireFrame[]): Beat[] => list.map((frame) => ({ send: frame.text }));
  const at = (point: StreamPoint) => pointIndex(frames, point);
  const { cut, stall, streamError, malformed, noTerminator, midStreamError } = behaviour;
  let beats: Beat[];
  if (cut) {
    const index = at(cut.after);
    beats = [...sends(frames.slice(0, index)), { abort: `cut after ${index} frames` }];
  } else if (stall) {
    const index = at(stall.after);
    const wait = stall.gate ?? plan.released();
    beats = [...sends(frames.slice(0, index)), { wait }, ...sends(frames.slice(index))];
  } else if (streamError) {
    const index = at(streamError.after ?? "preamble");
    beats = [...sends(frames.slice(0, index)), { send: plan.errorFrame(index) }];
  } else if (malformed) {
    const index = at(malformed.after);
    const rest = malformed.then === "continue" ? sends(frames.slice(index)) : [];
    beats = [...sends(frames.slice(0, index)), { send: malformedFrame(frames, index) }, ...rest];
  } else if (noTerminator) {
    beats = sends(frames.slice(0, at(noTerminator.after ?? "content")));
  } else if (midStreamError) {
    const kept = frames.slice(0, midStreamError.afterEvents);
    beats = [...sends(kept), { send: plan.errorFrame(kept.length) }];
  } else {
    beats = sends(frames);
  }
  return withLegacyFaults(beats, behaviour, plan.name);
}

/** `gate`/`gateAfter` and `breakAfter`, counted in frames sent. */
function withLegacyFaults(beats: Beat[], behaviour: Behaviour, name: string): Beat[] {
  const out = [...beats];
  /** The index of the beat that sends frame number `count` (from 0), or the end. */
  const afterSends = (count: number) => {
    let sent = 0;
    const index = out.findIndex((beat) => "send" in beat && sent++ === count);
    return index < 0 ? out.length : index;
  };
  const { breakAfter, gate } = behaviour;
  if (breakAfter !== undefined && afterSends(breakAfter) < out.length) {
    out.splice(afterSends(breakAfter));
    out.push({ abort: `fake upstream ${name} broke the stream (breakAfter)` });
  }
  if (gate) out.splice(afterSends(behaviour.gateAfter ?? 0), 0, { wait: gate });
  return out;
}

/** The beats of a whole (non-stream) body under `cut` or `stall`; undefined for neither. */
export function planWhole(body: string, behaviour: Behaviour, plan: PlanContext) {
  const half = Math.ceil(body.length / 2);
  const first = { send: body.slice(0, half) };
  if (behaviour.cut) return [first, { abort: "cut in the middle of the body" }];
  if (!behaviour.stall) return undefined;
  return [first, { wait: behaviour.stall.gate ?? plan.released() }, { send: body.slice(half) }];
}

/** Where a played body reports and registers itself. */
export interface PlayContext {
  tally: Tally;
  /** Open bodies; close() errors them. */
  open: Set<ReadableStreamDefaultController<Uint8Array>>;
  /** Resolves when the fake closes: waits end there. */
  closing: Promise<void>;
}

const encoder = new TextEncoder();

/** A body that plays `beats`: one send per pull, waits reported as `stall`, aborts as `cut`. */
export function playBeats(beats: Beat[], play: PlayContext): ReadableStream<Uint8Array> {
  let next = 0;
  let self: ReadableStreamDefaultController<Uint8Array> | undefined;
  const end = () => {
    if (self) play.open.delete(self);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      self = controller;
      play.open.add(controller);
    },
    async pull(controller) {
      for (let beat = beats[next++];; beat = beats[next++]) {
        if (!play.open.has(controller)) return; // cancelled, or errored by close()
        if (beat === undefined) {
          end();
          controller.close();
          return play.tally.add("done");
        }
        if ("send" in beat) return controller.enqueue(encoder.encode(beat.send));
        if ("abort" in beat) {
          end();
          controller.error(new Error(beat.abort));
          return play.tally.add("cut");
        }
        play.tally.add("stall");
        await Promise.race([beat.wait, play.closing]);
      }
    },
    cancel: end,
  });
}
