"""Every language rule in one home: the three languages, which one a text is in, how text
is folded, stemmed and cut into sentences."""
