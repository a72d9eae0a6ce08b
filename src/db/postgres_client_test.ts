import assert from "node:assert/strict";
import { isPostgresUnavailable, numbered } from "./postgres_client.ts";

Deno.test("postgres client: connection failures and transient server errors mean unavailable, bugs do not", () => {
  const cases: [unknown, boolean][] = [
    [
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      true,
    ],
    [new Error("Connection terminated unexpectedly"), true],
    [new Error("timeout exceeded when trying to connect"), true],
    [{ code: "57P01", message: "terminating connection due to administrator command" }, true],
    [{ code: "53300", message: "sorry, too many clients already" }, true],
    [{ code: "40P01", message: "deadlock detected" }, true],
    [{ code: "28P01", message: "password authentication failed" }, true],
    [{ code: "23514", message: "violates check constraint" }, false],
    [{ code: "42883", message: "function take_hold does not exist" }, false],
  ];
  for (const [error, unavailable] of cases) {
    assert.equal(isPostgresUnavailable(error), unavailable, JSON.stringify(error));
  }
});

Deno.test("postgres client: SQL written with ? placeholders runs numbered", () => {
  assert.equal(
    numbered("SELECT f(?, ?) WHERE id IN (?, ?) AND x = ?::jsonb"),
    "SELECT f($1, $2) WHERE id IN ($3, $4) AND x = $5::jsonb",
  );
});
