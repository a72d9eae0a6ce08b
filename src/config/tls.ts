/** The certificate and key files of `[server] tls_cert` / `tls_key`, read for `Deno.serve`. */
import type { Config } from "./schema.ts";
import { ConfigError } from "./load.ts";

/** The PEM texts to serve HTTPS with, or nothing when the config serves plain HTTP. */
export async function readTls(
  server: Config["server"],
  source: string,
): Promise<{ cert?: string; key?: string }> {
  if (!server.tls_cert || !server.tls_key) return {};
  const read = async (key: "tls_cert" | "tls_key") => {
    try {
      return await Deno.readTextFile(server[key]);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new ConfigError(source, [`server.${key}: "${server[key]}" cannot be read (${why})`]);
    }
  };
  return { cert: await read("tls_cert"), key: await read("tls_key") };
}
