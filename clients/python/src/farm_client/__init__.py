"""A client for the farm's HTTP API (docs/openapi.yaml), on Python's standard library alone."""
from .client import Client, FarmError
from .webhooks import verify_signature

__all__ = ["Client", "FarmError", "verify_signature"]
