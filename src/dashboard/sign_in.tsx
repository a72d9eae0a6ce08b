/** The sign-in page (an API key in, a session cookie out) and the page of an error. */
import type { FC } from "hono/jsx";
import type { Principal } from "../auth/principal.ts";
import { Layout, Notice } from "./layout.tsx";

/** The sign-in form; `next` is where to go once signed in. */
export const SignInPage: FC<{ next: string; error?: string }> = ({ next, error }) => (
  <Layout title="Sign in" page="none">
    <section class="sign-in panel">
      <h1>Sign in</h1>
      <Notice error={error} />
      <form method="post" action="/admin/sign-in" aria-label="Sign in">
        <input type="hidden" name="next" value={next} />
        <label>
          API key
          <input
            type="password"
            name="key"
            autocomplete="current-password"
            placeholder="sk-…"
            required
            autofocus
          />
        </label>
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">
        An admin key sees the whole gateway; any other key sees its own usage, quota and balance.
        The key stays in this browser only as a session, which ends when you sign out, after 12
        hours unused, or after 7 days.
      </p>
    </section>
  </Layout>
);

/** A page that could not be shown, and why (never a stack trace). */
export const ErrorPage: FC<{ caller?: Principal; status: number; message: string }> = (
  { caller, status, message },
) => (
  <Layout title={status === 404 ? "Not found" : "Error"} caller={caller} page="none">
    <h1>{status === 404 ? "Not found" : status === 403 ? "Not allowed" : "Something failed"}</h1>
    <Notice error={message} />
    <p>
      <a href="/admin">Back to the dashboard</a>
    </p>
  </Layout>
);
