"""The request id on every log line (requests are timed by django-prometheus's middleware)."""

from __future__ import annotations

import logging

from django_guid.log_filters import CorrelationId

# Logging is configured before the apps load: importing the metrics here sets their
# multi-process directory before django-prometheus first imports prometheus_client.
import observability.metrics  # noqa: F401


class RequestIdLogFilter(CorrelationId):
    """django-guid's request id on each log record; "-" outside a request or task (a
    startup line), so the text format never reads "[None]"."""

    def filter(self, record: logging.LogRecord) -> bool:
        super().filter(record)
        if getattr(record, self.correlation_id_field, None) is None:
            setattr(record, self.correlation_id_field, "-")
        return True
