"""Who may do what in the console: roles as Django groups with permissions, and the
`grant_role` command."""
