"""Deployment recipes (docs/deploy.md)."""
