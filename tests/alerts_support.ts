/**
 * A webhook receiver for the alert tests: a real HTTP server on 127.0.0.1 that checks every
 * delivery's signature with the `standardwebhooks` package (an implementation of the spec
 * independent of tollgate's), and answers as told.
 */
import { Webhook } from "standardwebhooks";

/** A secret in the Standard Webhooks form (whsec_ and 32 bytes of base64). */
export const WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/** One delivery the receiver got. */
export interface Received {
  id: string;
  timestamp: string;
  /** The payload, verified (it threw otherwise). */
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  /** Whether the signature checked out. */
  verified: boolean;
}

/** A receiver on `port` (0: any); `answer` gives each delivery's status, in order. */
export function startReceiver(
  options: { port?: number; answer?: (n: number) => number; secret?: string } = {},
) {
  const verifier = new Webhook(options.secret ?? WEBHOOK_SECRET);
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    onListen: () => {},
  }, async (request) => {
    const body = await request.text();
    const headers = Object.fromEntries(request.headers);
    let verified = true;
    let payload: Received["payload"];
    try {
      payload = verifier.verify(body, headers) as Received["payload"];
    } catch {
      verified = false;
      payload = JSON.parse(body);
    }
    received.push({
      id: headers["webhook-id"] ?? "",
      timestamp: headers["webhook-timestamp"] ?? "",
      payload,
      verified,
    });
    for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
    const status = verified ? (options.answer?.(received.length) ?? 204) : 400;
    return new Response(status === 204 ? null : `answer ${received.length}`, { status });
  });
  const { port } = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    /** Resolves once `count` deliveries came. */
    receivedCount(count: number): Promise<void> {
      if (received.length >= count) return Promise.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      waiters.push({ count, resolve });
      return promise;
    },
    async close() {
      await server.shutdown();
    },
  };
}

/** The `[alerts]` of a test config with one standard webhook to `url`. */
export function alertsSection(url: string, extra = ""): string {
  return `[alerts]\n${extra}\n[[alerts.webhooks]]\nname = "ops"\nurl = "${url}"\n` +
    `secret = "${WEBHOOK_SECRET}"\n`;
}
