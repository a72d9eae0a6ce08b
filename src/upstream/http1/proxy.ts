/**
 * Outbound proxies, read from the environment as the runtime's fetch reads them:
 * `HTTPS_PROXY` for https URLs (a CONNECT tunnel through the proxy, TLS inside it),
 * `HTTP_PROXY` for http URLs (the request sent to the proxy in absolute form), either
 * in lower case too, and `NO_PROXY` for the hosts reached directly.
 */

/** The proxies of the environment. */
export interface ProxySettings {
  http?: URL;
  https?: URL;
  /** NO_PROXY's entries: `*`, or hosts (a leading dot optional) with an optional port. */
  bypass: string[];
}

/** Reads the proxy variables; `env` is Deno.env.get unless a test passes its own. */
export function proxySettings(env: (name: string) => string | undefined): ProxySettings {
  const read = (name: string) => env(name) ?? env(name.toLowerCase());
  const url = (name: string) => {
    const value = read(name)?.trim();
    if (!value) return undefined;
    // A bare host:port means an http proxy, as curl and fetch take it.
    const proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
    if (proxy.protocol !== "http:") {
      throw new Error(`${name} must be an http:// proxy URL (tollgate tunnels TLS through it).`);
    }
    return proxy;
  };
  return {
    http: url("HTTP_PROXY"),
    https: url("HTTPS_PROXY"),
    bypass: (read("NO_PROXY") ?? "").split(",").map((entry) => entry.trim().toLowerCase())
      .filter((entry) => entry !== ""),
  };
}

/** The proxy a request to `url` goes through, or undefined to go directly. */
export function proxyFor(settings: ProxySettings, url: URL): URL | undefined {
  const proxy = url.protocol === "https:" ? settings.https : settings.http;
  if (!proxy) return undefined;
  const host = bareHostname(url.hostname.toLowerCase());
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  for (const entry of settings.bypass) {
    if (entry === "*") return undefined;
    const [, name, only] = /^(?:\*?\.)?(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(entry) ?? [];
    if (only !== undefined && only !== port) continue;
    const bare = name === undefined ? undefined : bareHostname(name);
    if (bare && (host === bare || host.endsWith(`.${bare}`))) return undefined;
  }
  return proxy;
}

/** A URL's hostname as sockets take it: an IPv6 literal without its brackets. */
export function bareHostname(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, "");
}

/** The `Proxy-Authorization` header line (CRLF ended) of a proxy URL; "" without credentials. */
export function proxyAuthorizationLine(proxy: URL): string {
  const authorization = proxyAuthorization(proxy);
  return authorization ? `proxy-authorization: ${authorization}\r\n` : "";
}

/** The `Proxy-Authorization` value of a proxy URL with credentials. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  const bytes = new TextEncoder().encode(credentials);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}
