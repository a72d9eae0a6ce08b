/**
 * A connection's one deadline: while the server waits on a client (its next request, a
 * request's head or body, a lingering close), the connection is closed if the client
 * sends nothing in time. The server's clock keeps every connection's deadline on one timer.
 */
import type { Alarm, AlarmClock, Ringing } from "../upstream/alarm_clock.ts";

/** The deadline of one connection. */
export interface ConnectionTimer {
  /** Closes the connection `ms` from now unless stopped or moved before. */
  expire(ms: number): void;
  stop(): void;
}

/** A deadline that closes `connection` when it rings. */
export function connectionTimer(
  clock: AlarmClock,
  connection: { close(): void },
): ConnectionTimer {
  return new ConnectionDeadline(clock, connection);
}

class ConnectionDeadline implements ConnectionTimer, Ringing {
  readonly #alarm: Alarm;
  readonly #clock: AlarmClock;
  readonly #connection: { close(): void };

  constructor(clock: AlarmClock, connection: { close(): void }) {
    this.#clock = clock;
    this.#connection = connection;
    this.#alarm = clock.alarm(this);
  }

  expire(ms: number): void {
    this.#alarm.set(this.#clock.now() + ms);
  }

  stop(): void {
    this.#alarm.cancel();
  }

  ring(): void {
    this.#connection.close();
  }
}
