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
