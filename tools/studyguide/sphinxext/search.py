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
from sphinx.errors import ExtensionError
from sphinx.search import SearchLanguage
from sphinx.search.zh import SearchChinese

# The browser splits a query on spaces and punctuation only, so a word jieba did not index whole (学习率,
# 混合精度, 梯度累积: the index holds 学习 and 率) found nothing. This splitter cuts each run of Chinese
# characters into the longest pieces the index holds (from the left; single characters, which Sphinx does not
# index, are dropped), and the search requires them all.
# Written without < > & or quotes: Sphinx escapes them when it writes language_data.js.
SPLITTER = """
var splitQuery = (query) => {
  const words = query.split(/[^\\p{Letter}\\p{Number}_\\p{Emoji_Presentation}]+/gu).filter((t) => t);
  const index = typeof Search === typeof {} ? Search._index : null;
  const known = (w) => index ? (w in index.terms || w in index.titleterms) : false;
  const out = [];
  for (const word of words) {
    if (known(word) || !/\\p{Script=Han}/u.test(word)) {
      out.push(word);
      continue;
    }
    const pieces = [];
    let i = 0;
    while (i !== word.length) {
      let j = word.length;
      while (j - i !== 1 ? !known(word.slice(i, j)) : false) {
        j -= 1;
      }
      if (known(word.slice(i, j))) pieces.push(word.slice(i, j));
      i = j;
    }
    out.push(...(pieces.length ? pieces : [word]));
  }
  return out;
};
"""


class ChineseSearch(SearchChinese):
    """Sphinx's Chinese search, exporting the stemmer its JavaScript actually defines, and splitting queries by the index.

    Text is segmented as Sphinx does (jieba's ``cut_for_search``, then the Latin words), but block by block with
    a memo: jieba cuts each run of its word characters on its own, so the words of a text are those of its blocks
    in order, and the book's code and prose repeat blocks (``torch``, ``x.grad``) tens of thousands of times.
    Segmenting the real book took 38.7 s that way and 14.0 s this way, with equal words.
    """

    language_name = "English"  # only used to name the JS stemmer class: EnglishStemmer
    js_splitter_code = SPLITTER

    def __init__(self, options: dict[str, str]) -> None:
        SearchLanguage.__init__(self, options)
        self.latin_terms: set[str] = set()
        dict_path = options.get("dict")
        if dict_path and Path(dict_path).is_file():
            import jieba

            with open(dict_path, "rb") as f:
                jieba.load_userdict(f)
        self.stemmer = snowballstemmer.stemmer("english")
        self._blocks: dict[str, tuple[str, ...]] = {}  # per instance: a user dictionary changes the cut
        self._stems: dict[str, str] = {}

    def split(self, input: str) -> list[str]:
        """The words Sphinx's ``SearchChinese.split`` gives for ``input``, from memoised blocks."""
        from jieba import cut_for_search, re_han_default

        chinese: list[str] = []
        for block in re_han_default.split(input):
            if block:
                words = self._blocks.get(block)
                if words is None:
                    words = self._blocks[block] = tuple(cut_for_search(block))
                chinese += words
        latin1 = [term.strip() for term in self.latin1_letters.findall(input)]
        self.latin_terms.update(latin1)
        return chinese + latin1

    def stem(self, word: str) -> str:
        """Sphinx's ``SearchChinese.stem``, the English stemmer's result memoised per word (the index stems 170,000 words)."""
        lower = word.lower()
        stemmed = self._stems.get(lower)
        if stemmed is None:
            stemmed = self._stems[lower] = self.stemmer.stemWord(lower)
        if len(word) >= 3 > len(stemmed) and word in self.latin_terms:  # an acronym the stemmer would cut short
            return lower
        return stemmed


# The snippet under each result is the text of the page's [role=main] element, which the book theme makes the
# wrapper of the article: the theme switcher ("System Settings 亮色 暗色"), the page contents and the meta and
# provenance lines came first. searchtools.js removes a fixed list of selectors before taking the text; the
# site's copy removes these too.
REMOVED = '[".headerlink", "script", "style"]'
ALSO_REMOVED = ['.bd-header-article', '.onlyprint', '.bd-sidebar-secondary', '.prev-next-area', '.bd-footer-article', '.studyguide-meta',
                '.studyguide-provenance', '.studyguide-cpu-fallback', '.studyguide-selftest']


# A result found through an index entry (广播) is anchored at the entry's empty target: its text is "", and
# searchtools.js appends null and throws. The site's copy takes that result's snippet from the whole page.
EMPTY = 'if (text === "") return null;'
EMPTY_FIXED = 'if (text === "") return anchor ? Search.makeSearchSummary(htmlText, keywords, "") : document.createTextNode("");'


def snippets_from_the_page(app: Sphinx, exc: Exception | None) -> None:
    """Make the site's searchtools.js take its snippets from the page's own text."""
    if exc is not None or app.builder.name != "html":
        return
    path = Path(app.builder.outdir) / "_static" / "searchtools.js"
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    wanted = REMOVED[:-1] + ", " + ", ".join(f'"{s}"' for s in ALSO_REMOVED) + "]"
    patched = text
    for before, after in ((REMOVED, wanted), (EMPTY, EMPTY_FIXED)):
        if after not in patched:
            if before not in patched:
                raise ExtensionError(f"searchtools.js no longer holds {before!r} (Sphinx changed: see studyguide/sphinxext/search.py)")
            patched = patched.replace(before, after, 1)
    if patched != text:
        path.write_text(patched, encoding="utf-8")


def setup(app: Sphinx) -> None:
    """Replace the zh search language, and patch the site's snippets once the site is written."""
    app.add_search_language(ChineseSearch)
    app.connect("build-finished", snippets_from_the_page)
