"""No models of its own: roles are Django's groups and permissions (roles.py). The module
exists so that Django sends this app post_migrate, which brings the roles up to date."""
