"""Every language rule in one home: the three languages and how text is folded."""
