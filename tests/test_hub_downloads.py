"""The Hugging Face downloads, held once for every built-in benchmark whose spec declares the
source "huggingface" (issue 54), read from the registry: a new hub-backed benchmark is held
here too, or fails here, named, until ``tests/fakes/hub_repos.FAKE_REPOS`` can make its repo.

Each benchmark's repo is made from its bundled mini release by its maker in
``tests/fakes/hub_repos.py`` and served by a local fake hub; the download is called as a run
calls it (``registry.create(...).download("huggingface")``, the hub from HF_ENDPOINT), and
what it leaves is read by the benchmark's own reader and must be the mini release again. What
each download has of its own (bad rows of its format, only a split's or a language's files
fetched, an unsafe archive) is in that benchmark's tests."""

from __future__ import annotations

import gzip
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.base import Benchmark
from pytest_audiobench.benchmarks.release import mini_root
from pytest_audiobench.errors import DownloadError
from pytest_audiobench.hub.converting import pyarrow_install
from tests.conftest import assert_one_line_naming
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.hub_repos import FAKE_REPOS, FakeRepo
from tests.fakes.serving import at_once, closed_port
from tests.fakes.static_files import StaticFiles
from tests.settings import make_settings

# Every test here keeps huggingface_hub out of the real home (``conftest.py``).
pytestmark = pytest.mark.usefixtures("isolated_hf")

SOURCE = "huggingface"
HUB_BACKED = tuple(name for name in registry.built_in()
                   if SOURCE in registry.catalog().specs[name].sources)
CARD = "README.md"
PARQUET = ".parquet"


@pytest.fixture(params=HUB_BACKED)
def name(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture
def fake(name: str) -> FakeRepo:
    if name not in FAKE_REPOS:
        pytest.fail(f"{name} declares the source {SOURCE!r} and tests/fakes/hub_repos.py has "
                    "no fake repo for it: add its maker to FAKE_REPOS", pytrace=False)
    return FAKE_REPOS[name]


@pytest.fixture
def repo(name: str, fake: FakeRepo, tmp_path: Path) -> Path:
    """The benchmark's hub repo, made from its mini release; served as it is on disk, so a
    test that changes a file changes what the hub serves."""
    return fake.make(mini_root(name), tmp_path / "remote" / name)


@pytest.fixture
def hub(fake: FakeRepo, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHfHub]:
    with FakeHfHub({fake.repo_id: repo}, lfs_patterns=PARQUET_AS_LFS) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        yield server


Made = Callable[[], Benchmark]


@pytest.fixture
def benchmark(name: str, fake: FakeRepo, tmp_path: Path) -> Iterator[Made]:
    """Makes the benchmark as a run that downloads it makes it, its cache in
    ``tmp_path/cache``; what its download fetches from elsewhere than the hub is served on
    127.0.0.1 beside it (``FakeRepo.beside``)."""
    with StaticFiles(fake.beside()) as beside:
        options = dict(fake.selects)
        if fake.beside_option:
            options[fake.beside_option] = beside.url()

        def made() -> Benchmark:
            settings = make_settings(tmp_path, model="random", judge_model="overlap",
                                     data=SOURCE, benchmark=(name,),
                                     cache_dir=tmp_path / "cache", **options)
            return registry.create(name, settings)

        yield made


Read = tuple[str, str, str, str, tuple[str, ...], bytes]


def records(bench: Benchmark, root: Path) -> list[Read]:
    """What the benchmark's own reader reads at `root`, in the release's order."""
    return [(s.id, s.task, s.question, s.reference, s.choices, s.audio.read_bytes())
            for s in bench.load(root).samples]


def assert_the_mini_release(bench: Benchmark, root: Path) -> None:
    got, mini = records(bench, root), records(bench, mini_root(bench.name))
    assert [r[0] for r in got] == [r[0] for r in mini]
    assert got == mini


def data_files(repo: Path) -> list[str]:
    """The repo's files but its card: what a download of the repo fetches (the first test
    holds that)."""
    return sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*")
                  if p.is_file() and p.name != CARD)


def written(root: Path) -> dict[str, tuple[int, int]]:
    """Each file under `root` (hidden ones too: the markers) with its inode and modification
    time, which writing it again changes."""
    return {p.relative_to(root).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def names_the_files(message: str, names: Iterable[str]) -> bool:
    """Whether `message` names each file, or the pattern its kind is found by (a parquet
    release's files are every ``*.parquet`` file of the repo, whatever their names)."""
    return all(name in message or (name.endswith(PARQUET) and f"*{PARQUET}" in message)
               for name in names)


def rewrite_the_same(repo: Path) -> str:
    """The repo's first parquet file or tar.gz archive, written again with the same content
    in other bytes (another compression); its name."""
    for name in data_files(repo):
        path = repo / name
        before = path.read_bytes()
        if name.endswith(PARQUET):
            import pyarrow.parquet as pq  # type: ignore[import-untyped]

            pq.write_table(pq.read_table(path), path, compression="gzip")
        elif name.endswith(".tar.gz"):
            path.write_bytes(gzip.compress(gzip.decompress(before), compresslevel=1))
        else:
            continue
        assert path.read_bytes() != before
        return name
    pytest.fail(f"{repo} has no parquet file nor tar.gz archive to write again", pytrace=False)


# --- the registry and the fakes ---------------------------------------------------------------


def test_every_hub_backed_benchmark_has_a_fake_repo_and_only_they_do() -> None:
    assert HUB_BACKED, f"no built-in benchmark declares the source {SOURCE!r}"
    assert sorted(FAKE_REPOS) == sorted(HUB_BACKED)


# --- downloading ------------------------------------------------------------------------------


def test_each_file_is_fetched_once_and_the_reader_reads_the_release_it_came_from(
    name: str, benchmark: Made, hub: FakeHfHub, repo: Path, tmp_path: Path
) -> None:
    bench = benchmark()

    root = bench.download(SOURCE)

    assert root.is_dir() and root.is_relative_to((tmp_path / "cache").resolve())
    assert sorted(hub.downloaded) == data_files(repo)
    assert_the_mini_release(bench, root)


def test_a_second_call_downloads_nothing_and_converts_nothing(
    name: str, benchmark: Made, hub: FakeHfHub, tmp_path: Path
) -> None:
    bench = benchmark()
    root = bench.download(SOURCE)
    downloaded, files = hub.downloaded, written(root)

    again = bench.download(SOURCE)

    assert again == root
    assert hub.downloaded == downloaded
    assert written(root) == files


def test_a_changed_file_is_downloaded_and_converted_again(
    name: str, benchmark: Made, hub: FakeHfHub, repo: Path, tmp_path: Path
) -> None:
    bench = benchmark()
    root = bench.download(SOURCE)
    seen, files = len(hub.downloaded), written(root)
    changed = rewrite_the_same(repo)

    again = bench.download(SOURCE)

    assert again == root
    assert hub.downloaded[seen:] == [changed]
    now = written(root)
    assert [path for path in now if now[path] != files.get(path)], "nothing was converted again"
    assert_the_mini_release(bench, root)
    leftovers = [p for p in (tmp_path / "cache").rglob("*")
                 if "-partial-" in p.name or "-old-" in p.name]
    assert leftovers == []


def test_a_deleted_release_is_converted_again_from_the_hub_cache_without_a_download(
    name: str, benchmark: Made, hub: FakeHfHub, tmp_path: Path
) -> None:
    bench = benchmark()
    root = bench.download(SOURCE)
    downloaded = hub.downloaded
    shutil.rmtree(root)

    again = bench.download(SOURCE)

    assert again == root
    assert hub.downloaded == downloaded
    assert_the_mini_release(bench, root)


def test_concurrent_calls_both_return_the_complete_release_fetched_once(
    name: str, benchmark: Made, hub: FakeHfHub, repo: Path, tmp_path: Path
) -> None:
    bench = benchmark()

    results = at_once(lambda: bench.download(SOURCE))

    assert len(results) == 2 and results[0] == results[1]
    assert sorted(hub.downloaded) == data_files(repo)
    assert_the_mini_release(bench, results[0])


# --- what the hub lacks -----------------------------------------------------------------------


def test_a_repo_without_its_files_is_an_unexpected_layout_naming_them(
    name: str, benchmark: Made, fake: FakeRepo, hub: FakeHfHub, repo: Path, tmp_path: Path
) -> None:
    files = data_files(repo)
    for file in files:
        (repo / file).unlink()
    (repo / CARD).write_text("---\nlicense: mit\n---\n", encoding="utf-8")  # the card alone

    with pytest.raises(DownloadError) as raised:
        benchmark().download(SOURCE)

    assert_one_line_naming(raised.value, fake.repo_id, hub.url)
    message = str(raised.value)
    assert f"unexpected layout of dataset {fake.repo_id} at {hub.url}: it " in message
    assert names_the_files(message, files), message
    assert hub.downloaded == []


def test_a_dataset_missing_from_the_hub_is_named(
    name: str, benchmark: Made, fake: FakeRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeHfHub({}) as empty, pytest.raises(DownloadError) as raised:
        url = empty.url
        monkeypatch.setenv("HF_ENDPOINT", url)
        benchmark().download(SOURCE)

    assert f"{url} has no dataset {fake.repo_id}" in str(raised.value)
    assert_one_line_naming(raised.value, fake.repo_id, url)


def test_without_pyarrow_a_parquet_release_says_how_to_install_it_and_another_needs_none(
    name: str, benchmark: Made, fake: FakeRepo, hub: FakeHfHub, repo: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    parquet = any(file.endswith(PARQUET) for file in data_files(repo))
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    bench = benchmark()

    if not parquet:
        assert_the_mini_release(bench, bench.download(SOURCE))
        return
    with pytest.raises(DownloadError) as raised:
        bench.download(SOURCE)

    assert_one_line_naming(raised.value, fake.repo_id, hub.url)
    assert f"install it with {pyarrow_install()}" in str(raised.value)
    assert hub.requests == []


# --- offline, and a hub that does not answer --------------------------------------------------


def test_with_hf_hub_offline_and_nothing_cached_it_fails_at_once_naming_the_repo(
    name: str, benchmark: Made, fake: FakeRepo, hub: FakeHfHub, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    with pytest.raises(DownloadError, match="HF_HUB_OFFLINE is set") as raised:
        benchmark().download(SOURCE)

    assert_one_line_naming(raised.value, fake.repo_id, hub.url)
    assert str((tmp_path / "cache" / "huggingface").resolve()) in str(raised.value)
    assert hub.requests == []


def test_with_hf_hub_offline_a_cached_download_is_converted_without_any_request(
    name: str, benchmark: Made, hub: FakeHfHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = benchmark()
    root = bench.download(SOURCE)
    shutil.rmtree(root)
    seen = len(hub.requests)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    again = bench.download(SOURCE)

    assert again == root
    assert hub.requests[seen:] == []
    assert_the_mini_release(bench, root)


def test_an_unreachable_hub_with_nothing_cached_fails_fast_naming_the_repo_and_the_files(
    name: str, benchmark: Made, fake: FakeRepo, repo: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    started = time.monotonic()

    with pytest.raises(DownloadError, match="Connection refused") as raised:
        benchmark().download(SOURCE)

    assert time.monotonic() - started < 5
    assert_one_line_naming(raised.value, fake.repo_id, endpoint)
    assert names_the_files(str(raised.value), data_files(repo)), str(raised.value)


def test_an_unreachable_hub_is_no_problem_when_the_files_are_cached(
    name: str, benchmark: Made, hub: FakeHfHub, tmp_path: Path
) -> None:
    bench = benchmark()
    root = bench.download(SOURCE)
    hub.stop()
    shutil.rmtree(root)  # converted again, offline, from the hub cache
    started = time.monotonic()

    again = bench.download(SOURCE)

    assert time.monotonic() - started < 5
    assert again == root
    assert_the_mini_release(bench, root)
