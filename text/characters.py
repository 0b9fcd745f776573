"""Characters that show other than what they are: the ones that render as nothing, and the
dashes that read as a hyphen. Who writes to dodge a filter uses them ("612\u200d345\u200d678",
"4111–1111–1111–1111"); whoever reads sees the plain text."""

from __future__ import annotations

import re

# Zero-width spaces and joiners, the word joiner and invisible operators, the BOM, the soft
# hyphen, and the marks that set a direction (a right-to-left override turns text around).
INVISIBLE_CHARS = (
    "\u00ad\u061c\u180e"
    + "".join(map(chr, range(0x200B, 0x2010)))
    + "".join(map(chr, range(0x202A, 0x202F)))
    + "".join(map(chr, range(0x2060, 0x206A)))
    + "\ufeff"
)
INVISIBLE = re.compile(f"[{re.escape(INVISIBLE_CHARS)}]")

# Hyphens, figure/en/em dashes, the minus sign and their small and full-width forms.
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"


def without_invisible(text: str) -> str:
    return INVISIBLE.sub("", text)
