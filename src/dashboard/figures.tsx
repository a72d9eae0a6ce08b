/**
 * The small pieces every page writes figures with: an amount of money as people read it
 * with its exact micro-USD figure as its title, a time in the viewer's zone (given to a
 * page's rendering by `ZoneContext`), and the links that lead from a key, an account, a
 * model, a channel or a request to its own page.
 */
import { createContext, type FC, useContext } from "hono/jsx";
import { exactUsd, usd } from "./format.ts";
import { TimeZone } from "./time_zone.ts";

/** The viewer's time zone while a page renders (routes.tsx provides it; UTC otherwise). */
export const ZoneContext = createContext(TimeZone.of("UTC"));

/** The zone of the page being rendered. */
export function useZone(): TimeZone {
  return useContext(ZoneContext);
}

/** An amount of USD as people read it; the exact figure on hover and in `data-usd`. */
export const Usd: FC<{ amount: number }> = ({ amount }) => (
  <span class="usd" title={`exactly ${exactUsd(amount)}`} data-usd={String(amount)}>
    {usd(amount)}
  </span>
);

/** A time (ISO 8601 or ms) in the viewer's zone; "–" when absent. */
export const Time: FC<{ at: string | number | null | undefined }> = ({ at }) => {
  const zone = useZone();
  if (at === null || at === undefined) return <>–</>;
  const ms = typeof at === "number" ? at : Date.parse(at);
  const iso = new Date(ms).toISOString();
  return <time datetime={iso} title={iso}>{zone.dateTime(ms)}</time>;
};

/** The page of a key, an account, a model, a channel or a request. */
export function pageOf(
  kind: "keys" | "accounts" | "models" | "channels" | "requests",
  name: string,
) {
  return `/admin/${kind}/${encodeURIComponent(name)}`;
}

/** A key by its name (its id when it has none), to its page. */
export const KeyLink: FC<{ id: string; name?: string | null }> = ({ id, name }) => (
  <a href={pageOf("keys", id)} title={id}>{name ?? <code>{id}</code>}</a>
);

/** An account, to its page. */
export const AccountLink: FC<{ name: string }> = ({ name }) => (
  <a href={pageOf("accounts", name)}>{name}</a>
);

/** A model, to its page. */
export const ModelLink: FC<{ name: string }> = ({ name }) => (
  <a href={pageOf("models", name)}>{name}</a>
);

/** A channel, to its page; "–" for none. */
export const ChannelLink: FC<{ name: string | null | undefined }> = ({ name }) =>
  name ? <a href={pageOf("channels", name)}>{name}</a> : <>–</>;

/** A request id, to its page (the request with its upstream attempts). */
export const RequestLink: FC<{ id: string }> = ({ id }) => (
  <a href={pageOf("requests", id)}>
    <code>{id}</code>
  </a>
);
