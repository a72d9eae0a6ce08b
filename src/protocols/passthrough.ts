/**
 * The same-protocol relay of a protocol whose body names its model (chat, responses,
 * messages): the client's body with only `model` mapped, in the client's own bytes.
 */
import type { ClientRequest, Passthrough } from "../translate/codec.ts";
import { withTopLevelString } from "./json_splice.ts";

/** A request's passthrough with only its model replaced, nothing left out of its answer. */
export function modelMapped(request: ClientRequest): Passthrough {
  return {
    body: (upstreamModel) => ({ ...request.body, model: upstreamModel }),
    bytes: (upstreamModel, raw) =>
      upstreamModel === request.model ? raw : withTopLevelString(raw, "model", upstreamModel),
    hides: () => false,
  };
}
