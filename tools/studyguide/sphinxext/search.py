"""Chinese site search: jieba-segmented, with a fix for Sphinx 9.0's broken zh stemmer export.

Sphinx 9.0 ships the English stemmer for zh but exports ``window.Stemmer = ChineseStemmer``, which is
never defined, so every search fails in the browser (sphinx-doc/sphinx#14229, fixed upstream by #14416).
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.search.zh import SearchChinese


class ChineseSearch(SearchChinese):
    """Sphinx's Chinese search, exporting the stemmer its JavaScript actually defines."""

    language_name = "English"  # only used to name the JS stemmer class: EnglishStemmer


def setup(app: Sphinx) -> None:
    """Replace the zh search language."""
    app.add_search_language(ChineseSearch)
