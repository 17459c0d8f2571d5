"""JupyterHub for a class on one server: see docs/deploy.md."""
