// Behaviour shared by the console's pages. Event delegation on the document, so tables that
// htmx swaps in keep working. No inline handlers anywhere (a strict CSP forbids them).
// Strings go through Django's JavaScript catalog (gettext, interpolate), loaded first.
(function () {
  "use strict";

  // Times are shown in the reader's time zone: the server reads it from this cookie
  // (web.middleware.BrowserTimeZoneMiddleware). Set on the sign-in page, before any time.
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && !document.cookie.split("; ").includes("tz=" + zone)) {
    const secure = location.protocol === "https:" ? "; Secure" : "";
    document.cookie = "tz=" + zone + "; path=/; max-age=31536000; SameSite=Lax" + secure;
  }

  function boxes(form) {
    return Array.from(form.querySelectorAll("tbody input[type=checkbox]"));
  }

  // Select-all and "act on selected" buttons, which stay disabled until something is selected.
  function syncSelection(form) {
    const all = boxes(form);
    const checked = all.filter((box) => box.checked).length;
    const head = form.querySelector(".select-all");
    if (head) {
      head.checked = all.length > 0 && checked === all.length;
      head.indeterminate = checked > 0 && checked < all.length;
    }
    form.querySelectorAll(".forget-selected").forEach((button) => {
      button.disabled = checked === 0;
      button.textContent = checked
        ? interpolate(gettext("Forget selected (%(count)s)"), { count: checked }, true)
        : gettext("Forget selected");
    });
  }

  // What is selected survives the table being reloaded (a finished upload refreshes it).
  const selected = new Map(); // form id → values of the checked rows
  document.addEventListener("change", (event) => {
    const form = event.target.closest("form.selectable");
    if (!form) return;
    if (event.target.classList.contains("select-all")) {
      boxes(form).forEach((box) => { box.checked = event.target.checked; });
    }
    selected.set(form.id, new Set(boxes(form).filter((box) => box.checked).map((box) => box.value)));
    syncSelection(form);
  });
  document.body.addEventListener("htmx:afterSwap", () => {
    document.querySelectorAll("form.selectable").forEach((form) => {
      const keep = selected.get(form.id);
      if (keep) boxes(form).forEach((box) => { box.checked = keep.has(box.value); });
      syncSelection(form);
    });
  });

  // A select marked data-autosubmit submits its form when it changes (the language switcher).
  document.addEventListener("change", (event) => {
    if (event.target.matches("select[data-autosubmit]")) event.target.form.submit();
  });

  // Forms that destroy something ask first.
  document.addEventListener("submit", (event) => {
    const question = event.target.dataset.confirm;
    if (question && !window.confirm(question)) event.preventDefault();
  });

  // Messages sent by the server with HX-Trigger: {"showMessage": {"text", "level"}}.
  document.body.addEventListener("showMessage", (event) => {
    const region = document.getElementById("messages");
    if (!region) return;
    const line = document.createElement("p");
    line.className = "message message-" + (event.detail.level || "info");
    line.textContent = event.detail.text;
    region.replaceChildren(line);
    // The button that was pressed may be gone with its row: keep the keyboard's place.
    const target = event.detail.focus && document.querySelector(event.detail.focus);
    if (target) {
      if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
      target.focus();
    }
  });

  // Copy buttons: <button data-copy="#id-of-the-text">.
  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-copy]");
    if (!button) return;
    const source = document.querySelector(button.dataset.copy);
    if (!source) return;
    const text = source.value !== undefined ? source.value : source.textContent;
    const done = () => {
      const label = button.textContent;
      button.textContent = gettext("Copied");
      setTimeout(() => { button.textContent = label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, () => fallbackCopy(source, done));
    } else {
      fallbackCopy(source, done);
    }
  });

  // http:// pages other than localhost have no Clipboard API: select the text and copy it.
  function fallbackCopy(source, done) {
    if (source.select) {
      source.select();
    } else {
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    }
    if (document.execCommand("copy")) done();
  }
})();
