// Chunking options of the upload form: shows the chosen scope's default, previews the
// chunks a file would become (nothing is stored), saves the options as the scope's default.
// Text from the server is inserted with textContent, never as HTML.
(function () {
  "use strict";
  const form = document.getElementById("upload-form");
  const box = document.getElementById("chunking");
  if (!form || !box) return;
  const csrf = form.querySelector("[name=csrfmiddlewaretoken]").value;
  const hint = document.getElementById("chunking-default");
  const summary = document.getElementById("chunking-summary");
  const output = document.getElementById("chunk-preview");
  const previewFile = document.getElementById("preview-file");
  const resetButton = document.getElementById("chunking-reset");
  let defaults = JSON.parse(document.getElementById("chunking-defaults").textContent);

  function scopeKey() {
    const scope = form.querySelector("[name=scope]:checked").value;
    const license = document.getElementById("upload-license");
    return scope === "license" && license.value ? license.value : "global";
  }

  function describe(d) {
    if (!d) return gettext("the size of each document type, split by structure");
    const size = d.chunk_size ? interpolate(gettext("%(size)s tokens"), { size: d.chunk_size }, true) : gettext("the type's size");
    const overlap = d.chunk_overlap !== null ? interpolate(gettext("overlap %(overlap)s"), { overlap: d.chunk_overlap }, true) : gettext("the type's overlap");
    const split = d.split === "fixed" ? gettext("fixed windows") : gettext("by structure");
    return size + ", " + overlap + ", " + split;
  }

  function showDefault() {
    const key = scopeKey();
    const own = defaults[key];
    const followed = own || (key !== "global" ? defaults.global : undefined);
    let text = interpolate(gettext("This scope's default: %(default)s."), { default: describe(followed) }, true);
    if (!own && key !== "global") text += " " + gettext("(It follows global's.)");
    hint.textContent = text;
    resetButton.hidden = !own || key === "global";
    const chosen = ["chunk_size", "chunk_overlap", "split"].some((name) => form.elements[name].value);
    summary.textContent = chosen ? gettext("· chosen for these uploads") : "";
  }

  form.querySelectorAll("[name=scope], #upload-license, #chunking input, #chunking select").forEach((field) => field.addEventListener("change", showDefault));
  showDefault();

  function post(url, body) {
    return fetch(url, { method: "POST", body, headers: { "X-CSRFToken": csrf, Accept: "application/json" } })
      .then((r) => r.json().then((json) => ({ ok: r.ok, json })), () => ({ ok: false, json: { error: gettext("Network error: the server was not reached.") } }));
  }

  function message(text, isError) {
    const p = document.createElement("p");
    p.textContent = text;
    if (isError) { p.className = "error"; p.setAttribute("role", "alert"); }
    output.replaceChildren(p);
  }

  function saveDefault(reset) {
    const body = new FormData();
    ["scope", "license", "chunk_size", "chunk_overlap", "split"].forEach((name) => {
      const value = name === "scope" ? form.querySelector("[name=scope]:checked").value : form.elements[name].value;
      if (value) body.append(name, value);
    });
    if (reset) body.append("reset", "on");
    post(document.getElementById("chunking-save").dataset.url, body).then(({ ok, json }) => {
      if (!ok) return message(json.error || gettext("Not saved."), true);
      defaults = json.defaults;
      showDefault();
      message(reset ? gettext("This license follows global's default again.") : gettext("Saved: the next uploads to this scope are cut this way."), false);
    });
  }
  document.getElementById("chunking-save").addEventListener("click", () => saveDefault(false));
  resetButton.addEventListener("click", () => saveDefault(true));

  const previewButton = document.getElementById("preview-button");
  previewButton.addEventListener("click", () => previewFile.click());
  previewFile.addEventListener("change", () => {
    const file = previewFile.files[0];
    previewFile.value = "";
    if (!file) return;
    const body = new FormData(form);
    body.delete("file");
    body.append("file", file, file.name);
    message(interpolate(gettext("Reading %(name)s…"), { name: file.name }, true), false);
    post(previewButton.dataset.url, body).then(({ ok, json }) => (ok ? render(file.name, json) : message(json.error || gettext("Preview failed."), true)));
  });

  function render(name, preview) {
    const title = document.createElement("p");
    title.textContent = interpolate(
      ngettext("%(name)s: %(total)s chunk; the first ones:", "%(name)s: %(total)s chunks; the first ones:", preview.total_chunks),
      { name, total: preview.total_chunks }, true);
    const list = document.createElement("ol");
    preview.chunks.forEach((chunk) => {
      const item = document.createElement("li");
      const meta = document.createElement("div");
      meta.className = "chunk-meta";
      meta.textContent = interpolate(ngettext("%(tokens)s token", "%(tokens)s tokens", chunk.tokens), { tokens: chunk.tokens }, true) +
        (chunk.page ? " · " + interpolate(gettext("p. %(page)s"), { page: chunk.page }, true) : "");
      if (chunk.section) {
        const section = document.createElement("strong");
        section.textContent = " · " + chunk.section;
        section.translate = false; // the document's own words
        meta.append(section);
      }
      const text = document.createElement("p");
      text.textContent = chunk.content;
      text.translate = false;
      item.append(meta, text);
      list.append(item);
    });
    output.replaceChildren(title, list);
  }
})();
