// Admin chat: streams /api/v1/chat/stream (session auth + CSRF). Each answer lists the
// sources it cites; "Why this answer" shows its retrieved sources with every score and the
// exact prompt. Enter sends, Shift+Enter adds a line. Text only, never HTML. Strings go
// through Django's JavaScript catalog (gettext, ngettext, interpolate).
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
  const numberFormat = new Intl.NumberFormat(document.documentElement.lang || undefined, { minimumFractionDigits: 3, maximumFractionDigits: 3 });
  function score(v) { return v === null || v === undefined ? "—" : numberFormat.format(Number(v)); }
  function page(n) { return n ? ", " + interpolate(gettext("p. %(page)s"), { page: n }, true) : ""; }

  // Follow the answer as it streams, unless the admin scrolled up to read something.
  function nearBottom() { return log.scrollHeight - log.scrollTop - log.clientHeight < 60; }
  function scrollDown(force) { if (force || nearBottom()) log.scrollTop = log.scrollHeight; }

  function explain(turn) {
    sources.replaceChildren();
    prompt.textContent = turn.prompt || "—";
    if (!turn.sources.length) {
      sources.append(el("p", "muted", gettext("Nothing passed the threshold: the assistant says it has no information.")));
      return;
    }
    const list = el("ol", "results");
    turn.sources.forEach((r, i) => {
      const item = el("li", "result");
      item.append(el("strong", "", "[" + (i + 1) + "] " + r.filename + page(r.page_start)));
      const text = el("p", "result-text", r.content);
      text.translate = false; // a passage, in its own language
      text.title = gettext("Click to show the whole passage");
      text.addEventListener("click", () => text.classList.toggle("open"));
      item.append(text);
      item.append(el("div", "scores", interpolate(gettext("fused %(fused)s · vector %(vector)s · keyword %(keyword)s"),
        { fused: score(r.fused_score), vector: score(r.vector_score), keyword: score(r.keyword_score) }, true) +
        (r.exact_match ? " · " + gettext("exact terms") : "")));
      list.append(item);
    });
    sources.append(list);
    log.querySelectorAll(".chat-turn.explained").forEach((node) => node.classList.remove("explained"));
    turn.node.classList.add("explained");
  }

  function showCitations(turn, citations) {
    if (!citations.length) return;
    const box = el("details", "chat-citations");
    box.append(el("summary", "", interpolate(ngettext("%(count)s source", "%(count)s sources", citations.length), { count: citations.length }, true)));
    const list = el("ol", "");
    citations.forEach((c) => {
      // Each source opens its document at the passage, the sentence the answer used marked.
      const item = el("li", "");
      const link = el("a", "", c.document + page(c.page));
      if (c.section) {
        const section = el("span", "", " — " + c.section);
        section.translate = false; // the passage's own words, in its language
        link.append(section);
      }
      link.href = form.dataset.passage.replace("/0/", "/" + c.chunk_id + "/") + (c.quote ? "?quote=" + encodeURIComponent(c.quote) : "");
      link.target = "_blank";
      link.rel = "noopener";
      item.append(link);
      if (c.quote) {
        const quote = el("q", "muted small", c.quote);
        quote.translate = false;
        item.append(" ", quote);
      }
      item.value = c.number;
      list.append(item);
    });
    const why = el("button", "link small", gettext("Why this answer"));
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
    const said = el("p", "chat-user", message);
    said.translate = false;
    log.append(said);
    const node = el("div", "chat-turn");
    const turn = { node, answer: el("p", "chat-bot"), sources: [], prompt: "" };
    turn.answer.translate = false; // the answer, in the language the user wrote in
    node.append(turn.answer);
    log.append(node);
    scrollDown(true);
    try {
      await stream(message, turn);
    } catch (error) {
      handle("error", { detail: gettext("The connection was lost before the answer finished.") }, turn);
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
    log.replaceChildren(el("p", "chat-empty muted", gettext("New conversation: the assistant remembers nothing of the previous one.")));
  }
  document.getElementById("chat-new").addEventListener("click", restart);
  form.license.addEventListener("change", () => { sessionId = ""; });
  form.user.addEventListener("change", () => { sessionId = ""; });
})();
