import { describeError, type Logger } from "../log.ts";

/**
 * Waits for a stored response to be written; a failure is logged and the answer still
 * goes out: the client's answer matters more than its copy.
 */
export async function keepQuietly(
  log: Logger,
  requestId: string,
  keeping: Promise<void>,
): Promise<void> {
  try {
    await keeping;
  } catch (error) {
    log.error("storing a response failed", { request_id: requestId, error: describeError(error) });
  }
}
