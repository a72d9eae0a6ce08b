/**
 * The admin service's failures as GatewayErrors, which the admin API renders as any other
 * error and the CLI prints as one line: 400 for a value that cannot be used (naming its
 * field), 404 for an account or key that does not exist, 409 for a change that contradicts
 * the state (a name taken, a revoked key).
 */
import { GatewayError } from "../errors.ts";

/** A field's value cannot be used; `param` names the field as the admin API spells it. */
export function invalidField(param: string, message: string): GatewayError {
  return new GatewayError(400, "invalid_request", message, { param });
}

/** The account or key asked for does not exist. */
export function notFound(message: string): GatewayError {
  return new GatewayError(404, "not_found", message);
}

/** The change contradicts what is stored. */
export function conflict(message: string): GatewayError {
  return new GatewayError(409, "conflict", message);
}
