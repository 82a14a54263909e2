"""The words and numbers of the dashboard: input labels and help texts, numbers for the screen (:func:`fmt`,
:func:`pretty`, :func:`tex_sci`, :func:`latex_plain`) and :func:`plain`, the escape every user text goes through.

Pure string functions: imports no streamlit and nothing else of :mod:`dpviz_ui.helpers` (the lowest of its modules).
"""

from __future__ import annotations

import re

# tex_sci and its pattern of a number in scientific notation are the handouts' (one definition serves both)
from dpviz.foundation.mathml import _SCI, tex_sci  # noqa: F401  (re-exported as ui.tex_sci)
# fmt is the foundation's (one definition: dpviz_ui.simulate_view, which must not import Streamlit, uses it too)
from dpviz.foundation.rounding import fmt  # noqa: F401  (re-exported as ui.fmt)


HELP = {
    "n": "Number of training examples. More data means less noise is needed for the same privacy.",
    "d": "Dimension of the model parameter w.",
    "eps": "Privacy budget ε. SMALLER ε = MORE private (more noise); larger ε = less private, more accurate.",
    "log10_delta": "log10 of δ, the probability that the ε guarantee may fail. Usually δ ≤ 1/n² (−6 means δ = 1e-6).",
    "T": "Number of iterations (gradient steps).",
    "eta": "Step size (learning rate) η.",
    "G": "Lipschitz constant: bound on the gradient norm of the loss.",
    "L": "Smoothness / Hölder constant of the gradient.",
    "M": "Bound on the gradient norm at w = 0 (used by the Hölder-smooth papers).",
    "R": "Radius of the parameter domain (or of the optimum w*, see the theorem).",
    "alpha": "Hölder smoothness α of the loss gradient: α = 1 smooth (e.g. logistic), α = 0 only Lipschitz "
             "(e.g. hinge); values in between interpolate.",
    "mu": "Strong-convexity / PL constant μ.",
    "c": "The paper's unspecified absolute constant (default 1): rates are only known up to it.",
    "kappa": "Data radius κ = sup ||x||: the largest norm of a feature vector. With R it fixes the loss's constants.",
    "q": "Exponent q of a q-norm loss, 1 < q ≤ 2; its gradient is (q − 1)-Hölder, so α = q − 1.",
}
NUMERIC = ["n", "d", "eps", "log10_delta", "T", "eta", "G", "L", "M", "R", "alpha", "mu", "c", "kappa"]
#: Constants a loss determines (from κ and R); hidden from the sidebar unless the user overrides them.
LOSS_CONSTANTS = ["G", "L", "M", "alpha"]
LABELS = {"log10_delta": "log10 δ", "eps": "ε", "eta": "η", "alpha": "α", "mu": "μ", "kappa": "κ (data radius)",
          "q": "q (q-norm loss: α = q − 1)"}


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=&])")
_AUTOLINK = re.compile(r"(?i):/|ww(?=w\.)|@.")


def plain(text) -> str:
    """``text`` escaped so that Streamlit's Markdown shows it literally: no links, images, HTML, LaTeX or emphasis.

    Everything a user typed, uploaded or put in a URL goes through this before it reaches st.error/st.warning/...
    """
    # GFM autolink literals (http://..., www...., a@b.c) are found in the text AFTER the escapes are undone: an
    # invisible zero-width space after the scheme's colon, inside "www" and after "@" keeps them plain text
    text = _AUTOLINK.sub(lambda m: m.group(0)[:-1] + "\u200b" + m.group(0)[-1], str(text))
    return _MD_SPECIAL.sub(r"\\\1", text).replace("\n", " ")


_LATEX_WORDS = [(r"\\varepsilon", "ε"), (r"\\epsilon", "ε"), (r"\\delta", "δ"), (r"\\alpha", "α"),
                (r"\\beta", "β"), (r"\\mu", "μ"), (r"\\kappa", "κ"), (r"\\sigma", "σ"), (r"\\eta", "η"),
                (r"\\gamma", "γ"), (r"\\lambda", "λ"), (r"\\log", " log"), (r"\\ln", " ln"), (r"\\cdot", "·"),
                (r"\\times", "×"), (r"\\tilde", ""), (r"\\widetilde", ""), (r"\\mathcal", ""),
                (r"\\Big", ""), (r"\\big", ""), (r"\\left", ""), (r"\\right", ""), (r"\\,", " "),
                (r"\\;", " "), (r"\\!", ""), (r"\\quad", " "), (r"\\min", "min"), (r"\\max", "max")]


def latex_plain(tex: str) -> str:
    """A readable plain-text form of a (simple) LaTeX rate: \\frac{a}{b} -> (a)/(b), \\sqrt{x} -> √(x), Greek letters."""
    out = str(tex)
    for _ in range(6):  # innermost first, a few levels deep
        out = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", out)
        out = re.sub(r"\\frac\s*(\w)\s*\{([^{}]*)\}", r"\1/(\2)", out)
        out = re.sub(r"\\frac\s*\{([^{}]*)\}\s*(\w)", r"(\1)/\2", out)
        out = re.sub(r"\\frac\s*(\w)\s*(\w)", r"\1/\2", out)
        out = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"√(\1)", out)
        out = re.sub(r"\^\{([^{}]*)\}", r"^(\1)", out)
        out = re.sub(r"_\{([^{}]*)\}", r"_\1", out)
    out = re.sub(r"\\sqrt\s*(\\[a-zA-Z]+|\w)", r"√\1", out)
    for pat, rep in _LATEX_WORDS:
        out = re.sub(pat + r"(?![a-zA-Z])", rep, out)
    out = out.replace("{", "(").replace("}", ")").replace("\\", "")
    out = re.sub(r"\(\(([^()]*)\)\)", r"(\1)", out)
    # (1) -> 1, (√n) -> √n, (nε) stays; a function's argument keeps its parentheses: O(n), log(n), (O)(n) -> O(n)
    out = re.sub(r"(?<![A-Za-z)\]])\((√?(?:\d+(?:\.\d+)?|[^\W\d]))\)", r"\1", out)
    out = re.sub(r"([(+/])\s+log", r"\1log", out)
    return re.sub(r"\s+", " ", out).strip()


_GREEK = {"Delta": "Δ", "sigma": "σ", "lambda": "λ", "beta": "β", "epsilon": "ε", "eps": "ε", "delta": "δ", "eta": "η",
          "alpha": "α", "kappa": "κ", "gamma": "γ", "zeta": "ζ", "mu": "μ", "tau": "τ", "xi": "ξ"}
# a name is replaced unless a letter (or a LaTeX backslash) touches it: "2alpha" -> "2α", "K_alpha" -> "K_α"
_GREEK_RE = re.compile(r"(?<![\\a-zA-Z])(" + "|".join(sorted(_GREEK, key=len, reverse=True)) + r")(?![a-zA-Z])")
_SQRT = re.compile(r"(?<![\\a-zA-Z])sqrt(?=\()")
_POW = {"^2": "²", "^3": "³", "^(c)": "⁽ᶜ⁾", "^(o)": "⁽ᵒ⁾"}  # Kang et al.'s b^(c), c_t^(o)


_SUB = dict(zip("0123456789+-−=()aehijklmnoprstuvxβγρφχ", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ"))
_SUP = dict(zip("0123456789+-−=()abcdefghijklmnoprstuvwxyzTβγδεθφχ",
                "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᵀᵝᵞᵟᵋᶿᵠᵡ"))
_SUBS, _SUPS = set(_SUB.values()), set(_SUP.values())
_GROUP = re.compile(r"([_^])\{([^{}]*)\}")


def _script(m) -> str:
    """``_{…}`` / ``^{…}`` of a library note (its ASCII index notation, e.g. M_{alpha,1}, z_{i_{t+1}}): Unicode
    sub- or superscripts where every character has one, else the group in parentheses (M_(α,1)), never raw TeX."""
    kind, body = m.group(1), m.group(2).replace("<=", "≤").replace(">=", "≥")
    table, done = (_SUB, _SUBS) if kind == "_" else (_SUP, _SUPS)
    if body and all(ch in table or ch in done for ch in body):
        return "".join(table.get(ch, ch) for ch in body)
    return f"{kind}({body})"


def pretty(text: str) -> str:
    """A library note in the notation of the papers: σ, λ, β, ε, δ, η for their names, σ² for sigma^2,
    10⁻⁶-style numbers for 1e-06, and Unicode (or parenthesised) indices for the notes' ``_{…}`` and ``^{…}``."""
    out = _GREEK_RE.sub(lambda m: _GREEK[m.group(1)], str(text))
    for _ in range(4):  # innermost first: z_{i_{t+1}} -> z_{iₜ₊₁} -> zᵢₜ₊₁
        out, k = _GROUP.subn(_script, out)
        if not k:
            break
    out = _SQRT.sub("√", out)
    for k, v in _POW.items():
        out = out.replace(k, v)

    def rep(m):
        mant, sign, exp = m.group(1), m.group(2), m.group(3)
        sup = ("-" if sign == "-" else "") + str(int(exp))
        power = "10" + sup.translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
        return power if float(mant) == 1.0 else f"{mant}·{power}"

    return _SCI.sub(rep, out)
