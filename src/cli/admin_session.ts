/** The admin service over the CLI's config and database, for the commands that manage them. */
import { type AdminService, createAdminService } from "../admin/service.ts";
import { createOutbox } from "../alerts/outbox.ts";
import { createWebhookPost } from "../upstream/webhook_post.ts";
import { type CliContext, type Session, withDatabase } from "./context.ts";

/**
 * Runs `fn` with the admin service over the config named by `--config` and its migrated
 * database, closing the database afterwards.
 */
export function withAdmin<T>(
  ctx: CliContext,
  configFlag: string | undefined,
  fn: (admin: AdminService, session: Session) => Promise<T>,
): Promise<T> {
  return withDatabase(ctx, configFlag, (session) =>
    fn(
      createAdminService({
        queries: () => Promise.resolve(session.db.kysely),
        config: () => session.config,
        configPath: session.configPath,
        now: ctx.now,
        alerts: {
          outbox: createOutbox(session.db.client, session.db.kind),
          post: createWebhookPost(),
        },
      }),
      session,
    ));
}
