/**
 * One request's page (`/admin/requests/{id}`): what was asked (entry point, model, stream),
 * who asked (key, account, or a refused key's prefix and the client's address), how it
 * ended and why (the reason in full), its timings, tokens and cost, and each upstream
 * attempt (channel, model, outcome, status, reason, time to first byte and first content,
 * tokens, cost). A refusal has no attempts: it never reached routing.
 */
import type { FC } from "hono/jsx";
import type { AttemptJson, RequestDetailJson } from "../admin/requests.ts";
import type { Principal } from "../auth/principal.ts";
import { AccountLink, ChannelLink, KeyLink, ModelLink, Time, Usd } from "./figures.tsx";
import { count, duration } from "./format.ts";
import { Layout } from "./layout.tsx";
import { badgeOf } from "./request_rows.tsx";

/** What a request's page shows. */
export interface RequestPageProps {
  caller: Principal;
  request: RequestDetailJson;
  /** The key's name, when it has one. */
  keyName?: string | null;
}

/** A request's page. */
export const RequestPage: FC<RequestPageProps> = ({ caller, request, keyName }) => {
  const refused = request.status === "refused";
  return (
    <Layout title={request.request_id} caller={caller} page="requests">
      <p class="crumbs">
        <a href="/admin/requests">Requests</a> /
      </p>
      <h1 data-request={request.request_id}>
        <code>{request.request_id}</code>{" "}
        <span class={`badge ${badgeOf(request.status)}`} data-status>{request.status}</span>
      </h1>
      {request.reason && (
        <section class="panel" aria-label="Reason">
          <p data-reason class="reason-full">
            {request.code !== null && <code>{`${request.http_status} ${request.code}`}</code>}
            {request.code !== null && ": "}
            {request.reason}
          </p>
        </section>
      )}
      <section class="panel" aria-label="Details">
        <dl class="fields">
          <dt>Time</dt>
          <dd>
            <Time at={request.time} />
          </dd>
          <dt>Asked</dt>
          <dd data-asked>
            {request.entry_point ?? "no entry point"}
            {request.method !== null && (
              <>
                {" "}
                <code>{`${request.method} ${request.path}`}</code>
              </>
            )}
            {request.stream && " · stream"}
          </dd>
          <dt>Model</dt>
          <dd>
            {request.model === null ? "–" : <ModelLink name={request.model} />}
            {request.served_model && request.served_model !== request.model && (
              <>
                {" → served by "}
                <ModelLink name={request.served_model} />
              </>
            )}
            {request.upstream_model && (
              <small class="muted sub">{`upstream: ${request.upstream_model}`}</small>
            )}
          </dd>
          <dt>Key</dt>
          <dd data-key>
            {request.key_id !== null
              ? <KeyLink id={request.key_id} name={keyName} />
              : request.key_prefix
              ? <code title="a key that is not known">{request.key_prefix}</code>
              : "none"}
            {request.account !== null && (
              <>
                {" of "}
                <AccountLink name={request.account} />
              </>
            )}
          </dd>
          {request.client_address !== null && (
            <>
              <dt>Client address</dt>
              <dd>
                <code>{request.client_address || "unknown"}</code>
              </dd>
            </>
          )}
          {request.count > 1 && (
            <>
              <dt>Refusals counted</dt>
              <dd data-count>{count(request.count)} from this address in this minute</dd>
            </>
          )}
          <dt>Channel</dt>
          <dd>
            <ChannelLink name={request.channel} />
          </dd>
          <dt>Duration</dt>
          <dd>{duration(request.duration_ms)}</dd>
          {!refused && (
            <>
              <dt>Tokens</dt>
              <dd data-tokens>
                {count(request.input_tokens)} in ({count(request.cached_tokens)} cached,{" "}
                {count(request.cache_write_tokens)} cache writes) / {count(request.output_tokens)}
                {" "}
                out{request.estimated && " (estimated)"}
              </dd>
              <dt>Cost</dt>
              <dd>
                <Usd amount={request.cost_usd} />
              </dd>
            </>
          )}
        </dl>
      </section>
      {!refused && <Attempts attempts={request.attempts} />}
    </Layout>
  );
};

/** The upstream attempts, in the order they were made. */
const Attempts: FC<{ attempts: AttemptJson[] }> = ({ attempts }) => (
  <>
    <h2>Upstream attempts</h2>
    <div class="table-frame">
      <table class="stack" aria-label="Upstream attempts">
        <thead>
          <tr>
            <th class="num">#</th>
            <th>Channel</th>
            <th>Model</th>
            <th>Outcome</th>
            <th>Reason</th>
            <th class="num">First byte</th>
            <th class="num">First content</th>
            <th class="num">Tokens in / out</th>
            <th class="num">Cost</th>
          </tr>
        </thead>
        <tbody>
          {attempts.length === 0 && (
            <tr>
              <td colspan={9} class="muted">No upstream attempt was made.</td>
            </tr>
          )}
          {attempts.map((attempt, index) => (
            <tr data-attempt={String(index + 1)}>
              <td class="num" data-label="#">{String(index + 1)}</td>
              <td data-label="Channel">
                <ChannelLink name={attempt.channel} />
              </td>
              <td data-label="Model">
                <ModelLink name={attempt.model} />
                {attempt.upstream_model !== attempt.model && (
                  <small class="muted sub">{`upstream: ${attempt.upstream_model}`}</small>
                )}
              </td>
              <td data-label="Outcome">
                <span class={`badge ${attempt.outcome === "ok" ? "good" : "bad"}`}>
                  {attempt.outcome}
                </span>
                {attempt.status !== null && <small class="sub">{`HTTP ${attempt.status}`}</small>}
              </td>
              <td data-label="Reason" class="wrap">
                <span class="reason-full" data-attempt-reason>{attempt.reason ?? "–"}</span>
              </td>
              <td class="num" data-label="First byte">{duration(attempt.ttfb_ms)}</td>
              <td class="num" data-label="First content">{duration(attempt.ttfc_ms)}</td>
              <td class="num" data-label="Tokens in / out">
                {count(attempt.input_tokens)} / {count(attempt.output_tokens)}
              </td>
              <td class="num" data-label="Cost">
                <Usd amount={attempt.cost_usd} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </>
);
