/**
 * CORS for browser apps: a preflight from an origin of `[server] cors_origins` is answered
 * with the headers the SDKs send, its calls carry the CORS headers, and any other origin
 * (or a gateway with none configured) gets none; a path served with another method is 405
 * with `Allow`.
 */
import assert from "node:assert/strict";
import { channel, configWith } from "./harness.ts";
import { chatBody, withScope } from "./support.ts";

const APP = "https://chat.example";
const ECHO = channel({ name: "echo", protocol: "echo", models: ["echo"] });

/** A browser's preflight of a POST with the OpenAI SDK's headers. */
function preflight(url: string, origin: string) {
  return fetch(url, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers":
        "authorization,content-type,x-stainless-os,x-stainless-retry-count",
    },
  });
}

Deno.test("cors: an allowed origin's preflight and call get the CORS headers; others none", () =>
  withScope(async (s) => {
    const gateway = await s.gateway(
      `[server]\ncors_origins = ["${APP}"]\n${configWith(ECHO)}`,
    );
    const { secret } = await gateway.createKey();
    const url = `${gateway.url}/v1/chat/completions`;
    const allowed = await preflight(url, APP);
    await allowed.body?.cancel();
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers.get("access-control-allow-origin"), APP);
    assert.match(allowed.headers.get("access-control-allow-methods")!, /POST/);
    assert.match(allowed.headers.get("access-control-allow-headers")!, /x-stainless-os/);
    assert.match(allowed.headers.get("access-control-allow-headers")!, /authorization/);

    const call = await gateway.post("/v1/chat/completions", secret, chatBody("echo", "hi"), {
      origin: APP,
    });
    assert.equal(call.status, 200);
    assert.equal(call.headers.get("access-control-allow-origin"), APP);
    assert.match(call.headers.get("access-control-expose-headers")!, /x-request-id/);
    await call.body?.cancel();

    const other = await preflight(url, "https://evil.example");
    await other.body?.cancel();
    assert.equal(other.headers.get("access-control-allow-origin"), null);
    const otherCall = await gateway.post("/v1/chat/completions", secret, chatBody("echo"), {
      origin: "https://evil.example",
    });
    assert.equal(otherCall.headers.get("access-control-allow-origin"), null);
    await otherCall.body?.cancel();
  }));

Deno.test("cors: none by default, and a path with another method is 405 with Allow", () =>
  withScope(async (s) => {
    const gateway = await s.gateway(configWith(ECHO));
    const refused = await preflight(`${gateway.url}/v1/chat/completions`, APP);
    assert.equal(refused.status, 405);
    assert.equal(refused.headers.get("allow"), "POST");
    assert.equal(refused.headers.get("access-control-allow-origin"), null);
    const body = await refused.json();
    assert.equal(body.error.code, "method_not_allowed");
    const get = await fetch(`${gateway.url}/v1/messages`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST");
    assert.equal((await get.json()).type, "error", "the messages shape under /v1/messages");
    const post = await fetch(`${gateway.url}/v1/models`, { method: "POST" });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    await post.body?.cancel();
  }));

Deno.test('cors: cors_origins = ["*"] lets any origin call', () =>
  withScope(async (s) => {
    const gateway = await s.gateway(`[server]\ncors_origins = ["*"]\n${configWith(ECHO)}`);
    const answer = await preflight(`${gateway.url}/v1/responses`, "http://localhost:5173");
    await answer.body?.cancel();
    assert.equal(answer.status, 204);
    assert.equal(answer.headers.get("access-control-allow-origin"), "*");
  }));
