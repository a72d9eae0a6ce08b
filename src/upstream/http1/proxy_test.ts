import assert from "node:assert/strict";
import { proxyAuthorization, proxyFor, proxySettings } from "./proxy.ts";

const settings = (env: Record<string, string>) => proxySettings((name) => env[name]);

Deno.test("proxy: HTTPS_PROXY and HTTP_PROXY, in either case, per scheme", () => {
  const both = settings({ HTTPS_PROXY: "http://p:3128", http_proxy: "q:8080" });
  assert.equal(proxyFor(both, new URL("https://api.openai.com/v1"))?.host, "p:3128");
  assert.equal(proxyFor(both, new URL("http://10.0.0.5:8000/v1"))?.host, "q:8080");
  assert.equal(proxyFor(settings({}), new URL("https://api.openai.com/v1")), undefined);
  assert.throws(() => settings({ HTTPS_PROXY: "https://p:3128" }), /must be an http:\/\/ proxy/);
});

Deno.test("proxy: NO_PROXY names hosts, their subdomains and ports reached directly", () => {
  const s = settings({
    HTTPS_PROXY: "http://p:3128",
    HTTP_PROXY: "http://p:3128",
    NO_PROXY: " internal.example , .corp.test,localhost:8443,[::1], 10.1.2.3",
  });
  const direct = (url: string) => proxyFor(s, new URL(url)) === undefined;
  assert.equal(direct("https://internal.example/v1"), true);
  assert.equal(direct("https://llm.internal.example/v1"), true);
  assert.equal(direct("https://notinternal.example/v1"), false);
  assert.equal(direct("https://a.corp.test/v1"), true);
  assert.equal(direct("https://localhost:8443/v1"), true);
  assert.equal(direct("https://localhost/v1"), false, "another port goes through the proxy");
  assert.equal(direct("http://[::1]:8080/v1"), true);
  assert.equal(direct("http://10.1.2.3/v1"), true);
  assert.equal(direct("https://api.anthropic.com/v1"), false);
  assert.equal(
    proxyFor(settings({ HTTPS_PROXY: "p:1", NO_PROXY: "*" }), new URL("https://a")),
    undefined,
  );
});

Deno.test("proxy: credentials in the proxy URL become Basic Proxy-Authorization", () => {
  assert.equal(proxyAuthorization(new URL("http://user:p%40ss@p:3128")), "Basic dXNlcjpwQHNz");
  assert.equal(proxyAuthorization(new URL("http://p:3128")), undefined);
});
