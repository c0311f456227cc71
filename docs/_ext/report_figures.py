"""A sphinx-gallery image scraper for the figures of ``RunResult.plot()``.

The report's figures are built with ``matplotlib.figure.Figure`` directly (no pyplot, so a run in
a worker process never opens a window), which sphinx-gallery's matplotlib scraper cannot see.
This one saves every such figure an example holds in a global variable (a figure, or a list or
tuple of them) once, after the block that made it. Named in conf.py as
``image_scrapers = ("matplotlib", "report_figures")``.
"""

from __future__ import annotations


def _figures(value):
    from matplotlib.figure import Figure

    if isinstance(value, Figure):
        return [value]
    if isinstance(value, (list, tuple)):
        return [item for item in value if isinstance(item, Figure)]
    return []


def scrape(block, block_vars, gallery_conf):
    """Save the example's not-yet-saved report figures and return their reST."""
    from sphinx_gallery.scrapers import figure_rst

    seen = block_vars.setdefault("report_figures_seen", set())
    paths = []
    for value in list(block_vars["example_globals"].values()):
        for figure in _figures(value):
            if figure.canvas.manager is not None or id(figure) in seen:
                continue  # pyplot figures are the matplotlib scraper's
            seen.add(id(figure))
            path = next(block_vars["image_path_iterator"])
            figure.savefig(path, dpi=gallery_conf.get("report_figure_dpi", 100))
            paths.append(path)
    return figure_rst(paths, gallery_conf["src_dir"])


def _get_sg_image_scraper():
    return scrape
