"""An answer as safe HTML: what the widget and the console show of the model's Markdown.

markdown-it-py parses CommonMark with raw HTML switched off (a ``<script>`` a document
planted, quoted in an answer, becomes text), then nh3 (Rust's ammonia) keeps only the tags
an answer may have; links keep http(s) and mailto, and open in a new tab with
``rel="noopener noreferrer"``. The widget inserts the result through its own allow-list too.
"""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt

# "breaks": a line break in an answer is one on screen, as in any chat (the offline
# answerer's quotes, one per line, ran together into one paragraph).
_PARSER = MarkdownIt(
    "commonmark", {"html": False, "linkify": False, "typographer": False, "breaks": True}
)
_PARSER.disable(["image"])  # an answer shows no pictures: an image is a request to a host
TAGS = {"p", "br", "strong", "em", "code", "pre", "ul", "ol", "li", "a", "blockquote", "h1", "h2", "h3", "h4"}  # fmt: skip


def answer_html(markdown: str) -> str:
    html = _PARSER.render(markdown)
    return nh3.clean(
        html,
        tags=TAGS,
        attributes={"a": {"href"}, "ol": {"start"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
        set_tag_attribute_values={"a": {"target": "_blank"}},
    )
