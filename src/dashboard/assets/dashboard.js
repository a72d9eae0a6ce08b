// tollgate's dashboard: the few things a page needs beyond HTML forms. Served from the
// gateway itself (the Content-Security-Policy allows no other script).
"use strict";

// A button with data-confirm asks before its form is sent (revoking a key is final).
document.addEventListener("submit", (event) => {
  const button = event.submitter;
  const question = button && button.getAttribute("data-confirm");
  if (question && !globalThis.confirm(question)) event.preventDefault();
});

// A button with data-copy copies the text of the element it names (a new key's secret).
document.addEventListener("click", (event) => {
  const button = event.target instanceof Element && event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.getAttribute("data-copy"));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(() => {
    button.textContent = "Copied";
  }, () => {
    button.textContent = "Select and copy it";
  });
});

// A select with data-submit sends its form when it changes (the overview's range).
document.addEventListener("change", (event) => {
  const select = event.target;
  if (select instanceof HTMLSelectElement && select.hasAttribute("data-submit")) {
    select.form.requestSubmit();
  }
});

// A checkbox with data-submit sends its form when it changes (the keys page's revoked filter).
document.addEventListener("change", (event) => {
  const box = event.target;
  if (
    box instanceof HTMLInputElement && box.type === "checkbox" && box.hasAttribute("data-submit")
  ) {
    box.form.requestSubmit();
  }
});

// The browser's time zone, for the server to write times and cut days in (the page says
// which zone it used; UTC until this cookie is there).
try {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && !document.cookie.split("; ").includes(`tollgate_tz=${encodeURIComponent(zone)}`)) {
    document.cookie = `tollgate_tz=${
      encodeURIComponent(zone)
    }; path=/admin; max-age=31536000; samesite=strict`;
  }
} catch {
  // No zone to tell: times stay in UTC.
}

// The models field of a key's form says at once which names the config does not know (the
// server warns again when the form is sent: the key is made all the same).
document.addEventListener("input", (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || !input.list || input.list.id !== "known-models") {
    return;
  }
  const known = new Set([...input.list.options].map((option) => option.value));
  const unknown = input.value.split(/[\s,]+/).filter((name) => name && !known.has(name));
  const hint = input.closest("label")?.querySelector("[data-models-hint]");
  if (hint) {
    hint.textContent = unknown.length > 0 ? `Not a model of the config: ${unknown.join(", ")}` : "";
  }
});
