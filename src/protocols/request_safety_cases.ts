/**
 * Request bodies built to cost a validator as much as 8 MiB can (max_body_bytes): deep
 * nesting, wide objects, long arrays, millions of numbers, for request_safety_test.ts (each
 * must be answered 400 or pass).
 */
import type { ProtocolName } from "./types.ts";

/** One pathological body: its JSON text and what it is. */
export interface HostileBody {
  name: string;
  protocol: ProtocolName | "count_tokens";
  text: string;
}

const MIB = 1024 * 1024;

/** JSON nested `depth` arrays deep. */
function deepArray(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

/** JSON nested `depth` objects deep. */
function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** An object of `count` keys. */
function wideObject(count: number, value = "1"): string {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) keys.push(`"k${i}":${value}`);
  return `{${keys.join(",")}}`;
}

/** A JSON array of numbers, about `bytes` long. */
function numbers(bytes: number): string {
  const item = "123456.789,";
  return `[${item.repeat(Math.floor(bytes / item.length))}0]`;
}

/** `count` copies of `item` as a JSON array. */
function repeated(item: string, count: number): string {
  return `[${Array.from({ length: count }, () => item).join(",")}]`;
}

const USER = '{"role":"user","content":"hi"}';

/** The bodies, each under 8 MiB. */
export function hostileBodies(): HostileBody[] {
  const deep = 100_000;
  return [
    {
      name: "chat: content nested 100,000 arrays deep",
      protocol: "chat",
      text: `{"model":"m","messages":[{"role":"user","content":${deepArray(deep)}}]}`,
    },
    {
      name: "chat: a tool's parameters nested 100,000 objects deep",
      protocol: "chat",
      text: `{"model":"m","messages":[${USER}],"tools":[{"type":"function","function":` +
        `{"name":"f","parameters":${deepObject(deep)}}}]}`,
    },
    {
      name: "messages: model nested 100,000 arrays deep",
      protocol: "messages",
      text: `{"model":${deepArray(deep)},"max_tokens":1,"messages":[${USER}]}`,
    },
    {
      name: "responses: input nested 100,000 arrays deep",
      protocol: "responses",
      text: `{"model":"m","input":${deepArray(deep)}}`,
    },
    {
      name: "chat: stream_options nested 100,000 objects deep",
      protocol: "chat",
      text: `{"model":"m","messages":[${USER}],"stream_options":${deepObject(deep)}}`,
    },
    {
      name: "count_tokens: system nested 100,000 arrays deep",
      protocol: "count_tokens",
      text: `{"model":"m","messages":[${USER}],"system":${deepArray(deep)}}`,
    },
    {
      name: "chat: a body of 200,000 keys",
      protocol: "chat",
      text: `{"model":"m","messages":[${USER}],${wideObject(200_000).slice(1)}`,
    },
    {
      name: "messages: a message of 200,000 keys",
      protocol: "messages",
      text: `{"model":"m","max_tokens":1,"messages":[{"role":"user",${
        wideObject(200_000).slice(1)
      }]}`,
    },
    {
      name: "chat: stream_options of 200,000 keys",
      protocol: "chat",
      text: `{"model":"m","messages":[${USER}],"stream_options":${wideObject(200_000)}}`,
    },
    {
      name: "chat: messages of 8 MB of numbers",
      protocol: "chat",
      text: `{"model":"m","messages":${numbers(8 * MIB - 64)}}`,
    },
    {
      name: "responses: input of 8 MB of numbers",
      protocol: "responses",
      text: `{"model":"m","input":${numbers(8 * MIB - 64)}}`,
    },
    {
      name: "messages: content of 8 MB of numbers",
      protocol: "messages",
      text: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":${
        numbers(8 * MIB - 128)
      }}]}`,
    },
    {
      name: "chat: a body that is 8 MB of numbers",
      protocol: "chat",
      text: numbers(8 * MIB),
    },
    {
      name: "chat: 100,000 messages",
      protocol: "chat",
      text: `{"model":"m","messages":${repeated(USER, 100_000)}}`,
    },
    {
      name: "messages: 100,000 messages, the last without a role",
      protocol: "messages",
      text: `{"model":"m","max_tokens":1,"messages":${
        repeated(USER, 99_999).slice(0, -1)
      },{"content":"x"}]}`,
    },
    {
      name: "chat: 8 MB of the smallest messages (~640,000)",
      protocol: "chat",
      text: `{"model":"m","messages":${repeated('{"role":"u"}', Math.floor((8 * MIB - 64) / 13))}}`,
    },
  ];
}
