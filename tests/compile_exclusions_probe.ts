/**
 * Run by compile_exclusions_test.ts on an npm cache without the files the executable leaves
 * out: loads every module that brings in a package only when needed (the token counter and
 * its tables, the metrics exposition, PostgreSQL, a libSQL server's client) and uses each a
 * little, so a file it needs that the build leaves out fails here.
 */
import { openLibsqlServer } from "../src/db/libsql_server.ts";
import { openPostgres } from "../src/db/postgres.ts";
import { exposition } from "../src/observability/exposition.ts";
import { O200K_COUNTER } from "../src/tokens/o200k.ts";

const { tokens } = O200K_COUNTER.tally("hello there");
const libsql = openLibsqlServer("http://127.0.0.1:9");
libsql.close();
console.log(JSON.stringify({ tokens, postgres: typeof openPostgres, metrics: typeof exposition }));
