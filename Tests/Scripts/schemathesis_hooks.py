"""A check schemathesis runs beside its own for HTTPAPITests.theAPIKeepsToItsOpenAPIFile: every
error the farm's HTTP API answers, on any path, with any method and status (those the OpenAPI
file lists and those it cannot, as 404 for no such call or 405), is the API's JSON shape:
`application/json`, an object with a string `error`, a string `path` when there is one, and
nothing else but `problems`. Loaded through SCHEMATHESIS_HOOKS."""
import json

import schemathesis


@schemathesis.check
def errors_are_the_apis_json(ctx, response, case):
    if response.status_code < 400:
        return None
    media_type = (response.headers.get("content-type") or [""])[0].split(";")[0].strip()
    if media_type != "application/json":
        raise AssertionError(f"a {response.status_code} answered {media_type or 'no'} content type, not application/json")
    try:
        body = json.loads(response.content)
    except ValueError as error:
        raise AssertionError(f"a {response.status_code} answered a body that is not JSON: {error}") from None
    if not isinstance(body, dict) or not isinstance(body.get("error"), str) or not body["error"]:
        raise AssertionError(f"a {response.status_code} answered JSON without a string 'error': {body!r}")
    if "path" in body and not isinstance(body["path"], str):
        raise AssertionError(f"a {response.status_code} answered a 'path' that is not a string: {body!r}")
    unknown = set(body) - {"error", "path", "problems"}
    if unknown:
        raise AssertionError(f"a {response.status_code} answered keys beyond the error shape: {sorted(unknown)}")
    return None
