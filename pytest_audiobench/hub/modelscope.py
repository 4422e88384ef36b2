"""ModelScope hub client helpers: the hub's endpoint, a quick reachability probe, and a
dataset snapshot with its failures said in one line, for any benchmark released there.
``requests`` and modelscope are imported lazily, so importing this module stays cheap."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_audiobench.errors import DownloadError
from pytest_audiobench.hub.network import env, first_endpoint, fix_hint, short_reason

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


def dataset_snapshot(repo_id: str, cache_dir: Path, root: Path, allow_patterns: Sequence[str],
                     what: str, hub: str, *, hint: str = "", also: str | None = None) -> Path:
    """Download the files of dataset ``repo_id`` matching ``allow_patterns`` into ``root``
    (modelscope's locks under ``cache_dir``) from ``hub``, probed first; the folder modelscope
    returns. DownloadError in one line naming ``what``, the cause and the fix (``hint``: where
    an earlier download is; ``also``: another id the dataset was published under)."""
    try:
        probe(hub, repo_id)
    except Exception as exc:
        raise DownloadError(f"cannot download {what} from {hub}: {short_reason(exc)}; "
                            f"{fix_hint(hub)}{hint}") from exc

    from modelscope.hub.snapshot_download import dataset_snapshot_download

    root.mkdir(parents=True, exist_ok=True)
    try:
        returned = dataset_snapshot_download(
            repo_id, cache_dir=str(cache_dir), local_dir=str(root),
            allow_patterns=list(allow_patterns), endpoint=hub)
    except Exception as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        cause = type(exc.__cause__).__name__ if exc.__cause__ is not None else ""
        if status == 404 or cause == "NotExistError":
            published = f" (it was also published as {also})" if also else ""
            raise DownloadError(
                f"cannot download {what}: {hub} has no dataset {repo_id} (HTTP 404); check the "
                f"dataset id{published}, or {fix_hint(hub)}") from exc
        raise DownloadError(
            f"cannot download {what} from {hub}: {short_reason(exc)}; files already fetched "
            f"are kept and a re-run fetches only the rest; else {fix_hint(hub)}{hint}") from exc
    return Path(returned)


def allow_patterns(paths: Sequence[str]) -> list[str]:
    """modelscope allow-patterns for ``paths``: a file as it is, a folder (ending in ``/``)
    with every file under it. modelscope matches each repo-relative file path with
    :func:`fnmatch.fnmatch`, whose ``*`` also matches ``/``, so ``Chat/<folder>/*`` covers
    files in nested subfolders too."""
    return [path + "*" if path.endswith("/") else path for path in paths]


def fetch_dataset(repo_id: str, paths: Sequence[str], cache_dir: Path, what: str, *,
                  layout: str, endpoint: str | None = None, also: str | None = None) -> Path:
    """Download the ``paths`` of ModelScope dataset ``repo_id`` (a path ending in ``/`` is a
    folder and everything under it) into ``cache_dir/<owner>--<name>``, and return that
    release root. A re-run lists the dataset again and fetches only what is missing or
    changed. The hub is ``endpoint``, else ``MODELSCOPE_ENDPOINT``, else ModelScope's own.
    DownloadError in one line naming ``what`` when the hub cannot be reached, has no such
    dataset (``also``: another id it was published under), or the paths are not there after
    the download (``layout``: what the dataset should hold)."""
    hub = resolve_endpoint(endpoint)
    cache_dir = Path(cache_dir).expanduser().resolve()
    root = cache_dir / repo_id.replace("/", "--")
    wanted = [path.rstrip("/") for path in paths]
    complete = all((root / path).is_file() or ((root / path).is_dir()
                                               and any((root / path).iterdir()))
                   for path in wanted)
    hint = (f" (an earlier download of these folders is in {root}: pass --audiobench-data "
            f"{root})") if complete else ""
    got = dataset_snapshot(repo_id, cache_dir, root, allow_patterns(paths),
                           f"{what} ({repo_id}: {', '.join(paths)})", hub, hint=hint, also=also)
    missing = [path for path in wanted if not (got / path).exists()]
    if missing:
        raise DownloadError(
            f"unexpected layout of dataset {repo_id} at {hub}: after the download {got} lacks "
            f"{', '.join(missing)} (expected {layout}); {fix_hint(hub)}")
    return got
