// DropZone: drag and drop (or click / Enter / Space) several files; each uploads on its own
// XHR with a progress bar, then its ingestion stage and progress are polled until it is
// ready or failed. A file named as a document already in the chosen scope first asks whether
// it is that document's new version (replaced in place) or another document. Text from the server is inserted with textContent, never as HTML.
// Strings go through Django's JavaScript catalog (gettext, ngettext, interpolate).
(function () {
  "use strict";
  const form = document.getElementById("upload-form");
  const zone = document.getElementById("dropzone");
  const input = document.getElementById("upload-files");
  const list = document.getElementById("upload-list");
  if (!form || !zone || !input || !list) return;

  const csrf = form.querySelector("[name=csrfmiddlewaretoken]").value;
  const licenseSelect = document.getElementById("upload-license");

  function syncScope() {
    const scope = form.querySelector("[name=scope]:checked").value;
    licenseSelect.disabled = scope !== "license" || licenseSelect.options.length === 0;
  }
  form.querySelectorAll("[name=scope]").forEach((radio) => radio.addEventListener("change", syncScope));
  syncScope();

  zone.addEventListener("click", () => input.click());
  zone.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      input.click();
    }
  });
  ["dragenter", "dragover"].forEach((type) =>
    zone.addEventListener(type, (event) => {
      event.preventDefault();
      zone.classList.add("dragging");
    })
  );
  ["dragleave", "drop"].forEach((type) =>
    zone.addEventListener(type, (event) => {
      event.preventDefault();
      zone.classList.remove("dragging");
    })
  );
  zone.addEventListener("drop", (event) => uploadAll(event.dataTransfer.files));
  input.addEventListener("change", () => {
    uploadAll(input.files);
    input.value = "";
  });

  function uploadAll(files) {
    Array.from(files).forEach((file) => {
      // The form as it is when the file is dropped: its scope and options stay this file's
      // even if they are changed while it waits for an answer.
      const data = new FormData(form);
      const namesakes = document.getElementById("upload-namesakes").value; // for many files at once
      data.delete("file");
      data.append("file", file, file.name);
      const ui = makeItem(file, scopeLabel());
      namesake(file, data).then((existing) => {
        if (!existing) return send(form.action, data, ui);
        return sameBytes(file, existing).then((same) => {
          if (same === true) send(form.action, data, ui); // named a duplicate, stored once
          else if (namesakes === "replace") replaceWith(ui, existing, data);
          else if (namesakes === "keep") send(form.action, data, ui);
          else if (same === null) askTheServer(ui, data);
          else ask(ui, existing, data);
        });
      });
    });
  }

  // The document of the chosen scope shown under this file's name, or null (also when the
  // question cannot be answered: the upload then goes ahead and says what is wrong).
  function namesake(file, data) {
    const query = new URLSearchParams({ filename: file.name, scope: data.get("scope") || "", license: data.get("license") || "", redaction: data.get("redaction") || "" });
    return fetch(form.dataset.namedUrl + "?" + query, { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : { document: null }))
      .then((json) => json.document)
      .catch(() => null);
  }

  // Whether the file is the document's own bytes (then it uploads, and is named a duplicate);
  // null when the browser cannot tell: it hashes only on a secure origin (HTTPS, or this
  // machine), and a plain-http address on the office network is not one.
  function sameBytes(file, existing) {
    if (file.size !== existing.size_bytes) return Promise.resolve(false);
    if (!(window.crypto && crypto.subtle)) return Promise.resolve(null);
    return file.arrayBuffer()
      .then((bytes) => crypto.subtle.digest("SHA-256", bytes))
      .then((digest) => Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("") === existing.sha256)
      .catch(() => false);
  }

  // The server compares instead: a copy uploads as a duplicate; a changed file is not
  // stored, and comes back with its namesake, to ask about.
  function askTheServer(ui, data) {
    const asking = new FormData();
    for (const [key, value] of data) asking.append(key, value);
    asking.set("ask_if_changed", "on");
    send(form.action, asking, ui, (existing) => ask(ui, existing, data));
  }

  function ask(ui, existing, data) {
    ui.item.classList.add("asking");
    ui.bar.style.visibility = "hidden";
    ui.state.textContent = interpolate(gettext("%(scope)s already has a document named %(name)s (%(status)s). Is this file its new version?"), { scope: existing.scope, name: existing.filename, status: existing.status_label.toLowerCase() }, true);
    const replace = el("button", "small", gettext("Replace it with this version"));
    const both = el("button", "secondary small", gettext("Keep both"));
    const cancel = el("button", "link small", gettext("Don't upload"));
    [replace, both, cancel].forEach((button) => (button.type = "button"));
    const open = el("a", "", gettext("details"));
    open.href = existing.detail_url;
    ui.actions.replaceChildren(replace, both, cancel, open);
    const decided = () => {
      ui.item.classList.remove("asking");
      ui.bar.style.visibility = "";
      ui.actions.replaceChildren();
    };
    replace.addEventListener("click", () => {
      decided();
      replaceWith(ui, existing, data);
    });
    both.addEventListener("click", () => { decided(); send(form.action, data, ui); });
    cancel.addEventListener("click", () => {
      decided();
      ui.bar.style.visibility = "hidden";
      ui.item.classList.add("cancelled");
      ui.state.textContent = gettext("not uploaded");
    });
  }

  function replaceWith(ui, existing, data) {
    ui.name.append(" ", el("span", "upload-scope", interpolate(gettext("(new version of %(name)s)"), { name: existing.filename }, true)));
    send(existing.version_url, data, ui);
  }

  // The scope each file goes to, as chosen when it was dropped.
  function scopeLabel() {
    const scope = form.querySelector("[name=scope]:checked").value;
    if (scope !== "license" || licenseSelect.selectedIndex < 0) return gettext("Global");
    return licenseSelect.options[licenseSelect.selectedIndex].textContent;
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function makeItem(file, scope) {
    const item = el("li", "upload-item");
    const name = el("span", "upload-name", file.name);
    name.append(" ", el("span", "upload-scope", "→ " + scope));
    const bar = el("progress", "upload-bar");
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("aria-label", interpolate(gettext("Progress of %(name)s"), { name: file.name }, true));
    const state = el("span", "upload-state", gettext("uploading…"));
    const actions = el("span", "upload-actions");
    item.append(name, bar, state, actions);
    list.prepend(item);
    return { item, bar, state, actions, name };
  }

  function send(url, data, ui, onNamesake) {
    ui.state.textContent = gettext("uploading…");
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.setRequestHeader("X-CSRFToken", csrf);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) ui.bar.value = Math.round((event.loaded / event.total) * 100);
    });
    xhr.addEventListener("load", () => {
      let payload = {};
      try { payload = JSON.parse(xhr.responseText); } catch (e) { payload = { error: interpolate(gettext("Unexpected server answer (%(status)s)."), { status: xhr.status }, true) }; }
      if (xhr.status === 409 && payload.namesake && onNamesake) return onNamesake(payload.namesake);
      // payload.detail: what the site says of an error no view handled (a full disk, say).
      if (xhr.status >= 400) return fail(ui, payload.error || payload.detail || gettext("Upload failed."));
      if (payload.duplicate) {
        ui.duplicateOf = payload.filename;
        ui.item.dataset.duplicate = "true";
      } else {
        changed(); // the table lists it as queued at once, not only once it is ready
      }
      follow(ui, payload);
    });
    xhr.addEventListener("error", () => fail(ui, gettext("Network error: the upload did not reach the server.")));
    xhr.send(data);
  }

  function fail(ui, message) {
    ui.item.classList.add("failed");
    ui.state.textContent = interpolate(gettext("failed: %(message)s"), { message }, true);
    ui.state.setAttribute("role", "alert");
  }

  function show(ui, payload) {
    ui.item.dataset.status = payload.status;
    ui.item.dataset.documentId = payload.id;
    ui.bar.value = payload.status === "ready" ? 100 : payload.progress;
    ui.actions.replaceChildren();
    const link = el("a", "", gettext("details"));
    link.href = payload.detail_url;
    if (ui.duplicateOf !== undefined) {
      // Same bytes already in this scope: nothing new was stored.
      ui.bar.value = 100;
      if (payload.status === "failed") {
        fail(ui, interpolate(gettext("duplicate of %(name)s, which failed: %(error)s"), { name: ui.duplicateOf, error: payload.error }, true));
        ui.actions.append(retryButton(ui, payload), link);
      } else {
        ui.state.textContent = interpolate(gettext("duplicate of %(name)s (%(status)s), not stored again"), { name: ui.duplicateOf, status: payload.status_label.toLowerCase() }, true);
        ui.actions.append(link);
      }
    } else if (payload.status === "ready") {
      ui.state.textContent = interpolate(ngettext("ready · %(count)s chunk", "ready · %(count)s chunks", payload.chunks), { count: payload.chunks }, true);
      ui.actions.append(link);
    } else if (payload.status === "failed") {
      fail(ui, payload.error);
      ui.actions.append(retryButton(ui, payload), link);
    } else {
      ui.state.textContent = payload.status === "queued" ? gettext("queued") : (payload.stage_label || gettext("processing")) + " · " + payload.progress + "%" + minutesLeft(payload);
      if (payload.stuck) ui.actions.append(retryButton(ui, payload));
    }
  }

  function minutesLeft(payload) {
    if (!payload.minutes_left) return "";
    return " · " + interpolate(ngettext("about %(count)s minute left", "about %(count)s minutes left", payload.minutes_left), { count: payload.minutes_left }, true);
  }

  function retryButton(ui, payload) {
    const button = el("button", "secondary small", gettext("Retry"));
    button.type = "button";
    button.addEventListener("click", () => {
      const body = new FormData();
      body.append("pdf_password", document.getElementById("upload-password").value);
      fetch(payload.retry_url, { method: "POST", body, headers: { "X-CSRFToken": csrf, Accept: "application/json" } })
        .then((r) => r.json().then((json) => ({ ok: r.ok, json })))
        .then(({ ok, json }) => {
          if (!ok) return fail(ui, json.error || gettext("Retry refused."));
          delete ui.duplicateOf;
          delete ui.item.dataset.duplicate;
          ui.item.classList.remove("failed");
          ui.state.removeAttribute("role");
          follow(ui, json);
        });
    });
    return button;
  }

  function changed() {
    document.body.dispatchEvent(new CustomEvent("documentsChanged", { bubbles: true }));
  }

  function follow(ui, payload) {
    show(ui, payload);
    if (payload.status === "ready" || payload.status === "failed" || ui.duplicateOf !== undefined) {
      changed();
      return;
    }
    setTimeout(() => {
      fetch(payload.detail_url + "status", { headers: { Accept: "application/json" } })
        .then((r) => r.json())
        .then((next) => follow(ui, next))
        .catch(() => setTimeout(() => follow(ui, payload), 2000));
    }, 700);
  }
})();
