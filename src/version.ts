/** tollgate's version, from deno.json: the one place it is written. */
import manifest from "../deno.json" with { type: "json" };

/** The version `tollgate --version` prints. */
export const VERSION: string = manifest.version;
