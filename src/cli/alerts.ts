/** `tollgate alerts list|test`: alert events and their deliveries; a signed test event. */
import type { AlertJson } from "../admin/alerts.ts";
import { withAdmin } from "./admin_session.ts";
import { type Command, group, JSON_FLAG, subcommand } from "./command.ts";
import { formatTable, printJson } from "./output.ts";

const list = subcommand({
  usage: "tollgate alerts list [--json]",
  summary: "Lists alert events, newest first, with each delivery's attempts and last error.",
  flags: { json: JSON_FLAG },
  async run({ values }, ctx) {
    const events = await withAdmin(ctx, values.config, (admin) => admin.alerts.list());
    if (values.json) {
      printJson(ctx.io, events);
      return 0;
    }
    if (events.length === 0) {
      ctx.io.stdout("No alert events yet.");
      return 0;
    }
    ctx.io.stdout(formatTable(
      ["CREATED", "TYPE", "SCOPE", "THRESHOLD", "DELIVERIES"],
      events.map((event: AlertJson) => [
        event.created_at,
        event.type,
        event.scope ?? "-",
        event.threshold === null ? "-" : `${Math.round(event.threshold * 100)}%`,
        event.deliveries.map(deliveryText).join("; ") || "no webhook",
      ]),
    ));
    return 0;
  },
});

const test = subcommand({
  usage: "tollgate alerts test [--webhook NAME]",
  summary: "Sends a signed test event to every webhook (whatever their events), or the one named.",
  flags: {
    webhook: { type: "string", value: "NAME", help: "only this webhook" },
    json: { type: "boolean", help: "print the event and its deliveries as JSON" },
  },
  async run({ values }, ctx) {
    const event = await withAdmin(
      ctx,
      values.config,
      (admin) => admin.alerts.test({ webhook: values.webhook }),
    );
    if (values.json) {
      printJson(ctx.io, event);
    } else {
      for (const delivery of event.deliveries) {
        ctx.io.stdout(`${delivery.webhook}: ${deliveryText(delivery)}`);
      }
    }
    return event.deliveries.every((delivery) => delivery.status === "delivered") ? 0 : 1;
  },
});

/** A delivery in a few words. */
function deliveryText(delivery: AlertJson["deliveries"][number]): string {
  const tries = `${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}`;
  if (delivery.status === "delivered") return `${delivery.webhook} delivered (${tries})`;
  const error = delivery.last_error ? `: ${delivery.last_error}` : "";
  return `${delivery.webhook} ${delivery.status} (${tries})${error}`;
}

/** The `alerts` command group. */
export const ALERTS_COMMAND: Command = group("alerts", { list, test });
