"""Small-sample statistics for the paired gate (pure): tests and intervals that stay valid
where the normal approximation does not (a handful of samples, every difference the same,
0/1 scores), with no library beyond the standard one and numpy.

- ``sign_flip_p``: the randomization test of "nothing changed". When the baseline run and the
  new run are two draws of the same model, each cluster's sum of differences is as likely to
  be negative as positive, so flipping the signs of the cluster sums gives the exact null
  distribution of their total, at any n. Counted exactly (a binomial when every sum has the
  same size, which for 0/1 scores with one item per clip is McNemar's exact test on the
  discordant pairs; every sign pattern for a few clusters), bounded by Hoeffding's inequality
  when that bound already decides, else estimated from seeded random flips.
- ``swap_p``: the same test when the two sides were asked a different number of times (a
  baseline written over 20 inference runs, a new run of one): a sample's runs are then
  exchangeable, not its two means, so which of its pooled runs are the new ones is drawn
  again (every choice counted, by building the change's distribution sample by sample, for
  up to a thousand samples and 65,536 distinct changes; beyond, bounded by Hoeffding's
  inequality or estimated from seeded draws).
- ``tango``: Tango's score interval for the difference of two paired proportions, which
  stays inside [-1, 1] and has width even when every pair is alike.
- ``t_quantile``: Student's t quantile, for clustered standard errors with few clusters.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from statistics import NormalDist

ENUMERATED = 16
"""Up to this many non-zero cluster sums every sign pattern is counted (2^16 of them)."""
FLIPS = 19_999
"""Random sign patterns drawn beyond that: the p-value is (1 + as extreme) / (FLIPS + 1)."""
FLIP_SEED = 20_241_104
"""A fixed seed, so that the same data always get the same status."""
_CELLS = 500_000


def binomial_tail(k: int, n: int) -> float:
    """P(X >= k) for X ~ Binomial(n, 1/2), computed exactly."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return sum(math.comb(n, j) for j in range(k, n + 1)) / (1 << n)


def sign_flip_p(sums: Sequence[float], level: float | None = None) -> float:
    """One-sided p-value of the total of ``sums`` being this low (or lower) if nothing
    changed: the share of sign patterns whose total is at most the observed one. ``level``
    lets a Hoeffding bound already below it stand for the p-value (the exact one is smaller
    still), which spares the random flips."""
    scale = sum(abs(s) for s in sums)
    # A zero sum is the same under either sign: it moves no total, and left out it spares
    # the count (for 0/1 scores these are McNemar's concordant pairs).
    nonzero = [s for s in sums if abs(s) > 1e-12 * scale]
    if not nonzero:
        return 1.0
    total = sum(nonzero)
    sizes = [abs(s) for s in nonzero]
    if max(sizes) - min(sizes) <= 1e-9 * max(sizes):
        # Sums of one size: the total is fixed by how many are negative, so a total this low or
        # lower is as many negatives or more, a binomial tail at one half.
        return binomial_tail(sum(s < 0 for s in nonzero), len(nonzero))
    # Totals this close to the observed one are ties (floating-point sums in any order).
    at_most = total + 1e-9 * scale
    if len(nonzero) <= ENUMERATED:
        # Few enough to count exactly (2^16 patterns at most): no bound, no draws.
        return _enumerated(nonzero, at_most)
    # Hoeffding bounds the lower tail only for a total below zero; the exact p is at most it.
    if total < 0 and level is not None:
        bound = math.exp(-total * total / (2 * sum(s * s for s in nonzero)))
        if bound <= level:
            return bound
    return _sampled(nonzero, at_most)


def _enumerated(sums: Sequence[float], at_most: float) -> float:
    """The share of all sign patterns whose total is at most ``at_most``."""
    import numpy as np

    values = np.asarray(sums, dtype=float)
    patterns = (np.arange(1 << len(values))[:, None] >> np.arange(len(values))) & 1
    return float(np.mean((1 - 2 * patterns) @ values <= at_most))


def _sampled(sums: Sequence[float], at_most: float) -> float:
    """(1 + the random sign patterns whose total is at most ``at_most``) / (FLIPS + 1): a
    valid p-value whatever the number of draws, since the observed pattern is one of them
    under the null."""
    import numpy as np

    values = np.asarray(sums, dtype=float)
    rng = np.random.default_rng(FLIP_SEED)
    # Rows of sign patterns at a time, a few megabytes of them whatever the clusters.
    chunk = max(1, min(1_000, _CELLS // len(values)))
    as_low = 0
    for start in range(0, FLIPS, chunk):
        signs = rng.integers(0, 2, size=(min(chunk, FLIPS - start), len(values)), dtype=np.int8)
        as_low += int(np.count_nonzero((1 - 2 * signs) @ values <= at_most))
    return (1 + as_low) / (FLIPS + 1)


Swap = tuple[float, Sequence[float], Sequence[float]]
"""One sample of ``swap_p``: its weight in the metric, its baseline runs' values and its new
runs' values."""


def swap_p(samples: Sequence[Swap], shift: float = 0.0, level: float | None = None) -> float:
    """One-sided p-value of the change ``sum(weight x (mean new - mean baseline))`` being this
    low (or lower) if nothing but ``shift`` changed (added to every new value first): the
    share of the ways of choosing, per sample, which of its pooled runs are the new ones whose
    change is at most the observed one. ``level`` as for ``sign_flip_p``."""
    informative = []
    for weight, base, new in samples:
        # The new runs shifted by the margin: under a drop of exactly the margin they are then
        # exchangeable with the baseline's.
        pooled = [*base, *(v + shift for v in new)]
        # Runs all alike make the same change under every choice: they move no tail.
        if max(pooled) - min(pooled) > 1e-12 * max(1.0, abs(max(pooled))):
            informative.append((weight, pooled, len(new)))
    if not informative:
        return 1.0
    contributions = [_swap_contributions(weight, pooled, k) for weight, pooled, k in informative]
    observed = sum(c[0] for c in contributions)
    scale = sum(max(abs(x) for x in c) for c in contributions)
    at_most = observed + 1e-9 * scale
    counted = _convolved(contributions, at_most, 1e-12 * scale)
    if counted is not None:
        return counted
    if observed < 0 and level is not None:
        spread = sum((max(c) - min(c)) ** 2 for c in contributions)
        bound = math.exp(-2 * observed * observed / spread)
        if bound <= level:
            return bound
    return _swapped(contributions, at_most)


def swap_se(samples: Sequence[Swap]) -> float:
    """The standard deviation of the change over the run-swap test's choices: what the
    runs' own spread makes of it, whatever the new run happened to be."""
    variance = 0.0
    for weight, base, new in samples:
        ways = _swap_contributions(weight, [*base, *new], len(new))
        mean = sum(ways) / len(ways)
        variance += sum((x - mean) ** 2 for x in ways) / len(ways)
    return math.sqrt(variance)


def _swap_contributions(weight: float, pooled: Sequence[float], k: int) -> list[float]:
    """A sample's change under every choice of ``k`` of its pooled runs as the new ones, the
    observed choice (its last ``k``) first."""
    total, rest = sum(pooled), len(pooled) - k
    # Reversed, so that the first combination is the last k indices: the observed choice.
    chosen = [sum(pooled[i] for i in c)
              for c in itertools.combinations(reversed(range(len(pooled))), k)]
    return [weight * (s / k - (total - s) / rest) for s in chosen]


CONVOLVED = 1_000
"""Up to this many informative samples the run-swap test counts every choice exactly."""


def _convolved(contributions: Sequence[Sequence[float]], at_most: float,
               grid: float) -> float | None:
    """The share of all choices (every sample's independently) whose change is at most
    ``at_most``: the distribution of the change, built sample by sample with totals closer
    than ``grid`` merged. None when there are too many samples or distinct totals for that."""
    import numpy as np

    if len(contributions) > CONVOLVED:
        return None
    totals, shares = np.zeros(1), np.ones(1)
    for c in contributions:
        ways = np.asarray(c)
        totals = (totals[:, None] + ways[None, :]).ravel()
        shares = np.repeat(shares / len(ways), len(ways))
        # Totals on a grid merge, or the support would grow as the product of the samples' ways.
        keys, where = np.unique(np.round(totals / grid), return_inverse=True)
        if len(keys) > 1 << ENUMERATED:
            return None
        merged = np.asarray(np.bincount(where, weights=shares), dtype=float)
        totals = np.bincount(where, weights=totals * shares) / merged
        shares = merged
    # The shares' rounding can add up to a hair over one.
    return float(min(1.0, shares[totals <= at_most].sum()))


def _swapped(contributions: Sequence[Sequence[float]], at_most: float) -> float:
    """(1 + the random choices whose change is at most ``at_most``) / (FLIPS + 1), each
    sample's choice drawn uniformly from its ways."""
    import numpy as np

    rng = np.random.default_rng(FLIP_SEED)
    width = max(len(c) for c in contributions)
    # Padded to one width; a sample draws only among its own ways.
    table = np.array([[*c, *([0.0] * (width - len(c)))] for c in contributions])
    ways = np.array([len(c) for c in contributions])
    rows = np.arange(len(contributions))
    chunk = max(1, min(1_000, _CELLS // len(contributions)))
    as_low = 0
    for start in range(0, FLIPS, chunk):
        size = min(chunk, FLIPS - start)
        picks = (rng.random((size, len(contributions))) * ways).astype(np.int64)
        as_low += int(np.count_nonzero(table[rows, picks].sum(axis=1) <= at_most))
    return (1 + as_low) / (FLIPS + 1)


def tango(lost: int, gained: int, n: int, z: float) -> tuple[float, float]:
    """Tango's score interval for ``p_new - p_base`` of ``n`` paired 0/1 outcomes, ``lost``
    right only in the baseline and ``gained`` right only now (Tango, Statistics in Medicine
    1998), each side at the normal quantile ``z``: the changes ``delta`` whose score test
    does not reject. Inside [-1, 1], and never a point: when every pair is alike it is
    ``+-z^2 / (n + z^2)``, as Wilson's interval of a proportion seen at 0."""
    observed = (gained - lost) / n
    high = _bound(lambda delta: _score(lost, gained, n, delta) > -z, observed, 1.0)
    low = _bound(lambda delta: _score(lost, gained, n, delta) < z, observed, -1.0)
    return low, high


def _bound(keeps: Callable[[float], bool], inside: float, edge: float) -> float:
    """The change between ``inside`` and ``edge`` where ``keeps`` stops holding (``edge``
    when it holds all the way), by bisection."""
    if keeps(edge):
        return edge
    for _ in range(100):
        middle = (inside + edge) / 2
        inside, edge = (middle, edge) if keeps(middle) else (inside, middle)
    return (inside + edge) / 2


def _score(lost: int, gained: int, n: int, delta: float) -> float:
    """Tango's score statistic for the change ``delta``: the observed change less ``delta``
    over its standard error at the most likely cell shares under ``delta``."""
    same = n - lost - gained
    # The share gained, p, maximizing the likelihood when p - (share lost) = delta: the larger
    # root of 2n p^2 - B p + gained delta (1 + delta) = 0.
    b = lost * (1 + delta) + gained * (1 + 3 * delta) + 2 * same * delta
    root = b * b - 8 * n * gained * delta * (1 + delta)
    # The discriminant is never negative in exact arithmetic; rounding can make it so.
    p = (b + math.sqrt(max(0.0, root))) / (4 * n)
    variance = n * (2 * p - delta * (1 + delta))
    difference = gained - lost - n * delta
    # At delta = +-1 (every pair moved one way) the variance is zero: the statistic is an
    # infinity of the difference's sign.
    if variance <= 0:
        return math.copysign(math.inf, difference) if difference else 0.0
    return difference / math.sqrt(variance)


def t_quantile(p: float, freedom: int) -> float:
    """The ``p`` quantile of Student's t with ``freedom`` degrees of freedom (``p`` above
    one half)."""
    if freedom == 1:
        return math.tan(math.pi * (p - 0.5))
    if freedom == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    low, high = 0.0, max(2.0, 2 * NormalDist().inv_cdf(p))
    while _t_cdf(high, freedom) < p:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if _t_cdf(middle, freedom) < p else (low, middle)
        if high - low <= 1e-12 * high:
            break
    return (low + high) / 2


def _t_cdf(t: float, freedom: int) -> float:
    """P(T <= t) for t >= 0: one minus half the regularized incomplete beta function at
    ``freedom / (freedom + t^2)``."""
    return 1.0 - 0.5 * _incomplete_beta(freedom / (freedom + t * t), freedom / 2, 0.5)


def _incomplete_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    # The continued fraction converges fast only below this point; above it, the symmetry
    # I_x(a, b) = 1 - I_{1-x}(b, a) (as in Numerical Recipes).
    if x < (a + 1) / (a + b + 2):
        return front * _fraction(x, a, b) / a
    return 1.0 - front * _fraction(1 - x, b, a) / b


def _fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of I_x(a, b), evaluated by the modified Lentz method."""
    # Lentz's guard: a zero denominator becomes tiny instead of a division by zero.
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    value = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            value *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return value
