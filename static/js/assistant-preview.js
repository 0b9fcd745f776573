// The assistant page's preview: draws the widget as its users will see it, from the form as
// it is being filled. An empty field shows what it inherits (preview-texts). Text is always
// set as text; the launcher icons are this script's own constants (the widget's, the same).
(function () {
  "use strict";
  const ICONS = {
    chat: '<path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z"/>',
    help: '<circle cx="12" cy="12" r="10"/><path d="M9.1 9a3 3 0 0 1 5.8 1c0 2-3 3-3 3"/><path d="M12 17h.01"/>',
    spark: '<path d="M12 3l1.9 5.8L20 10.7l-5 3.7 1.8 6-4.8-3.6-4.8 3.6 1.8-6-5-3.7 6.1-1.9z"/>',
  };

  function readableOn(colour) {
    // White or near-black text, whichever contrasts more with the colour (WCAG luminance).
    const channel = (i) => {
      const c = parseInt(colour.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    };
    const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
    return luminance > 0.179 ? "#111827" : "#ffffff";
  }

  function start() {
    const preview = document.getElementById("widget-preview");
    const form = document.getElementById("assistant-form");
    const data = document.getElementById("preview-texts");
    if (!preview || !form || !data) return;
    const inherited = JSON.parse(data.textContent);
    const lang = preview.dataset.lang in { es: 1, pt: 1, en: 1 } ? preview.dataset.lang : "en";
    const value = (name) => (form.elements[name] ? form.elements[name].value.trim() : "");

    function draw() {
      const name = value("name") || inherited.name;
      const colourInput = value("widget_color");
      const colour = /^#[0-9a-f]{6}$/i.test(colourInput) ? colourInput : inherited.widget_color;
      preview.style.setProperty("--wp-accent", colour);
      preview.style.setProperty("--wp-on-accent", readableOn(colour));
      preview.querySelector(".wp-title").textContent = value("widget_title") || inherited.widget_title || name;
      preview.dataset.position = value("widget_position") || inherited.widget_position;
      const icon = ICONS[value("launcher_icon") || inherited.launcher_icon] || ICONS.chat;
      preview.querySelector(".wp-fab").innerHTML =
        '<svg width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">' + icon + "</svg>";
      const custom = value("greeting_" + lang) || inherited.greeting;
      let greeting;
      if (custom) {
        greeting = inherited.user_name
          ? custom.split("{user_name}").join(inherited.user_name)
          : custom.replace(/,?\s*\{user_name\}/g, "");
      } else {
        greeting = inherited.standard_greeting.replace("{user_name}", inherited.user_name).replace("{name}", name);
      }
      preview.querySelector(".wp-greeting").textContent = greeting;
      const typed = value("suggestions").split("\n").map((q) => q.trim()).filter(Boolean);
      const chips = preview.querySelector(".wp-chips");
      chips.replaceChildren(
        ...(typed.length ? typed : inherited.suggestions).slice(0, 4).map((question) => {
          const chip = document.createElement("span");
          chip.className = "wp-chip";
          chip.textContent = question;
          return chip;
        })
      );
    }
    form.addEventListener("input", draw);
    form.addEventListener("change", draw);
    draw();
  }
  document.addEventListener("DOMContentLoaded", start);
})();
