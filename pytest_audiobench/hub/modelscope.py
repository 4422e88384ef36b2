"""ModelScope hub client helpers: the hub's endpoint and a quick reachability probe.
``requests`` is imported lazily inside :func:`probe`, so importing this module stays cheap."""

from __future__ import annotations

from pytest_audiobench.hub.network import env, first_endpoint

DEFAULT_ENDPOINT = "https://www.modelscope.cn"
# Read in this order when no endpoint is passed. MODELSCOPE_ENDPOINT is the variable of
# modelscope >= 1.38 (modelscope-hub); MODELSCOPE_DOMAIN is the older, deprecated one.
ENDPOINT_ENV_VARS: tuple[str, ...] = ("MODELSCOPE_ENDPOINT", "MODELSCOPE_DOMAIN")

# The reachability probe: connect and read timeouts in seconds, one attempt, no retries.
_PROBE_TIMEOUT = (5.0, 8.0)


def resolve_endpoint(endpoint: str | None = None) -> str:
    """The hub URL to use: `endpoint`, else MODELSCOPE_ENDPOINT, else MODELSCOPE_DOMAIN, else
    https://www.modelscope.cn. A bare host gets ``https://``; a trailing slash is dropped."""
    return first_endpoint([endpoint, *env(ENDPOINT_ENV_VARS)], DEFAULT_ENDPOINT)


def probe(endpoint: str, repo_id: str) -> None:
    """One quick request to the hub; raises the transport error when nothing answers.

    Any HTTP answer, even an error status, counts as reachable: the statuses are left to
    modelscope. This keeps an offline run from sitting through modelscope's own retries.
    """
    import requests  # modelscope's own HTTP client: same proxy and CA settings

    with requests.get(
        f"{endpoint}/api/v1/datasets/{repo_id}",
        timeout=_PROBE_TIMEOUT,
        stream=True,
        headers={"User-Agent": "pytest-audiobench"},
    ):
        pass
