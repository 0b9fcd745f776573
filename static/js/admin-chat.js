// Admin chat: streams /api/v1/chat/stream (session auth + CSRF) and shows, beside the
// answer, the retrieved sources with their scores and the exact prompt. Text only, never HTML.
(function () {
  "use strict";
  const form = document.getElementById("admin-chat");
  if (!form) return;
  const log = document.getElementById("chat-log");
  const sources = document.getElementById("chat-sources");
  const prompt = document.getElementById("chat-prompt");
  const csrf = form.querySelector("[name=csrfmiddlewaretoken]").value;
  let sessionId = "";

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function score(v) { return v === null || v === undefined ? "—" : Number(v).toFixed(3); }

  function showSources(list) {
    sources.replaceChildren();
    if (!list.length) sources.append(el("li", "muted", "Nothing passed the threshold: the assistant says it has no information."));
    list.forEach((r, i) => {
      const item = el("li", "result");
      item.append(el("strong", "", "[" + (i + 1) + "] " + r.filename + (r.page_start ? ", p. " + r.page_start : "")));
      item.append(el("p", "result-text", r.content));
      item.append(el("div", "scores", "fused " + score(r.fused_score) + " · vector " + score(r.vector_score) +
        " · keyword " + score(r.keyword_score) + (r.exact_match ? " · exact terms" : "")));
      sources.append(item);
    });
  }

  function handle(name, data, answer) {
    if (name === "sources") showSources(data);
    else if (name === "prompt") prompt.textContent = data.text;
    else if (name === "delta") answer.textContent += data.text;
    else if (name === "citations") answer.after(el("div", "muted small", "Cited: " + data.map((c) => "[" + c.number + "] " + c.document).join(", ")));
    else if (name === "done") sessionId = data.session_id;
    else if (name === "error") { answer.classList.add("error"); answer.textContent = data.detail; }
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const message = form.message.value.trim();
    if (!message) return;
    form.message.value = "";
    log.append(el("p", "chat-user", message));
    const answer = el("p", "chat-bot");
    log.append(answer);
    const response = await fetch(form.dataset.endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify({ message, license: form.license.value || undefined, user: form.user.value || "default", session_id: sessionId }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      return handle("error", { detail: body.detail || response.statusText }, answer);
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const blocks = buffer.split("\n\n");
      buffer = blocks.pop();
      for (const block of blocks) {
        const name = (block.match(/^event: (.*)$/m) || [])[1];
        const data = (block.match(/^data: (.*)$/m) || [])[1];
        if (name && data) handle(name, JSON.parse(data), answer);
      }
    }
  });
  document.getElementById("chat-new").addEventListener("click", () => { sessionId = ""; log.replaceChildren(); });
  form.license.addEventListener("change", () => { sessionId = ""; });
  form.user.addEventListener("change", () => { sessionId = ""; });
})();
