/** The Hono environment of tollgate's app: what each request carries on its context. */
import type { Principal } from "./auth/principal.ts";
import type { ConfigSnapshot } from "./config/store.ts";
import type { ErrorShape } from "./errors.ts";
import type { RequestRecord } from "./observability/record.ts";

/** Per-request values set by middleware and read by routes. */
export interface AppVariables {
  requestId: string;
  /** The error shape of this path: messages under /v1/messages, else OpenAI. */
  shape: ErrorShape;
  /** The config this request started with; a reload mid-request does not change it. */
  snapshot: ConfigSnapshot;
  principal: Principal;
  /** What this request did, for the request log and the metrics. */
  record: RequestRecord;
  /** The `x-ratelimit-*` headers of an admitted request of a limited key, for every answer. */
  limitHeaders?: Readonly<Record<string, string>>;
  /** Whether the answer was built with every answer's headers (answerHeaders). */
  stamped?: boolean;
}

/** What the server passes with each request. */
export interface AppBindings {
  /** The TCP peer's address. */
  remoteAddr?: string;
}

/** The app's Hono environment. */
export interface AppEnv {
  Variables: AppVariables;
  Bindings: AppBindings;
}
