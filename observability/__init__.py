"""What the product says about itself: /healthz, /metrics and the request metrics and log
filters."""
