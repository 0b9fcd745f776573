"""An answer's Markdown as the widget and the console show it."""

from __future__ import annotations

from chat.markdown import answer_html


def test_each_line_of_an_answer_keeps_its_own_line():
    # The offline answerer writes one quote per line; in a paragraph, CommonMark would run
    # them together into one block of text (the widget showed "«…» [1] «…» [1]" as prose).
    answer = "«La piscina abre a las ocho.» [1]\n«El gimnasio cierra a las diez.» [2]\n\n(Modo sin conexión.)"
    html = answer_html(answer)
    assert html == (
        "<p>«La piscina abre a las ocho.» [1]<br>\n«El gimnasio cierra a las diez.» [2]</p>\n"
        "<p>(Modo sin conexión.)</p>\n"
    )


def test_what_a_document_planted_stays_text_and_fetches_nothing():
    html = answer_html("Mira <script>alert(1)</script> y ![x](http://evil.test/p.png)")
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img" not in html  # a picture would be a request to its host; a link waits


def test_links_open_apart_and_only_web_or_mail():
    html = answer_html("[web](https://example.org) [js](javascript:alert(1))")
    assert '<a href="https://example.org" target="_blank" rel="noopener noreferrer">web</a>' in html
    assert 'href="javascript' not in html
