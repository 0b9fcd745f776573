"""The REST framework's own messages that its Spanish and Portuguese catalogs get wrong,
corrected in ours (LOCALE_PATHS are read before an app's catalogs). Nothing here is called:
marking them keeps them in locale/ when ``make messages`` drops what the code no longer
says.

DRF's pt_BR says "Este campo pode não estar em branco" — "this field might not be blank" —
for "This field may not be blank." (a tour of the REST chat API in Portuguese), and its
Spanish "Solicitud fue regulada (throttled)" for a request over the rate limit."""

from __future__ import annotations

from django.utils.translation import gettext_noop

CORRECTED = (
    gettext_noop("This field is required."),
    gettext_noop("This field may not be blank."),
    gettext_noop("This field may not be null."),
    gettext_noop("This list may not be empty."),
    gettext_noop("Not a valid string."),
    gettext_noop("Ensure this value is greater than or equal to {min_value}."),
    gettext_noop("Request was throttled."),
    gettext_noop("You do not have permission to perform this action."),
    # said after "Request was throttled.", each form translated alone (not as a plural)
    gettext_noop("Expected available in {wait} second."),
    gettext_noop("Expected available in {wait} seconds."),
)
