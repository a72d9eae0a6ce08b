/**
 * The HTTP/1.1 client over TLS and through proxies: a TLS server with a certificate of its
 * own, a CONNECT proxy, and the connect timeout of what never answers.
 */
import assert from "node:assert/strict";
import { answer, answerAll, scripted } from "../../../tests/fakes/scripted_upstream.ts";
import {
  assertConnectTimeout,
  post,
  settled,
  tlsUpstream,
  tunnellingProxy,
  withClient,
} from "./test_support.ts";

Deno.test("http1: https to an upstream whose certificate is trusted, refused otherwise", async () => {
  const upstream = await tlsUpstream();
  const url = `https://localhost:${upstream.port}/v1/messages`;
  try {
    await withClient(async (client) => {
      const response = await post(client, url, '{"hi":1}');
      assert.equal(response.status, 200);
      assert.deepEqual(JSON.parse(await response.text()), { echoed: { hi: 1 } });
    }, { caCerts: [upstream.ca] });
    await withClient(async (client) => {
      await assert.rejects(post(client, url));
    });
  } finally {
    await upstream.stop();
  }
});

Deno.test("http1: https through HTTPS_PROXY goes in a CONNECT tunnel, with the proxy's credentials", async () => {
  const upstream = await tlsUpstream();
  const proxy = tunnellingProxy();
  const proxyUrl = proxy.url.replace("http://", "http://user:secret@");
  try {
    await withClient(async (client) => {
      for (const n of [1, 2]) {
        const response = await post(
          client,
          `https://localhost:${upstream.port}/v1/x`,
          `{"n":${n}}`,
        );
        assert.deepEqual(JSON.parse(await response.text()), { echoed: { n } });
      }
    }, { caCerts: [upstream.ca], env: { HTTPS_PROXY: proxyUrl } });
    assert.equal(proxy.heads.length, 1, "the tunnel is kept alive for the second request");
    assert.match(proxy.heads[0]!, new RegExp(`^CONNECT localhost:${upstream.port} HTTP/1.1\r\n`));
    assert.match(proxy.heads[0]!, /\r\nproxy-authorization: Basic dXNlcjpzZWNyZXQ=/);
  } finally {
    await proxy.close();
    await upstream.stop();
  }
});

Deno.test("http1: http through HTTP_PROXY in absolute form, and NO_PROXY hosts directly", async () => {
  const proxy = scripted(async (peer) => {
    for (let request = await peer.request(); request; request = await peer.request()) {
      await peer.write(answer(JSON.stringify(request.head.split("\r\n")[0])));
    }
  });
  const direct = scripted(answerAll);
  try {
    await withClient(async (client) => {
      const proxied = await post(client, "http://llm.internal:8000/v1/chat/completions?x=1");
      assert.equal(
        JSON.parse(await proxied.text()),
        "POST http://llm.internal:8000/v1/chat/completions?x=1 HTTP/1.1",
      );
      assert.equal(await (await post(client, direct.url)).text(), '{"n":1}');
    }, {
      env: { HTTP_PROXY: new URL(proxy.url).host, NO_PROXY: "127.0.0.1" },
    });
    assert.equal(proxy.accepted(), 1);
    assert.equal(direct.accepted(), 1);
  } finally {
    await proxy.close();
    await direct.close();
  }
});

Deno.test("http1: a proxy that never answers the CONNECT is a connect timeout, and its socket closes", async () => {
  const closed = Promise.withResolvers<void>();
  const proxy = scripted(async (peer) => {
    await peer.request();
    assert.equal(await peer.request(), undefined);
    closed.resolve();
  });
  await withClient(async (client) => {
    await assertConnectTimeout(client, "https://llm.example:443/v1/messages");
    await settled(closed.promise);
  }, { env: { HTTPS_PROXY: proxy.url.replace(/\/v1\/.*$/, "") } });
  await proxy.close();
});

Deno.test("http1: an abort while the proxy opens the tunnel ends the request; a tunnel opened later is not used", async () => {
  const upstream = await tlsUpstream();
  const connectSeen = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const proxy = tunnellingProxy(() => {
    connectSeen.resolve();
    return gate.promise;
  });
  try {
    await withClient(async (client) => {
      const controller = new AbortController();
      const posting = post(
        client,
        `https://localhost:${upstream.port}/v1/x`,
        "{}",
        controller.signal,
      );
      await connectSeen.promise;
      const reason = new Error("the client went away");
      controller.abort(reason);
      gate.resolve();
      await assert.rejects(posting, (error) => error === reason);
    }, { caCerts: [upstream.ca], env: { HTTPS_PROXY: proxy.url } });
  } finally {
    gate.resolve();
    await proxy.close();
    await upstream.stop();
  }
  assert.equal(upstream.served.count, 0, "the request never went out");
});

Deno.test("http1: a TLS handshake the upstream never answers is a connect timeout", async () => {
  const done = Promise.withResolvers<void>();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = (async () => {
    const conn = await listener.accept();
    // The client's hello, then silence until the test is over. (Deno keeps a socket whose
    // handshake was cut short open until its peer closes it: only the wait can end here.)
    await conn.read(new Uint8Array(65_536)).catch(() => null);
    await done.promise;
    conn.close();
  })();
  await withClient(async (client) => {
    await assertConnectTimeout(
      client,
      `https://localhost:${(listener.addr as Deno.NetAddr).port}/v1/messages`,
    );
  });
  done.resolve();
  listener.close();
  await serving;
});
