/*! Portality Brain chat widget.
 * <script src="https://HOST/widget.js" data-token="pbw_…" async></script>
 * Optional: data-api (default: this script's origin), data-title, data-accent, data-lang.
 * Without data-title/data-accent, the title, colour, position, launcher icon, greeting and
 * suggested questions are the license's assistant's, as set in the console.
 * Everything lives in a Shadow DOM: the host page's CSS cannot reach it and it cannot reach
 * the host's. Server text is always inserted as text, never as HTML. Nothing is loaded
 * from other hosts.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !script.dataset.token) return;

  var token = script.dataset.token;
  var api = (script.dataset.api || new URL(script.src).origin).replace(/\/$/, "");
  var lang = (script.dataset.lang || document.documentElement.lang || navigator.language || "es").slice(0, 2);
  var HEX = /^#[0-9a-f]{6}$/i;
  var ownAccent = /^#[0-9a-f]{3,8}$/i.test(script.dataset.accent || "") ? script.dataset.accent : "";
  var accent = ownAccent || "#3355cc";
  var TEXT = {
    es: { pending: "Propuesto por el asistente: ¿lo confirmas?", confirm: "Confirmar", memories: "Mis recuerdos", back: "Volver al chat", consent: "Permitir que el asistente recuerde lo que le pida", none: "No hay recuerdos.", edit: "Editar", forget: "Olvidar", forgetAll: "Olvidar todo", forgetAllAsk: "¿Olvidar todos tus recuerdos?", download: "Descargar mis datos (JSON)", said: "Dijiste", save: "Guardar", open: "Abrir el asistente", close: "Cerrar", send: "Enviar", placeholder: "Escribe tu pregunta…", sources: "Fuentes", you: "Tú", bot: "Asistente", error: "No se pudo responder", unavailable: "El asistente no está disponible en esta página ahora mismo.", title: "Asistente", page: "pág.", greeting: "Hola, {name}. ¿En qué puedo ayudarte?", hello: "Hola. ¿En qué puedo ayudarte?", cancel: "Cancelar", withdraw: "¿Retirar el permiso para recordar? Se olvidarán todos tus recuerdos." , up: "Útil", down: "No útil", why: "¿Qué falló?", reasons: ["Incorrecta", "Incompleta", "Desactualizada", "No es lo que pregunté"], comment: "Comentario (opcional)", thanks: "¡Gracias por tu opinión!", newChat: "Nueva conversación", curated: "Respuesta de la organización", wipe: "Borrar mis conversaciones", wipeAsk: "¿Borrar todas tus conversaciones guardadas?" },
    pt: { pending: "Sugerido pelo assistente: confirma?", confirm: "Confirmar", memories: "Minhas memórias", back: "Voltar ao chat", consent: "Permitir que o assistente lembre o que eu pedir", none: "Não há memórias.", edit: "Editar", forget: "Esquecer", forgetAll: "Esquecer tudo", forgetAllAsk: "Esquecer todas as suas memórias?", download: "Baixar meus dados (JSON)", said: "Você disse", save: "Salvar", open: "Abrir o assistente", close: "Fechar", send: "Enviar", placeholder: "Escreva sua pergunta…", sources: "Fontes", you: "Você", bot: "Assistente", error: "Não foi possível responder", unavailable: "O assistente não está disponível nesta página agora.", title: "Assistente", page: "p.", greeting: "Olá, {name}. Como posso ajudar?", hello: "Olá. Como posso ajudar?", cancel: "Cancelar", withdraw: "Retirar a permissão para lembrar? Todas as suas memórias serão esquecidas." , up: "Útil", down: "Não foi útil", why: "O que falhou?", reasons: ["Errada", "Incompleta", "Desatualizada", "Não é o que perguntei"], comment: "Comentário (opcional)", thanks: "Obrigado pela sua opinião!", newChat: "Nova conversa", curated: "Resposta da organização", wipe: "Apagar minhas conversas", wipeAsk: "Apagar todas as suas conversas guardadas?" },
    en: { pending: "Suggested by the assistant: confirm?", confirm: "Confirm", memories: "My memories", back: "Back to the chat", consent: "Let the assistant remember what I ask it to", none: "No memories.", edit: "Edit", forget: "Forget", forgetAll: "Forget all", forgetAllAsk: "Forget all your memories?", download: "Download my data (JSON)", said: "You said", save: "Save", open: "Open the assistant", close: "Close", send: "Send", placeholder: "Type your question…", sources: "Sources", you: "You", bot: "Assistant", error: "Could not answer", unavailable: "The assistant is not available on this page right now.", title: "Assistant", page: "p.", greeting: "Hello, {name}. How can I help?", hello: "Hello. How can I help?", cancel: "Cancel", withdraw: "Withdraw permission to remember? All your memories will be forgotten." , up: "Helpful", down: "Not helpful", why: "What went wrong?", reasons: ["Wrong", "Incomplete", "Outdated", "Not what I asked"], comment: "Comment (optional)", thanks: "Thanks for your feedback!", newChat: "New conversation", curated: "The organisation's answer", wipe: "Delete my conversations", wipeAsk: "Delete all your saved conversations?" }
  }[lang] || null;
  TEXT = TEXT || { pending: "Suggested by the assistant: confirm?", confirm: "Confirm", memories: "My memories", back: "Back to the chat", consent: "Let the assistant remember what I ask it to", none: "No memories.", edit: "Edit", forget: "Forget", forgetAll: "Forget all", forgetAllAsk: "Forget all your memories?", download: "Download my data (JSON)", said: "You said", save: "Save", open: "Open the assistant", close: "Close", send: "Send", placeholder: "Type your question…", sources: "Sources", you: "You", bot: "Assistant", error: "Could not answer", unavailable: "The assistant is not available on this page right now.", title: "Assistant", page: "p.", greeting: "Hello, {name}. How can I help?", hello: "Hello. How can I help?", cancel: "Cancel", withdraw: "Withdraw permission to remember? All your memories will be forgotten.", up: "Helpful", down: "Not helpful", why: "What went wrong?", reasons: ["Wrong", "Incomplete", "Outdated", "Not what I asked"], comment: "Comment (optional)", thanks: "Thanks for your feedback!", newChat: "New conversation", curated: "The organisation's answer", wipe: "Delete my conversations", wipeAsk: "Delete all your saved conversations?" };
  var title = script.dataset.title || TEXT.title;
  var ICONS = {
    chat: '<path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z"/>',
    help: '<circle cx="12" cy="12" r="10"/><path d="M9.1 9a3 3 0 0 1 5.8 1c0 2-3 3-3 3"/><path d="M12 17h.01"/>',
    spark: '<path d="M12 3l1.9 5.8L20 10.7l-5 3.7 1.8 6-4.8-3.6-4.8 3.6 1.8-6-5-3.7 6.1-1.9z"/>',
    // Drawn, not emoji: a kiosk without an emoji font showed 👍 / 👎 as empty boxes.
    up: '<path d="M14 9V5a3 3 0 0 0-3-3l-4 9v11h11.28a2 2 0 0 0 2-1.7l1.38-9a2 2 0 0 0-2-2.3zM7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3"/>',
    down: '<path d="M10 15v4a3 3 0 0 0 3 3l4-9V2H5.72a2 2 0 0 0-2 1.7l-1.38 9a2 2 0 0 0 2 2.3zm7-13h2.67A2.31 2.31 0 0 1 22 4v7a2.31 2.31 0 0 1-2.33 2H17"/>'
  };
  function svgIcon(name, size) {
    // Constants of this script (the server only names one), so building markup is safe.
    return '<svg width="' + size + '" height="' + size + '" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">' + (ICONS[name] || ICONS.chat) + "</svg>";
  }
  var sessionKey = "portality-chat-session:" + api;

  var host = document.createElement("div");
  host.setAttribute("data-portality-chat", "");
  // Hidden until the assistant's look has arrived (or 4 s have passed), so it never flickers.
  host.style.visibility = "hidden";
  var shown = setTimeout(function () { host.style.visibility = ""; }, 4000);
  var root = host.attachShadow({ mode: "open" });
  root.innerHTML =
    "<style>" +
    ":host{all:initial}[hidden]{display:none!important}*{box-sizing:border-box;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}" +
    ".fab{position:fixed;right:20px;bottom:20px;width:56px;height:56px;border-radius:50%;border:0;background:var(--accent);color:var(--on-accent);display:flex;align-items:center;justify-content:center;cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.25);z-index:2147483646}" +
    ".fab:focus-visible,button:focus-visible,textarea:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}" +
    ".panel{position:fixed;right:20px;bottom:88px;width:min(380px,calc(100vw - 24px));height:min(560px,calc(100vh - 110px));background:#fff;color:#1c2430;border-radius:12px;box-shadow:0 10px 40px rgba(0,0,0,.3);display:flex;flex-direction:column;overflow:hidden;z-index:2147483647}" +
    ".panel[hidden]{display:none}" +
    "header{display:flex;align-items:center;justify-content:space-between;gap:8px;padding:10px 14px;background:var(--accent);color:var(--on-accent);font-weight:600}" +
    "header .title{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;min-width:0}header>span:last-child{display:flex;flex-shrink:0;gap:4px;align-items:center}" +
    "header button{background:none;border:0;color:var(--on-accent);font-size:20px;cursor:pointer}" +
    ":host([data-position=left]) .fab{left:20px;right:auto}:host([data-position=left]) .panel{left:20px;right:auto}" +
    ".chips{display:flex;flex-wrap:wrap;gap:6px}.chips button{border:1px solid var(--accent);background:#fff;color:#1c2430;border-radius:999px;padding:4px 10px;font-size:13px;cursor:pointer;text-align:left}" +
    ".log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:10px;font-size:14px;line-height:1.45}" +
    ".msg{max-width:88%;padding:8px 11px;border-radius:10px;white-space:pre-wrap;overflow-wrap:anywhere}" +
    ".user{align-self:flex-end;background:#eef3ff}.bot{align-self:flex-start;background:#f3f4f6}" +
    ".error{align-self:stretch;background:#fdecea;color:#8a1c12}" +
    ".md{white-space:normal}.md p,.md ul,.md ol,.md pre,.md blockquote{margin:0 0 6px}.md ul,.md ol{padding-left:20px}.md a{color:inherit}" +
    ".fb{display:flex;flex-wrap:wrap;gap:6px;margin-top:6px;align-items:center;font-size:12px;white-space:normal}.fb button{border:1px solid #cbd2dc;background:#fff;border-radius:6px;padding:2px 8px;cursor:pointer;font-size:13px}.fb button svg{display:block;margin:2px 0}.fb button[aria-pressed=true]{border-color:var(--accent);background:#eef3ff}.fb input{flex:1 1 100%;padding:5px;border:1px solid #cbd2dc;border-radius:6px}" +
    ".sources{font-size:12px;color:#475467;margin-top:6px}.sources ol{margin:4px 0 0 18px;padding:0}.sources summary{cursor:pointer;overflow-wrap:anywhere}" +
    ".passage{max-height:160px;overflow-y:auto;margin:4px 0;padding:6px 8px;background:#fff;border-left:3px solid var(--accent);color:#1c2430}.passage mark{background:#fff3a3;color:inherit}" +
    "form{display:flex;gap:8px;padding:10px;border-top:1px solid #e5e7eb}" +
    "textarea{flex:1;resize:none;height:42px;padding:9px;border:1px solid #cbd2dc;border-radius:8px;font-size:14px}" +
    "form button{border:0;border-radius:8px;background:var(--accent);color:var(--on-accent);padding:0 14px;cursor:pointer}" +
    ".mem{flex:1;overflow-y:auto;padding:12px;font-size:14px}.mem[hidden]{display:none}.mem ul{list-style:none;padding:0;margin:0}" +
    ".mem li{border-bottom:1px solid #e5e7eb;padding:8px 0}.mem small{color:#475467;display:block}" +
    ".mem .row{display:flex;gap:6px;flex-wrap:wrap;margin-top:6px}.mem button,.memtoggle,.newchat{border:1px solid var(--accent);background:#fff;color:var(--accent);border-radius:6px;padding:3px 8px;cursor:pointer;font-size:12px}" +
    ".mem input[type=text]{width:100%;padding:6px;border:1px solid #cbd2dc;border-radius:6px}.memtoggle,.newchat{background:transparent;color:var(--on-accent);border-color:var(--on-accent)}" +
    "@media (max-width:480px){.panel,:host([data-position=left]) .panel{right:6px;left:6px;width:auto;bottom:80px;height:calc(100vh - 96px)}}" +
    "</style>" +
    '<button class="fab" type="button" aria-haspopup="dialog" aria-expanded="false"></button>' +
    '<section class="panel" role="dialog" aria-modal="false" hidden>' +
    '<header><span class="title"></span><span><button type="button" class="newchat"></button> <button type="button" class="memtoggle"></button> <button type="button" class="close"></button></span></header>' +
    '<div class="mem" hidden></div>' +
    '<div class="log" role="log" aria-live="polite" aria-relevant="additions"></div>' +
    '<form><label class="sr" style="position:absolute;left:-9999px" for="pb-input"></label>' +
    '<textarea id="pb-input" rows="1" maxlength="4000"></textarea><button type="submit"></button></form>' +
    "</section>";
  function setAccent(colour) {
    [root.host, root.querySelector(".panel")].forEach(function (node) {
      node.style.setProperty("--accent", colour);
      node.style.setProperty("--on-accent", readableOn(colour));
    });
  }
  function readableOn(colour) {
    // White or near-black, whichever contrasts more with the colour (WCAG luminance).
    if (!HEX.test(colour)) return "#fff";
    function channel(i) {
      var c = parseInt(colour.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    }
    return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5) > 0.179 ? "#111827" : "#fff";
  }
  setAccent(accent);

  var fab = root.querySelector(".fab");
  var panel = root.querySelector(".panel");
  var log = root.querySelector(".log");
  var form = root.querySelector("form");
  var input = root.querySelector("textarea");
  var close = root.querySelector(".close");
  function setIcon(name) {
    fab.innerHTML = svgIcon(name, 26);
  }
  setIcon("chat");
  fab.setAttribute("aria-label", TEXT.open);
  root.querySelector(".title").textContent = title;
  panel.setAttribute("aria-label", title);
  close.textContent = "\u00D7";
  close.setAttribute("aria-label", TEXT.close);
  root.querySelector("label").textContent = TEXT.placeholder;
  input.placeholder = TEXT.placeholder;
  form.querySelector("button").textContent = TEXT.send;

  function toggle(open) {
    panel.hidden = !open;
    fab.setAttribute("aria-expanded", String(open));
    if (open) input.focus(); else fab.focus();
  }
  fab.addEventListener("click", function () { toggle(panel.hidden); });
  close.addEventListener("click", function () { toggle(false); });
  panel.addEventListener("keydown", function (e) { if (e.key === "Escape") toggle(false); });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });

  function bubble(kind, text) {
    var node = document.createElement("div");
    node.className = "msg " + kind;
    node.textContent = text;
    if (kind === "error") node.setAttribute("role", "alert");
    log.appendChild(node);
    log.scrollTop = log.scrollHeight;
    return node;
  }

  function showSources(node, citations) {
    if (!citations.length) return;
    var box = document.createElement("div");
    box.className = "sources";
    box.textContent = TEXT.sources + ":";
    var list = document.createElement("ol");
    citations.forEach(function (c) {
      // Each source opens to its passage, the sentence the answer relied on marked.
      var item = document.createElement("li");
      var more = document.createElement("details");
      var name = document.createElement("summary");
      name.textContent = (c.curated ? TEXT.curated + ": " : "") + c.document + (c.page ? ", " + TEXT.page + " " + c.page : "") + (c.section ? " — " + c.section : "");
      var passage = document.createElement("p");
      passage.className = "passage";
      var text = c.excerpt || "";
      var at = c.quote ? text.indexOf(c.quote) : -1;
      if (at < 0) passage.textContent = text;
      else {
        var mark = document.createElement("mark");
        mark.textContent = c.quote;
        passage.append(text.slice(0, at), mark, text.slice(at + c.quote.length));
        more.addEventListener("toggle", function () { if (more.open) mark.scrollIntoView({ block: "nearest" }); });
      }
      more.append(name, passage);
      item.appendChild(more);
      list.appendChild(item);
    });
    box.appendChild(list);
    node.appendChild(box);
  }

  function handle(event, node, state) {
    if (event.name === "delta") { state.text += event.data.text; node.firstChild.textContent = state.text; }
    else if (event.name === "citations") showSources(node, event.data);
    else if (event.name === "done") {
      try { localStorage.setItem(sessionKey, event.data.session_id); } catch (e) {}
      showAnswer(node, event.data.html, event.data.answer_id);
    }
    else if (event.name === "error") { node.className = "msg error"; node.setAttribute("role", "alert"); node.firstChild.textContent = TEXT.error + ": " + event.data.detail; }
    log.scrollTop = log.scrollHeight;
  }

  // The answer's Markdown arrives as HTML the server made safe; it is copied in through this
  // allow-list anyway (the browser parses it inert, nothing runs): tags below, http(s) links.
  var TAGS = /^(P|BR|STRONG|EM|CODE|PRE|UL|OL|LI|A|BLOCKQUOTE|H1|H2|H3|H4)$/;
  function copySafe(from, to) {
    from.childNodes.forEach(function (n) {
      if (n.nodeType === 3) { to.appendChild(document.createTextNode(n.textContent)); return; }
      if (n.nodeType !== 1) return;
      if (!TAGS.test(n.tagName)) { copySafe(n, to); return; }
      var el = document.createElement(n.tagName === "A" ? "a" : n.tagName.toLowerCase());
      if (n.tagName === "A") {
        var href = n.getAttribute("href") || "";
        if (/^(https?:|mailto:)/i.test(href)) { el.href = href; el.target = "_blank"; el.rel = "noopener noreferrer"; }
      }
      copySafe(n, el);
      to.appendChild(el);
    });
  }
  function showAnswer(node, html, answerId) {
    if (html) {
      var body = document.createElement("div");
      body.className = "md";
      copySafe(new DOMParser().parseFromString(html, "text/html").body, body);
      node.replaceChild(body, node.firstChild);
    }
    if (answerId) feedback(node, answerId);
  }
  // 👍 / 👎 under an answer; a 👎 asks why (optional) and for a comment (optional).
  function feedback(node, answerId) {
    var row = document.createElement("div");
    row.className = "fb";
    function send(rating, reason, comment) {
      return fetch(api + "/api/v1/feedback", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: "Widget " + token },
        body: JSON.stringify({ answer_id: answerId, rating: rating, reason: reason || "", comment: comment || "" })
      }).then(function (r) { if (r.ok) { row.textContent = TEXT.thanks; row.setAttribute("role", "status"); } });
    }
    var up = button("", function () { send("up"); });
    var down = button("", function () {
      down.setAttribute("aria-pressed", "true");
      var reasons = ["wrong", "incomplete", "outdated", "not_asked"], chosen = "";
      var why = document.createElement("span");
      why.textContent = TEXT.why;
      var note = document.createElement("input");
      note.type = "text"; note.maxLength = 1000; note.placeholder = TEXT.comment; note.setAttribute("aria-label", TEXT.comment);
      row.replaceChildren(why);
      reasons.forEach(function (code, i) {
        var b = button(TEXT.reasons[i], function () {
          chosen = code;
          row.querySelectorAll("button[data-reason]").forEach(function (o) { o.setAttribute("aria-pressed", String(o === b)); });
        });
        b.dataset.reason = code;
        b.setAttribute("aria-pressed", "false");
        row.appendChild(b);
      });
      row.append(note, button(TEXT.send, function () { send("down", chosen, note.value.trim()); }));
      note.focus();
    });
    up.innerHTML = svgIcon("up", 16);
    down.innerHTML = svgIcon("down", 16);
    up.setAttribute("aria-label", TEXT.up);
    down.setAttribute("aria-label", TEXT.down);
    up.title = TEXT.up;
    down.title = TEXT.down;
    row.append(up, down);
    node.appendChild(row);
  }

  function parse(block) {
    var name = "message", data = "";
    block.split("\n").forEach(function (line) {
      if (line.indexOf("event:") === 0) name = line.slice(6).trim();
      else if (line.indexOf("data:") === 0) data += line.slice(5).trim();
    });
    return { name: name, data: data ? JSON.parse(data) : {} };
  }

  function ask(message) {
    bubble("user", message);
    var node = bubble("bot", "");
    node.appendChild(document.createTextNode(""));
    node.setAttribute("aria-busy", "true");
    var state = { text: "" };
    var session = null;
    try { session = localStorage.getItem(sessionKey); } catch (e) {}
    // A 503 (the database or Redis restarting) kept nothing: the question is sent again
    // once, after the Retry-After the server asks for (at most 10 s).
    function send(retried) {
      return fetch(api + "/api/v1/chat/stream", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: "Widget " + token },
        body: JSON.stringify({ message: message, session_id: session || "", lang: ["es", "pt", "en"].indexOf(lang) >= 0 ? lang : undefined })
      }).then(function (response) {
        if (response.status !== 503 || retried) return response;
        var wait = Math.min(10, Number(response.headers.get("Retry-After")) || 5);
        return new Promise(function (done) { setTimeout(done, wait * 1000); }).then(function () { return send(true); });
      });
    }
    return send(false).then(function (response) {
      if (!response.ok) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          handle({ name: "error", data: { detail: body.detail || response.status + " " + response.statusText } }, node, state);
        });
      }
      var reader = response.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) return;
          buffer += decoder.decode(chunk.value, { stream: true });
          var blocks = buffer.split("\n\n");
          buffer = blocks.pop();
          blocks.forEach(function (block) { if (block.trim()) handle(parse(block), node, state); });
          return pump();
        });
      }
      return pump();
    }).catch(function () {
      // The browser hides why (CORS refused for a revoked license, the network down).
      node.className = "msg error"; node.setAttribute("role", "alert"); node.firstChild.textContent = TEXT.unavailable;
    }).then(function () { node.removeAttribute("aria-busy"); });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var message = input.value.trim();
    if (!message) return;
    input.value = "";
    var chips = log.querySelector(".chips");
    if (chips) chips.remove();
    form.querySelector("button").disabled = true;
    ask(message).then(function () { form.querySelector("button").disabled = false; input.focus(); });
  });

  // -- The conversation so far: the server's session is the truth, the page only keeps its id.
  function restore() {
    var session = null;
    try { session = localStorage.getItem(sessionKey); } catch (e) {}
    var query = "?lang=" + encodeURIComponent(lang) + (session ? "&session_id=" + encodeURIComponent(session) : "");
    fetch(api + "/api/v1/chat/session" + query, { headers: { Authorization: "Widget " + token } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (data && data.assistant) present(data.assistant);
        reveal();
        if (!data || log.childNodes.length) return;
        if (!data.turns.length) {
          var assistant = data.assistant || {};
          bubble("bot", assistant.greeting || (data.user_name ? TEXT.greeting.replace("{name}", function () { return data.user_name; }) : TEXT.hello));
          suggest(assistant.suggestions || []);
          return;
        }
        data.turns.forEach(function (turn) {
          var node = bubble(turn.role === "user" ? "user" : "bot", "");
          node.appendChild(document.createTextNode(turn.text));
          if (turn.citations) showSources(node, turn.citations);
          if (turn.role !== "user") showAnswer(node, turn.html, turn.answer_id);
        });
      })
      .catch(reveal);
  }
  function reveal() { clearTimeout(shown); host.style.visibility = ""; }

  // The license's assistant as set in the console; the page's own data-title/data-accent win.
  function present(assistant) {
    if (!script.dataset.title && assistant.title) {
      title = assistant.title;
      root.querySelector(".title").textContent = title;
      panel.setAttribute("aria-label", title);
    }
    if (!ownAccent && HEX.test(assistant.color || "")) setAccent(assistant.color);
    if (assistant.position === "left") host.setAttribute("data-position", "left");
    setIcon(assistant.icon);
  }

  // Suggested questions, offered until the first question is asked.
  function suggest(questions) {
    if (!questions.length) return;
    var chips = document.createElement("div");
    chips.className = "chips";
    questions.slice(0, 4).forEach(function (question) {
      chips.appendChild(button(question, function () { chips.remove(); ask(question); }));
    });
    log.appendChild(chips);
  }
  restore();

  // -- My memories ---------------------------------------------------------------------
  var memView = root.querySelector(".mem");
  var memToggle = root.querySelector(".memtoggle");
  memToggle.textContent = TEXT.memories;
  // A new conversation: the next question starts a session of its own, the old one is kept.
  var newChatButton = root.querySelector(".newchat");
  newChatButton.textContent = "+";
  newChatButton.title = TEXT.newChat;
  newChatButton.setAttribute("aria-label", TEXT.newChat);
  function newChat() {
    try { localStorage.removeItem(sessionKey); } catch (e) {}
    showMemories(false);
    log.textContent = "";
    restore();
    input.focus();
  }
  newChatButton.addEventListener("click", newChat);

  function meApi(path, options) {
    options = options || {};
    options.headers = Object.assign({ Authorization: "Widget " + token, "Content-Type": "application/json" }, options.headers || {});
    return fetch(api + "/api/v1/me/" + path, options).then(function (r) {
      if (r.status === 204) return {};
      return r.json().then(function (body) { if (!r.ok) throw new Error(body.detail || r.statusText); return body; });
    });
  }
  function button(text, onClick) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }
  function showMemories(open) {
    memView.hidden = !open;
    log.hidden = open;
    form.hidden = open;
    memToggle.textContent = open ? TEXT.back : TEXT.memories;
    if (open) loadMemories();
  }
  memToggle.addEventListener("click", function () { showMemories(memView.hidden); });

  function loadMemories() {
    meApi("memories").then(renderMemories).catch(function (e) { memView.textContent = TEXT.error + ": " + e.message; });
  }
  function renderMemories(data) {
    memView.replaceChildren();
    var label = document.createElement("label");
    var box = document.createElement("input");
    box.type = "checkbox";
    box.checked = data.consent;
    box.addEventListener("change", function () {
      if (!box.checked && !confirm(TEXT.withdraw)) { box.checked = true; return; }
      meApi("consent", { method: "POST", body: JSON.stringify({ given: box.checked }) }).then(loadMemories);
    });
    label.append(box, document.createTextNode(" " + TEXT.consent));
    memView.appendChild(label);
    var list = document.createElement("ul");
    if (!data.memories.length) memView.appendChild(Object.assign(document.createElement("p"), { textContent: TEXT.none }));
    data.memories.forEach(function (m) {
      var item = document.createElement("li");
      var what = document.createElement("div");
      what.textContent = m.description;
      var when = document.createElement("small");
      when.textContent = new Date(m.created_at).toLocaleString(lang) + (m.source_message ? " · " + TEXT.said + ": “" + m.source_message + "”" : "");
      var row = document.createElement("div");
      row.className = "row";
      if (m.pending) {
        var note = document.createElement("small");
        note.textContent = TEXT.pending;
        item.appendChild(note);
        row.append(button(TEXT.confirm, function () { meApi("memories/" + m.id + "/confirm", { method: "POST" }).then(loadMemories); }));
      }
      row.append(
        button(TEXT.edit, function () {
          var input = document.createElement("input");
          input.type = "text";
          input.value = m.description;
          input.setAttribute("aria-label", TEXT.edit);
          function save() {
            meApi("memories/" + m.id, { method: "PATCH", body: JSON.stringify({ description: input.value }) })
              .then(loadMemories).catch(function (e) { alert(e.message); });
          }
          input.addEventListener("keydown", function (event) {
            if (event.key === "Enter") { event.preventDefault(); save(); }
            else if (event.key === "Escape") { event.preventDefault(); loadMemories(); }
          });
          what.replaceChildren(input, button(TEXT.save, save), button(TEXT.cancel, loadMemories));
          input.focus();
        }),
        button(TEXT.forget, function () { meApi("memories/" + m.id, { method: "DELETE" }).then(loadMemories); })
      );
      item.append(what, when, row);
      list.appendChild(item);
    });
    memView.appendChild(list);
    var actions = document.createElement("div");
    actions.className = "row";
    actions.append(
      button(TEXT.forgetAll, function () { if (confirm(TEXT.forgetAllAsk)) meApi("memories", { method: "DELETE" }).then(loadMemories); }),
      button(TEXT.download, function () {
        fetch(api + "/api/v1/me/export", { headers: { Authorization: "Widget " + token } })
          .then(function (r) { return r.blob(); })
          .then(function (blob) {
            var link = document.createElement("a");
            link.href = URL.createObjectURL(blob);
            link.download = "my-data.json";
            root.appendChild(link);
            link.click();
            link.remove();
          });
      }),
      button(TEXT.wipe, function () { if (confirm(TEXT.wipeAsk)) meApi("conversations", { method: "DELETE" }).then(newChat); })
    );
    // Nothing to forget: the button says so by being off.
    actions.firstChild.disabled = !data.memories.length;
    memView.appendChild(actions);
  }

  (document.body || document.documentElement).appendChild(host);
})();
