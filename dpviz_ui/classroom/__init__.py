"""A live class (issue 35): students follow the lecturer's lesson on their own devices and predict before the reveal.

Pure: no streamlit (the page is ``pages/live_class.py``).  One file per concept, lowest first:

* :mod:`.limits` — the in-process sliding-window rate limiter (answers per student, failed code look-ups);
* :mod:`.store` — the class-session store on SQLAlchemy (:class:`ClassStore`): SQLite under ``DPVIZ_DATA_DIR`` by
  default (WAL mode, created on first use), PostgreSQL when ``DPVIZ_CLASS_DB`` is a ``postgresql://`` URL; the class
  codes, the presenter keys (stored hashed, compared in constant time), the step, the reveals and the answers (one per
  student per question, upserted), the CSV export;
* :mod:`.watcher` — one watcher per server process and database: the versions of the followed classes, read by one
  background thread in one query every quarter second, so that a student page's one-second check reads no database;
* :mod:`.push` — the student pages of this process and the class version each shows: when the watcher reads a
  newer version, the server reruns their step (the lecturer's move is pushed; the pages' timer is a fallback);
* :mod:`.delivery` — the fix of a Streamlit race that lost the end of a finished page run when a fragment timer
  fired just then, and the push's request on Streamlit's session (imports Streamlit only inside its functions);
* :mod:`.results` — a prediction read from what a student typed (numbers as everywhere in dpviz: ``6e4``,
  ``60,000``), the class's distribution of predictions beside the right answer (summary and Plotly figure), and the
  QR code of the join link (drawn locally by ``segno``).
"""
