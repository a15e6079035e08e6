"""Job notifications: the farm POSTs a job's JSON once it ends, signed with its secret."""
import hashlib
import hmac


def verify_signature(secret, body, header):
    """Whether `header` (the request's X-Farm-Signature, `sha256=HEX`) is the HMAC-SHA256 of the
    exact `body` bytes under the farm's secret (`farm tokens notify-secret`). Compare before parsing:
    anyone can POST to a receiver."""
    if isinstance(secret, str):
        secret = secret.encode()
    expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header or "")
