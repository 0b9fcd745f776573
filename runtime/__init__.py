"""Where the product runs: the embedded PostgreSQL and Redis, `make run`'s supervision of
its processes, the web server and the ASGI edge in front of Django, manage.py's preparation."""
