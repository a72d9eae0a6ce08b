/** The admin service over the CLI's config and database, for the commands that manage them. */
import type { AdminService } from "../admin/service.ts";
import { type CliContext, type Session, withDatabase } from "./context.ts";

/**
 * Runs `fn` with the admin service over the config named by `--config` and its migrated
 * database, closing the database afterwards. The service (and the query builder under it)
 * loads here, when a command runs, so that `tollgate serve` never loads it.
 */
export async function withAdmin<T>(
  ctx: CliContext,
  configFlag: string | undefined,
  fn: (admin: AdminService, session: Session) => Promise<T>,
): Promise<T> {
  const [{ createAdminService }, { createOutbox }, { createWebhookPost }] = await Promise.all([
    import("../admin/service.ts"),
    import("../alerts/outbox.ts"),
    import("../upstream/webhook_post.ts"),
  ]);
  return await withDatabase(ctx, configFlag, (session) =>
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
