r"""LaTeX formulas as MathML, for pages that must render math with no network (the lessons' offline handouts).

Browsers render MathML natively (Chromium since version 109), so a handout needs no KaTeX or MathJax script.  The
conversion is done by the pure-Python package ``latex2mathml``; the LaTeX source is kept in the MathML as its
``<annotation encoding="application/x-tex">`` (and in ``alttext``), so it can be copied.  A formula that cannot be
converted is shown as its LaTeX source in ``<code class="tex-fallback">`` (visibly marked); the tests list every
formula of the lessons and of the catalogue and check that none falls back.

Only library text goes through here (formulas and lesson text written in dpviz, numbers it computed): everything
outside a formula is HTML-escaped, and a formula's MathML is built by the converter from its LaTeX tokens.
"""

from __future__ import annotations

import html
import re

__all__ = ["tex_sci", "prepare", "to_mathml", "math_html", "text_html"]

#: a number printed by Python in scientific notation (1e-06, 2.5e+03), not inside a command name or a longer number
_SCI = re.compile(r"(?<![\\\w.])(\d+(?:\.\d+)?)[eE]([+\-]?)0*(\d+)(?![\w.])")


def tex_sci(latex: str) -> str:
    """LaTeX with numbers like ``1e-06`` written as ``10^{-6}`` (and ``2.5e+03`` as ``2.5 \\times 10^{3}``)."""
    def rep(m):
        mant, sign, exp = m.group(1), m.group(2), m.group(3)
        power = f"10^{{{'-' if sign == '-' else ''}{int(exp)}}}"
        return power if float(mant) == 1.0 else f"{mant} \\times {power}"

    return _SCI.sub(rep, latex)


def _font_switch(s: str, cmd: str, target: str) -> str:
    r"""``{\rm abc} x`` -> ``{\mathrm{abc}} x``: a font switch applies to the rest of its group."""
    pat = re.compile(r"\\" + cmd + r"(?![A-Za-z])\s*")
    while True:
        m = pat.search(s)
        if m is None:
            return s
        # the rest of the enclosing group: up to the } that closes it (or the end)
        depth, j = 0, m.end()
        while j < len(s):
            c = s[j]
            if c == "\\":
                j += 2
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:
                    break
                depth -= 1
            j += 1
        s = s[:m.start()] + "\\" + target + "{" + s[m.end():j] + "}" + s[j:]


#: plain rewrites of macros the converter does not know (or renders wrongly) into ones it does
_REWRITES = [
    (re.compile(r"\\operatorname\*?(?![A-Za-z])"), r"\\mathrm"),
    (re.compile(r"\\lVert(?![A-Za-z])"), r"\\|"),
    (re.compile(r"\\rVert(?![A-Za-z])"), r"\\|"),
    (re.compile(r"\\lvert(?![A-Za-z])"), "|"),
    (re.compile(r"\\rvert(?![A-Za-z])"), "|"),
]
#: an alphabet command on one letter without braces (\mathcal N): the converter then writes mathvariant="script",
#: which MathML Core (Chromium) ignores; with braces it writes the letter of that alphabet (U+1D4A9 𝒩)
_ALPHABET_LETTER = re.compile(r"\\(mathcal|mathbb|mathbf|mathsf|mathfrak|mathscr|mathtt)\s*([A-Za-z0-9])")
#: an upright word (\mathrm{risk}): one text run, not one <mi> a letter
_UPRIGHT_WORD = re.compile(r"\\mathrm\{([A-Za-z][A-Za-z0-9 \-]*)\}")


#: delimiters after a size command (``\Big\{``), which the converter copies as their source into the <mo>
_DELIMS = {"\\{": "{", "\\}": "}", "\\|": "\u2016", "\\lbrace": "{", "\\rbrace": "}", "\\langle": "\u27e8",
           "\\rangle": "\u27e9", "\\vert": "|", "\\Vert": "\u2016", "\\lvert": "|", "\\rvert": "|"}
_MO_SOURCE = re.compile(r"(<mo\b[^>]*>)(\\[A-Za-z]+|\\[{}|])(</mo>)")


def _fix_delims(mml: str) -> str:
    """Sized delimiters as characters; a slash without the spacing of a binary operator (as TeX sets 1/δ)."""
    mml = _MO_SOURCE.sub(lambda m: m.group(1) + _DELIMS.get(m.group(2), m.group(2)) + m.group(3), mml)
    return mml.replace("<mo>&#x0002F;</mo>", '<mo lspace="0" rspace="0">&#x0002F;</mo>')


def prepare(latex: str) -> str:
    """The LaTeX the converter is given: numbers in scientific notation written as powers of ten, font switches
    (``{\\rm x}``) as commands (``\\mathrm{x}``), upright words (``\\mathrm{risk}``, ``\\operatorname{Var}``) as
    text, and the few macros it lacks rewritten."""
    s = tex_sci(latex)
    for pat, rep in _REWRITES:
        s = pat.sub(rep, s)
    s = _ALPHABET_LETTER.sub(r"\\\1{\2}", s)
    for cmd, target in (("rm", "mathrm"), ("bf", "mathbf"), ("it", "mathit")):
        s = _font_switch(s, cmd, target)
    return _UPRIGHT_WORD.sub(r"\\text{\1}", s)


def to_mathml(latex: str, *, display: bool = False) -> str | None:
    """A ``<math>`` element of ``latex`` with the source as its annotation, or None when the converter cannot
    convert it or leaves a command it did not understand (a backslash in the rendered part)."""
    try:
        from latex2mathml.converter import convert
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    src = latex.strip()
    if not src:
        return None
    try:
        out = _fix_delims(convert(prepare(src), display="block" if display else "inline"))
    except Exception:  # noqa: BLE001 - any parse failure of the third-party converter falls back to the source
        return None
    if "\\" in out or "<merror" in out:
        return None
    m = re.match(r"(<math\b[^>]*>)(.*)(</math>)\s*$", out, re.S)
    if m is None:
        return None
    body = f"<mrow>{m.group(2)}</mrow>"  # <semantics> renders its first child: one row
    open_tag = m.group(1)[:-1] + f' alttext="{html.escape(src, quote=True)}">'
    return (f"{open_tag}<semantics>{body}<annotation encoding=\"application/x-tex\">"
            f"{html.escape(src, quote=False)}</annotation></semantics></math>")


def math_html(latex: str, *, display: bool = False) -> str:
    """HTML of one formula: its MathML, or (when it cannot be converted) its LaTeX source in a visibly marked
    ``<code class="tex-fallback">``; nothing for an empty formula."""
    if not latex.strip():
        return ""
    out = to_mathml(latex, display=display)
    if out is not None:
        return out
    code = f"<code class=\"tex-fallback\" title=\"LaTeX source (not rendered)\">{html.escape(latex)}</code>"
    return f"<div class=\"tex-block\">{code}</div>" if display else code


_INLINE = re.compile(r"\$(.+?)\$", re.S)


def text_html(text: str) -> str:
    """Lesson text as HTML: ``$…$`` formulas as MathML, ``**bold**`` as <b>, ``*italic*`` as <i>, everything else
    escaped."""
    formulas: list[str] = []

    def hold(m):
        formulas.append(math_html(m.group(1)))
        return f"\x00{len(formulas) - 1}\x00"

    out = html.escape(_INLINE.sub(hold, text.replace("\x00", "")))
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", out)
    out = re.sub(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])", r"<i>\1</i>", out)
    return re.sub("\x00(\\d+)\x00", lambda m: formulas[int(m.group(1))], out)
