/** GET /v1/models: the models a key may use, readable by both SDK families. */
import type { Context } from "hono";
import type { Config } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import type { Router } from "../routing/router.ts";
import type { GatewayEnv } from "./request_context.ts";

/** One model record with the OpenAI and the Anthropic fields. */
function modelRecord(config: Config, id: string, createdMs: number) {
  const meta = config.models[id];
  const owner = config.channels.find((channel) => channel.models.includes(id))?.name;
  return {
    id,
    object: "model",
    created: Math.floor(createdMs / 1000),
    owned_by: meta?.owned_by ?? owner ?? "tollgate",
    type: "model",
    display_name: meta?.display_name ?? id,
    created_at: new Date(createdMs).toISOString(),
  };
}

/** Lists the key's models (group models with a channel, minus the key's restriction). */
export function listModels(router: Router) {
  return function listModels(c: Context<GatewayEnv>): Response {
    const { config, loadedAt } = c.get("snapshot");
    const data = router.modelsFor(config, c.get("principal")).map((id) =>
      modelRecord(config, id, loadedAt)
    );
    return Response.json({
      object: "list",
      data,
      has_more: false,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    });
  };
}

/** GET /v1/models/{id}: one model record, 404 when the key may not use it. */
export function retrieveModel(router: Router) {
  return function retrieveModel(c: Context<GatewayEnv>): Response {
    const { config, loadedAt } = c.get("snapshot");
    const id = c.req.param("id") ?? "";
    if (!router.modelsFor(config, c.get("principal")).includes(id)) {
      throw new GatewayError(
        404,
        "model_not_found",
        `Model "${id}" is not available to this key. Call GET /v1/models to list the models it may use.`,
        { messagesType: "not_found_error" },
      );
    }
    return Response.json(modelRecord(config, id, loadedAt));
  };
}
