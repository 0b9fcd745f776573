// Admin chat: streams /api/v1/chat/stream (session auth + CSRF). Each answer lists the
// sources it cites; "Why this answer" shows its retrieved sources with every score and the
// exact prompt. Enter sends, Shift+Enter adds a line. Text only, never HTML.
(function () {
  "use strict";
  const form = document.getElementById("admin-chat");
  if (!form) return;
  const log = document.getElementById("chat-log");
  const sources = document.getElementById("chat-sources");
  const prompt = document.getElementById("chat-prompt");
  const send = document.getElementById("chat-send");
  const csrf = form.querySelector("[name=csrfmiddlewaretoken]").value;
  let sessionId = "";
  let streaming = false;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function score(v) { return v === null || v === undefined ? "—" : Number(v).toFixed(3); }

  // Follow the answer as it streams, unless the admin scrolled up to read something.
  function nearBottom() { return log.scrollHeight - log.scrollTop - log.clientHeight < 60; }
  function scrollDown(force) { if (force || nearBottom()) log.scrollTop = log.scrollHeight; }

  function explain(turn) {
    sources.replaceChildren();
    prompt.textContent = turn.prompt || "—";
    if (!turn.sources.length) {
      sources.append(el("p", "muted", "Nothing passed the threshold: the assistant says it has no information."));
      return;
    }
    const list = el("ol", "results");
    turn.sources.forEach((r, i) => {
      const item = el("li", "result");
      item.append(el("strong", "", "[" + (i + 1) + "] " + r.filename + (r.page_start ? ", p. " + r.page_start : "")));
      const text = el("p", "result-text", r.content);
      text.title = "Click to show the whole passage";
      text.addEventListener("click", () => text.classList.toggle("open"));
      item.append(text);
      item.append(el("div", "scores", "fused " + score(r.fused_score) + " · vector " + score(r.vector_score) +
        " · keyword " + score(r.keyword_score) + (r.exact_match ? " · exact terms" : "")));
      list.append(item);
    });
    sources.append(list);
    log.querySelectorAll(".chat-turn.explained").forEach((node) => node.classList.remove("explained"));
    turn.node.classList.add("explained");
  }

  function showCitations(turn, citations) {
    if (!citations.length) return;
    const box = el("details", "chat-citations");
    box.append(el("summary", "", citations.length === 1 ? "1 source" : citations.length + " sources"));
    const list = el("ol", "");
    citations.forEach((c) => {
      const item = el("li", "", c.document + (c.page ? ", p. " + c.page : ""));
      item.value = c.number;
      list.append(item);
    });
    const why = el("button", "link small", "Why this answer");
    why.type = "button";
    why.addEventListener("click", () => explain(turn));
    box.append(list, why);
    turn.node.append(box);
  }

  function handle(name, data, turn) {
    if (name === "sources") { turn.sources = data; explain(turn); }
    else if (name === "prompt") { turn.prompt = data.text; prompt.textContent = data.text; }
    else if (name === "delta") { turn.answer.textContent += data.text; scrollDown(false); }
    else if (name === "citations") { showCitations(turn, data); scrollDown(false); }
    else if (name === "done") sessionId = data.session_id;
    else if (name === "error") { turn.answer.classList.add("error"); turn.answer.textContent = data.detail; }
  }

  async function stream(message, turn) {
    const response = await fetch(form.dataset.endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify({ message, license: form.license.value || undefined, user: form.user.value || "default", session_id: sessionId }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      return handle("error", { detail: body.detail || response.statusText }, turn);
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
        if (name && data) handle(name, JSON.parse(data), turn);
      }
    }
  }

  async function submit() {
    const message = form.message.value.trim();
    if (!message || streaming) return;
    streaming = true;
    send.disabled = true;
    form.message.value = "";
    log.querySelector(".chat-empty")?.remove();
    log.append(el("p", "chat-user", message));
    const node = el("div", "chat-turn");
    const turn = { node, answer: el("p", "chat-bot"), sources: [], prompt: "" };
    node.append(turn.answer);
    log.append(node);
    scrollDown(true);
    try {
      await stream(message, turn);
    } catch (error) {
      handle("error", { detail: "The connection was lost before the answer finished." }, turn);
    } finally {
      streaming = false;
      send.disabled = false;
      form.message.focus();
    }
  }

  form.addEventListener("submit", (event) => { event.preventDefault(); submit(); });
  form.message.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
  function restart() {
    sessionId = "";
    log.replaceChildren(el("p", "chat-empty muted", "New conversation: the assistant remembers nothing of the previous one."));
  }
  document.getElementById("chat-new").addEventListener("click", restart);
  form.license.addEventListener("change", () => { sessionId = ""; });
  form.user.addEventListener("change", () => { sessionId = ""; });
})();
