"""Chinese site search: jieba-segmented, with two fixes to Sphinx 9.0's zh search language.

- Sphinx 9.0 ships the English stemmer for zh but exports ``window.Stemmer = ChineseStemmer``, which is never
  defined, so every search fails in the browser (sphinx-doc/sphinx#14229, fixed upstream by #14416).
- It loads jieba's own dictionary a second time as a user dictionary, through a file it never closes; jieba
  already segments with that dictionary, so only a dictionary named in the options is loaded here.
"""

from __future__ import annotations

from pathlib import Path

import snowballstemmer
from sphinx.application import Sphinx
from sphinx.search import SearchLanguage
from sphinx.search.zh import SearchChinese


class ChineseSearch(SearchChinese):
    """Sphinx's Chinese search, exporting the stemmer its JavaScript actually defines."""

    language_name = "English"  # only used to name the JS stemmer class: EnglishStemmer

    def __init__(self, options: dict[str, str]) -> None:
        SearchLanguage.__init__(self, options)
        self.latin_terms: set[str] = set()
        dict_path = options.get("dict")
        if dict_path and Path(dict_path).is_file():
            import jieba

            with open(dict_path, "rb") as f:
                jieba.load_userdict(f)
        self.stemmer = snowballstemmer.stemmer("english")


def setup(app: Sphinx) -> None:
    """Replace the zh search language."""
    app.add_search_language(ChineseSearch)
