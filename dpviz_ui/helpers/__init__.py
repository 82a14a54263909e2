"""The one shared Streamlit helper package of the dashboard: pages import it as ``from dpviz_ui import helpers as ui``
and call ``ui.view_number``, ``ui.cached_calibrate``, ``ui.show_figure``, ``ui.run_job`` ...; every name is defined
in one module of this package, by concern, and re-exported here (the same object, so ``ui._NOISE_POINTS`` is the
store the curves use).

Its modules, lowest first; each imports only modules before it (``tests/test_layers.py`` checks the order):

- :mod:`.text`: input labels and help, numbers for the screen (``fmt``, ``pretty``, ``tex_sci``, ``latex_plain``)
  and ``plain``, the escape of every user text (no streamlit);
- :mod:`.state`: the view shared by every page, the link and the URL, the notice about ignored link parameters;
- :mod:`.widgets`: widgets bound to the view, a page's own number boxes, the one error about invalid inputs;
- :mod:`.sidebar`: the shared parameter boxes, the loss picker, the starred inputs;
- :mod:`.cache`: cached calibrations, bounds, tables and guarantees, curves within a time budget
  (``CURVE_BUDGET``; a test changing it patches ``dpviz_ui.helpers.cache``, where it is read);
- :mod:`.downloads`: "Download this view", tables, privacy statements, the ``python -m dpviz`` commands;
- :mod:`.figures`: charts and formulas, held back on a browser session's first paint;
- :mod:`.jobs`: heavy work in the worker pool (``run_job``) and pages' errors without tracebacks (``guarded``).

What it may import: streamlit and any layer of :mod:`dpviz`; of :mod:`dpviz_ui`, the worker pool (:mod:`.jobs`).
"""

from .text import (  # noqa: F401
    HELP, LABELS, LOSS_CONSTANTS, NUMERIC, fmt, latex_plain, plain, pretty, tex_sci, _AUTOLINK, _GREEK,
    _GREEK_RE, _LATEX_WORDS, _MD_SPECIAL, _POW, _SCI, _SQRT, _SUB, _SUP, _GROUP, _script,
)
from .state import (  # noqa: F401
    LINK_NOTICE_CHARS, LINK_NOTICE_ITEMS, checkpoint, init_state, link_notice_text, params_from_view, set_view,
    show_link_notice, sync_url, view, _legacy_pages_fallback, _page_id, _run_local, _script_run_id, _user_acted,
)
from .widgets import (  # noqa: F401
    invalid_inputs, list_input, multiselect_choice, page_number, parse_number_list, range_text, report_invalid,
    report_page_invalid, stop_if_invalid, view_checkbox, view_choice, view_multiselect, view_number, view_range, _bind,
    _commit, _commit_choice, _page_invalid_parts, _snap,
)
from .sidebar import (  # noqa: F401
    apply_loss, cached_loss_constants, loss_options, loss_picker, param_widgets, resolve_loss,
    show_loss_message, sidebar_names, starred, _takes_q,
)
from .cache import (  # noqa: F401
    CURVE_BUDGET, CURVE_ROUNDS, cached_bound, cached_bound_series, cached_calibrate, cached_feasibility_grid,
    cached_guarantee, cached_noise_series, cached_sigma_of_beta, cached_step_chart, cached_step_live, cached_table,
    continue_curves, items,
    noise_points, only_params, series_complete, _BOUND_POINTS, _NOISE_LOCK, _NOISE_MAX, _NOISE_POINTS,
    _bound_point, _bound_series, _noise_point, _noise_series, _shared_point,
)
from .downloads import (  # noqa: F401
    cli_command, cli_options, download_table, download_view, statement_download, _version,
)
from .figures import (  # noqa: F401
    CHART_DELAY, after_run, flush, latex, params_caption, show_figure, _chart_preload_html, _held_back,
    _hold_charts,
)
from .jobs import (  # noqa: F401
    guarded, run_job, _session_id, _shared_key, _SHARED, _SHARED_KEPT, _SHARED_LOCK,
)
