"""Hugging Face hub client helpers: the hub's endpoint, its offline switch, a quick
reachability probe, fetching one dataset file into a hub cache, and reading its errors.
``huggingface_hub`` is imported lazily inside the functions, so importing this module stays
cheap."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from pytest_audiobench.errors import DownloadError
from pytest_audiobench.hub.network import env, first_endpoint, short_reason

HF_DEFAULT_ENDPOINT = "https://huggingface.co"
# huggingface_hub reads HF_ENDPOINT once, when it is imported; resolve_hf_endpoint reads it
# per call.
HF_ENDPOINT_ENV_VARS: tuple[str, ...] = ("HF_ENDPOINT",)
# The variables with which huggingface_hub turns its network access off.
_HF_OFFLINE_ENV_VARS: tuple[str, ...] = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_TRUE_VALUES = frozenset({"1", "ON", "YES", "TRUE"})
# The reachability probe before huggingface_hub is called: one request, no retry; seconds for
# each of connect, read (and write, pool with httpx).
_HF_PROBE_TIMEOUT = 6.0


def resolve_hf_endpoint(endpoint: str | None = None) -> str:
    """The Hugging Face hub URL to use: `endpoint`, else HF_ENDPOINT (read at this call, not
    when huggingface_hub was imported), else https://huggingface.co. A bare host gets
    ``https://``; a trailing slash is dropped."""
    return first_endpoint([endpoint, *env(HF_ENDPOINT_ENV_VARS)], HF_DEFAULT_ENDPOINT)


def hf_offline() -> bool:
    """Whether huggingface_hub must not use the network: HF_HUB_OFFLINE (or
    TRANSFORMERS_OFFLINE) is true now, or was when huggingface_hub was imported."""
    from huggingface_hub import constants

    now = any((v or "").strip().upper() in _TRUE_VALUES for v in env(_HF_OFFLINE_ENV_VARS))
    return now or bool(getattr(constants, "HF_HUB_OFFLINE", False))


def hf_probe(endpoint: str, repo_id: str) -> None:
    """One request to the hub, no retry; raises the transport error when nothing answers.

    Any HTTP answer, even an error status, counts as reachable: the statuses are left to
    huggingface_hub. huggingface_hub's own session is used, so its proxy and CA settings apply.
    """
    from huggingface_hub import get_session

    get_session().head(
        f"{endpoint}/api/datasets/{repo_id}",
        timeout=_HF_PROBE_TIMEOUT,
        headers={"User-Agent": "pytest-audiobench"},
    )


def hf_fetch(
    repo_id: str, filename: str, *, hub_cache: Path, endpoint: str, local_only: bool
) -> Path:
    from huggingface_hub import hf_hub_download

    return Path(
        hf_hub_download(
            repo_id,
            filename,
            repo_type="dataset",
            cache_dir=hub_cache,
            endpoint=endpoint,
            local_files_only=local_only,
        )
    )


def is_missing(exc: BaseException, *, local: bool) -> bool:
    """Whether `exc` says the file is not there: on the hub (``local=False``: HTTP 404 with
    ``X-Error-Code: EntryNotFound``) or in the hub cache (``local=True``)."""
    # Public names of huggingface_hub.utils in 0.23 as in 2.x (huggingface_hub.errors is newer);
    # 2.x re-exports them lazily, which mypy does not see.
    from huggingface_hub.utils import (  # type: ignore[attr-defined]
        EntryNotFoundError,
        LocalEntryNotFoundError,
    )

    # LocalEntryNotFoundError is an EntryNotFoundError too (0.23 as well as 1.x and 2.x).
    return isinstance(exc, EntryNotFoundError) and (
        isinstance(exc, LocalEntryNotFoundError) == local
    )


def hf_reason(exc: BaseException, host: str | None) -> str:
    """A short reason for a failed huggingface_hub download. When the metadata request failed
    and the file was not cached either, huggingface_hub raises LocalEntryNotFoundError from
    the request's error: that error is the reason."""
    cause = exc.__cause__ if is_missing(exc, local=True) and exc.__cause__ else exc
    response = getattr(cause, "response", None)
    status = getattr(response, "status_code", None)
    if isinstance(status, int):
        request = getattr(response, "request", None)
        asked = f"{request.method} {request.url}" if request is not None else "a request"
        hint = ""
        if status == 404 and not getattr(response, "headers", {}).get("X-Error-Code"):
            hint = " without the Hugging Face hub's error headers (is it a Hugging Face hub?)"
        return f"{asked} got HTTP {status}{hint}"
    return short_reason(cause, host=host)


def uncached_error(what: str, hub: str, hub_cache: Path, fix: str, *, offline: bool,
                   unreachable: BaseException | None) -> DownloadError | None:
    """The one line for files the hub cache lacks when the hub could not be asked: it was
    ``unreachable`` (the probe's error), or HF_HUB_OFFLINE is set; None when it could be."""
    if unreachable is not None:
        reason = short_reason(unreachable, host=urlsplit(hub).hostname)
        return DownloadError(f"cannot download {what} from {hub}: {reason} (and the hub cache "
                             f"{hub_cache} does not have the files); {fix}")
    if offline:
        return DownloadError(f"cannot download {what}: HF_HUB_OFFLINE is set and the hub cache "
                             f"{hub_cache} does not have the files; unset HF_HUB_OFFLINE, or "
                             f"{fix}")
    return None
