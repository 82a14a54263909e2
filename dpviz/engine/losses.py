"""Loss functions of the five papers: vectorised value and (sub)gradient, Hölder exponent α, constants G, L, M.

Every loss is an object with attributes ``id``, ``name``, ``setting`` ("pointwise" | "pairwise"), ``param``
("vector" | "matrix"), ``alpha`` (Hölder exponent of the gradient), ``task`` ("regression" | "classification" |
"metric"), ``description``, ``latex``, ``q`` (the exponent of a q-norm loss, ``None`` otherwise), ``source`` (where in
the papers the loss appears, by authors) and the methods

``value(w, x, y, x2=None, y2=None)``
    the loss, broadcast over leading dimensions: ``w`` has shape (..., d) (or (..., d, d) for a matrix parameter),
    ``x`` (..., d), ``y`` (...); for pairwise losses the second example is ``(x2, y2)``.  Returns the broadcast leading
    shape.
``grad(w, x, y, x2=None, y2=None)``
    the gradient in ``w`` (a valid subgradient at kinks), of the broadcast parameter shape.
``constants(*, kappa, R)``
    ``dict(G=, L=, M=, alpha=, mu=)``: Lipschitz constant G on the ball ||w|| <= R (Frobenius norm for matrices),
    Hölder constant L of ||∇f(w) − ∇f(w')|| <= L ||w − w'||^α, M = sup_z ||∇f(0; z)||, for data with ||x|| <= κ, and
    the strong-convexity constant μ that holds for every data set (0 for the plain losses: none of them is strongly
    convex in w for all data; an L2 regulariser λ||w||² makes μ = 2λ, see :class:`L2Regularised`).

``get_loss(loss_id, l2=lam)`` adds the regulariser λ||w||² (Frobenius norm for matrices) to any loss, pointwise or
pairwise (for a pairwise loss it is added to each pair's loss, so the empirical risk gains λ||w||² once).

Label conventions (stated once, used by every loss):

* regression losses assume |y| <= 1 (the data module scales regression labels to [−1, 1]);
* classification losses assume y ∈ {−1, +1} (every bound also holds for |y| <= 1);
* AUC losses (pairwise) call an example *positive* if y > 0 and *negative* if y <= 0 (so labels ±1 and 0/1 both
  work); the square / hinge / q-norm AUC losses are multiplied by I[y = 1 ∧ y' = −1] as in
  Yang, Lei, Lyu & Ying (yang-pairwise) eqs. (1)-(10): a pair that is not (positive, negative) — equal labels or the reversed
  order — has loss 0 and gradient 0;
* metric losses use τ(y, y') = +1 if y = y' (same class) and −1 otherwise (Yang, Lei, Lyu & Ying (yang-pairwise), after eq. (11));
  for labels ±1 this is the product y y' of Xue, Yang, Huai & Wang (xue-pairwise), Example 1.

With a pair, ||x − x'|| <= 2κ, and for a matrix parameter ||(x − x')(x − x')^T||_F = ||x − x'||^2 <= 4κ^2.

Two elementary facts used in the derivations of the Hölder constants (β ∈ (0, 1]):
(H1) |a_+^β − b_+^β| <= |a − b|^β  (t ↦ t^β is subadditive on [0, ∞));
(H2) | |a|^β sgn(a) − |b|^β sgn(b) | <= 2^(1−β) |a − b|^β  (equal signs: H1; opposite signs:
     |a|^β + |b|^β <= 2^(1−β) (|a| + |b|)^β by concavity, and |a| + |b| = |a − b|).
The logistic function φ(t) = log(1 + e^(−t)) has |φ'(t)| = σ(−t) < 1, σ(s) = 1/(1 + e^(−s)), and 0 < φ'' <= 1/4.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz.foundation import validate as v

__all__ = ["Loss", "L2Regularised", "L2_XUE", "LOSSES", "loss_ids", "get_loss"]


def _sigmoid(t):
    """σ(t) = 1 / (1 + e^(−t)) computed without overflow."""
    return 0.5 * (1.0 + np.tanh(0.5 * t))


def _sig(t: float) -> float:
    return 0.5 * (1.0 + math.tanh(0.5 * t))


def _dot(w, x):
    """<w, x> over the last axis, broadcasting the leading axes."""
    w = np.asarray(w, dtype=float)
    x = np.asarray(x, dtype=float)
    if w.shape[-1:] != x.shape[-1:]:
        raise ValueError(f"the parameter w has dimension {w.shape[-1:]} but the features x have {x.shape[-1:]}; "
                         "they must agree.")
    return np.einsum("...i,...i->...", w, x), x


def _check_q(q) -> float:
    q = v.check_real("q", q)
    if not 1.0 < q <= 2.0:
        raise ValueError(f"q must satisfy 1 < q <= 2, got {q:g} (q = 1 is the plain hinge / absolute loss, "
                         "q = 2 the squared one).")
    return q


class Loss:
    """Base class: metadata and input handling shared by every loss (see the module docstring)."""

    id = ""
    name = ""
    setting = "pointwise"
    param = "vector"
    alpha = 1.0
    task = "regression"
    description = ""
    latex = ""
    source = ""
    q = None

    def __init__(self, **params):
        if params:
            raise ValueError(f"the loss {self.id!r} takes no parameters, got {', '.join(sorted(params))}.")
        self.params: dict = {}

    def __repr__(self) -> str:
        extra = "".join(f", {k}={val:g}" for k, val in self.params.items())
        return f"get_loss({self.id!r}{extra})"

    # -- helpers -------------------------------------------------------------------------------------------------
    def _pair(self, x, x2, y2):
        if x2 is None or y2 is None:
            raise ValueError(f"{self.name} is a pairwise loss: give the second example (x2, y2).")
        x = np.asarray(x, dtype=float)
        x2 = np.asarray(x2, dtype=float)
        return x - x2

    @staticmethod
    def _check_kappa_R(kappa, R):
        kappa = v.check_nonnegative("kappa (data radius sup ||x||)", kappa)
        R = v.check_nonnegative("R (domain radius)", R)
        return kappa, R

    def constants(self, *, kappa, R) -> dict:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    #: which of the dashboard's inputs κ (``kappa``), R and q each of G, L, M, α of :meth:`constants` depends on
    #: (the dashboard marks those inputs as changing the numbers when the constant does; ``tests/test_affects.py``
    #: checks it by perturbing each input)
    _inputs = {"G": ("kappa", "R"), "L": ("kappa",), "M": ("kappa",), "alpha": ()}

    def constant_inputs(self) -> dict[str, tuple[str, ...]]:
        """Constant name ("G", "L", "M", "alpha") -> the inputs among ``kappa``, ``R``, ``q`` that change it."""
        return dict(self._inputs)

    def value(self, w, x, y, x2=None, y2=None):  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def grad(self, w, x, y, x2=None, y2=None):  # pragma: no cover - every subclass overrides
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------------------------
# pointwise losses on the linear score m = <w, x>


class LeastSquares(Loss):
    r"""Least squares f(w; x, y) = (<w, x> − y)^2 / 2 (Wang, Lei, Ying & Zhou (wang-lownoise), Section 5 experiments).

    The factor 1/2 is the convention of the simulation engine's fallback and of ``dpviz.studies.reproduce``.
    Gradient (<w, x> − y) x, α = 1.

    Constants (||x|| <= κ, |y| <= 1, ||w|| <= R): ||∇f|| = |<w, x> − y| ||x|| <= (κR + 1) κ = G;
    ||∇f(w) − ∇f(w')|| = |<w − w', x>| ||x|| <= κ^2 ||w − w'||, so L = κ^2; ∇f(0) = −y x, so M = κ.
    """

    id = "least-squares"
    name = "Least squares"
    alpha = 1.0
    task = "regression"
    description = "Squared error (⟨w, x⟩ − y)²/2; smooth (α = 1). Labels |y| ≤ 1."
    latex = r"f(w; x, y) = \tfrac12 (\langle w, x\rangle - y)^2"
    source = "Wang, Lei, Ying & Zhou, Section 5"

    def value(self, w, x, y, x2=None, y2=None):
        m, _ = _dot(w, x)
        return 0.5 * (m - y) ** 2

    def grad(self, w, x, y, x2=None, y2=None):
        m, x = _dot(w, x)
        return (m - y)[..., None] * x

    def constants(self, *, kappa, R):
        """G = κ(κR + 1), L = κ², M = κ, α = 1 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        return {"G": k * (k * R + 1.0), "L": k**2, "M": k, "alpha": 1.0, "mu": 0.0}


class Logistic(Loss):
    r"""Logistic loss f(w; x, y) = log(1 + exp(−y <w, x>)) (Wang, Lei, Ying & Zhou (wang-lownoise), Section 5 experiments).

    Gradient −y σ(−y <w, x>) x with σ the sigmoid; α = 1.

    Constants (||x|| <= κ, y = ±1, ||w|| <= R): σ(−y<w, x>) <= σ(κR), so G = κ σ(κR) (< κ); φ'' <= 1/4 gives
    ||∇f(w) − ∇f(w')|| <= (1/4) |<w − w', x>| ||x||, L = κ^2 / 4; ∇f(0) = −y x / 2, M = κ / 2.
    """

    id = "logistic"
    name = "Logistic"
    alpha = 1.0
    task = "classification"
    description = "Logistic loss log(1 + exp(−y⟨w, x⟩)); smooth (α = 1). Labels ±1."
    latex = r"f(w; x, y) = \log\bigl(1 + e^{-y\langle w, x\rangle}\bigr)"
    source = "Wang, Lei, Ying & Zhou, Section 5"

    def value(self, w, x, y, x2=None, y2=None):
        m, _ = _dot(w, x)
        return np.logaddexp(0.0, -y * m)

    def grad(self, w, x, y, x2=None, y2=None):
        m, x = _dot(w, x)
        return (-y * _sigmoid(-y * m))[..., None] * x

    def constants(self, *, kappa, R):
        """G = κ σ(κR), L = κ²/4, M = κ/2, α = 1 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        return {"G": k * _sig(k * R), "L": k**2 / 4.0, "M": k / 2.0, "alpha": 1.0, "mu": 0.0}


class Hinge(Loss):
    r"""Hinge loss f(w; x, y) = max(0, 1 − y <w, x>) (Wang, Lei, Ying & Zhang (wang-nonsmooth), Section 1: the q = 1 SVM hinge).

    Subgradient −y x if y<w, x> < 1, else 0 (at the kink y<w, x> = 1 we return 0, a valid subgradient); α = 0.

    Constants (||x|| <= κ, y = ±1): every subgradient is 0 or −y x, so G = κ; with α = 0 the Hölder condition
    ||∂f(w) − ∂f(w')|| <= L reads L = sup ||−y x − 0|| = κ; ∂f(0) = −y x (1 − 0 > 0), so M = κ.
    """

    id = "hinge"
    name = "Hinge"
    alpha = 0.0
    task = "classification"
    description = "SVM hinge loss max(0, 1 − y⟨w, x⟩); Lipschitz but not smooth (α = 0). Labels ±1."
    latex = r"f(w; x, y) = \max(0,\, 1 - y\langle w, x\rangle)"
    source = "Wang, Lei, Ying & Zhang, Section 1"

    def value(self, w, x, y, x2=None, y2=None):
        m, _ = _dot(w, x)
        return np.maximum(0.0, 1.0 - y * m)

    def grad(self, w, x, y, x2=None, y2=None):
        m, x = _dot(w, x)
        return (-y * (y * m < 1.0))[..., None] * x

    _inputs = {"G": ("kappa",), "L": ("kappa",), "M": ("kappa",), "alpha": ()}

    def constants(self, *, kappa, R):
        """G = κ, L = κ, M = κ, α = 0 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        return {"G": k, "L": k, "M": k, "alpha": 0.0, "mu": 0.0}


class _QNorm(Loss):
    """A loss with an exponent q in (1, 2] whose gradient is (q − 1)-Hölder, α = q − 1 (Wang, Lei, Ying & Zhang (wang-nonsmooth),
    Section 1).  Subclasses give ``_describe`` (the description with q and α filled in)."""

    _inputs = {"G": ("kappa", "R", "q"), "L": ("kappa", "q"), "M": ("kappa", "q"), "alpha": ("q",)}
    _describe = ""

    def __init__(self, *, q=1.5):
        self.q = _check_q(q)
        self.alpha = self.q - 1.0
        self.params = {"q": self.q}
        self.description = self._describe.format(q=self.q, alpha=self.alpha)


class QNormHinge(_QNorm):
    r"""q-norm hinge loss f(w; x, y) = max(0, 1 − y <w, x>)^q, 1 < q <= 2 (Wang, Lei, Ying & Zhang (wang-nonsmooth), Section 1:
    "the hinge loss (1 − y w^T x)_+^q for q-norm soft margin SVM ... (q − 1)-Hölder smooth").

    Gradient −q y (1 − y<w, x>)_+^(q−1) x; α = q − 1.

    Constants (||x|| <= κ, y = ±1, ||w|| <= R): 1 − y<w, x> <= 1 + κR, so G = q κ (1 + κR)^(q−1).
    With a = 1 − y<w, x>, b = 1 − y<w', x> and (H1): ||∇f(w) − ∇f(w')|| = q ||x|| |a_+^α − b_+^α|
    <= q κ |<w − w', x>|^α <= q κ^(1+α) ||w − w'||^α, so L = q κ^q.  ∇f(0) = −q y x, M = q κ.
    """

    id = "q-norm-hinge"
    name = "q-norm hinge"
    task = "classification"
    latex = r"f(w; x, y) = \max(0,\, 1 - y\langle w, x\rangle)^q,\ 1 < q \le 2"
    source = "Wang, Lei, Ying & Zhang, Section 1"

    _describe = ("q-norm soft-margin SVM loss max(0, 1 − y⟨w, x⟩)^q with q = {q:g}; gradient (q − 1)-Hölder, "
                 "α = {alpha:g}. Labels ±1.")

    def value(self, w, x, y, x2=None, y2=None):
        m, _ = _dot(w, x)
        return np.maximum(0.0, 1.0 - y * m) ** self.q

    def grad(self, w, x, y, x2=None, y2=None):
        m, x = _dot(w, x)
        return (-self.q * y * np.maximum(0.0, 1.0 - y * m) ** self.alpha)[..., None] * x

    def constants(self, *, kappa, R):
        """G = qκ(1 + κR)^(q−1), L = qκ^q, M = qκ, α = q − 1 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        q = self.q
        return {"G": q * k * (1.0 + k * R) ** (q - 1.0), "L": q * k**q, "M": q * k, "alpha": self.alpha, "mu": 0.0}


class Absolute(Loss):
    r"""Absolute loss f(w; x, y) = |y − <w, x>| (Wang, Lei, Ying & Zhang (wang-nonsmooth), abstract and Section 1: "the absolute loss in
    robust regression", the q = 1 case of the q-norm regression loss).

    Subgradient sgn(<w, x> − y) x (0 at the kink <w, x> = y, a valid subgradient); α = 0.

    Constants (||x|| <= κ, |y| <= 1): every subgradient has norm <= κ, G = κ; two subgradients can be +x and −x, so
    L = 2κ (α = 0); ∂f(0) = −sgn(y) x, M = κ.
    """

    id = "absolute"
    name = "Absolute (L1)"
    alpha = 0.0
    task = "regression"
    description = "Absolute error |y − ⟨w, x⟩| of robust regression; Lipschitz, not smooth (α = 0). Labels |y| ≤ 1."
    latex = r"f(w; x, y) = |y - \langle w, x\rangle|"
    source = "Wang, Lei, Ying & Zhang, Section 1"

    def value(self, w, x, y, x2=None, y2=None):
        m, _ = _dot(w, x)
        return np.abs(y - m)

    def grad(self, w, x, y, x2=None, y2=None):
        m, x = _dot(w, x)
        return np.sign(m - y)[..., None] * x

    _inputs = {"G": ("kappa",), "L": ("kappa",), "M": ("kappa",), "alpha": ()}

    def constants(self, *, kappa, R):
        """G = κ, L = 2κ, M = κ, α = 0 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        return {"G": k, "L": 2.0 * k, "M": k, "alpha": 0.0, "mu": 0.0}


class QRegression(_QNorm):
    r"""q-norm regression loss f(w; x, y) = |y − <w, x>|^q, 1 < q <= 2 (Wang, Lei, Ying & Zhang (wang-nonsmooth), Section 1:
    "the q-norm loss |y − w^T x|^q in regression ... (q − 1)-Hölder smooth").

    Gradient q |r|^(q−1) sgn(r) x with r = <w, x> − y; α = q − 1.

    Constants (||x|| <= κ, |y| <= 1, ||w|| <= R): |r| <= κR + 1, G = q κ (κR + 1)^(q−1).  By (H2) with β = α,
    ||∇f(w) − ∇f(w')|| <= q κ 2^(1−α) |<w − w', x>|^α <= q 2^(2−q) κ^q ||w − w'||^α, so L = q 2^(2−q) κ^q
    (q = 2: L = 2κ^2, the smoothness of (<w, x> − y)^2).  ∇f(0) = −q |y|^(q−1) sgn(y) x, M = q κ.
    """

    id = "q-regression"
    name = "q-norm regression"
    task = "regression"
    latex = r"f(w; x, y) = |y - \langle w, x\rangle|^q,\ 1 < q \le 2"
    source = "Wang, Lei, Ying & Zhang, Section 1"

    _describe = ("q-norm regression loss |y − ⟨w, x⟩|^q with q = {q:g}; gradient (q − 1)-Hölder, α = {alpha:g}. "
                 "Labels |y| ≤ 1.")

    def value(self, w, x, y, x2=None, y2=None):
        m, _ = _dot(w, x)
        return np.abs(y - m) ** self.q

    def grad(self, w, x, y, x2=None, y2=None):
        m, x = _dot(w, x)
        r = m - y
        return (self.q * np.abs(r) ** self.alpha * np.sign(r))[..., None] * x

    def constants(self, *, kappa, R):
        """G = qκ(κR + 1)^(q−1), L = q 2^(2−q) κ^q, M = qκ, α = q − 1 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        q = self.q
        return {"G": q * k * (k * R + 1.0) ** (q - 1.0), "L": q * 2.0 ** (2.0 - q) * k**q, "M": q * k,
                "alpha": self.alpha, "mu": 0.0}


class Huber(Loss):
    r"""Huber loss with threshold δ_h > 0: with r = <w, x> − y, f = r^2 / 2 if |r| <= δ_h, else δ_h (|r| − δ_h / 2).

    Not one of the papers' worked examples; it is a standard smooth (α = 1) robust-regression loss that fits the
    assumptions of Wang, Lei, Ying & Zhang (wang-nonsmooth) (convex, nonnegative, α-Hölder smooth gradient, eq. (1)).
    Gradient clip(r, −δ_h, δ_h) x.

    Constants (||x|| <= κ, |y| <= 1, ||w|| <= R): |clip(r)| <= min(δ_h, κR + 1), G = κ min(δ_h, κR + 1); clip is
    1-Lipschitz, L = κ^2; ∇f(0) = clip(−y) x, M = κ min(δ_h, 1).
    """

    id = "huber"
    name = "Huber"
    alpha = 1.0
    task = "regression"
    latex = (r"f(w; x, y) = \begin{cases} \tfrac12 r^2 & |r| \le \delta_h \\ \delta_h (|r| - \tfrac12\delta_h) "
             r"& |r| > \delta_h \end{cases},\ r = \langle w, x\rangle - y")
    source = "standard robust-regression loss (fits the assumptions of Wang, Lei, Ying & Zhang)"

    def __init__(self, *, delta_h=1.0):
        self.delta_h = v.check_positive("delta_h (Huber threshold)", delta_h)
        self.params = {"delta_h": self.delta_h}
        self.description = (f"Huber loss: quadratic for residuals |⟨w, x⟩ − y| ≤ δ_h = {self.delta_h:g}, linear "
                            "beyond; smooth (α = 1) with bounded gradient. Labels |y| ≤ 1.")

    def value(self, w, x, y, x2=None, y2=None):
        m, _ = _dot(w, x)
        a = np.abs(m - y)
        d = self.delta_h
        return np.where(a <= d, 0.5 * a**2, d * (a - 0.5 * d))

    def grad(self, w, x, y, x2=None, y2=None):
        m, x = _dot(w, x)
        return np.clip(m - y, -self.delta_h, self.delta_h)[..., None] * x

    def constant_inputs(self) -> dict[str, tuple[str, ...]]:
        """As :meth:`Loss.constant_inputs`; G = κ min(δ_h, κR + 1) and M = κ min(δ_h, 1) do not depend on R (nor M
        on anything but κ) when δ_h <= 1, since κR + 1 >= 1."""
        return {"G": ("kappa", "R") if self.delta_h > 1.0 else ("kappa",), "L": ("kappa",), "M": ("kappa",),
                "alpha": ()}

    def constants(self, *, kappa, R):
        """G = κ min(δ_h, κR + 1), L = κ², M = κ min(δ_h, 1), α = 1 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        d = self.delta_h
        return {"G": k * min(d, k * R + 1.0), "L": k**2, "M": k * min(d, 1.0), "alpha": 1.0, "mu": 0.0}


# ---------------------------------------------------------------------------------------------------------------
# pairwise AUC losses on h_w(x, x') = <w, x − x'>


def _posneg(y, y2):
    """I[y = 1 ∧ y' = −1] with positive = (y > 0), negative = (y' <= 0)."""
    return ((np.asarray(y) > 0) & (np.asarray(y2) <= 0)).astype(float)


class AUCSquare(Loss):
    r"""AUC square loss f(w; z, z') = (1 − <w, x − x'>)^2 I[y = 1 ∧ y' = −1] (Yang, Lei, Lyu & Ying (yang-pairwise), Section 1, the
    least square loss for AUC maximisation; no factor 1/2, as printed).

    Gradient −2 (1 − <w, u>) u I[...] with u = x − x'; α = 1.  Pairs that are not (positive, negative) have loss 0.

    Constants (||x|| <= κ so ||u|| <= 2κ, ||w|| <= R): |1 − <w, u>| <= 1 + 2κR, G = 2 (1 + 2κR) 2κ = 4κ(1 + 2κR);
    ||∇f(w) − ∇f(w')|| = 2 |<w − w', u>| ||u|| <= 8κ^2 ||w − w'||, L = 8κ^2; ∇f(0) = −2u, M = 4κ.
    """

    id = "auc-square"
    name = "AUC square"
    setting = "pairwise"
    alpha = 1.0
    task = "classification"
    description = ("Pairwise AUC loss (1 − ⟨w, x − x'⟩)² on (positive, negative) pairs, 0 on other pairs; "
                   "smooth (α = 1). Positive: y > 0.")
    latex = r"f(w; z, z') = (1 - \langle w, x - x'\rangle)^2\, \mathbb{I}[y = 1,\ y' = -1]"
    source = "Yang, Lei, Lyu & Ying, Section 1"

    def value(self, w, x, y, x2=None, y2=None):
        m, _ = _dot(w, self._pair(x, x2, y2))
        return (1.0 - m) ** 2 * _posneg(y, y2)

    def grad(self, w, x, y, x2=None, y2=None):
        m, u = _dot(w, self._pair(x, x2, y2))
        return (-2.0 * (1.0 - m) * _posneg(y, y2))[..., None] * u

    def constants(self, *, kappa, R):
        """G = 4κ(1 + 2κR), L = 8κ², M = 4κ, α = 1 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        return {"G": 4.0 * k * (1.0 + 2.0 * k * R), "L": 8.0 * k**2, "M": 4.0 * k, "alpha": 1.0, "mu": 0.0}


class AUCHinge(Loss):
    r"""AUC hinge loss f(w; z, z') = (1 − <w, x − x'>)_+ I[y = 1 ∧ y' = −1] (Yang, Lei, Lyu & Ying (yang-pairwise), Section 4,
    eq. (10)).

    Subgradient −u I[<w, u> < 1] I[...] with u = x − x' (0 at the kink); α = 0.  Other pairs have loss 0.

    Constants (||u|| <= 2κ): G = 2κ; subgradients are 0 or −u, so L = 2κ (α = 0); ∂f(0) = −u, M = 2κ.
    """

    id = "auc-hinge"
    name = "AUC hinge"
    setting = "pairwise"
    alpha = 0.0
    task = "classification"
    description = ("Pairwise AUC hinge loss (1 − ⟨w, x − x'⟩)₊ on (positive, negative) pairs, 0 on other pairs; "
                   "Lipschitz, not smooth (α = 0). Positive: y > 0.")
    latex = r"f(w; z, z') = (1 - \langle w, x - x'\rangle)_+\, \mathbb{I}[y = 1,\ y' = -1]"
    source = "Yang, Lei, Lyu & Ying, eq. (10)"

    def value(self, w, x, y, x2=None, y2=None):
        m, _ = _dot(w, self._pair(x, x2, y2))
        return np.maximum(0.0, 1.0 - m) * _posneg(y, y2)

    def grad(self, w, x, y, x2=None, y2=None):
        m, u = _dot(w, self._pair(x, x2, y2))
        return (-_posneg(y, y2) * (m < 1.0))[..., None] * u

    _inputs = {"G": ("kappa",), "L": ("kappa",), "M": ("kappa",), "alpha": ()}

    def constants(self, *, kappa, R):
        """G = 2κ, L = 2κ, M = 2κ, α = 0 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        return {"G": 2.0 * k, "L": 2.0 * k, "M": 2.0 * k, "alpha": 0.0, "mu": 0.0}


class QNormAUCHinge(_QNorm):
    r"""q-norm AUC hinge f(w; z, z') = (1 − <w, x − x'>)_+^q I[y = 1 ∧ y' = −1], 1 < q <= 2: the AUC loss of
    Yang, Lei, Lyu & Ying (yang-pairwise) eq. (10) with the q-norm hinge of Wang, Lei, Ying & Zhang (wang-nonsmooth), Section 1.

    Gradient −q (1 − <w, u>)_+^(q−1) u I[...], u = x − x'; α = q − 1.  Other pairs have loss 0.

    Constants (||u|| <= 2κ, ||w|| <= R): G = 2qκ (1 + 2κR)^(q−1); by (H1) ||∇f(w) − ∇f(w')|| <= q ||u||
    |<w − w', u>|^α <= q (2κ)^(1+α) ||w − w'||^α, L = q (2κ)^q; ∇f(0) = −q u, M = 2qκ.
    """

    id = "q-norm-auc-hinge"
    name = "q-norm AUC hinge"
    setting = "pairwise"
    task = "classification"
    latex = r"f(w; z, z') = (1 - \langle w, x - x'\rangle)_+^q\, \mathbb{I}[y = 1,\ y' = -1],\ 1 < q \le 2"
    source = "Yang, Lei, Lyu & Ying, eq. (10), with the q-norm hinge of Wang, Lei, Ying & Zhang"

    _describe = ("Pairwise AUC loss (1 − ⟨w, x − x'⟩)₊^q with q = {q:g} on (positive, negative) pairs, 0 on "
                 "other pairs; α = {alpha:g}. Positive: y > 0.")

    def value(self, w, x, y, x2=None, y2=None):
        m, _ = _dot(w, self._pair(x, x2, y2))
        return np.maximum(0.0, 1.0 - m) ** self.q * _posneg(y, y2)

    def grad(self, w, x, y, x2=None, y2=None):
        m, u = _dot(w, self._pair(x, x2, y2))
        return (-self.q * np.maximum(0.0, 1.0 - m) ** self.alpha * _posneg(y, y2))[..., None] * u

    def constants(self, *, kappa, R):
        """G = 2qκ(1 + 2κR)^(q−1), L = q(2κ)^q, M = 2qκ, α = q − 1 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        q = self.q
        return {"G": 2.0 * q * k * (1.0 + 2.0 * k * R) ** (q - 1.0), "L": q * (2.0 * k) ** q, "M": 2.0 * q * k,
                "alpha": self.alpha, "mu": 0.0}


class AUCLogistic(Loss):
    r"""AUC logistic loss f(w; z, z') = φ((y − y') <w, x − x'>), φ(t) = log(1 + e^(−t))
    (Xue, Yang, Huai & Wang (xue-pairwise), Section 2, Example 2).

    Labels are mapped to ±1 (positive: y > 0), so y − y' ∈ {−2, 0, 2}.  As printed, a pair with equal labels has
    f = φ(0) = log 2, a constant with gradient 0 (unlike the indicator losses of 002, whose value there is 0); both
    orders of a (positive, negative) pair give the same loss φ(2<w, x_+ − x_−>).
    Gradient −s σ(−s <w, u>) u with s = y − y', u = x − x'; α = 1.

    Constants (|s| <= 2, ||u|| <= 2κ, ||w|| <= R): σ(−s<w, u>) <= σ(4κR), G = 4κ σ(4κR) (< 4κ);
    φ'' <= 1/4 gives L = s^2 ||u||^2 / 4 <= 4κ^2; ∇f(0) = −s u / 2, M = 2κ.
    """

    id = "auc-logistic"
    name = "AUC logistic"
    setting = "pairwise"
    alpha = 1.0
    task = "classification"
    description = ("Pairwise AUC logistic loss log(1 + exp(−(y − y')⟨w, x − x'⟩)) (labels mapped to ±1); equal-label "
                   "pairs give the constant log 2. Smooth (α = 1).")
    latex = r"f(w; z, z') = \log\bigl(1 + e^{-(y - y')\langle w, x - x'\rangle}\bigr),\ y, y' \in \{-1, +1\}"
    source = "Xue, Yang, Huai & Wang, Example 2"

    @staticmethod
    def _s(y, y2):
        return np.where(np.asarray(y) > 0, 1.0, -1.0) - np.where(np.asarray(y2) > 0, 1.0, -1.0)

    def value(self, w, x, y, x2=None, y2=None):
        m, _ = _dot(w, self._pair(x, x2, y2))
        return np.logaddexp(0.0, -self._s(y, y2) * m)

    def grad(self, w, x, y, x2=None, y2=None):
        m, u = _dot(w, self._pair(x, x2, y2))
        s = self._s(y, y2)
        return (-s * _sigmoid(-s * m))[..., None] * u

    def constants(self, *, kappa, R):
        """G = 4κσ(4κR), L = 4κ², M = 2κ, α = 1 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        return {"G": 4.0 * k * _sig(4.0 * k * R), "L": 4.0 * k**2, "M": 2.0 * k, "alpha": 1.0, "mu": 0.0}


# ---------------------------------------------------------------------------------------------------------------
# pairwise metric-learning losses on h_W(x, x') = (x − x')^T W (x − x')


def _tau(y, y2):
    """τ(y, y') = +1 if y = y' (same class) and −1 otherwise."""
    return np.where(np.asarray(y) == np.asarray(y2), 1.0, -1.0)


class _Metric(Loss):
    setting = "pairwise"
    param = "matrix"
    task = "metric"

    def _h(self, W, x, x2, y2):
        u = self._pair(x, x2, y2)
        W = np.asarray(W, dtype=float)
        if W.shape[-2:] != (u.shape[-1], u.shape[-1]):
            raise ValueError(f"the metric parameter W must be a d x d matrix with d = {u.shape[-1]} features, got "
                             f"shape {W.shape[-2:]}.")
        return np.einsum("...i,...ij,...j->...", u, W, u), u

    @staticmethod
    def _outer(coef, u):
        return coef[..., None, None] * (u[..., :, None] * u[..., None, :])


class MetricHinge(_Metric):
    r"""Metric-learning hinge loss f(W; z, z') = (1 + τ(y, y') (x − x')^T W (x − x'))_+ with τ = +1 for the same class,
    −1 otherwise (Yang, Lei, Lyu & Ying (yang-pairwise), Section 4, eq. (11)).

    Subgradient τ u u^T I[1 + τ h > 0] with u = x − x', h = u^T W u (0 at the kink); α = 0.  As printed in (11),
    same-class pairs pay 1 + h (>= 1 for positive semi-definite W) and different-class pairs (1 − h)_+.

    Constants in the Frobenius norm (||u u^T||_F = ||u||^2 <= 4κ^2): G = 4κ^2; subgradients are 0 or τ u u^T, so
    L = 4κ^2 (α = 0); ∂f(0) = τ u u^T (1 > 0), M = 4κ^2.
    """

    id = "metric-hinge"
    name = "Metric-learning hinge"
    alpha = 0.0
    description = ("Similarity metric learning hinge loss (1 + τ (x − x')ᵀW(x − x'))₊, τ = +1 for the same class and "
                   "−1 otherwise; matrix parameter W, Lipschitz (α = 0).")
    latex = r"f(W; z, z') = \bigl(1 + \tau(y, y')\,(x - x')^\top W (x - x')\bigr)_+"
    source = "Yang, Lei, Lyu & Ying, eq. (11)"

    def value(self, w, x, y, x2=None, y2=None):
        h, _ = self._h(w, x, x2, y2)
        return np.maximum(0.0, 1.0 + _tau(y, y2) * h)

    def grad(self, w, x, y, x2=None, y2=None):
        h, u = self._h(w, x, x2, y2)
        t = _tau(y, y2)
        return self._outer(t * (1.0 + t * h > 0.0), u)

    _inputs = {"G": ("kappa",), "L": ("kappa",), "M": ("kappa",), "alpha": ()}

    def constants(self, *, kappa, R):
        """G = 4κ², L = 4κ², M = 4κ², α = 0 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        return {"G": 4.0 * k**2, "L": 4.0 * k**2, "M": 4.0 * k**2, "alpha": 0.0, "mu": 0.0}


class MetricLogistic(_Metric):
    r"""Metric-learning logistic loss f(W; z, z') = φ(τ(y, y') (1 − (x − x')^T W (x − x'))), φ(t) = log(1 + e^(−t))
    (Xue, Yang, Huai & Wang (xue-pairwise), Section 2, Example 1, where τ = y y' for labels ±1; here τ = +1 for the same class
    and −1 otherwise, which is the same for two classes and also covers several classes).

    Gradient σ(−t) τ u u^T with t = τ(1 − h), u = x − x', h = u^T W u; α = 1.

    Constants in the Frobenius norm (||u u^T||_F <= 4κ^2, |h| <= 4κ^2 ||W||_F <= 4κ^2 R): −t <= 1 + 4κ^2 R, so
    G = 4κ^2 σ(1 + 4κ^2 R) (< 4κ^2); φ'' <= 1/4 and |t − t'| = |<W − W', u u^T>| <= 4κ^2 ||W − W'||_F give
    L = (1/4)(4κ^2)^2 = 4κ^4; at W = 0, σ(−τ) <= σ(1), M = 4κ^2 σ(1).
    """

    id = "metric-logistic"
    name = "Metric-learning logistic"
    alpha = 1.0
    description = ("Similarity metric learning logistic loss log(1 + exp(−τ(1 − (x − x')ᵀW(x − x')))), τ = +1 for the "
                   "same class and −1 otherwise; matrix parameter W, smooth (α = 1).")
    latex = r"f(W; z, z') = \log\bigl(1 + e^{-\tau(y, y')\,(1 - (x - x')^\top W (x - x'))}\bigr)"
    source = "Xue, Yang, Huai & Wang, Example 1"

    def value(self, w, x, y, x2=None, y2=None):
        h, _ = self._h(w, x, x2, y2)
        return np.logaddexp(0.0, -_tau(y, y2) * (1.0 - h))

    def grad(self, w, x, y, x2=None, y2=None):
        h, u = self._h(w, x, x2, y2)
        t = _tau(y, y2)
        return self._outer(t * _sigmoid(-t * (1.0 - h)), u)

    def constants(self, *, kappa, R):
        """G = 4κ²σ(1 + 4κ²R), L = 4κ⁴, M = 4κ²σ(1), α = 1 (derivation in the class docstring)."""
        k, R = self._check_kappa_R(kappa, R)
        return {"G": 4.0 * k**2 * _sig(1.0 + 4.0 * k**2 * R), "L": 4.0 * k**4, "M": 4.0 * k**2 * _sig(1.0),
                "alpha": 1.0, "mu": 0.0}


# ---------------------------------------------------------------------------------------------------------------
# L2 regularisation

#: The regularisation strengths of Xue, Yang, Huai & Wang (xue-pairwise), Section 5 ("Experimental settings"), which
#: make their losses strongly convex for DPGDSC: lambda = 1e-3 for AUC maximisation, 1e-2 for metric learning.
L2_XUE = {"auc": 1e-3, "metric": 1e-2}


def _sqnorm(w, matrix: bool):
    """||w||² over the parameter axes (the last one, or the last two for a matrix parameter: Frobenius)."""
    w = np.asarray(w, dtype=float)
    return np.einsum("...ij,...ij->...", w, w) if matrix else np.einsum("...i,...i->...", w, w)


class L2Regularised(Loss):
    r"""A loss plus the L2 regulariser λ||w||²: f_λ(w; z) = f(w; z) + λ||w||² (Frobenius norm for a matrix W; for a
    pairwise loss f_λ(w; z, z') = f(w; z, z') + λ||w||², so the pairwise empirical risk gains λ||w||² once).

    Xue, Yang, Huai & Wang (xue-pairwise), Section 5 ("Experimental settings"), make their AUC and metric-learning
    losses strongly convex for DPGDSC (their Algorithm 1, Assumption 1) with "an additional Frobenius norm or
    ℓ2-norm regularization term with some λ > 0", λ = 10⁻³ for AUC maximisation and λ = 10⁻² for metric learning.
    The paper does not print the term; dpviz reads it as λ||w||² (not λ||w||²/2), so μ = 2λ.

    Gradient ∇f(w; z) + 2λw; the Hölder exponent α of f is kept.

    Constants (same κ, R as the plain loss; ||w||, ||w'|| <= R so ||w − w'|| <= 2R):

    * G_λ = G + 2λR, since ||2λw|| <= 2λR;
    * L_λ = L + 2λ when α = 1 (2λw is 2λ-Lipschitz); for α < 1 the extra 2λ||w − w'|| = 2λ||w − w'||^α
      ||w − w'||^(1−α) <= 2λ(2R)^(1−α) ||w − w'||^α, so L_λ = L + 2λ(2R)^(1−α) (α = 0: L + 4λR);
    * M_λ = M (the regulariser's gradient vanishes at 0);
    * μ_λ = μ + 2λ: λ||w||² is 2λ-strongly convex (its Hessian is 2λI) and f is convex.
    """

    def __init__(self, base: Loss, l2: float):
        if isinstance(base, L2Regularised):
            raise ValueError("this loss is already regularised; give one l2 value.")
        self.base = base
        self.l2 = v.check_positive("l2 (regularisation strength lambda)", l2)
        for attr in ("id", "name", "setting", "param", "alpha", "task", "q", "source"):
            setattr(self, attr, getattr(base, attr))
        self.params = {**base.params, "l2": self.l2}
        self.name = f"{base.name} + λ‖w‖²"
        self.description = f"{base.description} Plus the L2 regulariser λ‖w‖² with λ = {self.l2:g} (μ = 2λ)."
        self.latex = rf"{base.latex} + \lambda\|w\|^2,\ \lambda = {self.l2:g}"

    def value(self, w, x, y, x2=None, y2=None):
        return self.base.value(w, x, y, x2, y2) + self.l2 * _sqnorm(w, self.param == "matrix")

    def grad(self, w, x, y, x2=None, y2=None):
        return self.base.grad(w, x, y, x2, y2) + 2.0 * self.l2 * np.asarray(w, dtype=float)

    def constant_inputs(self) -> dict[str, tuple[str, ...]]:
        """The base loss's, with R added to G (+ 2λR) and, for α < 1, to L (+ 2λ(2R)^(1−α))."""
        c = self.base.constant_inputs()
        c["G"] = tuple(dict.fromkeys(c["G"] + ("R",)))
        if self.alpha < 1.0:
            c["L"] = tuple(dict.fromkeys(c["L"] + ("R",)))
        return c

    def constants(self, *, kappa, R):
        """G + 2λR, L + 2λ(2R)^(1−α) (L + 2λ for α = 1), M, α, μ + 2λ (derivation in the class docstring)."""
        c = dict(self.base.constants(kappa=kappa, R=R))
        k, R = self._check_kappa_R(kappa, R)
        lam, a = self.l2, c["alpha"]
        c["G"] = c["G"] + 2.0 * lam * R
        c["L"] = c["L"] + (2.0 * lam if a >= 1.0 else 2.0 * lam * (2.0 * R) ** (1.0 - a))
        c["mu"] = c.get("mu", 0.0) + 2.0 * lam
        return c


# ---------------------------------------------------------------------------------------------------------------
# registry

_CLASSES: dict[str, type[Loss]] = {c.id: c for c in (
    LeastSquares, Logistic, Hinge, QNormHinge, Absolute, QRegression, Huber,
    AUCSquare, AUCHinge, AUCLogistic, QNormAUCHinge, MetricHinge, MetricLogistic)}

#: Every loss with its default parameters (q = 1.5, δ_h = 1), by id.
LOSSES: dict[str, Loss] = {lid: cls() for lid, cls in _CLASSES.items()}


def loss_ids(*, setting: str | None = None, task: str | None = None) -> list[str]:
    """Ids of the available losses, optionally only those of a ``setting`` ("pointwise" / "pairwise") or ``task``.

    Parameters
    ----------
    setting, task : str, optional
        Filters; ``None`` keeps all.

    Returns
    -------
    list of str
    """
    if setting is not None and setting not in ("pointwise", "pairwise"):
        raise ValueError(f"setting must be 'pointwise' or 'pairwise', got {setting!r}.")
    if task is not None and task not in ("regression", "classification", "metric"):
        raise ValueError(f"task must be 'regression', 'classification' or 'metric', got {task!r}.")
    return [lid for lid, loss in LOSSES.items()
            if (setting is None or loss.setting == setting) and (task is None or loss.task == task)]


def get_loss(loss_id: str, *, l2: float | None = None, **params) -> Loss:
    """The loss ``loss_id`` (e.g. ``get_loss("q-norm-hinge", q=1.5)``, ``get_loss("huber", delta_h=0.5)``,
    ``get_loss("auc-logistic", l2=1e-3)``).

    Parameters
    ----------
    loss_id : str
        One of :func:`loss_ids`.
    l2 : float, optional
        Strength λ >= 0 of an L2 regulariser λ||w||² added to the loss (:class:`L2Regularised`: μ = 2λ, G + 2λR,
        L + 2λ for smooth losses).  ``None`` or 0: the plain loss (μ = 0).
    **params
        ``q`` (1 < q <= 2) for the q-norm losses, ``delta_h`` (> 0) for Huber; others take none.

    Returns
    -------
    Loss

    Raises
    ------
    ValueError
        For an unknown id (the message lists the known ones) or an invalid / unexpected parameter.
    """
    if not isinstance(loss_id, str) or loss_id not in _CLASSES:
        raise ValueError(f"unknown loss {loss_id!r}; choose one of: {', '.join(_CLASSES)}.")
    if l2 is not None:
        l2 = v.check_nonnegative("l2 (regularisation strength lambda)", l2)
    if not params:
        base = LOSSES[loss_id]
    else:
        cls = _CLASSES[loss_id]
        try:
            base = cls(**params)
        except TypeError:
            allowed = {"q-norm-hinge": "q", "q-regression": "q", "q-norm-auc-hinge": "q", "huber": "delta_h"}
            raise ValueError(f"the loss {loss_id!r} takes "
                             + (f"only the parameter {allowed[loss_id]}" if loss_id in allowed
                                else "no parameters")
                             + f" (and l2), got {', '.join(sorted(params))}.") from None
    return L2Regularised(base, l2) if l2 else base
